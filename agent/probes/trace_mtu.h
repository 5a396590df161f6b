/*
 * trace_mtu: where on its path a datagram too large for the path dies.
 *
 * When the MTU search finds a path narrower than the sender's port, the
 * same connected UDP socket (the same 5-tuple, so ECMP hashes it onto the
 * member that failed) sends two probes at every TTL: a small one, which
 * crosses, and one of the configured size, which does not. Routers answer
 * both with ICMP time-exceeded up to the narrow link; past it only the
 * small probes are answered. The link after the farthest router that saw
 * a large probe is where the MTU shrinks. A router whose next link is
 * narrower and says so (fragmentation needed, packet too big) names
 * itself and the MTU it can forward.
 *
 * No raw socket is needed: the kernel queues the ICMP errors a connected
 * UDP socket draws on its error queue (IP_RECVERR), with the sender of
 * each and the start of the probe it quotes. Probes are matched by their
 * first TRACE_MTU_QUOTE bytes (the probe header with a sequence number
 * naming the TTL and size): routers must quote that much of the datagram,
 * which Linux and routers following RFC 1812 do (RFC 792 asks only for
 * 8 bytes, after which nothing can be matched).
 */
#ifndef CF_TRACE_MTU_H
#define CF_TRACE_MTU_H

#include <stdbool.h>
#include <stdint.h>

#include "netaddr.h"
#include "probes/trace.h"

#define TRACE_MTU_QUOTE 16	/* bytes of the probe a match needs */

struct trace_mtu {
	struct netaddr hop[TRACE_MAX_HOPS];	/* small probes' routers */
	int nhops;			/* the farthest TTL they answered */
	int reached;			/* the farthest TTL a large probe
					   was answered at (0: none) */
	struct netaddr too_big_from;	/* family 0: no router said so */
	uint32_t next_mtu;		/* the MTU it said it can forward */
	char err[64];			/* "" when traced */
};

/* trace_mtu_fill writes probe 'seq' into buf (at least TRACE_MTU_QUOTE
 * bytes; the rest of the datagram is left as it is). */
typedef void trace_mtu_fill(void *arg, uint8_t *buf, uint64_t seq);

/* trace_mtu traces connected UDP socket fd (family AF_INET or AF_INET6)
 * with datagrams of small and big payload bytes. Blocking and bounded
 * (TRACE_WAIT + TRACE_RETRY_WAIT): call it from a probe thread. The
 * socket's TTL and error reporting are restored. Returns 0, or -1 with
 * r->err. */
int trace_mtu(int fd, int family, uint32_t small, uint32_t big,
    trace_mtu_fill *fill, void *arg, struct trace_mtu *r);

/* trace_mtu_err feeds one error queue message to r: ICMP type and code
 * as the kernel reported them (origin ICMP or ICMP6), info (the MTU for
 * too-big), the sender, and the quoted start of the probe. Separate for
 * the unit tests. Returns 1 when it matched a probe, else 0. */
int trace_mtu_err(struct trace_mtu *r, int family, int type, int code,
    uint32_t info, const struct netaddr *from, const uint8_t *quote,
    size_t qlen, trace_mtu_fill *fill, void *arg);

/* trace_mtu_json: {"hops": [ADDR|null, ...], "reached": N,
 * "too_big_from": ADDR, "next_mtu": N} or {"error"}. */
cJSON *trace_mtu_json(const struct trace_mtu *r);

#endif
