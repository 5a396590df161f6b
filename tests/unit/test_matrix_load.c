/* Unit tests for coordinator/matrix/matrix_load.c: the fanout's receivers, and the
 * all-to-all verdict on synthetic loads (a healthy fabric, an
 * oversubscribed spine, a switch short on one port, a lost flow). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "cf_unit.h"

#include "matrix/matrix.h"

#define N 6
static const char *const names[N] = { "h1", "h2", "h3", "h4", "h5", "h6" };
static const int racks2[N] = { 0, 0, 0, 1, 1, 1 };
static const int flat[N] = { 0, 0, 0, 0, 0, 0 };
static double bw[N * N], rpg[N * N];
static int lost[N * N];
static struct profile prof;

static void
healthy(double line)
{
	int i;

	profile_defaults(&prof);
	prof.line_gbps = line;
	prof.min_pct = 70;
	for (i = 0; i < N * N; i++) {
		/* Every flow near its fair share: line / 5. */
		bw[i] = i / N == i % N ? NAN : line / 5 * (0.93 + 0.01 *
		    (i % 5));
		rpg[i] = 0;
		lost[i] = 0;
	}
}

static cJSON *
run(const int *rack, int *errors, cJSON **sec)
{
	struct matrix_load_view v = { .mode = ML_A2A, .net = "cluster",
	    .n = N, .names = names, .rack = rack, .gbps = bw, .rpg = rpg,
	    .lost = lost, .seconds = 5 };
	cJSON *out = cJSON_CreateArray();

	*sec = matrix_load_compute(&v, &prof, out, errors);
	return out;
}

static void
expect_hosts(const cJSON *f, const char *kind, const char *const *h, int nh)
{
	const cJSON *arr = cJSON_GetObjectItem(f, "hosts");
	int i;

	assert_string_equal(cJSON_GetObjectItem(f, "kind")->valuestring, kind);
	assert_int_equal(cJSON_GetArraySize(arr), nh);
	for (i = 0; i < nh; i++)
		assert_string_equal(cJSON_GetArrayItem(arr, i)->valuestring,
		    h[i]);
}

static void
test_fanout(void **state)
{
	int n, r, i, k, rack[40] = { 0 }, dst[80], in[40];

	(void)state;
	assert_int_equal(matrix_load_fanout(2, rack, dst), -1);
	for (n = 3; n <= 40; n++) {
		for (r = 1; r <= 5; r++) {
			/* Racks of size n / r, given out of order. */
			for (i = 0; i < n; i++)
				rack[i] = (i * 7) % r;
			assert_int_equal(matrix_load_fanout(n, rack, dst), 0);
			memset(in, 0, sizeof(in));
			for (i = 0; i < n; i++) {
				int other = 0;

				for (k = 0; k < n; k++)
					other += rack[k] != rack[i];
				assert_int_not_equal(dst[2 * i], i);
				assert_int_not_equal(dst[2 * i + 1], i);
				assert_int_not_equal(dst[2 * i],
				    dst[2 * i + 1]);
				assert_in_range(dst[2 * i], 0, n - 1);
				assert_in_range(dst[2 * i + 1], 0, n - 1);
				/* Another rack wherever another rack has
				 * enough hosts. */
				for (k = 0; k < 2 && k < other; k++)
					assert_int_not_equal(
					    rack[dst[2 * i + k]], rack[i]);
				in[dst[2 * i]]++;
				in[dst[2 * i + 1]]++;
			}
			/* Equal racks: every host receives exactly two. */
			if (n % r == 0 && r > 1 && n / r >= 2)
				for (i = 0; i < n; i++)
					assert_int_equal(in[i], 2);
		}
	}
}

