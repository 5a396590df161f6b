/*
 * mreport: a matrix run's result tree, from its stored cells, and its
 * renderings: terminal (coloured on a TTY), self-contained HTML heatmap,
 * JUnit and Prometheus text. See docs/json.md for the tree.
 */
#include "report/report.h"
#include "matrix/matrix.h"
#include "json.h"
#include "store/store.h"
#include "facts/topology.h"
#include "probes/probes.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct cellv {
	double gbps, rpg, p50, p99, mconf, mpath;
	double lp99;			/* RTT p99 under load */
	double smin;			/* lowest path share x paths (1 =
					   fair), NAN when one path */
	int spaths, sunused, streams;
	int lost, pbad, egress, skipped;
	/* Owned strings, NULL when unset: a 256-host grid of fixed
	 * buffers would be 50 MB per network. */
	char *why, *ports, *egress_what;
};

static void
setstr(char **p, const char *v)
{
	free(*p);
	*p = strdup(v);
}

static int
host_index(struct inv_host **h, int n, const char *name)
{
	int i;

	for (i = 0; i < n; i++)
		if (strcmp(h[i]->name, name) == 0)
			return i;
	return -1;
}

static void
lost_cell(struct cellv *c, const cJSON *data)
{
	char err[CF_ERRLEN];
	const char *e;

	c->lost = 1;
	if (c->why == NULL && json_opt_str(data, "error", 0, 512, "lost", &e,
	    err) == 0)
		setstr(&c->why, e);
}

static void
egress_from(struct cellv *cv, struct inv_host **h, int n, int net_cells_n,
    const cJSON *data, struct cellv *grid)
{
	const cJSON *fs = cJSON_GetObjectItemCaseSensitive(data, "findings");
	const cJSON *res = cJSON_GetObjectItemCaseSensitive(data, "results");
	const cJSON *f, *r;
	char err[CF_ERRLEN];

	(void)cv;
	(void)net_cells_n;
	cJSON_ArrayForEach(f, fs) {
		const char *k, *d;

		if (json_get_str(f, "kind", 0, 32, &k, err) == -1 ||
		    strcmp(k, "wrong_egress") != 0 ||
		    json_get_str(f, "detail", 0, 512, &d, err) == -1)
			continue;
		/* Which result: the runner named first in the detail. */
		cJSON_ArrayForEach(r, res) {
			const char *from, *to;
			int a, b;

			if (json_get_str(r, "from", 0, 64, &from, err) == -1 ||
			    json_get_str(r, "to", 0, 64, &to, err) == -1 ||
			    strncmp(d, from, strlen(from)) != 0)
				continue;
			a = host_index(h, n, from);
			b = host_index(h, n, to);
			if (a >= 0 && b >= 0) {
				grid[a * n + b].egress = 1;
				setstr(&grid[a * n + b].egress_what, d);
			}
		}
	}
}

