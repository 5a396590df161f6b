/* analyzer: Wireshark-compatible TCP analysis, see analyzer.h. */
#include "capture/analyzer.h"
#include "probes/trace.h"

#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#define TH_FIN 0x01
#define TH_SYN 0x02
#define TH_RST 0x04
#define TH_ACK 0x10

/* Analysis flags (what this segment was found to be). */
#define A_ZWP 0x01
#define A_KEEPALIVE 0x02
#define A_RETRANS 0x04
#define A_FAST 0x08
#define A_SPURIOUS 0x10
#define A_OOO 0x20

#define LT_SEQ(a, b) ((int32_t)((a) - (b)) < 0)
#define GT_SEQ(a, b) ((int32_t)((b) - (a)) < 0)
#define LE_SEQ(a, b) ((int32_t)((a) - (b)) <= 0)

/* DLTs, without pulling pcap.h into the analyzer. */
#define DLT_NULL_ 0
#define DLT_EN10MB_ 1
#define DLT_RAW_ 12
#define DLT_RAW2_ 101
#define DLT_LINUX_SLL_ 113
#define DLT_LINUX_SLL2_ 276

struct seg {
	struct netaddr src, dst;
	uint16_t sport, dport;
	uint32_t seq, ack, window, seglen;
	uint8_t flags;
	bool has_ts;
	uint32_t tsval, tsecr;
	bool tracer;		/* our path tracer's probe (trace.h) */
};

int
analyzer_init(struct analyzer *t, unsigned cap)
{
	memset(t, 0, sizeof(*t));
	t->cap = cap ? cap : ANALYZER_DEFAULT_FLOWS;
	if (t->cap > ANALYZER_MAX_FLOWS)
		t->cap = ANALYZER_MAX_FLOWS;
	if (getrandom(t->key, sizeof(t->key), 0) != (ssize_t)sizeof(t->key))
		return -1;
	/* About two buckets per flow, a power of two. */
	for (t->nbuckets = 64; t->nbuckets < 2 * t->cap; t->nbuckets *= 2)
		;
	t->buckets = calloc(t->nbuckets, sizeof(*t->buckets));
	TAILQ_INIT(&t->lru);
	return t->buckets ? 0 : -1;
}

void
analyzer_free(struct analyzer *t)
{
	struct analyzer_flow *f;

	while ((f = TAILQ_FIRST(&t->lru)) != NULL) {
		TAILQ_REMOVE(&t->lru, f, lru);
		free(f);
	}
	free(t->buckets);
	t->buckets = NULL;
}

static uint32_t
mix(uint32_t h, const void *p, size_t n)
{
	const uint8_t *b = p;
	size_t i;

	for (i = 0; i < n; i++)
		h = (h ^ b[i]) * 16777619u;
	return h;
}

/* ep_less: a canonical order of two endpoints, so that both directions
 * hash the same. */
static bool
ep_less(const struct netaddr *a, uint16_t ap, const struct netaddr *b,
    uint16_t bp)
{
	int c = a->family != b->family ? a->family - b->family :
	    memcmp(&a->u, &b->u, a->family == AF_INET ? 4 : 16);

	return c < 0 || (c == 0 && ap < bp);
}

/* analyzer_hash: FNV-1a over the endpoints in canonical order, started
 * from a random key and finished with murmur3's avalanche and the second
 * key: without the key a sender could pick ports that all land in one
 * bucket (the old XOR of each end's hash also sent every flow between
 * one address and port pair to bucket 0). */
uint32_t
analyzer_hash(const struct analyzer *t, const struct netaddr *a, uint16_t ap,
    const struct netaddr *b, uint16_t bp)
{
	size_t alen = a->family == AF_INET ? 4 : 16;
	uint32_t h = 2166136261u ^ t->key[0];

	if (!ep_less(a, ap, b, bp)) {
		const struct netaddr *x = a;
		uint16_t xp = ap;

		a = b, ap = bp, b = x, bp = xp;
	}
	h = mix(h, &a->u, alen);
	h = mix(h, &ap, sizeof(ap));
	h = mix(h, &b->u, alen);
	h = mix(h, &bp, sizeof(bp));
	h ^= t->key[1];
	h ^= h >> 16;
	h *= 0x85ebca6bu;
	h ^= h >> 13;
	h *= 0xc2b2ae35u;
	h ^= h >> 16;
	return h;
}

