/* Unit tests for coordinator/findings.c on synthetic matrices: a healthy
 * fabric gives nothing; a slow host, a slow pair, a rack uplink, a lossy
 * pair, a black hole and a lost cell give exactly their finding. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "cf_unit.h"

#include "verdict/verdict.h"
#include "json.h"

#define N 6
static const char *const names[N] = { "h1", "h2", "h3", "h4", "h5", "h6" };
static const int racks[N] = { 0, 0, 0, 1, 1, 1 };
static double bw[N * N], rpg[N * N], p99[N * N], mc[N * N], mp[N * N];
static int lost[N * N];
static struct profile prof;

static struct mview
view(void)
{
	return (struct mview){ .net = "cluster", .n = N, .names = names,
	    .rack = racks, .gbps = bw, .rpg = rpg, .p99 = p99, .mtu_conf = mc,
	    .mtu_path = mp, .lost = lost };
}

static int
setup(void **state)
{
	int i;

	(void)state;
	profile_defaults(&prof);
	prof.line_gbps = 1;
	prof.min_pct = 70;
	prof.max_rpg = 100;
	prof.max_p99_us = 2000;
	for (i = 0; i < N * N; i++) {
		/* Healthy, with a little noise. */
		bw[i] = i / N == i % N ? NAN : 0.93 + 0.01 * (i % 5);
		rpg[i] = i / N == i % N ? NAN : (i % 3);
		p99[i] = i / N == i % N ? NAN : 100 + (i % 7) * 5;
		mc[i] = mp[i] = i / N == i % N ? NAN : 9000;
		lost[i] = 0;
	}
	return 0;
}

static cJSON *
run(int *errors)
{
	struct mview v = view();
	cJSON *out = cJSON_CreateArray();

	*errors = findings_compute(&v, &prof, out);
	return out;
}

static void
expect_one(cJSON *out, const char *kind, const char *h1, const char *h2)
{
	cJSON *f = cJSON_GetArrayItem(out, 0), *hosts;

	if (cJSON_GetArraySize(out) != 1) {
		char *s = cJSON_Print(out);

		fail_msg("want exactly one %s, got %s", kind, s);
	}
	assert_string_equal(cJSON_GetObjectItem(f, "kind")->valuestring,
	    kind);
	hosts = cJSON_GetObjectItem(f, "hosts");
	assert_string_equal(cJSON_GetArrayItem(hosts, 0)->valuestring, h1);
	if (h2)
		assert_string_equal(cJSON_GetArrayItem(hosts, 1)->valuestring,
		    h2);
	else
		assert_int_equal(cJSON_GetArraySize(hosts), 1);
	assert_non_null(cJSON_GetObjectItem(f, "summary"));
	assert_non_null(cJSON_GetObjectItem(f, "hint"));
	assert_string_equal(cJSON_GetObjectItem(f, "network")->valuestring,
	    "cluster");
}

static void
test_healthy(void **state)
{
	int e;
	cJSON *out;

	(void)state;
	setup(NULL);
	out = run(&e);
	assert_int_equal(cJSON_GetArraySize(out), 0);
	assert_int_equal(e, 0);
	cJSON_Delete(out);
}

static void
test_slow_host(void **state)
{
	int e, j;
	cJSON *out;

	(void)state;
	setup(NULL);
	for (j = 0; j < N; j++)
		if (j != 4)
			bw[4 * N + j] = bw[j * N + 4] = 0.3;
	out = run(&e);
	expect_one(out, "slow_host", "h5", NULL);
	assert_int_equal(e, 1);
	cJSON_Delete(out);
}

static void
test_slow_pair(void **state)
{
	int e;
	cJSON *out;

	(void)state;
	setup(NULL);
	bw[1 * N + 2] = 0.2;
	out = run(&e);
	expect_one(out, "slow_pair", "h2", "h3");
	cJSON_Delete(out);
}

static void
test_rack_uplink(void **state)
{
	int e, i, j;
	cJSON *out;

	(void)state;
	setup(NULL);
	for (i = 0; i < N; i++)
		for (j = 0; j < N; j++)
			if (i != j && racks[i] != racks[j])
				bw[i * N + j] = 0.45;
	out = run(&e);
	expect_one(out, "rack_uplink", "h1", "h4");
	cJSON_Delete(out);
}

