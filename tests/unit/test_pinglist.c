/* Unit tests for the monitor's pure parts: agent/monitor/pinglist.c
 * (parsing, every refusal naming its field, and the rack rotation: every
 * pair covered within ceil(rack size / K) rotations, probes per agent
 * growing with racks, not hosts), agent/monitor/http.c (the metrics
 * endpoint's request parser) and agent/monitor/buckets.c (the RTT
 * histogram's bounds). */
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

#include "monitor/pinglist.h"
#include "monitor/http.h"
#include "monitor/buckets.h"

/* A pinglist for host s of racks x hosts per rack ("r0h0" ...), in
 * mode ("all" or "rack" with k). */
static cJSON *
make(int racks, int per, int self, const char *mode, int k)
{
	cJSON *j = cJSON_CreateObject(), *nets, *arr;
	char name[32], rack[32], addr[32];
	int i;

	snprintf(name, sizeof(name), "r%dh%d", self / per, self % per);
	snprintf(rack, sizeof(rack), "r%d", self / per);
	cJSON_AddStringToObject(j, "self", name);
	cJSON_AddStringToObject(j, "rack", rack);
	cJSON_AddNumberToObject(j, "port", 7470);
	cJSON_AddNumberToObject(j, "rate", 1);
	cJSON_AddNumberToObject(j, "mtu_every", 60);
	cJSON_AddNumberToObject(j, "timeout_ms", 1000);
	cJSON_AddStringToObject(j, "token", "00112233445566778899aabbccddeeff");
	cJSON_AddStringToObject(j, "mode", mode);
	cJSON_AddNumberToObject(j, "k", k);
	cJSON_AddNumberToObject(j, "rotate", 300);
	nets = cJSON_AddObjectToObject(j, "networks");
	snprintf(addr, sizeof(addr), "10.0.%d.%d", self / 250, self % 250 + 1);
	cJSON_AddStringToObject(nets, "public", addr);
	arr = cJSON_AddArrayToObject(j, "peers");
	for (i = 0; i < racks * per; i++) {
		cJSON *p;

		if (i == self)
			continue;
		p = cJSON_CreateObject();
		snprintf(name, sizeof(name), "r%dh%d", i / per, i % per);
		snprintf(rack, sizeof(rack), "r%d", i / per);
		snprintf(addr, sizeof(addr), "10.0.%d.%d", i / 250, i % 250 + 1);
		cJSON_AddStringToObject(p, "name", name);
		cJSON_AddStringToObject(p, "rack", rack);
		cJSON_AddStringToObject(p, "public", addr);
		cJSON_AddStringToObject(p, "cluster", addr);
		cJSON_AddItemToArray(arr, p);
	}
	return j;
}

static void
test_parse(void **state)
{
	struct pinglist pl;
	char err[256];
	cJSON *j = make(2, 3, 0, "all", 1);

	(void)state;
	assert_int_equal(pinglist_parse(j, &pl, err), 0);
	assert_string_equal(pl.self, "r0h0");
	assert_int_equal(pl.npeers, 5);
	assert_int_equal(pl.nracks, 2);
	assert_int_equal(pl.self_rack_id, 0);
	assert_int_equal(pl.port, 7470);
	assert_int_equal(pl.token[15], 0xff);
	pinglist_free(&pl);

	/* Each refusal names what is wrong. */
	cJSON_ReplaceItemInObject(j, "rate", cJSON_CreateNumber(1000));
	assert_int_equal(pinglist_parse(j, &pl, err), -1);
	assert_non_null(strstr(err, "'rate'"));
	cJSON_ReplaceItemInObject(j, "rate", cJSON_CreateNumber(1));
	cJSON_ReplaceItemInObject(j, "mode", cJSON_CreateString("some"));
	assert_int_equal(pinglist_parse(j, &pl, err), -1);
	assert_non_null(strstr(err, "mode"));
	cJSON_ReplaceItemInObject(j, "mode", cJSON_CreateString("all"));
	cJSON_ReplaceItemInObject(j, "token", cJSON_CreateString("0011"));
	assert_int_equal(pinglist_parse(j, &pl, err), -1);
	assert_non_null(strstr(err, "token"));
	cJSON_ReplaceItemInObject(j, "token",
	    cJSON_CreateString("00112233445566778899aabbccddeeff"));
	/* A name that would need escaping in a label. */
	cJSON_ReplaceItemInObject(cJSON_GetArrayItem(cJSON_GetObjectItem(j,
	    "peers"), 0), "name", cJSON_CreateString("a\"b"));
	assert_int_equal(pinglist_parse(j, &pl, err), -1);
	assert_non_null(strstr(err, "peers[0]"));
	/* The same peer twice, and the agent among its peers. */
	cJSON_ReplaceItemInObject(cJSON_GetArrayItem(cJSON_GetObjectItem(j,
	    "peers"), 0), "name", cJSON_CreateString("r0h2"));
	assert_int_equal(pinglist_parse(j, &pl, err), -1);
	assert_non_null(strstr(err, "'r0h2' twice"));
	cJSON_ReplaceItemInObject(cJSON_GetArrayItem(cJSON_GetObjectItem(j,
	    "peers"), 0), "name", cJSON_CreateString("r0h0"));
	assert_int_equal(pinglist_parse(j, &pl, err), -1);
	assert_non_null(strstr(err, "agent itself"));
	cJSON_ReplaceItemInObject(cJSON_GetArrayItem(cJSON_GetObjectItem(j,
	    "peers"), 0), "name", cJSON_CreateString("r0h1"));
	cJSON_ReplaceItemInObject(cJSON_GetArrayItem(cJSON_GetObjectItem(j,
	    "peers"), 0), "public", cJSON_CreateString("10.0.0.999"));
	assert_int_equal(pinglist_parse(j, &pl, err), -1);
	assert_non_null(strstr(err, "not an address"));
	cJSON_Delete(j);
	/* No own address: nothing to probe from. */
	j = make(1, 2, 0, "all", 1);
	cJSON_DeleteItemFromObject(cJSON_GetObjectItem(j, "networks"),
	    "public");
	assert_int_equal(pinglist_parse(j, &pl, err), -1);
	assert_non_null(strstr(err, "networks"));
	cJSON_Delete(j);
}

