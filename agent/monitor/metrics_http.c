/*
 * metrics_http: the Prometheus endpoint (metrics_listen in agent.conf) on
 * the agent's loop; metrics.c builds what it serves.
 *
 * A scrape is one short connection: the request (at most HTTP_REQ_MAX
 * bytes, within METRICS_TIMEOUT) is parsed by http.c, the answer is built
 * whole and written as the socket takes it, then the connection closes.
 * At most METRICS_MAX_CONNS at once; one beyond is closed at accept, so a
 * client that holds connections open cannot take the agent's descriptors.
 * Only GET and HEAD of /metrics are served (404, 405, 400 otherwise).
 */
#include "monitor/monitor_int.h"
#include "monitor/http.h"
#include "log.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define METRICS_MAX_CONNS 8
#define METRICS_TIMEOUT 10.0

struct metrics_conn {
	struct metrics_conn *next;
	struct monitor *m;
	int fd;
	ev_io io;
	ev_timer tmo;
	char req[HTTP_REQ_MAX];
	size_t rlen;
	char *out;
	size_t olen, ooff;
};

static void
conn_end(struct metrics_conn *c)
{
	struct monitor *m = c->m;
	struct metrics_conn **pp;

	ev_io_stop(m->loop, &c->io);
	ev_timer_stop(m->loop, &c->tmo);
	close(c->fd);
	for (pp = &m->mconns; *pp != NULL; pp = &(*pp)->next)
		if (*pp == c) {
			*pp = c->next;
			break;
		}
	m->nmconns--;
	free(c->out);
	free(c);
}

static void
write_cb(struct ev_loop *loop, ev_io *w, int revents)
{
	struct metrics_conn *c = w->data;
	ssize_t n;

	(void)loop, (void)revents;
	while (c->ooff < c->olen) {
		n = write(c->fd, c->out + c->ooff, c->olen - c->ooff);
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		if (n <= 0) {
			conn_end(c);
			return;
		}
		c->ooff += (size_t)n;
	}
	conn_end(c);
}

/* respond: the answer to what the request asked, queued for writing. */
static void
respond(struct metrics_conn *c, enum http_parse what)
{
	char *body = NULL, head[256];
	size_t blen = 0;
	int hlen;

	if (what == HTTP_METRICS || what == HTTP_HEAD_METRICS) {
		body = metrics_render(c->m, &blen);
		if (body == NULL) {
			conn_end(c);
			return;
		}
		c->m->scrapes++;
	} else {
		const char *s = http_status(what);

		blen = strlen(s) + 1;
		if ((body = malloc(blen + 1)) != NULL)
			snprintf(body, blen + 1, "%s\n", s);
	}
	hlen = snprintf(head, sizeof(head), "HTTP/1.1 %s\r\nContent-Type: %s"
	    "\r\nContent-Length: %zu\r\n%sConnection: close\r\n\r\n",
	    http_status(what), what == HTTP_METRICS || what ==
	    HTTP_HEAD_METRICS ? "text/plain; version=0.0.4; charset=utf-8" :
	    "text/plain", blen, what == HTTP_BAD_METHOD ?
	    "Allow: GET, HEAD\r\n" : "");
	if (what == HTTP_HEAD_METRICS)
		blen = 0;
	c->out = malloc((size_t)hlen + blen);
	if (body == NULL || c->out == NULL) {
		free(body);
		conn_end(c);
		return;
	}
	memcpy(c->out, head, (size_t)hlen);
	memcpy(c->out + hlen, body, blen);
	c->olen = (size_t)hlen + blen;
	free(body);
	ev_io_stop(c->m->loop, &c->io);
	ev_io_init(&c->io, write_cb, c->fd, EV_WRITE);
	c->io.data = c;
	ev_io_start(c->m->loop, &c->io);
}

static void
read_cb(struct ev_loop *loop, ev_io *w, int revents)
{
	struct metrics_conn *c = w->data;
	enum http_parse what;
	ssize_t n;

	(void)loop, (void)revents;
	n = read(c->fd, c->req + c->rlen, sizeof(c->req) - c->rlen);
	if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
		return;
	if (n <= 0) {
		conn_end(c);
		return;
	}
	c->rlen += (size_t)n;
	if ((what = http_parse(c->req, c->rlen)) != HTTP_MORE)
		respond(c, what);
}

static void
timeout_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	(void)loop, (void)revents;
	conn_end(w->data);
}

static void
accept_cb(struct ev_loop *loop, ev_io *w, int revents)
{
	struct monitor *m = w->data;
	struct metrics_conn *c;
	int fd, i;

	(void)revents;
	for (i = 0; i < 16; i++) {
		fd = accept4(m->mfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd == -1)
			return;
		if (m->nmconns >= METRICS_MAX_CONNS ||
		    (c = calloc(1, sizeof(*c))) == NULL) {
			close(fd);
			continue;
		}
		c->m = m;
		c->fd = fd;
		c->next = m->mconns;
		m->mconns = c;
		m->nmconns++;
		ev_io_init(&c->io, read_cb, fd, EV_READ);
		c->io.data = c;
		ev_io_start(loop, &c->io);
		ev_timer_init(&c->tmo, timeout_cb, METRICS_TIMEOUT, 0.);
		c->tmo.data = c;
		ev_timer_start(loop, &c->tmo);
	}
}

int
metrics_open(struct monitor *m, char *err)
{
	const struct agent_config *cfg = m->cfg;
	struct sockaddr_storage ss;
	struct netaddr any;
	char ep[NETADDR_STRLEN];
	socklen_t sl;
	int fd, one = 1;

	if (!cfg->metrics_on)
		return 0;
	any = cfg->metrics_addr;
	if (any.family == 0)
		any.family = AF_INET;
	sl = netaddr_sockaddr(&any, cfg->metrics_port, &ss);
	netaddr_endpoint_str(&any, cfg->metrics_port, ep, sizeof(ep));
	fd = socket(any.family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd == -1 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one,
	    sizeof(one)) == -1 || bind(fd, (struct sockaddr *)&ss, sl) == -1 ||
	    listen(fd, 64) == -1) {
		snprintf(err, CF_ERRLEN, "metrics_listen %s: %s", ep,
		    strerror(errno));
		if (fd != -1)
			close(fd);
		return -1;
	}
	m->mfd = fd;
	ev_io_init(&m->maccept, accept_cb, fd, EV_READ);
	m->maccept.data = m;
	ev_io_start(m->loop, &m->maccept);
	log_info("metrics on http://%s/metrics", ep);
	return 0;
}

void
metrics_close(struct monitor *m)
{
	while (m->mconns != NULL)
		conn_end(m->mconns);
	if (m->mfd != -1) {
		ev_io_stop(m->loop, &m->maccept);
		close(m->mfd);
		m->mfd = -1;
	}
}
