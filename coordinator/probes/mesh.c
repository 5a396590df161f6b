/* mesh: every pair's RTT at once, see probes.h. */
#include "probes/probes.h"
#include "log.h"
#include "msg.h"
#include "core/core.h"
#include "json.h"
#include "store/store.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ev.h>

enum mstate { MH_CONNECT, MH_OPEN, MH_RESPONDING, MH_RUN, MH_DONE, MH_FAIL };

struct mhost {
	struct mrun_mesh *m;
	struct inv_host *h;
	struct sess *s;
	enum mstate st;
	uint16_t port;			/* its responder */
	char rid[17], nid[17];		/* responder and runner probe ids */
	char error[256];
	double late_us;			/* its runner's p99 lateness, or NAN */
	double drops;			/* replies its socket dropped, or NAN */
};

/* One ordered pair's figures, kept as numbers: a JSON tree per pair
 * would cost ~1 KB each, 65 MB for 256 hosts. */
struct mstat {
	bool have;
	uint32_t sent, recv;
	float rtt[6];			/* min p50 p90 p99 max mean, us */
};

static const char *const rtt_keys[6] = { "min_us", "p50_us", "p90_us",
    "p99_us", "max_us", "mean_us" };

struct mrun_mesh {
	struct ev_loop *loop;
	struct conn_ctx ctx;
	const struct mesh_opts *o;
	struct mhost *hs;
	int n;
	int pending;			/* hosts not yet past a phase */
	bool running;			/* runners started */
	bool finished;			/* every host done or failed */
	double duration;
	struct mstat *stats;		/* [from * n + to] */
	char (*addr)[NETADDR_STRLEN];	/* each host's probed address */
	char token[2 * 32 + 1];
	ev_timer deadline;
	ev_signal sigint_w;
};

static const struct netaddr *
addr_of(const struct mrun_mesh *m, const struct mhost *x)
{
	return m->o->net ? &x->h->clus : &x->h->pub;
}

static void
hexid(char *out, size_t len)
{
	uint8_t r[32];
	size_t i;

	if (auth_nonce(r) == -1)
		memset(r, 0x5a, sizeof(r));
	for (i = 0; i < len / 2; i++)
		snprintf(out + 2 * i, 3, "%02x", r[i]);
}

static void mesh_step(struct mrun_mesh *m);

static void
host_fail(struct mhost *x, const char *why)
{
	if (x->st == MH_FAIL || x->st == MH_DONE)
		return;
	snprintf(x->error, sizeof(x->error), "%s", why);
	x->st = MH_FAIL;
	mesh_step(x->m);
}

/* mesh_runners: once every responder is up (or its host failed), each
 * live host gets one runner aimed at every other live responder. */
static void
mesh_runners(struct mrun_mesh *m)
{
	char a[NETADDR_STRLEN];
	int i, j, live = 0;

	m->running = true;
	for (i = 0; i < m->n; i++)
		live += m->hs[i].st == MH_RESPONDING;
	for (i = 0; i < m->n; i++) {
		struct mhost *x = &m->hs[i];
		cJSON *b, *arr, *sz;

		if (x->st != MH_RESPONDING)
			continue;
		if (live < 2) {
			host_fail(x, "no other host to probe");
			continue;
		}
		b = cJSON_CreateObject();
		cJSON_AddStringToObject(b, "probe", x->nid);
		cJSON_AddStringToObject(b, "kind", "mesh");
		cJSON_AddStringToObject(b, "token", m->token);
		cJSON_AddStringToObject(b, "local", netaddr_str(addr_of(m, x), a,
		    sizeof(a)));
		cJSON_AddNumberToObject(b, "duration", m->duration);
		cJSON_AddNumberToObject(b, "count", m->o->count);
		cJSON_AddNumberToObject(b, "rate", m->o->rate);
		cJSON_AddNumberToObject(b, "timeout_ms", 1000);
		sz = cJSON_AddArrayToObject(b, "sizes");
		cJSON_AddItemToArray(sz, cJSON_CreateNumber(m->o->size));
		arr = cJSON_AddArrayToObject(b, "targets");
		for (j = 0; j < m->n; j++) {
			struct mhost *y = &m->hs[j];
			cJSON *t;

			if (j == i || y->st < MH_RESPONDING || y->st > MH_RUN)
				continue;
			t = cJSON_CreateObject();
			cJSON_AddStringToObject(t, "dst", netaddr_str(
			    addr_of(m, y), a, sizeof(a)));
			cJSON_AddNumberToObject(t, "port", y->port);
			cJSON_AddItemToArray(arr, t);
		}
		x->st = MH_RUN;
		session_send(x->s, MSG_PROBE_RUN, b);
		cJSON_Delete(b);
	}
}

