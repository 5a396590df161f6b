/* matrix_preflight: every agent asked for its status at once before
 * anything is measured, so that a dead agent is said once, by name, and
 * its cells are stored lost without a child each (one dead agent of
 * four used to print twenty lines of the same refusal and spawn a test
 * per cell, each waiting out its connect), see matrix_int.h. */
#include "matrix/matrix_int.h"
#include "core/fanout.h"
#include "log.h"
#include "msg.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The STATUS request carries nothing. */
static cJSON *
status_body(struct inv_host *h, void *udata)
{
	(void)h, (void)udata;
	return cJSON_CreateObject();
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
	if (m->dead == NULL)
		return 0;
	if (fanout_run(m->inv, &key, m->o->timeout, 5, MSG_STATUS,
	    status_body, NULL, &r) == -1 || r == NULL) {
		free(m->dead);
		m->dead = NULL;
		fanout_free(r, m->inv->nhosts);
		return 0;
	}
	/* fanout's replies come in inventory order, as m->h does. An
	 * agent that answered, even with a refusal (busy with another
	 * coordinator's test), is alive: its cells are tried. */
	for (i = 0; i < m->n; i++) {
		if (r[i].body != NULL)
			continue;
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
}
