/*
 * report_load: the all-to-all and fanout loads of a network in a run's
 * report, read from their stored cells and judged by matrix/matrix_load.c.
 */
#include "report/report_int.h"
#include "matrix/matrix.h"
#include "json.h"
#include "store/store.h"
#include "probes/probes.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* report_load_sections adds the network's all-to-all and fanout loads, if any
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
	    (a = report_host_index(L->h, n, s)) < 0 ||
	    (b = report_host_index(L->h, n, d)) < 0 ||
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

void
report_load_sections(cJSON *nj, struct inv_host **h, int n, const char **names,
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
		v = (struct matrix_load_view){ .mode = mode, .net = nn, .n = n,
		    .names = names, .rack = rack, .gbps = gbps,
		    .rpg = gbps + n * n, .lost = lost, .seconds = L.secs };
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
