/*
 * metrics: what the Prometheus endpoint (metrics_http.c) serves: the text
 * exposition format of the monitor's counters, RTT histograms and path
 * MTUs per peer and network, and the process's own standard metrics.
 * Cardinality is bounded by the pinglist: about twenty series per peer and
 * network.
 */
#include "monitor/monitor_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* --- the exposition --------------------------------------------------- */

struct buf {
	char *p;
	size_t len, cap;
	bool oom;
};

static void __attribute__((format(printf, 2, 3)))
bprintf(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	for (;;) {
		if (b->oom)
			return;
		va_start(ap, fmt);
		n = vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
		va_end(ap);
		if (n >= 0 && (size_t)n < b->cap - b->len) {
			b->len += (size_t)n;
			return;
		}
		{
			size_t cap = b->cap * 2 + (size_t)(n > 0 ? n : 0);
			char *q = realloc(b->p, cap);

			if (q == NULL) {
				b->oom = true;
				return;
			}
			b->p = q;
			b->cap = cap;
		}
	}
}

static void
help(struct buf *b, const char *name, const char *type, const char *text)
{
	bprintf(b, "# HELP %s %s\n# TYPE %s %s\n", name, text, name, type);
}

/* process: the standard process_* metrics that cost a read of
 * /proc/self/stat (CPU, memory, start time) and of /proc/self/fd. */
static void
process(struct buf *b)
{
	char st[1024], *p;
	unsigned long ut = 0, stime = 0, rss = 0;
	unsigned long long start = 0;
	long tck = sysconf(_SC_CLK_TCK), pg = sysconf(_SC_PAGESIZE);
	FILE *f = fopen("/proc/self/stat", "re");
	double boot = 0;
	size_t n = 0;

	if (f != NULL) {
		n = fread(st, 1, sizeof(st) - 1, f);
		fclose(f);
	}
	st[n] = '\0';
	/* Fields after the command's closing parenthesis: state is 3rd,
	 * utime 14th, stime 15th, starttime 22nd, rss 24th. */
	if ((p = strrchr(st, ')')) == NULL || sscanf(p + 2, "%*c %*d %*d %*d "
	    "%*d %*d %*u %*u %*u %*u %*u %lu %lu %*d %*d %*d %*d %*d %*d %llu "
	    "%*u %lu", &ut, &stime, &start, &rss) != 4 || tck <= 0)
		return;
	if ((f = fopen("/proc/stat", "re")) != NULL) {
		char line[256];

		while (fgets(line, sizeof(line), f))
			if (sscanf(line, "btime %lf", &boot) == 1)
				break;
		fclose(f);
	}
	help(b, "process_cpu_seconds_total", "counter", "User and system CPU "
	    "time spent in seconds.");
	bprintf(b, "process_cpu_seconds_total %g\n", (double)(ut + stime) /
	    (double)tck);
	help(b, "process_resident_memory_bytes", "gauge", "Resident memory "
	    "size in bytes.");
	bprintf(b, "process_resident_memory_bytes %lu\n", rss * (unsigned long)
	    (pg > 0 ? pg : 4096));
	if (boot > 0) {
		help(b, "process_start_time_seconds", "gauge", "Start time of "
		    "the process since unix epoch in seconds.");
		bprintf(b, "process_start_time_seconds %.2f\n", boot +
		    (double)start / (double)tck);
	}
}

/* PL: the label values of a (peer, network). */
#define PL(r, p) (r)->pl.peers[(p)->peer].name, pl_net_names[(p)->net]

enum pfam { PF_SENT, PF_LOST, PF_UP, PF_MTU };

/* peer_family: one line of a family per (peer, network) that has it. */
static void
peer_family(struct buf *b, const struct mon_run *r, enum pfam f)
{
	static const char *const names[] = { "probes_sent_total",
	    "probes_lost_total", "up", "path_mtu_bytes" };
	double now = mon_mono(), fresh = 10 + 2 / r->pl.rate;
	unsigned long long v;
	int i;

	for (i = 0; i < r->nmp; i++) {
		const struct mon_peer *p = &r->mp[i];

		switch (f) {
		case PF_SENT: v = p->sent; break;
		case PF_LOST: v = p->lost; break;
		case PF_UP:
			/* Rotated out: not probed, so neither up nor down. */
			if (!p->active)
				continue;
			v = p->last_reply > 0 && now - p->last_reply < fresh;
			break;
		default:
			if (!p->mtu_known)
				continue;
			v = p->path_mtu;
			break;
		}
		bprintf(b, "cephfab_peer_%s{peer=\"%s\",network=\"%s\"} "
		    "%llu\n", names[f], PL(r, p), v);
	}
}

