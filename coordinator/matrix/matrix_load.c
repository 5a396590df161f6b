/* mload: all-to-all and fanout loads, see mload.h. */
#include "matrix/matrix.h"
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

static cJSON *
finding(cJSON *out, const char *kind, const char *net, const char *hint,
    const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static cJSON *
finding(cJSON *out, const char *kind, const char *net, const char *hint,
    const char *fmt, ...)
{
	cJSON *f = cJSON_CreateObject();
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	cJSON_AddStringToObject(f, "kind", kind);
	cJSON_AddStringToObject(f, "severity", "error");
	cJSON_AddStringToObject(f, "network", net);
	cJSON_AddArrayToObject(f, "hosts");
	cJSON_AddStringToObject(f, "summary", msg);
	cJSON_AddObjectToObject(f, "evidence");
	cJSON_AddStringToObject(f, "hint", hint);
	cJSON_AddItemToArray(out, f);
	return f;
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

cJSON *
matrix_load_compute(const struct matrix_load_view *v, const struct profile *p,
    cJSON *out, int *errors)
{
	int n = v->n, i, j, nflows = 0, nlost = 0;
	double line = p->line_gbps;
	double thr = (p->load_pct > 0 ? p->load_pct : p->min_pct) / 100.0;
	int *nout = calloc((size_t)n, sizeof(int));
	int *nin = calloc((size_t)n, sizeof(int));
	double *tx = calloc((size_t)n, sizeof(double));
	double *rx = calloc((size_t)n, sizeof(double));
	double *etx = calloc((size_t)n, sizeof(double));
	double *erx = calloc((size_t)n, sizeof(double));
	int *lostn = calloc((size_t)n, sizeof(int));
	unsigned char *mask = calloc((size_t)n, 1);
	unsigned char *expl = calloc((size_t)n, 1);
	double intra = 0, inter = 0;
	int nintra = 0, ninter = 0;
	cJSON *sec = NULL, *harr, *rarr, *f, *ev;

	*errors = 0;
	if (!nout || !nin || !tx || !rx || !etx || !erx || !lostn || !mask ||
	    !expl)
		goto done;
	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++) {
			int k = i * n + j;

			if (i == j || (!isfinite(v->gbps[k]) && !v->lost[k]))
				continue;
			nout[i]++;
			nin[j]++;
			nflows++;
		}
	if (nflows == 0)
		goto done;
	/* A flow's fair share: its sender's line split over the sender's
	 * flows, or its receiver's over the receiver's, whichever is less. */
	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++) {
			int k = i * n + j;
			double share;

			if (i == j || (!isfinite(v->gbps[k]) && !v->lost[k]))
				continue;
			share = fmin(line / nout[i], line / nin[j]);
			etx[i] += share;
			erx[j] += share;
			if (v->lost[k]) {
				lostn[i]++;
				lostn[j]++;
				nlost++;
				continue;
			}
			tx[i] += v->gbps[k];
			rx[j] += v->gbps[k];
			if (v->rack[i] == v->rack[j]) {
				intra += v->gbps[k];
				nintra++;
			} else {
				inter += v->gbps[k];
				ninter++;
			}
		}
	sec = cJSON_CreateObject();
	cJSON_AddStringToObject(sec, "mode", matrix_load_name(v->mode));
	cJSON_AddNumberToObject(sec, "seconds", v->seconds);
	cJSON_AddNumberToObject(sec, "flows", nflows);
	cJSON_AddNumberToObject(sec, "lost", nlost);
	cJSON_AddNumberToObject(sec, "line_gbps", line);
	cJSON_AddNumberToObject(sec, "threshold_pct", thr * 100);
	if (nintra)
		cJSON_AddNumberToObject(sec, "intra_rack_flow_gbps",
		    r2(intra / nintra));
	if (ninter)
		cJSON_AddNumberToObject(sec, "inter_rack_flow_gbps",
		    r2(inter / ninter));
	harr = cJSON_AddArrayToObject(sec, "hosts");
	for (i = 0; i < n; i++) {
		cJSON *h = cJSON_CreateObject();

		cJSON_AddStringToObject(h, "name", v->names[i]);
		cJSON_AddNumberToObject(h, "flows_out", nout[i]);
		cJSON_AddNumberToObject(h, "flows_in", nin[i]);
		cJSON_AddNumberToObject(h, "tx_gbps", r2(tx[i]));
		cJSON_AddNumberToObject(h, "rx_gbps", r2(rx[i]));
		cJSON_AddNumberToObject(h, "expected_tx_gbps", r2(etx[i]));
		cJSON_AddNumberToObject(h, "expected_rx_gbps", r2(erx[i]));
		if (etx[i] > 0)
			cJSON_AddNumberToObject(h, "tx_pct",
			    round(tx[i] / etx[i] * 1000) / 10);
		if (erx[i] > 0)
			cJSON_AddNumberToObject(h, "rx_pct",
			    round(rx[i] / erx[i] * 1000) / 10);
		if (lostn[i])
			cJSON_AddNumberToObject(h, "lost", lostn[i]);
		cJSON_AddItemToArray(harr, h);
	}
	/* Racks: what crossed each rack's uplinks against the fair shares of
	 * the flows that had to cross them. */
	rarr = cJSON_AddArrayToObject(sec, "racks");
	for (i = 0; i < n; i++) {
		double out_g = 0, out_e = 0, in_g = 0, in_e = 0;
		int a, b, members = 0, lost = 0;
		cJSON *r;

		for (a = 0; a < i; a++)
			if (v->rack[a] == v->rack[i])
				break;
		if (a < i)
			continue;
		for (a = 0; a < n; a++) {
			if (v->rack[a] != v->rack[i])
				continue;
			members++;
			for (b = 0; b < n; b++) {
				int ko = a * n + b, ki = b * n + a;

				if (v->rack[b] == v->rack[i])
					continue;
				if (isfinite(v->gbps[ko]) || v->lost[ko]) {
					out_e += fmin(line / nout[a],
					    line / nin[b]);
					out_g += v->lost[ko] ? 0 : v->gbps[ko];
					lost += v->lost[ko];
				}
				if (isfinite(v->gbps[ki]) || v->lost[ki]) {
					in_e += fmin(line / nout[b],
					    line / nin[a]);
					in_g += v->lost[ki] ? 0 : v->gbps[ki];
					lost += v->lost[ki];
				}
			}
		}
		if (out_e == 0 && in_e == 0)
			continue;
		r = cJSON_CreateObject();
		cJSON_AddNumberToObject(r, "id", v->rack[i]);
		cJSON_AddNumberToObject(r, "hosts", members);
		cJSON_AddNumberToObject(r, "out_gbps", r2(out_g));
		cJSON_AddNumberToObject(r, "in_gbps", r2(in_g));
		cJSON_AddNumberToObject(r, "expected_out_gbps", r2(out_e));
		cJSON_AddNumberToObject(r, "expected_in_gbps", r2(in_e));
		cJSON_AddItemToArray(rarr, r);
		/* Judged only when every flow of the rack was measured. */
		if (lost || !((out_e > 0 && out_g < thr * out_e) ||
		    (in_e > 0 && in_g < thr * in_e)))
			continue;
		memset(mask, 0, (size_t)n);
		for (a = 0; a < n; a++)
			mask[a] = v->rack[a] == v->rack[i];
		f = finding(out, "oversubscribed", v->net, "the rack's uplinks "
		    "or the spine cannot carry its hosts' line rate at once: "
		    "count uplinks against host ports, check ECMP spreads "
		    "over all of them, and the spine's buffers",
		    "under %s load, traffic leaving or entering the rack of "
		    "%s reached %.2f/%.2f of %.2f/%.2f Gbit/s expected "
		    "(%.0f/%.0f %%)", matrix_load_name(v->mode), v->names[i], out_g,
		    in_g, out_e, in_e, out_e > 0 ? out_g / out_e * 100 : 0,
		    in_e > 0 ? in_g / in_e * 100 : 0);
		hosts_sorted(f, v, mask);
		ev = cJSON_GetObjectItem(f, "evidence");
		cJSON_AddStringToObject(ev, "mode", matrix_load_name(v->mode));
		cJSON_AddNumberToObject(ev, "out_gbps", r2(out_g));
		cJSON_AddNumberToObject(ev, "in_gbps", r2(in_g));
		cJSON_AddNumberToObject(ev, "expected_out_gbps", r2(out_e));
		cJSON_AddNumberToObject(ev, "expected_in_gbps", r2(in_e));
		if (nintra)
			cJSON_AddNumberToObject(ev, "intra_rack_flow_gbps",
			    r2(intra / nintra));
		if (ninter)
			cJSON_AddNumberToObject(ev, "inter_rack_flow_gbps",
			    r2(inter / ninter));
		/* The rack's hosts are explained: no second finding. */
		for (a = 0; a < n; a++)
			expl[a] |= mask[a];
		(*errors)++;
	}
	/* Hosts short of their fair share that no rack finding explains:
	 * a switch that cannot switch all its ports at line rate, or the
	 * host's own port. */
	memset(mask, 0, (size_t)n);
	{
		char list[384];
		size_t off = 0;
		int nshort = 0;

		list[0] = '\0';
		for (i = 0; i < n; i++) {
			double pt = etx[i] > 0 ? tx[i] / etx[i] : 1;
			double pr = erx[i] > 0 ? rx[i] / erx[i] : 1;

			if (lostn[i] || expl[i] || (pt >= thr && pr >= thr))
				continue;
			mask[i] = 1;
			nshort++;
			if (off < sizeof(list) - 64)
				off += (size_t)snprintf(list + off,
				    sizeof(list) - off, "%s%s %.2f/%.2f",
				    off ? ", " : "", v->names[i], tx[i], rx[i]);
		}
		if (nshort) {
			f = finding(out, "oversubscribed", v->net, "a switch "
			    "that cannot forward all its ports at line rate "
			    "at once, or these hosts' ports: compare with the "
			    "pairwise matrix",
			    "under %s load, %d host%s sent/received below "
			    "%.0f %% of their fair share (Gbit/s): %s",
			    matrix_load_name(v->mode), nshort, nshort > 1 ? "s" : "",
			    thr * 100, list);
			hosts_sorted(f, v, mask);
			cJSON_AddStringToObject(cJSON_GetObjectItem(f,
			    "evidence"), "mode", matrix_load_name(v->mode));
			(*errors)++;
		}
	}
	if (nlost) {
		memset(mask, 0, (size_t)n);
		for (i = 0; i < n; i++)
			for (j = 0; j < n; j++)
				if (i != j && v->lost[i * n + j])
					mask[i] = mask[j] = 1;
		f = finding(out, "unreachable", v->net, "see the lost flows' "
		    "reasons in the cells; the pairwise matrix names the host",
		    "%d of %d %s flows failed", nlost, nflows,
		    matrix_load_name(v->mode));
		hosts_sorted(f, v, mask);
		(*errors)++;
	}
done:
	free(nout); free(nin); free(tx); free(rx); free(etx); free(erx);
	free(lostn); free(mask); free(expl);
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
