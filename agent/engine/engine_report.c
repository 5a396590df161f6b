/* engine_report: what a throughput test reports, built from its state:
 * the streams at READY, each interval's figures per stream, and the
 * totals at the end (TCP_INFO, UDP loss, the paths' spread, the agent's
 * CPU), see engine.h. Builds JSON only: the caller sends it. */
#include "engine/engine.h"

#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include <sys/resource.h>

static double
tv_secs(const struct timeval *tv)
{
	return (double)tv->tv_sec + (double)tv->tv_usec / 1e6;
}

cJSON *
engine_report_streams(struct test *t)
{
	cJSON *arr = cJSON_CreateArray(), *o;
	uint32_t i;

	for (i = 0; arr && i < t->n; i++) {
		o = cJSON_CreateObject();
		cJSON_AddNumberToObject(o, "id", i);
		cJSON_AddBoolToObject(o, "sending", t->st[i].sending);
		cJSON_AddStringToObject(o, "local", t->st[i].local);
		cJSON_AddStringToObject(o, "remote", t->st[i].remote);
		cJSON_AddItemToArray(arr, o);
	}
	return arr;
}

cJSON *
engine_report_interval(struct test *t, struct stream *s, double secs)
{
	cJSON *o = cJSON_CreateObject();
	uint64_t b = atomic_load(&s->bytes), d = b - s->last_bytes;

	cJSON_AddNumberToObject(o, "id", s->idx);
	cJSON_AddBoolToObject(o, "sending", s->sending);
	cJSON_AddNumberToObject(o, "bytes", (double)d);
	cJSON_AddNumberToObject(o, "bits_per_second",
	    secs > 0 ? (double)d * 8 / secs : 0);
	s->last_bytes = b;
	if (t->spec.proto == TP_TCP && s->fd != -1) {
		struct tcp_sample cur;
		struct tcp_delta dl;

		if (tputstat_tcp_read(s->fd, &cur) == 0) {
			tputstat_tcp_delta(&s->last_tcp, &cur, &dl);
			cJSON_AddItemToObject(o, "tcp",
			    tputstat_tcp_json(&cur, &dl));
			s->last_tcp = cur;
		}
	} else if (t->spec.proto == TP_UDP && !s->sending) {
		struct udp_rx now;
		uint64_t exp, uniq;

		pthread_mutex_lock(&t->umu);
		now = s->rx;
		pthread_mutex_unlock(&t->umu);
		exp = tputstat_udp_rx_expected(&now) - tputstat_udp_rx_expected(&s->rx_last);
		uniq = now.unique - s->rx_last.unique;
		cJSON *u = cJSON_AddObjectToObject(o, "udp");
		cJSON_AddNumberToObject(u, "packets", (double)uniq);
		cJSON_AddNumberToObject(u, "lost", (double)(exp > uniq ?
		    exp - uniq : 0));
		cJSON_AddNumberToObject(u, "expected", (double)exp);
		cJSON_AddNumberToObject(u, "duplicates",
		    (double)(now.dups - s->rx_last.dups));
		cJSON_AddNumberToObject(u, "reordered",
		    (double)(now.reordered - s->rx_last.reordered));
		cJSON_AddNumberToObject(u, "jitter_ms", now.jitter_ns / 1e6);
		s->rx_last = now;
	} else if (t->spec.proto == TP_UDP) {
		cJSON *u = cJSON_AddObjectToObject(o, "udp");

		cJSON_AddNumberToObject(u, "sent", (double)s->seq);
	}
	return o;
}

/* stream_end: one stream's totals; wall is the test's time so far. */
static cJSON *
stream_end(struct test *t, struct stream *s, double wall)
{
	cJSON *o;

	double secs = s->t_end > t->t0 ? s->t_end - t->t0 : wall;
	uint64_t bytes = atomic_load(&s->bytes);

	o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "id", s->idx);
	cJSON_AddBoolToObject(o, "sending", s->sending);
	cJSON_AddNumberToObject(o, "bytes", (double)bytes);
	cJSON_AddNumberToObject(o, "seconds", secs);
	cJSON_AddNumberToObject(o, "bits_per_second",
	    secs > 0 ? (double)bytes * 8 / secs : 0);
	cJSON_AddStringToObject(o, "local", s->local);
	cJSON_AddStringToObject(o, "remote", s->remote);
	if (s->sending && t->spec.proto == TP_TCP)
		cJSON_AddBoolToObject(o, "zerocopy",
		    s->zerocopy);
	if (s->err)
		cJSON_AddStringToObject(o, "error",
		    strerror(s->err));
	if (s->path)
		cJSON_AddItemToObject(o, "path", trace_json(s->path));
	if (t->spec.proto == TP_TCP && s->fd != -1) {
		struct tcp_sample ts;

		if (tputstat_tcp_read(s->fd, &ts) == 0) {
			cJSON_AddItemToObject(o, "tcp",
			    tputstat_tcp_json(&ts, NULL));
			if (s->sending)
				cJSON_AddStringToObject(o,
				    "limited_by",
				    tputstat_limit_key(tputstat_limit(
				    ts.busy_us, ts.rwnd_us,
				    ts.sndbuf_us, (uint64_t)(
				    secs * 1e6))));
		}
	} else if (t->spec.proto == TP_UDP && !s->sending) {
		cJSON *u = cJSON_AddObjectToObject(o, "udp");
		uint64_t exp = tputstat_udp_rx_expected(&s->rx);

		/* The FIN's count catches trailing
		 * losses. */
		if (s->fin && s->fin_total > exp)
			exp = s->fin_total;
		cJSON_AddNumberToObject(u, "packets",
		    (double)s->rx.unique);
		cJSON_AddNumberToObject(u, "expected",
		    (double)exp);
		cJSON_AddNumberToObject(u, "lost", (double)(
		    exp > s->rx.unique ? exp - s->rx.unique :
		    0));
		cJSON_AddNumberToObject(u, "duplicates",
		    (double)s->rx.dups);
		cJSON_AddNumberToObject(u, "reordered",
		    (double)s->rx.reordered);
		cJSON_AddNumberToObject(u, "jitter_ms",
		    s->rx.jitter_ns / 1e6);
	} else if (t->spec.proto == TP_UDP) {
		cJSON *u = cJSON_AddObjectToObject(o, "udp");

		cJSON_AddNumberToObject(u, "sent",
		    (double)s->seq);
	}
	return o;
}

void
engine_report_end(struct test *t, double wall, cJSON *b)
{
	struct rusage ru;
	cJSON *arr, *cpu;
	uint32_t i;

	arr = cJSON_AddArrayToObject(b, "streams");
	for (i = 0; i < t->n && t->started; i++)
		cJSON_AddItemToArray(arr, stream_end(t, &t->st[i], wall));
	if (t->started) {
		cJSON *sp = spread_end(&t->spread);

		if (sp)
			cJSON_AddItemToObject(b, "spread", sp);
		getrusage(RUSAGE_SELF, &ru);
		cpu = cJSON_AddObjectToObject(b, "cpu");
		cJSON_AddNumberToObject(cpu, "user",
		    tv_secs(&ru.ru_utime) - tv_secs(&t->ru0.ru_utime));
		cJSON_AddNumberToObject(cpu, "system",
		    tv_secs(&ru.ru_stime) - tv_secs(&t->ru0.ru_stime));
		cJSON_AddNumberToObject(cpu, "wall", wall);
	}
}
