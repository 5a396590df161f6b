/*
 * pair_result: what agents reported about a throughput test, merged into one
 * result tree (start, intervals, end: iperf3's shape, with both ends of
 * every stream) and a human report in iperf3's style.
 */
#include "probes/probes.h"
#include "facts/topology.h"
#include "core/core.h"
#include "json.h"
#include "units.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const char *
dir_name(const struct tresult *r, bool a_sends, char *buf, size_t sz)
{
	snprintf(buf, sz, "%s->%s", a_sends ? r->ha->name : r->hb->name,
	    a_sends ? r->hb->name : r->ha->name);
	return buf;
}

/* Which directions this test has: 1 = A->B, 2 = B->A, 3 = both. */
static int
dirs(const struct tresult *r)
{
	uint32_t i;
	int d = 0;

	for (i = 0; i < r->n; i++)
		d |= r->st[i].a_sends ? 1 : 2;
	return d;
}

void
pair_result_header(const struct tresult *r)
{
	const struct pair_opts *o = r->o;

	printf("cephfab pair: %s %s -> %s %s%s on the %s network, %s, %u "
	    "stream%s, %.0f s\n", r->ha->name, r->addr_a, r->hb->name,
	    r->addr_b, o->bidir ? " (both ways)" : o->reverse ?
	    " (reverse: B sends)" : "", o->net == NET_CLUSTER ? "cluster" :
	    "public", o->udp ? "UDP" : "TCP", o->streams,
	    o->streams == 1 ? "" : "s", o->duration);
	printf("[ ID] %-18s %-12s %-16s %s\n", "Interval", "Transfer",
	    "Bitrate", o->udp ? "Lost/Total  Jitter" : "Retr  RTT");
	fflush(stdout);
}

struct isum {
	double bytes, bps, retr, spur, rtt_sum, rtt_n, lost, expected, jitter;
	double sbytes, sbps;	/* the senders' view */
	int rcv;		/* receivers reported */
};

/* pair_result_stream_entries walks one side's INTERVAL streams, adding each to
 * the merged stream objects and the per-direction sums. */
static void
pair_result_side(struct tresult *r, const cJSON *body, cJSON *streams,
    struct isum sums[2])
{
	const cJSON *arr, *e;
	char err[CF_ERRLEN];
	int idx = 0;

	if (body == NULL || json_get_arr(body, "streams", 0, 2 * TPUTREQ_MAX_STREAMS,
	    &arr, NULL, err) == -1)
		return;
	cJSON_ArrayForEach(e, arr) {
		const cJSON *tcp, *udp;
		uint32_t id;
		bool sending;
		double bytes, bps, v;
		cJSON *m;
		int d;

		if (json_elem_obj(e, "streams", idx++, err) == -1 ||
		    json_get_u32(e, "id", 0, r->n - 1, &id, err) == -1 ||
		    json_get_bool(e, "sending", &sending, err) == -1 ||
		    json_get_double(e, "bytes", 0, 1e18, &bytes, err) == -1 ||
		    json_get_double(e, "bits_per_second", 0, 1e15, &bps,
		    err) == -1 || json_opt_obj(e, "tcp", &tcp, err) == -1 ||
		    json_opt_obj(e, "udp", &udp, err) == -1)
			continue;
		d = r->st[id].a_sends ? 0 : 1;
		m = cJSON_GetArrayItem(streams, (int)id);
		if (m != NULL)
			cJSON_AddItemToObject(m, sending ? "sender" :
			    "receiver", cJSON_Duplicate(e, 1));
		/* Throughput is what arrived; the senders' view stands in
		 * only when no receiver reported (see pair_result_interval). */
		if (!sending) {
			sums[d].bytes += bytes;
			sums[d].bps += bps;
			sums[d].rcv++;
		} else {
			sums[d].sbytes += bytes;
			sums[d].sbps += bps;
		}
		if (sending && tcp != NULL) {
			if (json_get_double(tcp, "retransmits", 0, 1e15, &v,
			    err) == 0)
				sums[d].retr += v;
			if (json_get_double(tcp, "spurious_retransmits", 0, 1e15,
			    &v, err) == 0)
				sums[d].spur += v;
			if (json_get_double(tcp, "rtt_us", 0, 1e9, &v, err) == 0) {
				sums[d].rtt_sum += v;
				sums[d].rtt_n++;
			}
		}
		if (!sending && udp != NULL) {
			if (json_get_double(udp, "lost", 0, 1e15, &v, err) == 0)
				sums[d].lost += v;
			if (json_get_double(udp, "expected", 0, 1e15, &v,
			    err) == 0)
				sums[d].expected += v;
			if (json_get_double(udp, "jitter_ms", 0, 1e9, &v,
			    err) == 0 && v > sums[d].jitter)
				sums[d].jitter = v;
		}
	}
}

