/* matrix_preflight: every agent asked for its status at once before
 * anything is measured, so that a dead agent is said once, by name, and
 * its cells are stored lost without a child each (one dead agent of
 * four used to print twenty lines of the same refusal and spawn a test
 * per cell, each waiting out its connect), see matrix_int.h. */
#include "matrix/matrix_int.h"
#include "core/fanout.h"
#include "clock.h"
#include "json.h"
#include "log.h"
#include "msg.h"
#include "text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The STATUS request carries nothing. */
static cJSON *
status_body(struct inv_host *h, void *udata)
{
	(void)h, (void)udata;
	return cJSON_CreateObject();
}

/* read_limits: an answering agent's limits (its STATUS's "limits"), what
 * the plan stays within; 0 where it has none or says nothing (an older
 * agent). The agent is untrusted: each through a typed, bounded getter. */
static void
read_limits(struct mrun *m, int i, const cJSON *body)
{
	const cJSON *lim = cJSON_GetObjectItem(body, "limits");
	char err[CF_ERRLEN];
	double v;

	if (!cJSON_IsObject(lim))
		return;
	if (json_opt_double(lim, "max_rate", 0, 1e13, 0, &v, err) == 0)
		m->lim_rate[i] = (uint64_t)v;
	if (json_opt_double(lim, "max_streams", 0, 1e6, 0, &v, err) == 0)
		m->lim_streams[i] = (unsigned)v;
	if (json_opt_double(lim, "max_duration", 0, 1e7, 0, &v, err) == 0)
		m->lim_secs[i] = v;
}

/* holders: how many answering agents run another coordinator's tests;
 * their names into who (", "-separated), the first holder into holder,
 * the longest time left into *left. */
static int
holders(struct mrun *m, const struct fanout_reply *r, char *who, size_t wsz,
    char *holder, size_t hsz, double *left)
{
	char err[CF_ERRLEN];
	const char *hb;
	size_t off = 0;
	double l;
	int i, nb = 0;

	who[0] = holder[0] = '\0';
	*left = 0;
	for (i = 0; i < m->n; i++) {
		if (r[i].body == NULL || json_opt_str(r[i].body, "held_by", 1,
		    80, NULL, &hb, err) == -1 || hb == NULL)
			continue;
		if (json_opt_double(r[i].body, "busy_left_s", 0, 86400, 0, &l,
		    err) == 0 && l > *left)
			*left = l;
		if (holder[0] == '\0')
			snprintf(holder, hsz, "%s", hb);
		off = text_appendf(who, wsz, off, "%s%s", nb ? ", " : "",
		    m->h[i]->name);
		nb++;
	}
	return nb;
}

/* ask: every agent's STATUS at once into *r; -1 when it cannot ask. */
static int
ask(struct mrun *m, const struct auth_key *key, struct fanout_reply **r)
{
	*r = NULL;
	if (fanout_run(m->inv, key, m->o->timeout, 5, MSG_STATUS, status_body,
	    NULL, r) == -1 || *r == NULL) {
		fanout_free(*r, m->inv->nhosts);
		*r = NULL;
		return -1;
	}
	return 0;
}

/* wait_free: agents held by another coordinator: said up front, then
 * refused (--no-wait: -1) or waited for, bounded by --wait, with the
 * progress on a TTY. Returns 0 with *r the latest answers. */
static int
wait_free(struct mrun *m, const struct auth_key *key, struct fanout_reply **r)
{
	char who[512], holder[96];
	double left, t0 = clock_mono(), waited;
	int nb;

	nb = holders(m, *r, who, sizeof(who), holder, sizeof(holder), &left);
	if (nb == 0)
		return 0;
	fprintf(stderr, "cephfab: matrix: the agent%s on %s %s running tests "
	    "for %s (about %.0f s left)%s\n", nb > 1 ? "s" : "", who,
	    nb > 1 ? "are" : "is", holder, left, m->o->no_wait ? "; not "
	    "starting (--no-wait)" : ": waiting for them (--no-wait refuses "
	    "instead)");
	if (m->o->no_wait)
		return -1;
	for (;;) {
		waited = clock_mono() - t0;
		if (waited >= m->o->wait_max) {
			fprintf(stderr, "cephfab: matrix: still busy after %.0f s "
			    "(--wait): their cells are measured if they are "
			    "free by then, else not (matrix --resume later)\n",
			    waited);
			return 0;
		}
		out_progress("matrix: waiting %.0f s for %s (tests for %s, "
		    "about %.0f s left)", waited, who, holder, left);
		sleep(2);
		fanout_free(*r, m->inv->nhosts);
		if (ask(m, key, r) == -1)
			return 0;
		nb = holders(m, *r, who, sizeof(who), holder, sizeof(holder),
		    &left);
		if (nb == 0) {
			out_progress_done();
			fprintf(stderr, "cephfab: matrix: the agents are free "
			    "after %.0f s\n", clock_mono() - t0);
			return 0;
		}
	}
}