/* mesh_step moves the run on when a phase is complete for every host. */
static void
mesh_step(struct mrun_mesh *m)
{
	int i, opening = 0, running = 0, done = 0;

	for (i = 0; i < m->n; i++) {
		opening += m->hs[i].st < MH_RESPONDING;
		running += m->hs[i].st == MH_RUN;
		done += m->hs[i].st == MH_DONE || m->hs[i].st == MH_FAIL;
	}
	if (!m->running) {
		out_progress("mesh: %d of %d responders up", m->n - opening,
		    m->n);
		if (opening == 0)
			mesh_runners(m);
		return;
	}
	out_progress("mesh: %d of %d hosts measured", done, m->n);
	if (running == 0) {
		m->finished = true;
		ev_break(m->loop, EVBREAK_ALL);
	}
}

static void
mesh_ready(struct sess *s)
{
	struct mhost *x = s->udata;
	struct mrun_mesh *m = x->m;
	char a[NETADDR_STRLEN];
	cJSON *b = cJSON_CreateObject();

	if (m->running) {
		/* Too late to be probed: the runners have their targets. */
		cJSON_Delete(b);
		host_fail(x, "connected after the runners started");
		return;
	}
	cJSON_AddStringToObject(b, "probe", x->rid);
	cJSON_AddStringToObject(b, "kind", "udp");
	cJSON_AddStringToObject(b, "token", m->token);
	cJSON_AddStringToObject(b, "local", netaddr_str(addr_of(m, x), a,
	    sizeof(a)));
	/* The responder outlives every runner's probes. */
	cJSON_AddNumberToObject(b, "duration", m->duration + 5);
	x->st = MH_OPEN;
	session_send(s, MSG_PROBE_OPEN, b);
	cJSON_Delete(b);
}

/* mesh_absorb turns runner i's answer into its row of stats. */
static void
mesh_absorb(struct mrun_mesh *m, int i, const cJSON *body)
{
	const cJSON *t, *rtt, *load;
	char err[CF_ERRLEN];
	int j = 0, k, hint = 0;

	/* How late the runner's own thread was (agents before this field
	 * say nothing: unknown). */
	m->hs[i].late_us = m->hs[i].drops = NAN;
	if (json_opt_obj(body, "load", &load, err) == 0 && load != NULL) {
		json_opt_double(load, "late_p99_us", 0, 1e12, NAN,
		    &m->hs[i].late_us, err);
		json_opt_double(load, "rx_drops", 0, 1e12, NAN,
		    &m->hs[i].drops, err);
	}
	cJSON_ArrayForEach(t, cJSON_GetObjectItem(body, "targets")) {
		const char *dst;
		uint32_t sent, recv;
		struct mstat *st;
		double v;

		if (json_get_str(t, "dst", 2, NETADDR_STRLEN - 1, &dst, err) == -1 ||
		    json_get_u32(t, "sent", 0, 1000000, &sent, err) == -1 ||
		    json_get_u32(t, "received", 0, 1000000, &recv, err) == -1)
			continue;
		/* Targets come back in the order they were given. */
		for (k = 0; k < m->n; k++) {
			j = (hint + k) % m->n;
			if (strcmp(m->addr[j], dst) == 0)
				break;
		}
		if (k == m->n || j == i)
			continue;
		hint = j + 1;
		st = &m->stats[i * m->n + j];
		st->have = true;
		st->sent = sent;
		st->recv = recv > sent ? sent : recv;
		for (k = 0; k < 6; k++)
			st->rtt[k] = NAN;
		rtt = cJSON_GetObjectItem(t, "rtt");
		for (k = 0; rtt && k < 6; k++)
			if (json_get_double(rtt, rtt_keys[k], 0, 1e12, &v,
			    err) == 0)
				st->rtt[k] = (float)v;
	}
}

