/* matrix_load: all-to-all and fanout loads, see matrix.h. */
#include "matrix/matrix.h"
#include "text.h"
#include "json.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *
matrix_load_name(enum matrix_load_mode m)
{
	return m == ML_A2A ? "all-to-all" : "fanout";
}

const char *
matrix_load_test(enum matrix_load_mode m)
{
	return m == ML_A2A ? "a2a" : "fanout";
}

int
matrix_load_fanout(int n, const int *rack, int *dst)
{
	int *order, *in, i, k, got;

	if (n < 3)
		return -1;
	order = malloc(sizeof(int) * (size_t)n);
	in = calloc((size_t)n, sizeof(int));
	if (order == NULL || in == NULL) {
		free(order);
		free(in);
		return -1;
	}
	/* Rack order, stable: hosts of a rack side by side. */
	for (i = k = 0; i < n; i++) {
		int j;

		for (j = 0; j < i; j++)
			if (rack[j] == rack[i])
				break;
		if (j < i)
			continue;
		for (j = i; j < n; j++)
			if (rack[j] == rack[i])
				order[k++] = j;
	}
	/* Greedy: each sender takes the receivers in another rack that have
	 * the fewest senders so far, the nearest after it in rack order on
	 * a tie; so racks of equal size give every host two senders. */
	for (i = 0; i < n; i++) {
		int src = order[i];

		for (got = 0; got < 2; got++) {
			int best = -1, bk = 0;

			for (k = 1; k < n; k++) {
				int d = order[(i + k) % n];
				int key = (rack[d] == rack[src]) * 1000000 +
				    in[d] * 1000 + k;

				if (got == 1 && dst[2 * src] == d)
					continue;
				if (best == -1 || key < bk) {
					best = d;
					bk = key;
				}
			}
			dst[2 * src + got] = best;
			in[best]++;
		}
	}
	free(order);
	free(in);
	return 0;
}

static int
scmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* hosts_sorted fills a finding's hosts from a mask, sorted by name. */
static void
hosts_sorted(cJSON *f, const struct matrix_load_view *v, const unsigned char *mask)
{
	const char **s = malloc(sizeof(char *) * (size_t)v->n);
	cJSON *arr = cJSON_GetObjectItem(f, "hosts");
	int i, k = 0;

	if (s == NULL)
		return;
	for (i = 0; i < v->n; i++)
		if (mask[i])
			s[k++] = v->names[i];
	qsort(s, (size_t)k, sizeof(*s), scmp);
	for (i = 0; i < k; i++)
		cJSON_AddItemToArray(arr, cJSON_CreateString(s[i]));
	free(s);
}

static double
r2(double x)
{
	return round(x * 1000) / 1000;
}

/* What the load checks share: the view, the fair shares and what was
 * measured per host. */
struct lctx {
	const struct matrix_load_view *v;
	cJSON *out;
	int n, nflows, nlost, errors;
	double line, thr;
	int *nout, *nin, *lostn;
	double *tx, *rx, *etx, *erx;
	unsigned char *mask, *expl;
	double intra, inter;
	int nintra, ninter;
};

/* load_tally: the flows per host, then each flow's fair share (its
 * sender's line split over the sender's flows, or its receiver's over
 * the receiver's, whichever is less) against what it carried. */
static void
load_tally(struct lctx *c)
{
	const struct matrix_load_view *v = c->v;
	int n = c->n, i, j;

	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++) {
			int k = i * n + j;

			if (i == j || (!isfinite(v->gbps[k]) && !v->lost[k]))
				continue;
			c->nout[i]++;
			c->nin[j]++;
			c->nflows++;
		}
	for (i = 0; c->nflows && i < n; i++)
		for (j = 0; j < n; j++) {
			int k = i * n + j;
			double share;

			if (i == j || (!isfinite(v->gbps[k]) && !v->lost[k]))
				continue;
			share = fmin(c->line / c->nout[i], c->line / c->nin[j]);
			c->etx[i] += share;
			c->erx[j] += share;
			if (v->lost[k]) {
				c->lostn[i]++;
				c->lostn[j]++;
				c->nlost++;
				continue;
			}
			c->tx[i] += v->gbps[k];
			c->rx[j] += v->gbps[k];
			if (v->rack[i] == v->rack[j]) {
				c->intra += v->gbps[k];
				c->nintra++;
			} else {
				c->inter += v->gbps[k];
				c->ninter++;
			}
		}
}

