/*
 * analyzer: passive TCP analysis of captured headers, per flow, with the
 * same rules as Wireshark's sequence analysis (tcp.analysis.*), so that
 * its counts equal tshark's on the same capture:
 *   retransmission (any of: plain, fast, spurious), fast retransmission
 *   (>= 2 duplicate ACKs the other way, matching seq, within 20 ms),
 *   spurious (all of it already ACKed), out-of-order (below the highest
 *   sequence seen, within the handshake RTT or 3 ms of it), zero window,
 *   duplicate ACKs, RSTs; handshake RTT (SYN to the ACK completing the
 *   handshake); data RTT from TCP timestamp echoes, else from the ACK
 *   of a segment sent once (Karn's rule).
 * The flow table has a hard cap; the least recently seen flow is evicted
 * (and counted) to make room, so memory is bounded whatever the traffic.
 * Not thread-safe: one analyzer per capture thread.
 */
#ifndef CF_TCPAN_H
#define CF_TCPAN_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/queue.h>

#include <cjson/cJSON.h>

#include "netaddr.h"

#define ANALYZER_DEFAULT_FLOWS 65536
/* At most this many flows per watch (about 300 bytes each: 80 MB), what a
 * coordinator may ask. */
#define ANALYZER_MAX_FLOWS 262144
#define ANALYZER_TS_RING 8
#define ANALYZER_SQ_RING 4

/* Counters of one direction of a flow (or of a sum of them). */
struct analyzer_counts {
	uint64_t segments, bytes;	/* payload bytes */
	uint64_t retrans, fast_retrans, spurious, ooo, zero_window;
	uint64_t dup_acks, rsts, keepalives;
	uint64_t rtt_n;			/* data RTT samples (timestamps) */
	double rtt_sum, rtt_max;	/* seconds */
};

struct analyzer_dir {
	/* Wireshark's state; 0 means "not seen" as it does there. */
	uint32_t nextseq, lastack, window;
	int64_t nextseqtime, lastacktime;	/* ns */
	int dupacknum;
	uint32_t lastflags;		/* analysis flags of the last segment */
	bool base_set;
	/* TSval sent, and when: for RTT from the peer's TSecr. */
	uint32_t tsval[ANALYZER_TS_RING];
	int64_t tstime[ANALYZER_TS_RING];	/* ns */
	int tsi;
	bool has_ts;			/* timestamps seen: they give the RTT */
	/* Without timestamps: the end sequence of segments sent once, and
	 * when (Karn: a retransmitted range gives no sample). */
	uint32_t sqend[ANALYZER_SQ_RING];
	int64_t sqtime[ANALYZER_SQ_RING];	/* ns */
	int sqi;
	struct analyzer_counts c;
};

struct analyzer_flow {
	TAILQ_ENTRY(analyzer_flow) lru;
	struct analyzer_flow *hnext;
	uint32_t hash;
	/* Endpoint 0 sent the first packet seen. */
	struct netaddr addr[2];
	uint16_t port[2];
	struct analyzer_dir d[2];
	/* Times in integer nanoseconds, as the capture has them and as
	 * tshark compares them: in double seconds since the epoch (0.24 us
	 * apart at 1.8e9 s) a 17 us handshake read 17.17 us, and segments
	 * exactly at that out-of-order threshold fell on the wrong side. */
	int64_t first, last;
	int64_t mru_syn;		/* the latest SYN's time, 0 = none */
	int64_t hs_rtt;			/* handshake RTT, 0 = not seen */
};

struct analyzer {
	struct analyzer_flow **buckets;
	unsigned nbuckets;
	unsigned nflows, cap;
	uint64_t evicted, packets, non_tcp, truncated;
	uint64_t tracer;	/* the path tracer's probes, left out */
	int dlt;			/* the callers' link type */
	uint32_t key[2];		/* the flow hash's random key: the
					   traffic's senders cannot aim many
					   flows at one bucket */
	TAILQ_HEAD(analyzer_lru, analyzer_flow) lru;	/* most recent first */
};

/* analyzer_init: cap flows at most (0: the default; more than
 * ANALYZER_MAX_FLOWS is that). -1 on no memory. */
int analyzer_init(struct analyzer *t, unsigned cap);
void analyzer_free(struct analyzer *t);
/* analyzer_hash: the keyed flow hash of (a, ap) <-> (b, bp), the same
 * both ways. */
uint32_t analyzer_hash(const struct analyzer *t, const struct netaddr *a,
    uint16_t ap, const struct netaddr *b, uint16_t bp);

/* analyzer_packet analyzes one packet from its IP header on: len bytes
 * captured (headers are enough: payload sizes come from the IP header),
 * ts in nanoseconds (analyzer_ns makes them from a capture's time). Returns the flow it belongs to, or NULL (not TCP, or too
 * short). */
struct analyzer_flow *analyzer_packet(struct analyzer *t, int64_t ts,
    const uint8_t *ip, size_t len);

/* analyzer_frame: the same from a link-layer frame (DLT_EN10MB, DLT_RAW,
 * DLT_LINUX_SLL, DLT_LINUX_SLL2 or DLT_NULL). */
struct analyzer_flow *analyzer_frame(struct analyzer *t, int dlt, int64_t ts,
    const uint8_t *frame, size_t len);

/* analyzer_ns: a capture's time (seconds and the fraction, in
 * microseconds or, nano set, nanoseconds) as integer nanoseconds. */
static inline int64_t
analyzer_ns(long sec, long frac, bool nano)
{
	return (int64_t)sec * 1000000000 + (int64_t)frac * (nano ? 1 : 1000);
}

/* analyzer_ring_bytes: the kernel ring for a live capture feeding the
 * analyzer, sized for the link: 200 ms of line rate in full-size frames,
 * each costing its snaplen of headers plus the ring's per-frame overhead,
 * between 16 MB and 128 MB (16 MB when the speed is unknown, speed_mbps
 * <= 0, as on a veth). A reader late by a scheduling hiccup loses
 * nothing; a 100G host does not pin gigabytes. */
size_t analyzer_ring_bytes(long speed_mbps, unsigned snaplen);

void analyzer_add(struct analyzer_counts *sum, const struct analyzer_counts *c);
/* analyzer_counts_json: the counters as JSON (rates need a duration). */
cJSON *analyzer_counts_json(const struct analyzer_counts *c);
/* analyzer_flow_json: both directions, handshake RTT, endpoints. */
cJSON *analyzer_flow_json(const struct analyzer_flow *f);

#endif
