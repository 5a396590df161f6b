/* session: coordinator sessions to agents, see core.h. */
#include "core/core.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void
session_established(struct conn *c)
{
	struct sess *s = c->udata;

	s->up = true;
	snprintf(s->version, sizeof(s->version), "%s", c->peer_version);
	if (s->ops->ready)
		s->ops->ready(s);
}

static void
session_message(struct conn *c, const struct frame_hdr *h, const cJSON *body)
{
	struct sess *s = c->udata;

	if (s->ops->message)
		s->ops->message(s, h, body);
}

static void
session_closed(struct conn *c, enum conn_reason r, const char *detail)
{
	struct sess *s = c->udata;

	s->conn = NULL;
	s->up = false;
	if (s->ops->closed)
		s->ops->closed(s, r, detail);
}

void
session_blame(char *buf, size_t sz, const char *host, const char *role,
    enum conn_reason r, const char *detail)
{
	const char *what = r == CONN_R_UNREACHABLE ? "unreachable" :
	    r == CONN_R_AUTH_FAILED ? "refused our key" :
	    r == CONN_R_VERSION ? "speaks another protocol version" :
	    r == CONN_R_BUSY ? "is busy" : r == CONN_R_TIMEOUT ? "timed out" :
	    r == CONN_R_PROTO ? "broke the protocol" : "closed the connection";

	snprintf(buf, sz, "agent on %s%s%s%s %s: %s", host, role ? " (" : "",
	    role ? role : "", role ? ")" : "", what, detail ? detail : "");
}

static const struct conn_ops session_conn_ops = {
	.established = session_established,
	.message = session_message,
	.closed = session_closed,
};

struct sess *
session_open(struct conn_ctx *ctx, struct inv_host *h, double timeout,
    const struct session_ops *ops, void *udata, char *err)
{
	struct sess *s = calloc(1, sizeof(*s));

	if (s == NULL) {
		snprintf(err, CF_ERRLEN, "out of memory");
		return NULL;
	}
	s->host = h;
	s->ops = ops;
	s->udata = udata;
	s->conn = conn_connect(ctx, &h->agent, h->port, timeout,
	    &session_conn_ops, s, err);
	if (s->conn == NULL) {
		char d[CF_ERRLEN];

		/* In the form the verdict reads as the agent's failure. */
		snprintf(d, sizeof(d), "%s", err);
		session_blame(err, CF_ERRLEN, h->name, NULL,
		    CONN_R_UNREACHABLE, d);
		free(s);
		return NULL;
	}
	return s;
}

int
session_send(struct sess *s, unsigned type, const cJSON *body)
{
	if (s->conn == NULL)
		return -1;
	return conn_send(s->conn, type, 0, body);
}

void
session_bye(struct sess *s)
{
	if (s->conn != NULL)
		conn_bye(s->conn);
}

void
session_free(struct sess *s)
{
	if (s == NULL)
		return;
	if (s->conn != NULL) {
		/* No callback into a caller that is tearing down. */
		s->conn->ops = NULL;
		conn_close(s->conn, CONN_R_OK, "done");
	}
	free(s);
}

const char *
session_host_name(void)
{
	static char host[256];

	if (host[0] == '\0' && gethostname(host, sizeof(host) - 1) == -1)
		snprintf(host, sizeof(host), "coordinator");
	return host;
}

void
session_ctx_init(struct conn_ctx *ctx, struct ev_loop *loop,
    const struct auth_key *key, double timeout)
{
	conn_ctx_init(ctx, loop, key, CF_VERSION);
	ctx->hostname = session_host_name();
	ctx->auth_timeout = timeout;
	/* Tests report every interval; silence longer than this means the
	 * agent is gone. */
	ctx->idle_timeout = 30;
}

/* session_ctx_quiet: a command whose agents may rightly say nothing for
 * secs (a latency run that reports at its end, an interval longer than
 * the default limit) raises the idle limit past it, or the session is
 * closed as dead just before its result arrives. */
void
session_ctx_quiet(struct conn_ctx *ctx, double secs)
{
	if (ctx->idle_timeout < secs + 30)
		ctx->idle_timeout = secs + 30;
}