static void
fold(struct cellv *g, struct inv_host **h, int n, const cJSON *c)
{
	char err[CF_ERRLEN];
	const char *t, *s, *d, *st;
	const cJSON *data, *x, *y;
	int a, b, k;
	double v;

	if (json_get_str(c, "test", 0, 16, &t, err) == -1 ||
	    strcmp(t, "a2a") == 0 || strcmp(t, "fanout") == 0 ||
	    json_get_str(c, "src", 0, 64, &s, err) == -1 ||
	    json_get_str(c, "dst", 0, 64, &d, err) == -1 ||
	    json_get_str(c, "state", 0, 16, &st, err) == -1 ||
	    json_get_obj(c, "data", &data, err) == -1)
		return;
	a = host_index(h, n, s);
	b = host_index(h, n, d);
	if (a < 0 || b < 0)
		return;
	if (strcmp(st, "skipped") == 0) {
		/* Bandwidth across an MTU black hole: not measured. */
		g[a * n + b].skipped = g[b * n + a].skipped = 1;
		return;
	}
	if (strcmp(st, "lost") == 0 && strcmp(t, "lat_load") == 0)
		return;		/* under load: an idle measurement stands */
	if (strcmp(st, "lost") == 0) {
		lost_cell(&g[a * n + b], data);
		if (strcmp(t, "ports") != 0)
			lost_cell(&g[b * n + a], data);
		return;
	}
	if (strcmp(t, "bw") == 0 && json_get_obj(data, "end", &x, err) == 0) {
		double streams = 0;
		const cJSON *o2;

		if (json_get_obj(data, "start", &o2, err) == 0 &&
		    json_get_obj(o2, "options", &o2, err) == 0)
			json_get_double(o2, "streams", 0, 1e6, &streams, err);
		for (k = 0; k < 2; k++) {
			struct cellv *cv = k ? &g[b * n + a] : &g[a * n + b];
			const cJSON *sp, *l;

			/* What the sender's paths carried (spread.c). */
			if (json_get_obj(x, "spread", &sp, err) == 0 &&
			    json_get_obj(sp, k ? "b" : "a", &sp, err) == 0 &&
			    json_get_obj(sp, "tx", &sp, err) == 0) {
				double paths = 0, sh;

				json_get_double(sp, "paths", 0, 64, &paths, err);
				cv->spaths = (int)paths;
				cv->streams = (int)streams;
				cv->sunused = cJSON_GetArraySize(
				    cJSON_GetObjectItem(sp, "unused"));
				cJSON_ArrayForEach(l, cJSON_GetObjectItem(sp,
				    "links"))
					if (paths >= 2 && json_get_double(l,
					    "share", 0, 1, &sh, err) == 0 &&
					    !(sh * paths >= cv->smin))
						cv->smin = sh * paths;
			}

			if (json_get_obj(x, k ? "sum_reverse" : "sum", &y,
			    err) == -1)
				continue;
			if (json_get_double(y, "bits_per_second", 0, 1e15, &v,
			    err) == 0)
				cv->gbps = v / 1e9;
			if (isfinite(v = pair_result_loss_rpg(y)))
				cv->rpg = v;
		}
	} else if (strcmp(t, "lat_load") == 0) {
		const cJSON *r, *sz, *rtt;

		/* The mesh measured each direction: keep each. */
		cJSON_ArrayForEach(r, cJSON_GetObjectItem(data, "results")) {
			const char *from, *to;
			int i2, j2;

			if (json_get_str(r, "from", 0, 64, &from, err) == -1 ||
			    json_get_str(r, "to", 0, 64, &to, err) == -1 ||
			    (i2 = host_index(h, n, from)) < 0 ||
			    (j2 = host_index(h, n, to)) < 0)
				continue;
			cJSON_ArrayForEach(sz, cJSON_GetObjectItem(r, "sizes"))
				if (json_get_obj(sz, "rtt", &rtt, err) == 0)
					json_get_double(rtt, "p99_us", 0, 1e12,
					    &g[i2 * n + j2].lp99, err);
		}
	} else if (strcmp(t, "lat") == 0) {
		const cJSON *res = cJSON_GetArrayItem(cJSON_GetObjectItem(data,
		    "results"), 0), *sz, *rtt;

		/* The 2000-byte size (Ceph's heartbeat) stands for the
		 * pair; the RTT is the same both ways. */
		cJSON_ArrayForEach(sz, cJSON_GetObjectItem(res, "sizes")) {
			if (json_get_double(sz, "size", 0, 1e6, &v, err) == 0 &&
			    v == 2000 && json_get_obj(sz, "rtt", &rtt, err) == 0) {
				for (k = 0; k < 2; k++) {
					struct cellv *cv = k ? &g[b * n + a] :
					    &g[a * n + b];

					json_get_double(rtt, "p50_us", 0, 1e12,
					    &cv->p50, err);
					json_get_double(rtt, "p99_us", 0, 1e12,
					    &cv->p99, err);
				}
			}
		}
		egress_from(NULL, h, n, 0, data, g);
	} else if (strcmp(t, "mtu") == 0) {
		const cJSON *r;

		cJSON_ArrayForEach(r, cJSON_GetObjectItem(data, "results")) {
			const char *from, *to;
			int i, j;

			if (json_get_str(r, "from", 0, 64, &from, err) == -1 ||
			    json_get_str(r, "to", 0, 64, &to, err) == -1)
				continue;
			i = host_index(h, n, from);
			j = host_index(h, n, to);
			if (i < 0 || j < 0)
				continue;
			json_get_double(r, "configured", 0, 1e6,
			    &g[i * n + j].mconf, err);
			json_get_double(r, "path", 0, 1e6, &g[i * n + j].mpath,
			    err);
		}
		egress_from(NULL, h, n, 0, data, g);
	} else if (strcmp(t, "ports") == 0) {
		const cJSON *r = cJSON_GetArrayItem(cJSON_GetObjectItem(data,
		    "results"), 0), *p;
		struct cellv *cv = &g[a * n + b];
		char pb[256];
		size_t off = 0;

		cJSON_ArrayForEach(p, cJSON_GetObjectItem(r, "ports")) {
			const char *state;

			if (json_get_double(p, "port", 0, 65535, &v, err) == -1 ||
			    json_get_str(p, "state", 0, 16, &state, err) == -1 ||
			    strcmp(state, "open") == 0)
				continue;
			cv->pbad++;
			if (off < sizeof(pb) - 24)
				off += (size_t)snprintf(pb + off,
				    sizeof(pb) - off, "%s%.0f %s",
				    off ? ", " : "", v, state);
		}
		if (off)
			setstr(&cv->ports, pb);
		egress_from(NULL, h, n, 0, data, g);
	}
}

