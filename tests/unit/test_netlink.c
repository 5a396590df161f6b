/* Unit tests for agent/facts/netlink.c and coordinator/facts/topology.c's bond checks on
 * netlink messages built here with libnl's message API (this kernel has
 * no bonding driver): an 802.3ad bond with both members up, with one
 * member down, and with a partner that is not aggregating; a layer2 hash
 * policy; an ECMP route with two next hops; malformed messages. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "cf_unit.h"

#include <arpa/inet.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include <netlink/attr.h>
#include <netlink/msg.h>

#include "facts/netlink.h"
#include "facts/topology.h"

#define AD_SYNC_COLL_DIST 0x3c	/* in sync, collecting, distributing */

static struct nl_msg *
bond_msg(int idx, const char *name, int mode, int policy, uint16_t agg)
{
	struct ifinfomsg ifi = { .ifi_family = AF_UNSPEC, .ifi_index = idx,
	    .ifi_flags = 0x10000 };
	struct nl_msg *m = nlmsg_alloc_simple(RTM_NEWLINK, 0);
	struct nlattr *li, *data, *ad;
	uint8_t mac[6] = { 2, 0, 0, 0, 0, 9 };

	assert_non_null(m);
	assert_int_equal(nlmsg_append(m, &ifi, sizeof(ifi), NLMSG_ALIGNTO), 0);
	nla_put_string(m, IFLA_IFNAME, name);
	nla_put_u32(m, IFLA_MTU, 9000);
	nla_put_u8(m, IFLA_OPERSTATE, 6);
	li = nla_nest_start(m, IFLA_LINKINFO);
	nla_put_string(m, IFLA_INFO_KIND, "bond");
	data = nla_nest_start(m, IFLA_INFO_DATA);
	nla_put_u8(m, IFLA_BOND_MODE, (uint8_t)mode);
	nla_put_u32(m, IFLA_BOND_MIIMON, 100);
	nla_put_u8(m, IFLA_BOND_XMIT_HASH_POLICY, (uint8_t)policy);
	ad = nla_nest_start(m, IFLA_BOND_AD_INFO);
	nla_put_u16(m, IFLA_BOND_AD_INFO_AGGREGATOR, agg);
	nla_put_u16(m, IFLA_BOND_AD_INFO_NUM_PORTS, 2);
	nla_put_u16(m, IFLA_BOND_AD_INFO_ACTOR_KEY, 15);
	nla_put_u16(m, IFLA_BOND_AD_INFO_PARTNER_KEY, 32);
	nla_put(m, IFLA_BOND_AD_INFO_PARTNER_MAC, 6, mac);
	nla_nest_end(m, ad);
	nla_nest_end(m, data);
	nla_nest_end(m, li);
	return m;
}

static struct nl_msg *
member_msg(int idx, const char *name, int master, int mii, uint16_t agg,
    uint8_t partner)
{
	struct ifinfomsg ifi = { .ifi_family = AF_UNSPEC, .ifi_index = idx };
	struct nl_msg *m = nlmsg_alloc_simple(RTM_NEWLINK, 0);
	struct nlattr *li, *data;
	uint64_t stats[8] = { 10, 20, 1000, 2000, 0, 0, 1, 0 };

	assert_non_null(m);
	assert_int_equal(nlmsg_append(m, &ifi, sizeof(ifi), NLMSG_ALIGNTO), 0);
	nla_put_string(m, IFLA_IFNAME, name);
	nla_put_u32(m, IFLA_MTU, 9000);
	nla_put_u32(m, IFLA_MASTER, (uint32_t)master);
	nla_put(m, IFLA_STATS64, sizeof(stats), stats);
	li = nla_nest_start(m, IFLA_LINKINFO);
	nla_put_string(m, IFLA_INFO_SLAVE_KIND, "bond");
	data = nla_nest_start(m, IFLA_INFO_SLAVE_DATA);
	nla_put_u8(m, IFLA_BOND_SLAVE_STATE, 0);
	nla_put_u8(m, IFLA_BOND_SLAVE_MII_STATUS, (uint8_t)mii);
	nla_put_u32(m, IFLA_BOND_SLAVE_LINK_FAILURE_COUNT, mii ? 3 : 0);
	nla_put_u16(m, IFLA_BOND_SLAVE_AD_AGGREGATOR_ID, agg);
	nla_put_u8(m, IFLA_BOND_SLAVE_AD_ACTOR_OPER_PORT_STATE,
	    AD_SYNC_COLL_DIST);
	nla_put_u16(m, IFLA_BOND_SLAVE_AD_PARTNER_OPER_PORT_STATE, partner);
	nla_nest_end(m, data);
	nla_nest_end(m, li);
	return m;
}

