/* watch: live capture across the cluster, see watch.h. */
#include "watch/watch.h"
#include "log.h"
#include "msg.h"
#include "core/core.h"
#include "json.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ev.h>

struct whost {
	struct cwrun *w;
	struct inv_host *h;
	struct sess *s;
	bool started, final, failed;
	char error[256];
	cJSON *last;			/* the latest interval */
};

struct cwrun {
	struct ev_loop *loop;
	struct conn_ctx ctx;
	const struct watch_opts *o;
	struct inventory *inv;
	struct whost *hs;
	int n, ended;
	char id[17];
	ev_timer deadline;
	ev_signal sigint_w;
	bool tty;
};

static const char *
peer_name(struct cwrun *w, const char *addr)
{
	struct inv_host *h;
	char a[NETADDR_STRLEN];

	TAILQ_FOREACH(h, &w->inv->hosts, entry) {
		if (h->pub.family && strcmp(netaddr_str(&h->pub, a,
		    sizeof(a)), addr) == 0)
			return h->name;
		if (h->clus.family && strcmp(netaddr_str(&h->clus, a,
		    sizeof(a)), addr) == 0)
			return h->name;
	}
	return addr;		/* a client, or a host not in the inventory */
}

static void
host_end(struct whost *x)
{
	if (x->final || x->failed)
		return;
	x->final = true;
	if (++x->w->ended == x->w->n)
		ev_break(x->w->loop, EVBREAK_ALL);
}

static void
host_fail(struct whost *x, const char *why)
{
	if (x->final || x->failed)
		return;
	snprintf(x->error, sizeof(x->error), "%s", why);
	log_warnx("watch: %s: %s", x->h->name, why);
	x->failed = true;
	if (++x->w->ended == x->w->n)
		ev_break(x->w->loop, EVBREAK_ALL);
}

static double
num(const cJSON *o, const char *k)
{
	char err[CF_ERRLEN];
	double v = 0;

	json_get_double(o, k, -1e18, 1e18, &v, err);
	return v;
}

/* table: the latest interval of every host, one row per host pair. */
static void
table(struct cwrun *w)
{
	int i;

	if (w->tty)
		printf("\033[H\033[2J");
	printf("%-12s %-14s %9s %9s %8s %7s %5s %5s %4s %9s\n", "host", "peer",
	    "tx Mb/s", "rx Mb/s", "segs/s", "retr %", "ooo", "zwin", "rst",
	    "rtt us");
	for (i = 0; i < w->n; i++) {
		struct whost *x = &w->hs[i];
		const cJSON *p;
		double secs;

		if (x->failed) {
			printf("%-12s %s\n", x->h->name, x->error);
			continue;
		}
		if (x->last == NULL)
			continue;
		secs = num(x->last, "seconds");
		cJSON_ArrayForEach(p, cJSON_GetObjectItem(x->last, "peers")) {
			const cJSON *tx = cJSON_GetObjectItem(p, "tx");
			const cJSON *rx = cJSON_GetObjectItem(p, "rx");
			const char *pa = "?";
			char err[CF_ERRLEN];
			double segs = num(tx, "segments");

			json_get_str(p, "peer", 0, 64, &pa, err);
			printf("%-12.12s %-14.14s %9.1f %9.1f %8.0f %7.2f %5.0f "
			    "%5.0f %4.0f %9.0f\n", x->h->name, peer_name(w, pa),
			    num(p, "tx_mbps"), num(p, "rx_mbps"), secs > 0 ?
			    (segs + num(rx, "segments")) / secs : 0,
			    num(tx, "retrans_pct"), num(tx, "out_of_order") +
			    num(rx, "out_of_order"), num(rx, "zero_windows") +
			    num(tx, "zero_windows"), num(tx, "rsts") +
			    num(rx, "rsts"), num(tx, "rtt_mean_us"));
		}
	}
	fflush(stdout);
}

static void
cw_ready(struct sess *s)
{
	struct whost *x = s->udata;
	const struct watch_opts *o = x->w->o;
	cJSON *b = cJSON_CreateObject();

	cJSON_AddStringToObject(b, "watch", x->w->id);
	cJSON_AddStringToObject(b, "net", o->net ? "cluster" : "public");
	if (o->filter)
		cJSON_AddStringToObject(b, "filter", o->filter);
	cJSON_AddNumberToObject(b, "interval", o->interval);
	cJSON_AddNumberToObject(b, "duration", o->duration);
	session_send(s, MSG_WATCH, b);
	cJSON_Delete(b);
}

