/*
 * pair: drive one throughput test between two agents.
 *
 *   connect both -> TEST_LISTEN to the listener -> port -> TEST_CONNECT to
 *   the connector -> both READY -> TEST_START to both -> intervals -> END
 *   from both -> report.
 *
 * Any failure (a refusal, an agent gone, the deadline, Ctrl-C) sends
 * TEST_ABORT to whoever is still there, waits at most 2.5 s for their END,
 * and reports what was measured with an error.
 */
#include "probes/probes.h"
#include "log.h"
#include "msg.h"
#include "core/core.h"

#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <ev.h>

enum pstate { PS_CONNECT, PS_LISTEN, PS_SETUP, PS_RUN, PS_DONE };

struct prun {
	struct ev_loop *loop;
	struct conn_ctx ctx;
	const struct pair_opts *o;
	struct sess *sa, *sb, *lsn, *cnt;
	enum pstate state;
	bool ready_l, ready_c, end_a, end_b, failed, started;
	cJSON **iv_a, **iv_b;	/* interval bodies by index */
	uint32_t niv, next_iv;
	ev_timer deadline, linger, startw;
	ev_signal sigint_w, sigterm_w;
	struct tresult r;
};

static void pair_fail(struct prun *p, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void
pair_stop(struct prun *p)
{
	p->state = PS_DONE;
	ev_break(p->loop, EVBREAK_ALL);
}

static const char *
side_name(struct prun *p, struct sess *s)
{
	return s == p->sa ? "A" : "B";
}

static void
pair_abort(struct prun *p, struct sess *s, const char *why)
{
	cJSON *b;

	if (s == NULL || !s->up)
		return;
	b = cJSON_CreateObject();
	cJSON_AddStringToObject(b, "test", p->r.spec.id);
	cJSON_AddStringToObject(b, "reason", why);
	session_send(s, MSG_TEST_ABORT, b);
	cJSON_Delete(b);
}

static void
pair_check_done(struct prun *p)
{
	bool a_done = p->end_a || p->sa == NULL || !p->sa->up;
	bool b_done = p->end_b || p->sb == NULL || !p->sb->up;

	if ((p->end_a && p->end_b) || (p->failed && a_done && b_done))
		pair_stop(p);
}

static void
pair_fail(struct prun *p, const char *fmt, ...)
{
	va_list ap;

	if (p->failed || p->state == PS_DONE)
		return;
	p->failed = true;
	va_start(ap, fmt);
	vsnprintf(p->r.error, sizeof(p->r.error), fmt, ap);
	va_end(ap);
	if (p->state < PS_LISTEN) {
		pair_stop(p);
		return;
	}
	pair_abort(p, p->sa, p->r.error);
	pair_abort(p, p->sb, p->r.error);
	/* Agents answer an abort with END within 2 s; wait a bit more. */
	ev_timer_start(p->loop, &p->linger);
	pair_check_done(p);
}

static void
pair_send_start(struct prun *p)
{
	cJSON *b = cJSON_CreateObject();

	cJSON_AddStringToObject(b, "test", p->r.spec.id);
	/* The listener first: its receivers should be counting before the
	 * connector's senders start. */
	session_send(p->lsn, MSG_TEST_START, b);
	session_send(p->cnt, MSG_TEST_START, b);
	cJSON_Delete(b);
	p->state = PS_RUN;
	p->started = true;
	ev_timer_stop(p->loop, &p->deadline);
	ev_timer_set(&p->deadline, p->o->duration + 20, 0.);
	ev_timer_start(p->loop, &p->deadline);
	if (!p->o->json)
		pair_result_header(&p->r);
}

/* pair_send_spec sends the test request to s (the listener with
 * TEST_LISTEN, the connector with TEST_CONNECT), from s's own address on
 * the test's network. */
static void
pair_send_spec(struct prun *p, struct sess *s, unsigned type)
{
	const struct inv_host *h = s == p->sa ? p->r.ha : p->r.hb;
	cJSON *b;

	p->r.spec.local = p->o->net == NET_CLUSTER ? h->clus : h->pub;
	b = tputreq_encode(&p->r.spec, type == MSG_TEST_CONNECT);
	session_send(s, type, b);
	cJSON_Delete(b);
}

static void
pair_ready(struct sess *s)
{
	struct prun *p = s->udata;

	if (!(p->sa->up && p->sb->up) || p->state != PS_CONNECT)
		return;
	snprintf(p->r.version_a, sizeof(p->r.version_a), "%s",
	    p->sa->version);
	snprintf(p->r.version_b, sizeof(p->r.version_b), "%s",
	    p->sb->version);
	p->state = PS_LISTEN;
	out_progress("pair: setting up %u streams", tputreq_total(&p->r.spec));
	/* The listener binds its own address of the network. */
	pair_send_spec(p, p->lsn, MSG_TEST_LISTEN);
}

static int
pair_reply_error(struct prun *p, struct sess *s, const cJSON *body)
{
	char err[CF_ERRLEN];
	const char *msg;

	if (cJSON_GetObjectItemCaseSensitive(body, "error") == NULL)
		return 0;
	if (json_get_str(body, "error", 0, 512, &msg, err) == -1)
		msg = err;
	pair_fail(p, "agent on %s (%s) refused: %s", s->host->name,
	    side_name(p, s), msg);
	return 1;
}

static void
pair_got_interval(struct prun *p, struct sess *s, const cJSON *body)
{
	char err[CF_ERRLEN];
	uint32_t idx;
	cJSON **v = s == p->sa ? p->iv_a : p->iv_b;

	if (json_get_u32(body, "index", 0, p->niv - 1, &idx, err) == -1) {
		/* More intervals than the test can have: ignore extras. */
		return;
	}
	if (v[idx] != NULL)
		return;
	v[idx] = cJSON_Duplicate(body, 1);
	while (p->next_iv < p->niv && p->iv_a[p->next_iv] &&
	    p->iv_b[p->next_iv]) {
		pair_result_interval(&p->r, p->iv_a[p->next_iv], p->iv_b[p->next_iv]);
		p->next_iv++;
	}
}

static void
pair_message(struct sess *s, const struct frame_hdr *h, const cJSON *body)
{
	struct prun *p = s->udata;
	char err[CF_ERRLEN];
	const char *id;
	const cJSON *pt;
	uint32_t port;

	if (json_get_str(body, "test", TPUTREQ_ID_LEN, TPUTREQ_ID_LEN, &id, err) == 0 &&
	    strcmp(id, p->r.spec.id) != 0)
		return;		/* another test's late message */
	switch (h->type) {
	case MSG_TEST_LISTEN:
		if (!(h->flags & MSG_F_REPLY) || pair_reply_error(p, s, body))
			return;
		if (json_get_u32(body, "port", 1, 65535, &port, err) == -1) {
			pair_fail(p, "agent on %s: TEST_LISTEN reply: %s",
			    s->host->name, err);
			return;
		}
		p->r.port = (uint16_t)port;
		p->state = PS_SETUP;
		p->r.spec.dst = p->r.spec.local;
		p->r.spec.port = (uint16_t)port;
		pair_send_spec(p, p->cnt, MSG_TEST_CONNECT);
		return;
	case MSG_TEST_CONNECT:
		if (!(h->flags & MSG_F_REPLY) || pair_reply_error(p, s, body))
			return;
		if (json_get_arr(body, "streams", 0, TPUTREQ_MAX_STREAMS * 2, &pt,
		    NULL, err) == -1) {
			pair_fail(p, "agent on %s: TEST_CONNECT reply: %s",
			    s->host->name, err);
			return;
		}
		p->ready_c = true;
		break;
	case MSG_TEST_READY:
		p->ready_l = true;
		break;
	case MSG_TEST_INTERVAL:
		pair_got_interval(p, s, body);
		return;
	case MSG_TEST_END:
		if (pair_result_end(&p->r, s == p->sa, body, err) == -1) {
			pair_fail(p, "agent on %s: TEST_END: %s",
			    s->host->name, err);
		}
		if (s == p->sa)
			p->end_a = true;
		else
			p->end_b = true;
		if (!p->failed && p->r.error[0]) {
			char e[CF_ERRLEN];

			/* Not pair_fail(p, "%s", p->r.error): formatting a
			 * buffer into itself is undefined and came out empty,
			 * reporting a failed test as a pass. */
			snprintf(e, sizeof(e), "%s", p->r.error);
			pair_fail(p, "%s", e);
		}
		else if (!p->started && !p->failed)
			pair_fail(p, "agent on %s ended the test before it "
			    "started", s->host->name);
		pair_check_done(p);
		return;
	default:
		return;
	}
	if (p->ready_c && p->ready_l && p->state == PS_SETUP) {
		double wait = p->o->start_at - ev_time();

		if (wait <= 0) {
			pair_send_start(p);
			return;
		}
		/* A load's tests start together: wait for its time. */
		ev_timer_stop(p->loop, &p->deadline);
		ev_timer_set(&p->deadline, wait + 15, 0.);
		ev_timer_start(p->loop, &p->deadline);
		ev_timer_set(&p->startw, wait, 0.);
		ev_timer_start(p->loop, &p->startw);
	}
}

static void
pair_startw_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct prun *p = w->data;

	(void)loop, (void)revents;
	if (p->state == PS_SETUP)
		pair_send_start(p);
}