/* links_json: parse the messages into facts as the agent reports them. */
static cJSON *
facts_of(struct nl_msg **msgs, int n)
{
	struct link_fact lf[8];
	cJSON *facts = cJSON_CreateObject(), *links;
	int i;

	links = cJSON_AddArrayToObject(facts, "links");
	for (i = 0; i < n; i++) {
		assert_int_equal(netlink_parse_link(nlmsg_hdr(msgs[i]), &lf[i]), 0);
		nlmsg_free(msgs[i]);
	}
	for (i = 0; i < n; i++)
		cJSON_AddItemToArray(links, netlink_link_json(&lf[i], lf, n));
	return facts;
}

static cJSON *
bond_findings(cJSON *facts, int *errors)
{
	struct inventory inv;
	cJSON *hosts = cJSON_CreateArray(), *h = cJSON_CreateObject();
	cJSON *out = cJSON_CreateArray();

	memset(&inv, 0, sizeof(inv));
	TAILQ_INIT(&inv.hosts);
	cJSON_AddStringToObject(h, "name", "osd1");
	cJSON_AddItemToObject(h, "facts", facts);
	cJSON_AddItemToArray(hosts, h);
	*errors = topology_findings(&inv, hosts, NULL, out);
	cJSON_Delete(hosts);
	return out;
}

static void
test_bond_healthy(void **state)
{
	struct nl_msg *m[3];
	struct link_fact lf;
	cJSON *facts, *b, *out;
	int e;

	(void)state;
	m[0] = bond_msg(5, "bond0", 4, 1, 7);
	assert_int_equal(netlink_parse_link(nlmsg_hdr(m[0]), &lf), 0);
	assert_true(lf.is_bond);
	assert_int_equal(lf.bond_mode, 4);
	assert_int_equal(lf.hash_policy, 1);
	assert_int_equal(lf.ad_aggregator, 7);
	assert_int_equal(lf.ad_partner_key, 32);
	assert_true(lf.carrier_up);
	m[1] = member_msg(6, "ens1f0", 5, 0, 7, AD_SYNC_COLL_DIST);
	m[2] = member_msg(7, "ens1f1", 5, 0, 7, AD_SYNC_COLL_DIST);
	facts = facts_of(m, 3);
	b = cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(facts,
	    "links"), 0), "bond");
	assert_string_equal(cJSON_GetObjectItem(b, "mode")->valuestring,
	    "802.3ad");
	assert_string_equal(cJSON_GetObjectItem(b, "xmit_hash_policy")->
	    valuestring, "layer3+4");
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(b, "members")),
	    2);
	assert_string_equal(cJSON_GetObjectItem(cJSON_GetObjectItem(b, "ad"),
	    "partner_mac")->valuestring, "02:00:00:00:00:09");
	/* A member's master and counters. */
	assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(
	    cJSON_GetObjectItem(facts, "links"), 1), "master")->valuestring,
	    "bond0");
	assert_int_equal(cJSON_GetObjectItem(cJSON_GetObjectItem(
	    cJSON_GetArrayItem(cJSON_GetObjectItem(facts, "links"), 1),
	    "counters"), "tx_bytes")->valueint, 2000);
	out = bond_findings(facts, &e);
	assert_int_equal(cJSON_GetArraySize(out), 0);
	assert_int_equal(e, 0);
	cJSON_Delete(out);
}

static void
expect_kind(cJSON *out, const char *kind, const char *needle)
{
	const cJSON *f;

	cJSON_ArrayForEach(f, out)
		if (strcmp(cJSON_GetObjectItem(f, "kind")->valuestring,
		    kind) == 0) {
			assert_non_null(strstr(cJSON_GetObjectItem(f,
			    "summary")->valuestring, needle));
			return;
		}
	fail_msg("no %s finding", kind);
}

static void
test_bond_member_down(void **state)
{
	struct nl_msg *m[3];
	cJSON *out;
	int e;

	(void)state;
	m[0] = bond_msg(5, "bond0", 4, 1, 7);
	m[1] = member_msg(6, "ens1f0", 5, 0, 7, AD_SYNC_COLL_DIST);
	m[2] = member_msg(7, "ens1f1", 5, 2, 7, 0);
	out = bond_findings(facts_of(m, 3), &e);
	assert_int_equal(cJSON_GetArraySize(out), 1);
	assert_int_equal(e, 1);
	expect_kind(out, "bond_degraded", "ens1f1 is down");
	expect_kind(out, "bond_degraded", "1 of 2 members up");
	cJSON_Delete(out);
}