/* load_sections adds the network's all-to-all and fanout loads, if any
 * ran, as "load": {"all-to-all": {...}, "fanout": {...}}. */
struct load_acc {
	struct inv_host **h;
	int n;
	double *gbps;		/* [n * n] Gbit/s, then [n * n] retransmits/GB */
	int *lost;
	int any;
	double secs;
};

static void
load_cb(const cJSON *c, void *arg)
{
	struct load_acc *L = arg;
	char err[CF_ERRLEN];
	const char *s, *d, *st;
	const cJSON *data, *x;
	int a, b, n = L->n;
	double y;

	if (json_get_str(c, "src", 0, 64, &s, err) == -1 ||
	    json_get_str(c, "dst", 0, 64, &d, err) == -1 ||
	    json_get_str(c, "state", 0, 16, &st, err) == -1 ||
	    json_get_obj(c, "data", &data, err) == -1 ||
	    (a = host_index(L->h, n, s)) < 0 ||
	    (b = host_index(L->h, n, d)) < 0 ||
	    strcmp(st, "skipped") == 0)
		return;
	L->any = 1;
	if (strcmp(st, "lost") == 0) {
		L->lost[a * n + b] = 1;
		return;
	}
	if (json_get_obj(data, "end", &x, err) == 0 &&
	    json_get_obj(x, "sum", &x, err) == 0) {
		if (json_get_double(x, "bits_per_second", 0, 1e15, &y, err) == 0)
			L->gbps[a * n + b] = y / 1e9;
		if (isfinite(y = pair_result_loss_rpg(x)))
			L->gbps[n * n + a * n + b] = y;
	}
	if (!isfinite(L->gbps[a * n + b]))
		L->lost[a * n + b] = 1;
	if (L->secs == 0 && json_get_obj(data, "start", &x, err) == 0 &&
	    json_get_obj(x, "options", &x, err) == 0)
		json_get_double(x, "duration", 0, 1e6, &L->secs, err);
}

static void
load_sections(cJSON *nj, struct inv_host **h, int n, const char **names,
    const int *rack, struct store *st, int64_t run, const char *nn,
    const struct profile *prof, cJSON *fs, int *errors)
{
	double *gbps = malloc(sizeof(double) * (size_t)(n * n) * 2);
	int *lost = calloc((size_t)(n * n), sizeof(int));
	cJSON *load = NULL;
	int mode, k;

	for (mode = ML_A2A; gbps && lost && mode <= ML_FANOUT; mode++) {
		struct load_acc L = { h, n, gbps, lost, 0, 0 };
		struct matrix_load_view v;
		cJSON *sec;
		int e = 0;

		for (k = 0; k < 2 * n * n; k++)
			gbps[k] = NAN;
		memset(lost, 0, sizeof(int) * (size_t)(n * n));
		store_each(st, run, nn, matrix_load_test(mode), load_cb, &L);
		if (!L.any)
			continue;
		memset(&v, 0, sizeof(v));
		v.mode = mode;
		v.net = nn;
		v.n = n;
		v.names = names;
		v.rack = rack;
		v.gbps = gbps;
		v.rpg = gbps + n * n;
		v.lost = lost;
		v.seconds = L.secs;
		sec = matrix_load_compute(&v, prof, fs, &e);
		*errors += e;
		if (sec == NULL)
			continue;
		if (load == NULL)
			load = cJSON_AddObjectToObject(nj, "load");
		cJSON_AddItemToObject(load, matrix_load_name(mode), sec);
	}
	free(gbps);
	free(lost);
}