static void
rtt_histogram(struct buf *b, const struct mon_run *r)
{
	int i, k;

	help(b, "cephfab_peer_rtt_seconds", "histogram", "Round-trip time of "
	    "the answered probes to a peer.");
	for (i = 0; i < r->nmp; i++) {
		const struct mon_peer *p = &r->mp[i];
		uint64_t cum = 0;

		for (k = 0; k < MON_BUCKETS; k++) {
			cum += p->bucket[k];
			bprintf(b, "cephfab_peer_rtt_seconds_bucket{peer=\"%s\","
			    "network=\"%s\",le=\"%g\"} %llu\n", PL(r, p),
			    mon_bucket_le[k], (unsigned long long)cum);
		}
		cum += p->bucket[MON_BUCKETS];
		bprintf(b, "cephfab_peer_rtt_seconds_bucket{peer=\"%s\","
		    "network=\"%s\",le=\"+Inf\"} %llu\n", PL(r, p),
		    (unsigned long long)cum);
		bprintf(b, "cephfab_peer_rtt_seconds_sum{peer=\"%s\",network="
		    "\"%s\"} %.9g\n", PL(r, p), p->rtt_sum);
		bprintf(b, "cephfab_peer_rtt_seconds_count{peer=\"%s\","
		    "network=\"%s\"} %llu\n", PL(r, p), (unsigned long long)cum);
	}
}

static void
run_metrics(struct buf *b, const struct mon_run *r)
{
	int n;

	help(b, "cephfab_monitor_peers", "gauge", "Peers probed now, per "
	    "network.");
	for (n = 0; n < PL_NETS; n++)
		if (r->fd[n] != -1)
			bprintf(b, "cephfab_monitor_peers{network=\"%s\"} %d\n",
			    pl_net_names[n], r->nactive[n]);
	help(b, "cephfab_network_mtu_bytes", "gauge", "MTU of the agent's "
	    "own port on the network.");
	for (n = 0; n < PL_NETS; n++)
		if (r->fd[n] != -1 && r->local_mtu[n] > 0)
			bprintf(b, "cephfab_network_mtu_bytes{network=\"%s\"} "
			    "%u\n", pl_net_names[n], r->local_mtu[n]);
	help(b, "cephfab_monitor_strangers_total", "counter", "Datagrams "
	    "refused: no token, or from an address not in the pinglist.");
	bprintf(b, "cephfab_monitor_strangers_total %llu\n",
	    (unsigned long long)r->strangers);
	help(b, "cephfab_peer_probes_sent_total", "counter", "Echo probes "
	    "sent to a peer.");
	peer_family(b, r, PF_SENT);
	help(b, "cephfab_peer_probes_lost_total", "counter", "Echo probes "
	    "to a peer not answered within the timeout.");
	peer_family(b, r, PF_LOST);
	help(b, "cephfab_peer_up", "gauge", "1 when the peer answered in the "
	    "last 10 s (and two probe intervals), else 0.");
	peer_family(b, r, PF_UP);
	rtt_histogram(b, r);
	help(b, "cephfab_peer_path_mtu_bytes", "gauge", "Largest "
	    "don't-fragment probe the peer acknowledged (0: none).");
	peer_family(b, r, PF_MTU);
}

char *
metrics_render(const struct monitor *m, size_t *len)
{
	struct buf b = { malloc(65536), 0, 65536, false };

	if (b.p == NULL)
		return NULL;
	help(&b, "cephfab_agent_info", "gauge", "The agent's version.");
	bprintf(&b, "cephfab_agent_info{version=\"%s\"} 1\n", CF_VERSION);
	help(&b, "cephfab_monitor_running", "gauge", "1 while the agent "
	    "probes its pinglist.");
	bprintf(&b, "cephfab_monitor_running %d\n", m->run != NULL);
	if (m->run != NULL)
		run_metrics(&b, m->run);
	process(&b);
	if (b.oom) {
		free(b.p);
		return NULL;
	}
	*len = b.len;
	return b.p;
}
