/* engine: throughput tests on the agent's event loop, see engine.h. */
#include "engine/engine.h"
#include "log.h"
#include "msg.h"
#include "probes/probe.h"

#include <errno.h>
#include <math.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <netinet/in.h>
#include <sys/socket.h>

#define SETUP_SECS 10.0		/* streams must be in place by then */
#define HDR_SECS 2.0		/* a data connection's token must arrive */
#define GUARD_GRACE 15.0	/* hard stop after duration + this */

struct pending {
	struct pending *next;
	struct test *t;
	int fd;
	ev_io rw;
	ev_timer tm;
	uint8_t hdr[TPUTREQ_STREAM_HDR];
	size_t off;
	char peer[NETADDR_STRLEN];
};

static void test_finish(struct test *t);
static void test_free(struct test *t);

void
engine_init(struct engine *e, struct ev_loop *loop,
    const struct agent_config *cfg, const char *hostname)
{
	*e = (struct engine){ .loop = loop, .cfg = cfg, .hostname = hostname };
	TAILQ_INIT(&e->tests);
}

bool
engine_busy(const struct engine *e)
{
	return !TAILQ_EMPTY(&e->tests);
}

/* engine_reply answers a request of type with a body (REPLY flag). */
static void
engine_reply(struct conn *c, unsigned type, cJSON *body)
{
	conn_send(c, type, MSG_F_REPLY, body);
	cJSON_Delete(body);
}

