/* Unit tests for agent/facts/ovs.c (the parsers of ovs-appctl's bond/show,
 * lacp/show and dpif/show on outputs captured from OVS 3.1, the facts'
 * JSON, the spread's map) and for coordinator/facts/topology.c's findings
 * on an OVS bond. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "cf_unit.h"

#include "facts/ovs.h"
#include "facts/topology.h"
#include "core/core.h"

#define G "tests/golden/ovs/"

static char *
slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *b;
	long n;

	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	b = calloc(1, n + 1);
	assert_int_equal(fread(b, 1, n, f), n);
	fclose(f);
	return b;
}

/* load: the three outputs of one state into st (dpif/show may be NULL). */
static void
load(struct ovs_state *st, const char *bond, const char *lacp,
    const char *dpif)
{
	const char *f[3] = { bond, lacp, dpif };
	int (*p[3])(const char *, struct ovs_state *, char *) = {
	    ovs_parse_bond_show, ovs_parse_lacp_show, ovs_parse_dpif_show };
	char err[CF_ERRLEN];
	int i;

	memset(st, 0, sizeof(*st));
	for (i = 0; i < 3; i++) {
		char *t;

		if (f[i] == NULL)
			continue;
		t = slurp(f[i]);
		if (p[i](t, st, err) != 0)
			fail_msg("%s: %s", f[i], err);
		free(t);
	}
}

static void
expect_healthy(const struct ovs_state *st)
{
	const struct ovs_bond *b = &st->bonds[0];
	int i;

	assert_int_equal(st->nbonds, 1);
	assert_string_equal(b->name, "bond0");
	assert_string_equal(b->mode, "balance-tcp");
	assert_string_equal(b->lacp, "negotiated");
	assert_int_equal(b->nmem, 2);
	for (i = 0; i < 2; i++) {
		assert_true(b->mem[i].enabled);
		assert_true(b->mem[i].may_enable);
		assert_string_equal(b->mem[i].lacp, "current attached");
	}
	assert_string_equal(b->mem[0].name, "m0");
	assert_string_equal(b->mem[1].name, "m1");
}

static void
test_healthy(void **state)
{
	struct ovs_state *st = malloc(sizeof(*st));

	(void)state;
	load(st, G "healthy.bond-show.txt", G "healthy.lacp-show.txt",
	    G "healthy.dpif-show.txt");
	expect_healthy(st);
	assert_int_equal(st->nports, 5);
	assert_string_equal(ovs_bridge_of(st, "pub"), "br0");
	assert_string_equal(ovs_bridge_of(st, "m1"), "br0");
	assert_null(ovs_bridge_of(st, "mgmt"));
	/* OVS before 2.15 said "slave". */
	load(st, G "slave-wording.bond-show.txt",
	    G "slave-wording.lacp-show.txt", NULL);
	expect_healthy(st);
	free(st);
}

static void
test_member_down_and_lacp_off(void **state)
{
	struct ovs_state *st = malloc(sizeof(*st));
	int i;

	(void)state;
	load(st, G "member-down.bond-show.txt", G "member-down.lacp-show.txt",
	    NULL);
	assert_string_equal(st->bonds[0].lacp, "negotiated");
	assert_true(st->bonds[0].mem[0].enabled);
	assert_false(st->bonds[0].mem[1].enabled);
	assert_false(st->bonds[0].mem[1].may_enable);
	assert_string_equal(st->bonds[0].mem[1].lacp, "defaulted detached");
	load(st, G "lacp-off.bond-show.txt", G "lacp-off.lacp-show.txt", NULL);
	assert_string_equal(st->bonds[0].lacp, "configured");
	assert_false(st->bonds[0].mem[0].enabled);
	assert_false(st->bonds[0].mem[1].enabled);
	/* The stack: a bond per host, its members named after the host. */
	load(st, G "switch.bond-show.txt", NULL, G "switch.dpif-show.txt");
	assert_int_equal(st->nbonds, 4);
	for (i = 0; i < 4 && strcmp(st->bonds[i].name, "bh4") != 0; i++)
		continue;
	assert_true(i < 4);
	assert_string_equal(st->bonds[i].mem[1].name, "h4-m1");
	assert_string_equal(ovs_bridge_of(st, "h4-m1"), "stack");
	free(st);
}