void
pair_result_interval(struct tresult *r, const cJSON *ca, const cJSON *cb)
{
	const cJSON *any = ca ? ca : cb;
	cJSON *iv, *streams, *sum;
	struct isum sums[2];
	char err[CF_ERRLEN], tb[32], rb[32], dn[64];
	double start = 0, end = 0;
	uint32_t i, index = 0;
	int d;

	memset(sums, 0, sizeof(sums));
	if (any == NULL)
		return;
	json_get_u32(any, "index", 0, 1u << 30, &index, err);
	/* The receiving side's clock frames the interval. */
	json_get_double(any, "start", 0, 1e9, &start, err);
	json_get_double(any, "end", 0, 1e9, &end, err);
	iv = cJSON_CreateObject();
	cJSON_AddNumberToObject(iv, "index", index);
	cJSON_AddNumberToObject(iv, "start", start);
	cJSON_AddNumberToObject(iv, "end", end);
	streams = cJSON_AddArrayToObject(iv, "streams");
	for (i = 0; i < r->n; i++) {
		cJSON *m = cJSON_CreateObject();

		cJSON_AddNumberToObject(m, "id", i);
		cJSON_AddStringToObject(m, "direction",
		    dir_name(r, r->st[i].a_sends, dn, sizeof(dn)));
		cJSON_AddItemToArray(streams, m);
	}
	pair_result_side(r, ca, streams, sums);
	pair_result_side(r, cb, streams, sums);
	for (d = 0; d < 2; d++) {
		if (!(dirs(r) & (1 << d)))
			continue;
		if (sums[d].rcv == 0) {
			sums[d].bytes = sums[d].sbytes;
			sums[d].bps = sums[d].sbps;
		}
		sum = cJSON_CreateObject();
		cJSON_AddStringToObject(sum, "direction",
		    dir_name(r, d == 0, dn, sizeof(dn)));
		cJSON_AddNumberToObject(sum, "bytes", sums[d].bytes);
		cJSON_AddNumberToObject(sum, "bits_per_second", sums[d].bps);
		if (r->o->udp) {
			cJSON_AddNumberToObject(sum, "lost", sums[d].lost);
			cJSON_AddNumberToObject(sum, "expected",
			    sums[d].expected);
			cJSON_AddNumberToObject(sum, "jitter_ms",
			    sums[d].jitter);
		} else {
			cJSON_AddNumberToObject(sum, "retransmits",
			    sums[d].retr);
			cJSON_AddNumberToObject(sum, "spurious_retransmits",
			    sums[d].spur);
			if (sums[d].rtt_n)
				cJSON_AddNumberToObject(sum, "rtt_us",
				    sums[d].rtt_sum / sums[d].rtt_n);
		}
		cJSON_AddItemToObject(iv, d == 0 ? "sum" : "sum_reverse", sum);
		/* A cut path or a black hole: intervals with nothing. */
		if (sums[d].bytes == 0 && end > start) {
			r->zero_run[d] += end - start;
			if (r->zero_run[d] > r->zero_max[d])
				r->zero_max[d] = r->zero_run[d];
		} else {
			r->zero_run[d] = 0;
		}
		if (r->o->json)
			continue;
		units_fmt_bytes(sums[d].bytes, tb, sizeof(tb));
		units_fmt_rate(sums[d].bps, rb, sizeof(rb));
		if (r->o->udp)
			printf("[%s] %6.2f-%-6.2f sec %12s %16s %.0f/%.0f "
			    "(%.2g%%)  %.3f ms\n", dirs(r) == 3 ? (d ? "B>A" :
			    "A>B") : "SUM", start, end, tb, rb, sums[d].lost,
			    sums[d].expected, sums[d].expected > 0 ?
			    100 * sums[d].lost / sums[d].expected : 0,
			    sums[d].jitter);
		else
			printf("[%s] %6.2f-%-6.2f sec %12s %16s %4.0f  %.2f "
			    "ms\n", dirs(r) == 3 ? (d ? "B>A" : "A>B") : "SUM",
			    start, end, tb, rb, sums[d].retr, sums[d].rtt_n ?
			    sums[d].rtt_sum / sums[d].rtt_n / 1000 : 0);
	}
	if (!r->o->json)
		fflush(stdout);
	cJSON_AddItemToArray(r->intervals, iv);
}