static void
engine_refuse(struct conn *c, unsigned type, const char *id, const char *code,
    const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static void
engine_refuse(struct conn *c, unsigned type, const char *id, const char *code,
    const char *fmt, ...)
{
	va_list ap;
	cJSON *b;

	va_start(ap, fmt);
	b = conn_vrefusal(c, type, fmt, ap);
	va_end(ap);
	if (b == NULL)
		return;
	if (id)
		cJSON_AddStringToObject(b, "test", id);
	cJSON_AddStringToObject(b, "code", code);
	engine_reply(c, type, b);
}

static struct test *
test_new(struct engine *e, struct conn *owner, const struct test_spec *sp,
    bool listener)
{
	struct test *t = calloc(1, sizeof(*t));
	uint32_t i;

	if (t == NULL)
		return NULL;
	t->eng = e;
	t->spec = *sp;
	t->owner = owner;
	t->listener = listener;
	t->lfd = t->ufd = -1;
	t->n = tputreq_total(sp);
	t->st = calloc(t->n, sizeof(*t->st));
	t->buf = malloc(sp->len);
	if (t->st == NULL || t->buf == NULL) {
		free(t->st);
		free(t->buf);
		free(t);
		return NULL;
	}
	/* A pattern that no link compresses away. */
	for (i = 0; i < sp->len; i++)
		((uint8_t *)t->buf)[i] = (uint8_t)(i * 2654435761u >> 24);
	pthread_mutex_init(&t->umu, NULL);
	for (i = 0; i < t->n; i++) {
		t->st[i].t = t;
		t->st[i].idx = i;
		t->st[i].fd = -1;
		t->st[i].sending = tputreq_connector_sends(sp, i) != listener;
		tputstat_udp_rx_init(&t->st[i].rx);
	}
	t->t_created = stream_now();
	TAILQ_INSERT_TAIL(&e->tests, t, entry);
	e->ntests++;
	e->nstreams += t->n;
	return t;
}

/* test_fail ends a test with an error: threads are woken, END goes out
 * with the error once they are all back. */
static void
test_fail(struct test *t, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void
test_fail(struct test *t, const char *fmt, ...)
{
	va_list ap;

	if (t->error[0] == '\0') {
		va_start(ap, fmt);
		vsnprintf(t->error, sizeof(t->error), fmt, ap);
		va_end(ap);
		log_warnx("test %s: %s", t->spec.id, t->error);
	}
	stream_wake(t);
	if (!t->started || t->threads == 0)
		test_finish(t);
}

static void
pending_free(struct pending *p)
{
	struct test *t = p->t;
	struct pending **pp;

	ev_io_stop(t->eng->loop, &p->rw);
	ev_timer_stop(t->eng->loop, &p->tm);
	for (pp = &t->pend; *pp; pp = &(*pp)->next)
		if (*pp == p) {
			*pp = p->next;
			break;
		}
	t->npending--;
	free(p);
}

static void
test_ready(struct test *t)
{
	cJSON *b = cJSON_CreateObject();

	ev_timer_stop(t->eng->loop, &t->setup_timer);
	if (b == NULL)
		return;
	cJSON_AddStringToObject(b, "test", t->spec.id);
	cJSON_AddItemToObject(b, "streams", engine_report_streams(t));
	if (t->listener) {
		conn_send(t->owner, MSG_TEST_READY, 0, b);
		cJSON_Delete(b);
	} else {
		engine_reply(t->owner, MSG_TEST_CONNECT, b);
	}
}

static void
sock_names(int fd, char *local, char *remote)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	struct netaddr a;
	uint16_t port;

	if (getsockname(fd, (struct sockaddr *)&ss, &sl) == 0 &&
	    netaddr_from_sockaddr((struct sockaddr *)&ss, &a, &port) == 0)
		netaddr_endpoint_str(&a, port, local, NETADDR_STRLEN);
	sl = sizeof(ss);
	if (getpeername(fd, (struct sockaddr *)&ss, &sl) == 0 &&
	    netaddr_from_sockaddr((struct sockaddr *)&ss, &a, &port) == 0)
		netaddr_endpoint_str(&a, port, remote, NETADDR_STRLEN);
}

/* --- listener side --------------------------------------------------- */

static void
pending_read_cb(struct ev_loop *loop, ev_io *w, int revents)
{
	struct pending *p = w->data;
	struct test *t = p->t;
	char err[CF_ERRLEN];
	struct stream *s;
	uint32_t idx;
	ssize_t n;

	(void)loop, (void)revents;
	n = read(p->fd, p->hdr + p->off, sizeof(p->hdr) - p->off);
	if (n == -1 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		close(p->fd);
		pending_free(p);
		return;
	}
	p->off += (size_t)n;
	if (p->off < sizeof(p->hdr))
		return;
	/* Any connection without this test's one-time token is closed at
	 * once; so is a second connection for the same stream. */
	if (tputreq_stream_check(&t->spec, p->hdr, &idx) == -1 ||
	    t->st[idx].fd != -1) {
		log_warnx("test %s: data connection from %s without a valid "
		    "token: closed", t->spec.id, p->peer);
		close(p->fd);
		pending_free(p);
		return;
	}
	s = &t->st[idx];
	s->fd = p->fd;
	p->fd = -1;
	pending_free(p);
	sock_names(s->fd, s->local, s->remote);
	if (stream_setup_socket(t, s, s->fd, err) == -1) {
		test_fail(t, "stream %u: %s", idx, err);
		return;
	}
	if (++t->nready == t->n) {
		/* Every stream is in: nobody else gets to connect. */
		ev_io_stop(t->eng->loop, &t->lw);
		close(t->lfd);
		t->lfd = -1;
		test_ready(t);
	}
}

static void
pending_timeout_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct pending *p = w->data;

	(void)loop, (void)revents;
	log_warnx("test %s: data connection from %s sent no token within "
	    "%.0f s: closed", p->t->spec.id, p->peer, HDR_SECS);
	close(p->fd);
	pending_free(p);
}