/* load_flow_means: the mean intra- and inter-rack flow into o. */
static void
load_flow_means(const struct lctx *c, cJSON *o)
{
	if (c->nintra)
		cJSON_AddNumberToObject(o, "intra_rack_flow_gbps",
		    r2(c->intra / c->nintra));
	if (c->ninter)
		cJSON_AddNumberToObject(o, "inter_rack_flow_gbps",
		    r2(c->inter / c->ninter));
}

static void
load_hosts(const struct lctx *c, cJSON *harr)
{
	int i;

	for (i = 0; i < c->n; i++) {
		cJSON *h = cJSON_CreateObject();

		cJSON_AddStringToObject(h, "name", c->v->names[i]);
		cJSON_AddNumberToObject(h, "flows_out", c->nout[i]);
		cJSON_AddNumberToObject(h, "flows_in", c->nin[i]);
		cJSON_AddNumberToObject(h, "tx_gbps", r2(c->tx[i]));
		cJSON_AddNumberToObject(h, "rx_gbps", r2(c->rx[i]));
		cJSON_AddNumberToObject(h, "expected_tx_gbps", r2(c->etx[i]));
		cJSON_AddNumberToObject(h, "expected_rx_gbps", r2(c->erx[i]));
		if (c->etx[i] > 0)
			cJSON_AddNumberToObject(h, "tx_pct",
			    round(c->tx[i] / c->etx[i] * 1000) / 10);
		if (c->erx[i] > 0)
			cJSON_AddNumberToObject(h, "rx_pct",
			    round(c->rx[i] / c->erx[i] * 1000) / 10);
		if (c->lostn[i])
			cJSON_AddNumberToObject(h, "lost", c->lostn[i]);
		cJSON_AddItemToArray(harr, h);
	}
}

/* The traffic across one rack's uplinks and its fair share. */
struct rack_sum {
	double out_g, out_e, in_g, in_e;
	int members, lost;
};

static void
rack_sum(const struct lctx *c, int rack, struct rack_sum *s)
{
	const struct matrix_load_view *v = c->v;
	int n = c->n, a, b;

	memset(s, 0, sizeof(*s));
	for (a = 0; a < n; a++) {
		if (v->rack[a] != rack)
			continue;
		s->members++;
		for (b = 0; b < n; b++) {
			int ko = a * n + b, ki = b * n + a;

			if (v->rack[b] == rack)
				continue;
			if (isfinite(v->gbps[ko]) || v->lost[ko]) {
				s->out_e += fmin(c->line / c->nout[a],
				    c->line / c->nin[b]);
				s->out_g += v->lost[ko] ? 0 : v->gbps[ko];
				s->lost += v->lost[ko];
			}
			if (isfinite(v->gbps[ki]) || v->lost[ki]) {
				s->in_e += fmin(c->line / c->nout[b],
				    c->line / c->nin[a]);
				s->in_g += v->lost[ki] ? 0 : v->gbps[ki];
				s->lost += v->lost[ki];
			}
		}
	}
}

/* load_rack: rack of host i (its first host) into rarr, and an
 * oversubscribed finding when its uplinks carried less than the
 * threshold of the fair shares of the flows that had to cross them. */
