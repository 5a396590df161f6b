/*
 * tputreq: the throughput test request, as sent in TEST_LISTEN and
 * TEST_CONNECT, with its encoder and its range-checked decoder.
 *
 * Streams run between a connector (the agent told to TEST_CONNECT) and a
 * listener (TEST_LISTEN). "streams" is per direction: with both directions
 * on (bidir) the connector opens 2 * streams connections, the first half
 * sending from the connector.
 */
#ifndef CF_TMSG_H
#define CF_TMSG_H

#include <net/if.h>
#include <stdbool.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "netaddr.h"

#define TPUTREQ_TOKEN_LEN 32
#define TPUTREQ_ID_LEN 16		/* hex digits */
#define TPUTREQ_MAX_STREAMS 1024	/* wire limit; agents enforce their own */
#define TPUTREQ_STREAM_MAGIC "CFDATA01"
#define TPUTREQ_STREAM_HDR 48	/* magic 8, token 32, index 4, flags 4 */
#define TPUTREQ_UDP_HDR 40		/* see stream.c */

enum tproto { TP_TCP, TP_UDP };

struct test_spec {
	char id[TPUTREQ_ID_LEN + 1];
	enum tproto proto;
	uint32_t streams;		/* per direction */
	double duration;		/* seconds of sending */
	uint32_t len;			/* bytes per write / datagram */
	uint64_t rate;			/* bits/s per stream, 0 = unlimited */
	double interval;		/* seconds between reports */
	uint32_t window;		/* SO_SNDBUF/SO_RCVBUF, 0 = kernel's */
	bool zerocopy;			/* MSG_ZEROCOPY sends */
	bool skip_rx_copy;		/* MSG_TRUNC receives */
	bool connector_sends, listener_sends;
	uint8_t token[TPUTREQ_TOKEN_LEN];
	struct netaddr local;		/* address to bind (both roles) */
	struct netaddr dst;		/* connector: listener's address */
	uint16_t port;			/* connector: listener's port */
	char bind_dev[IF_NAMESIZE];	/* connector: SO_BINDTODEVICE */
	uint16_t sport_base, sport_stride;	/* connector: source ports */
	char coordinator[64];		/* who asked, for 'busy' replies */
	/* Shared tests may run beside other shared tests on one agent (the
	 * matrix's all-to-all and fanout loads); a test that is not shared
	 * holds the agent alone. */
	bool shared;
	/* Trace the path of every stream this side sends (trace.h): the
	 * sender learns where ECMP put each of its flows. */
	bool trace;
};

/* tputreq_total is the number of connections: streams per direction times
 * the directions in use. */
uint32_t tputreq_total(const struct test_spec *s);
/* tputreq_sends: does stream idx send from the connector's side? */
bool tputreq_connector_sends(const struct test_spec *s, uint32_t idx);

/* tputreq_encode: a new JSON object for the wire (caller frees). */
cJSON *tputreq_encode(const struct test_spec *s, bool connect);
/* tputreq_decode fills s from a TEST_LISTEN (connect false) or TEST_CONNECT
 * body; -1 with err naming the field. */
int tputreq_decode(const cJSON *body, bool connect, struct test_spec *s,
    char *err);

/* The first TPUTREQ_STREAM_HDR bytes of every TCP data connection. */
void tputreq_stream_hdr(const struct test_spec *s, uint32_t idx,
    uint8_t out[TPUTREQ_STREAM_HDR]);
/* tputreq_stream_check verifies a header in constant time; fills idx.
 * Returns 0 or -1. */
int tputreq_stream_check(const struct test_spec *s,
    const uint8_t in[TPUTREQ_STREAM_HDR], uint32_t *idx);

#endif
