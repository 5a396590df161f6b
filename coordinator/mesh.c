/* mesh: every pair's RTT at once, see mesh.h. */
#include "mesh.h"
#include "log.h"
#include "msg.h"
#include "out.h"
#include "pj.h"
#include "sess.h"

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
	cJSON *result;			/* its runner's answer */
	char error[256];
};

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
		sess_send(x->s, MSG_PROBE_RUN, b);
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
	sess_send(s, MSG_PROBE_OPEN, b);
	cJSON_Delete(b);
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
	    pj_get_str(body, "probe", 0, 16, &id, err) == -1)
		return;
	if (pj_opt_str(body, "error", 0, 512, NULL, &msg, err) == 0 && msg &&
	    cJSON_GetObjectItem(body, "targets") == NULL) {
		snprintf(d, sizeof(d), "%s refused: %s", msg_name(h->type), msg);
		host_fail(x, d);
		return;
	}
	if (h->type == MSG_PROBE_OPEN && x->st == MH_OPEN &&
	    strcmp(id, x->rid) == 0) {
		if (pj_get_u32(body, "port", 1, 65535, &port, err) == -1) {
			snprintf(d, sizeof(d), "responder reply: %s", err);
			host_fail(x, d);
			return;
		}
		x->port = (uint16_t)port;
		x->st = MH_RESPONDING;
		mesh_step(x->m);
	} else if (h->type == MSG_PROBE_RUN && x->st == MH_RUN &&
	    strcmp(id, x->nid) == 0) {
		x->result = cJSON_Duplicate(body, 1);
		x->st = MH_DONE;
		mesh_step(x->m);
	}
}

static void
mesh_closed(struct sess *s, enum conn_reason r, const char *detail)
{
	struct mhost *x = s->udata;
	char d[300];

	(void)r;
	snprintf(d, sizeof(d), "agent: %s", detail);
	host_fail(x, d);
}

static const struct sess_ops mesh_ops = {
	.ready = mesh_ready,
	.message = mesh_message,
	.closed = mesh_closed,
};

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

/* mesh_tree: the result, one entry per ordered pair that was probed. */
static cJSON *
mesh_tree(struct mrun_mesh *m, int *lossy, int *measured)
{
	cJSON *doc = cJSON_CreateObject(), *hosts, *res, *errs;
	char err[CF_ERRLEN];
	int i, j;

	cJSON_AddStringToObject(doc, "network", m->o->net ? "cluster" :
	    "public");
	cJSON_AddNumberToObject(doc, "size", m->o->size);
	cJSON_AddNumberToObject(doc, "count", m->o->count);
	cJSON_AddNumberToObject(doc, "rate", m->o->rate);
	hosts = cJSON_AddArrayToObject(doc, "hosts");
	res = cJSON_AddArrayToObject(doc, "results");
	errs = cJSON_AddArrayToObject(doc, "errors");
	*lossy = *measured = 0;
	for (i = 0; i < m->n; i++) {
		struct mhost *x = &m->hs[i];
		const cJSON *t;
		char a[NETADDR_STRLEN];

		cJSON_AddItemToArray(hosts, cJSON_CreateString(x->h->name));
		if (x->st == MH_FAIL) {
			cJSON *e = cJSON_CreateObject();

			cJSON_AddStringToObject(e, "host", x->h->name);
			cJSON_AddStringToObject(e, "error", x->error);
			cJSON_AddItemToArray(errs, e);
			continue;
		}
		cJSON_ArrayForEach(t, cJSON_GetObjectItem(x->result,
		    "targets")) {
			const char *dst;
			double sent = 0, recv = 0;
			cJSON *o;

			if (pj_get_str(t, "dst", 2, NETADDR_STRLEN - 1, &dst,
			    err) == -1 ||
			    pj_get_double(t, "sent", 0, 1e9, &sent, err) == -1 ||
			    pj_get_double(t, "received", 0, 1e9, &recv,
			    err) == -1)
				continue;
			/* Back from the address to the host. */
			for (j = 0; j < m->n; j++)
				if (strcmp(netaddr_str(addr_of(m, &m->hs[j]), a,
				    sizeof(a)), dst) == 0)
					break;
			if (j == m->n)
				continue;
			o = cJSON_CreateObject();
			cJSON_AddStringToObject(o, "from", x->h->name);
			cJSON_AddStringToObject(o, "to", m->hs[j].h->name);
			cJSON_AddNumberToObject(o, "sent", sent);
			cJSON_AddNumberToObject(o, "received", recv);
			if (cJSON_GetObjectItem(t, "rtt"))
				cJSON_AddItemToObject(o, "rtt", cJSON_Duplicate(
				    cJSON_GetObjectItem(t, "rtt"), 1));
			cJSON_AddItemToArray(res, o);
			(*measured)++;
			if (recv < sent)
				(*lossy)++;
		}
	}
	return doc;
}

static double
dmed(double *v, int n)
{
	int i, j;

	/* Insertion sort: the summary's arrays are small enough. */
	for (i = 1; i < n; i++)
		for (j = i; j > 0 && v[j - 1] > v[j]; j--) {
			double t = v[j];

			v[j] = v[j - 1];
			v[j - 1] = t;
		}
	return n ? v[n / 2] : NAN;
}