static cJSON *
num_or_null(double v)
{
	return isfinite(v) ? cJSON_CreateNumber(v) : cJSON_CreateNull();
}

/* ceph_join: Ceph's heartbeat matrix (back for the cluster network,
 * front for the public) beside each measured pair, as ceph_ping_ms; a
 * high_latency finding on a pair Ceph also sees slow carries both. */
static void
ceph_join(const cJSON *c, void *arg)
{
	cJSON *doc = arg, *nj, *cell, *f;
	const cJSON *data, *hc, *itf;
	char err[CF_ERRLEN];
	int k;

	if (json_get_obj(c, "data", &data, err) == -1 ||
	    json_get_obj(data, "interfaces", &itf, err) == -1)
		return;
	cJSON_AddItemToObject(doc, "ceph_heartbeats", cJSON_Duplicate(data,
	    1));
	for (k = 0; k < 2; k++) {
		const cJSON *cells = cJSON_GetObjectItem(cJSON_GetObjectItem(
		    itf, k ? "back" : "front"), "cells");

		nj = cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "networks"),
		    k ? "cluster" : "public");
		cJSON_ArrayForEach(cell, cJSON_GetObjectItem(nj, "cells")) {
			const char *s, *d, *hs, *hd;
			double v;

			if (json_get_str(cell, "src", 0, 64, &s, err) == -1 ||
			    json_get_str(cell, "dst", 0, 64, &d, err) == -1)
				continue;
			cJSON_ArrayForEach(hc, cells)
				if (json_get_str(hc, "src", 0, 64, &hs, err) == 0 &&
				    json_get_str(hc, "dst", 0, 64, &hd, err) ==
				    0 && strcmp(hs, s) == 0 && strcmp(hd, d) ==
				    0 && json_get_double(hc, "avg_1min_ms", 0,
				    1e9, &v, err) == 0)
					cJSON_AddNumberToObject(cell,
					    "ceph_ping_ms", v);
		}
		cJSON_ArrayForEach(f, cJSON_GetObjectItem(doc, "findings")) {
			const char *kind, *net, *a, *b, *hs, *hd;
			const cJSON *hosts = cJSON_GetObjectItem(f, "hosts");
			double v, worst = 0;
			char msg[700];

			if (json_get_str(f, "kind", 0, 32, &kind, err) == -1 ||
			    strcmp(kind, "high_latency") != 0 ||
			    json_get_str(f, "network", 0, 16, &net, err) == -1 ||
			    strcmp(net, k ? "cluster" : "public") != 0 ||
			    cJSON_GetArraySize(hosts) != 2)
				continue;
			a = cJSON_GetArrayItem(hosts, 0)->valuestring;
			b = cJSON_GetArrayItem(hosts, 1)->valuestring;
			cJSON_ArrayForEach(hc, cells)
				if (json_get_str(hc, "src", 0, 64, &hs, err) == 0 &&
				    json_get_str(hc, "dst", 0, 64, &hd, err) ==
				    0 && ((strcmp(hs, a) == 0 && strcmp(hd,
				    b) == 0) || (strcmp(hs, b) == 0 &&
				    strcmp(hd, a) == 0)) && json_get_double(hc,
				    "avg_1min_ms", 0, 1e9, &v, err) == 0 &&
				    v > worst)
					worst = v;
			if (worst <= 0)
				continue;
			cJSON_AddNumberToObject(cJSON_GetObjectItem(f,
			    "evidence"), "ceph_ping_ms", worst);
			snprintf(msg, sizeof(msg), "%s; Ceph's own heartbeats "
			    "on this pair: %.2f ms", cJSON_GetObjectItem(f,
			    "summary")->valuestring, worst);
			cJSON_ReplaceItemInObject(f, "summary",
			    cJSON_CreateString(msg));
		}
	}
}

