/*
 * msg: the control protocol's message types, their names for logs and their
 * per-type body size limits.
 *
 * Later issues add types (test requests, results, facts) by adding a row to
 * the table in proto/msg.c; the framing does not change.
 */
#ifndef CF_MSG_H
#define CF_MSG_H

#include <stddef.h>
#include <stdint.h>

/* The protocol version carried in every frame header and in HELLO. Bump it on
 * any incompatible change to a message body. */
#define CF_PROTO_VERSION 2

/* Hard cap on any body, whatever the type's own limit says. */
#define MSG_MAX_BODY (1024 * 1024)

enum msg_type {
	MSG_HELLO = 1,		/* both ways: versions, nonce */
	MSG_AUTH = 2,		/* both ways: challenge-response proof */
	MSG_STATUS = 3,		/* request (no REPLY flag) and reply */
	MSG_ERROR = 4,		/* code + message, usually followed by close */
	MSG_BYE = 5,		/* orderly close */
	/* Throughput tests (tputreq.h): requests get a REPLY of their type,
	 * with "error" and "code" when refused. */
	MSG_TEST_LISTEN = 6,	/* open a data listener; reply: port */
	MSG_TEST_CONNECT = 7,	/* connect data streams; reply when ready */
	MSG_TEST_READY = 8,	/* agent -> coordinator: streams in place */
	MSG_TEST_START = 9,	/* coordinator -> agents: go */
	MSG_TEST_INTERVAL = 10,	/* agent -> coordinator: one interval */
	MSG_TEST_END = 11,	/* agent -> coordinator: totals */
	MSG_TEST_ABORT = 12,	/* coordinator -> agent: stop now */
	/* Probes (agent/probe.c): latency, path MTU, ports, reachability. */
	MSG_PROBE_OPEN = 13,	/* responder: reply port(s) */
	MSG_PROBE_RUN = 14,	/* runner: reply with the results */
	MSG_PROBE_CLOSE = 15,	/* end a responder */
	/* Topology (agent/facts.c): links, bonds, routes, sysctls, FRR. */
	MSG_FACTS = 16,		/* request: peers; reply: the facts */
	/* Live capture (agent/watch.c). */
	MSG_WATCH = 17,		/* request: net, filter, interval, duration */
	MSG_WATCH_INTERVAL = 18,	/* agent -> coordinator: per-peer stats */
	/* Monitoring (agent/monitor/): start with a pinglist, stop, status;
	 * the reply is the status. */
	MSG_MONITOR = 19,
	MSG_TYPE_MAX
};

/* Frame flags. */
#define MSG_F_REPLY 0x0001	/* this frame answers a request of its type */

/* Error codes carried in MSG_ERROR bodies ("code"). */
#define MSG_ERR_VERSION "version_mismatch"
#define MSG_ERR_AUTH "auth_failed"
#define MSG_ERR_BUSY "busy"
#define MSG_ERR_PROTO "protocol_error"
#define MSG_ERR_TIMEOUT "timeout"
#define MSG_ERR_REFUSED "refused"

/* msg_name returns a static name for logs ("HELLO"), or "UNKNOWN". */
const char *msg_name(unsigned type);
/* msg_limit returns the largest body allowed for a type, or 0 when the type
 * is unknown. */
size_t msg_limit(unsigned type);
/* msg_preauth returns 1 when the type may arrive before authentication. */
int msg_preauth(unsigned type);

#endif
