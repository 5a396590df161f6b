/*
 * report: a matrix run's result tree, built from its stored cells: per
 * network the cells, the findings (verdict/) and the loads, the topology
 * findings from the hosts' facts, Ceph's heartbeats beside the RTT, and
 * the verdict. report_term.c and report_files.c render it; docs/json.md
 * describes it.
 */
#include "report/report_int.h"
#include "text.h"
#include "matrix/matrix.h"
#include "json.h"
#include "mtusearch.h"
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
	double late;			/* on the diagonal: how late the host's
					   own probe thread was, p99 us */
	double drops;			/* on the diagonal: replies its own
					   socket dropped, buffer full */
	double smin;			/* lowest path share x paths (1 =
					   fair), NAN when one path */
	double pace;			/* the bandwidth cell's pace each way,
					   Gbit/s; NAN when unpaced */
	int spaths, sunused, streams;
	int lost, pbad, egress, skipped;
	int pmeas;			/* the ports probe answered */
	unsigned retested;		/* folders[k] measured again alone:
					   bit k (the matrix's retests) */
	/* Owned strings, NULL when unset: a 256-host grid of fixed
	 * buffers would be 50 MB per network. */
	char *why, *ports, *egress_what;
	/* Where the MTU probe's large datagrams died (report_mtu_cut):
	 * the link's near and far end, the MTU a router said it forwards. */
	char *cut_near, *cut_far;
	double next_mtu;
	/* The ports probe's ports that were not open, [{"port","state"}]:
	 * the cell's "ports" (NULL when not measured). */
	cJSON *pnot;
	/* Its tests the tool did not measure, [{"test","cause","reason"}]
	 * (NULL when none): shown, never judged as the network's. */
	cJSON *nm;
};

static void
setstr(char **p, const char *v)
{
	free(*p);
	*p = strdup(v);
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

	(void)cv, (void)net_cells_n;
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
			a = report_host_index(h, n, from);
			b = report_host_index(h, n, to);
			if (a >= 0 && b >= 0) {
				grid[a * n + b].egress = 1;
				setstr(&grid[a * n + b].egress_what, d);
			}
		}
	}
}

/* One folder per test: a stored cell's data into the grid. a -> b is the
 * cell's direction (src, dst). */
typedef void cell_fold(struct cellv *g, struct inv_host **h, int n, int a,
    int b, const cJSON *data);

static void
fold_bw(struct cellv *g, struct inv_host **h, int n, int a, int b,
    const cJSON *data)
{
	char err[CF_ERRLEN];
	const cJSON *x, *y, *o2;
	double v, streams = 0;
	int k;

	(void)h;
	if (json_get_obj(data, "end", &x, err) == -1)
		return;
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

		/* Paced (the agents' max_rate, matrix --rate): judged by
		 * its pace as well as by the floor. */
		if (json_get_double(data, "paced_bps", 1, 1e15, &v, err) == 0)
			cv->pace = v / 1e9;
		if (json_get_obj(x, k ? "sum_reverse" : "sum", &y,
		    err) == -1)
			continue;
		if (json_get_double(y, "bits_per_second", 0, 1e15, &v,
		    err) == 0)
			cv->gbps = v / 1e9;
		if (isfinite(v = pair_result_loss_rpg(y)))
			cv->rpg = v;
	}
}

static void
fold_lat_load(struct cellv *g, struct inv_host **h, int n, int a, int b,
    const cJSON *data)
{
	char err[CF_ERRLEN];
	(void)a, (void)b;
	const cJSON *r, *sz, *rtt;

	/* The mesh measured each direction: keep each. */
	cJSON_ArrayForEach(r, cJSON_GetObjectItem(data, "results")) {
		const char *from, *to;
		int i2, j2;

		if (json_get_str(r, "from", 0, 64, &from, err) == -1 ||
		    json_get_str(r, "to", 0, 64, &to, err) == -1 ||
		    (i2 = report_host_index(h, n, from)) < 0 ||
		    (j2 = report_host_index(h, n, to)) < 0)
			continue;
		cJSON_ArrayForEach(sz, cJSON_GetObjectItem(r, "sizes"))
			if ((rtt = probe_size_rtt(sz)) != NULL)
				json_get_double(rtt, "p99_us", 0, 1e12,
				    &g[i2 * n + j2].lp99, err);
	}
}

