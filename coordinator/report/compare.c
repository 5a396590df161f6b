/*
 * compare: 'cephfab compare RUN_A RUN_B': two stored matrix runs side by
 * side per network (median and p10 pair Gbit/s, retransmits per GB, RTT
 * p50/p99, findings) and the per-pair deltas: the table for choosing
 * between two fabric designs measured on the same hosts.
 */
#include "report/report.h"
#include "core/core.h"
#include "json.h"
#include "store/store.h"
#include "facts/topology.h"
#include "probes/probes.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CMP_MAX 4096		/* directed pairs per network and run */

struct cpair {
	char key[140];		/* "src->dst" */
	double gbps, rpg, p50, p99;
	int paths, unused;	/* the sender's spread (bandwidth) */
	double used;		/* paths that carried traffic, NAN unknown */
};

struct cset {
	struct cpair p[CMP_MAX];
	int n;
};

static struct cpair *
cset_get(struct cset *s, const char *src, const char *dst)
{
	char key[140];
	int i;

	snprintf(key, sizeof(key), "%s->%s", src, dst);
	for (i = 0; i < s->n; i++)
		if (strcmp(s->p[i].key, key) == 0)
			return &s->p[i];
	if (s->n == CMP_MAX)
		return NULL;
	memset(&s->p[s->n], 0, sizeof(s->p[0]));
	snprintf(s->p[s->n].key, sizeof(s->p[0].key), "%s", key);
	s->p[s->n].gbps = s->p[s->n].rpg = NAN;
	s->p[s->n].p50 = s->p[s->n].p99 = s->p[s->n].used = NAN;
	return &s->p[s->n++];
}

/* cset_fill reads one network's bandwidth and latency cells of a run. */
static void
spread_of(const cJSON *end, int k, struct cpair *p)
{
	const cJSON *sp;
	char err[CF_ERRLEN];
	double v;

	if (json_get_obj(end, "spread", &sp, err) == -1 ||
	    json_get_obj(sp, k ? "b" : "a", &sp, err) == -1 ||
	    json_get_obj(sp, "tx", &sp, err) == -1 ||
	    json_get_double(sp, "paths", 0, 64, &v, err) == -1)
		return;
	p->paths = (int)v;
	p->unused = cJSON_GetArraySize(cJSON_GetObjectItem(sp, "unused"));
	p->used = p->paths - p->unused;
}

static void
cset_fill(struct cset *s, const cJSON *cells, const char *net)
{
	const cJSON *c;
	char err[CF_ERRLEN];

	s->n = 0;
	cJSON_ArrayForEach(c, cells) {
		const char *n, *t, *src, *dst, *st;
		const cJSON *data, *end, *sum, *res, *sz, *rtt;
		struct cpair *p;
		double v;
		int k;

		if (json_get_str(c, "network", 0, 16, &n, err) == -1 ||
		    strcmp(n, net) != 0 ||
		    json_get_str(c, "test", 0, 16, &t, err) == -1 ||
		    json_get_str(c, "src", 0, 64, &src, err) == -1 ||
		    json_get_str(c, "dst", 0, 64, &dst, err) == -1 ||
		    json_get_str(c, "state", 0, 16, &st, err) == -1 ||
		    strcmp(st, "lost") == 0 || strcmp(st, "skipped") == 0 ||
		    json_get_obj(c, "data", &data, err) == -1)
			continue;
		if (strcmp(t, "bw") == 0 &&
		    json_get_obj(data, "end", &end, err) == 0) {
			for (k = 0; k < 2; k++) {
				if (json_get_obj(end, k ? "sum_reverse" : "sum",
				    &sum, err) == -1 ||
				    (p = k ? cset_get(s, dst, src) :
				    cset_get(s, src, dst)) == NULL)
					continue;
				if (json_get_double(sum, "bits_per_second", 0,
				    1e15, &v, err) == 0)
					p->gbps = v / 1e9;
				if (isfinite(v = pair_result_loss_rpg(sum)))
					p->rpg = v;
				spread_of(end, k, p);
			}
		} else if (strcmp(t, "lat") == 0) {
			res = cJSON_GetArrayItem(cJSON_GetObjectItem(data,
			    "results"), 0);
			cJSON_ArrayForEach(sz, cJSON_GetObjectItem(res,
			    "sizes")) {
				if (json_get_double(sz, "size", 0, 1e6, &v,
				    err) == -1 || v != 2000 ||
				    (rtt = probe_size_rtt(sz)) == NULL)
					continue;
				for (k = 0; k < 2; k++) {
					p = k ? cset_get(s, dst, src) :
					    cset_get(s, src, dst);
					if (p == NULL)
						continue;
					json_get_double(rtt, "p50_us", 0, 1e12,
					    &p->p50, err);
					json_get_double(rtt, "p99_us", 0, 1e12,
					    &p->p99, err);
				}
			}
		}
	}
}