static void
pair_closed(struct sess *s, enum conn_reason r, const char *detail)
{
	struct prun *p = s->udata;

	if (p->state == PS_DONE)
		return;
	if ((s == p->sa && p->end_a) || (s == p->sb && p->end_b)) {
		pair_check_done(p);
		return;
	}
	{
		char why[CF_ERRLEN], seen[CF_ERRLEN];

		session_blame(why, sizeof(why), s->host->name,
		    side_name(p, s), r, detail);
		if (p->failed) {
			/* The agent that went away is the cause; what the
			 * other end saw first (a reset stream) follows. */
			snprintf(seen, sizeof(seen), "%s", p->r.error);
			snprintf(p->r.error, sizeof(p->r.error), "%s (%s)", why,
			    seen);
		} else {
			pair_fail(p, "%s", why);
		}
	}
	pair_check_done(p);
}

static void
pair_deadline_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct prun *p = w->data;

	(void)loop, (void)revents;
	pair_fail(p, p->started ? "no END from both agents %.0f s after the "
	    "test's end" : "setting up the test took longer than %.0f s",
	    p->started ? 20.0 : 15.0);
}

static void
pair_linger_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	(void)loop, (void)revents;
	pair_stop(w->data);
}

static void
pair_signal_cb(struct ev_loop *loop, ev_signal *w, int revents)
{
	struct prun *p = w->data;

	(void)loop, (void)revents;
	out_progress_done();
	pair_fail(p, "interrupted (signal %d)", w->signum);
}