static void
test_lossy_and_mtu_and_lost(void **state)
{
	int e;
	cJSON *out;

	(void)state;
	setup(NULL);
	rpg[0 * N + 5] = 900;
	out = run(&e);
	expect_one(out, "lossy_pair", "h1", "h6");
	cJSON_Delete(out);
	setup(NULL);
	mp[2 * N + 3] = 1500;
	out = run(&e);
	expect_one(out, "mtu_blackhole", "h3", "h4");
	cJSON_Delete(out);
	setup(NULL);
	lost[1 * N + 4] = 1;
	bw[1 * N + 4] = NAN;
	out = run(&e);
	expect_one(out, "unreachable", "h2", "h5");
	cJSON_Delete(out);
}

static void
test_latency_and_asymmetry(void **state)
{
	int e;
	cJSON *out;

	(void)state;
	setup(NULL);
	p99[0 * N + 1] = 5000;
	out = run(&e);
	expect_one(out, "high_latency", "h1", "h2");
	/* A warning: the verdict does not fail on it. */
	assert_int_equal(e, 0);
	cJSON_Delete(out);
	/* Under the profile's limit, far above the fabric's median: both
	 * directions agree for a finding, one direction alone is a stall. */
	setup(NULL);
	p99[2 * N + 4] = 1500;
	out = run(&e);
	assert_int_equal(cJSON_GetArraySize(out), 0);
	cJSON_Delete(out);
	p99[4 * N + 2] = 1400;
	out = run(&e);
	expect_one(out, "high_latency", "h3", "h5");
	cJSON_Delete(out);
	setup(NULL);
	bw[3 * N + 5] = 0.72;	/* above the floor, far from the other way */
	bw[5 * N + 3] = 0.98;
	prof.asym_pct = 20;
	out = run(&e);
	expect_one(out, "asymmetric", "h4", "h6");
	cJSON_Delete(out);
}

/* A fabric where most pairs' RTT is high gets one finding, not one per
 * pair (256 busy hosts gave 32,640 findings and 65 MB of them). */
static void
test_latency_fabric_wide(void **state)
{
	enum { M = 9 };
	static const char *const nm[M] = { "a", "b", "c", "d", "e", "f", "g",
	    "h", "i" };
	static const int rk[M] = { 0 };
	double p[M * M];
	struct mview v;
	cJSON *out = cJSON_CreateArray(), *f;
	int i;

	(void)state;
	setup(NULL);
	for (i = 0; i < M * M; i++)
		p[i] = i / M == i % M ? NAN : 9000 + i;
	memset(&v, 0, sizeof(v));
	v.net = "cluster";
	v.n = M;
	v.names = nm;
	v.rack = rk;
	v.p99 = p;
	findings_compute(&v, &prof, out);
	assert_int_equal(cJSON_GetArraySize(out), 1);
	f = cJSON_GetArrayItem(out, 0);
	assert_string_equal(cJSON_GetObjectItem(f, "kind")->valuestring,
	    "high_latency");
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(f, "hosts")),
	    0);
	assert_int_equal(cJSON_GetObjectItem(cJSON_GetObjectItem(f,
	    "evidence"), "pairs")->valueint, 36);
	assert_non_null(strstr(cJSON_GetObjectItem(f, "summary")->valuestring,
	    "36 of 36 pairs"));
	cJSON_Delete(out);
}

/* The pairs the matrix measures again before a latency finding: the one
 * far above its fabric's median, and the one over the profile's limit;
 * not the unmeasured one; and none when most pairs are high (one
 * fabric-wide finding, which a retest of every pair would not change). */
static void
test_latency_suspects(void **state)
{
	double q[40];
	unsigned char pick[40];
	int i;

	(void)state;
	setup(NULL);
	for (i = 0; i < 15; i++)
		q[i] = 100 + i;
	q[3] = 1500;		/* 14x the median, under the limit */
	q[7] = NAN;
	q[9] = 400;		/* under 5x the median */
	assert_int_equal(profile_rtt_suspects(&prof, q, 15, pick), 1);
	for (i = 0; i < 15; i++)
		assert_int_equal(pick[i], i == 3);
	/* Over the profile's limit, whatever the median. */
	for (i = 0; i < 15; i++)
		q[i] = 2500 + i;
	q[0] = 100;
	assert_int_equal(profile_rtt_suspects(&prof, q, 15, pick), 14);
	assert_int_equal(pick[0], 0);
	/* 17 of 40 over the limit is the fabric's: no suspects. */
	for (i = 0; i < 40; i++)
		q[i] = i < 17 ? 3000 : 100;
	assert_int_equal(profile_rtt_suspects(&prof, q, 40, pick), 0);
	for (i = 0; i < 40; i++)
		assert_int_equal(pick[i], 0);
	/* Too few pairs for a median: only the limit counts. */
	q[0] = 100, q[1] = 1500, q[2] = 120;
	assert_int_equal(profile_rtt_suspects(&prof, q, 3, pick), 0);
}