static void
cw_message(struct sess *s, const struct frame_hdr *h, const cJSON *body)
{
	struct whost *x = s->udata;
	char err[CF_ERRLEN];
	const char *e = NULL;
	bool fin = false;

	if (h->type == MSG_WATCH && (h->flags & MSG_F_REPLY)) {
		if (json_opt_str(body, "error", 0, 512, NULL, &e, err) == 0 && e)
			host_fail(x, e);
		else
			x->started = true;
		return;
	}
	if (h->type != MSG_WATCH_INTERVAL)
		return;
	cJSON *peers;

	if (json_opt_bool(body, "final", false, &fin, err) == -1 ||
	    (peers = watch_peers_decode(body, err)) == NULL) {
		host_fail(x, err);
		return;
	}
	/* What the table reads again: the checked figures only. */
	cJSON_Delete(x->last);
	x->last = cJSON_CreateObject();
	cJSON_AddNumberToObject(x->last, "seconds", num(body, "seconds"));
	cJSON_AddItemToObject(x->last, "peers", peers);
	if (x->w->o->json || !x->w->tty) {
		/* One line per host and interval, peers named. */
		cJSON *line = cJSON_CreateObject(), *p;
		char *t;

		cJSON_AddStringToObject(line, "host", x->h->name);
		cJSON_AddNumberToObject(line, "seq", num(body, "seq"));
		cJSON_AddNumberToObject(line, "seconds", num(body, "seconds"));
		cJSON_AddNumberToObject(line, "dropped", num(body, "dropped"));
		cJSON_AddNumberToObject(line, "evicted", num(body, "evicted"));
		cJSON_AddItemToObject(line, "peers", cJSON_Duplicate(
		    peers, 1));
		cJSON_ArrayForEach(p, cJSON_GetObjectItem(line, "peers")) {
			const char *pa;

			if (json_get_str(p, "peer", 0, 64, &pa, err) == 0)
				cJSON_AddStringToObject(p, "host",
				    peer_name(x->w, pa));
		}
		t = cJSON_PrintUnformatted(line);
		if (t)
			printf("%s\n", t);
		fflush(stdout);
		free(t);
		cJSON_Delete(line);
	} else {
		table(x->w);
	}
	if (fin)
		host_end(x);
}

static void
cw_closed(struct sess *s, enum conn_reason r, const char *detail)
{
	struct whost *x = s->udata;
	char d[300];

	(void)r;
	snprintf(d, sizeof(d), "agent: %s", detail);
	host_fail(x, d);
}

static void
cw_deadline_cb(struct ev_loop *loop, ev_timer *t, int revents)
{
	struct cwrun *w = t->data;
	int i;

	(void)revents;
	for (i = 0; i < w->n; i++)
		host_fail(&w->hs[i], "no final interval before the deadline");
	ev_break(loop, EVBREAK_ALL);
}

static void
cw_sigint_cb(struct ev_loop *loop, ev_signal *s, int revents)
{
	(void)s, (void)revents;
	/* Closing the sessions stops every capture. */
	ev_break(loop, EVBREAK_ALL);
}

int
watch_run(struct inventory *inv, const struct auth_key *key,
    const struct watch_opts *o)
{
	struct cwrun w;
	struct inv_host *h;
	char err[CF_ERRLEN];
	uint8_t r[AUTH_NONCE_LEN];
	int i = 0, failed = 0;
	static const struct session_ops cw_ops = { .ready = cw_ready, .message
	    = cw_message, .closed = cw_closed };

	memset(&w, 0, sizeof(w));
	w.o = o;
	w.inv = inv;
	w.tty = isatty(STDOUT_FILENO) && !o->json;
	w.hs = calloc((size_t)inv->nhosts, sizeof(*w.hs));
	if (w.hs == NULL || auth_nonce(r) == -1)
		return EXIT_RUNTIME;
	for (i = 0; i < 8; i++)
		snprintf(w.id + 2 * i, 3, "%02x", r[i]);
	i = 0;
	TAILQ_FOREACH(h, &inv->hosts, entry) {
		if ((o->net ? h->clus.family : h->pub.family) == 0)
			continue;
		w.hs[i].w = &w;
		w.hs[i].h = h;
		i++;
	}
	w.n = i;
	if (w.n == 0) {
		fprintf(stderr, "cephfab: watch: no host has a %s address\n",
		    o->net ? "cluster" : "public");
		free(w.hs);
		return EXIT_USAGE;
	}
	w.loop = ev_loop_new(EVFLAG_AUTO);
	session_ctx_init(&w.ctx, w.loop, key, o->timeout);
	session_ctx_quiet(&w.ctx, o->interval);
	ev_timer_init(&w.deadline, cw_deadline_cb, o->timeout + o->duration +
	    10, 0.);
	w.deadline.data = &w;
	ev_timer_start(w.loop, &w.deadline);
	ev_signal_init(&w.sigint_w, cw_sigint_cb, SIGINT);
	ev_signal_start(w.loop, &w.sigint_w);
	for (i = 0; i < w.n; i++) {
		w.hs[i].s = session_open(&w.ctx, w.hs[i].h, o->timeout, &cw_ops,
		    &w.hs[i], err);
		if (w.hs[i].s == NULL)
			host_fail(&w.hs[i], err);
	}
	if (w.ended < w.n)
		ev_run(w.loop, 0);
	for (i = 0; i < w.n; i++) {
		failed += !w.hs[i].final;
		if (w.hs[i].s)
			session_free(w.hs[i].s);
		cJSON_Delete(w.hs[i].last);
	}
	ev_timer_stop(w.loop, &w.deadline);
	ev_signal_stop(w.loop, &w.sigint_w);
	conn_ctx_fini(&w.ctx);
	ev_loop_destroy(w.loop);
	free(w.hs);
	return failed == 0 ? EXIT_PASS : failed == i ? EXIT_RUNTIME :
	    EXIT_PROBLEMS;
}