/* pair_plan fills the spec and the roles from the options. */
static int
pair_plan(struct prun *p, struct inventory *inv)
{
	const struct pair_opts *o = p->o;
	struct tresult *r = &p->r;
	const struct netaddr *aa, *ab;
	uint8_t rnd[AUTH_NONCE_LEN];
	char host[64];
	int i;

	r->ha = inventory_find(inv, o->a);
	r->hb = inventory_find(inv, o->b);
	if (r->ha == NULL || r->hb == NULL) {
		fprintf(stderr, "cephfab: pair: no host '%s' in %s\n",
		    r->ha ? o->b : o->a, inv->path);
		return -1;
	}
	if (r->ha == r->hb) {
		fprintf(stderr, "cephfab: pair: A and B are the same host\n");
		return -1;
	}
	aa = o->net == NET_CLUSTER ? &r->ha->clus : &r->ha->pub;
	ab = o->net == NET_CLUSTER ? &r->hb->clus : &r->hb->pub;
	if (aa->family == 0 || ab->family == 0) {
		fprintf(stderr, "cephfab: pair: host '%s' has no %s address "
		    "in %s\n", aa->family == 0 ? o->a : o->b,
		    o->net == NET_CLUSTER ? "cluster" : "public", inv->path);
		return -1;
	}
	if (aa->family != ab->family) {
		fprintf(stderr, "cephfab: pair: %s and %s have addresses of "
		    "different families\n", o->a, o->b);
		return -1;
	}
	netaddr_str(aa, r->addr_a, sizeof(r->addr_a));
	netaddr_str(ab, r->addr_b, sizeof(r->addr_b));
	memset(&r->spec, 0, sizeof(r->spec));
	/* A fresh token per test: it admits the data connections. */
	if (auth_nonce(r->spec.token) == -1 || auth_nonce(rnd) == -1)
		return -1;
	for (i = 0; i < TPUTREQ_ID_LEN / 2; i++)
		snprintf(r->spec.id + 2 * i, 3, "%02x", rnd[i]);
	r->spec.proto = o->udp ? TP_UDP : TP_TCP;
	r->spec.streams = o->streams;
	r->spec.duration = o->duration;
	r->spec.len = o->len;
	r->spec.rate = o->rate;
	r->spec.interval = o->interval;
	r->spec.window = o->window;
	r->spec.zerocopy = o->zerocopy;
	r->spec.skip_rx_copy = o->skip_rx_copy;
	r->spec.sport_base = o->sport_base;
	r->spec.sport_stride = o->sport_stride;
	r->spec.shared = o->shared;
	r->spec.trace = !o->no_trace && !o->udp;
	snprintf(r->spec.bind_dev, sizeof(r->spec.bind_dev), "%s",
	    o->bind_dev);
	if (gethostname(host, sizeof(host) - 1) != 0)
		snprintf(host, sizeof(host), "coordinator");
	host[sizeof(host) - 1] = '\0';
	snprintf(r->spec.coordinator, sizeof(r->spec.coordinator),
	    "coordinator %s", host);
	/* TCP: A always connects (so --sport-base shapes A's hashing) and
	 * -R / --bidir choose who sends. UDP: the sender connects. */
	if (o->udp) {
		r->a_connects = !o->reverse;
		r->spec.connector_sends = true;
		r->spec.listener_sends = false;
	} else {
		r->a_connects = true;
		r->spec.connector_sends = !o->reverse || o->bidir;
		r->spec.listener_sends = o->reverse || o->bidir;
	}
	r->n = tputreq_total(&r->spec);
	r->st = calloc(r->n, sizeof(*r->st));
	r->intervals = cJSON_CreateArray();
	if (r->st == NULL || r->intervals == NULL)
		return -1;
	for (i = 0; i < (int)r->n; i++) {
		bool csend = tputreq_connector_sends(&r->spec, (uint32_t)i);

		r->st[i].id = (uint32_t)i;
		r->st[i].a_sends = r->a_connects ? csend : !csend;
	}
	r->o = o;
	r->started = (double)time(NULL);
	p->niv = (uint32_t)ceil(o->duration / o->interval) + 30;
	p->iv_a = calloc(p->niv, sizeof(cJSON *));
	p->iv_b = calloc(p->niv, sizeof(cJSON *));
	return p->iv_a && p->iv_b ? 0 : -1;
}