/* fold_late: each runner's own lateness (the mesh's send schedule, the
 * per-pair probe's wake-up after the kernel had the reply) and the
 * replies its own socket dropped, the worst seen, on the host's diagonal
 * cell. */
static void
fold_late(struct cellv *g, struct inv_host **h, int n, const cJSON *data)
{
	char err[CF_ERRLEN];
	const cJSON *r, *sz, *x;
	const char *from;
	double v;
	int i;

	cJSON_ArrayForEach(r, cJSON_GetObjectItem(data, "results")) {
		if (json_get_str(r, "from", 0, 64, &from, err) == -1 ||
		    (i = report_host_index(h, n, from)) < 0)
			continue;
		if ((x = cJSON_GetObjectItem(r, "load")) != NULL &&
		    json_get_double(x, "late_p99_us", 0, 1e12, &v, err) == 0 &&
		    !(v <= g[i * n + i].late))
			g[i * n + i].late = v;
		if (x != NULL && json_get_double(x, "rx_drops", 0, 1e12, &v,
		    err) == 0 && !(v <= g[i * n + i].drops))
			g[i * n + i].drops = v;
		cJSON_ArrayForEach(sz, cJSON_GetObjectItem(r, "sizes"))
			if ((x = cJSON_GetObjectItem(sz, "rx_wakeup")) !=
			    NULL && json_get_double(x, "p99_us", 0, 1e12, &v,
			    err) == 0 && !(v <= g[i * n + i].late))
				g[i * n + i].late = v;
	}
}

static void
fold_lat(struct cellv *g, struct inv_host **h, int n, int a, int b,
    const cJSON *data)
{
	char err[CF_ERRLEN];
	const cJSON *sz = probe_size_at(data, 2000), *rtt;
	int k;

	/* The 2000-byte size (Ceph's heartbeat) stands for the
	 * pair; the RTT is the same both ways. */
	if (sz != NULL && (rtt = probe_size_rtt(sz)) != NULL)
		for (k = 0; k < 2; k++) {
			struct cellv *cv = k ? &g[b * n + a] : &g[a * n + b];

			json_get_double(rtt, "p50_us", 0, 1e12, &cv->p50, err);
			json_get_double(rtt, "p99_us", 0, 1e12, &cv->p99, err);
		}
	fold_late(g, h, n, data);
	egress_from(NULL, h, n, 0, data, g);
}

static void
fold_mtu(struct cellv *g, struct inv_host **h, int n, int a, int b,
    const cJSON *data)
{
	char err[CF_ERRLEN];
	(void)a, (void)b;
	const cJSON *r;

	cJSON_ArrayForEach(r, cJSON_GetObjectItem(data, "results")) {
		const char *from, *to;
		int i, j;

		if (json_get_str(r, "from", 0, 64, &from, err) == -1 ||
		    json_get_str(r, "to", 0, 64, &to, err) == -1)
			continue;
		i = report_host_index(h, n, from);
		j = report_host_index(h, n, to);
		if (i < 0 || j < 0)
			continue;
		/* An older agent says loopback's 65536: what crosses is
		 * at most 65535. */
		if (json_get_double(r, "configured", 0, 1e6,
		    &g[i * n + j].mconf, err) == 0)
			g[i * n + j].mconf = mtu_ceiling(g[i * n + j].mconf);
		json_get_double(r, "path", 0, 1e6, &g[i * n + j].mpath,
		    err);
		report_mtu_cut(r, &g[i * n + j].cut_near,
		    &g[i * n + j].cut_far, &g[i * n + j].next_mtu);
	}
	egress_from(NULL, h, n, 0, data, g);
}

static void
fold_ports(struct cellv *g, struct inv_host **h, int n, int a, int b,
    const cJSON *data)
{
	char err[CF_ERRLEN];
	double v;

	const cJSON *r = cJSON_GetArrayItem(cJSON_GetObjectItem(data,
	    "results"), 0), *p;
	struct cellv *cv = &g[a * n + b];
	char pb[256];
	size_t off = 0;

	cv->pmeas = cJSON_IsArray(cJSON_GetObjectItem(r, "ports"));
	/* The latest probe of the cell is the one that counts. */
	cJSON_Delete(cv->pnot);
	cv->pnot = cv->pmeas ? cJSON_CreateArray() : NULL;
	cv->pbad = 0;
	cJSON_ArrayForEach(p, cJSON_GetObjectItem(r, "ports")) {
		const char *state;
		cJSON *o;

		if (json_get_double(p, "port", 0, 65535, &v, err) == -1 ||
		    json_get_str(p, "state", 0, 16, &state, err) == -1 ||
		    strcmp(state, "open") == 0)
			continue;
		cv->pbad++;
		if (cv->pnot && (o = cJSON_CreateObject()) != NULL) {
			cJSON_AddNumberToObject(o, "port", v);
			cJSON_AddStringToObject(o, "state", state);
			cJSON_AddItemToArray(cv->pnot, o);
		}
		if (off < sizeof(pb) - 24)
			off = text_appendf(pb, sizeof(pb), off, "%s%.0f %s",
			    off ? ", " : "", v, state);
	}
	if (off) {
		setstr(&cv->ports, pb);
	} else {
		free(cv->ports);
		cv->ports = NULL;
	}
	egress_from(NULL, h, n, 0, data, g);
}