static void
test_malformed(void **state)
{
	struct ovs_state *st = calloc(1, sizeof(*st));
	char err[CF_ERRLEN], big[4096];
	int i;

	(void)state;
	assert_int_equal(ovs_parse_bond_show("member m0: enabled\n", st, err),
	    -1);
	assert_non_null(strstr(err, "line 1"));
	assert_int_equal(ovs_parse_dpif_show("    m0 1/2: (system)\n", st,
	    err), -1);
	/* Nothing it knows: no bond, no error. */
	memset(st, 0, sizeof(*st));
	assert_int_equal(ovs_parse_bond_show("garbage\n\n---- ----\n:::", st,
	    err), 0);
	assert_int_equal(st->nbonds, 0);
	/* A name past OVS_NAMELEN is not kept; a line past the buffer is cut,
	 * not overrun. */
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	memcpy(big, "---- ", 5);
	assert_int_equal(ovs_parse_bond_show(big, st, err), 0);
	assert_int_equal(st->nbonds, 0);
	/* More bonds than kept: the first OVS_MAX_BONDS. */
	for (i = 0; i < OVS_MAX_BONDS + 4; i++) {
		char t[64];

		snprintf(t, sizeof(t), "---- b%d ----\nmember m%d: enabled\n",
		    i, i);
		assert_int_equal(ovs_parse_bond_show(t, st, err), 0);
	}
	assert_int_equal(st->nbonds, OVS_MAX_BONDS);
	free(st);
}

/* The facts: the bond as a link, the internal port's uplink, a member's
 * carrier from the kernel's link. */
static void
test_facts_and_map(void **state)
{
	struct ovs_state *st = malloc(sizeof(*st));
	struct link_fact l[3];
	cJSON *links = cJSON_CreateArray(), *b, *x;
	char names[4][IF_NAMESIZE];
	int i;

	(void)state;
	load(st, G "member-down.bond-show.txt", G "member-down.lacp-show.txt",
	    G "healthy.dpif-show.txt");
	memset(l, 0, sizeof(l));
	for (i = 0; i < 3; i++) {
		static const char *const nm[] = { "m0", "m1", "pub" };
		cJSON *o = cJSON_CreateObject();

		snprintf(l[i].name, sizeof(l[i].name), "%s", nm[i]);
		snprintf(l[i].state, sizeof(l[i].state), i == 1 ? "down" :
		    "up");
		l[i].carrier_up = i != 1;
		cJSON_AddStringToObject(o, "name", nm[i]);
		cJSON_AddItemToArray(links, o);
	}
	ovs_facts(st, l, 3, links);
	assert_int_equal(cJSON_GetArraySize(links), 4);
	x = cJSON_GetArrayItem(links, 2);
	assert_string_equal(cJSON_GetObjectItem(x, "ovs_uplink")->valuestring,
	    "bond0");
	assert_null(cJSON_GetObjectItem(cJSON_GetArrayItem(links, 0),
	    "ovs_uplink"));
	x = cJSON_GetArrayItem(links, 3);
	assert_string_equal(cJSON_GetObjectItem(x, "kind")->valuestring,
	    "ovs-bond");
	b = cJSON_GetObjectItem(x, "bond");
	assert_string_equal(cJSON_GetObjectItem(b, "xmit_hash_policy")->
	    valuestring, "layer3+4");
	x = cJSON_GetArrayItem(cJSON_GetObjectItem(b, "members"), 1);
	assert_string_equal(cJSON_GetObjectItem(x, "state")->valuestring,
	    "disabled");
	assert_string_equal(cJSON_GetObjectItem(x, "mii")->valuestring, "down");
	cJSON_Delete(links);
	/* The spread's map: an internal port's traffic leaves by the
	 * members of the bond on its bridge. */
	ovs_map_store(st);
	assert_int_equal(ovs_map_members("pub", names, 4), 2);
	assert_string_equal(names[0], "m0");
	assert_string_equal(names[1], "m1");
	assert_int_equal(ovs_map_members("mgmt", names, 4), 0);
	assert_int_equal(ovs_map_members("pub", names, 1), 1);
	free(st);
}