/* Every host of 8 racks of 16, K = 3: the own rack always, 3 of each
 * other rack at a time, and every other host within ceil(16/3) = 6
 * rotations. */
static void
test_rotation(void **state)
{
	enum { RACKS = 8, PER = 16, K = 3, ROT = (PER + K - 1) / K };
	int self, r, i;

	(void)state;
	for (self = 0; self < RACKS * PER; self += 5) {
		cJSON *j = make(RACKS, PER, self, "rack", K);
		struct pinglist pl;
		bool act[RACKS * PER], seen[RACKS * PER];
		char err[256];

		assert_int_equal(pinglist_parse(j, &pl, err), 0);
		memset(seen, 0, sizeof(seen));
		for (r = 0; r < ROT; r++) {
			int n = pinglist_active(&pl, 1e9 + r * 300.0 + 1, act);

			/* Own rack's 15, and K of each of the 7 others. */
			assert_int_equal(n, PER - 1 + (RACKS - 1) * K);
			for (i = 0; i < pl.npeers; i++)
				seen[i] |= act[i];
		}
		for (i = 0; i < pl.npeers; i++)
			assert_true(seen[i]);
		pinglist_free(&pl);
		cJSON_Delete(j);
	}
}

/* The same rotation as seen by the host each picks: hosts of one rack
 * spread their windows, so each host of another rack is probed by
 * about as many as any other. */
static void
test_spread(void **state)
{
	enum { RACKS = 4, PER = 12, K = 2 };
	int probed[RACKS * PER] = { 0 }, self, i, lo = 1 << 30, hi = 0;

	(void)state;
	for (self = 0; self < RACKS * PER; self++) {
		cJSON *j = make(RACKS, PER, self, "rack", K);
		struct pinglist pl;
		bool act[RACKS * PER];
		char err[256];

		assert_int_equal(pinglist_parse(j, &pl, err), 0);
		pinglist_active(&pl, 600, act);
		for (i = 0; i < pl.npeers; i++)
			if (act[i] && pl.peers[i].rack_id != pl.self_rack_id) {
				int who;

				assert_int_equal(sscanf(pl.peers[i].name, "r%*dh%d",
				    &who), 1);
				probed[(pl.peers[i].name[1] - '0') * PER + who]++;
			}
		pinglist_free(&pl);
		cJSON_Delete(j);
	}
	for (i = 0; i < RACKS * PER; i++) {
		lo = probed[i] < lo ? probed[i] : lo;
		hi = probed[i] > hi ? probed[i] : hi;
	}
	/* 3 other racks x 12 hosts x 2 picks over 12 hosts: 6 each. */
	assert_int_equal(lo, (RACKS - 1) * K);
	assert_int_equal(hi, (RACKS - 1) * K);
}