int
matrix_preflight(struct mrun *m)
{
	struct fanout_reply *r = NULL;
	struct auth_key key;
	char err[CF_ERRLEN];
	int i, ndead = 0;

	/* The cells' own children load the key again and say so when it
	 * cannot be read; here it only decides whether to ask. */
	if (auth_key_load(inventory_key_path(m->inv, m->o->key), &key,
	    err) == -1)
		return 0;
	m->dead = calloc((size_t)m->n, sizeof(*m->dead));
	m->lim_rate = calloc((size_t)m->n, sizeof(*m->lim_rate));
	m->lim_streams = calloc((size_t)m->n, sizeof(*m->lim_streams));
	m->lim_secs = calloc((size_t)m->n, sizeof(*m->lim_secs));
	if (m->dead == NULL || m->lim_rate == NULL || m->lim_streams == NULL ||
	    m->lim_secs == NULL) {
		matrix_preflight_free(m);
		return 0;
	}
	if (ask(m, &key, &r) == -1) {
		matrix_preflight_free(m);
		return 0;
	}
	/* Before anything is measured: a busy agent is another operator's
	 * run, not a dead network. */
	if (wait_free(m, &key, &r) == -1) {
		fanout_free(r, m->inv->nhosts);
		return -1;
	}
	/* fanout's replies come in inventory order, as m->h does. An
	 * agent that answered, even with a refusal (busy with another
	 * coordinator's test), is alive: its cells are tried. */
	for (i = 0; r != NULL && i < m->n; i++) {
		if (r[i].body != NULL) {
			read_limits(m, i, r[i].body);
			continue;
		}
		m->dead[i] = strdup(r[i].error[0] ? r[i].error :
		    "no answer");
		if (m->dead[i] == NULL)
			continue;
		ndead++;
		fprintf(stderr, "cephfab: matrix: the agent on %s does not "
		    "answer (%s): its cells are not measured\n",
		    m->h[i]->name, m->dead[i]);
	}
	fanout_free(r, m->inv->nhosts);
	return ndead;
}

bool
matrix_dead_cell(struct mrun *m, const struct job *j)
{
	const char *who, *why;
	char err[CF_ERRLEN], reason[CF_ERRLEN + 80];
	cJSON *d;

	if (m->dead == NULL || j->whole || (!m->dead[j->a] && !m->dead[j->b]))
		return false;
	who = m->dead[j->a] ? m->h[j->a]->name : m->h[j->b]->name;
	why = m->dead[j->a] ? m->dead[j->a] : m->dead[j->b];
	/* The reason reads as a failed test's does ("agent on H: why"),
	 * which is how the findings know the agent, not the path, is
	 * what failed. */
	snprintf(reason, sizeof(reason), "agent on %s: %s (before the run)",
	    who, why);
	d = cJSON_CreateObject();
	cJSON_AddStringToObject(d, "error", reason);
	if (!m->interrupted && store_put_cell(&m->st, m->run,
	    net_name(j->net), m->h[j->a]->name, m->h[j->b]->name,
	    matrix_test_names[j->test], "lost", d, err) == -1)
		log_warnx("%s", err);
	cJSON_Delete(d);
	return true;
}

void
matrix_preflight_free(struct mrun *m)
{
	int i;

	for (i = 0; m->dead != NULL && i < m->n; i++)
		free(m->dead[i]);
	free(m->dead);
	m->dead = NULL;
	free(m->lim_rate);
	free(m->lim_streams);
	free(m->lim_secs);
	m->lim_rate = NULL;
	m->lim_streams = NULL;
	m->lim_secs = NULL;
}
