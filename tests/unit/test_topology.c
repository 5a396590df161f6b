/* Unit tests for coordinator/facts/topology.c on facts and FRR output captured from
 * the lab (tests/golden/facts, tests/golden/frr): the dual-plane OSPF
 * fabric healthy gives no finding; with h1's plane-A link down, every host
 * that lost a path is named; FRR's OSPF and BGP JSON parse, a BGP session
 * that is not Established is a finding, and shapes FRR never prints are
 * refused with the field named. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "cf_unit.h"

#include "json.h"
#include "facts/topology.h"

#define FACTS "tests/golden/facts/"
#define FRR "tests/golden/frr/"

static struct inventory inv;

static int
setup(void **state)
{
	char err[CF_ERRLEN];

	(void)state;
	if (inventory_load(FACTS "ospf-dual.inv", &inv, err) == -1)
		fail_msg("%s", err);
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	inventory_free(&inv);
	return 0;
}

static void
test_healthy(void **state)
{
	cJSON *d = cf_unit_load_json(FACTS "ospf-dual.json"), *out = cJSON_CreateArray();
	cJSON *sum;

	(void)state;
	assert_int_equal(topology_findings(&inv, cJSON_GetObjectItem(d, "hosts"),
	    NULL, out), 0);
	if (cJSON_GetArraySize(out) != 0)
		fail_msg("findings on a healthy fabric: %s",
		    cJSON_PrintUnformatted(out));
	sum = topology_summary(&inv, cJSON_GetObjectItem(d, "hosts"));
	/* Data, with its line beside it. */
	{
		const cJSON *h0 = cJSON_GetArrayItem(sum, 0);
		const cJSON *cl = cJSON_GetObjectItem(h0, "cluster");
		const cJSON *fr = cJSON_GetObjectItem(h0, "frr");

		assert_int_equal(cJSON_GetObjectItem(cl, "paths_min")->valueint,
		    2);
		assert_int_equal(cJSON_GetObjectItem(cl, "paths_max")->valueint,
		    2);
		assert_true(cJSON_GetObjectItem(cl, "mtu")->valuedouble > 0);
		assert_int_equal(cJSON_GetObjectItem(fr, "ospf_full")->valueint,
		    4);
		assert_int_equal(cJSON_GetObjectItem(fr,
		    "ospf_total")->valueint, 4);
		assert_non_null(strstr(topology_text(h0, "cluster"),
		    "2 paths to every peer"));
		assert_non_null(strstr(topology_text(h0, "frr"),
		    "OSPF 4/4 Full"));
	}
	cJSON_Delete(sum);
	cJSON_Delete(out);
	cJSON_Delete(d);
}

static void
test_plane_down(void **state)
{
	cJSON *d = cf_unit_load_json(FACTS "ospf-dual-h1-pa-down.json");
	cJSON *out = cJSON_CreateArray();
	const cJSON *f;
	const char *want[] = { "h1", "h2", "h3" };
	int k = 0;

	(void)state;
	assert_int_equal(topology_findings(&inv, cJSON_GetObjectItem(d, "hosts"),
	    NULL, out), 3);
	assert_int_equal(cJSON_GetArraySize(out), 3);
	cJSON_ArrayForEach(f, out) {
		assert_string_equal(cJSON_GetObjectItem(f, "kind")->valuestring,
		    "ecmp_single_path");
		assert_string_equal(cJSON_GetObjectItem(f, "network")->
		    valuestring, "cluster");
		assert_string_equal(cJSON_GetArrayItem(cJSON_GetObjectItem(f,
		    "hosts"), 0)->valuestring, want[k++]);
		assert_int_equal(cJSON_GetObjectItem(cJSON_GetObjectItem(f,
		    "evidence"), "paths")->valueint, 1);
	}
	/* h1 lost a path to both peers, the others only to h1. */
	assert_non_null(strstr(cJSON_GetObjectItem(cJSON_GetArrayItem(out, 0),
	    "summary")->valuestring, "2 of 2 peers"));
	assert_non_null(strstr(cJSON_GetObjectItem(cJSON_GetArrayItem(out, 1),
	    "summary")->valuestring, "1 of 2 peers"));
	cJSON_Delete(out);
	cJSON_Delete(d);
}

static cJSON *
host_facts(cJSON *d, const char *name)
{
	cJSON *h;

	cJSON_ArrayForEach(h, cJSON_GetObjectItem(d, "hosts"))
		if (strcmp(cJSON_GetObjectItem(h, "name")->valuestring,
		    name) == 0)
			return cJSON_GetObjectItem(h, "facts");
	fail_msg("no host %s", name);
	return NULL;
}