static const struct {
	const char *test;
	cell_fold *fn;
} folders[] = {
	{ "bw", fold_bw }, { "lat_load", fold_lat_load }, { "lat", fold_lat },
	{ "mtu", fold_mtu }, { "ports", fold_ports },
};

static void
fold(struct cellv *g, struct inv_host **h, int n, const cJSON *c)
{
	char err[CF_ERRLEN];
	const char *t, *s, *d, *st;
	const cJSON *data;
	size_t k;
	int a, b;

	if (json_get_str(c, "test", 0, 16, &t, err) == -1 ||
	    strcmp(t, "a2a") == 0 || strcmp(t, "fanout") == 0 ||
	    json_get_str(c, "src", 0, 64, &s, err) == -1 ||
	    json_get_str(c, "dst", 0, 64, &d, err) == -1 ||
	    json_get_str(c, "state", 0, 16, &st, err) == -1 ||
	    json_get_obj(c, "data", &data, err) == -1)
		return;
	a = report_host_index(h, n, s);
	b = report_host_index(h, n, d);
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
	for (k = 0; k < sizeof(folders) / sizeof(folders[0]); k++)
		if (strcmp(t, folders[k].test) == 0) {
			folders[k].fn(g, h, n, a, b, data);
			if (cJSON_IsTrue(cJSON_GetObjectItem(data,
			    "retested"))) {
				g[a * n + b].retested |= 1u << k;
				if (strcmp(t, "ports") != 0)
					g[b * n + a].retested |= 1u << k;
			}
		}
}

/* retested_json: the tests of a cell measured again alone, by name. */
static cJSON *
retested_json(unsigned bits)
{
	cJSON *a = cJSON_CreateArray();
	size_t k;

	for (k = 0; k < sizeof(folders) / sizeof(folders[0]); k++)
		if (bits & (1u << k))
			cJSON_AddItemToArray(a, cJSON_CreateString(
			    folders[k].test));
	return a;
}

static cJSON *
num_or_null(double v)
{
	return isfinite(v) ? cJSON_CreateNumber(v) : cJSON_CreateNull();
}

struct fold_acc {
	struct cellv *g;
	struct inv_host **h;
	int n, any;
	struct rflows *flows, *stalled;	/* ok cells' flows, lost ones' */
	struct umlist *um;		/* tests the tool did not measure */
};

/* note_unmeasured: a test of cell a -> b (and b -> a, but for the ports
 * probe, which is one way) the tool did not measure. */
static void
note_unmeasured(struct cellv *g, int n, int a, int b, cJSON *e)
{
	int k;

	for (k = 0; k < 2; k++) {
		struct cellv *cv = k ? &g[b * n + a] : &g[a * n + b];

		if (k && strcmp(cJSON_GetObjectItem(e, "test")->valuestring,
		    "ports") == 0)
			break;
		if (cv->nm == NULL)
			cv->nm = cJSON_CreateArray();
		cJSON_AddItemToArray(cv->nm, k ? cJSON_Duplicate(e, 1) : e);
	}
}

/* fold_cb: one cell into the grid and into the flows, in one reading
 * (a large run's cells are parsed once, not once per use). */
static void
fold_cb(const cJSON *c, void *arg)
{
	struct fold_acc *F = arg;
	cJSON *e;
	int a, b;

	F->any = 1;
	if (report_unmeasured_take(F->um, F->h, F->n, c, &a, &b, &e)) {
		note_unmeasured(F->g, F->n, a, b, e);
		return;
	}
	fold(F->g, F->h, F->n, c);
	report_flows_cell(F->flows, c);
	report_flows_cell(F->stalled, c);
	F->any = 1;
}

