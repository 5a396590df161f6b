/* conn: authenticated control connections on libev, see include/conn.h. */
#include "conn.h"
#include "conn_int.h"
#include "log.h"
#include "msg.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <netinet/in.h>
#include <netinet/tcp.h>

#include <openssl/crypto.h>


static void conn_read_cb(struct ev_loop *, ev_io *, int);
static void conn_write_cb(struct ev_loop *, ev_io *, int);
static void conn_timer_cb(struct ev_loop *, ev_timer *, int);

static void
conn_reaper_cb(struct ev_loop *loop, ev_prepare *w, int revents)
{
	(void)loop, (void)revents;
	conn_ctx_reap(w->data);
}

void
conn_ctx_init(struct conn_ctx *ctx, struct ev_loop *loop,
    const struct auth_key *psk, const char *version)
{
	*ctx = (struct conn_ctx){ .loop = loop, .psk = psk, .version = version,
	    .hostname = "", .proto = CF_PROTO_VERSION, .auth_timeout = 5.0,
	    .idle_timeout = 60.0, .wq_limit = 8 * 1024 * 1024 };
	TAILQ_INIT(&ctx->dead);
	ev_prepare_init(&ctx->reaper, conn_reaper_cb);
	ctx->reaper.data = ctx;
	ev_prepare_start(loop, &ctx->reaper);
	/* The reaper must not keep the loop alive on its own. */
	ev_unref(loop);
}

static void
conn_free(struct conn *c)
{
	struct wbuf *w;

	while ((w = TAILQ_FIRST(&c->wq)) != NULL) {
		TAILQ_REMOVE(&c->wq, w, entry);
		free(w->data);
		free(w);
	}
	frame_rx_free(&c->rx);
	cJSON_Delete(c->peer_hello);
	OPENSSL_cleanse(c->tx_key, sizeof(c->tx_key));
	OPENSSL_cleanse(c->rx_key, sizeof(c->rx_key));
	free(c);
}

void
conn_ctx_reap(struct conn_ctx *ctx)
{
	struct conn *c;

	while ((c = TAILQ_FIRST(&ctx->dead)) != NULL) {
		TAILQ_REMOVE(&ctx->dead, c, dead_entry);
		conn_free(c);
		ctx->live--;
	}
}

void
conn_ctx_fini(struct conn_ctx *ctx)
{
	conn_ctx_reap(ctx);
	ev_ref(ctx->loop);
	ev_prepare_stop(ctx->loop, &ctx->reaper);
}

static struct conn *
conn_new(struct conn_ctx *ctx, int fd, enum conn_role role,
    const struct conn_ops *ops, void *udata)
{
	struct conn *c = calloc(1, sizeof(*c));

	if (c == NULL)
		return NULL;
	c->ctx = ctx;
	c->ops = ops;
	c->udata = udata;
	c->role = role;
	c->fd = fd;
	TAILQ_INIT(&c->wq);
	frame_rx_init(&c->rx);
	c->rx.preauth = true;
	/* Until the handshake derives session keys, frames carry a tag
	 * under the public pre-auth key (see auth.h). */
	memcpy(c->tx_key, auth_preauth_key, FRAME_KEY_LEN);
	memcpy(c->rx_key, auth_preauth_key, FRAME_KEY_LEN);
	ev_io_init(&c->rio, conn_read_cb, fd, EV_READ);
	ev_io_init(&c->wio, conn_write_cb, fd, EV_WRITE);
	ev_init(&c->timer, conn_timer_cb);
	c->rio.data = c->wio.data = c->timer.data = c;
	ctx->live++;
	return c;
}

/* conn_peer_error handles an ERROR frame from the peer. */
static void
conn_peer_error(struct conn *c, const cJSON *body)
{
	char err[CF_ERRLEN], detail[CF_ERRLEN];
	const char *code = "?", *msg = "";
	enum conn_reason r = CONN_R_PEER_ERROR;

	if (json_get_str(body, "code", 1, 64, &code, err) == -1)
		code = "?";
	if (json_opt_str(body, "message", 0, 1024, "", &msg, err) == -1)
		msg = "";
	if (strcmp(code, MSG_ERR_VERSION) == 0)
		r = CONN_R_VERSION;
	else if (strcmp(code, MSG_ERR_AUTH) == 0)
		r = CONN_R_AUTH_FAILED;
	else if (strcmp(code, MSG_ERR_BUSY) == 0)
		r = CONN_R_BUSY;
	else if (strcmp(code, MSG_ERR_PROTO) == 0)
		r = CONN_R_PROTO;
	else if (strcmp(code, MSG_ERR_TIMEOUT) == 0)
		r = CONN_R_TIMEOUT;
	snprintf(detail, sizeof(detail), "peer says %s: %s", code, msg);
	conn_close(c, r, detail);
}