static uint32_t
flow_hash(const struct analyzer *t, const struct seg *s)
{
	return analyzer_hash(t, &s->src, s->sport, &s->dst, s->dport);
}

static void
unlink_bucket(struct analyzer *t, struct analyzer_flow *f)
{
	struct analyzer_flow **pp = &t->buckets[f->hash & (t->nbuckets - 1)];

	while (*pp && *pp != f)
		pp = &(*pp)->hnext;
	if (*pp)
		*pp = f->hnext;
}

static struct analyzer_flow *
flow_get(struct analyzer *t, const struct seg *s, int64_t ts, int *dir)
{
	uint32_t h = flow_hash(t, s);
	struct analyzer_flow *f;

	for (f = t->buckets[h & (t->nbuckets - 1)]; f; f = f->hnext) {
		if (f->hash != h)
			continue;
		if (f->port[0] == s->sport && f->port[1] == s->dport &&
		    netaddr_equal(&f->addr[0], &s->src) &&
		    netaddr_equal(&f->addr[1], &s->dst)) {
			*dir = 0;
			break;
		}
		if (f->port[1] == s->sport && f->port[0] == s->dport &&
		    netaddr_equal(&f->addr[1], &s->src) &&
		    netaddr_equal(&f->addr[0], &s->dst)) {
			*dir = 1;
			break;
		}
	}
	if (f) {
		TAILQ_REMOVE(&t->lru, f, lru);
		TAILQ_INSERT_HEAD(&t->lru, f, lru);
		return f;
	}
	if (t->nflows >= t->cap) {
		/* Full: the least recently seen flow makes room. */
		f = TAILQ_LAST(&t->lru, analyzer_lru);
		TAILQ_REMOVE(&t->lru, f, lru);
		unlink_bucket(t, f);
		free(f);
		t->nflows--;
		t->evicted++;
	}
	f = calloc(1, sizeof(*f));
	if (f == NULL)
		return NULL;
	f->hash = h;
	f->addr[0] = s->src;
	f->addr[1] = s->dst;
	f->port[0] = s->sport;
	f->port[1] = s->dport;
	f->d[0].window = f->d[1].window = UINT32_MAX;
	f->first = ts;
	f->hnext = t->buckets[h & (t->nbuckets - 1)];
	t->buckets[h & (t->nbuckets - 1)] = f;
	TAILQ_INSERT_HEAD(&t->lru, f, lru);
	t->nflows++;
	*dir = 0;
	return f;
}

/* analyze: one segment of direction fw (rv the other way), in the order
 * and with the conditions of Wireshark's tcp_analyze_sequence_number. */
