/* netlink: links, bonds and routes over rtnetlink, see netlink.h. */
#include "facts/netlink.h"

#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include <netlink/attr.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <netlink/socket.h>

#include "json.h"

/* <linux/if.h> has it but clashes with <net/if.h>. */
#ifndef IFF_LOWER_UP
#define IFF_LOWER_UP 0x10000
#endif

/* The stats64 fields read here: the first eight, 64 bytes, present in
 * every kernel's struct whatever it appended since. */
#define STATS64_MIN 64

static struct nla_policy link_pol[IFLA_MAX + 1] = {
	[IFLA_IFNAME] = { .type = NLA_STRING, .maxlen = IF_NAMESIZE },
	[IFLA_MTU] = { .type = NLA_U32 },
	[IFLA_OPERSTATE] = { .type = NLA_U8 },
	[IFLA_MASTER] = { .type = NLA_U32 },
	[IFLA_STATS64] = { .minlen = STATS64_MIN },
	[IFLA_LINKINFO] = { .type = NLA_NESTED },
};

static struct nla_policy info_pol[IFLA_INFO_MAX + 1] = {
	[IFLA_INFO_KIND] = { .type = NLA_STRING },
	[IFLA_INFO_DATA] = { .type = NLA_NESTED },
	[IFLA_INFO_SLAVE_KIND] = { .type = NLA_STRING },
	[IFLA_INFO_SLAVE_DATA] = { .type = NLA_NESTED },
};

static struct nla_policy bond_pol[IFLA_BOND_MAX + 1] = {
	[IFLA_BOND_MODE] = { .type = NLA_U8 },
	[IFLA_BOND_MIIMON] = { .type = NLA_U32 },
	[IFLA_BOND_XMIT_HASH_POLICY] = { .type = NLA_U8 },
	[IFLA_BOND_AD_INFO] = { .type = NLA_NESTED },
};

static struct nla_policy ad_pol[IFLA_BOND_AD_INFO_MAX + 1] = {
	[IFLA_BOND_AD_INFO_AGGREGATOR] = { .type = NLA_U16 },
	[IFLA_BOND_AD_INFO_NUM_PORTS] = { .type = NLA_U16 },
	[IFLA_BOND_AD_INFO_ACTOR_KEY] = { .type = NLA_U16 },
	[IFLA_BOND_AD_INFO_PARTNER_KEY] = { .type = NLA_U16 },
	[IFLA_BOND_AD_INFO_PARTNER_MAC] = { .minlen = 6 },
};

static struct nla_policy member_pol[IFLA_BOND_SLAVE_MAX + 1] = {
	[IFLA_BOND_SLAVE_STATE] = { .type = NLA_U8 },
	[IFLA_BOND_SLAVE_MII_STATUS] = { .type = NLA_U8 },
	[IFLA_BOND_SLAVE_LINK_FAILURE_COUNT] = { .type = NLA_U32 },
	[IFLA_BOND_SLAVE_AD_AGGREGATOR_ID] = { .type = NLA_U16 },
	[IFLA_BOND_SLAVE_AD_ACTOR_OPER_PORT_STATE] = { .type = NLA_U8 },
	[IFLA_BOND_SLAVE_AD_PARTNER_OPER_PORT_STATE] = { .type = NLA_U16 },
};

static const char *const operstates[] = { "unknown", "notpresent", "down",
    "lowerlayerdown", "testing", "dormant", "up" };