static void
test_accept_cb(struct ev_loop *loop, ev_io *w, int revents)
{
	struct test *t = w->data;
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	struct pending *p;
	struct netaddr a;
	uint16_t port;
	int fd;

	(void)revents;
	fd = accept4(t->lfd, (struct sockaddr *)&ss, &sl,
	    SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (fd == -1)
		return;
	/* Bound the strangers we hold while they present a token. */
	if (t->npending >= t->n + 16 || (p = calloc(1, sizeof(*p))) == NULL) {
		close(fd);
		return;
	}
	p->t = t;
	p->fd = fd;
	if (netaddr_from_sockaddr((struct sockaddr *)&ss, &a, &port) == 0)
		netaddr_endpoint_str(&a, port, p->peer, sizeof(p->peer));
	ev_io_init(&p->rw, pending_read_cb, fd, EV_READ);
	ev_timer_init(&p->tm, pending_timeout_cb, HDR_SECS, 0.);
	p->rw.data = p->tm.data = p;
	ev_io_start(loop, &p->rw);
	ev_timer_start(loop, &p->tm);
	p->next = t->pend;
	t->pend = p;
	t->npending++;
}

static int
test_listen(struct test *t, uint16_t *port, char *err)
{
	struct sockaddr_storage ss;
	socklen_t sl = netaddr_sockaddr(&t->spec.local, 0, &ss);
	struct netaddr a;
	int fd, one = 1;

	fd = socket(t->spec.local.family, (t->spec.proto == TP_UDP ?
	    SOCK_DGRAM : SOCK_STREAM) | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd == -1) {
		snprintf(err, CF_ERRLEN, "socket: %s", strerror(errno));
		return -1;
	}
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (t->spec.proto == TP_UDP) {
		int rcv = 8 * 1024 * 1024;

		/* A deep receive queue: losses should be the network's. */
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcv, sizeof(rcv));
	}
	if (bind(fd, (struct sockaddr *)&ss, sl) == -1) {
		snprintf(err, CF_ERRLEN, "bind %s: %s", netaddr_str(
		    &t->spec.local, (char[NETADDR_STRLEN]){ 0 },
		    NETADDR_STRLEN), strerror(errno));
		close(fd);
		return -1;
	}
	if (t->spec.proto == TP_TCP && listen(fd, (int)t->n + 16) == -1) {
		snprintf(err, CF_ERRLEN, "listen: %s", strerror(errno));
		close(fd);
		return -1;
	}
	sl = sizeof(ss);
	getsockname(fd, (struct sockaddr *)&ss, &sl);
	netaddr_from_sockaddr((struct sockaddr *)&ss, &a, port);
	if (t->spec.proto == TP_UDP) {
		struct timeval tv = { 0, 200000 };
		int fl = fcntl(fd, F_GETFL);

		fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
		setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
		t->ufd = fd;
	} else {
		t->lfd = fd;
		ev_io_init(&t->lw, test_accept_cb, fd, EV_READ);
		t->lw.data = t;
		ev_io_start(t->eng->loop, &t->lw);
	}
	return 0;
}

/* --- connector side -------------------------------------------------- */

static void
test_connected_cb(struct ev_loop *loop, ev_io *w, int revents)
{
	struct stream *s = w->data;
	struct test *t = s->t;
	uint8_t hdr[TPUTREQ_STREAM_HDR];
	char err[CF_ERRLEN];
	socklen_t len = sizeof(int);
	int e = 0;

	(void)revents;
	ev_io_stop(loop, &s->cw);
	if (getsockopt(s->fd, SOL_SOCKET, SO_ERROR, &e, &len) == -1)
		e = errno;
	if (e != 0) {
		test_fail(t, "stream %u: connect to %s:%u: %s", s->idx,
		    netaddr_str(&t->spec.dst, err, sizeof(err)), t->spec.port,
		    strerror(e));
		return;
	}
	/* The token goes first; a fresh socket takes 48 bytes at once. */
	tputreq_stream_hdr(&t->spec, s->idx, hdr);
	if (send(s->fd, hdr, sizeof(hdr), MSG_NOSIGNAL) != (ssize_t)sizeof(hdr)) {
		test_fail(t, "stream %u: sending the token: %s", s->idx,
		    strerror(errno));
		return;
	}
	sock_names(s->fd, s->local, s->remote);
	if (stream_setup_socket(t, s, s->fd, err) == -1) {
		test_fail(t, "stream %u: %s", s->idx, err);
		return;
	}
	if (++t->nready == t->n)
		test_ready(t);
}