static int
dcmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* stat: percentile q (0-100) of one field over the pairs; NAN if none. */
static double
cset_stat(const struct cset *s, size_t off, double q)
{
	double *x = malloc(sizeof(double) * (size_t)(s->n + 1));
	double r;
	int i, m = 0;

	for (i = 0; i < s->n; i++) {
		double v = *(const double *)((const char *)&s->p[i] + off);

		if (isfinite(v))
			x[m++] = v;
	}
	if (m == 0) {
		free(x);
		return NAN;
	}
	qsort(x, (size_t)m, sizeof(*x), dcmp);
	r = x[(int)floor(q / 100.0 * (m - 1) + 0.5)];
	free(x);
	return r;
}

static int
count_findings(struct store *st, int64_t run, const char *net)
{
	cJSON *f = store_findings(st, run), *x;
	char err[CF_ERRLEN];
	int n = 0;

	cJSON_ArrayForEach(x, f) {
		const char *fn, *sev;

		if (json_get_str(x, "network", 0, 16, &fn, err) == 0 &&
		    strcmp(fn, net) == 0 && json_get_str(x, "severity", 0, 8,
		    &sev, err) == 0 && strcmp(sev, "error") == 0)
			n++;
	}
	cJSON_Delete(f);
	return n;
}

/* row: one metric, a column per run; with two runs, B's change from A. */
static void
row(const char *name, const double *v, int n, const char *fmt, bool pct)
{
	char x[32], d[32] = "";
	int r;

	printf("  %-22s", name);
	for (r = 0; r < n; r++) {
		snprintf(x, sizeof(x), fmt, v[r]);
		printf(" %12s", isfinite(v[r]) ? x : "-");
	}
	/* The change in percent where A is not zero, else as a difference
	 * (loss 1096.6 -> 0.0 is -1096.6, not blank). */
	if (n == 2 && pct && isfinite(v[0]) && isfinite(v[1]) && v[0] != 0)
		snprintf(d, sizeof(d), "%+.1f%%", 100 * (v[1] - v[0]) / v[0]);
	else if (n == 2 && isfinite(v[0]) && isfinite(v[1]))
		snprintf(d, sizeof(d), "%+.1f", v[1] - v[0]);
	printf(n == 2 ? " %9s\n" : "\n", d);
}

/* design: what a run measured with and over: streams and seconds per
 * pair, the paths its hosts had on the network (the most common
 * topology line, from --tests facts), FRR's sessions, and how many pairs
 * used every path. */
static cJSON *
design(struct store *st, const char *db, int64_t run, const char *net,
    const struct cset *s)
{
	cJSON *o = cJSON_CreateObject(), *opts, *fh, *sum, *t;
	char invpath[4096], err[CF_ERRLEN], line[160];
	struct inventory inv;
	double v;
	int i, multi = 0, full = 0;

	opts = store_run_options(st, run, invpath, sizeof(invpath));
	if (opts && json_get_double(opts, "streams", 0, 1e6, &v, err) == 0)
		cJSON_AddNumberToObject(o, "streams", v);
	if (opts && json_get_double(opts, "seconds", 0, 1e6, &v, err) == 0)
		cJSON_AddNumberToObject(o, "seconds", v);
	cJSON_Delete(opts);
	for (i = 0; i < s->n; i++) {
		if (s->p[i].paths < 2)
			continue;
		multi++;
		full += s->p[i].unused == 0;
	}
	if (multi) {
		snprintf(line, sizeof(line), "%d of %d pairs used every path",
		    full, multi);
		cJSON_AddStringToObject(o, "spread", line);
	}
	fh = cJSON_CreateArray();
	store_each(st, run, "host", "facts", topology_cell_cb, fh);
	/* The inventory stored with the run: a lab's is gone with it. */
	if (cJSON_GetArraySize(fh) > 0 && report_inventory(db, run, NULL, &inv,
	    err) == 0) {
		const char *best = NULL, *bfrr = NULL;
		int bn = 0, fn = 0;

		sum = topology_summary(&inv, fh);
		/* The line most hosts share stands for the design. */
		cJSON_ArrayForEach(t, sum) {
			const cJSON *u;
			const char *l = "", *fr = "";
			int c = 0, cf = 0;

			l = topology_text(t, net);
			fr = topology_text(t, "frr");
			cJSON_ArrayForEach(u, sum) {
				const char *l2 = "", *f2 = "";

				l2 = topology_text(u, net);
				f2 = topology_text(u, "frr");
				c += strcmp(l, l2) == 0;
				cf += strcmp(fr, f2) == 0;
			}
			if (c > bn) {
				bn = c;
				best = l;
			}
			if (cf > fn && fr[0]) {
				fn = cf;
				bfrr = fr;
			}
		}
		if (best) {
			snprintf(line, sizeof(line), "%s (%d of %d hosts)",
			    best, bn, cJSON_GetArraySize(sum));
			cJSON_AddStringToObject(o, "paths", line);
		}
		if (bfrr)
			cJSON_AddStringToObject(o, "routing", bfrr);
		cJSON_Delete(sum);
		inventory_free(&inv);
	}
	cJSON_Delete(fh);
	return o;
}