static void
parse_bond(struct nlattr *data, struct link_fact *lf)
{
	struct nlattr *tb[IFLA_BOND_MAX + 1], *ad[IFLA_BOND_AD_INFO_MAX + 1];

	lf->is_bond = true;
	if (data == NULL || nla_parse_nested(tb, IFLA_BOND_MAX, data,
	    bond_pol) < 0)
		return;
	if (tb[IFLA_BOND_MODE])
		lf->bond_mode = nla_get_u8(tb[IFLA_BOND_MODE]);
	if (tb[IFLA_BOND_MIIMON])
		lf->miimon = nla_get_u32(tb[IFLA_BOND_MIIMON]);
	if (tb[IFLA_BOND_XMIT_HASH_POLICY])
		lf->hash_policy = nla_get_u8(tb[IFLA_BOND_XMIT_HASH_POLICY]);
	if (tb[IFLA_BOND_AD_INFO] && nla_parse_nested(ad, IFLA_BOND_AD_INFO_MAX,
	    tb[IFLA_BOND_AD_INFO], ad_pol) == 0) {
		lf->has_ad = true;
		if (ad[IFLA_BOND_AD_INFO_AGGREGATOR])
			lf->ad_aggregator = nla_get_u16(
			    ad[IFLA_BOND_AD_INFO_AGGREGATOR]);
		if (ad[IFLA_BOND_AD_INFO_NUM_PORTS])
			lf->ad_ports = nla_get_u16(
			    ad[IFLA_BOND_AD_INFO_NUM_PORTS]);
		if (ad[IFLA_BOND_AD_INFO_ACTOR_KEY])
			lf->ad_actor_key = nla_get_u16(
			    ad[IFLA_BOND_AD_INFO_ACTOR_KEY]);
		if (ad[IFLA_BOND_AD_INFO_PARTNER_KEY])
			lf->ad_partner_key = nla_get_u16(
			    ad[IFLA_BOND_AD_INFO_PARTNER_KEY]);
		if (ad[IFLA_BOND_AD_INFO_PARTNER_MAC])
			memcpy(lf->ad_partner_mac, nla_data(
			    ad[IFLA_BOND_AD_INFO_PARTNER_MAC]), 6);
	}
}

static void
parse_member(struct nlattr *data, struct link_fact *lf)
{
	struct nlattr *tb[IFLA_BOND_SLAVE_MAX + 1];

	lf->is_member = true;
	if (data == NULL || nla_parse_nested(tb, IFLA_BOND_SLAVE_MAX, data,
	    member_pol) < 0)
		return;
	if (tb[IFLA_BOND_SLAVE_STATE])
		lf->member_state = nla_get_u8(tb[IFLA_BOND_SLAVE_STATE]);
	if (tb[IFLA_BOND_SLAVE_MII_STATUS])
		lf->mii_status = nla_get_u8(tb[IFLA_BOND_SLAVE_MII_STATUS]);
	if (tb[IFLA_BOND_SLAVE_LINK_FAILURE_COUNT])
		lf->link_failures = nla_get_u32(
		    tb[IFLA_BOND_SLAVE_LINK_FAILURE_COUNT]);
	if (tb[IFLA_BOND_SLAVE_AD_AGGREGATOR_ID]) {
		lf->has_member_ad = true;
		lf->member_aggregator = nla_get_u16(
		    tb[IFLA_BOND_SLAVE_AD_AGGREGATOR_ID]);
	}
	if (tb[IFLA_BOND_SLAVE_AD_ACTOR_OPER_PORT_STATE])
		lf->actor_oper_state = nla_get_u8(
		    tb[IFLA_BOND_SLAVE_AD_ACTOR_OPER_PORT_STATE]);
	if (tb[IFLA_BOND_SLAVE_AD_PARTNER_OPER_PORT_STATE])
		lf->partner_oper_state = (uint8_t)nla_get_u16(
		    tb[IFLA_BOND_SLAVE_AD_PARTNER_OPER_PORT_STATE]);
}