static uint32_t
analyze(struct analyzer_flow *f, struct analyzer_dir *fw, struct analyzer_dir *rv,
    const struct seg *s, int64_t ts)
{
	uint32_t a = 0, nextseq;
	bool not_adv;

	fw->base_set = true;
	/* Zero window probe: one byte at the next sequence into a zero
	 * window; it skips the checks up to the retransmission ones. */
	if (s->seglen == 1 && s->seq == fw->nextseq && rv->window == 0) {
		a |= A_ZWP;
		goto finished_fwd;
	}
	if (s->window == 0 && !(s->flags & (TH_RST | TH_FIN | TH_SYN)))
		fw->c.zero_window++;
	if ((s->seglen == 0 || s->seglen == 1) &&
	    s->seq == fw->nextseq - 1 &&
	    !(s->flags & (TH_SYN | TH_FIN | TH_RST))) {
		a |= A_KEEPALIVE;
		fw->c.keepalives++;
	}
	/* Keep-alive ACK and zero window probe ACK end the checks. */
	if (s->seglen == 0 && s->window == fw->window &&
	    s->seq == fw->nextseq && s->ack == fw->lastack &&
	    !(s->flags & (TH_SYN | TH_FIN | TH_RST)) &&
	    (((rv->lastflags & A_KEEPALIVE) && s->window) ||
	    ((rv->lastflags & A_ZWP) && s->window == 0)))
		goto finished_fwd;
	if (s->seglen == 0 && s->window && s->window == fw->window &&
	    s->seq == fw->nextseq && s->ack == fw->lastack &&
	    !(s->flags & (TH_SYN | TH_FIN | TH_RST))) {
		fw->dupacknum = fw->dupacknum < 0 ? 1 : fw->dupacknum + 1;
		fw->c.dup_acks++;
	}
finished_fwd:
	if (s->ack != fw->lastack)
		fw->dupacknum = 0;
	if (s->seglen > 0 || (s->flags & (TH_SYN | TH_FIN))) {
		not_adv = fw->nextseq && LT_SEQ(s->seq, fw->nextseq);
		if (a & A_KEEPALIVE)
			goto finished_retrans;
		/* New data one byte below nextseq: after a zero window
		 * probe, not a retransmission. */
		if (s->seglen > 1 && fw->nextseq - 1 == s->seq)
			not_adv = false;
		if (s->seglen > 0 && rv->lastack &&
		    LE_SEQ(s->seq + s->seglen, rv->lastack)) {
			a |= A_SPURIOUS;
			goto finished_retrans;
		}
		if (not_adv && rv->dupacknum >= 2 && rv->lastack == s->seq &&
		    ts - rv->lastacktime < 20000000) {
			a |= A_FAST;
			goto finished_retrans;
		}
		if (not_adv && ts - fw->nextseqtime < (f->hs_rtt > 0 ?
		    f->hs_rtt : 3000000) && fw->nextseq != s->seq + s->seglen +
		    ((s->flags & (TH_SYN | TH_FIN)) ? 1 : 0)) {
			a |= A_OOO;
			goto finished_retrans;
		}
		if (not_adv)
			a |= A_RETRANS;
	}
finished_retrans:
	if (a & (A_RETRANS | A_FAST | A_SPURIOUS))
		fw->c.retrans++;
	if (a & A_FAST)
		fw->c.fast_retrans++;
	if (a & A_SPURIOUS)
		fw->c.spurious++;
	if (a & A_OOO)
		fw->c.ooo++;
	nextseq = s->seq + s->seglen + ((s->flags & (TH_SYN | TH_FIN)) ? 1 :
	    0);
	/* A zero window probe does not advance the next sequence. */
	if ((GT_SEQ(nextseq, fw->nextseq) || !fw->nextseq) && !(a & A_ZWP)) {
		fw->nextseq = nextseq;
		fw->nextseqtime = ts;
	}
	fw->window = s->window;
	fw->lastack = s->ack;
	fw->lastacktime = ts;
	fw->lastflags = a;
	return a;
}

/* parse_tcp fills s from the TCP header at p (caplen bytes there), with
 * tcplen the TCP length the IP header gives. */
static int
parse_tcp(struct seg *s, const uint8_t *p, size_t caplen, uint32_t tcplen)
{
	size_t hl, i;

	if (caplen < 20)
		return -1;
	hl = (size_t)(p[12] >> 4) * 4;
	if (hl < 20 || tcplen < hl)
		return -1;
	s->sport = (uint16_t)(p[0] << 8 | p[1]);
	s->dport = (uint16_t)(p[2] << 8 | p[3]);
	s->seq = (uint32_t)p[4] << 24 | (uint32_t)p[5] << 16 |
	    (uint32_t)p[6] << 8 | p[7];
	s->ack = (uint32_t)p[8] << 24 | (uint32_t)p[9] << 16 |
	    (uint32_t)p[10] << 8 | p[11];
	s->flags = p[13];
	s->window = (uint32_t)(p[14] << 8 | p[15]);
	s->seglen = tcplen - (uint32_t)hl;
	/* Options, as far as captured: only the timestamps matter. */
	for (i = 20; i < hl && i < caplen;) {
		uint8_t kind = p[i], olen;

		if (kind == 0)
			break;
		if (kind == 1) {
			i++;
			continue;
		}
		if (i + 1 >= caplen || (olen = p[i + 1]) < 2 || i + olen > hl ||
		    i + olen > caplen)
			break;
		if (kind == TRACE_OPT_KIND && olen == 4 &&
		    (p[i + 2] << 8 | p[i + 3]) == TRACE_OPT_EXID)
			s->tracer = true;
		if (kind == 8 && olen == 10) {
			s->has_ts = true;
			memcpy(&s->tsval, p + i + 2, 4);
			memcpy(&s->tsecr, p + i + 6, 4);
			s->tsval = ntohl(s->tsval);
			s->tsecr = ntohl(s->tsecr);
		}
		i += olen;
	}
	return 0;
}

