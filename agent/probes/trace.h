/*
 * trace: the hop-by-hop path of a TCP flow, as ECMP hashed it.
 *
 * Paris-traceroute's idea on a live flow: probes carry the flow's own
 * 5-tuple (addresses, ports, TCP), so every router hashes them onto the
 * member it hashes the flow's data onto, and only their TTL differs. A
 * router that drops a probe at TTL 0 answers ICMP time-exceeded from one
 * of its addresses; the probe's sequence number, quoted back, says which
 * TTL it was.
 *
 * The probes go out through a raw socket (CAP_NET_RAW, as the capture
 * needs), so that they may carry the tuple of a connection the kernel
 * holds open: no bind or TIME_WAIT stands in the way, and the trace can
 * run while the data flows. They never touch either end's connection:
 * the sequence number is far outside the window (the sender's kernel
 * ignores the ICMP errors they draw), and the TCP checksum is wrong on
 * purpose, so the destination drops the one probe that reaches it (its
 * TcpInCsumErrors counter grows by up to TRACE_MAX_HOPS per flow).
 *
 * The flow's own port is what its packets were seen leaving by (a
 * moment's capture, trace_egress.c), not what a route query predicts.
 *
 * Every TTL is sent at once, then the missing ones up to two past the
 * farthest answer once more: a trace takes TRACE_WAIT + TRACE_RETRY_WAIT seconds
 * whatever the path, for all of a test's flows together. A hole left
 * after that (a router's ICMP rate limit) is asked again a second apart,
 * up to TRACE_PATIENCE times: a few seconds more, only then.
 */
#ifndef CF_TRACE_H
#define CF_TRACE_H

#include <net/if.h>
#include <stdbool.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "netaddr.h"
#include "probes/route.h"

/* The probes' TCP header: 20 bytes and the tracer's marker, an RFC 6994
 * experimental option (kind 253, ExID "cf"), which a capture of the
 * flow (agent/capture/analyzer.c) leaves out of the flow's counts. */
#define TRACE_TCP_LEN 24
#define TRACE_OPT_KIND 253
#define TRACE_OPT_EXID 0x6366


#define TRACE_MAX_HOPS 12	/* a Clos fabric of five tiers needs 4 */
#define TRACE_MAX_FLOWS 64	/* flows traced per test */
#define TRACE_WAIT 0.3		/* seconds for the first answers */
#define TRACE_RETRY_WAIT 0.2	/* and for the second try */
#define TRACE_PATIENCE 3	/* tries more, for rate-limited routers */
#define TRACE_PACE_WAIT 1.0	/* seconds apart: Linux's default limit */

struct trace_flow {
	struct netaddr src, dst;
	uint16_t sport, dport;
	char dev[IF_NAMESIZE];		/* SO_BINDTODEVICE, "" for none */
	/* What the trace learned. */
	struct netaddr hop[TRACE_MAX_HOPS];	/* family 0: no answer */
	int nhops;			/* the farthest TTL answered */
	char egress[IF_NAMESIZE];	/* the port it was seen leaving by */
	struct route_info route;	/* the route through that port */
	bool have_route;
	char egress_addr[NETADDR_STRLEN];	/* the egress port's address */
	char err[64];			/* why there is no path, "" if there is */
};

/* trace_flows traces n flows at once (blocking, bounded: call it from a
 * thread); each flow's own fields say what was learned. Returns -1 with
 * err when nothing could be sent (no CAP_NET_RAW, say). */
int trace_flows(struct trace_flow *f, int n, char *err);

/* trace_egress (trace_egress.c) watches the flows' own packets leave for
 * a moment and records each one's port (egress stays "" when it was not
 * seen: no capture, or a flow already done). */
void trace_egress(struct trace_flow *f, int n);

/* trace_json: {"egress_if", "gateway", "hops": [ADDR|null, ...]} or
 * {"error"}. */
cJSON *trace_json(const struct trace_flow *f);

/* trace_icmp_match parses one ICMP or ICMPv6 message as received on a raw
 * socket (IPv4: with its IP header) and, when it is a time-exceeded
 * quoting one of the n flows' probes, records the hop. Returns the index
 * of the flow it fed, or -1. from is the ICMP's sender. Separate for the
 * fuzzer and the unit tests. */
int trace_icmp_match(struct trace_flow *f, int n, const uint32_t *nonce,
    int family, const uint8_t *buf, size_t len, const struct netaddr *from);

#endif