int
netlink_parse_link(struct nlmsghdr *h, struct link_fact *lf)
{
	struct nlattr *tb[IFLA_MAX + 1], *info[IFLA_INFO_MAX + 1];
	struct ifinfomsg *ifi;

	memset(lf, 0, sizeof(*lf));
	lf->bond_mode = lf->hash_policy = lf->member_state = -1;
	lf->mii_status = lf->speed_mbps = -1;
	if (h->nlmsg_type != RTM_NEWLINK ||
	    !nlmsg_valid_hdr(h, sizeof(*ifi)) ||
	    nlmsg_parse(h, sizeof(*ifi), tb, IFLA_MAX, link_pol) < 0)
		return -1;
	ifi = nlmsg_data(h);
	lf->index = ifi->ifi_index;
	lf->carrier_up = (ifi->ifi_flags & IFF_LOWER_UP) != 0;
	if (tb[IFLA_IFNAME] == NULL)
		return -1;
	snprintf(lf->name, sizeof(lf->name), "%s",
	    nla_get_string(tb[IFLA_IFNAME]));
	if (tb[IFLA_MTU])
		lf->mtu = nla_get_u32(tb[IFLA_MTU]);
	snprintf(lf->state, sizeof(lf->state), "%s", tb[IFLA_OPERSTATE] &&
	    nla_get_u8(tb[IFLA_OPERSTATE]) < 7 ?
	    operstates[nla_get_u8(tb[IFLA_OPERSTATE])] : "unknown");
	if (tb[IFLA_MASTER])
		lf->master = (int)nla_get_u32(tb[IFLA_MASTER]);
	if (tb[IFLA_STATS64]) {
		uint64_t s[8];

		memcpy(s, nla_data(tb[IFLA_STATS64]), sizeof(s));
		lf->has_stats = true;
		lf->rx_packets = s[0];
		lf->tx_packets = s[1];
		lf->rx_bytes = s[2];
		lf->tx_bytes = s[3];
		lf->rx_errors = s[4];
		lf->tx_errors = s[5];
		lf->rx_dropped = s[6];
		lf->tx_dropped = s[7];
	}
	if (tb[IFLA_LINKINFO] && nla_parse_nested(info, IFLA_INFO_MAX,
	    tb[IFLA_LINKINFO], info_pol) == 0) {
		if (info[IFLA_INFO_KIND]) {
			snprintf(lf->kind, sizeof(lf->kind), "%s",
			    nla_get_string(info[IFLA_INFO_KIND]));
			if (strcmp(lf->kind, "bond") == 0)
				parse_bond(info[IFLA_INFO_DATA], lf);
		}
		if (info[IFLA_INFO_SLAVE_KIND] && strcmp(nla_get_string(
		    info[IFLA_INFO_SLAVE_KIND]), "bond") == 0)
			parse_member(info[IFLA_INFO_SLAVE_DATA], lf);
	}
	return 0;
}

static struct nla_policy route_pol[RTA_MAX + 1] = {
	[RTA_OIF] = { .type = NLA_U32 },
	[RTA_PRIORITY] = { .type = NLA_U32 },
};

static const char *
default_ifname(int idx, char *buf, void *arg)
{
	(void)arg;
	if (if_indextoname((unsigned)idx, buf) == NULL)
		snprintf(buf, IF_NAMESIZE, "if%d", idx);
	return buf;
}

static int
addr_attr(struct nlattr *a, int family, struct netaddr *out)
{
	size_t alen = family == AF_INET ? 4 : 16;

	if (a == NULL || (size_t)nla_len(a) < alen)
		return -1;
	memset(out, 0, sizeof(*out));
	out->family = family;
	memcpy(&out->u, nla_data(a), alen);
	return 0;
}