static void
grid_free(struct cellv *g, int n)
{
	int k;

	for (k = 0; g && k < n * n; k++) {
		free(g[k].why);
		free(g[k].ports);
		cJSON_Delete(g[k].pnot);
		cJSON_Delete(g[k].nm);
		free(g[k].egress_what);
		free(g[k].cut_near);
		free(g[k].cut_far);
	}
	free(g);
}

/* The arrays a struct mview points into, for one network. */
struct varrs {
	double *bw;		/* 8 planes of n * n, then 2 of n per host */
	int *ints;		/* 6 planes */
	const char **strs;	/* 5 planes */
	const char **names;
	int *rack;
};

static void
varrs_free(struct varrs *a)
{
	free(a->bw);
	free(a->ints);
	free(a->strs);
	free(a->names);
	free(a->rack);
}

/* view_fill: the grid as the arrays findings_compute reads. */
static void
view_fill(struct mview *v, struct varrs *a, const struct cellv *g,
    struct inv_host **h, int n, const char *nn)
{
	int i, k, nn2 = n * n;

	for (i = 0; i < n; i++) {
		a->names[i] = h[i]->name;
		for (k = 0; k < i; k++)
			if (strcmp(h[k]->rack, h[i]->rack) == 0)
				break;
		a->rack[i] = k == i ? i : a->rack[k];
	}
	for (k = 0; k < nn2; k++) {
		a->bw[k] = g[k].gbps;
		a->bw[nn2 + k] = g[k].rpg;
		a->bw[2 * nn2 + k] = g[k].p99;
		a->bw[3 * nn2 + k] = g[k].mconf;
		a->bw[4 * nn2 + k] = g[k].mpath;
		a->bw[5 * nn2 + k] = g[k].lp99;
		a->bw[6 * nn2 + k] = g[k].smin;
		a->ints[3 * nn2 + k] = g[k].spaths;
		a->ints[4 * nn2 + k] = g[k].sunused;
		a->ints[5 * nn2 + k] = g[k].streams;
		a->ints[k] = g[k].lost;
		a->ints[nn2 + k] = g[k].pbad;
		a->ints[2 * nn2 + k] = g[k].egress;
		a->strs[k] = g[k].why;
		a->strs[nn2 + k] = g[k].ports;
		a->strs[2 * nn2 + k] = g[k].egress_what;
		a->strs[3 * nn2 + k] = g[k].cut_near;
		a->strs[4 * nn2 + k] = g[k].cut_far;
		a->bw[7 * nn2 + k] = g[k].next_mtu;
	}
	*v = (struct mview){ .net = nn, .n = n, .names = a->names,
	    .rack = a->rack, .gbps = a->bw, .rpg = a->bw + nn2,
	    .p99 = a->bw + 2 * nn2, .mtu_conf = a->bw + 3 * nn2,
	    .mtu_path = a->bw + 4 * nn2, .p99_loaded = a->bw + 5 * nn2,
	    .spread_min = a->bw + 6 * nn2, .spread_paths = a->ints + 3 * nn2,
	    .spread_unused = a->ints + 4 * nn2, .streams = a->ints + 5 * nn2,
	    .lost = a->ints, .lost_why = a->strs, .ports_bad = a->ints + nn2,
	    .ports_what = a->strs + nn2, .wrong_egress = a->ints + 2 * nn2,
	    .egress_what = a->strs + 2 * nn2, .mtu_cut_near = a->strs + 3 * nn2,
	    .mtu_cut_far = a->strs + 4 * nn2, .mtu_next = a->bw + 7 * nn2,
	    .host_late_us = a->bw + 8 * nn2,
	    .host_drops = a->bw + 8 * nn2 + n };
	for (i = 0; i < n; i++) {
		a->bw[8 * nn2 + i] = g[i * n + i].late;
		a->bw[8 * nn2 + n + i] = g[i * n + i].drops;
	}
	for (k = 0; k < nn2; k++)
		a->bw[8 * nn2 + 2 * n + k] = g[k].pace;
	v->pace_gbps = a->bw + 8 * nn2 + 2 * n;
}