struct fold_acc {
	struct cellv *g;
	struct inv_host **h;
	int n, any;
};

static void
fold_cb(const cJSON *c, void *arg)
{
	struct fold_acc *F = arg;

	fold(F->g, F->h, F->n, c);
	F->any = 1;
}

static void
grid_free(struct cellv *g, int n)
{
	int k;

	for (k = 0; g && k < n * n; k++) {
		free(g[k].why);
		free(g[k].ports);
		free(g[k].egress_what);
	}
	free(g);
}

cJSON *
report_build(struct inventory *inv, const struct matrix_opts *o, int64_t run,
    struct store *st, int *errors)
{
	cJSON *doc = cJSON_CreateObject(), *hosts, *nets, *fs;
	struct inv_host **h, *x;
	int n = inv->nhosts, i, j, net, k;

	h = calloc((size_t)n, sizeof(*h));
	i = 0;
	TAILQ_FOREACH(x, &inv->hosts, entry)
		h[i++] = x;
	cJSON_AddNumberToObject(doc, "run", (double)run);
	cJSON_AddStringToObject(doc, "inventory", inv->path);
	cJSON_AddStringToObject(doc, "profile", o->prof.name);
	cJSON_AddNumberToObject(doc, "floor_gbps", o->prof.line_gbps *
	    o->prof.min_pct / 100);
	hosts = cJSON_AddArrayToObject(doc, "hosts");
	for (i = 0; i < n; i++) {
		cJSON *o2 = cJSON_CreateObject();

		cJSON_AddStringToObject(o2, "name", h[i]->name);
		cJSON_AddStringToObject(o2, "rack", h[i]->rack);
		cJSON_AddItemToArray(hosts, o2);
	}
	nets = cJSON_AddObjectToObject(doc, "networks");
	fs = cJSON_AddArrayToObject(doc, "findings");
	*errors = 0;
	for (net = 0; net < 2; net++) {
		const char *nn = net ? "cluster" : "public";
		struct cellv *g = calloc((size_t)(n * n), sizeof(*g));
		double *bw = malloc(sizeof(double) * (size_t)(n * n) * 7);
		int *ints = calloc((size_t)(n * n) * 6, sizeof(int));
		const char **strs = calloc((size_t)(n * n) * 3, sizeof(char *));
		const char **names = calloc((size_t)n, sizeof(char *));
		int *rack = calloc((size_t)n, sizeof(int));
		struct fold_acc F = { g, h, n, 0 };
		cJSON *nj, *carr;
		struct mview v;

		for (k = 0; k < n * n; k++) {
			g[k].gbps = g[k].rpg = g[k].p50 = g[k].p99 = NAN;
			g[k].mconf = g[k].mpath = g[k].lp99 = NAN;
			g[k].smin = NAN;
		}
		store_each(st, run, nn, NULL, fold_cb, &F);
		if (!F.any) {
			grid_free(g, n);
			free(bw); free(ints); free(strs); free(names);
			free(rack);
			continue;
		}
		nj = cJSON_AddObjectToObject(nets, nn);
		carr = cJSON_AddArrayToObject(nj, "cells");
		for (i = 0; i < n; i++) {
			names[i] = h[i]->name;
			for (k = 0; k < i; k++)
				if (strcmp(h[k]->rack, h[i]->rack) == 0)
					break;
			rack[i] = k == i ? i : rack[k];
		}
		for (k = 0; k < n * n; k++) {
			bw[k] = g[k].gbps;
			bw[n * n + k] = g[k].rpg;
			bw[2 * n * n + k] = g[k].p99;
			bw[3 * n * n + k] = g[k].mconf;
			bw[4 * n * n + k] = g[k].mpath;
			bw[5 * n * n + k] = g[k].lp99;
			bw[6 * n * n + k] = g[k].smin;
			ints[3 * n * n + k] = g[k].spaths;
			ints[4 * n * n + k] = g[k].sunused;
			ints[5 * n * n + k] = g[k].streams;
			ints[k] = g[k].lost;
			ints[n * n + k] = g[k].pbad;
			ints[2 * n * n + k] = g[k].egress;
			strs[k] = g[k].why;
			strs[n * n + k] = g[k].ports;
			strs[2 * n * n + k] = g[k].egress_what;
		}
		for (i = 0; i < n; i++) {
			for (j = 0; j < n; j++) {
				struct cellv *cv = &g[i * n + j];
				cJSON *cj;

				if (i == j)
					continue;
				cj = cJSON_CreateObject();
				cJSON_AddStringToObject(cj, "src", h[i]->name);
				cJSON_AddStringToObject(cj, "dst", h[j]->name);
				cJSON_AddItemToObject(cj, "gbps",
				    num_or_null(cv->gbps));
				cJSON_AddItemToObject(cj, "retrans_per_gb",
				    num_or_null(cv->rpg));
				cJSON_AddItemToObject(cj, "rtt_p50_us",
				    num_or_null(cv->p50));
				cJSON_AddItemToObject(cj, "rtt_p99_us",
				    num_or_null(cv->p99));
				if (isfinite(cv->lp99))
					cJSON_AddNumberToObject(cj,
					    "rtt_loaded_p99_us", cv->lp99);
				cJSON_AddItemToObject(cj, "path_mtu",
				    num_or_null(cv->mpath));
				cJSON_AddItemToObject(cj, "configured_mtu",
				    num_or_null(cv->mconf));
				cJSON_AddStringToObject(cj, "ports",
				    cv->pbad && cv->ports ? cv->ports : "open");
				cJSON_AddStringToObject(cj, "state", cv->lost ?
				    "lost" : cv->skipped && !isfinite(cv->gbps) ?
				    "skipped" : "ok");
				if (cv->lost)
					cJSON_AddStringToObject(cj, "reason",
					    cv->why ? cv->why : "lost");
				cJSON_AddItemToArray(carr, cj);
			}
		}
		memset(&v, 0, sizeof(v));
		v.net = nn;
		v.n = n;
		v.names = names;
		v.rack = rack;
		v.gbps = bw;
		v.rpg = bw + n * n;
		v.p99 = bw + 2 * n * n;
		v.mtu_conf = bw + 3 * n * n;
		v.mtu_path = bw + 4 * n * n;
		v.p99_loaded = bw + 5 * n * n;
		v.spread_min = bw + 6 * n * n;
		v.spread_paths = ints + 3 * n * n;
		v.spread_unused = ints + 4 * n * n;
		v.streams = ints + 5 * n * n;
		v.lost = ints;
		v.lost_why = strs;
		v.ports_bad = ints + n * n;
		v.ports_what = strs + n * n;
		v.wrong_egress = ints + 2 * n * n;
		v.egress_what = strs + 2 * n * n;
		*errors += findings_compute(&v, &o->prof, fs);
		load_sections(nj, h, n, names, rack, st, run, nn, &o->prof, fs,
		    errors);
		grid_free(g, n);
		free(bw); free(ints); free(strs); free(names);
		free(rack);
	}
	{
		/* The hosts' facts (--tests facts): topology findings and
		 * the paths summary beside the numbers. */
		cJSON *fh = cJSON_CreateArray();

		store_each(st, run, "host", "facts", topology_cell_cb, fh);
		if (cJSON_GetArraySize(fh) > 0) {
			*errors += topology_findings(inv, fh, &o->prof, fs);
			cJSON_AddItemToObject(doc, "topology",
			    topology_summary(inv, fh));
		}
		cJSON_Delete(fh);
	}
	store_each(st, run, "ceph", "heartbeats", ceph_join, doc);
	cJSON_AddStringToObject(doc, "verdict", *errors ? "fail" : "pass");
	free(h);
	return doc;
}