static void
rtt_sample(struct analyzer_dir *d, int64_t ns)
{
	double r = (double)ns / 1e9;

	if (ns < 0)
		return;
	d->c.rtt_n++;
	d->c.rtt_sum += r;
	if (r > d->c.rtt_max)
		d->c.rtt_max = r;
}

/* seq_rtt: RTT from sequence numbers when there are no timestamps. A
 * segment that advanced the sequence is remembered by its end; the first
 * ACK the other way that covers it gives a sample, unless it was
 * retransmitted meanwhile (Karn's rule: ambiguous). */
static void
seq_rtt(struct analyzer_dir *fw, struct analyzer_dir *rv, const struct seg *s,
    int64_t ts, uint32_t aflags)
{
	int i;

	if (fw->has_ts || rv->has_ts)
		return;
	if ((s->flags & TH_ACK) && !(s->flags & TH_SYN)) {
		for (i = 0; i < ANALYZER_SQ_RING; i++) {
			if (rv->sqtime[i] == 0 || LT_SEQ(s->ack, rv->sqend[i]))
				continue;
			rtt_sample(rv, ts - rv->sqtime[i]);
			rv->sqtime[i] = 0;
		}
	}
	if (aflags & (A_RETRANS | A_FAST | A_SPURIOUS | A_OOO)) {
		/* What was in flight is now ambiguous. */
		for (i = 0; i < ANALYZER_SQ_RING; i++)
			fw->sqtime[i] = 0;
		return;
	}
	if (s->seglen > 0) {
		fw->sqend[fw->sqi] = s->seq + s->seglen;
		fw->sqtime[fw->sqi] = ts;
		fw->sqi = (fw->sqi + 1) % ANALYZER_SQ_RING;
	}
}

static void
ts_rtt(struct analyzer_dir *fw, struct analyzer_dir *rv, const struct seg *s,
    int64_t ts)
{
	int i;

	if (!s->has_ts)
		return;
	fw->has_ts = true;
	/* Our TSecr echoes a TSval the other side sent: that long ago. */
	if ((s->flags & TH_ACK) && s->tsecr) {
		for (i = 0; i < ANALYZER_TS_RING; i++) {
			if (rv->tsval[i] != s->tsecr || rv->tstime[i] == 0)
				continue;
			rtt_sample(rv, ts - rv->tstime[i]);
			rv->tstime[i] = 0;	/* one sample per TSval */
			break;
		}
	}
	/* A new TSval: remember when it was first sent. */
	i = (fw->tsi + ANALYZER_TS_RING - 1) % ANALYZER_TS_RING;
	if (fw->tsval[i] != s->tsval || fw->tstime[i] == 0) {
		if (fw->tsval[i] == s->tsval)
			return;		/* already echoed */
		fw->tsval[fw->tsi] = s->tsval;
		fw->tstime[fw->tsi] = ts;
		fw->tsi = (fw->tsi + 1) % ANALYZER_TS_RING;
	}
}