static int
test_connect(struct test *t, char *err)
{
	const struct test_spec *sp = &t->spec;
	struct sockaddr_storage ss;
	socklen_t sl;
	uint32_t i;
	int fd, one = 1;

	for (i = 0; i < t->n; i++) {
		struct stream *s = &t->st[i];
		uint16_t sport = sp->sport_base ?
		    (uint16_t)(sp->sport_base + i * sp->sport_stride) : 0;

		if (sp->proto == TP_UDP) {
			if (stream_udp_socket(t, s, err) == -1)
				return -1;
			sock_names(s->fd, s->local, s->remote);
			stream_setup_socket(t, s, s->fd, err);
			t->nready++;
			continue;
		}
		fd = socket(sp->local.family, SOCK_STREAM | SOCK_CLOEXEC |
		    SOCK_NONBLOCK, 0);
		if (fd == -1) {
			snprintf(err, CF_ERRLEN, "socket: %s", strerror(errno));
			return -1;
		}
		s->fd = fd;
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (sp->window) {
			int wnd = (int)sp->window;

			/* Before connect, so the window scale fits. */
			setsockopt(fd, SOL_SOCKET, s->sending ? SO_SNDBUF :
			    SO_RCVBUF, &wnd, sizeof(wnd));
		}
		if (sp->bind_dev[0] && setsockopt(fd, SOL_SOCKET,
		    SO_BINDTODEVICE, sp->bind_dev,
		    (socklen_t)strlen(sp->bind_dev)) == -1) {
			snprintf(err, CF_ERRLEN, "SO_BINDTODEVICE %s: %s",
			    sp->bind_dev, strerror(errno));
			return -1;
		}
		/* The source address (and port, for hashing on purpose) is
		 * always bound: the path must be the chosen network's. */
		sl = netaddr_sockaddr(&sp->local, sport, &ss);
		if (bind(fd, (struct sockaddr *)&ss, sl) == -1) {
			snprintf(err, CF_ERRLEN, "bind %s port %u: %s",
			    netaddr_str(&sp->local, (char[NETADDR_STRLEN]){ 0 },
			    NETADDR_STRLEN), sport, strerror(errno));
			return -1;
		}
		sl = netaddr_sockaddr(&sp->dst, sp->port, &ss);
		if (connect(fd, (struct sockaddr *)&ss, sl) == -1 &&
		    errno != EINPROGRESS) {
			snprintf(err, CF_ERRLEN, "connect: %s",
			    strerror(errno));
			return -1;
		}
		ev_io_init(&s->cw, test_connected_cb, fd, EV_WRITE);
		s->cw.data = s;
		ev_io_start(t->eng->loop, &s->cw);
	}
	if (t->nready == t->n)
		test_ready(t);
	return 0;
}

/* --- running --------------------------------------------------------- */

/* test_interval_send reports the interval since the last one. */
static void
test_interval_send(struct test *t)
{
	double now = stream_now(), secs = now - t->ival_t;
	cJSON *b = cJSON_CreateObject(), *arr;
	uint32_t i;

	if (b == NULL || t->owner == NULL) {
		cJSON_Delete(b);
		return;
	}
	cJSON_AddStringToObject(b, "test", t->spec.id);
	cJSON_AddNumberToObject(b, "index", t->ival_idx++);
	cJSON_AddNumberToObject(b, "start", t->ival_t - t->t0);
	cJSON_AddNumberToObject(b, "end", now - t->t0);
	arr = cJSON_AddArrayToObject(b, "streams");
	for (i = 0; i < t->n; i++)
		cJSON_AddItemToArray(arr, engine_report_interval(t, &t->st[i],
		    secs));
	t->ival_t = now;
	conn_send(t->owner, MSG_TEST_INTERVAL, 0, b);
	cJSON_Delete(b);
}

static void
test_interval_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	(void)loop, (void)revents;
	test_interval_send(w->data);
}

/* test_last_interval: the interval the test's end cut short. The timer
 * and the end both fall at the duration, and when the end came first the
 * last interval was never sent (pair -t 2 showed one interval in half
 * its runs). Sent when the test has fewer intervals than its duration
 * holds and the rest is longer than a tenth of one (a sliver after the
 * timer's own last is noise, as iperf3 also drops it). */
static void
test_last_interval(struct test *t)
{
	double rest = stream_now() - t->ival_t;
	uint32_t want;

	if (!t->started || t->spec.interval <= 0)
		return;
	want = (uint32_t)ceil(t->spec.duration / t->spec.interval - 1e-9);
	if (t->ival_idx < want && rest > 0.1 * t->spec.interval)
		test_interval_send(t);
}

static void
test_guard_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct test *t = w->data;

	(void)loop, (void)revents;
	test_fail(t, "streams still running %.0f s after the test's end: "
	    "stopped", GUARD_GRACE);
}

static void
test_setup_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct test *t = w->data;

	(void)loop, (void)revents;
	test_fail(t, "only %u of %u streams were in place after %.0f s",
	    t->nready, t->n, SETUP_SECS);
}

static void
test_done_cb(struct ev_loop *loop, ev_async *w, int revents)
{
	struct test *t = w->data;

	(void)loop, (void)revents;
	if (atomic_load(&t->threads_done) == t->threads)
		test_finish(t);
}

