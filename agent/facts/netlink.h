/*
 * netlink: what the kernel says about this host's links and routes, read
 * over rtnetlink with libnl-3 (never by parsing 'ip' output): every link
 * with its state, MTU, master and stats64 counters; bonds with their mode,
 * miimon, hash policy and 802.3ad aggregator, actor and partner keys;
 * bond members with their MII state, link failures and aggregator id; and
 * for a peer address the FIB entry the kernel would use, with every
 * multipath next hop (RTM_F_FIB_MATCH).
 *
 * The parsers take one netlink message each, so the tests feed them
 * messages they build themselves: this machine has no bonding driver.
 */
#ifndef CF_NLFACTS_H
#define CF_NLFACTS_H

#include <linux/netlink.h>
#include <net/if.h>
#include <stdbool.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "netaddr.h"

#define NETLINK_MAX_NH 16		/* multipath next hops kept */

struct link_fact {
	int index;
	char name[IF_NAMESIZE];
	char kind[16];			/* "bond", "veth", ... or "" */
	char state[16];			/* operstate: up, down, lowerlayerdown */
	bool carrier_up;		/* IFF_LOWER_UP */
	uint32_t mtu;
	int master;			/* ifindex, 0 = none */
	bool has_stats;
	uint64_t rx_bytes, tx_bytes, rx_packets, tx_packets;
	uint64_t rx_errors, tx_errors, rx_dropped, tx_dropped;
	/* Bond (kind "bond"). */
	bool is_bond;
	int bond_mode;			/* -1 unknown; 4 = 802.3ad */
	uint32_t miimon;
	int hash_policy;		/* -1 unknown; 0 layer2, 1 layer3+4 ... */
	bool has_ad;
	uint16_t ad_aggregator, ad_ports, ad_actor_key, ad_partner_key;
	uint8_t ad_partner_mac[6];
	/* Bond member (slave kind "bond"). */
	bool is_member;
	int member_state;		/* 0 active, 1 backup */
	int mii_status;			/* 0 up, 1 fail, 2 down, 3 back */
	uint32_t link_failures;
	bool has_member_ad;
	uint16_t member_aggregator;
	uint8_t actor_oper_state;
	uint8_t partner_oper_state;
	/* From sysfs and ethtool, not netlink. */
	int speed_mbps;			/* -1 unknown */
	char duplex[8];
	char driver[32];
};

struct route_fact {
	struct netaddr dst;		/* the matched prefix */
	int dst_len;
	int protocol;			/* RTPROT_*: kernel, static, bgp, ospf */
	char oif[IF_NAMESIZE];
	struct netaddr gw, prefsrc;
	int nnh;
	struct {
		char oif[IF_NAMESIZE];
		struct netaddr gw;
		int weight;
	} nh[NETLINK_MAX_NH];
};

/* netlink_parse_link reads one RTM_NEWLINK message into lf; -1 when it is not
 * one or is malformed. Names of masters are resolved later. */
int netlink_parse_link(struct nlmsghdr *h, struct link_fact *lf);
/* netlink_parse_route reads one RTM_NEWROUTE message; ifname resolves an
 * interface index to a name (NULL: if_indextoname). */
int netlink_parse_route(struct nlmsghdr *h, struct route_fact *rf,
    const char *(*ifname)(int idx, char *buf, void *arg), void *arg);

/* netlink_links dumps every link (caller frees *out); speed, duplex and
 * driver filled from sysfs. Blocking but local and bounded: call from a
 * worker thread. */
int netlink_links(struct link_fact **out, int *n, char *err);
/* netlink_counters: netlink_links without the sysfs reads (names, masters and
 * counters are all a spread needs). */
int netlink_counters(struct link_fact **out, int *n, char *err);
/* netlink_link_of_addr: the index in l of the link holding addr, or -1. */
int netlink_link_of_addr(const struct link_fact *l, int n,
    const struct netaddr *addr);
/* netlink_route asks the FIB entry for dst (RTM_F_FIB_MATCH): every next
 * hop of an ECMP route, not the one a flow would hash to. */
int netlink_route(const struct netaddr *dst, struct route_fact *rf, char *err);

/* JSON: a link with its master's name and, for a bond, its members. */
cJSON *netlink_link_json(const struct link_fact *lf, const struct link_fact *all,
    int n);
cJSON *netlink_route_json(const struct route_fact *rf);
const char *netlink_bond_mode_name(int mode);
const char *netlink_hash_policy_name(int p);

#endif