static void
mesh_message(struct sess *s, const struct frame_hdr *h, const cJSON *body)
{
	struct mhost *x = s->udata;
	char err[CF_ERRLEN], d[300];
	const char *id, *msg = NULL;
	uint32_t port;

	if (!(h->flags & MSG_F_REPLY) || (h->type != MSG_PROBE_OPEN &&
	    h->type != MSG_PROBE_RUN) ||
	    json_get_str(body, "probe", 0, 16, &id, err) == -1)
		return;
	if (json_opt_str(body, "error", 0, 512, NULL, &msg, err) == 0 && msg &&
	    cJSON_GetObjectItem(body, "targets") == NULL) {
		snprintf(d, sizeof(d), "%s refused: %s", msg_name(h->type), msg);
		host_fail(x, d);
		return;
	}
	if (h->type == MSG_PROBE_OPEN && x->st == MH_OPEN &&
	    strcmp(id, x->rid) == 0) {
		if (json_get_u32(body, "port", 1, 65535, &port, err) == -1) {
			snprintf(d, sizeof(d), "responder reply: %s", err);
			host_fail(x, d);
			return;
		}
		x->port = (uint16_t)port;
		x->st = MH_RESPONDING;
		mesh_step(x->m);
	} else if (h->type == MSG_PROBE_RUN && x->st == MH_RUN &&
	    strcmp(id, x->nid) == 0) {
		mesh_absorb(x->m, (int)(x - x->m->hs), body);
		x->st = MH_DONE;
		mesh_step(x->m);
	}
}

static void
mesh_closed(struct sess *s, enum conn_reason r, const char *detail)
{
	struct mhost *x = s->udata;
	char d[300];

	session_blame(d, sizeof(d), x->h->name, NULL, r, detail);
	host_fail(x, d);
}

static void
mesh_deadline_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct mrun_mesh *m = w->data;
	int i;

	(void)revents;
	for (i = 0; i < m->n; i++)
		if (m->hs[i].st != MH_DONE && m->hs[i].st != MH_FAIL) {
			snprintf(m->hs[i].error, sizeof(m->hs[i].error),
			    "no answer before the deadline");
			m->hs[i].st = MH_FAIL;
		}
	ev_break(loop, EVBREAK_ALL);
}

static void
mesh_sigint_cb(struct ev_loop *loop, ev_signal *w, int revents)
{
	struct mrun_mesh *m = w->data;

	(void)revents;
	log_warnx("interrupted");
	/* Closing the sessions stops every probe on the agents. */
	mesh_deadline_cb(loop, &m->deadline, 0);
}

/* pair_json: one ordered pair as the JSON output shows it. */
static cJSON *
pair_json(const struct mrun_mesh *m, int a, int b)
{
	const struct mstat *st = &m->stats[a * m->n + b];
	cJSON *o = cJSON_CreateObject(), *r;
	int k;

	cJSON_AddStringToObject(o, "from", m->hs[a].h->name);
	cJSON_AddStringToObject(o, "to", m->hs[b].h->name);
	cJSON_AddNumberToObject(o, "sent", st->sent);
	cJSON_AddNumberToObject(o, "received", st->recv);
	if (st->recv > 0) {
		r = cJSON_AddObjectToObject(o, "rtt");
		for (k = 0; k < 6; k++)
			if (isfinite(st->rtt[k]))
				cJSON_AddNumberToObject(r, rtt_keys[k],
				    round(st->rtt[k] * 1000) / 1000);
	}
	return o;
}

static cJSON *
errors_json(const struct mrun_mesh *m)
{
	cJSON *errs = cJSON_CreateArray();
	int i;

	for (i = 0; i < m->n; i++) {
		cJSON *e;

		if (m->hs[i].st != MH_FAIL)
			continue;
		e = cJSON_CreateObject();
		cJSON_AddStringToObject(e, "host", m->hs[i].h->name);
		cJSON_AddStringToObject(e, "error", m->hs[i].error);
		cJSON_AddItemToArray(errs, e);
	}
	return errs;
}

