/* tputstat: throughput test arithmetic, see include/tputstat.h. */
#include "tputstat.h"

#include <math.h>
#include <string.h>
#include <sys/socket.h>
#include <netinet/in.h>
/* linux/tcp.h, not netinet/tcp.h: glibc's struct tcp_info lacks the
 * busy / rwnd / sndbuf-limited times. */
#include <linux/tcp.h>

int
tputstat_tcp_read(int fd, struct tcp_sample *s)
{
	struct tcp_info ti;
	socklen_t len = sizeof(ti);

	memset(&ti, 0, sizeof(ti));
	memset(s, 0, sizeof(*s));
	if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &len) == -1)
		return -1;
	/* Older kernels return a shorter struct; the rest stays zero. */
	s->bytes_acked = ti.tcpi_bytes_acked;
	s->bytes_received = ti.tcpi_bytes_received;
	s->total_retrans = ti.tcpi_total_retrans;
	s->bytes_retrans = ti.tcpi_bytes_retrans;
	s->busy_us = ti.tcpi_busy_time;
	s->rwnd_us = ti.tcpi_rwnd_limited;
	s->sndbuf_us = ti.tcpi_sndbuf_limited;
	s->delivery_rate = ti.tcpi_delivery_rate;
	s->snd_cwnd = ti.tcpi_snd_cwnd;
	s->snd_mss = ti.tcpi_snd_mss;
	s->rtt_us = ti.tcpi_rtt;
	s->rttvar_us = ti.tcpi_rttvar;
	s->reordering = ti.tcpi_reordering;
	s->reord_seen = ti.tcpi_reord_seen;
	s->pmtu = ti.tcpi_pmtu;
	s->rcv_space = ti.tcpi_rcv_space;
	s->lost = ti.tcpi_lost;
	s->rcv_ooopack = ti.tcpi_rcv_ooopack;
	s->dsack_dups = ti.tcpi_dsack_dups;
	return 0;
}

static uint64_t
tputstat_sub(uint64_t cur, uint64_t prev)
{
	return cur >= prev ? cur - prev : cur;
}

void
tputstat_tcp_delta(const struct tcp_sample *prev, const struct tcp_sample *cur,
    struct tcp_delta *d)
{
	static const struct tcp_sample zero;

	if (prev == NULL)
		prev = &zero;
	d->retrans = tputstat_sub(cur->total_retrans, prev->total_retrans);
	d->busy_us = tputstat_sub(cur->busy_us, prev->busy_us);
	d->rwnd_us = tputstat_sub(cur->rwnd_us, prev->rwnd_us);
	d->sndbuf_us = tputstat_sub(cur->sndbuf_us, prev->sndbuf_us);
	d->reord_seen = tputstat_sub(cur->reord_seen, prev->reord_seen);
	d->dsack_dups = tputstat_sub(cur->dsack_dups, prev->dsack_dups);
}

cJSON *
tputstat_tcp_json(const struct tcp_sample *s, const struct tcp_delta *d)
{
	cJSON *o = cJSON_CreateObject();

	if (o == NULL)
		return NULL;
	cJSON_AddNumberToObject(o, "snd_cwnd", s->snd_cwnd);
	cJSON_AddNumberToObject(o, "snd_mss", s->snd_mss);
	cJSON_AddNumberToObject(o, "rtt_us", s->rtt_us);
	cJSON_AddNumberToObject(o, "rttvar_us", s->rttvar_us);
	cJSON_AddNumberToObject(o, "reordering", s->reordering);
	cJSON_AddNumberToObject(o, "pmtu", s->pmtu);
	cJSON_AddNumberToObject(o, "delivery_rate_bps",
	    (double)s->delivery_rate * 8);
	cJSON_AddNumberToObject(o, "total_retrans", (double)s->total_retrans);
	cJSON_AddNumberToObject(o, "bytes_retrans", (double)s->bytes_retrans);
	cJSON_AddNumberToObject(o, "busy_us", (double)s->busy_us);
	cJSON_AddNumberToObject(o, "rwnd_limited_us", (double)s->rwnd_us);
	cJSON_AddNumberToObject(o, "sndbuf_limited_us", (double)s->sndbuf_us);
	cJSON_AddNumberToObject(o, "reord_seen", s->reord_seen);
	cJSON_AddNumberToObject(o, "rcv_ooopack", s->rcv_ooopack);
	cJSON_AddNumberToObject(o, "dsack_dups", s->dsack_dups);
	if (d != NULL) {
		cJSON_AddNumberToObject(o, "retransmits", (double)d->retrans);
		cJSON_AddNumberToObject(o, "spurious_retransmits",
		    (double)d->dsack_dups);
		cJSON_AddNumberToObject(o, "interval_busy_us",
		    (double)d->busy_us);
		cJSON_AddNumberToObject(o, "interval_rwnd_limited_us",
		    (double)d->rwnd_us);
		cJSON_AddNumberToObject(o, "interval_sndbuf_limited_us",
		    (double)d->sndbuf_us);
	}
	return o;
}