/* --- terminal -------------------------------------------------------- */

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

void
report_terminal(const cJSON *doc, bool color)
{
	const cJSON *hosts = cJSON_GetObjectItem(doc, "hosts");
	const cJSON *nets = cJSON_GetObjectItem(doc, "networks"), *net, *c, *f;
	int n = cJSON_GetArraySize(hosts), i, j;
	double floor = 0;
	char err[CF_ERRLEN];

	json_get_double(doc, "floor_gbps", 0, 1e6, &floor, err);

	cJSON_ArrayForEach(net, nets) {
		const cJSON *cells = cJSON_GetObjectItem(net, "cells"), *ld;
		const cJSON **idx = cell_index(cells, n);
		bool bw = false, rtt = false;

		if (idx == NULL)
			continue;

		/* Gbit/s when there are any; else the RTT (a lat-only run). */
		cJSON_ArrayForEach(c, cells) {
			bw |= isfinite(cnum(c, "gbps"));
			rtt |= isfinite(cnum(c, "rtt_p99_us"));
		}
		if (bw || rtt)
			printf("%s network: %s, row %s column\n", net->string,
			    bw ? "Gbit/s" : "RTT p99 in microseconds",
			    bw ? "sends to" : "probes");
		if ((bw || rtt) && n > 32) {
			host_summary(hosts, idx, n, bw, floor, color);
		} else if (bw || rtt) {
			printf("%8s", "");
			for (j = 0; j < n; j++)
				printf(" %7.7s", hname(hosts, j));
			printf("\n");
			for (i = 0; i < n; i++) {
				printf("%-8.8s", hname(hosts, i));
				for (j = 0; j < n; j++) {
					const char *st = "";
					double g;

					if (i == j) {
						printf(" %7s", "-");
						continue;
					}
					c = cell_at(idx, n, i, j);
					g = cnum(c, bw ? "gbps" : "rtt_p99_us");
					json_get_str(c, "state", 0, 16, &st, err);
					if (strcmp(st, "lost") == 0)
						printf(" %s%7s%s", color ?
						    "\033[35m" : "", "lost",
						    color ? "\033[0m" : "");
					else if (strcmp(st, "skipped") == 0)
						printf(" %s%7s%s", color ?
						    "\033[31m" : "", "mtu!",
						    color ? "\033[0m" : "");
					else if (!isfinite(g))
						printf(" %7s", "?");
					else if (!bw)
						printf(" %7.0f", g);
					else
						printf(" %s%7.2f%s", !color ?
						    "" : g < floor ?
						    "\033[31m" : g < floor *
						    1.15 ? "\033[33m" :
						    "\033[32m", g, color ?
						    "\033[0m" : "");
				}
				printf("\n");
			}
			printf("\n");
		}
		if (bw) {
			printf("  floor %.2f Gbit/s (profile %s)%s\n", floor,
			    dstr(doc, "profile"), color ?
			    ": \033[32mok\033[0m \033[33mnear\033[0m "
			    "\033[31mbelow\033[0m \033[35mlost\033[0m" : "");
			printf("  mtu! = not measured: an MTU black hole on "
			    "the path\n\n");
		}
		cJSON_ArrayForEach(ld, cJSON_GetObjectItem(net, "load"))
			matrix_load_terminal(ld, net->string, color);
		free(idx);
	}
	if (cJSON_GetObjectItem(doc, "topology")) {
		const cJSON *t;

		printf("paths:\n");
		cJSON_ArrayForEach(t, cJSON_GetObjectItem(doc, "topology")) {
			const char *hn = "?", *pu = "", *cl = "", *fr = "";

			json_get_str(t, "host", 0, 64, &hn, err);
			json_opt_str(t, "public", 0, 256, "", &pu, err);
			json_opt_str(t, "cluster", 0, 256, "", &cl, err);
			json_opt_str(t, "frr", 0, 256, "", &fr, err);
			printf("  %-10.10s public: %s; cluster: %s%s%s\n", hn,
			    pu, cl, fr[0] ? "; " : "", fr);
		}
		printf("\n");
	}
	f = cJSON_GetObjectItem(doc, "findings");
	if (cJSON_GetArraySize(f) == 0)
		printf("no findings\n");
	cJSON_ArrayForEach(c, f) {
		const char *k = "", *sev = "", *s = "", *hint = "";

		json_get_str(c, "kind", 0, 32, &k, err);
		json_get_str(c, "severity", 0, 8, &sev, err);
		json_get_str(c, "summary", 0, 1024, &s, err);
		json_get_str(c, "hint", 0, 256, &hint, err);
		printf("%s%-5s%s %-14s %s\n", color ? (strcmp(sev, "error") ?
		    "\033[33m" : "\033[31m") : "", sev, color ? "\033[0m" : "",
		    k, s);
		printf("%20s hint: %s\n", "", hint);
	}
	printf("verdict: %s\n", dstr(doc, "verdict"));
	fflush(stdout);
}