/* mesh_print_json streams the result, one pair at a time, so that a
 * large mesh never holds its whole tree:
 *   {ENVELOPE..., "network", "size", "count", "rate", "hosts": [...],
 *    "results": [{"from", "to", "sent", "received", "rtt"?}...],
 *    "errors": [{"host", "error"}]} */
static int
mesh_print_json(const struct mrun_mesh *m)
{
	cJSON *head = envelope_json(), *hosts, *errs;
	char *s;
	int a, b, first = 1, rc = 0;

	if (head == NULL)
		head = cJSON_CreateObject();
	envelope_printed();

	cJSON_AddStringToObject(head, "network", m->o->net ? "cluster" :
	    "public");
	cJSON_AddNumberToObject(head, "size", m->o->size);
	cJSON_AddNumberToObject(head, "count", m->o->count);
	cJSON_AddNumberToObject(head, "rate", m->o->rate);
	hosts = cJSON_AddArrayToObject(head, "hosts");
	for (a = 0; a < m->n; a++)
		cJSON_AddItemToArray(hosts, cJSON_CreateString(
		    m->hs[a].h->name));
	s = cJSON_PrintUnformatted(head);
	cJSON_Delete(head);
	if (s == NULL)
		return -1;
	/* The head without its closing brace, then the arrays. */
	s[strlen(s) - 1] = '\0';
	printf("%s,\"results\":[", s);
	free(s);
	for (a = 0; a < m->n; a++)
		for (b = 0; b < m->n; b++) {
			cJSON *o;

			if (!m->stats[a * m->n + b].have)
				continue;
			o = pair_json(m, a, b);
			s = cJSON_PrintUnformatted(o);
			cJSON_Delete(o);
			if (s == NULL) {
				rc = -1;
				continue;
			}
			printf("%s\n%s", first ? "" : ",", s);
			first = 0;
			free(s);
		}
	errs = errors_json(m);
	s = cJSON_PrintUnformatted(errs);
	cJSON_Delete(errs);
	printf("],\"errors\":%s}\n", s ? s : "[]");
	free(s);
	return fflush(stdout) == 0 ? rc : -1;
}

static int
fcmp(const void *x, const void *y)
{
	float a = *(const float *)x, b = *(const float *)y;

	return a < b ? -1 : a > b;
}

static void
mesh_print(const struct mrun_mesh *m)
{
	float *p50 = malloc(sizeof(float) * (size_t)(m->n * m->n) + 1);
	float worst = 0;
	int a, b, k = 0, wa = 0, wb = 0;

	for (a = 0; p50 && a < m->n; a++)
		for (b = 0; b < m->n; b++) {
			const struct mstat *st = &m->stats[a * m->n + b];

			if (!st->have || st->recv == 0)
				continue;
			p50[k++] = st->rtt[1];
			if (st->rtt[3] > worst) {
				worst = st->rtt[3];
				wa = a;
				wb = b;
			}
		}
	if (p50 && k)
		qsort(p50, (size_t)k, sizeof(*p50), fcmp);
	printf("%d ordered pairs measured; median RTT p50 %.1f us; worst p99 "
	    "%.1f us (%s -> %s)\n", k, k ? p50[k / 2] : NAN, worst,
	    m->hs[wa].h->name, m->hs[wb].h->name);
	for (a = 0; a < m->n; a++)
		if (m->hs[a].st == MH_FAIL)
			printf("  %s: %s\n", m->hs[a].h->name,
			    m->hs[a].error);
	free(p50);
}

/* pair_cell: the matrix's latency cell of hosts a and b, in the
 * 'latency' command's shape (results[] per direction, sizes[] with the
 * RTT) so that the report reads both alike; "error" when nothing came
 * back either way or the pair was not probed. */