/* RTT under load: over the profile's limit is reported for that pair,
 * under it (however far above the idle RTT) is not. */
static void
test_latency_under_load(void **state)
{
	double lp[N * N];
	struct mview v;
	cJSON *out;
	int i, e;

	(void)state;
	setup(NULL);
	for (i = 0; i < N * N; i++)
		lp[i] = i / N == i % N ? NAN : 1500;	/* 10x idle, < 2000 */
	lp[1 * N + 4] = 4000;
	v = view();
	v.p99_loaded = lp;
	out = cJSON_CreateArray();
	e = findings_compute(&v, &prof, out);
	expect_one(out, "high_latency", "h2", "h5");
	assert_int_equal(e, 0);
	assert_non_null(strstr(cJSON_GetObjectItem(cJSON_GetArrayItem(out, 0),
	    "summary")->valuestring, "under load"));
	cJSON_Delete(out);
}

/* A path left unused by 8 streams is a finding; by 2 streams over 2
 * paths it is chance, not a finding. */
static void
test_hash_imbalance(void **state)
{
	int paths[N * N], unused[N * N], streams[N * N], e;
	double mn[N * N];
	struct mview v;
	cJSON *out;
	int i;

	(void)state;
	setup(NULL);
	for (i = 0; i < N * N; i++) {
		paths[i] = 2;
		unused[i] = 0;
		streams[i] = 8;
		mn[i] = 0.9;
	}
	unused[0 * N + 3] = 1;
	mn[0 * N + 3] = 0;
	v = view();
	v.spread_paths = paths;
	v.spread_unused = unused;
	v.streams = streams;
	v.spread_min = mn;
	out = cJSON_CreateArray();
	e = findings_compute(&v, &prof, out);
	expect_one(out, "hash_imbalance", "h1", "h4");
	assert_int_equal(e, 0);
	cJSON_Delete(out);
	for (i = 0; i < N * N; i++)
		streams[i] = 2;
	out = cJSON_CreateArray();
	findings_compute(&v, &prof, out);
	assert_int_equal(cJSON_GetArraySize(out), 0);
	cJSON_Delete(out);
	/* Off its share by more than the limit (50 %): 8 streams 7/1. */
	for (i = 0; i < N * N; i++)
		streams[i] = 8;
	unused[0 * N + 3] = 0;
	mn[0 * N + 3] = 0.25;
	out = cJSON_CreateArray();
	findings_compute(&v, &prof, out);
	expect_one(out, "hash_imbalance", "h1", "h4");
	cJSON_Delete(out);
}

/* A profile stored with a run comes back identical; a damaged one is
 * refused with the field named. */
static void
test_profile_json(void **state)
{
	static const char text[] = "[profile]\nname = acceptance-25g\n"
	    "line_rate_gbps = 25\nmin_bandwidth_pct = 90\n"
	    "max_rtt_p99_us = 250\nrequired_mtu = 9000\n"
	    "required_ports = 3300,6789,6800\n";
	struct profile p, q;
	char err[CF_ERRLEN];
	cJSON *j;

	(void)state;
	assert_int_equal(profile_parse_buf("t", text, sizeof(text) - 1, &p,
	    err), 0);
	j = profile_to_json(&p);
	assert_int_equal(profile_from_json(j, &q, err), 0);
	assert_string_equal(q.name, "acceptance-25g");
	assert_true(q.line_gbps == 25 && q.min_pct == 90 &&
	    q.max_p99_us == 250 && q.required_mtu == 9000);
	assert_int_equal(q.nports, p.nports);
	assert_memory_equal(q.ports, p.ports, sizeof(q.ports[0]) * q.nports);
	assert_true(q.latency_k == p.latency_k && q.asym_pct == p.asym_pct);
	cJSON_ReplaceItemInObject(j, "min_pct", cJSON_CreateString("ninety"));
	assert_int_equal(profile_from_json(j, &q, err), -1);
	assert_non_null(strstr(err, "min_pct"));
	cJSON_Delete(j);
}

CF_UNIT_MAIN(NULL, NULL,
    cmocka_unit_test(test_healthy), cmocka_unit_test(test_slow_host),
    cmocka_unit_test(test_slow_pair), cmocka_unit_test(test_rack_uplink),
    cmocka_unit_test(test_lossy_and_mtu_and_lost),
    cmocka_unit_test(test_latency_and_asymmetry),
    cmocka_unit_test(test_latency_fabric_wide),
    cmocka_unit_test(test_latency_suspects),
    cmocka_unit_test(test_latency_under_load),
    cmocka_unit_test(test_hash_imbalance),
    cmocka_unit_test(test_profile_json))