struct analyzer_flow *
analyzer_packet(struct analyzer *t, int64_t ts, const uint8_t *ip, size_t len)
{
	struct seg s;
	struct analyzer_flow *f;
	int dir;
	uint32_t a;
	struct analyzer_dir *fw, *rv;

	t->packets++;
	memset(&s, 0, sizeof(s));
	if (len >= 20 && (ip[0] >> 4) == 4) {
		size_t ihl = (size_t)(ip[0] & 15) * 4;
		uint32_t tot = (uint32_t)(ip[2] << 8 | ip[3]);

		if (ip[9] != IPPROTO_TCP || ((ip[6] & 0x1f) | ip[7]) != 0) {
			t->non_tcp++;
			return NULL;	/* not TCP, or not the first fragment */
		}
		if (ihl < 20 || tot < ihl || len < ihl) {
			t->truncated++;
			return NULL;
		}
		s.src.family = s.dst.family = AF_INET;
		memcpy(&s.src.u, ip + 12, 4);
		memcpy(&s.dst.u, ip + 16, 4);
		if (parse_tcp(&s, ip + ihl, len - ihl, tot - (uint32_t)ihl) ==
		    -1) {
			t->truncated++;
			return NULL;
		}
	} else if (len >= 40 && (ip[0] >> 4) == 6) {
		uint32_t plen = (uint32_t)(ip[4] << 8 | ip[5]);

		if (ip[6] != IPPROTO_TCP) {
			t->non_tcp++;
			return NULL;	/* extension headers: not followed */
		}
		s.src.family = s.dst.family = AF_INET6;
		memcpy(&s.src.u, ip + 8, 16);
		memcpy(&s.dst.u, ip + 24, 16);
		if (parse_tcp(&s, ip + 40, len - 40, plen) == -1) {
			t->truncated++;
			return NULL;
		}
	} else {
		t->non_tcp++;
		return NULL;
	}
	/* The tracer's TTL-limited probes share the flow's 5-tuple but not
	 * its sequence space: never the flow's segments, retransmissions
	 * or out-of-order, never its next sequence. */
	if (s.tracer) {
		t->tracer++;
		return NULL;
	}
	if ((f = flow_get(t, &s, ts, &dir)) == NULL)
		return NULL;
	/* A new connection on the same ports after the old one closed. */
	if ((s.flags & (TH_SYN | TH_ACK)) == TH_SYN && (f->d[0].c.rsts ||
	    f->d[1].c.rsts) && f->d[dir].nextseq != s.seq + 1) {
		memset(f->d, 0, sizeof(f->d));
		f->d[0].window = f->d[1].window = UINT32_MAX;
		f->hs_rtt = f->mru_syn = 0;
	}
	fw = &f->d[dir];
	rv = &f->d[!dir];
	f->last = ts;
	fw->c.segments++;
	fw->c.bytes += s.seglen;
	if (s.flags & TH_RST)
		fw->c.rsts++;
	/* Handshake RTT: the latest SYN to the first pure ACK after it. */
	if ((s.flags & (TH_SYN | TH_ACK)) == TH_SYN)
		f->mru_syn = ts;
	else if ((s.flags & (TH_SYN | TH_ACK)) == TH_ACK && f->mru_syn > 0 &&
	    f->hs_rtt == 0)
		f->hs_rtt = ts - f->mru_syn > 0 ? ts - f->mru_syn : 1;
	a = analyze(f, fw, rv, &s, ts);
	ts_rtt(fw, rv, &s, ts);
	seq_rtt(fw, rv, &s, ts, a);
	return f;
}

struct analyzer_flow *
analyzer_frame(struct analyzer *t, int dlt, int64_t ts, const uint8_t *p, size_t len)
{
	size_t off;
	uint16_t et;

	switch (dlt) {
	case DLT_EN10MB_:
		if (len < 14)
			return NULL;
		et = (uint16_t)(p[12] << 8 | p[13]);
		off = 14;
		while ((et == 0x8100 || et == 0x88a8) && len >= off + 4) {
			et = (uint16_t)(p[off + 2] << 8 | p[off + 3]);
			off += 4;
		}
		break;
	case DLT_LINUX_SLL_:
		if (len < 16)
			return NULL;
		et = (uint16_t)(p[14] << 8 | p[15]);
		off = 16;
		break;
	case DLT_LINUX_SLL2_:
		if (len < 20)
			return NULL;
		et = (uint16_t)(p[0] << 8 | p[1]);
		off = 20;
		break;
	case DLT_NULL_:
		off = 4;
		et = 0x0800;
		break;
	case DLT_RAW_:
	case DLT_RAW2_:
		off = 0;
		et = 0x0800;
		break;
	default:
		return NULL;
	}
	if (et != 0x0800 && et != 0x86dd) {
		t->packets++;
		t->non_tcp++;
		return NULL;
	}
	if (len < off) {
		t->packets++;
		t->truncated++;
		return NULL;
	}
	return analyzer_packet(t, ts, p + off, len - off);
}