static void
design_row(const char *k, cJSON *const *d, int n)
{
	char a[200];
	int r, any = 0;

	for (r = 0; r < n; r++)
		any += cJSON_GetObjectItem(d[r], k) != NULL;
	if (!any)
		return;
	for (r = 0; r < n; r++) {
		const cJSON *x = cJSON_GetObjectItem(d[r], k);

		if (cJSON_IsNumber(x))
			snprintf(a, sizeof(a), "%g", x->valuedouble);
		else
			snprintf(a, sizeof(a), "%s", cJSON_IsString(x) ?
			    x->valuestring : "-");
		printf("  %-22s %c: %s\n", r ? "" : k, 'A' + r, a);
	}
}

/* The metrics of the table: name, JSON key, field, percentile, format,
 * whether a change in percent means something. */
static const struct metric {
	const char *name, *key;
	size_t off;
	double q;
	const char *fmt;
	bool pct;
} metrics[] = {
	{ "median Gbit/s", "median_gbps", offsetof(struct cpair, gbps), 50,
	    "%.2f", true },
	{ "p10 Gbit/s", "p10_gbps", offsetof(struct cpair, gbps), 10, "%.2f",
	    true },
	{ "loss retrans/GB (med)", "median_loss_retransmits_per_gb",
	    offsetof(struct cpair, rpg), 50, "%.1f", false },
	{ "RTT p50 us (median)", "median_rtt_p50_us",
	    offsetof(struct cpair, p50), 50, "%.1f", true },
	{ "RTT p99 us (median)", "median_rtt_p99_us",
	    offsetof(struct cpair, p99), 50, "%.1f", true },
	{ "paths used (median)", "median_paths_used",
	    offsetof(struct cpair, used), 50, "%.0f", false },
};

/* pair_in: run s's pair with key, or NULL. */
static const struct cpair *
pair_in(const struct cset *s, const char *key)
{
	int j;

	for (j = 0; j < s->n; j++)
		if (strcmp(s->p[j].key, key) == 0)
			return &s->p[j];
	return NULL;
}

/* all_keys: every pair key of the runs, in the first run's order, then
 * the ones only later runs have. */
static int
all_keys(struct cset *const *s, int n, const char **keys, int max)
{
	int r, i, j, k = 0;

	for (r = 0; r < n; r++)
		for (i = 0; i < s[r]->n && k < max; i++) {
			for (j = 0; j < k; j++)
				if (strcmp(keys[j], s[r]->p[i].key) == 0)
					break;
			if (j == k)
				keys[k++] = s[r]->p[i].key;
		}
	return k;
}

/* compare_net: one network of the runs, into o (JSON) and on stdout. */
static void
compare_net(struct store *st, const char *db, const int64_t *runs, int n,
    struct cset *const *s, const char *net, cJSON *o, bool json)
{
	static const char *keys_buf[CMP_MAX];
	cJSON *d[COMPARE_MAX], *pairs;
	double v[COMPARE_MAX];
	char key[32];
	size_t m;
	int r, i, nk;