static void
load_rack(struct lctx *c, int i, cJSON *rarr)
{
	const struct matrix_load_view *v = c->v;
	struct rack_sum s;
	cJSON *r, *f, *ev;
	int a;

	rack_sum(c, v->rack[i], &s);
	if (s.out_e == 0 && s.in_e == 0)
		return;
	r = cJSON_CreateObject();
	cJSON_AddNumberToObject(r, "id", v->rack[i]);
	cJSON_AddNumberToObject(r, "hosts", s.members);
	cJSON_AddNumberToObject(r, "out_gbps", r2(s.out_g));
	cJSON_AddNumberToObject(r, "in_gbps", r2(s.in_g));
	cJSON_AddNumberToObject(r, "expected_out_gbps", r2(s.out_e));
	cJSON_AddNumberToObject(r, "expected_in_gbps", r2(s.in_e));
	cJSON_AddItemToArray(rarr, r);
	/* Judged only when every flow of the rack was measured. */
	if (s.lost || !((s.out_e > 0 && s.out_g < c->thr * s.out_e) ||
	    (s.in_e > 0 && s.in_g < c->thr * s.in_e)))
		return;
	memset(c->mask, 0, (size_t)c->n);
	for (a = 0; a < c->n; a++)
		c->mask[a] = v->rack[a] == v->rack[i];
	f = finding_new(c->out, "oversubscribed", "error", v->net, "the rack's uplinks or "
	    "the spine cannot carry its hosts' line rate at once: count "
	    "uplinks against host ports, check ECMP spreads over all of them, "
	    "and the spine's buffers", "under %s load, traffic leaving or "
	    "entering the rack of %s reached %.2f/%.2f of %.2f/%.2f Gbit/s "
	    "expected (%.0f/%.0f %%)", matrix_load_name(v->mode), v->names[i],
	    s.out_g, s.in_g, s.out_e, s.in_e, s.out_e > 0 ? s.out_g / s.out_e *
	    100 : 0, s.in_e > 0 ? s.in_g / s.in_e * 100 : 0);
	hosts_sorted(f, v, c->mask);
	ev = cJSON_GetObjectItem(f, "evidence");
	cJSON_AddStringToObject(ev, "mode", matrix_load_name(v->mode));
	cJSON_AddNumberToObject(ev, "out_gbps", r2(s.out_g));
	cJSON_AddNumberToObject(ev, "in_gbps", r2(s.in_g));
	cJSON_AddNumberToObject(ev, "expected_out_gbps", r2(s.out_e));
	cJSON_AddNumberToObject(ev, "expected_in_gbps", r2(s.in_e));
	load_flow_means(c, ev);
	/* The rack's hosts are explained: no second finding. */
	for (a = 0; a < c->n; a++)
		c->expl[a] |= c->mask[a];
	c->errors++;
}

/* load_short_hosts: hosts short of their fair share that no rack finding
 * explains: a switch that cannot switch all its ports at line rate, or
 * the host's own port. */
static void
load_short_hosts(struct lctx *c)
{
	const struct matrix_load_view *v = c->v;
	char list[384];
	size_t off = 0;
	int nshort = 0, i;
	cJSON *f;

	memset(c->mask, 0, (size_t)c->n);
	list[0] = '\0';
	for (i = 0; i < c->n; i++) {
		double pt = c->etx[i] > 0 ? c->tx[i] / c->etx[i] : 1;
		double pr = c->erx[i] > 0 ? c->rx[i] / c->erx[i] : 1;

		if (c->lostn[i] || c->expl[i] || (pt >= c->thr &&
		    pr >= c->thr))
			continue;
		c->mask[i] = 1;
		nshort++;
		if (off < sizeof(list) - 64)
			off = text_appendf(list, sizeof(list), off,
			    "%s%s %.2f/%.2f", off ? ", " : "", v->names[i],
			    c->tx[i], c->rx[i]);
	}
	if (nshort == 0)
		return;
	f = finding_new(c->out, "oversubscribed", "error", v->net, "a switch that cannot "
	    "forward all its ports at line rate at once, or these hosts' "
	    "ports: compare with the pairwise matrix", "under %s load, %d "
	    "host%s sent/received below %.0f %% of their fair share (Gbit/s): "
	    "%s", matrix_load_name(v->mode), nshort, nshort > 1 ? "s" : "",
	    c->thr * 100, list);
	hosts_sorted(f, v, c->mask);
	cJSON_AddStringToObject(cJSON_GetObjectItem(f, "evidence"), "mode",
	    matrix_load_name(v->mode));
	c->errors++;
}

static void
load_lost(struct lctx *c)
{
	const struct matrix_load_view *v = c->v;
	cJSON *f;
	int i, j;

	if (c->nlost == 0)
		return;
	memset(c->mask, 0, (size_t)c->n);
	for (i = 0; i < c->n; i++)
		for (j = 0; j < c->n; j++)
			if (i != j && v->lost[i * c->n + j])
				c->mask[i] = c->mask[j] = 1;
	f = finding_new(c->out, "unreachable", "error", v->net, "see the lost flows' "
	    "reasons in the cells; the pairwise matrix names the host",
	    "%d of %d %s flows failed", c->nlost, c->nflows,
	    matrix_load_name(v->mode));
	hosts_sorted(f, v, c->mask);
	c->errors++;
}

