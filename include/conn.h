/*
 * conn: one authenticated control connection on a libev loop.
 *
 * A conn owns its socket, a frame decoder, a write queue and one timer
 * (connect timeout, then the 5 s authentication deadline, then the idle
 * timeout). It runs the handshake described in auth.h for either role and
 * then hands every verified message to its owner through conn_ops.
 *
 * Lifetime: conn_close() stops all watchers, closes the socket and calls
 * ops->closed exactly once; the memory is freed by the conn_ctx just before
 * the loop next sleeps, so a conn pointer stays valid for the rest of the
 * callback chain that closed it (check conn_closed()).
 */
#ifndef CF_CONN_H
#define CF_CONN_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include "queue_compat.h"

#include <cjson/cJSON.h>
#include <ev.h>

#include "auth.h"
#include "frame.h"
#include "netaddr.h"
#include "json.h"

enum conn_role { CONN_CLIENT, CONN_SERVER };

enum conn_state {
	CONN_CONNECTING,
	CONN_HELLO,		/* waiting for the peer's HELLO */
	CONN_AUTH,		/* waiting for the peer's AUTH */
	CONN_ESTABLISHED,
	CONN_CLOSING,		/* flushing a last frame, reading nothing */
	CONN_CLOSED,
};

/* Why a connection ended; also the per-host states 'cephfab hosts' shows. */
enum conn_reason {
	CONN_R_OK,		/* orderly BYE or local close */
	CONN_R_UNREACHABLE,
	CONN_R_AUTH_FAILED,
	CONN_R_VERSION,
	CONN_R_BUSY,
	CONN_R_PROTO,
	CONN_R_TIMEOUT,
	CONN_R_PEER_CLOSED,
	CONN_R_PEER_ERROR,	/* peer sent ERROR with another code */
};

const char *conn_state_name(enum conn_state);
const char *conn_reason_name(enum conn_reason);

struct conn;

struct conn_ops {
	/* Server only, optional: may refuse a peer (e.g. too many
	 * sessions) by returning an ERROR code such as MSG_ERR_BUSY and
	 * writing a message into msg; asked at its HELLO and again once its
	 * proof checks out, just before it becomes a session. Return NULL
	 * to accept. */
	const char *(*admit)(struct conn *, char *msg);
	/* Server only, optional: add fields to what a peer learns of us
	 * once it has proven the key (the AUTH reply: uptime). Nothing but
	 * the protocol version and a nonce goes to an unproven peer. */
	void (*auth_fill)(struct conn *, cJSON *auth);
	/* The handshake completed. */
	void (*established)(struct conn *);
	/* A verified message after authentication (not HELLO/AUTH). The body
	 * is owned by the conn and freed after the call. */
	void (*message)(struct conn *, const struct frame_hdr *, const cJSON *);
	/* The connection ended, with a reason and a one-line detail. */
	void (*closed)(struct conn *, enum conn_reason, const char *detail);
};

struct conn_ctx {
	struct ev_loop *loop;
	ev_prepare reaper;
	TAILQ_HEAD(, conn) dead;
	const struct auth_key *psk;
	const char *version;	/* software version sent in HELLO */
	const char *hostname;
	unsigned proto;		/* normally CF_PROTO_VERSION */
	double auth_timeout;	/* seconds to complete the handshake */
	double idle_timeout;	/* seconds without a frame after auth */
	size_t wq_limit;	/* bytes queued before a peer is dropped */
	unsigned live;		/* conns not yet freed */
};

struct wbuf {
	TAILQ_ENTRY(wbuf) entry;
	size_t len, off;
	uint8_t *data;
};

struct conn {
	TAILQ_ENTRY(conn) dead_entry;
	struct conn_ctx *ctx;
	const struct conn_ops *ops;
	void *udata;
	enum conn_role role;
	enum conn_state state;
	int fd;
	ev_io rio, wio;
	ev_timer timer;
	double connect_timeout;
	char peer[NETADDR_STRLEN];
	uint8_t nonce_local[AUTH_NONCE_LEN], nonce_peer[AUTH_NONCE_LEN];
	uint8_t tx_key[FRAME_KEY_LEN], rx_key[FRAME_KEY_LEN];
	uint64_t tx_seq, rx_seq;
	struct frame_rx rx;
	TAILQ_HEAD(, wbuf) wq;
	size_t wq_bytes;
	enum conn_reason close_reason;	/* used when a CLOSING flush ends */
	char close_detail[CF_ERRLEN];
	bool notified;
	/* What the peer said in HELLO. */
	unsigned peer_proto;
	char peer_version[32];
	char peer_host[256];
	cJSON *peer_hello;
};

/* conn_ctx_init prepares a context on loop; psk must outlive it. */
void conn_ctx_init(struct conn_ctx *ctx, struct ev_loop *loop,
    const struct auth_key *psk, const char *version);
/* conn_ctx_reap frees closed conns now (also runs before each sleep). */
void conn_ctx_reap(struct conn_ctx *ctx);
void conn_ctx_fini(struct conn_ctx *ctx);

/* conn_connect starts a non-blocking connect to addr:port and the handshake
 * as client. Returns NULL with err set if no socket could be made; a refused
 * or timed-out connect is reported later through ops->closed. */
struct conn *conn_connect(struct conn_ctx *ctx, const struct netaddr *addr,
    uint16_t port, double timeout, const struct conn_ops *ops, void *udata,
    char *err);
/* conn_accept adopts an accepted socket as server. On NULL (out of memory,
 * no randomness) the socket has been closed. */
struct conn *conn_accept(struct conn_ctx *ctx, int fd, const char *peer,
    const struct conn_ops *ops, void *udata);

/* conn_attach starts the handshake as client on an already connected
 * socket (a socketpair in tests, a socket from another connector). On NULL
 * the socket has been closed. */
struct conn *conn_attach(struct conn_ctx *ctx, int fd, const char *peer,
    const struct conn_ops *ops, void *udata);

/* conn_send queues a message (body may be NULL for {}). Returns 0, or -1
 * when the conn is not established or the queue limit is hit (the conn is
 * then closed). */
int conn_send(struct conn *c, unsigned type, uint16_t flags,
    const cJSON *body);
/* conn_fail sends ERROR {code, message} if possible, then closes the conn
 * once the frame is flushed (bounded by a short timer). */
void conn_fail(struct conn *c, enum conn_reason reason, const char *code,
    const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* conn_bye sends BYE and closes after the flush with CONN_R_OK. */
void conn_bye(struct conn *c);
/* conn_close closes at once. */
void conn_close(struct conn *c, enum conn_reason reason, const char *detail);
bool conn_closed(const struct conn *c);

/* conn_vrefusal: a request of type refused: the reason formatted from
 * fmt, logged with the peer, and returned as a reply body {"error":
 * reason} for the caller to complete and send (NULL without memory). */
cJSON *conn_vrefusal(struct conn *c, unsigned type, const char *fmt,
    va_list ap) __attribute__((format(printf, 3, 0)));

#endif