	for (m = 0; m < sizeof(metrics) / sizeof(metrics[0]); m++) {
		cJSON *x = cJSON_AddObjectToObject(o, metrics[m].key);

		for (r = 0; r < n; r++) {
			v[r] = cset_stat(s[r], metrics[m].off, metrics[m].q);
			snprintf(key, sizeof(key), "%c", 'a' + r);
			if (isfinite(v[r]))
				cJSON_AddNumberToObject(x, key, v[r]);
		}
	}
	for (r = 0; r < n; r++) {
		d[r] = design(st, db, runs[r], net, s[r]);
		snprintf(key, sizeof(key), "design_%c", 'a' + r);
		cJSON_AddItemToObject(o, key, d[r]);
		snprintf(key, sizeof(key), "errors_%c", 'a' + r);
		cJSON_AddNumberToObject(o, key, count_findings(st, runs[r],
		    net));
		/* An incomplete run is never read as a pass beside another. */
		snprintf(key, sizeof(key), "verdict_%c", 'a' + r);
		cJSON_AddStringToObject(o, key, store_run_verdict(st, runs[r]));
	}
	pairs = cJSON_AddArrayToObject(o, "pairs");
	nk = all_keys(s, n, keys_buf, CMP_MAX);
	for (i = 0; i < nk; i++) {
		cJSON *x = cJSON_CreateObject();

		cJSON_AddStringToObject(x, "pair", keys_buf[i]);
		for (r = 0; r < n; r++) {
			const struct cpair *p = pair_in(s[r], keys_buf[i]);

			snprintf(key, sizeof(key), "gbps_%c", 'a' + r);
			if (p && isfinite(p->gbps))
				cJSON_AddNumberToObject(x, key, p->gbps);
		}
		cJSON_AddItemToArray(pairs, x);
	}
	if (json)
		return;
	printf("%s network\n  %-22s", net, "run");
	for (r = 0; r < n; r++) {
		snprintf(key, sizeof(key), "%c: %lld", 'A' + r,
		    (long long)runs[r]);
		printf(" %12s", key);
	}
	printf("\n");
	for (m = 0; m < sizeof(metrics) / sizeof(metrics[0]); m++) {
		for (r = 0; r < n; r++)
			v[r] = cset_stat(s[r], metrics[m].off, metrics[m].q);
		row(metrics[m].name, v, n, metrics[m].fmt, metrics[m].pct);
	}
	printf("  %-22s", "verdict");
	for (r = 0; r < n; r++)
		printf(" %12s", store_run_verdict(st, runs[r]));
	printf("\n");
	for (r = 0; r < n; r++)
		v[r] = count_findings(st, runs[r], net);
	row("error findings", v, n, "%.0f", false);
	design_row("streams", d, n);
	design_row("paths", d, n);
	design_row("routing", d, n);
	design_row("spread", d, n);
	printf("  per pair, Gbit/s:\n");
	for (i = 0; i < nk; i++) {
		bool any = false;

		for (r = 0; r < n; r++) {
			const struct cpair *p = pair_in(s[r], keys_buf[i]);

			v[r] = p ? p->gbps : NAN;
			any |= isfinite(v[r]);
		}
		if (any)
			row(keys_buf[i], v, n, "%.2f", true);
	}
	printf("\n");
}

int
compare_run(const char *db, const int64_t *runs, int n, bool json)
{
	static const char *nets[] = { "public", "cluster" };
	struct cset *s[COMPARE_MAX] = { 0 };
	cJSON *cells[COMPARE_MAX] = { 0 }, *doc = cJSON_CreateObject(), *jn;
	cJSON *ids;
	struct store st;
	char err[CF_ERRLEN];
	int k, r, rc = EXIT_PASS, shown = 0;

	for (r = 0; r < n; r++)
		if ((s[r] = malloc(sizeof(*s[r]))) == NULL)
			snprintf(err, sizeof(err), "out of memory");
	for (r = 0; r < n && s[r]; r++)
		continue;
	if (r < n || store_open_ro(&st, db, err) == -1) {
		fprintf(stderr, "cephfab: compare: %s\n", err);
		for (r = 0; r < n; r++)
			free(s[r]);
		cJSON_Delete(doc);
		return r < n ? EXIT_RUNTIME : EXIT_USAGE;
	}
	for (r = 0; r < n; r++) {
		cells[r] = store_cells(&st, runs[r]);
		if (cJSON_GetArraySize(cells[r]) == 0) {
			fprintf(stderr, "cephfab: compare: run %lld has no "
			    "cells in %s\n", (long long)runs[r], db);
			rc = EXIT_USAGE;
			goto out;
		}
	}
	/* Two runs keep their names of old (run_a, run_b) beside the list. */
	cJSON_AddNumberToObject(doc, "run_a", (double)runs[0]);
	cJSON_AddNumberToObject(doc, "run_b", (double)runs[1]);
	ids = cJSON_AddArrayToObject(doc, "runs");
	for (r = 0; r < n; r++)
		cJSON_AddItemToArray(ids, cJSON_CreateNumber((double)runs[r]));
	jn = cJSON_AddObjectToObject(doc, "networks");
	for (k = 0; k < 2; k++) {
		int any = 0;

		for (r = 0; r < n; r++) {
			cset_fill(s[r], cells[r], nets[k]);
			any += s[r]->n;
		}
		if (any == 0)
			continue;
		shown++;
		compare_net(&st, db, runs, n, s, nets[k],
		    cJSON_AddObjectToObject(jn, nets[k]), json);
	}
	if (shown == 0 && !json)
		printf("no network in common\n");
	if (json)
		out_json(doc);
out:
	for (r = 0; r < n; r++) {
		cJSON_Delete(cells[r]);
		free(s[r]);
	}
	cJSON_Delete(doc);
	store_close(&st);
	return rc;
}