int
pair_run(struct inventory *inv, const struct auth_key *key,
    const struct pair_opts *o)
{
	struct prun p;
	char err[CF_ERRLEN];
	uint32_t i;
	int rc;
	static const struct session_ops pair_sess_ops = { .ready = pair_ready,
	    .message = pair_message, .closed = pair_closed };

	memset(&p, 0, sizeof(p));
	p.o = o;
	if (pair_plan(&p, inv) == -1) {
		free(p.r.st);
		cJSON_Delete(p.r.intervals);
		free(p.iv_a);
		free(p.iv_b);
		return EXIT_USAGE;
	}
	p.loop = ev_loop_new(EVFLAG_AUTO);
	if (p.loop == NULL)
		return EXIT_RUNTIME;
	session_ctx_init(&p.ctx, p.loop, key, o->timeout);
	session_ctx_quiet(&p.ctx, o->interval);	/* up to 60 s between reports */
	ev_timer_init(&p.deadline, pair_deadline_cb, 15., 0.);
	ev_timer_init(&p.linger, pair_linger_cb, 2.5, 0.);
	ev_timer_init(&p.startw, pair_startw_cb, 1., 0.);
	p.deadline.data = p.linger.data = p.startw.data = &p;
	ev_timer_start(p.loop, &p.deadline);
	ev_signal_init(&p.sigint_w, pair_signal_cb, SIGINT);
	ev_signal_init(&p.sigterm_w, pair_signal_cb, SIGTERM);
	p.sigint_w.data = p.sigterm_w.data = &p;
	ev_signal_start(p.loop, &p.sigint_w);
	ev_signal_start(p.loop, &p.sigterm_w);
	out_progress("pair: connecting to %s and %s", o->a, o->b);
	p.sa = session_open(&p.ctx, (struct inv_host *)p.r.ha, o->timeout,
	    &pair_sess_ops, &p, err);
	if (p.sa != NULL)
		p.sb = session_open(&p.ctx, (struct inv_host *)p.r.hb, o->timeout,
		    &pair_sess_ops, &p, err);
	if (p.sa == NULL || p.sb == NULL) {
		snprintf(p.r.error, sizeof(p.r.error), "%s", err);
	} else {
		p.cnt = p.r.a_connects ? p.sa : p.sb;
		p.lsn = p.r.a_connects ? p.sb : p.sa;
		ev_run(p.loop, 0);
	}
	out_progress_done();
	/* A test counts only when both ends reported its end: an agent that
	 * vanished mid-test must never look like a pass, whatever order the
	 * events came in. */
	if (p.started && p.r.error[0] == '\0' && (!p.end_a || !p.end_b))
		snprintf(p.r.error, sizeof(p.r.error), "agent on %s did not "
		    "report the end of the test (it went away mid-test)",
		    !p.end_b ? p.r.hb->name : p.r.ha->name);
	/* Intervals that only one side reported (the last, usually). */
	for (i = p.next_iv; i < p.niv; i++)
		if (p.iv_a[i] || p.iv_b[i])
			pair_result_interval(&p.r, p.iv_a[i], p.iv_b[i]);
	pair_result_stalls(&p.r);
	pair_result_report(&p.r);
	rc = p.r.error[0] ? EXIT_RUNTIME : EXIT_PASS;
	session_free(p.sa);
	session_free(p.sb);
	ev_timer_stop(p.loop, &p.deadline);
	ev_timer_stop(p.loop, &p.linger);
	ev_signal_stop(p.loop, &p.sigint_w);
	ev_signal_stop(p.loop, &p.sigterm_w);
	conn_ctx_fini(&p.ctx);
	for (i = 0; i < p.niv; i++) {
		cJSON_Delete(p.iv_a[i]);
		cJSON_Delete(p.iv_b[i]);
	}
	free(p.iv_a);
	free(p.iv_b);
	pair_result_free_paths(&p.r);
	free(p.r.st);
	cJSON_Delete(p.r.spread_a);
	cJSON_Delete(p.r.spread_b);
	cJSON_Delete(p.r.intervals);
	ev_loop_destroy(p.loop);
	return rc;
}