static cJSON *
link_of(cJSON *facts, const char *name)
{
	cJSON *l;

	cJSON_ArrayForEach(l, cJSON_GetObjectItem(facts, "links"))
		if (strcmp(cJSON_GetObjectItem(l, "name")->valuestring,
		    name) == 0)
			return l;
	fail_msg("no link %s", name);
	return NULL;
}

/* The captured facts, changed the way a misconfigured host would be:
 * h3's public port at MTU 1500, h2's at 1 Gb/s, h1 filtering reverse
 * paths strictly while its cluster traffic has two paths. */
static void
test_inconsistent_and_rp_filter(void **state)
{
	cJSON *d = cf_unit_load_json(FACTS "ospf-dual.json"), *out = cJSON_CreateArray();
	const cJSON *f;
	int seen = 0;

	(void)state;
	cJSON_ReplaceItemInObject(link_of(host_facts(d, "h3"), "pub"), "mtu",
	    cJSON_CreateNumber(1500));
	cJSON_ReplaceItemInObject(link_of(host_facts(d, "h2"), "pub"),
	    "speed_mbps", cJSON_CreateNumber(1000));
	cJSON_ReplaceItemInObject(cJSON_GetObjectItem(cJSON_GetObjectItem(
	    host_facts(d, "h1"), "sysctl"), "rp_filter"), "all",
	    cJSON_CreateNumber(1));
	topology_findings(&inv, cJSON_GetObjectItem(d, "hosts"), NULL, out);
	cJSON_ArrayForEach(f, out) {
		const char *k = cJSON_GetObjectItem(f, "kind")->valuestring;
		const char *h = cJSON_GetArrayItem(cJSON_GetObjectItem(f,
		    "hosts"), 0)->valuestring;
		const char *n = cJSON_GetObjectItem(f, "network")->valuestring;

		if (strcmp(k, "mtu_inconsistent") == 0) {
			assert_string_equal(h, "h3");
			assert_string_equal(n, "public");
			assert_non_null(strstr(cJSON_GetObjectItem(f,
			    "summary")->valuestring, "h3 pub 1500"));
			seen |= 1;
		} else if (strcmp(k, "speed_inconsistent") == 0) {
			assert_string_equal(h, "h2");
			seen |= 2;
		} else if (strcmp(k, "rp_filter_strict") == 0) {
			assert_string_equal(h, "h1");
			assert_string_equal(n, "cluster");
			seen |= 4;
		} else {
			fail_msg("unexpected %s", cJSON_PrintUnformatted(f));
		}
	}
	assert_int_equal(seen, 7);
	assert_int_equal(cJSON_GetArraySize(out), 3);
	cJSON_Delete(out);
	cJSON_Delete(d);
}

static cJSON *
frr_with(const char *key, const char *file)
{
	cJSON *f = cJSON_CreateObject();

	cJSON_AddBoolToObject(f, "available", true);
	cJSON_AddItemToObject(f, key, cf_unit_load_json(file));
	return f;
}

static void
test_frr_captures(void **state)
{
	struct frr_sum s;
	char err[CF_ERRLEN];
	cJSON *f;

	(void)state;
	f = frr_with("ospf_neighbors", FRR "ospf-dual-h1.ospf_neighbors.json");
	assert_int_equal(topology_frr(f, &s, err), 0);
	assert_true(s.ospf_total >= 2);
	assert_int_equal(s.ospf_full, s.ospf_total);
	cJSON_Delete(f);
	f = frr_with("bgp_summary", FRR "leafspine-dual-h1.bgp_summary.json");
	assert_int_equal(topology_frr(f, &s, err), 0);
	assert_int_equal(s.bgp_total, 2);
	assert_int_equal(s.bgp_established, 2);
	cJSON_Delete(f);
	f = frr_with("bgp_summary",
	    FRR "leafspine-dual-h1-down.bgp_summary.json");
	assert_int_equal(topology_frr(f, &s, err), 0);
	assert_int_equal(s.bgp_total, 2);
	assert_int_equal(s.bgp_established, 1);
	cJSON_Delete(f);
}