static void
pair_result_tcp(const cJSON *tcp, struct sres *s)
{
	char err[CF_ERRLEN];
	double v;

	s->has_tcp = true;
#define TCPF(name, field) \
	if (json_get_double(tcp, name, 0, 1e18, &v, err) == 0) \
		s->tcp.field = (__typeof__(s->tcp.field))v;
	TCPF("total_retrans", total_retrans)
	TCPF("snd_cwnd", snd_cwnd)
	TCPF("snd_mss", snd_mss)
	TCPF("rtt_us", rtt_us)
	TCPF("rttvar_us", rttvar_us)
	TCPF("busy_us", busy_us)
	TCPF("rwnd_limited_us", rwnd_us)
	TCPF("sndbuf_limited_us", sndbuf_us)
	TCPF("pmtu", pmtu)
	TCPF("reordering", reordering)
	TCPF("rcv_ooopack", rcv_ooopack)
	TCPF("dsack_dups", dsack_dups)
#undef TCPF
}

int
pair_result_end(struct tresult *r, bool side_a, const cJSON *body, char *err)
{
	const cJSON *arr, *e, *cpu, *tcp, *udp, *path;
	struct tcpu *c = side_a ? &r->cpu_a : &r->cpu_b;
	const char *msg, *lim;
	int idx = 0;

	if (json_opt_str(body, "error", 0, 512, NULL, &msg, err) == -1)
		return -1;
	if (msg != NULL && r->error[0] == '\0')
		snprintf(r->error, sizeof(r->error), "agent on %s: %s",
		    side_a ? r->ha->name : r->hb->name, msg);
	if (json_opt_obj(body, "cpu", &cpu, err) == -1)
		return -1;
	{
		const cJSON *sp;
		cJSON **dst = side_a ? &r->spread_a : &r->spread_b;

		if (json_opt_obj(body, "spread", &sp, err) == -1)
			return -1;
		if (sp != NULL && cJSON_GetObjectItem(sp, "links")) {
			cJSON *txs = topology_spread(sp, true, err), *rxs;

			if (txs == NULL)
				return -1;
			if ((rxs = topology_spread(sp, false, err)) == NULL) {
				cJSON_Delete(txs);
				return -1;
			}
			cJSON_Delete(*dst);
			*dst = cJSON_CreateObject();
			cJSON_AddItemToObject(*dst, "tx", txs);
			cJSON_AddItemToObject(*dst, "rx", rxs);
		}
	}
	if (cpu != NULL) {
		if (json_get_double(cpu, "user", 0, 1e9, &c->user, err) == -1 ||
		    json_get_double(cpu, "system", 0, 1e9, &c->sys, err) == -1 ||
		    json_get_double(cpu, "wall", 0, 1e9, &c->wall, err) == -1)
			return -1;
		c->have = true;
	}
	if (json_get_arr(body, "streams", 0, 2 * TPUTREQ_MAX_STREAMS, &arr, NULL,
	    err) == -1)
		return -1;
	cJSON_ArrayForEach(e, arr) {
		struct sres *s;
		uint32_t id;
		bool sending;

		if (json_elem_obj(e, "streams", idx++, err) == -1 ||
		    json_get_u32(e, "id", 0, r->n - 1, &id, err) == -1 ||
		    json_get_bool(e, "sending", &sending, err) == -1)
			return -1;
		/* A side's claim must match the plan: A sends on a stream
		 * only if the test says A->B for it. */
		if (sending != (r->st[id].a_sends == side_a)) {
			snprintf(err, CF_ERRLEN, "stream %u: unexpected "
			    "direction", id);
			return -1;
		}
		s = sending ? &r->st[id].snd : &r->st[id].rcv;
		/* A stream reported twice keeps the last word, not a leak. */
		cJSON_Delete(s->path);
		memset(s, 0, sizeof(*s));
		if (json_get_double(e, "bytes", 0, 1e18, &s->bytes, err) == -1 ||
		    json_get_double(e, "seconds", 0, 1e9, &s->seconds,
		    err) == -1 ||
		    json_get_double(e, "bits_per_second", 0, 1e15, &s->bps,
		    err) == -1 ||
		    json_opt_obj(e, "tcp", &tcp, err) == -1 ||
		    json_opt_obj(e, "udp", &udp, err) == -1 ||
		    json_opt_str(e, "limited_by", 1, 15, "", &lim, err) == -1 ||
		    json_opt_str(e, "error", 1, 120, "", &msg, err) == -1 ||
		    json_opt_obj(e, "path", &path, err) == -1)
			return -1;
		if (path && sending && (s->path = pair_path_decode(path,
		    err)) == NULL)
			return -1;
		s->have = true;
		snprintf(s->limited, sizeof(s->limited), "%s", lim);
		snprintf(s->error, sizeof(s->error), "%s", msg);
		if (tcp)
			pair_result_tcp(tcp, s);
		if (udp) {
			s->has_udp = true;
			json_opt_double(udp, "packets", 0, 1e18, 0, &s->packets,
			    err);
			json_opt_double(udp, "expected", 0, 1e18, 0,
			    &s->expected, err);
			json_opt_double(udp, "lost", 0, 1e18, 0, &s->lost, err);
			json_opt_double(udp, "duplicates", 0, 1e18, 0, &s->dups,
			    err);
			json_opt_double(udp, "reordered", 0, 1e18, 0,
			    &s->reordered, err);
			json_opt_double(udp, "jitter_ms", 0, 1e9, 0,
			    &s->jitter_ms, err);
			json_opt_double(udp, "sent", 0, 1e18, 0, &s->sent, err);
		}
		if (s->error[0] && r->error[0] == '\0')
			snprintf(r->error, sizeof(r->error), "agent on %s: "
			    "stream %u: %s", side_a ? r->ha->name :
			    r->hb->name, id, s->error);
	}
	return 0;
}