static cJSON *
pair_cell(const struct mrun_mesh *m, int a, int b, bool *lost)
{
	cJSON *d = cJSON_CreateObject(), *arr;
	uint32_t recv = 0;
	int k, probed = 0;

	cJSON_AddBoolToObject(d, "mesh", true);
	arr = cJSON_AddArrayToObject(d, "results");
	for (k = 0; k < 2; k++) {
		int x = k ? b : a, y = k ? a : b;
		const struct mstat *st = &m->stats[x * m->n + y];
		cJSON *r, *sz, *s1, *p;

		if (!st->have)
			continue;
		probed++;
		recv += st->recv;
		p = pair_json(m, x, y);
		r = cJSON_CreateObject();
		cJSON_AddItemToObject(r, "from", cJSON_DetachItemFromObject(p,
		    "from"));
		cJSON_AddItemToObject(r, "to", cJSON_DetachItemFromObject(p,
		    "to"));
		sz = cJSON_AddArrayToObject(r, "sizes");
		s1 = cJSON_CreateObject();
		cJSON_AddNumberToObject(s1, "size", m->o->size);
		cJSON_AddItemToObject(s1, "sent", cJSON_DetachItemFromObject(p,
		    "sent"));
		cJSON_AddItemToObject(s1, "received",
		    cJSON_DetachItemFromObject(p, "received"));
		if (cJSON_GetObjectItem(p, "rtt"))
			cJSON_AddItemToObject(s1, "rtt",
			    cJSON_DetachItemFromObject(p, "rtt"));
		cJSON_Delete(p);
		cJSON_AddItemToArray(sz, s1);
		if (isfinite(m->hs[x].late_us) || isfinite(m->hs[x].drops)) {
			cJSON *ld = cJSON_AddObjectToObject(r, "load");

			if (isfinite(m->hs[x].late_us))
				cJSON_AddNumberToObject(ld, "late_p99_us",
				    m->hs[x].late_us);
			if (isfinite(m->hs[x].drops))
				cJSON_AddNumberToObject(ld, "rx_drops",
				    m->hs[x].drops);
		}
		cJSON_AddItemToArray(arr, r);
	}
	*lost = probed == 0 || recv == 0;
	if (probed == 0) {
		const char *why = m->hs[a].st == MH_FAIL ? m->hs[a].error :
		    m->hs[b].st == MH_FAIL ? m->hs[b].error : "not probed";

		cJSON_AddStringToObject(d, "error", why);
	} else if (recv == 0) {
		cJSON_AddStringToObject(d, "error", "no reply to any probe "
		    "either way");
	}
	return d;
}

/* mesh_store writes every pair's latency cell into the matrix's run, in
 * one transaction; a cell stored before (a resumed run) is kept. */
static int
mesh_store(const struct mrun_mesh *m, int *nstored, char *err)
{
	struct store st;
	int a, b;

	*nstored = 0;
	if (store_open(&st, m->o->db, err) == -1)
		return -1;
	if (store_begin(&st) == -1) {
		snprintf(err, CF_ERRLEN, "%s: cannot begin a transaction",
		    m->o->db);
		store_close(&st);
		return -1;
	}
	for (a = 0; a < m->n; a++)
		for (b = a + 1; b < m->n; b++) {
			bool lost;
			cJSON *d = pair_cell(m, a, b, &lost);
			int r = store_add_cell(&st, m->o->run, m->o->net ?
			    "cluster" : "public", m->hs[a].h->name,
			    m->hs[b].h->name, m->o->test ? m->o->test : "lat",
			    lost ? "lost" : "ok", d,
			    err);

			cJSON_Delete(d);
			if (r == -1) {
				store_rollback(&st);
				store_close(&st);
				return -1;
			}
			*nstored += r;
		}
	if (store_commit(&st, err) == -1) {
		store_close(&st);
		return -1;
	}
	store_close(&st);
	return 0;
}

