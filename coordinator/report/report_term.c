/* report_term: a result tree on the terminal: the matrices per network
 * (coloured on a TTY), the loads, the findings and the verdict, see
 * report.h. */
#include "report/report_int.h"
#include "matrix/matrix.h"
#include "json.h"
#include "store/store.h"
#include "facts/topology.h"
#include "probes/probes.h"
#include "text.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *
hname(const cJSON *hosts, int i)
{
	char err[CF_ERRLEN];
	const char *s;

	if (json_get_str(cJSON_GetArrayItem(hosts, i), "name", 1, 64, &s,
	    err) == -1)
		return "?";
	return s;
}

static const char *
dstr(const cJSON *doc, const char *k)
{
	char err[CF_ERRLEN];
	const char *s;

	return json_get_str(doc, k, 0, 4096, &s, err) == 0 ? s : "?";
}

/* cell_at: the cell src i -> dst j from an index of a network's cells[],
 * which report_build lays out row by row without the diagonal. (cJSON
 * arrays are lists: indexing one for every cell is quadratic.) */
static const cJSON *
cell_at(const cJSON *const *idx, int n, int i, int j)
{
	return idx[i * (n - 1) + (j < i ? j : j - 1)];
}

/* cell_index: cells[] as an array (caller frees), NULL entries where
 * cells[] is short. */
static const cJSON **
cell_index(const cJSON *cells, int n)
{
	const cJSON **idx = calloc((size_t)(n * (n - 1) + 1), sizeof(*idx));
	const cJSON *c;
	int k = 0;

	if (idx == NULL)
		return NULL;
	cJSON_ArrayForEach(c, cells) {
		if (k >= n * (n - 1))
			break;
		idx[k++] = c;
	}
	return idx;
}

static double
cnum(const cJSON *c, const char *k)
{
	char err[CF_ERRLEN];
	double v = NAN;

	if (cJSON_IsNumber(cJSON_GetObjectItem(c, k)))
		json_get_double(c, k, -1e15, 1e15, &v, err);
	return v;
}

