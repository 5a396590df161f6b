/*
 * sess: an authenticated session from the coordinator to one agent of the
 * inventory, for commands that hold agents through a test (pair, and the
 * probes and matrix after it). Connects without blocking, and reports
 * through callbacks on the caller's loop.
 */
#ifndef CF_SESS_H
#define CF_SESS_H

#include <stdbool.h>

#include "conn.h"
#include "core/inventory.h"

struct sess;

struct session_ops {
	void (*ready)(struct sess *);
	void (*message)(struct sess *, const struct frame_hdr *,
	    const cJSON *);
	void (*closed)(struct sess *, enum conn_reason, const char *detail);
};

struct sess {
	struct inv_host *host;
	struct conn *conn;	/* NULL once closed */
	const struct session_ops *ops;
	void *udata;
	bool up;
	char version[32];
};

/* session_open starts connecting; failures arrive through ops->closed.
 * Returns NULL (err set) only when no socket could be made. The caller
 * frees with session_free after the loop is done with it. */
struct sess *session_open(struct conn_ctx *ctx, struct inv_host *h,
    double timeout, const struct session_ops *ops, void *udata, char *err);
int session_send(struct sess *s, unsigned type, const cJSON *body);
/* session_bye says BYE and closes after the flush. */
void session_bye(struct sess *s);
void session_free(struct sess *s);

/* session_ctx_init prepares a conn_ctx for a coordinator command. */
void session_ctx_init(struct conn_ctx *ctx, struct ev_loop *loop,
    const struct auth_key *key, double timeout);

#endif