static cJSON *
load_section(struct lctx *c)
{
	const struct matrix_load_view *v = c->v;
	cJSON *sec = cJSON_CreateObject(), *rarr;
	int a, i;

	cJSON_AddStringToObject(sec, "mode", matrix_load_name(v->mode));
	cJSON_AddNumberToObject(sec, "seconds", v->seconds);
	cJSON_AddNumberToObject(sec, "flows", c->nflows);
	cJSON_AddNumberToObject(sec, "lost", c->nlost);
	cJSON_AddNumberToObject(sec, "line_gbps", c->line);
	cJSON_AddNumberToObject(sec, "threshold_pct", c->thr * 100);
	load_flow_means(c, sec);
	load_hosts(c, cJSON_AddArrayToObject(sec, "hosts"));
	/* Racks: what crossed each rack's uplinks against the fair shares
	 * of the flows that had to cross them; each rack once. */
	rarr = cJSON_AddArrayToObject(sec, "racks");
	for (i = 0; i < c->n; i++) {
		for (a = 0; a < i && v->rack[a] != v->rack[i]; a++)
			;
		if (a == i)
			load_rack(c, i, rarr);
	}
	load_short_hosts(c);
	load_lost(c);
	return sec;
}

cJSON *
matrix_load_compute(const struct matrix_load_view *v, const struct profile *p,
    cJSON *out, int *errors)
{
	struct lctx c;
	size_t n = (size_t)v->n;
	cJSON *sec = NULL;

	memset(&c, 0, sizeof(c));
	c.v = v;
	c.out = out;
	c.n = v->n;
	c.line = p->line_gbps;
	c.thr = (p->load_pct > 0 ? p->load_pct : p->min_pct) / 100.0;
	c.nout = calloc(n, sizeof(int));
	c.nin = calloc(n, sizeof(int));
	c.lostn = calloc(n, sizeof(int));
	c.tx = calloc(n, sizeof(double));
	c.rx = calloc(n, sizeof(double));
	c.etx = calloc(n, sizeof(double));
	c.erx = calloc(n, sizeof(double));
	c.mask = calloc(n, 1);
	c.expl = calloc(n, 1);
	if (c.nout && c.nin && c.tx && c.rx && c.etx && c.erx && c.lostn &&
	    c.mask && c.expl) {
		load_tally(&c);
		if (c.nflows > 0)
			sec = load_section(&c);
	}
	*errors = c.errors;
	free(c.nout); free(c.nin); free(c.tx); free(c.rx); free(c.etx);
	free(c.erx); free(c.lostn); free(c.mask); free(c.expl);
	return sec;
}

void
matrix_load_terminal(const cJSON *load, const char *net, bool color)
{
	const cJSON *h;
	char err[CF_ERRLEN];
	const char *mode = "?";
	double thr = 0, a, b;

	json_get_str(load, "mode", 0, 32, &mode, err);
	json_get_double(load, "threshold_pct", 0, 100, &thr, err);
	printf("%s network, %s load: Gbit/s per host (fair share)\n", net,
	    mode);
	printf("  %-16s %8s %8s %7s %7s\n", "host", "tx", "rx", "tx %", "rx %");
	cJSON_ArrayForEach(h, cJSON_GetObjectItem(load, "hosts")) {
		const char *name = "?";
		double tp = NAN, rp = NAN;

		json_get_str(h, "name", 0, 64, &name, err);
		a = b = NAN;
		json_get_double(h, "tx_gbps", 0, 1e6, &a, err);
		json_get_double(h, "rx_gbps", 0, 1e6, &b, err);
		json_get_double(h, "tx_pct", 0, 1e6, &tp, err);
		json_get_double(h, "rx_pct", 0, 1e6, &rp, err);
		bool low = (isfinite(tp) && tp < thr) ||
		    (isfinite(rp) && rp < thr);
		printf("  %-16.16s %8.2f %8.2f %7.0f %7.0f%s%s%s\n", name, a, b,
		    tp, rp, low && color ? "\033[31m" : "", low ? "  low" : "",
		    low && color ? "\033[0m" : "");
	}
	a = b = NAN;
	json_get_double(load, "intra_rack_flow_gbps", 0, 1e6, &a, err);
	json_get_double(load, "inter_rack_flow_gbps", 0, 1e6, &b, err);
	if (isfinite(a) || isfinite(b))
		printf("  mean flow: %.2f Gbit/s inside racks, %.2f across\n",
		    a, b);
	printf("\n");
}