static int
test_start(struct test *t, char *err)
{

	{
		struct netaddr peer = t->spec.dst;
		uint16_t port;

		/* A listener learns the peer from its streams. */
		if (t->listener && netaddr_parse_endpoint(t->st[0].remote,
		    &peer, &port) == -1)
			memset(&peer, 0, sizeof(peer));
		spread_start(&t->spread, &t->spec.local, &peer);
	}
	t->t0 = t->ival_t = stream_now();
	getrusage(RUSAGE_SELF, &t->ru0);
	t->started = true;
	if (t->spec.proto == TP_UDP && t->listener) {
		if (stream_start_udp_rx(t) == -1) {
			snprintf(err, CF_ERRLEN, "cannot start a thread");
			return -1;
		}
	} else if (stream_start_threads(t) == -1) {
		snprintf(err, CF_ERRLEN, "cannot start the stream threads");
		return -1;
	}
	/* A path not traced is a path not known; the test runs on. */
	if (engine_trace_start(t) == -1)
		log_warnx("test %s: cannot start the path tracer", t->spec.id);
	ev_timer_init(&t->ival_timer, test_interval_cb, t->spec.interval,
	    t->spec.interval);
	t->ival_timer.data = t;
	ev_timer_start(t->eng->loop, &t->ival_timer);
	ev_timer_init(&t->guard_timer, test_guard_cb,
	    t->spec.duration + GUARD_GRACE, 0.);
	t->guard_timer.data = t;
	ev_timer_start(t->eng->loop, &t->guard_timer);
	return 0;
}

/* test_finish runs when every thread is back (or none ever ran): final
 * samples, END to the coordinator, and everything of the test released. */
static void
test_finish(struct test *t)
{
	cJSON *b;
	double wall = t->started ? stream_now() - t->t0 : 0;

	if (t->ending)
		return;
	t->ending = true;
	ev_timer_stop(t->eng->loop, &t->ival_timer);
	test_last_interval(t);
	ev_timer_stop(t->eng->loop, &t->guard_timer);
	ev_timer_stop(t->eng->loop, &t->setup_timer);
	b = cJSON_CreateObject();
	if (b != NULL && t->owner != NULL) {
		cJSON_AddStringToObject(b, "test", t->spec.id);
		if (t->error[0])
			cJSON_AddStringToObject(b, "error", t->error);
		engine_report_end(t, wall, b);
		conn_send(t->owner, MSG_TEST_END, 0, b);
	}
	cJSON_Delete(b);
	log_info("test %s ended%s%s", t->spec.id, t->error[0] ? ": " : "",
	    t->error);
	test_free(t);
}

/* test_free releases every thread, socket and timer of the test. The
 * threads have all returned (or never started) when this runs. */
static void
test_free(struct test *t)
{
	struct ev_loop *loop = t->eng->loop;
	uint32_t i;

	stream_wake(t);
	for (i = 0; i < t->n; i++) {
		if (t->st[i].th_started)
			pthread_join(t->st[i].th, NULL);
		ev_io_stop(loop, &t->st[i].cw);
		if (t->st[i].fd != -1)
			close(t->st[i].fd);
	}
	if (t->uth_started)
		pthread_join(t->uth, NULL);
	engine_trace_free(t);
	while (t->pend) {
		close(t->pend->fd);
		pending_free(t->pend);
	}
	if (t->lfd != -1) {
		ev_io_stop(loop, &t->lw);
		close(t->lfd);
	}
	if (t->ufd != -1)
		close(t->ufd);
	ev_timer_stop(loop, &t->ival_timer);
	ev_timer_stop(loop, &t->guard_timer);
	ev_timer_stop(loop, &t->setup_timer);
	ev_async_stop(loop, &t->done_async);
	pthread_mutex_destroy(&t->umu);
	TAILQ_REMOVE(&t->eng->tests, t, entry);
	t->eng->ntests--;
	t->eng->nstreams -= t->n;
	free(t->st);
	free(t->buf);
	free(t);
}

/* --- requests -------------------------------------------------------- */

