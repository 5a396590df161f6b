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
	s->p[s->n].p50 = s->p[s->n].p99 = NAN;
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
				    json_get_obj(sz, "rtt", &rtt, err) == -1)
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

static void
row(const char *name, double a, double b, const char *fmt, bool pct)
{
	char x[32], y[32], d[32] = "";

	snprintf(x, sizeof(x), fmt, a);
	snprintf(y, sizeof(y), fmt, b);
	if (!isfinite(a))
		snprintf(x, sizeof(x), "-");
	if (!isfinite(b))
		snprintf(y, sizeof(y), "-");
	if (pct && isfinite(a) && isfinite(b) && a != 0)
		snprintf(d, sizeof(d), "%+.1f%%", 100 * (b - a) / a);
	printf("  %-22s %12s %12s %9s\n", name, x, y, d);
}

/* design: what a run measured with and over: streams and seconds per
 * pair, the paths its hosts had on the network (the most common
 * topology line, from --tests facts), FRR's sessions, and how many pairs
 * used every path. */
static cJSON *
design(struct store *st, int64_t run, const char *net, const struct cset *s)
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
	if (cJSON_GetArraySize(fh) > 0 && inventory_load(invpath, &inv,
	    err) == 0) {
		const char *best = NULL, *bfrr = NULL;
		int bn = 0, fn = 0;

		sum = topology_summary(&inv, fh);
		/* The line most hosts share stands for the design. */
		cJSON_ArrayForEach(t, sum) {
			const cJSON *u;
			const char *l = "", *fr = "";
			int c = 0, cf = 0;

			json_opt_str(t, net, 0, 256, "", &l, err);
			json_opt_str(t, "frr", 0, 256, "", &fr, err);
			cJSON_ArrayForEach(u, sum) {
				const char *l2 = "", *f2 = "";

				json_opt_str(u, net, 0, 256, "", &l2, err);
				json_opt_str(u, "frr", 0, 256, "", &f2, err);
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
design_row(const char *k, const cJSON *da, const cJSON *db)
{
	const cJSON *x = cJSON_GetObjectItem(da, k), *y = cJSON_GetObjectItem(
	    db, k);
	char a[200], b[200];

	if (x == NULL && y == NULL)
		return;
	if (cJSON_IsNumber(x))
		snprintf(a, sizeof(a), "%g", x->valuedouble);
	else
		snprintf(a, sizeof(a), "%s", cJSON_IsString(x) ?
		    x->valuestring : "-");
	if (cJSON_IsNumber(y))
		snprintf(b, sizeof(b), "%g", y->valuedouble);
	else
		snprintf(b, sizeof(b), "%s", cJSON_IsString(y) ?
		    y->valuestring : "-");
	printf("  %-22s A: %s\n  %-22s B: %s\n", k, a, "", b);
}

int
compare_run(const char *db, int64_t ra, int64_t rb, bool json)
{
	static const char *nets[] = { "public", "cluster" };
	struct cset *a = malloc(sizeof(*a)), *b = malloc(sizeof(*b));
	struct store st;
	char err[CF_ERRLEN];
	cJSON *ca, *cb, *doc = cJSON_CreateObject(), *jn;
	int k, i, rc = EXIT_PASS, shown = 0;

	if (a == NULL || b == NULL || store_open(&st, db, err) == -1) {
		fprintf(stderr, "cephfab: compare: %s\n", a && b ? err :
		    "out of memory");
		free(a);
		free(b);
		cJSON_Delete(doc);
		return EXIT_RUNTIME;
	}
	ca = store_cells(&st, ra);
	cb = store_cells(&st, rb);
	if (cJSON_GetArraySize(ca) == 0 || cJSON_GetArraySize(cb) == 0) {
		fprintf(stderr, "cephfab: compare: run %lld has no cells in %s\n",
		    (long long)(cJSON_GetArraySize(ca) ? rb : ra), db);
		rc = EXIT_USAGE;
		goto out;
	}
	cJSON_AddNumberToObject(doc, "run_a", (double)ra);
	cJSON_AddNumberToObject(doc, "run_b", (double)rb);
	jn = cJSON_AddObjectToObject(doc, "networks");
	for (k = 0; k < 2; k++) {
		cJSON *o, *pairs, *da, *dbb;

		cset_fill(a, ca, nets[k]);
		cset_fill(b, cb, nets[k]);
		if (a->n == 0 && b->n == 0)
			continue;
		shown++;
		o = cJSON_AddObjectToObject(jn, nets[k]);
#define BOTH(name, field, q) do { \
	cJSON *x = cJSON_AddObjectToObject(o, name); \
	double va = cset_stat(a, offsetof(struct cpair, field), q); \
	double vb = cset_stat(b, offsetof(struct cpair, field), q); \
	if (isfinite(va)) cJSON_AddNumberToObject(x, "a", va); \
	if (isfinite(vb)) cJSON_AddNumberToObject(x, "b", vb); \
} while (0)
		BOTH("median_gbps", gbps, 50);
		BOTH("p10_gbps", gbps, 10);
		BOTH("median_retrans_per_gb", rpg, 50);
		BOTH("median_rtt_p50_us", p50, 50);
		BOTH("median_rtt_p99_us", p99, 50);
#undef BOTH
		da = design(&st, ra, nets[k], a);
		dbb = design(&st, rb, nets[k], b);
		cJSON_AddItemToObject(o, "design_a", da);
		cJSON_AddItemToObject(o, "design_b", dbb);
		cJSON_AddNumberToObject(o, "errors_a", count_findings(&st, ra,
		    nets[k]));
		cJSON_AddNumberToObject(o, "errors_b", count_findings(&st, rb,
		    nets[k]));
		pairs = cJSON_AddArrayToObject(o, "pairs");
		for (i = 0; i < a->n; i++) {
			struct cpair *p = &a->p[i], *q = NULL;
			cJSON *x;
			int j;

			for (j = 0; j < b->n; j++)
				if (strcmp(b->p[j].key, p->key) == 0)
					q = &b->p[j];
			x = cJSON_CreateObject();
			cJSON_AddStringToObject(x, "pair", p->key);
			if (isfinite(p->gbps))
				cJSON_AddNumberToObject(x, "gbps_a", p->gbps);
			if (q && isfinite(q->gbps))
				cJSON_AddNumberToObject(x, "gbps_b", q->gbps);
			cJSON_AddItemToArray(pairs, x);
		}
		if (json)
			continue;
		printf("%s network%*s %12s %12s %9s\n", nets[k],
		    (int)(15 - strlen(nets[k])), "", "", "", "");
		printf("  %-22s %12lld %12lld\n", "run", (long long)ra,
		    (long long)rb);
		row("median Gbit/s", cset_stat(a, offsetof(struct cpair, gbps), 50),
		    cset_stat(b, offsetof(struct cpair, gbps), 50), "%.2f", true);
		row("p10 Gbit/s", cset_stat(a, offsetof(struct cpair, gbps), 10),
		    cset_stat(b, offsetof(struct cpair, gbps), 10), "%.2f", true);
		row("retransmits/GB (med)", cset_stat(a, offsetof(struct cpair,
		    rpg), 50), cset_stat(b, offsetof(struct cpair, rpg), 50),
		    "%.1f", false);
		row("RTT p50 us (median)", cset_stat(a, offsetof(struct cpair, p50),
		    50), cset_stat(b, offsetof(struct cpair, p50), 50), "%.1f",
		    true);
		row("RTT p99 us (median)", cset_stat(a, offsetof(struct cpair, p99),
		    50), cset_stat(b, offsetof(struct cpair, p99), 50), "%.1f",
		    true);
		row("error findings", count_findings(&st, ra, nets[k]),
		    count_findings(&st, rb, nets[k]), "%.0f", false);
		design_row("streams", da, dbb);
		design_row("paths", da, dbb);
		design_row("routing", da, dbb);
		design_row("spread", da, dbb);
		printf("  per pair, Gbit/s:\n");
		for (i = 0; i < a->n; i++) {
			struct cpair *q = NULL;
			int j;

			for (j = 0; j < b->n; j++)
				if (strcmp(b->p[j].key, a->p[i].key) == 0)
					q = &b->p[j];
			if (!isfinite(a->p[i].gbps) && !(q && isfinite(q->gbps)))
				continue;
			row(a->p[i].key, a->p[i].gbps, q ? q->gbps : NAN,
			    "%.2f", true);
		}
		printf("\n");
	}
	if (shown == 0 && !json)
		printf("no network in common\n");
	if (json)
		out_json(doc);
out:
	cJSON_Delete(ca);
	cJSON_Delete(cb);
	cJSON_Delete(doc);
	store_close(&st);
	free(a);
	free(b);
	return rc;
}