static void
test_frr_session_down(void **state)
{
	cJSON *hosts = cJSON_CreateArray(), *h = cJSON_CreateObject(), *facts;
	cJSON *out = cJSON_CreateArray();

	(void)state;
	facts = cJSON_AddObjectToObject(h, "facts");
	cJSON_AddItemToObject(facts, "frr", frr_with("bgp_summary",
	    FRR "leafspine-dual-h1-down.bgp_summary.json"));
	cJSON_AddStringToObject(h, "name", "h1");
	cJSON_AddItemToArray(hosts, h);
	assert_int_equal(topology_findings(&inv, hosts, NULL, out), 1);
	assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(out, 0),
	    "kind")->valuestring, "ecmp_single_path");
	assert_non_null(strstr(cJSON_GetObjectItem(cJSON_GetArrayItem(out, 0),
	    "summary")->valuestring, "BGP 1 of 2 sessions Established"));
	cJSON_Delete(out);
	cJSON_Delete(hosts);
}

static void
test_frr_bad_shapes(void **state)
{
	static const char *const bad[] = {
		"{\"ospf_neighbors\": {\"neighbors\": {\"1.1.1.1\": 5}}}",
		"{\"ospf_neighbors\": {\"nbrs\": {}}}",
		"{\"ospf_neighbors\": {\"neighbors\": {\"1.1.1.1\": "
		    "[{\"nbrState\": 3}]}}}",
		"{\"bgp_summary\": {\"ipv4Unicast\": {\"peers\": []}}}",
		"{\"bgp_summary\": {\"ipv4Unicast\": {\"peers\": "
		    "{\"a\": {\"state\": true}}}}}",
		"{\"bfd_peers\": {\"peer\": \"x\"}}",
		"{\"bfd_peers\": [{\"peer\": \"x\"}]}",
		"{\"available\": \"yes\"}",
	};
	struct frr_sum s;
	char err[CF_ERRLEN];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		cJSON *f = cJSON_Parse(bad[i]);

		assert_non_null(f);
		err[0] = '\0';
		if (topology_frr(f, &s, err) != -1)
			fail_msg("accepted %s", bad[i]);
		assert_true(strlen(err) > 0);
		cJSON_Delete(f);
	}
}

/* A hostile agent's facts: a bond of members with 300-character names,
 * all down, and the link that holds the host's address named as long.
 * The findings and the summary stay inside their buffers (the old code
 * overwrote the coordinator's stack here: ASan and the product's stack
 * protector both catch a regression), and the text is cut, not lost. */
static void
test_hostile_names(void **state)
{
	cJSON *d = cf_unit_load_json(FACTS "ospf-dual.json"), *h, *links, *l;
	cJSON *out = cJSON_CreateArray(), *sum, *b, *ms, *f;
	char name[301];
	int k;

	(void)state;
	memset(name, 'A', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	h = cJSON_GetArrayItem(cJSON_GetObjectItem(d, "hosts"), 0);
	links = cJSON_GetObjectItem(cJSON_GetObjectItem(h, "facts"), "links");
	l = cJSON_CreateObject();
	cJSON_AddStringToObject(l, "name", name);
	b = cJSON_AddObjectToObject(l, "bond");
	cJSON_AddStringToObject(b, "mode", name);
	cJSON_AddStringToObject(b, "xmit_hash_policy", name);
	ms = cJSON_AddArrayToObject(b, "members");
	for (k = 0; k < 8; k++) {
		cJSON *m = cJSON_CreateObject();

		cJSON_AddStringToObject(m, "name", name);
		cJSON_AddStringToObject(m, "mii", "down");
		cJSON_AddItemToArray(ms, m);
	}
	cJSON_AddItemToArray(links, l);
	/* And every existing link renamed long (the summary's line). */
	cJSON_ArrayForEach(l, links)
		cJSON_ReplaceItemInObject(l, "name", cJSON_CreateString(name));
	topology_findings(&inv, cJSON_GetObjectItem(d, "hosts"), NULL, out);
	k = 0;
	cJSON_ArrayForEach(f, out)
		if (strcmp(cJSON_GetObjectItem(f, "kind")->valuestring,
		    "bond_degraded") == 0) {
			k++;
			assert_true(strlen(cJSON_GetObjectItem(f,
			    "summary")->valuestring) < 1024);
		}
	assert_true(k >= 1);
	sum = topology_summary(&inv, cJSON_GetObjectItem(d, "hosts"));
	assert_non_null(sum);
	cJSON_Delete(sum);
	cJSON_Delete(out);
	cJSON_Delete(d);
}

CF_UNIT_MAIN(setup, teardown,
    cmocka_unit_test(test_hostile_names),
    cmocka_unit_test(test_healthy), cmocka_unit_test(test_plane_down),
    cmocka_unit_test(test_inconsistent_and_rp_filter),
    cmocka_unit_test(test_frr_captures),
    cmocka_unit_test(test_frr_session_down),
    cmocka_unit_test(test_frr_bad_shapes))