/* topology_findings on one host's OVS facts. */
static cJSON *
findings_of(struct ovs_state *st, bool carrier1, int *errors)
{
	struct inventory inv;
	struct link_fact l[2];
	cJSON *hosts = cJSON_CreateArray(), *h = cJSON_CreateObject();
	cJSON *facts = cJSON_CreateObject(), *out = cJSON_CreateArray();
	cJSON *links = cJSON_AddArrayToObject(facts, "links");

	memset(l, 0, sizeof(l));
	snprintf(l[0].name, sizeof(l[0].name), "m0");
	snprintf(l[1].name, sizeof(l[1].name), "m1");
	l[0].carrier_up = true;
	l[1].carrier_up = carrier1;
	ovs_facts(st, l, 2, links);
	memset(&inv, 0, sizeof(inv));
	TAILQ_INIT(&inv.hosts);
	cJSON_AddStringToObject(h, "name", "osd1");
	cJSON_AddItemToObject(h, "facts", facts);
	cJSON_AddItemToArray(hosts, h);
	*errors = topology_findings(&inv, hosts, NULL, out);
	cJSON_Delete(hosts);
	return out;
}

static const char *
summary_of(const cJSON *out, const char *kind)
{
	const cJSON *f;

	cJSON_ArrayForEach(f, out)
		if (strcmp(cJSON_GetObjectItem(f, "kind")->valuestring,
		    kind) == 0)
			return cJSON_GetObjectItem(f, "summary")->valuestring;
	return NULL;
}

static void
test_findings(void **state)
{
	struct ovs_state *st = malloc(sizeof(*st));
	const char *s;
	cJSON *out;
	int e;

	(void)state;
	load(st, G "healthy.bond-show.txt", G "healthy.lacp-show.txt", NULL);
	out = findings_of(st, true, &e);
	assert_int_equal(e, 0);
	assert_int_equal(cJSON_GetArraySize(out), 0);
	cJSON_Delete(out);
	load(st, G "member-down.bond-show.txt", G "member-down.lacp-show.txt",
	    NULL);
	out = findings_of(st, false, &e);
	assert_int_equal(e, 1);
	assert_non_null(s = summary_of(out, "bond_degraded"));
	assert_non_null(strstr(s, "osd1 bond0 (balance-tcp, 1 of 2 members "
	    "up): m1 is disabled (carrier down)"));
	cJSON_Delete(out);
	load(st, G "lacp-off.bond-show.txt", G "lacp-off.lacp-show.txt", NULL);
	out = findings_of(st, true, &e);
	assert_non_null(s = summary_of(out, "bond_degraded"));
	assert_non_null(strstr(s, "LACP is not negotiated"));
	assert_non_null(strstr(s, "m0 is disabled (LACP: defaulted "
	    "detached)"));
	cJSON_Delete(out);
	/* balance-slb hashes by source MAC: one member per pair of hosts. */
	load(st, G "healthy.bond-show.txt", NULL, NULL);
	snprintf(st->bonds[0].mode, sizeof(st->bonds[0].mode), "balance-slb");
	out = findings_of(st, true, &e);
	assert_non_null(s = summary_of(out, "bond_hash_policy"));
	assert_int_equal(e, 0);
	cJSON_Delete(out);
	free(st);
}

CF_UNIT_MAIN(NULL, NULL,
    cmocka_unit_test(test_healthy),
    cmocka_unit_test(test_member_down_and_lacp_off),
    cmocka_unit_test(test_malformed),
    cmocka_unit_test(test_facts_and_map),
    cmocka_unit_test(test_findings))