/* conn_dispatch handles one complete, tag-verified frame. */
static void
conn_dispatch(struct conn *c, const struct frame_hdr *h, const cJSON *body)
{
	switch (c->state) {
	case CONN_HELLO:
		if (h->type == MSG_HELLO) {
			conn_on_hello(c, h, body);
			return;
		}
		break;
	case CONN_AUTH:
		if (h->type == MSG_AUTH) {
			conn_on_auth(c, body);
			return;
		}
		break;
	case CONN_ESTABLISHED:
		if (h->type != MSG_HELLO && h->type != MSG_AUTH &&
		    h->type != MSG_ERROR && h->type != MSG_BYE) {
			if (c->ops && c->ops->message)
				c->ops->message(c, h, body);
			return;
		}
		break;
	default:
		return;		/* connecting or closing: nothing is read */
	}
	/* In every state that reads: the peer's ERROR and BYE end it. */
	if (h->type == MSG_ERROR) {
		conn_peer_error(c, body);
		return;
	}
	if (h->type == MSG_BYE) {
		conn_close(c, c->state == CONN_ESTABLISHED ? CONN_R_OK :
		    CONN_R_PEER_CLOSED, "peer said BYE");
		return;
	}
	conn_fail(c, CONN_R_PROTO, MSG_ERR_PROTO, "unexpected %s in state %s",
	    msg_name(h->type), conn_state_name(c->state));
}

/* conn_frame checks sequence, version and tag of a READY frame, parses its
 * body and dispatches it. */
static void
conn_frame(struct conn *c)
{
	struct frame_hdr h = c->rx.h;
	char err[CF_ERRLEN];
	cJSON *body;

	if (c->state != CONN_ESTABLISHED && !msg_preauth(h.type)) {
		conn_fail(c, CONN_R_PROTO, MSG_ERR_PROTO, "%s before "
		    "authentication", msg_name(h.type));
		return;
	}
	if (frame_rx_verify(&c->rx, c->rx_key) == -1) {
		conn_fail(c, CONN_R_PROTO, MSG_ERR_PROTO, "%s frame seq %llu: "
		    "bad MAC (altered, or sent with another key)",
		    msg_name(h.type), (unsigned long long)h.seq);
		return;
	}
	/* Sequence numbers run 0, 1, 2... per direction: a replayed,
	 * dropped or reordered frame is refused. */
	if (h.seq != c->rx_seq) {
		conn_fail(c, CONN_R_PROTO, MSG_ERR_PROTO, "%s frame seq %llu "
		    "where %llu was expected (replayed or reordered)",
		    msg_name(h.type), (unsigned long long)h.seq,
		    (unsigned long long)c->rx_seq);
		return;
	}
	c->rx_seq++;
	body = cJSON_ParseWithLength((const char *)c->rx.body, h.len);
	if (body == NULL || !cJSON_IsObject(body)) {
		cJSON_Delete(body);
		/* A peer of another version still gets a plain answer. */
		if (h.version != c->ctx->proto) {
			conn_fail(c, CONN_R_VERSION, MSG_ERR_VERSION,
			    "protocol version mismatch: we speak %u, peer "
			    "speaks %u", c->ctx->proto, h.version);
			return;
		}
		conn_fail(c, CONN_R_PROTO, MSG_ERR_PROTO, "%s body is not a "
		    "JSON object", msg_name(h.type));
		return;
	}
	if (h.version != c->ctx->proto && h.type != MSG_HELLO &&
	    h.type != MSG_ERROR) {
		cJSON_Delete(body);
		conn_fail(c, CONN_R_VERSION, MSG_ERR_VERSION,
		    "protocol version mismatch: we speak %u, peer speaks %u",
		    c->ctx->proto, h.version);
		return;
	}
	(void)err;
	log_debug("%s: <- %s seq %llu len %u", c->peer, msg_name(h.type),
	    (unsigned long long)h.seq, h.len);
	if (c->state == CONN_ESTABLISHED)
		conn_set_timer(c, c->ctx->idle_timeout);
	conn_dispatch(c, &h, body);
	cJSON_Delete(body);
}