int
netlink_parse_route(struct nlmsghdr *h, struct route_fact *rf,
    const char *(*ifname)(int idx, char *buf, void *arg), void *arg)
{
	struct nlattr *tb[RTA_MAX + 1];
	struct rtmsg *rm;
	char buf[IF_NAMESIZE];

	memset(rf, 0, sizeof(*rf));
	if (ifname == NULL)
		ifname = default_ifname;
	if (h->nlmsg_type != RTM_NEWROUTE || !nlmsg_valid_hdr(h, sizeof(*rm)) ||
	    nlmsg_parse(h, sizeof(*rm), tb, RTA_MAX, route_pol) < 0)
		return -1;
	rm = nlmsg_data(h);
	if (rm->rtm_family != AF_INET && rm->rtm_family != AF_INET6)
		return -1;
	rf->dst_len = rm->rtm_dst_len;
	rf->protocol = rm->rtm_protocol;
	if (addr_attr(tb[RTA_DST], rm->rtm_family, &rf->dst) == -1) {
		rf->dst.family = rm->rtm_family;	/* the default route */
	}
	if (tb[RTA_OIF])
		snprintf(rf->oif, sizeof(rf->oif), "%s",
		    ifname((int)nla_get_u32(tb[RTA_OIF]), buf, arg));
	addr_attr(tb[RTA_GATEWAY], rm->rtm_family, &rf->gw);
	addr_attr(tb[RTA_PREFSRC], rm->rtm_family, &rf->prefsrc);
	if (tb[RTA_MULTIPATH]) {
		struct rtnexthop *nh = nla_data(tb[RTA_MULTIPATH]);
		int left = nla_len(tb[RTA_MULTIPATH]);

		/* Each next hop: a header, then its own attributes. */
		while (left >= (int)sizeof(*nh) && nh->rtnh_len >= sizeof(*nh) &&
		    nh->rtnh_len <= left && rf->nnh < NETLINK_MAX_NH) {
			struct nlattr *a = (struct nlattr *)((char *)nh +
			    RTNH_ALIGN(sizeof(*nh)));
			int alen = nh->rtnh_len - (int)RTNH_ALIGN(sizeof(*nh));
			int k = rf->nnh++;

			snprintf(rf->nh[k].oif, sizeof(rf->nh[k].oif), "%s",
			    ifname(nh->rtnh_ifindex, buf, arg));
			rf->nh[k].weight = nh->rtnh_hops + 1;
			for (; nla_ok(a, alen); a = nla_next(a, &alen))
				if (nla_type(a) == RTA_GATEWAY)
					addr_attr(a, rm->rtm_family,
					    &rf->nh[k].gw);
			left -= RTNH_ALIGN(nh->rtnh_len);
			nh = (struct rtnexthop *)((char *)nh +
			    RTNH_ALIGN(nh->rtnh_len));
		}
	} else if (rf->oif[0]) {
		/* One path: the route's own next hop. */
		rf->nnh = 1;
		snprintf(rf->nh[0].oif, sizeof(rf->nh[0].oif), "%s", rf->oif);
		rf->nh[0].gw = rf->gw;
		rf->nh[0].weight = 1;
	}
	return 0;
}

/* --- collection --------------------------------------------------------- */

struct link_acc {
	struct link_fact *v;
	int n, cap;
};

static int
link_cb(struct nl_msg *msg, void *arg)
{
	struct link_acc *L = arg;
	struct link_fact lf;

	if (netlink_parse_link(nlmsg_hdr(msg), &lf) == -1)
		return NL_OK;
	if (L->n == L->cap) {
		struct link_fact *nv = realloc(L->v, sizeof(*nv) *
		    (size_t)(L->cap ? L->cap * 2 : 16));

		if (nv == NULL)
			return NL_STOP;
		L->v = nv;
		L->cap = L->cap ? L->cap * 2 : 16;
	}
	L->v[L->n++] = lf;
	return NL_OK;
}

static void
sysfs_read(const char *ifn, const char *what, char *out, size_t len)
{
	char path[128];
	ssize_t n;
	int fd;

	out[0] = '\0';
	snprintf(path, sizeof(path), "/sys/class/net/%s/%s", ifn, what);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return;
	n = read(fd, out, len - 1);
	close(fd);
	if (n <= 0) {
		out[0] = '\0';
		return;
	}
	out[n] = '\0';
	out[strcspn(out, "\n")] = '\0';
}

static void
link_extras(struct link_fact *lf)
{
	char b[64], path[128];
	ssize_t n;

	/* Speed reads -1 or EINVAL where the driver does not know. */
	sysfs_read(lf->name, "speed", b, sizeof(b));
	if (b[0] && atoi(b) > 0)
		lf->speed_mbps = atoi(b);
	sysfs_read(lf->name, "duplex", lf->duplex, sizeof(lf->duplex));
	snprintf(path, sizeof(path), "/sys/class/net/%s/device/driver",
	    lf->name);
	n = readlink(path, b, sizeof(b) - 1);
	if (n > 0) {
		b[n] = '\0';
		snprintf(lf->driver, sizeof(lf->driver), "%s",
		    strrchr(b, '/') ? strrchr(b, '/') + 1 : b);
	} else {
		snprintf(lf->driver, sizeof(lf->driver), "%s", lf->kind);
	}
}