enum limit
tputstat_limit(uint64_t busy_us, uint64_t rwnd_us, uint64_t sndbuf_us,
    uint64_t wall_us)
{
	if (wall_us < 100000 || busy_us == 0)
		return LIMIT_NONE;
	/* A share of the busy time above 20 % is the dominant limit; the
	 * kernel counts these only while the sender has data queued. */
	if (rwnd_us * 5 > busy_us && rwnd_us >= sndbuf_us)
		return LIMIT_RWND;
	if (sndbuf_us * 5 > busy_us)
		return LIMIT_SNDBUF;
	/* Busy for less than half the time: the sender had nothing to send
	 * (pacing, --rate, or it could not keep up). */
	if (busy_us * 2 < wall_us)
		return LIMIT_APP;
	return LIMIT_NETWORK;
}

const char *
tputstat_limit_name(enum limit l)
{
	switch (l) {
	case LIMIT_RWND: return "receiver window";
	case LIMIT_SNDBUF: return "send buffer";
	case LIMIT_NETWORK: return "congestion/network";
	case LIMIT_APP: return "sender idle (pacing or CPU)";
	default: return "not enough data";
	}
}

const char *
tputstat_limit_key(enum limit l)
{
	switch (l) {
	case LIMIT_RWND: return "rwnd";
	case LIMIT_SNDBUF: return "sndbuf";
	case LIMIT_NETWORK: return "network";
	case LIMIT_APP: return "app";
	default: return "unknown";
	}
}

double
tputstat_jain(const double *x, int n)
{
	double s = 0, s2 = 0;
	int i;

	for (i = 0; i < n; i++) {
		s += x[i];
		s2 += x[i] * x[i];
	}
	if (n == 0 || s2 == 0)
		return 1.0;
	return s * s / (n * s2);
}

void
tputstat_udp_rx_init(struct udp_rx *u)
{
	memset(u, 0, sizeof(*u));
}

static int
tputstat_udp_bit(struct udp_rx *u, uint64_t seq, int set)
{
	uint64_t i = seq % UDP_DUP_WINDOW;
	uint64_t m = 1ull << (i % 64);
	int was = (u->bits[i / 64] & m) != 0;

	if (set)
		u->bits[i / 64] |= m;
	else
		u->bits[i / 64] &= ~m;
	return was;
}

void
tputstat_udp_rx_packet(struct udp_rx *u, uint64_t seq, int64_t tx_ns, int64_t rx_ns,
    uint32_t len)
{
	int64_t transit = rx_ns - tx_ns, d;
	uint64_t s;

	if (!u->any) {
		u->any = true;
		u->max_seq = seq;
		tputstat_udp_bit(u, seq, 1);
		u->unique++;
		u->bytes += len;
		u->last_transit = transit;
		return;
	}
	if (seq > u->max_seq) {
		/* Forget the window slots the new maximum moves past. */
		if (seq - u->max_seq >= UDP_DUP_WINDOW)
			memset(u->bits, 0, sizeof(u->bits));
		else
			for (s = u->max_seq + 1; s < seq; s++)
				tputstat_udp_bit(u, s, 0);
		u->max_seq = seq;
		tputstat_udp_bit(u, seq, 1);
	} else if (u->max_seq - seq >= UDP_DUP_WINDOW) {
		/* Too old to tell a duplicate: count it as late. */
		u->late++;
		u->reordered++;
	} else if (tputstat_udp_bit(u, seq, 1)) {
		u->dups++;
		return;
	} else {
		u->reordered++;
	}
	u->unique++;
	u->bytes += len;
	/* RFC 3550 section 6.4.1: J += (|D| - J) / 16. */
	d = transit - u->last_transit;
	if (d < 0)
		d = -d;
	u->jitter_ns += ((double)d - u->jitter_ns) / 16.0;
	u->last_transit = transit;
}

uint64_t
tputstat_udp_rx_expected(const struct udp_rx *u)
{
	return u->any ? u->max_seq + 1 : 0;
}

uint64_t
tputstat_udp_rx_lost(const struct udp_rx *u)
{
	uint64_t e = tputstat_udp_rx_expected(u);

	return e > u->unique ? e - u->unique : 0;
}