static void
engine_setup(struct engine *e, struct conn *c, unsigned type,
    const cJSON *body)
{
	bool connector = type == MSG_TEST_CONNECT;
	struct test_spec sp;
	char err[CF_ERRLEN];
	struct test *t;
	uint16_t port = 0;

	if (tputreq_decode(body, connector, &sp, err) == -1) {
		engine_refuse(c, type, NULL, "invalid", "%s", err);
		return;
	}
	if (engine_check_room(e, &sp, err) == -1) {
		engine_refuse(c, type, sp.id, MSG_ERR_BUSY, "%s", err);
		return;
	}
	if (engine_check_limits(e, &sp, connector, err) == -1) {
		engine_refuse(c, type, sp.id, "limit", "%s", err);
		return;
	}
	t = test_new(e, c, &sp, !connector);
	if (t == NULL) {
		engine_refuse(c, type, sp.id, "resources", "out of memory");
		return;
	}
	ev_async_init(&t->done_async, test_done_cb);
	t->done_async.data = t;
	ev_async_start(e->loop, &t->done_async);
	ev_timer_init(&t->setup_timer, test_setup_cb, SETUP_SECS, 0.);
	t->setup_timer.data = t;
	ev_timer_start(e->loop, &t->setup_timer);
	log_info("test %s: %s %s, %u streams, %.1f s, for %s", sp.id,
	    connector ? "connect" : "listen", sp.proto == TP_UDP ? "udp" :
	    "tcp", t->n, sp.duration, sp.coordinator);
	if (connector) {
		if (test_connect(t, err) == -1) {
			engine_refuse(c, type, sp.id, "setup", "%s", err);
			t->owner = NULL;
			test_free(t);
		}
		return;
	}
	if (test_listen(t, &port, err) == -1) {
		engine_refuse(c, type, sp.id, "setup", "%s", err);
		t->owner = NULL;
		test_free(t);
		return;
	}
	{
		cJSON *r = cJSON_CreateObject();

		cJSON_AddStringToObject(r, "test", sp.id);
		cJSON_AddNumberToObject(r, "port", port);
		engine_reply(c, type, r);
	}
	/* A UDP listener has nothing to wait for. */
	if (sp.proto == TP_UDP) {
		t->nready = t->n;
		test_ready(t);
	}
}

static struct test *
engine_find(struct engine *e, struct conn *c, const cJSON *body,
    unsigned type)
{
	char err[CF_ERRLEN];
	const char *id;
	struct test *t;

	if (json_get_str(body, "test", TPUTREQ_ID_LEN, TPUTREQ_ID_LEN, &id, err) == -1) {
		conn_fail(c, CONN_R_PROTO, MSG_ERR_PROTO, "%s: %s",
		    msg_name(type), err);
		return NULL;
	}
	TAILQ_FOREACH(t, &e->tests, entry)
		if (t->owner == c && strcmp(t->spec.id, id) == 0)
			return t;
	log_warnx("%s: %s for unknown test %s", c->peer, msg_name(type), id);
	return NULL;
}

int
engine_message(struct engine *e, struct conn *c, const struct frame_hdr *h,
    const cJSON *body)
{
	struct test *t;
	char err[CF_ERRLEN];
	const char *why;

	if (h->flags & MSG_F_REPLY)
		return 0;
	switch (h->type) {
	case MSG_TEST_LISTEN:
	case MSG_TEST_CONNECT:
		engine_setup(e, c, h->type, body);
		return 1;
	case MSG_TEST_START:
		if ((t = engine_find(e, c, body, h->type)) == NULL)
			return 1;
		if (t->started || t->nready != t->n) {
			test_fail(t, "START before the streams were ready");
			return 1;
		}
		if (test_start(t, err) == -1)
			test_fail(t, "%s", err);
		return 1;
	case MSG_TEST_ABORT:
		if ((t = engine_find(e, c, body, h->type)) == NULL)
			return 1;
		if (json_opt_str(body, "reason", 0, 200, "coordinator's request",
		    &why, err) == -1)
			why = "coordinator's request";
		test_fail(t, "aborted: %s", why);
		return 1;
	}
	return 0;
}

void
engine_conn_closed(struct engine *e, struct conn *c)
{
	struct test *t, *nt;

	/* Nobody to report to any more: stop, and do not send. test_fail
	 * may free t at once (a test that never started). */
	TAILQ_FOREACH_SAFE(t, &e->tests, entry, nt) {
		if (t->owner != c)
			continue;
		t->owner = NULL;
		test_fail(t, "coordinator connection closed");
	}
}

void
engine_fini(struct engine *e)
{
	struct test *t;

	while ((t = TAILQ_FIRST(&e->tests)) != NULL) {
		t->owner = NULL;
		stream_wake(t);
		test_free(t);
	}
}