static cJSON *
sres_json(const struct tresult *r, const struct sres *s, bool sender)
{
	cJSON *o = cJSON_CreateObject();

	if (!s->have) {
		cJSON_AddNullToObject(o, "bytes");
		return o;
	}
	cJSON_AddNumberToObject(o, "bytes", s->bytes);
	cJSON_AddNumberToObject(o, "seconds", s->seconds);
	cJSON_AddNumberToObject(o, "bits_per_second", s->bps);
	if (s->has_tcp && sender) {
		cJSON_AddNumberToObject(o, "retransmits",
		    (double)s->tcp.total_retrans);
		cJSON_AddNumberToObject(o, "spurious_retransmits",
		    s->tcp.dsack_dups);
		cJSON_AddNumberToObject(o, "snd_cwnd", s->tcp.snd_cwnd);
		cJSON_AddNumberToObject(o, "rtt_us", s->tcp.rtt_us);
		cJSON_AddNumberToObject(o, "rttvar_us", s->tcp.rttvar_us);
		cJSON_AddNumberToObject(o, "pmtu", s->tcp.pmtu);
		cJSON_AddNumberToObject(o, "busy_us", (double)s->tcp.busy_us);
		cJSON_AddNumberToObject(o, "rwnd_limited_us",
		    (double)s->tcp.rwnd_us);
		cJSON_AddNumberToObject(o, "sndbuf_limited_us",
		    (double)s->tcp.sndbuf_us);
		if (s->limited[0])
			cJSON_AddStringToObject(o, "limited_by", s->limited);
		if (s->path)
			cJSON_AddItemToObject(o, "path", cJSON_Duplicate(
			    s->path, 1));
	} else if (s->has_tcp) {
		/* The receiver's view of loss: segments that arrived out of
		 * order, i.e. after a hole a retransmission filled. */
		cJSON_AddNumberToObject(o, "out_of_order_packets",
		    s->tcp.rcv_ooopack);
		cJSON_AddNumberToObject(o, "rtt_us", s->tcp.rtt_us);
	}
	if (s->has_udp && !sender) {
		cJSON_AddNumberToObject(o, "packets", s->packets);
		cJSON_AddNumberToObject(o, "expected", s->expected);
		cJSON_AddNumberToObject(o, "lost", s->lost);
		cJSON_AddNumberToObject(o, "lost_percent", s->expected > 0 ?
		    100 * s->lost / s->expected : 0);
		cJSON_AddNumberToObject(o, "duplicates", s->dups);
		cJSON_AddNumberToObject(o, "reordered", s->reordered);
		cJSON_AddNumberToObject(o, "jitter_ms", s->jitter_ms);
	} else if (s->has_udp) {
		cJSON_AddNumberToObject(o, "packets", s->sent);
	}
	if (s->error[0])
		cJSON_AddStringToObject(o, "error", s->error);
	(void)r;
	return o;
}

struct dsum {
	double sent, recv, bps, retr, spur, ooo, lost, expected, jitter;
	double busy, rwnd, sndbuf, wall;
	double minbps, maxbps, jain;
	uint32_t minid, maxid, n;
	uint32_t have;			/* streams either side reported */
	enum limit limit;
};

/* pair_limit_hint: what to do when an agent refused by its own limit or
 * was busy (the tool's refusal, not the network's), "" otherwise. */
