/* engine_streams: a test's data connections: the listener and its
 * accepted connections (each sends its stream token first), the
 * connector's connects, and UDP sockets, until every stream is in place,
 * see engine.h. */
#include "engine/engine.h"
#include "log.h"
#include "msg.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <netinet/in.h>
#include <sys/socket.h>

#define HDR_SECS 2.0		/* a data connection's token must arrive */

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

	(void)loop;
	(void)revents;
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

	(void)loop;
	(void)revents;
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

int
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

int
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

void
test_pending_close(struct test *t)
{
	while (t->pend) {
		close(t->pend->fd);
		pending_free(t->pend);
	}
}