static struct nl_sock *
nl_open(char *err)
{
	struct nl_sock *sk = nl_socket_alloc();

	if (sk == NULL || nl_connect(sk, NETLINK_ROUTE) < 0) {
		snprintf(err, CF_ERRLEN, "netlink: cannot open a socket");
		nl_socket_free(sk);
		return NULL;
	}
	return sk;
}

static int links_dump(struct link_fact **out, int *n, bool extras,
    char *err);

int
netlink_links(struct link_fact **out, int *n, char *err)
{
	return links_dump(out, n, true, err);
}

int
netlink_counters(struct link_fact **out, int *n, char *err)
{
	return links_dump(out, n, false, err);
}

int
netlink_link_of_addr(const struct link_fact *l, int n, const struct netaddr *addr)
{
	struct ifaddrs *ifa, *i;
	struct netaddr x;
	int k, found = -1;

	if (getifaddrs(&ifa) == -1)
		return -1;
	for (i = ifa; i && found < 0; i = i->ifa_next) {
		if (i->ifa_addr == NULL || netaddr_from_sockaddr(i->ifa_addr,
		    &x, NULL) == -1 || !netaddr_equal(&x, addr))
			continue;
		for (k = 0; k < n; k++)
			if (strcmp(l[k].name, i->ifa_name) == 0)
				found = k;
	}
	freeifaddrs(ifa);
	return found;
}

static int
links_dump(struct link_fact **out, int *n, bool extras, char *err)
{
	struct ifinfomsg ifi = { .ifi_family = AF_UNSPEC };
	struct link_acc L = { NULL, 0, 0 };
	struct nl_sock *sk = nl_open(err);
	int i, rc;

	*out = NULL;
	*n = 0;
	if (sk == NULL)
		return -1;
	nl_socket_modify_cb(sk, NL_CB_VALID, NL_CB_CUSTOM, link_cb, &L);
	rc = nl_send_simple(sk, RTM_GETLINK, NLM_F_DUMP, &ifi, sizeof(ifi));
	if (rc >= 0)
		rc = nl_recvmsgs_default(sk);
	nl_socket_free(sk);
	if (rc < 0) {
		snprintf(err, CF_ERRLEN, "RTM_GETLINK: %s", nl_geterror(rc));
		free(L.v);
		return -1;
	}
	for (i = 0; extras && i < L.n; i++)
		link_extras(&L.v[i]);
	*out = L.v;
	*n = L.n;
	return 0;
}

struct route_acc {
	struct route_fact *rf;
	int got;
};

static int
route_cb(struct nl_msg *msg, void *arg)
{
	struct route_acc *R = arg;

	if (!R->got && netlink_parse_route(nlmsg_hdr(msg), R->rf, NULL, NULL) ==
	    0)
		R->got = 1;
	return NL_OK;
}