static const char *
pair_limit_hint(const char *e)
{
	return strstr(e, "refused: limit max_rate") ? "; pace the test within "
	    "it: -b RATE (per stream, times -P streams)" : strstr(e,
	    "refused: limit max_streams") ? "; ask for fewer streams (-P)" :
	    strstr(e, "refused: limit max_duration") ? "; ask for a shorter "
	    "test (-t)" : strstr(e, " is running ") ? "; another coordinator's "
	    "test holds the agent: try again when it ends" : "";
}

static void
dsum_compute(const struct tresult *r, bool a_sends, struct dsum *d)
{
	double x[2 * TPUTREQ_MAX_STREAMS];
	uint32_t i;

	memset(d, 0, sizeof(*d));
	d->minbps = INFINITY;
	for (i = 0; i < r->n; i++) {
		const struct tstream *t = &r->st[i];
		double bps;

		if (t->a_sends != a_sends)
			continue;
		d->have += t->snd.have || t->rcv.have;
		d->sent += t->snd.bytes;
		d->recv += t->rcv.bytes;
		bps = t->rcv.have ? t->rcv.bps : t->snd.bps;
		d->bps += bps;
		x[d->n++] = bps;
		if (bps < d->minbps) {
			d->minbps = bps;
			d->minid = i;
		}
		if (bps > d->maxbps) {
			d->maxbps = bps;
			d->maxid = i;
		}
		d->retr += (double)t->snd.tcp.total_retrans;
		d->spur += t->snd.tcp.dsack_dups;
		d->ooo += t->rcv.tcp.rcv_ooopack;
		d->busy += (double)t->snd.tcp.busy_us;
		d->rwnd += (double)t->snd.tcp.rwnd_us;
		d->sndbuf += (double)t->snd.tcp.sndbuf_us;
		d->wall += t->snd.seconds * 1e6;
		d->lost += t->rcv.lost;
		d->expected += t->rcv.expected;
		if (t->rcv.jitter_ms > d->jitter)
			d->jitter = t->rcv.jitter_ms;
	}
	if (d->n == 0)
		d->minbps = 0;
	d->jain = tputstat_jain(x, (int)d->n);
	d->limit = tputstat_limit((uint64_t)d->busy, (uint64_t)d->rwnd,
	    (uint64_t)d->sndbuf, (uint64_t)d->wall);
	/* Paced streams that reached their --rate were held by the pacing,
	 * however busy TCP_INFO says they were (fq keeps them "busy"). */
	if (r->o->rate > 0 && d->n > 0 && d->bps >= 0.9 * (double)r->o->rate *
	    d->n)
		d->limit = LIMIT_APP;
}

