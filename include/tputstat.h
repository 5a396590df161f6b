/*
 * tputstat: the arithmetic of throughput tests, kept free of I/O so it can be
 * unit-tested: TCP_INFO samples and their deltas, what limited a sender,
 * UDP loss / duplicate / reorder / jitter accounting (RFC 3550), and Jain's
 * fairness index.
 */
#ifndef CF_TSTAT_H
#define CF_TSTAT_H

#include <stdbool.h>
#include <stdint.h>

#include <cjson/cJSON.h>

/* The TCP_INFO fields cephfab reports, from either end of a stream. */
struct tcp_sample {
	uint64_t bytes_acked;		/* sender side */
	uint64_t bytes_received;	/* receiver side */
	uint64_t total_retrans;		/* segments, cumulative */
	uint64_t bytes_retrans;
	uint64_t busy_us, rwnd_us, sndbuf_us;
	uint64_t delivery_rate;		/* bytes/s */
	uint32_t snd_cwnd;		/* segments */
	uint32_t snd_mss;
	uint32_t rtt_us, rttvar_us;
	uint32_t reordering, reord_seen;
	uint32_t pmtu;
	uint32_t rcv_space;
	uint32_t lost;			/* currently lost (tcpi_lost) */
	uint32_t rcv_ooopack;		/* receiver: out-of-order packets */
	/* Retransmissions the receiver reported as duplicates (DSACK):
	 * the original arrived after all, so they were spurious (reordering,
	 * a late ACK, a tail-loss probe), not loss. */
	uint32_t dsack_dups;
};

/* The change between two samples of one stream. Counters that went
 * backwards (a new socket) count from zero. */
struct tcp_delta {
	uint64_t retrans;
	uint64_t busy_us, rwnd_us, sndbuf_us;
	uint64_t reord_seen;
	uint64_t dsack_dups;
};

/* tputstat_tcp_read fills s from getsockopt(TCP_INFO); -1 on failure. */
int tputstat_tcp_read(int fd, struct tcp_sample *s);
void tputstat_tcp_delta(const struct tcp_sample *prev,
    const struct tcp_sample *cur, struct tcp_delta *d);
/* tputstat_tcp_json: a new object with the sample and, if d is not NULL, the
 * interval's deltas. */
cJSON *tputstat_tcp_json(const struct tcp_sample *s, const struct tcp_delta *d);

enum limit {
	LIMIT_NONE,		/* too little data to say */
	LIMIT_RWND,		/* the receiver's window */
	LIMIT_SNDBUF,		/* the sender's socket buffer */
	LIMIT_NETWORK,		/* congestion control / the network */
	LIMIT_APP,		/* the sender was idle: pacing or CPU */
};
/* tputstat_limit decides what limited a sender from TCP_INFO's cumulative
 * busy / rwnd-limited / sndbuf-limited times over wall_us of sending. */
enum limit tputstat_limit(uint64_t busy_us, uint64_t rwnd_us,
    uint64_t sndbuf_us, uint64_t wall_us);
const char *tputstat_limit_name(enum limit);	/* "receiver window", ... */
const char *tputstat_limit_key(enum limit);	/* "rwnd", ... for JSON */

/* Jain's fairness index of n values: (sum x)^2 / (n * sum x^2), 1 when all
 * equal, 1/n when one value has everything. 1 for n == 0 or all zero. */
double tputstat_jain(const double *x, int n);

/* UDP receive accounting for one stream. Sequence numbers start at 0. */
#define UDP_DUP_WINDOW 8192	/* seqs remembered for duplicate detection */
struct udp_rx {
	bool any;
	uint64_t max_seq;
	uint64_t unique;		/* distinct datagrams received */
	uint64_t dups;
	uint64_t reordered;		/* arrived after a higher seq */
	uint64_t late;			/* older than the window */
	double jitter_ns;		/* RFC 3550 estimate */
	int64_t last_transit;
	uint64_t bytes;
	uint64_t bits[UDP_DUP_WINDOW / 64];
};

void tputstat_udp_rx_init(struct udp_rx *u);
/* tputstat_udp_rx_packet accounts one datagram: its sequence number, the sender's
 * send time and our receive time (any clocks: only differences count). */
void tputstat_udp_rx_packet(struct udp_rx *u, uint64_t seq, int64_t tx_ns,
    int64_t rx_ns, uint32_t len);
/* Datagrams expected so far (max seq + 1) and lost (expected - unique,
 * never negative). */
uint64_t tputstat_udp_rx_expected(const struct udp_rx *u);
uint64_t tputstat_udp_rx_lost(const struct udp_rx *u);

#endif