int
netlink_route(const struct netaddr *dst, struct route_fact *rf, char *err)
{
	struct rtmsg rm = { .rtm_family = (unsigned char)dst->family };
	size_t alen = dst->family == AF_INET ? 4 : 16;
	struct route_acc R = { rf, 0 };
	struct nl_sock *sk;
	struct nl_msg *m;
	int rc;

	memset(rf, 0, sizeof(*rf));
	if ((sk = nl_open(err)) == NULL)
		return -1;
	rm.rtm_dst_len = (unsigned char)(alen * 8);
	/* The FIB entry itself, with all its next hops (Linux 4.13+). */
	rm.rtm_flags = RTM_F_FIB_MATCH;
	m = nlmsg_alloc_simple(RTM_GETROUTE, NLM_F_REQUEST);
	if (m == NULL || nlmsg_append(m, &rm, sizeof(rm), NLMSG_ALIGNTO) < 0 ||
	    nla_put(m, RTA_DST, (int)alen, &dst->u) < 0) {
		snprintf(err, CF_ERRLEN, "RTM_GETROUTE: out of memory");
		nlmsg_free(m);
		nl_socket_free(sk);
		return -1;
	}
	nl_socket_modify_cb(sk, NL_CB_VALID, NL_CB_CUSTOM, route_cb, &R);
	rc = nl_send_auto(sk, m);
	nlmsg_free(m);
	if (rc >= 0)
		rc = nl_recvmsgs_default(sk);
	nl_socket_free(sk);
	if (rc < 0 || !R.got) {
		snprintf(err, CF_ERRLEN, "RTM_GETROUTE: %s", rc < 0 ?
		    nl_geterror(rc) : "no route");
		return -1;
	}
	return 0;
}

/* --- JSON ---------------------------------------------------------------- */

const char *
netlink_bond_mode_name(int mode)
{
	static const char *const m[] = { "balance-rr", "active-backup",
	    "balance-xor", "broadcast", "802.3ad", "balance-tlb",
	    "balance-alb" };

	return mode >= 0 && mode < 7 ? m[mode] : "unknown";
}

const char *
netlink_hash_policy_name(int p)
{
	static const char *const m[] = { "layer2", "layer3+4", "layer2+3",
	    "encap2+3", "encap3+4", "vlan+srcmac" };

	return p >= 0 && p < 6 ? m[p] : "unknown";
}

static const char *
name_of(const struct link_fact *all, int n, int idx)
{
	int i;

	for (i = 0; i < n; i++)
		if (all[i].index == idx)
			return all[i].name;
	return "";
}

static void
mac_str(const uint8_t *m, char *out)
{
	snprintf(out, 18, "%02x:%02x:%02x:%02x:%02x:%02x", m[0], m[1], m[2],
	    m[3], m[4], m[5]);
}

