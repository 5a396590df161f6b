/* conn_io: what every connection state uses: state and reason names, the
 * one place a state changes (conn_change_state), queuing a frame,
 * the timer, and the ways a connection ends (close, linger, fail, bye),
 * see include/conn.h. */
#include "conn.h"
#include "conn_int.h"
#include "log.h"
#include "msg.h"
#include "json.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* How long a last ERROR or BYE may take to flush before we just close. */
#define CONN_LINGER 1.0

static const char *conn_state_names[] = {
	[CONN_CONNECTING] = "CONNECTING",
	[CONN_HELLO] = "HELLO",
	[CONN_AUTH] = "AUTH",
	[CONN_ESTABLISHED] = "ESTABLISHED",
	[CONN_CLOSING] = "CLOSING",
	[CONN_CLOSED] = "CLOSED",
};

static const char *conn_reason_names[] = {
	[CONN_R_OK] = "ok",
	[CONN_R_UNREACHABLE] = "unreachable",
	[CONN_R_AUTH_FAILED] = "auth_failed",
	[CONN_R_VERSION] = "version_mismatch",
	[CONN_R_BUSY] = "busy",
	[CONN_R_PROTO] = "protocol_error",
	[CONN_R_TIMEOUT] = "timeout",
	[CONN_R_PEER_CLOSED] = "closed",
	[CONN_R_PEER_ERROR] = "error",
};

const char *
conn_state_name(enum conn_state s)
{
	return s <= CONN_CLOSED ? conn_state_names[s] : "?";
}

const char *
conn_reason_name(enum conn_reason r)
{
	return r <= CONN_R_PEER_ERROR ? conn_reason_names[r] : "?";
}

void
conn_change_state(struct conn *c, enum conn_state s)
{
	log_debug("conn %s: %s -> %s", c->peer, conn_state_name(c->state),
	    conn_state_name(s));
	c->state = s;
}

bool
conn_closed(const struct conn *c)
{
	return c->state == CONN_CLOSED;
}

void
conn_close(struct conn *c, enum conn_reason reason, const char *detail)
{
	struct ev_loop *loop = c->ctx->loop;

	if (c->state == CONN_CLOSED)
		return;
	conn_change_state(c, CONN_CLOSED);
	ev_io_stop(loop, &c->rio);
	ev_io_stop(loop, &c->wio);
	ev_timer_stop(loop, &c->timer);
	if (c->fd != -1) {
		close(c->fd);
		c->fd = -1;
	}
	TAILQ_INSERT_TAIL(&c->ctx->dead, c, dead_entry);
	if (!c->notified) {
		c->notified = true;
		if (c->ops && c->ops->closed)
			c->ops->closed(c, reason, detail ? detail : "");
	}
}

void
conn_set_timer(struct conn *c, double after)
{
	ev_timer_stop(c->ctx->loop, &c->timer);
	ev_timer_set(&c->timer, after, 0.);
	ev_timer_start(c->ctx->loop, &c->timer);
}

/* conn_queue encodes and queues one frame under the current tx key. */
int
conn_queue(struct conn *c, unsigned type, uint16_t flags, const cJSON *body)
{
	struct frame_hdr h;
	struct wbuf *w;
	char *text, err[CF_ERRLEN];
	uint8_t *buf;
	size_t len;

	text = body ? cJSON_PrintUnformatted(body) : strdup("{}");
	if (text == NULL) {
		conn_close(c, CONN_R_PROTO, "out of memory");
		return -1;
	}
	memset(&h, 0, sizeof(h));
	h.version = (uint8_t)c->ctx->proto;
	h.type = (uint8_t)type;
	h.flags = flags;
	h.len = (uint32_t)strlen(text);
	h.seq = c->tx_seq;
	buf = frame_encode(&h, text, c->tx_key, &len, err);
	free(text);
	if (buf == NULL) {
		/* Our own message too large is our bug, not the peer's. */
		log_warnx("%s: cannot send %s: %s", c->peer, msg_name(type),
		    err);
		return -1;
	}
	if (c->wq_bytes + len > c->ctx->wq_limit) {
		free(buf);
		conn_close(c, CONN_R_TIMEOUT, "peer does not read: write "
		    "queue full");
		return -1;
	}
	w = calloc(1, sizeof(*w));
	if (w == NULL) {
		free(buf);
		conn_close(c, CONN_R_PROTO, "out of memory");
		return -1;
	}
	w->data = buf;
	w->len = len;
	TAILQ_INSERT_TAIL(&c->wq, w, entry);
	c->wq_bytes += len;
	c->tx_seq++;
	/* The write watcher runs only while there is something to write. */
	ev_io_start(c->ctx->loop, &c->wio);
	return 0;
}

int
conn_send(struct conn *c, unsigned type, uint16_t flags, const cJSON *body)
{
	if (c->state != CONN_ESTABLISHED)
		return -1;
	return conn_queue(c, type, flags, body);
}

static void
conn_linger(struct conn *c, enum conn_reason reason, const char *detail)
{
	c->close_reason = reason;
	snprintf(c->close_detail, sizeof(c->close_detail), "%s", detail);
	conn_change_state(c, CONN_CLOSING);
	ev_io_stop(c->ctx->loop, &c->rio);
	if (TAILQ_EMPTY(&c->wq)) {
		conn_close(c, reason, c->close_detail);
		return;
	}
	conn_set_timer(c, CONN_LINGER);
}

void
conn_fail(struct conn *c, enum conn_reason reason, const char *code,
    const char *fmt, ...)
{
	char msg[CF_ERRLEN];
	cJSON *body;
	va_list ap;

	if (c->state == CONN_CLOSED || c->state == CONN_CLOSING)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (c->state != CONN_CONNECTING) {
		body = cJSON_CreateObject();
		if (body != NULL) {
			cJSON_AddStringToObject(body, "code", code);
			cJSON_AddStringToObject(body, "message", msg);
			conn_queue(c, MSG_ERROR, 0, body);
			cJSON_Delete(body);
		}
	}
	if (c->state != CONN_CLOSED)
		conn_linger(c, reason, msg);
}

void
conn_bye(struct conn *c)
{
	if (c->state == CONN_CLOSED || c->state == CONN_CLOSING)
		return;
	if (c->state == CONN_ESTABLISHED)
		conn_queue(c, MSG_BYE, 0, NULL);
	if (c->state != CONN_CLOSED)
		conn_linger(c, CONN_R_OK, "bye");
}

cJSON *
conn_vrefusal(struct conn *c, unsigned type, const char *fmt, va_list ap)
{
	char msg[CF_ERRLEN];
	cJSON *b;

	vsnprintf(msg, sizeof(msg), fmt, ap);
	log_warnx("%s: %s refused: %s", c->peer, msg_name(type), msg);
	b = cJSON_CreateObject();
	if (b != NULL)
		cJSON_AddStringToObject(b, "error", msg);
	return b;
}