static void
mesh_print(const cJSON *doc)
{
	const cJSON *r, *e;
	char err[CF_ERRLEN];
	int n = cJSON_GetArraySize(cJSON_GetObjectItem(doc, "results")), k = 0;
	double *p50 = calloc((size_t)n + 1, sizeof(double));
	double worst = 0;
	const char *wf = "", *wt = "";

	cJSON_ArrayForEach(r, cJSON_GetObjectItem(doc, "results")) {
		const cJSON *rtt = cJSON_GetObjectItem(r, "rtt");
		double v;

		if (rtt == NULL || p50 == NULL ||
		    pj_get_double(rtt, "p50_us", 0, 1e12, &v, err) == -1)
			continue;
		p50[k++] = v;
		if (pj_get_double(rtt, "p99_us", 0, 1e12, &v, err) == 0 &&
		    v > worst) {
			worst = v;
			pj_get_str(r, "from", 0, 64, &wf, err);
			pj_get_str(r, "to", 0, 64, &wt, err);
		}
	}
	printf("%d ordered pairs measured; median RTT p50 %.1f us; worst p99 "
	    "%.1f us (%s -> %s)\n", k, dmed(p50, k), worst, wf, wt);
	cJSON_ArrayForEach(e, cJSON_GetObjectItem(doc, "errors")) {
		const char *h = "?", *m = "?";

		pj_get_str(e, "host", 0, 64, &h, err);
		pj_get_str(e, "error", 0, 512, &m, err);
		printf("  %s: %s\n", h, m);
	}
	free(p50);
}

/* mesh_pair_cell: one pair's cell from a mesh result, in the latency
 * command's shape (results[] per direction, sizes[] with the RTT), so the
 * report reads both alike. NULL when neither direction was probed. */
cJSON *
mesh_pair_cell(const cJSON *byidx[2], double size, char *why, size_t wl)
{
	cJSON *d = cJSON_CreateObject(), *arr;
	char err[CF_ERRLEN];
	double recv, total = 0;
	int k;

	cJSON_AddBoolToObject(d, "mesh", true);
	arr = cJSON_AddArrayToObject(d, "results");
	for (k = 0; k < 2; k++) {
		cJSON *r, *sz, *s1;

		if (byidx[k] == NULL)
			continue;
		r = cJSON_CreateObject();
		cJSON_AddItemToObject(r, "from", cJSON_Duplicate(
		    cJSON_GetObjectItem(byidx[k], "from"), 1));
		cJSON_AddItemToObject(r, "to", cJSON_Duplicate(
		    cJSON_GetObjectItem(byidx[k], "to"), 1));
		sz = cJSON_AddArrayToObject(r, "sizes");
		s1 = cJSON_CreateObject();
		cJSON_AddNumberToObject(s1, "size", size);
		cJSON_AddItemToObject(s1, "sent", cJSON_Duplicate(
		    cJSON_GetObjectItem(byidx[k], "sent"), 1));
		cJSON_AddItemToObject(s1, "received", cJSON_Duplicate(
		    cJSON_GetObjectItem(byidx[k], "received"), 1));
		if (cJSON_GetObjectItem(byidx[k], "rtt"))
			cJSON_AddItemToObject(s1, "rtt", cJSON_Duplicate(
			    cJSON_GetObjectItem(byidx[k], "rtt"), 1));
		cJSON_AddItemToArray(sz, s1);
		cJSON_AddItemToArray(arr, r);
		if (pj_get_double(byidx[k], "received", 0, 1e9, &recv,
		    err) == 0)
			total += recv;
	}
	if (cJSON_GetArraySize(arr) == 0) {
		cJSON_Delete(d);
		return NULL;
	}
	if (total == 0) {
		snprintf(why, wl, "no reply to any probe either way");
		cJSON_AddStringToObject(d, "error", why);
	}
	return d;
}

int
mesh_run(struct inventory *inv, const struct auth_key *key,
    const struct mesh_opts *o)
{
	struct mrun_mesh m;
	struct inv_host *h;
	char err[CF_ERRLEN];
	cJSON *doc;
	int i = 0, lossy, measured, rc;

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
	hexid(m.token, 64);
	/* Each runner sends count probes to n - 1 targets at its rate. */
	m.duration = ceil((double)o->count * (m.n - 1) / o->rate) + 2;
	m.loop = ev_loop_new(EVFLAG_AUTO);
	coord_ctx_init(&m.ctx, m.loop, key, o->timeout);
	ev_timer_init(&m.deadline, mesh_deadline_cb, o->timeout + m.duration +
	    15, 0.);
	m.deadline.data = &m;
	ev_timer_start(m.loop, &m.deadline);
	ev_signal_init(&m.sigint_w, mesh_sigint_cb, SIGINT);
	m.sigint_w.data = &m;
	ev_signal_start(m.loop, &m.sigint_w);
	for (i = 0; i < m.n; i++) {
		m.hs[i].s = sess_open(&m.ctx, m.hs[i].h, o->timeout, &mesh_ops,
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
	doc = mesh_tree(&m, &lossy, &measured);
	if (o->json)
		out_json(doc);
	else
		mesh_print(doc);
	rc = measured == 0 ? EXIT_RUNTIME : (lossy ||
	    cJSON_GetArraySize(cJSON_GetObjectItem(doc, "errors"))) ?
	    EXIT_PROBLEMS : EXIT_PASS;
	cJSON_Delete(doc);
	for (i = 0; i < m.n; i++) {
		if (m.hs[i].s)
			sess_free(m.hs[i].s);
		cJSON_Delete(m.hs[i].result);
	}
	ev_timer_stop(m.loop, &m.deadline);
	ev_signal_stop(m.loop, &m.sigint_w);
	conn_ctx_fini(&m.ctx);
	ev_loop_destroy(m.loop);
	free(m.hs);
	return rc;
}