static int
dsort(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* host_summary: above 32 hosts a grid does not fit a terminal; one line
 * per host instead (its sends and receives: median and worst). */
static void
host_summary(const cJSON *hosts, const cJSON *const *cells, int n, bool bw,
    double floor, bool color)
{
	double *v = malloc(sizeof(double) * (size_t)n);
	int i, j, k, dir;

	if (v == NULL)
		return;
	printf("  %-16s %21s %21s\n", "host", bw ? "sends Gbit/s" :
	    "RTT p99 us (as src)", bw ? "receives Gbit/s" :
	    "RTT p99 us (as dst)");
	printf("  %-16s %10s %10s %10s %10s\n", "", "median", bw ? "min" :
	    "max", "median", bw ? "min" : "max");
	for (i = 0; i < n; i++) {
		double med[2], ext[2];

		for (dir = 0; dir < 2; dir++) {
			for (j = k = 0; j < n; j++) {
				double x;

				if (i == j)
					continue;
				x = cnum(dir ? cell_at(cells, n, j, i) :
				    cell_at(cells, n, i, j), bw ? "gbps" :
				    "rtt_p99_us");
				if (isfinite(x))
					v[k++] = x;
			}
			qsort(v, (size_t)k, sizeof(*v), dsort);
			med[dir] = k ? (k % 2 ? v[k / 2] :
			    (v[k / 2 - 1] + v[k / 2]) / 2) : NAN;
			ext[dir] = k ? (bw ? v[0] : v[k - 1]) : NAN;
		}
		bool low = bw && (ext[0] < floor || ext[1] < floor);

		printf("  %-16.16s %10.2f %s%10.2f%s %10.2f %s%10.2f%s\n",
		    hname(hosts, i), med[0], low && color ? "\033[31m" : "",
		    ext[0], low && color ? "\033[0m" : "", med[1],
		    low && color ? "\033[31m" : "", ext[1],
		    low && color ? "\033[0m" : "");
	}
	printf("\n");
	free(v);
}

/* finding_rank: 0 for a root cause (an error located wider than a
 * pair), 1 for a pair's error, 2 for a warning. */
static int
finding_rank(const cJSON *c)
{
	const cJSON *sev = cJSON_GetObjectItem(c, "severity");
	const cJSON *sc = cJSON_GetObjectItem(cJSON_GetObjectItem(c,
	    "location"), "scope");

	if (!cJSON_IsString(sev) || strcmp(sev->valuestring, "error") != 0)
		return 2;
	return cJSON_IsString(sc) && strcmp(sc->valuestring, "pair") == 0;
}

/* term_finding: one finding in two or three lines: what and where, the
 * directions it explains (a root cause's evidence), the hint. */
static void
term_finding(const cJSON *c, bool color)
{
	char err[CF_ERRLEN];
	const char *k = "", *sev = "", *s = "", *hint = "";
	const cJSON *pairs = cJSON_GetObjectItem(cJSON_GetObjectItem(c,
	    "evidence"), "pairs"), *p;
	int n = 0, total = cJSON_GetArraySize(pairs);

	json_get_str(c, "kind", 0, 32, &k, err);
	json_get_str(c, "severity", 0, 8, &sev, err);
	json_get_str(c, "summary", 0, 1024, &s, err);
	json_get_str(c, "hint", 0, 256, &hint, err);
	printf("%s%-5s%s %-14s %s\n", color ? (strcmp(sev, "error") ?
	    "\033[33m" : "\033[31m") : "", sev, color ? "\033[0m" : "",
	    k, s);
	if (total > 1 && finding_rank(c) == 0) {
		printf("%20s explains:", "");
		cJSON_ArrayForEach(p, pairs)
			if (cJSON_IsString(p) && n++ < 8)
				printf(" %s", p->valuestring);
		printf(total > 8 ? " (+%d more)\n" : "\n", total - 8);
	}
	printf("%20s hint: %s\n", "", hint);
}

/* labels: the hosts' column labels (text_labels), and under the table
 * what they leave out: "ceph-osd-* (the shared part left out)", or which
 * number is which host. At most 32 hosts (larger runs get a summary). */
static void
labels(const cJSON *hosts, int n, char (*lab)[TEXT_LABEL])
{
	const char *names[32];
	size_t pre, suf;
	int i, how;

	for (i = 0; i < n && i < 32; i++)
		names[i] = hname(hosts, i);
	how = text_labels(names, n, lab, &pre, &suf);
	if (how == 1)
		printf("hosts %.*s*%s (the part all share left out)\n",
		    (int)pre, names[0], names[0] + strlen(names[0]) - suf);
	else if (how == 2)
		for (i = 0; i < n; i++)
			printf("%s%s = %s%s", i % 4 ? ", " : "hosts ", lab[i],
			    names[i], i % 4 == 3 || i == n - 1 ? "\n" : "");
}

/* One matrix the terminal can show: its bit, the cell's member, its
 * title and how a row relates to a column. */
static const struct metric {
	unsigned bit;
	const char *key, *title, *verb;
} metrics[] = {
	{ SHOW_GBPS, "gbps", "Gbit/s", "sends to" },
	{ SHOW_RETRANS, "loss_retransmits_per_gb", "loss retransmits per GB",
	    "sends to" },
	{ SHOW_RTT, "rtt_p99_us", "RTT p99 in microseconds", "probes" },
	{ SHOW_MTU, "path_mtu", "path MTU in bytes", "sends to" },
	{ SHOW_PORTS, "ports", "Ceph ports not open", "connects to" },
};
#define NMETRICS (sizeof(metrics) / sizeof(metrics[0]))

/* paced: the lowest pace of net's bandwidth cells, Gbit/s, 0 when none
 * was paced. */
static double
paced(const cJSON *net)
{
	const cJSON *c;
	double lo = 0, p;

	cJSON_ArrayForEach(c, cJSON_GetObjectItem(net, "cells"))
		if (isfinite(p = cnum(c, "paced_gbps")) && (lo == 0 || p < lo))
			lo = p;
	return lo;
}

/* not_measured: the word for metric k of cell c when the tool did not
 * measure its test (the cell's not_measured), NULL when it did or the
 * network failed it. */
static const char *
not_measured(const cJSON *c, size_t k)
{
	static const struct { const char *cause, *word; } words[] = {
		{ "limit", "refused" }, { "busy", "busy" },
		{ "agent_down", "down" }, { "interrupted", "stopped" },
		{ "timeout", "timeout" },
	};
	const char *test = metrics[k].bit == SHOW_RTT ? "lat" :
	    metrics[k].bit == SHOW_MTU ? "mtu" : metrics[k].bit == SHOW_PORTS ?
	    "ports" : "bw";
	const cJSON *e = report_not_measured(c, test);
	const char *cause = e ? cJSON_GetStringValue(cJSON_GetObjectItem(e,
	    "cause")) : NULL;
	size_t w;

	if (e == NULL)
		return NULL;
	for (w = 0; cause && w < sizeof(words) / sizeof(words[0]); w++)
		if (strcmp(words[w].cause, cause) == 0)
			return words[w].word;
	return "n/m";
}

/* measured_metrics: the bits of the metrics some cell has. */
static unsigned
measured_metrics(const cJSON *cells)
{
	const cJSON *c;
	unsigned have = 0;
	size_t k;

	cJSON_ArrayForEach(c, cells)
		for (k = 0; k < NMETRICS; k++)
			if ((k == NMETRICS - 1 ? cJSON_IsArray(
			    cJSON_GetObjectItem(c, metrics[k].key)) :
			    isfinite(cnum(c, metrics[k].key))) ||
			    not_measured(c, k))
				have |= metrics[k].bit;
	return have;
}

/* grid_cell prints one cell of metric k, coloured against the limits. */
static void
grid_cell(const cJSON *c, size_t k, const double *lim, bool color,
    bool *skipped)
{
	char err[CF_ERRLEN], buf[16];
	const char *st = "", *col = "";
	double g = cnum(c, metrics[k].key);

	json_get_str(c, "state", 0, 16, &st, err);
	/* What the tool did not measure says why, never "lost": the test
	 * of another metric of the same pair may have been measured. */
	if ((k == NMETRICS - 1 || !isfinite(g)) && not_measured(c, k)) {
		printf(" %s%7s%s", color ? "\033[33m" : "",
		    not_measured(c, k), color ? "\033[0m" : "");
		return;
	}
	if (strcmp(st, "lost") == 0) {
		printf(" %s%7s%s", color ? "\033[35m" : "", "lost",
		    color ? "\033[0m" : "");
		return;
	}
	if (strcmp(st, "skipped") == 0 && metrics[k].bit == SHOW_GBPS) {
		*skipped = true;
		printf(" %s%7s%s", color ? "\033[31m" : "", "mtu!",
		    color ? "\033[0m" : "");
		return;
	}
	if (metrics[k].bit == SHOW_PORTS) {
		const cJSON *p = cJSON_GetObjectItem(c, "ports");
		int bad = cJSON_GetArraySize(p);

		if (!cJSON_IsArray(p))
			snprintf(buf, sizeof(buf), "?");
		else if (bad == 0)
			snprintf(buf, sizeof(buf), "ok");
		else
			snprintf(buf, sizeof(buf), "%d shut", bad);
		if (color && cJSON_IsArray(p))
			col = bad ? "\033[31m" : "\033[32m";
		printf(" %s%7s%s", col, buf, col[0] ? "\033[0m" : "");
		return;
	}
	if (!isfinite(g)) {
		printf(" %7s", "?");
		return;
	}
	/* Red over (under) the profile's limit; Gbit/s yellow within 15 %
	 * of its floor. */
	switch (metrics[k].bit) {
	case SHOW_GBPS:
		col = g < lim[0] ? "\033[31m" : g < lim[0] * 1.15 ?
		    "\033[33m" : "\033[32m";
		snprintf(buf, sizeof(buf), "%.2f", g);
		break;
	case SHOW_RETRANS:
		col = g > lim[1] ? "\033[31m" : "\033[32m";
		snprintf(buf, sizeof(buf), g < 10 ? "%.1f" : "%.0f", g);
		break;
	case SHOW_RTT:
		col = lim[2] > 0 && g > lim[2] ? "\033[31m" : "\033[32m";
		snprintf(buf, sizeof(buf), "%.0f", g);
		break;
	default:
		col = lim[3] > 0 && g < lim[3] ? "\033[31m" : "";
		snprintf(buf, sizeof(buf), "%.0f", g);
		break;
	}
	if (!color)
		col = "";
	printf(" %s%7s%s", col, buf, col[0] ? "\033[0m" : "");
}

/* grid prints metric k of one network as a host-by-host matrix. */
static void
grid(const cJSON *hosts, const cJSON *const *idx, int n, size_t k,
    const double *lim, bool color, bool *skipped)
{
	char lab[32][TEXT_LABEL];
	int i, j;

	labels(hosts, n, lab);
	printf("%8s", "");
	for (j = 0; j < n; j++)
		printf(" %7s", lab[j]);
	printf("\n");
	for (i = 0; i < n; i++) {
		printf("%-8s", lab[i]);
		for (j = 0; j < n; j++) {
			if (i == j)
				printf(" %7s", "-");
			else
				grid_cell(cell_at(idx, n, i, j), k, lim, color,
				    skipped);
		}
		printf("\n");
	}
	printf("\n");
}

/* network_matrices: the matrices of one network that show asks for
 * (0: every measured one of Gbit/s, retransmits and RTT, else MTU and
 * ports), a host summary instead above 32 hosts. */
static void
network_matrices(const cJSON *doc, const cJSON *net, int n, unsigned show,
    bool color)
{
	const cJSON *hosts = cJSON_GetObjectItem(doc, "hosts");
	const cJSON *cells = cJSON_GetObjectItem(net, "cells"), *ld;
	const cJSON *lims = cJSON_GetObjectItem(doc, "limits");
	const cJSON **idx = cell_index(cells, n);
	unsigned have = measured_metrics(cells);
	bool skipped = false;
	double lim[4] = { 0, 1e300, 0, 0 };
	char err[CF_ERRLEN];
	size_t k;

	if (idx == NULL)
		return;
	json_get_double(doc, "floor_gbps", 0, 1e6, &lim[0], err);
	json_get_double(lims, "max_loss_retransmits_per_gb", 0, 1e300, &lim[1],
	    err);
	json_get_double(lims, "max_rtt_p99_us", 0, 1e300, &lim[2], err);
	json_get_double(lims, "required_mtu", 0, 1e6, &lim[3], err);
	if (show == 0)
		show = have & (SHOW_GBPS | SHOW_RETRANS | SHOW_RTT) ? have &
		    (SHOW_GBPS | SHOW_RETRANS | SHOW_RTT) : have;
	show &= have;
	if (n > 32 && (show & (SHOW_GBPS | SHOW_RTT))) {
		printf("%s network: %s, row %s column\n", net->string,
		    show & SHOW_GBPS ? "Gbit/s" : "RTT p99 in microseconds",
		    show & SHOW_GBPS ? "sends to" : "probes");
		host_summary(hosts, idx, n, show & SHOW_GBPS, lim[0], color);
		show &= ~(unsigned)(SHOW_GBPS | SHOW_RETRANS | SHOW_RTT);
	}
	for (k = 0; k < NMETRICS && n <= 32; k++) {
		if (!(show & metrics[k].bit))
			continue;
		printf("%s network: %s, row %s column\n", net->string,
		    metrics[k].title, metrics[k].verb);
		grid(hosts, idx, n, k, lim, color, &skipped);
		if (metrics[k].bit == SHOW_GBPS && paced(net) > 0)
			printf("  paced at %.2f Gbit/s each way (the agents' "
			    "max_rate, or --rate): a cell at its pace is not "
			    "slow\n", paced(net));
		if (metrics[k].bit == SHOW_GBPS)
			printf("  floor %.2f Gbit/s (profile %s)%s\n%s\n",
			    lim[0], dstr(doc, "profile"), color ?
			    ": \033[32mok\033[0m \033[33mnear\033[0m "
			    "\033[31mbelow\033[0m \033[35mlost\033[0m" : "",
			    /* The legend of a mark only where it is. */
			    skipped ? "  mtu! = not measured: an MTU black "
			    "hole on the path\n" : "");
	}
	{
		const cJSON *c;
		bool nm = false;

		cJSON_ArrayForEach(c, cJSON_GetObjectItem(net, "cells"))
			nm = nm || cJSON_GetObjectItem(c, "not_measured");
		if (nm && show)
			printf("  refused, busy, down, stopped, timeout = not "
			    "measured, for a cause of the tool's own (the "
			    "agent's limit, another coordinator, the agent, "
			    "an interruption): see the findings\n");
	}
	cJSON_ArrayForEach(ld, cJSON_GetObjectItem(net, "load"))
		matrix_load_terminal(ld, net->string, color);
	free(idx);
}

void
report_terminal(const cJSON *doc, bool color, unsigned show)
{
	const cJSON *hosts = cJSON_GetObjectItem(doc, "hosts");
	const cJSON *nets = cJSON_GetObjectItem(doc, "networks"), *net, *c, *f;
	int n = cJSON_GetArraySize(hosts), pass;
	char err[CF_ERRLEN];

	cJSON_ArrayForEach(net, nets)
		network_matrices(doc, net, n, show, color);
	if (cJSON_GetObjectItem(doc, "topology")) {
		const cJSON *t;

		printf("paths:\n");
		cJSON_ArrayForEach(t, cJSON_GetObjectItem(doc, "topology")) {
			const char *hn = "?", *pu = "", *cl = "", *fr = "";

			json_get_str(t, "host", 0, 64, &hn, err);
			pu = topology_text(t, "public");
			cl = topology_text(t, "cluster");
			fr = topology_text(t, "frr");
			/* Only the networks of the run: a --net cluster run
			 * lists no public paths. */
			bool p = cJSON_GetObjectItem(nets, "public") != NULL,
			    q = cJSON_GetObjectItem(nets, "cluster") != NULL;

			printf("  %-10.10s %s%s%s%s%s%s%s\n", hn,
			    p ? "public: " : "", p ? pu : "", p && q ? "; " : "",
			    q ? "cluster: " : "", q ? cl : "", fr[0] ? "; " : "",
			    fr);
		}
		printf("\n");
	}
	f = cJSON_GetObjectItem(doc, "findings");
	if (cJSON_GetArraySize(f) == 0)
		printf("no findings\n");
	/* Root causes first (errors wider than a pair), then what only a
	 * pair shows, then the warnings. */
	for (pass = 0; pass < 3; pass++)
		cJSON_ArrayForEach(c, f)
			if (finding_rank(c) == pass)
				term_finding(c, color);
	printf("verdict: %s", dstr(doc, "verdict"));
	if (strcmp(dstr(doc, "verdict"), "incomplete") == 0) {
		const cJSON *cp = cJSON_GetObjectItem(doc, "completeness");
		double nm = 0, miss = 0;

		json_opt_double(cp, "tests_not_measured", 0, 1e12, 0, &nm, err);
		json_opt_double(cp, "cells_missing", 0, 1e12, 0, &miss, err);
		/* Not a pass, and says what it lacks. */
		printf(" (%.0f tests not measured, %.0f cells missing; "
		    "matrix --resume completes it)", nm, miss);
	}
	printf("\n");
	fflush(stdout);
}