static cJSON *
dsum_json(const struct tresult *r, bool a_sends, const struct dsum *d)
{
	cJSON *o = cJSON_CreateObject();
	char dn[64];

	cJSON_AddStringToObject(o, "direction", dir_name(r, a_sends, dn,
	    sizeof(dn)));
	/* No stream reported this way (the test failed first): nothing was
	 * measured, and nothing may read as a rate or as fair. */
	if (d->have == 0) {
		static const char *const keys[] = { "sent_bytes",
		    "received_bytes", "bits_per_second", "jain_fairness",
		    "min_stream_bps", "max_stream_bps" };
		size_t k;

		for (k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
			cJSON_AddNullToObject(o, keys[k]);
		return o;
	}
	cJSON_AddNumberToObject(o, "sent_bytes", d->sent);
	cJSON_AddNumberToObject(o, "received_bytes", d->recv);
	cJSON_AddNumberToObject(o, "bits_per_second", d->bps);
	if (r->o->udp) {
		cJSON_AddNumberToObject(o, "lost", d->lost);
		cJSON_AddNumberToObject(o, "expected", d->expected);
		cJSON_AddNumberToObject(o, "lost_percent", d->expected > 0 ?
		    100 * d->lost / d->expected : 0);
		cJSON_AddNumberToObject(o, "jitter_ms", d->jitter);
	} else {
		cJSON_AddNumberToObject(o, "retransmits", d->retr);
		cJSON_AddNumberToObject(o, "retransmits_per_gb", d->sent > 0 ?
		    d->retr / (d->sent / 1e9) : 0);
		cJSON_AddNumberToObject(o, "spurious_retransmits", d->spur);
		cJSON_AddNumberToObject(o, "loss_retransmits_per_gb",
		    d->sent > 0 ? fmax(d->retr - d->spur, 0) / (d->sent / 1e9) :
		    0);
		cJSON_AddNumberToObject(o, "receiver_out_of_order", d->ooo);
		cJSON_AddStringToObject(o, "limited_by",
		    tputstat_limit_key(d->limit));
		cJSON_AddNumberToObject(o, "busy_us", d->busy);
		cJSON_AddNumberToObject(o, "rwnd_limited_us", d->rwnd);
		cJSON_AddNumberToObject(o, "sndbuf_limited_us", d->sndbuf);
	}
	cJSON_AddNumberToObject(o, "jain_fairness", d->jain);
	cJSON_AddNumberToObject(o, "min_stream_bps", d->minbps);
	cJSON_AddNumberToObject(o, "min_stream", d->minid);
	cJSON_AddNumberToObject(o, "max_stream_bps", d->maxbps);
	cJSON_AddNumberToObject(o, "max_stream", d->maxid);
	return o;
}

static cJSON *
cpu_json(const struct tcpu *c)
{
	cJSON *o = cJSON_CreateObject();

	if (!c->have)
		return o;
	cJSON_AddNumberToObject(o, "user", c->user);
	cJSON_AddNumberToObject(o, "system", c->sys);
	cJSON_AddNumberToObject(o, "wall", c->wall);
	cJSON_AddNumberToObject(o, "percent", c->wall > 0 ?
	    100 * (c->user + c->sys) / c->wall : 0);
	return o;
}

/* spread_line: "paths from h1: pa 51%, pb 49%" (what it sent), with the
 * links that carried nothing. */
static void
spread_line(const char *host, const cJSON *sp)
{
	const cJSON *tx = cJSON_GetObjectItem(sp, "tx"), *l;
	char err[CF_ERRLEN];
	double paths = 0;

	if (tx == NULL || json_get_double(tx, "paths", 0, 64, &paths,
	    err) == -1 || paths < 2)
		return;
	printf("paths from %s:", host);
	cJSON_ArrayForEach(l, cJSON_GetObjectItem(tx, "links")) {
		const char *nm = "?";
		double sh = 0;

		json_get_str(l, "name", 0, 16, &nm, err);
		json_get_double(l, "share", 0, 1, &sh, err);
		printf(" %s %.0f%%", nm, sh * 100);
	}
	if (cJSON_GetArraySize(cJSON_GetObjectItem(tx, "unused")) > 0)
		printf("  (unused: %s)", cJSON_GetArrayItem(cJSON_GetObjectItem(
		    tx, "unused"), 0)->valuestring);
	printf("\n");
}

static void
pair_result_human(struct tresult *r, const struct dsum ds[2])
{
	char tb[32], rb[32], dn[64];
	uint32_t i;
	int d;
	double moved = 0, cpu;

	printf("- - - - - - - - - - - - - - - - - - - - - - - - - - - - -\n");
	printf("[ ID] %-18s %-12s %-16s %s\n", "Interval", "Transfer",
	    "Bitrate", r->o->udp ? "Lost/Total  Jitter" : "Retr");
	for (i = 0; i < r->n; i++) {
		const struct tstream *t = &r->st[i];

		if (t->snd.have)
			printf("[%3u] %6.2f-%-6.2f sec %12s %16s %4.0f  "
			    "sender%s%s\n", i, 0.0, t->snd.seconds,
			    units_fmt_bytes(t->snd.bytes, tb, sizeof(tb)),
			    units_fmt_rate(t->snd.bps, rb, sizeof(rb)),
			    (double)t->snd.tcp.total_retrans,
			    dirs(r) == 3 ? "  " : "", dirs(r) == 3 ?
			    dir_name(r, t->a_sends, dn, sizeof(dn)) : "");
		if (t->rcv.have && r->o->udp)
			printf("[%3u] %6.2f-%-6.2f sec %12s %16s %.0f/%.0f "
			    "(%.2g%%)  %.3f ms  receiver\n", i, 0.0,
			    t->rcv.seconds, units_fmt_bytes(t->rcv.bytes, tb,
			    sizeof(tb)), units_fmt_rate(t->rcv.bps, rb,
			    sizeof(rb)), t->rcv.lost, t->rcv.expected,
			    t->rcv.expected > 0 ? 100 * t->rcv.lost /
			    t->rcv.expected : 0, t->rcv.jitter_ms);
		else if (t->rcv.have)
			printf("[%3u] %6.2f-%-6.2f sec %12s %16s        "
			    "receiver\n", i, 0.0, t->rcv.seconds,
			    units_fmt_bytes(t->rcv.bytes, tb, sizeof(tb)),
			    units_fmt_rate(t->rcv.bps, rb, sizeof(rb)));
	}
	for (d = 0; d < 2; d++) {
		const struct dsum *s = &ds[d];

		if (!(dirs(r) & (1 << d)))
			continue;
		moved += s->recv;
		printf("[SUM] %s: %s received, %s", dir_name(r, d == 0, dn,
		    sizeof(dn)), units_fmt_bytes(s->recv, tb, sizeof(tb)),
		    units_fmt_rate(s->bps, rb, sizeof(rb)));
		if (r->o->udp)
			printf(", lost %.0f/%.0f (%.2f%%), jitter %.3f ms\n",
			    s->lost, s->expected, s->expected > 0 ?
			    100 * s->lost / s->expected : 0, s->jitter);
		else
			printf(", %.0f retransmits (%.1f per GB, %.0f of them "
			    "spurious; receiver saw %.0f out of order)\n",
			    s->retr, s->sent > 0 ? s->retr / (s->sent / 1e9) :
			    0, s->spur, s->ooo);
		if (s->n > 1)
			printf("      fairness: Jain %.3f; slowest stream %u "
			    "at %s, fastest %u at %s\n", s->jain, s->minid,
			    units_fmt_rate(s->minbps, tb, sizeof(tb)),
			    s->maxid, units_fmt_rate(s->maxbps, rb,
			    sizeof(rb)));
		if (!r->o->udp && s->busy > 0)
			printf("      limited by: %s (rwnd-limited %.0f%%, "
			    "sndbuf-limited %.0f%% of busy time)\n",
			    tputstat_limit_name(s->limit), 100 * s->rwnd / s->busy,
			    100 * s->sndbuf / s->busy);
		pair_path_lines(r, d == 0, dn);
	}
	cpu = r->cpu_a.user + r->cpu_a.sys + r->cpu_b.user + r->cpu_b.sys;
	if (r->cpu_a.have && r->cpu_b.have)
		printf("CPU: %s %.1f%% (user %.2f s, sys %.2f s), %s %.1f%% "
		    "(user %.2f s, sys %.2f s); %.2f CPU-s per GB moved\n",
		    r->ha->name, r->cpu_a.wall > 0 ? 100 * (r->cpu_a.user +
		    r->cpu_a.sys) / r->cpu_a.wall : 0, r->cpu_a.user,
		    r->cpu_a.sys, r->hb->name, r->cpu_b.wall > 0 ? 100 *
		    (r->cpu_b.user + r->cpu_b.sys) / r->cpu_b.wall : 0,
		    r->cpu_b.user, r->cpu_b.sys, moved > 0 ?
		    cpu / (moved / 1e9) : 0);
	spread_line(r->ha->name, r->spread_a);
	spread_line(r->hb->name, r->spread_b);
}

/* pair_result_stalls: a TCP test whose data stopped for 3 s or more failed,
 * whatever its average says: the path was cut or swallows packets. */
void
pair_result_stalls(struct tresult *r)
{
	char dn[64];
	int d;

	if (r->o->udp || r->error[0])
		return;
	for (d = 0; d < 2; d++)
		if ((dirs(r) & (1 << d)) && r->zero_max[d] >= 3) {
			snprintf(r->error, sizeof(r->error), "the data path "
			    "stalled: nothing arrived %s for %.0f s (a cut "
			    "path, a firewall dropping it, or an MTU black "
			    "hole)", dir_name(r, d == 0, dn, sizeof(dn)),
			    r->zero_max[d]);
			return;
		}
}

void
pair_result_report(struct tresult *r)
{
	struct dsum ds[2];
	cJSON *doc, *start, *opt, *end, *arr;
	char dn[64];
	uint32_t i;
	double moved;

	dsum_compute(r, true, &ds[0]);
	dsum_compute(r, false, &ds[1]);
	moved = ((dirs(r) & 1) ? ds[0].recv : 0) + ((dirs(r) & 2) ?
	    ds[1].recv : 0);
	if (!r->o->json) {
		if (r->error[0] == '\0' || moved > 0)
			pair_result_human(r, ds);
		fflush(stdout);
		if (r->error[0])
			fprintf(stderr, "cephfab: pair: %s%s\n", r->error,
			    pair_limit_hint(r->error));
		return;
	}
	doc = cJSON_CreateObject();
	start = cJSON_AddObjectToObject(doc, "start");
	cJSON_AddStringToObject(start, "command", "pair");
	cJSON_AddStringToObject(start, "test", r->spec.id);
	cJSON_AddNumberToObject(start, "timestamp", r->started);
	cJSON_AddStringToObject(start, "network", r->o->net == NET_CLUSTER ?
	    "cluster" : "public");
	{
		cJSON *a = cJSON_AddObjectToObject(start, "a");
		cJSON *b = cJSON_AddObjectToObject(start, "b");

		cJSON_AddStringToObject(a, "host", r->ha->name);
		cJSON_AddStringToObject(a, "address", r->addr_a);
		cJSON_AddStringToObject(a, "agent_version", r->version_a);
		cJSON_AddStringToObject(a, "role", r->a_connects ?
		    "connector" : "listener");
		cJSON_AddStringToObject(b, "host", r->hb->name);
		cJSON_AddStringToObject(b, "address", r->addr_b);
		cJSON_AddStringToObject(b, "agent_version", r->version_b);
		cJSON_AddStringToObject(b, "role", r->a_connects ?
		    "listener" : "connector");
		cJSON_AddNumberToObject(r->a_connects ? b : a, "port",
		    r->port);
	}
	opt = cJSON_AddObjectToObject(start, "options");
	cJSON_AddStringToObject(opt, "protocol", r->o->udp ? "udp" : "tcp");
	cJSON_AddNumberToObject(opt, "streams", r->o->streams);
	cJSON_AddNumberToObject(opt, "duration", r->o->duration);
	cJSON_AddNumberToObject(opt, "len", r->o->len);
	cJSON_AddNumberToObject(opt, "rate", (double)r->o->rate);
	cJSON_AddBoolToObject(opt, "reverse", r->o->reverse);
	cJSON_AddBoolToObject(opt, "bidir", r->o->bidir);
	cJSON_AddNumberToObject(opt, "interval", r->o->interval);
	cJSON_AddNumberToObject(opt, "sport_base", r->o->sport_base);
	cJSON_AddNumberToObject(opt, "sport_stride", r->o->sport_stride);
	cJSON_AddNumberToObject(opt, "window", r->o->window);
	cJSON_AddBoolToObject(opt, "zerocopy", r->o->zerocopy);
	cJSON_AddBoolToObject(opt, "skip_rx_copy", r->o->skip_rx_copy);
	cJSON_AddStringToObject(opt, "bind_dev", r->o->bind_dev);
	cJSON_AddItemToObject(doc, "intervals", r->intervals);
	r->intervals = NULL;
	end = cJSON_AddObjectToObject(doc, "end");
	arr = cJSON_AddArrayToObject(end, "streams");
	for (i = 0; i < r->n; i++) {
		cJSON *s = cJSON_CreateObject();

		cJSON_AddNumberToObject(s, "id", i);
		cJSON_AddStringToObject(s, "direction", dir_name(r,
		    r->st[i].a_sends, dn, sizeof(dn)));
		cJSON_AddItemToObject(s, "sender", sres_json(r, &r->st[i].snd,
		    true));
		cJSON_AddItemToObject(s, "receiver", sres_json(r,
		    &r->st[i].rcv, false));
		cJSON_AddItemToArray(arr, s);
	}
	if (dirs(r) & 1)
		cJSON_AddItemToObject(end, "sum", dsum_json(r, true, &ds[0]));
	if (dirs(r) & 2)
		cJSON_AddItemToObject(end, (dirs(r) & 1) ? "sum_reverse" :
		    "sum", dsum_json(r, false, &ds[1]));
	{
		cJSON *cpu = cJSON_AddObjectToObject(end, "cpu");

		cJSON_AddItemToObject(cpu, "a", cpu_json(&r->cpu_a));
		cJSON_AddItemToObject(cpu, "b", cpu_json(&r->cpu_b));
		cJSON_AddNumberToObject(cpu, "seconds_per_gb", moved > 0 ?
		    (r->cpu_a.user + r->cpu_a.sys + r->cpu_b.user +
		    r->cpu_b.sys) / (moved / 1e9) : 0);
	}
	if (r->spread_a || r->spread_b) {
		cJSON *sp = cJSON_AddObjectToObject(end, "spread");

		if (r->spread_a)
			cJSON_AddItemToObject(sp, "a", cJSON_Duplicate(
			    r->spread_a, 1));
		if (r->spread_b)
			cJSON_AddItemToObject(sp, "b", cJSON_Duplicate(
			    r->spread_b, 1));
	}
	if (r->error[0])
		cJSON_AddStringToObject(doc, "error", r->error);
	out_json(doc);
	cJSON_Delete(doc);
}

double
pair_result_loss_rpg(const cJSON *sum)
{
	char err[CF_ERRLEN];
	double v;

	if (sum == NULL)
		return NAN;
	if (json_get_double(sum, "loss_retransmits_per_gb", 0, 1e15, &v,
	    err) == 0 || json_get_double(sum, "retransmits_per_gb", 0, 1e15, &v,
	    err) == 0)
		return v;
	return NAN;
}