static void
conn_read_cb(struct ev_loop *loop, ev_io *w, int revents)
{
	struct conn *c = w->data;
	uint8_t buf[65536];
	char err[CF_ERRLEN];
	size_t off = 0, used;
	ssize_t n;
	int rc;

	(void)loop, (void)revents;
	n = read(c->fd, buf, sizeof(buf));
	if (n == -1) {
		if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
			return;
		snprintf(err, sizeof(err), "read: %s", strerror(errno));
		conn_close(c, CONN_R_PEER_CLOSED, err);
		return;
	}
	if (n == 0) {
		conn_close(c, CONN_R_PEER_CLOSED, c->state == CONN_ESTABLISHED ?
		    "peer closed the connection" :
		    "peer closed the connection during the handshake");
		return;
	}
	while (off < (size_t)n && c->state != CONN_CLOSED &&
	    c->state != CONN_CLOSING) {
		rc = frame_rx_feed(&c->rx, buf + off, (size_t)n - off, &used,
		    err);
		off += used;
		if (rc == FRAME_ERR) {
			log_warnx("%s: %s", c->peer, err);
			conn_fail(c, CONN_R_PROTO, MSG_ERR_PROTO, "%s", err);
			return;
		}
		if (rc == FRAME_NEED_MORE)
			break;
		conn_frame(c);
		frame_rx_reset(&c->rx);
	}
}

static void
conn_connected(struct conn *c)
{
	int err = 0;
	socklen_t len = sizeof(err);
	char msg[CF_ERRLEN];

	if (getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &err, &len) == -1)
		err = errno;
	if (err != 0) {
		snprintf(msg, sizeof(msg), "connect to %s: %s", c->peer,
		    strerror(err));
		conn_close(c, CONN_R_UNREACHABLE, msg);
		return;
	}
	conn_change_state(c, CONN_HELLO);
	ev_io_stop(c->ctx->loop, &c->wio);
	ev_io_start(c->ctx->loop, &c->rio);
	conn_set_timer(c, c->ctx->auth_timeout);
	conn_send_hello(c);
}

static void
conn_write_cb(struct ev_loop *loop, ev_io *w, int revents)
{
	struct conn *c = w->data;
	struct wbuf *b;
	char err[CF_ERRLEN];
	ssize_t n;

	(void)revents;
	if (c->state == CONN_CONNECTING) {
		conn_connected(c);
		return;
	}
	while ((b = TAILQ_FIRST(&c->wq)) != NULL) {
		/* MSG_NOSIGNAL: a peer that vanished is an error, not a
		 * SIGPIPE that kills the process. */
		n = send(c->fd, b->data + b->off, b->len - b->off,
		    MSG_NOSIGNAL);
		if (n == -1) {
			if (errno == EAGAIN || errno == EWOULDBLOCK ||
			    errno == EINTR)
				return;
			snprintf(err, sizeof(err), "write: %s",
			    strerror(errno));
			conn_close(c, c->state == CONN_CLOSING ?
			    c->close_reason : CONN_R_PEER_CLOSED,
			    c->state == CONN_CLOSING ? c->close_detail : err);
			return;
		}
		b->off += (size_t)n;
		c->wq_bytes -= (size_t)n;
		if (b->off < b->len)
			return;
		TAILQ_REMOVE(&c->wq, b, entry);
		free(b->data);
		free(b);
	}
	ev_io_stop(loop, &c->wio);
	if (c->state == CONN_CLOSING)
		conn_close(c, c->close_reason, c->close_detail);
}

static void
conn_timer_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct conn *c = w->data;
	char msg[CF_ERRLEN];

	(void)loop, (void)revents;
	switch (c->state) {
	case CONN_CONNECTING:
		if (c->close_detail[0] != '\0')
			snprintf(msg, sizeof(msg), "%s", c->close_detail);
		else
			snprintf(msg, sizeof(msg), "connect to %s: timed out "
			    "after %.1f s", c->peer, c->connect_timeout);
		conn_close(c, CONN_R_UNREACHABLE, msg);
		break;
	case CONN_HELLO:
	case CONN_AUTH:
		log_warnx("%s: no authentication within %.1f s", c->peer,
		    c->ctx->auth_timeout);
		conn_fail(c, CONN_R_TIMEOUT, MSG_ERR_TIMEOUT, "handshake not "
		    "completed within %.1f s", c->ctx->auth_timeout);
		break;
	case CONN_ESTABLISHED:
		conn_fail(c, CONN_R_TIMEOUT, MSG_ERR_TIMEOUT, "idle for %.1f s",
		    c->ctx->idle_timeout);
		break;
	case CONN_CLOSING:
		conn_close(c, c->close_reason, c->close_detail);
		break;
	case CONN_CLOSED:
		break;
	}
}