/* cells_json: every ordered pair's cell of the grid into carr. */
static void
cells_json(cJSON *carr, const struct cellv *g, struct inv_host **h, int n)
{
	int i, j;

	for (i = 0; i < n; i++) {
		for (j = 0; j < n; j++) {
			const struct cellv *cv = &g[i * n + j];
			cJSON *cj;

			if (i == j)
				continue;
			cj = cJSON_CreateObject();
			cJSON_AddStringToObject(cj, "src", h[i]->name);
			cJSON_AddStringToObject(cj, "dst", h[j]->name);
			cJSON_AddItemToObject(cj, "gbps", num_or_null(cv->gbps));
			cJSON_AddItemToObject(cj, "loss_retransmits_per_gb",
			    num_or_null(cv->rpg));
			cJSON_AddItemToObject(cj, "rtt_p50_us",
			    num_or_null(cv->p50));
			cJSON_AddItemToObject(cj, "rtt_p99_us",
			    num_or_null(cv->p99));
			if (isfinite(cv->lp99))
				cJSON_AddNumberToObject(cj, "rtt_loaded_p99_us",
				    cv->lp99);
			if (isfinite(cv->pace))
				cJSON_AddNumberToObject(cj, "paced_gbps",
				    cv->pace);
			cJSON_AddItemToObject(cj, "path_mtu",
			    num_or_null(cv->mpath));
			cJSON_AddItemToObject(cj, "configured_mtu",
			    num_or_null(cv->mconf));
			/* Not measured reads as nothing, never as open. */
			if (cv->pmeas && !cv->lost && cv->pnot)
				cJSON_AddItemToObject(cj, "ports",
				    cJSON_Duplicate(cv->pnot, 1));
			else
				cJSON_AddNullToObject(cj, "ports");
			cJSON_AddItemToObject(cj, "retested",
			    retested_json(cv->retested));
			/* Nothing of it measured, for the tool's own causes:
			 * "not_measured" (never "lost", the network's). */
			cJSON_AddStringToObject(cj, "state", cv->lost ? "lost" :
			    cv->skipped && !isfinite(cv->gbps) ? "skipped" :
			    cv->nm && !isfinite(cv->gbps) && !isfinite(cv->p99) &&
			    !isfinite(cv->mpath) && !cv->pmeas ? "not_measured" :
			    "ok");
			if (cv->lost)
				cJSON_AddStringToObject(cj, "reason", cv->why ?
				    cv->why : "lost");
			if (cv->nm)
				cJSON_AddItemToObject(cj, "not_measured",
				    cJSON_Duplicate(cv->nm, 1));
			cJSON_AddItemToArray(carr, cj);
		}
	}
}

/* report_net: one network's cells, findings and loads, judged knowing the
 * links named on the other network (other, may be NULL); its errors, and
 * in *unmeasured the tests of it the tool did not measure. */
static int
report_net(cJSON *nets, cJSON *fs, struct inv_host **h, int n, int net,
    const struct matrix_opts *o, int64_t run, struct store *st,
    int *unmeasured, const struct report_links *other)
{
	const char *nn = net ? "cluster" : "public";
	struct cellv *g = calloc((size_t)(n * n), sizeof(*g));
	struct varrs a;
	struct rflows fl, fs_lost;
	struct umlist um = { NULL, 0, 0 };
	struct fold_acc F = { g, h, n, 0, &fl, &fs_lost, &um };
	struct mview v;
	cJSON *nj;
	int k, errors = 0;

	a.bw = malloc(sizeof(double) * ((size_t)(n * n) * 9 + 2 * (size_t)n));
	a.ints = calloc((size_t)(n * n) * 6, sizeof(int));
	a.strs = calloc((size_t)(n * n) * 5, sizeof(char *));
	a.names = calloc((size_t)n, sizeof(char *));
	a.rack = calloc((size_t)n, sizeof(int));
	for (k = 0; k < n * n; k++) {
		g[k].gbps = g[k].rpg = g[k].p50 = g[k].p99 = NAN;
		g[k].mconf = g[k].mpath = g[k].lp99 = g[k].late = NAN;
		g[k].drops = NAN;
		g[k].smin = g[k].next_mtu = g[k].pace = NAN;
	}
	report_flows_init(&fl, h, n, false);
	report_flows_init(&fs_lost, h, n, true);
	store_each(st, run, nn, NULL, fold_cb, &F);
	if (F.any) {
		nj = cJSON_AddObjectToObject(nets, nn);
		cells_json(cJSON_AddArrayToObject(nj, "cells"), g, h, n);
		view_fill(&v, &a, g, h, n, nn);
		report_flows_ports(&fl, st, run);
		v.flows = fl.f;
		v.nflows = fl.n;
		v.stalled = fs_lost.f;
		v.nstalled = fs_lost.n;
		v.ports = fl.ports;
		v.nports = fl.nports;
		v.um = um.u;
		v.num = um.n;
		if (other) {
			v.other_links = (const char *const *)other->s;
			v.nother = other->n;
		}
		*unmeasured += um.n;
		errors += findings_compute(&v, &o->prof, fs);
		if (fl.n > 0)
			cJSON_AddItemToObject(nj, "fabric",
			    report_flows_fabric(&fl, o->prof.max_rpg));
		report_load_sections(nj, h, n, a.names, a.rack, st, run, nn, &o->prof,
		    fs, &errors);
	}
	report_flows_free(&fl);
	report_flows_free(&fs_lost);
	report_unmeasured_free(&um);
	grid_free(g, n);
	varrs_free(&a);
	return errors;
}