void
analyzer_add(struct analyzer_counts *sum, const struct analyzer_counts *c)
{
	sum->segments += c->segments;
	sum->bytes += c->bytes;
	sum->retrans += c->retrans;
	sum->fast_retrans += c->fast_retrans;
	sum->spurious += c->spurious;
	sum->ooo += c->ooo;
	sum->zero_window += c->zero_window;
	sum->dup_acks += c->dup_acks;
	sum->rsts += c->rsts;
	sum->keepalives += c->keepalives;
	sum->rtt_n += c->rtt_n;
	sum->rtt_sum += c->rtt_sum;
	if (c->rtt_max > sum->rtt_max)
		sum->rtt_max = c->rtt_max;
}

cJSON *
analyzer_counts_json(const struct analyzer_counts *c)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddNumberToObject(o, "segments", (double)c->segments);
	cJSON_AddNumberToObject(o, "bytes", (double)c->bytes);
	cJSON_AddNumberToObject(o, "retransmissions", (double)c->retrans);
	cJSON_AddNumberToObject(o, "fast_retransmissions",
	    (double)c->fast_retrans);
	cJSON_AddNumberToObject(o, "spurious_retransmissions",
	    (double)c->spurious);
	cJSON_AddNumberToObject(o, "out_of_order", (double)c->ooo);
	cJSON_AddNumberToObject(o, "zero_windows", (double)c->zero_window);
	cJSON_AddNumberToObject(o, "duplicate_acks", (double)c->dup_acks);
	cJSON_AddNumberToObject(o, "rsts", (double)c->rsts);
	cJSON_AddNumberToObject(o, "retrans_pct", c->segments ?
	    100.0 * (double)c->retrans / (double)c->segments : 0);
	if (c->rtt_n) {
		cJSON_AddNumberToObject(o, "rtt_mean_us", c->rtt_sum /
		    (double)c->rtt_n * 1e6);
		cJSON_AddNumberToObject(o, "rtt_max_us", c->rtt_max * 1e6);
		cJSON_AddNumberToObject(o, "rtt_samples", (double)c->rtt_n);
	}
	return o;
}

cJSON *
analyzer_flow_json(const struct analyzer_flow *f)
{
	cJSON *o = cJSON_CreateObject();
	char a[NETADDR_STRLEN + 8];

	netaddr_endpoint_str(&f->addr[0], f->port[0], a, sizeof(a));
	cJSON_AddStringToObject(o, "a", a);
	netaddr_endpoint_str(&f->addr[1], f->port[1], a, sizeof(a));
	cJSON_AddStringToObject(o, "b", a);
	if (f->hs_rtt > 0)
		cJSON_AddNumberToObject(o, "handshake_rtt_us", f->hs_rtt * 1e6);
	cJSON_AddItemToObject(o, "a_to_b", analyzer_counts_json(&f->d[0].c));
	cJSON_AddItemToObject(o, "b_to_a", analyzer_counts_json(&f->d[1].c));
	return o;
}

#define RING_MIN (16u << 20)
#define RING_MAX (128u << 20)
/* TPACKET_V3's header per frame, rounded up, and the frame that sizes a
 * link: bulk Ceph traffic is full-size segments (GRO off the wire splits
 * back to this on capture). */
#define RING_FRAME_OVERHEAD 48
#define RING_WIRE_FRAME 1538	/* 1500 + Ethernet, FCS, preamble, gap */

size_t
analyzer_ring_bytes(long speed_mbps, unsigned snaplen)
{
	double pps, b;

	if (speed_mbps <= 0)
		return RING_MIN;
	pps = (double)speed_mbps * 1e6 / 8 / RING_WIRE_FRAME;
	b = pps * (snaplen + RING_FRAME_OVERHEAD) * 0.2;
	if (b < RING_MIN)
		return RING_MIN;
	if (b > RING_MAX)
		return RING_MAX;
	return (size_t)b;
}