static void
test_healthy(void **state)
{
	cJSON *out, *sec, *h;
	int e = -1;

	(void)state;
	healthy(1);
	out = run(racks2, &e, &sec);
	assert_int_equal(cJSON_GetArraySize(out), 0);
	assert_int_equal(e, 0);
	assert_non_null(sec);
	assert_int_equal(cJSON_GetObjectItem(sec, "flows")->valueint, 30);
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(sec, "hosts")),
	    N);
	h = cJSON_GetArrayItem(cJSON_GetObjectItem(sec, "hosts"), 0);
	/* Five flows of about 0.19 each: about 0.95 Gbit/s, 95 %. */
	assert_true(cJSON_GetObjectItem(h, "tx_gbps")->valuedouble > 0.9);
	assert_true(fabs(cJSON_GetObjectItem(h, "expected_tx_gbps")->
	    valuedouble - 1.0) < 1e-9);
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(sec, "racks")),
	    2);
	cJSON_Delete(out);
	cJSON_Delete(sec);
}

static void
test_oversubscribed_spine(void **state)
{
	static const char *const r0[] = { "h1", "h2", "h3" };
	static const char *const r1[] = { "h4", "h5", "h6" };
	cJSON *out, *sec;
	int e, i, j;

	(void)state;
	healthy(1);
	/* Inside a rack flows take what is left; across, a quarter. */
	for (i = 0; i < N; i++)
		for (j = 0; j < N; j++)
			if (i != j)
				bw[i * N + j] = racks2[i] == racks2[j] ? 0.4 :
				    0.05;
	out = run(racks2, &e, &sec);
	/* Hosts reach 0.95 of their line, yet the racks are starved:
	 * exactly one finding per rack, nothing per host. */
	assert_int_equal(cJSON_GetArraySize(out), 2);
	assert_int_equal(e, 2);
	expect_hosts(cJSON_GetArrayItem(out, 0), "oversubscribed", r0, 3);
	expect_hosts(cJSON_GetArrayItem(out, 1), "oversubscribed", r1, 3);
	assert_true(cJSON_GetObjectItem(cJSON_GetObjectItem(
	    cJSON_GetArrayItem(out, 0), "evidence"), "inter_rack_flow_gbps")->
	    valuedouble < 0.06);
	cJSON_Delete(out);
	cJSON_Delete(sec);
}

static void
test_short_port(void **state)
{
	static const char *const h3[] = { "h3" };
	cJSON *out, *sec;
	int e, i;

	(void)state;
	healthy(10);
	/* One rack (flat L2): h3 receives a third of its share. */
	for (i = 0; i < N; i++)
		if (i != 2)
			bw[i * N + 2] = 0.6;
	out = run(flat, &e, &sec);
	assert_int_equal(cJSON_GetArraySize(out), 1);
	assert_int_equal(e, 1);
	expect_hosts(cJSON_GetArrayItem(out, 0), "oversubscribed", h3, 1);
	assert_non_null(strstr(cJSON_GetObjectItem(cJSON_GetArrayItem(out, 0),
	    "summary")->valuestring, "h3 "));
	cJSON_Delete(out);
	cJSON_Delete(sec);
}

static void
test_lost_and_empty(void **state)
{
	static const char *const pair[] = { "h2", "h5" };
	cJSON *out, *sec;
	int e, i;

	(void)state;
	healthy(1);
	bw[4 * N + 1] = NAN;
	lost[4 * N + 1] = 1;
	out = run(racks2, &e, &sec);
	/* The lost flow is named; its racks are not judged on the rest. */
	assert_int_equal(cJSON_GetArraySize(out), 1);
	assert_int_equal(e, 1);
	expect_hosts(cJSON_GetArrayItem(out, 0), "unreachable", pair, 2);
	assert_int_equal(cJSON_GetObjectItem(sec, "lost")->valueint, 1);
	cJSON_Delete(out);
	cJSON_Delete(sec);
	for (i = 0; i < N * N; i++)
		bw[i] = NAN;
	lost[4 * N + 1] = 0;
	out = run(racks2, &e, &sec);
	assert_null(sec);
	assert_int_equal(cJSON_GetArraySize(out), 0);
	assert_int_equal(e, 0);
	cJSON_Delete(out);
}

CF_UNIT_MAIN(NULL, NULL,
    cmocka_unit_test(test_fanout), cmocka_unit_test(test_healthy),
    cmocka_unit_test(test_oversubscribed_spine),
    cmocka_unit_test(test_short_port),
    cmocka_unit_test(test_lost_and_empty))