cJSON *
report_build(struct inventory *inv, const struct matrix_opts *o, int64_t run,
    struct store *st, bool measuring, int *errors)
{
	cJSON *doc = cJSON_CreateObject(), *hosts, *nets, *fs, *fh;
	struct inv_host **h, *x;
	int n = inv->nhosts, i, net, unmeasured = 0;
	struct report_links named[2] = { { NULL, 0, 0 }, { NULL, 0, 0 } };
	bool incomplete;

	h = calloc((size_t)n, sizeof(*h));
	i = 0;
	TAILQ_FOREACH(x, &inv->hosts, entry)
		h[i++] = x;
	cJSON_AddNumberToObject(doc, "run", (double)run);
	cJSON_AddStringToObject(doc, "inventory", inv->path);
	cJSON_AddStringToObject(doc, "profile", o->prof.name);
	cJSON_AddNumberToObject(doc, "floor_gbps", o->prof.line_gbps *
	    o->prof.min_pct / 100);
	{
		/* What the profile judged by, for the renderers' colours. */
		cJSON *lim = cJSON_AddObjectToObject(doc, "limits");

		cJSON_AddNumberToObject(lim, "min_gbps", o->prof.line_gbps *
		    o->prof.min_pct / 100);
		cJSON_AddNumberToObject(lim, "max_loss_retransmits_per_gb",
		    o->prof.max_rpg);
		cJSON_AddNumberToObject(lim, "max_rtt_p99_us",
		    o->prof.max_p99_us);
		if (o->prof.required_mtu > 0)
			cJSON_AddNumberToObject(lim, "required_mtu",
			    o->prof.required_mtu);
	}
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
	/* Judged once to learn the links each network names, then again,
	 * each knowing the other's, when one named any (report_links.c). */
	for (net = 0; net < 2; net++) {
		*errors += report_net(nets, fs, h, n, net, o, run, st,
		    &unmeasured, NULL);
		report_links_collect(&named[net], fs, net ? "cluster" :
		    "public");
	}
	if (named[0].n + named[1].n > 0) {
		cJSON_DeleteItemFromObject(doc, "networks");
		cJSON_DeleteItemFromObject(doc, "findings");
		nets = cJSON_AddObjectToObject(doc, "networks");
		fs = cJSON_AddArrayToObject(doc, "findings");
		*errors = unmeasured = 0;
		for (net = 0; net < 2; net++)
			*errors += report_net(nets, fs, h, n, net, o, run, st,
			    &unmeasured, &named[1 - net]);
	}
	report_links_free(&named[0]);
	report_links_free(&named[1]);
	/* The hosts' facts (--tests facts): topology findings and the paths
	 * summary beside the numbers. */
	fh = cJSON_CreateArray();
	store_each(st, run, "host", "facts", topology_cell_cb, fh);
	if (cJSON_GetArraySize(fh) > 0) {
		*errors += topology_findings(inv, fh, &o->prof, fs);
		cJSON_AddItemToObject(doc, "topology", topology_summary(inv, fh));
	}
	cJSON_Delete(fh);
	store_each(st, run, "ceph", "heartbeats", report_ceph_join, doc);
	incomplete = report_completeness(doc, fs, st, run, measuring,
	    unmeasured);
	/* A measured fault fails the run whatever else is missing; a run
	 * that found nothing but did not measure everything is not a
	 * pass. */
	cJSON_AddStringToObject(doc, "verdict", *errors ? "fail" : incomplete ?
	    "incomplete" : "pass");
	free(h);
	return doc;
}
