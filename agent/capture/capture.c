/* capture: libpcap and the TCP analyzer, see capture.h. */
#include "capture/capture.h"
#include "capture/analyzer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pcap/pcap.h>

static int
fbytes(const void *a, const void *b)
{
	const struct analyzer_flow *x = *(const struct analyzer_flow *const *)a;
	const struct analyzer_flow *y = *(const struct analyzer_flow *const *)b;
	uint64_t bx = x->d[0].c.bytes + x->d[1].c.bytes;
	uint64_t by = y->d[0].c.bytes + y->d[1].c.bytes;

	return bx < by ? 1 : bx > by ? -1 : 0;
}

int
capture_analyze_file(const char *path, bool json, unsigned flows)
{
	char errbuf[PCAP_ERRBUF_SIZE];
	struct pcap_pkthdr *h;
	const u_char *d;
	struct analyzer t;
	struct analyzer_counts sum;
	struct analyzer_flow *f, **v;
	pcap_t *p;
	double t0 = 0, t1 = 0;
	unsigned i, n = 0;
	int rc, dlt;
	cJSON *doc, *arr;

	p = pcap_open_offline_with_tstamp_precision(path,
	    PCAP_TSTAMP_PRECISION_NANO, errbuf);
	if (p == NULL) {
		fprintf(stderr, "cephfab-agent: --analyze %s: %s\n", path,
		    errbuf);
		return 2;
	}
	if (analyzer_init(&t, flows) == -1) {
		pcap_close(p);
		fprintf(stderr, "cephfab-agent: out of memory\n");
		return 2;
	}
	dlt = pcap_datalink(p);
	while ((rc = pcap_next_ex(p, &h, &d)) == 1) {
		/* Opened with nanosecond precision: tv_usec holds ns. */
		int64_t ts = analyzer_ns(h->ts.tv_sec, h->ts.tv_usec, true);

		if (t0 == 0)
			t0 = (double)ts / 1e9;
		t1 = (double)ts / 1e9;
		analyzer_frame(&t, dlt, ts, d, h->caplen);
	}
	if (rc == PCAP_ERROR)
		fprintf(stderr, "cephfab-agent: --analyze %s: %s (the packets "
		    "before it are analyzed)\n", path, pcap_geterr(p));
	pcap_close(p);
	memset(&sum, 0, sizeof(sum));
	v = calloc(t.nflows + 1, sizeof(*v));
	TAILQ_FOREACH(f, &t.lru, lru) {
		analyzer_add(&sum, &f->d[0].c);
		analyzer_add(&sum, &f->d[1].c);
		if (v)
			v[n++] = f;
	}
	if (v)
		qsort(v, n, sizeof(*v), fbytes);
	doc = cJSON_CreateObject();
	cJSON_AddStringToObject(doc, "file", path);
	cJSON_AddNumberToObject(doc, "packets", (double)t.packets);
	cJSON_AddNumberToObject(doc, "non_tcp", (double)t.non_tcp);
	cJSON_AddNumberToObject(doc, "truncated", (double)t.truncated);
	cJSON_AddNumberToObject(doc, "tracer_probes", (double)t.tracer);
	cJSON_AddNumberToObject(doc, "seconds", t1 - t0);
	cJSON_AddNumberToObject(doc, "flows", t.nflows);
	cJSON_AddNumberToObject(doc, "flow_cap", t.cap);
	cJSON_AddNumberToObject(doc, "evicted", (double)t.evicted);
	cJSON_AddItemToObject(doc, "total", analyzer_counts_json(&sum));
	arr = cJSON_AddArrayToObject(doc, "top_flows");
	for (i = 0; i < n && i < 20; i++)
		cJSON_AddItemToArray(arr, analyzer_flow_json(v[i]));
	if (json) {
		char *s = cJSON_Print(doc);

		if (s)
			puts(s);
		free(s);
	} else {
		printf("%s: %llu packets, %u TCP flows (%llu evicted), %.1f s\n",
		    path, (unsigned long long)t.packets, t.nflows,
		    (unsigned long long)t.evicted, t1 - t0);
		printf("segments %llu, retransmissions %llu (fast %llu, "
		    "spurious %llu), out-of-order %llu, zero windows %llu, "
		    "duplicate ACKs %llu, RSTs %llu\n",
		    (unsigned long long)sum.segments,
		    (unsigned long long)sum.retrans,
		    (unsigned long long)sum.fast_retrans,
		    (unsigned long long)sum.spurious,
		    (unsigned long long)sum.ooo,
		    (unsigned long long)sum.zero_window,
		    (unsigned long long)sum.dup_acks,
		    (unsigned long long)sum.rsts);
		printf("%-24s %-24s %10s %8s %6s %6s %9s\n", "A", "B",
		    "segments", "retrans", "ooo", "zwin", "hs rtt us");
		for (i = 0; i < n && i < 20; i++) {
			char a[64], b[64];

			netaddr_endpoint_str(&v[i]->addr[0], v[i]->port[0], a,
			    sizeof(a));
			netaddr_endpoint_str(&v[i]->addr[1], v[i]->port[1], b,
			    sizeof(b));
			printf("%-24s %-24s %10llu %8llu %6llu %6llu %9.0f\n",
			    a, b, (unsigned long long)(v[i]->d[0].c.segments +
			    v[i]->d[1].c.segments),
			    (unsigned long long)(v[i]->d[0].c.retrans +
			    v[i]->d[1].c.retrans),
			    (unsigned long long)(v[i]->d[0].c.ooo +
			    v[i]->d[1].c.ooo),
			    (unsigned long long)(v[i]->d[0].c.zero_window +
			    v[i]->d[1].c.zero_window), (double)v[i]->hs_rtt / 1e3);
		}
	}
	cJSON_Delete(doc);
	free(v);
	analyzer_free(&t);
	return 0;
}