static void
test_bond_partner_not_aggregating(void **state)
{
	struct nl_msg *m[3];
	cJSON *out;
	int e;

	(void)state;
	/* ens1f1 is up but in another aggregator (the switch did not
	 * bundle it), and ens1f0's partner does not distribute. */
	m[0] = bond_msg(5, "bond0", 4, 0, 7);
	m[1] = member_msg(6, "ens1f0", 5, 0, 7, 0x0c);
	m[2] = member_msg(7, "ens1f1", 5, 0, 8, AD_SYNC_COLL_DIST);
	out = bond_findings(facts_of(m, 3), &e);
	assert_int_equal(e, 1);
	expect_kind(out, "bond_degraded", "not collecting and distributing");
	expect_kind(out, "bond_degraded", "aggregator 8, not the bond's 7");
	/* And layer2 hashing: two hosts' streams share one member. */
	expect_kind(out, "bond_hash_policy", "layer2");
	assert_int_equal(cJSON_GetArraySize(out), 2);
	cJSON_Delete(out);
}

static const char *
names(int idx, char *buf, void *arg)
{
	(void)arg;
	snprintf(buf, IF_NAMESIZE, "eth%d", idx);
	return buf;
}

static void
test_route_multipath(void **state)
{
	struct rtmsg rm = { .rtm_family = AF_INET, .rtm_dst_len = 32,
	    .rtm_protocol = 188 };
	struct nl_msg *m = nlmsg_alloc_simple(RTM_NEWROUTE, 0);
	struct route_fact rf;
	char buf[128];
	struct rtnexthop *nh;
	struct nlattr *mp;
	uint32_t dst = inet_addr("198.19.0.12"), gw;
	int k;
	cJSON *j;

	(void)state;
	nlmsg_append(m, &rm, sizeof(rm), NLMSG_ALIGNTO);
	nla_put(m, RTA_DST, 4, &dst);
	mp = nla_nest_start(m, RTA_MULTIPATH);
	for (k = 0; k < 2; k++) {
		nh = nlmsg_reserve(m, sizeof(*nh), NLMSG_ALIGNTO);
		memset(nh, 0, sizeof(*nh));
		nh->rtnh_ifindex = 4 + k;
		gw = k ? inet_addr("198.19.101.12") : inet_addr(
		    "198.19.100.12");
		nla_put(m, RTA_GATEWAY, 4, &gw);
		nh->rtnh_len = (unsigned short)((char *)nlmsg_tail(
		    nlmsg_hdr(m)) - (char *)nh);
	}
	nla_nest_end(m, mp);
	assert_int_equal(netlink_parse_route(nlmsg_hdr(m), &rf, names, NULL), 0);
	assert_int_equal(rf.nnh, 2);
	assert_string_equal(rf.nh[0].oif, "eth4");
	assert_string_equal(rf.nh[1].oif, "eth5");
	assert_string_equal(netaddr_str(&rf.nh[1].gw, buf, sizeof(buf)),
	    "198.19.101.12");
	j = netlink_route_json(&rf);
	assert_string_equal(cJSON_GetObjectItem(j, "protocol")->valuestring,
	    "ospf");
	assert_string_equal(cJSON_GetObjectItem(j, "prefix")->valuestring,
	    "198.19.0.12/32");
	cJSON_Delete(j);
	nlmsg_free(m);
}

static void
test_malformed(void **state)
{
	struct ifinfomsg ifi = { .ifi_family = AF_UNSPEC, .ifi_index = 1 };
	struct nl_msg *m = nlmsg_alloc_simple(RTM_NEWLINK, 0);
	struct link_fact lf;
	struct route_fact rf;
	uint16_t shortmtu = 9000;

	(void)state;
	nlmsg_append(m, &ifi, sizeof(ifi), NLMSG_ALIGNTO);
	/* No name: refused. */
	assert_int_equal(netlink_parse_link(nlmsg_hdr(m), &lf), -1);
	/* An MTU of two bytes: the policy refuses it. */
	nla_put_string(m, IFLA_IFNAME, "x");
	nla_put(m, IFLA_MTU, 2, &shortmtu);
	assert_int_equal(netlink_parse_link(nlmsg_hdr(m), &lf), -1);
	/* Not a route message. */
	assert_int_equal(netlink_parse_route(nlmsg_hdr(m), &rf, names, NULL), -1);
	nlmsg_free(m);
}

CF_UNIT_MAIN(NULL, NULL,
    cmocka_unit_test(test_bond_healthy),
    cmocka_unit_test(test_bond_member_down),
    cmocka_unit_test(test_bond_partner_not_aggregating),
    cmocka_unit_test(test_route_multipath),
    cmocka_unit_test(test_malformed))