cJSON *
netlink_link_json(const struct link_fact *lf, const struct link_fact *all, int n)
{
	cJSON *o = cJSON_CreateObject(), *c;
	static const char *const mii[] = { "up", "fail", "down", "back" };
	char mac[18];
	int i;

	cJSON_AddStringToObject(o, "name", lf->name);
	cJSON_AddStringToObject(o, "kind", lf->kind);
	cJSON_AddStringToObject(o, "state", lf->state);
	cJSON_AddBoolToObject(o, "carrier", lf->carrier_up);
	cJSON_AddNumberToObject(o, "mtu", lf->mtu);
	if (lf->speed_mbps > 0)
		cJSON_AddNumberToObject(o, "speed_mbps", lf->speed_mbps);
	if (lf->duplex[0])
		cJSON_AddStringToObject(o, "duplex", lf->duplex);
	if (lf->driver[0])
		cJSON_AddStringToObject(o, "driver", lf->driver);
	if (lf->master)
		cJSON_AddStringToObject(o, "master", name_of(all, n,
		    lf->master));
	if (lf->has_stats) {
		c = cJSON_AddObjectToObject(o, "counters");
		cJSON_AddNumberToObject(c, "rx_bytes", (double)lf->rx_bytes);
		cJSON_AddNumberToObject(c, "tx_bytes", (double)lf->tx_bytes);
		cJSON_AddNumberToObject(c, "rx_packets",
		    (double)lf->rx_packets);
		cJSON_AddNumberToObject(c, "tx_packets",
		    (double)lf->tx_packets);
		cJSON_AddNumberToObject(c, "rx_errors", (double)lf->rx_errors);
		cJSON_AddNumberToObject(c, "tx_errors", (double)lf->tx_errors);
		cJSON_AddNumberToObject(c, "rx_dropped",
		    (double)lf->rx_dropped);
		cJSON_AddNumberToObject(c, "tx_dropped",
		    (double)lf->tx_dropped);
	}
	if (lf->is_bond) {
		cJSON *b = cJSON_AddObjectToObject(o, "bond"), *mem;

		cJSON_AddStringToObject(b, "mode", netlink_bond_mode_name(
		    lf->bond_mode));
		cJSON_AddNumberToObject(b, "miimon", lf->miimon);
		cJSON_AddStringToObject(b, "xmit_hash_policy",
		    netlink_hash_policy_name(lf->hash_policy));
		if (lf->has_ad) {
			c = cJSON_AddObjectToObject(b, "ad");
			cJSON_AddNumberToObject(c, "aggregator",
			    lf->ad_aggregator);
			cJSON_AddNumberToObject(c, "ports", lf->ad_ports);
			cJSON_AddNumberToObject(c, "actor_key",
			    lf->ad_actor_key);
			cJSON_AddNumberToObject(c, "partner_key",
			    lf->ad_partner_key);
			mac_str(lf->ad_partner_mac, mac);
			cJSON_AddStringToObject(c, "partner_mac", mac);
		}
		mem = cJSON_AddArrayToObject(b, "members");
		for (i = 0; i < n; i++) {
			const struct link_fact *m = &all[i];
			cJSON *x;

			if (m->master != lf->index || !m->is_member)
				continue;
			x = cJSON_CreateObject();
			cJSON_AddStringToObject(x, "name", m->name);
			cJSON_AddStringToObject(x, "state", m->member_state ==
			    0 ? "active" : m->member_state == 1 ? "backup" :
			    "unknown");
			cJSON_AddStringToObject(x, "mii", m->mii_status >= 0 &&
			    m->mii_status < 4 ? mii[m->mii_status] :
			    "unknown");
			if (m->speed_mbps > 0)
				cJSON_AddNumberToObject(x, "speed_mbps",
				    m->speed_mbps);
			cJSON_AddNumberToObject(x, "link_failures",
			    m->link_failures);
			if (m->has_member_ad) {
				cJSON_AddNumberToObject(x, "aggregator",
				    m->member_aggregator);
				cJSON_AddNumberToObject(x, "actor_state",
				    m->actor_oper_state);
				cJSON_AddNumberToObject(x, "partner_state",
				    m->partner_oper_state);
			}
			cJSON_AddItemToArray(mem, x);
		}
	}
	return o;
}

cJSON *
netlink_route_json(const struct route_fact *rf)
{
	cJSON *o = cJSON_CreateObject(), *arr;
	char b[NETADDR_STRLEN], p[NETADDR_STRLEN + 8];
	static const struct { int id; const char *name; } protos[] = {
		{ 2, "kernel" }, { 3, "boot" }, { 4, "static" },
		{ 186, "bgp" }, { 188, "ospf" }, { 11, "zebra" },
	};
	const char *proto = "other";
	int i;

	for (i = 0; i < (int)(sizeof(protos) / sizeof(protos[0])); i++)
		if (protos[i].id == rf->protocol)
			proto = protos[i].name;
	snprintf(p, sizeof(p), "%s/%d", netaddr_str(&rf->dst, b, sizeof(b)),
	    rf->dst_len);
	cJSON_AddStringToObject(o, "prefix", p);
	cJSON_AddStringToObject(o, "protocol", proto);
	if (rf->prefsrc.family)
		cJSON_AddStringToObject(o, "source", netaddr_str(&rf->prefsrc,
		    b, sizeof(b)));
	arr = cJSON_AddArrayToObject(o, "nexthops");
	for (i = 0; i < rf->nnh; i++) {
		cJSON *x = cJSON_CreateObject();

		cJSON_AddStringToObject(x, "dev", rf->nh[i].oif);
		if (rf->nh[i].gw.family)
			cJSON_AddStringToObject(x, "gateway", netaddr_str(
			    &rf->nh[i].gw, b, sizeof(b)));
		cJSON_AddNumberToObject(x, "weight", rf->nh[i].weight);
		cJSON_AddItemToArray(arr, x);
	}
	return o;
}