/* Mode all, or one rack only: every peer, whatever K. */
static void
test_all(void **state)
{
	cJSON *j = make(3, 4, 5, "all", 1), *k = make(1, 6, 2, "rack", 1);
	struct pinglist pl;
	bool act[16];
	char err[256];

	(void)state;
	assert_int_equal(pinglist_parse(j, &pl, err), 0);
	assert_int_equal(pinglist_active(&pl, 12345, act), 11);
	pinglist_free(&pl);
	assert_int_equal(pinglist_parse(k, &pl, err), 0);
	assert_int_equal(pinglist_active(&pl, 12345, act), 5);
	pinglist_free(&pl);
	cJSON_Delete(j);
	cJSON_Delete(k);
}

#define P(s) http_parse(s, strlen(s))

static void
test_http(void **state)
{
	char big[HTTP_REQ_MAX + 10];

	(void)state;
	assert_int_equal(P("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n"),
	    HTTP_METRICS);
	assert_int_equal(P("GET /metrics HTTP/1.0\r\n\r\n"), HTTP_METRICS);
	assert_int_equal(P("GET /metrics?name[]=x HTTP/1.1\r\n\r\n"),
	    HTTP_METRICS);
	assert_int_equal(P("GET /metrics HTTP/1.1\n\n"), HTTP_METRICS);
	assert_int_equal(P("HEAD /metrics HTTP/1.1\r\n\r\n"),
	    HTTP_HEAD_METRICS);
	assert_int_equal(P("GET /metrics HTTP/1.1\r\nHost: x\r\n"), HTTP_MORE);
	assert_int_equal(P("GET /metrics"), HTTP_MORE);
	assert_int_equal(P(""), HTTP_MORE);
	assert_int_equal(P("GET / HTTP/1.1\r\n\r\n"), HTTP_NOT_FOUND);
	assert_int_equal(P("GET /metricsx HTTP/1.1\r\n\r\n"), HTTP_NOT_FOUND);
	assert_int_equal(P("GET /metric HTTP/1.1\r\n\r\n"), HTTP_NOT_FOUND);
	assert_int_equal(P("POST /metrics HTTP/1.1\r\n\r\n"),
	    HTTP_BAD_METHOD);
	assert_int_equal(P("GETT /metrics HTTP/1.1\r\n\r\n"),
	    HTTP_BAD_METHOD);
	assert_int_equal(P("GET /metrics HTTP/2.0\r\n\r\n"), HTTP_BAD);
	assert_int_equal(P("GET /metrics\r\n\r\n"), HTTP_BAD);
	assert_int_equal(P("GET  HTTP/1.1\r\n\r\n"), HTTP_BAD);
	assert_int_equal(P(" /metrics HTTP/1.1\r\n\r\n"), HTTP_BAD);
	assert_int_equal(P("\r\n\r\n"), HTTP_BAD);
	assert_int_equal(P("GET /metrics HTTP/1.1x\r\n\r\n"), HTTP_BAD);
	/* The headers never end: refused at the cap, not read forever. */
	memset(big, 'a', sizeof(big));
	memcpy(big, "GET /metrics HTTP/1.1\r\n", 23);
	assert_int_equal(http_parse(big, HTTP_REQ_MAX - 1), HTTP_MORE);
	assert_int_equal(http_parse(big, HTTP_REQ_MAX), HTTP_BAD);
	assert_string_equal(http_status(HTTP_NOT_FOUND), "404 Not Found");
	assert_string_equal(http_status(HTTP_BAD_METHOD),
	    "405 Method Not Allowed");
}

/* Prometheus's le is inclusive: a round trip of exactly 25 us is in
 * the first bucket, a hair more in the second; past 1 s only +Inf; NaN
 * (never expected) is not counted as fast. */
static void
test_buckets(void **state)
{
	int b;

	(void)state;
	assert_int_equal(bucket_of(0), 0);
	assert_int_equal(bucket_of(25e-6), 0);
	assert_int_equal(bucket_of(25.001e-6), 1);
	assert_int_equal(bucket_of(0.00099), 5);
	assert_int_equal(bucket_of(0.001), 5);
	assert_int_equal(bucket_of(0.0011), 6);
	assert_int_equal(bucket_of(1), MON_BUCKETS - 1);
	assert_int_equal(bucket_of(1.0001), MON_BUCKETS);
	assert_int_equal(bucket_of(3600), MON_BUCKETS);
	assert_int_equal(bucket_of(NAN), MON_BUCKETS);
	/* Bounds strictly rising, 25 us to 1 s. */
	assert_true(mon_bucket_le[0] == 25e-6);
	assert_true(mon_bucket_le[MON_BUCKETS - 1] == 1);
	for (b = 1; b < MON_BUCKETS; b++)
		assert_true(mon_bucket_le[b] > mon_bucket_le[b - 1]);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_rotation),
		cmocka_unit_test(test_spread),
		cmocka_unit_test(test_all),
		cmocka_unit_test(test_http),
		cmocka_unit_test(test_buckets),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