int
mesh_run(struct inventory *inv, const struct auth_key *key,
    const struct mesh_opts *o)
{
	struct mrun_mesh m;
	struct inv_host *h;
	char err[CF_ERRLEN];
	int i = 0, a, b, lossy = 0, measured = 0, failed = 0, rc, nstored;
	static const struct session_ops mesh_ops = { .ready = mesh_ready,
	    .message = mesh_message, .closed = mesh_closed };

	memset(&m, 0, sizeof(m));
	m.o = o;
	m.hs = calloc((size_t)inv->nhosts, sizeof(*m.hs));
	if (m.hs == NULL)
		return EXIT_RUNTIME;
	TAILQ_FOREACH(h, &inv->hosts, entry) {
		if ((o->net ? h->clus.family : h->pub.family) == 0)
			continue;
		m.hs[i].m = &m;
		m.hs[i].h = h;
		m.hs[i].late_us = m.hs[i].drops = NAN;
		hexid(m.hs[i].rid, 16);
		hexid(m.hs[i].nid, 16);
		i++;
	}
	m.n = i;
	if (m.n < 2) {
		fprintf(stderr, "cephfab: mesh: fewer than two hosts have a %s "
		    "address in %s\n", o->net ? "cluster" : "public",
		    inv->path);
		free(m.hs);
		return EXIT_USAGE;
	}
	m.stats = calloc((size_t)(m.n * m.n), sizeof(*m.stats));
	m.addr = calloc((size_t)m.n, sizeof(*m.addr));
	if (m.stats == NULL || m.addr == NULL) {
		free(m.stats);
		free(m.addr);
		free(m.hs);
		return EXIT_RUNTIME;
	}
	for (i = 0; i < m.n; i++)
		netaddr_str(addr_of(&m, &m.hs[i]), m.addr[i],
		    sizeof(m.addr[i]));
	hexid(m.token, 64);
	/* Each runner sends count probes to n - 1 targets at its rate. */
	m.duration = ceil((double)o->count * (m.n - 1) / o->rate) + 2;
	m.loop = ev_loop_new(EVFLAG_AUTO);
	session_ctx_init(&m.ctx, m.loop, key, o->timeout);
	/* A runner says nothing until its probes are done: a session is
	 * not idle for that long (255 targets at 100/s on a busy machine
	 * took over the 30 s default and lost every agent's cells). */
	session_ctx_quiet(&m.ctx, m.duration);
	ev_timer_init(&m.deadline, mesh_deadline_cb, o->timeout + m.duration +
	    15, 0.);
	m.deadline.data = &m;
	ev_timer_start(m.loop, &m.deadline);
	ev_signal_init(&m.sigint_w, mesh_sigint_cb, SIGINT);
	m.sigint_w.data = &m;
	ev_signal_start(m.loop, &m.sigint_w);
	for (i = 0; i < m.n; i++) {
		m.hs[i].s = session_open(&m.ctx, m.hs[i].h, o->timeout, &mesh_ops,
		    &m.hs[i], err);
		if (m.hs[i].s == NULL) {
			snprintf(m.hs[i].error, sizeof(m.hs[i].error), "%s",
			    err);
			m.hs[i].st = MH_FAIL;
		}
	}
	mesh_step(&m);
	/* Every session may have failed at once: nothing to wait for. */
	if (!m.finished)
		ev_run(m.loop, 0);
	out_progress_done();
	for (a = 0; a < m.n; a++) {
		failed += m.hs[a].st == MH_FAIL;
		for (b = 0; b < m.n; b++) {
			measured += m.stats[a * m.n + b].have;
			lossy += m.stats[a * m.n + b].have &&
			    m.stats[a * m.n + b].recv < m.stats[a * m.n + b].sent;
		}
	}
	rc = measured == 0 ? EXIT_RUNTIME : lossy || failed ? EXIT_PROBLEMS :
	    EXIT_PASS;
	if (o->db) {
		/* For the matrix: cells into its run, a summary out. */
		cJSON *sum = cJSON_CreateObject();

		if (mesh_store(&m, &nstored, err) == -1) {
			fprintf(stderr, "cephfab: mesh: %s\n", err);
			cJSON_AddStringToObject(sum, "error", err);
			rc = EXIT_RUNTIME;
		}
		cJSON_AddNumberToObject(sum, "hosts", m.n);
		cJSON_AddNumberToObject(sum, "pairs_measured", measured);
		cJSON_AddNumberToObject(sum, "cells_stored", nstored);
		cJSON_AddItemToObject(sum, "errors", errors_json(&m));
		out_json(sum);
		cJSON_Delete(sum);
	} else if (o->json) {
		if (mesh_print_json(&m) == -1)
			rc = EXIT_RUNTIME;
	} else {
		mesh_print(&m);
	}
	for (i = 0; i < m.n; i++)
		if (m.hs[i].s)
			session_free(m.hs[i].s);
	ev_timer_stop(m.loop, &m.deadline);
	ev_signal_stop(m.loop, &m.sigint_w);
	conn_ctx_fini(&m.ctx);
	ev_loop_destroy(m.loop);
	free(m.stats);
	free(m.addr);
	free(m.hs);
	return rc;
}