static int
conn_nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl == -1 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) == -1)
		return -1;
	return 0;
}

struct conn *
conn_connect(struct conn_ctx *ctx, const struct netaddr *addr, uint16_t port,
    double timeout, const struct conn_ops *ops, void *udata, char *err)
{
	struct sockaddr_storage ss;
	socklen_t sl = netaddr_sockaddr(addr, port, &ss);
	struct conn *c;
	int fd, one = 1;

	fd = socket(addr->family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK,
	    0);
	if (fd == -1) {
		snprintf(err, CF_ERRLEN, "socket: %s", strerror(errno));
		return NULL;
	}
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	c = conn_new(ctx, fd, CONN_CLIENT, ops, udata);
	if (c == NULL) {
		close(fd);
		snprintf(err, CF_ERRLEN, "out of memory");
		return NULL;
	}
	netaddr_endpoint_str(addr, port, c->peer, sizeof(c->peer));
	if (auth_nonce(c->nonce_local) == -1) {
		snprintf(err, CF_ERRLEN, "RAND_bytes failed");
		c->notified = true;
		conn_close(c, CONN_R_PROTO, err);
		return NULL;
	}
	c->connect_timeout = timeout;
	conn_change_state(c, CONN_CONNECTING);
	if (connect(fd, (struct sockaddr *)&ss, sl) == -1 &&
	    errno != EINPROGRESS) {
		/* Report through ops->closed like an asynchronous failure,
		 * but not from inside the caller's own stack frame: a zero
		 * timer delivers it from the loop. */
		snprintf(c->close_detail, sizeof(c->close_detail),
		    "connect to %s: %s", c->peer, strerror(errno));
		conn_set_timer(c, 0.);
		return c;
	}
	ev_io_start(ctx->loop, &c->wio);
	conn_set_timer(c, timeout);
	return c;
}

/* conn_adopt takes over a connected socket in either role: non-blocking,
 * a conn, the peer's name and our nonce. On NULL the socket is closed. */
static struct conn *
conn_adopt(struct conn_ctx *ctx, int fd, enum conn_role role,
    const char *peer, const struct conn_ops *ops, void *udata)
{
	struct conn *c;
	int one = 1;

	if (conn_nonblock(fd) == -1) {
		close(fd);
		return NULL;
	}
	/* Fails harmlessly on a socketpair. */
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	c = conn_new(ctx, fd, role, ops, udata);
	if (c == NULL) {
		close(fd);
		return NULL;
	}
	snprintf(c->peer, sizeof(c->peer), "%s", peer);
	if (auth_nonce(c->nonce_local) == -1) {
		c->notified = true;
		conn_close(c, CONN_R_PROTO, "RAND_bytes failed");
		return NULL;
	}
	return c;
}

/* conn_begin: an adopted socket's first state, its first watcher and
 * the handshake deadline. For a server (conn_accept) the 5 s cover the
 * whole handshake: a peer that never authenticates is dropped however
 * slowly it trickles bytes. A client (conn_attach) is writable at once:
 * conn_connected() sends HELLO from the loop. */
static struct conn *
conn_begin(struct conn_ctx *ctx, int fd, enum conn_role role,
    const char *peer, const struct conn_ops *ops, void *udata)
{
	struct conn *c = conn_adopt(ctx, fd, role, peer, ops, udata);

	if (c == NULL)
		return NULL;
	conn_change_state(c, role == CONN_SERVER ? CONN_HELLO :
	    CONN_CONNECTING);
	ev_io_start(ctx->loop, role == CONN_SERVER ? &c->rio : &c->wio);
	conn_set_timer(c, ctx->auth_timeout);
	return c;
}

struct conn *
conn_accept(struct conn_ctx *ctx, int fd, const char *peer,
    const struct conn_ops *ops, void *udata)
{
	return conn_begin(ctx, fd, CONN_SERVER, peer, ops, udata);
}

struct conn *
conn_attach(struct conn_ctx *ctx, int fd, const char *peer,
    const struct conn_ops *ops, void *udata)
{
	return conn_begin(ctx, fd, CONN_CLIENT, peer, ops, udata);
}
