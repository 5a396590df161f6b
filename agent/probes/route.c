/* route: RTM_GETROUTE over a raw netlink socket, see route.h. */
#include "probes/route.h"
#include "json.h"

#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <sys/socket.h>

static void
route_local_if(const struct netaddr *a, char *out)
{
	struct ifaddrs *ifa, *i;
	struct netaddr x;

	out[0] = '\0';
	if (a->family == 0 || getifaddrs(&ifa) == -1)
		return;
	for (i = ifa; i; i = i->ifa_next) {
		if (i->ifa_addr && netaddr_from_sockaddr(i->ifa_addr, &x,
		    NULL) == 0 && netaddr_equal(&x, a)) {
			snprintf(out, IF_NAMESIZE, "%s", i->ifa_name);
			break;
		}
	}
	freeifaddrs(ifa);
}

/* attached: whether to lies in the subnet of one of ifname's addresses. */
static bool
attached(const char *ifname, const struct netaddr *to)
{
	struct ifaddrs *ifa, *i;
	struct netaddr x, m;
	bool on = false;
	size_t k, alen = to->family == AF_INET ? 4 : 16;

	if (ifname[0] == '\0' || getifaddrs(&ifa) == -1)
		return false;
	for (i = ifa; i && !on; i = i->ifa_next) {
		const uint8_t *a, *b, *mk;

		if (i->ifa_addr == NULL || i->ifa_netmask == NULL ||
		    strcmp(i->ifa_name, ifname) != 0 ||
		    netaddr_from_sockaddr(i->ifa_addr, &x, NULL) != 0 ||
		    x.family != to->family ||
		    netaddr_from_sockaddr(i->ifa_netmask, &m, NULL) != 0)
			continue;
		a = (const uint8_t *)&x.u;
		b = (const uint8_t *)&to->u;
		mk = (const uint8_t *)&m.u;
		for (k = 0; k < alen && (a[k] & mk[k]) == (b[k] & mk[k]); k++)
			;
		on = k == alen;
	}
	freeifaddrs(ifa);
	return on;
}

static void
route_addattr(struct nlmsghdr *n, size_t max, int type, const void *data,
    size_t len)
{
	struct rtattr *rta = (struct rtattr *)((char *)n +
	    NLMSG_ALIGN(n->nlmsg_len));

	if (NLMSG_ALIGN(n->nlmsg_len) + RTA_LENGTH(len) > max)
		return;
	rta->rta_type = (unsigned short)type;
	rta->rta_len = (unsigned short)RTA_LENGTH(len);
	memcpy(RTA_DATA(rta), data, len);
	n->nlmsg_len = (uint32_t)(NLMSG_ALIGN(n->nlmsg_len) + RTA_LENGTH(len));
}

int
route_get(const struct netaddr *from, const struct netaddr *to,
    struct route_info *r, char *err)
{
	return route_get_flow(from, to, NULL, r, err);
}

int
route_get_flow(const struct netaddr *from, const struct netaddr *to,
    const struct route_flow *fl, struct route_info *r, char *err)
{
	struct {
		struct nlmsghdr n;
		struct rtmsg m;
		char buf[256];
	} req;
	char resp[8192];
	struct timeval tv = { 1, 0 };
	size_t alen = to->family == AF_INET ? 4 : 16;
	struct nlmsghdr *h;
	ssize_t n;
	int fd;

	memset(r, 0, sizeof(*r));
	route_local_if(from, r->local_if);
	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (fd == -1) {
		snprintf(err, CF_ERRLEN, "netlink: %s", strerror(errno));
		return -1;
	}
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	memset(&req, 0, sizeof(req));
	req.n.nlmsg_len = NLMSG_LENGTH(sizeof(struct rtmsg));
	req.n.nlmsg_type = RTM_GETROUTE;
	req.n.nlmsg_flags = NLM_F_REQUEST;
	req.n.nlmsg_seq = 1;
	req.m.rtm_family = (unsigned char)to->family;
	req.m.rtm_dst_len = (unsigned char)(alen * 8);
	route_addattr(&req.n, sizeof(req), RTA_DST, &to->u, alen);
	if (from->family == to->family) {
		req.m.rtm_src_len = (unsigned char)(alen * 8);
		route_addattr(&req.n, sizeof(req), RTA_SRC, &from->u, alen);
	}
	if (fl != NULL) {
		/* The ports make the kernel hash the flow as it hashes its
		 * packets, when the multipath hash covers layer 4. */
		uint16_t sp = htons(fl->sport), dp = htons(fl->dport);

		route_addattr(&req.n, sizeof(req), RTA_IP_PROTO, &fl->proto,
		    1);
		route_addattr(&req.n, sizeof(req), RTA_SPORT, &sp, 2);
		route_addattr(&req.n, sizeof(req), RTA_DPORT, &dp, 2);
		if (fl->oif > 0)
			route_addattr(&req.n, sizeof(req), RTA_OIF, &fl->oif,
			    sizeof(fl->oif));
	}
	if (send(fd, &req, req.n.nlmsg_len, 0) == -1 ||
	    (n = recv(fd, resp, sizeof(resp), 0)) <= 0) {
		snprintf(err, CF_ERRLEN, "RTM_GETROUTE: %s", strerror(errno));
		close(fd);
		return -1;
	}
	close(fd);
	for (h = (struct nlmsghdr *)resp; NLMSG_OK(h, (size_t)n);
	    h = NLMSG_NEXT(h, n)) {
		struct rtmsg *m;
		struct rtattr *a;
		int len;

		if (h->nlmsg_type == NLMSG_ERROR) {
			struct nlmsgerr *e = NLMSG_DATA(h);

			snprintf(err, CF_ERRLEN, "no route: %s",
			    strerror(-e->error));
			return -1;
		}
		if (h->nlmsg_type != RTM_NEWROUTE)
			continue;
		m = NLMSG_DATA(h);
		len = (int)RTM_PAYLOAD(h);
		for (a = RTM_RTA(m); RTA_OK(a, len); a = RTA_NEXT(a, len)) {
			switch (a->rta_type) {
			case RTA_OIF:
				if_indextoname(*(int *)RTA_DATA(a), r->oif);
				break;
			case RTA_SRC:
				if (r->src.family == 0) {
					r->src.family = to->family;
					memcpy(&r->src.u, RTA_DATA(a), alen);
				}
				break;
			case RTA_PREFSRC:
				r->src.family = to->family;
				memcpy(&r->src.u, RTA_DATA(a), alen);
				break;
			case RTA_GATEWAY:
				r->gw.family = to->family;
				memcpy(&r->gw.u, RTA_DATA(a), alen);
				break;
			}
		}
		r->dst_attached = r->gw.family == 0 && attached(r->oif, to);
		return 0;
	}
	snprintf(err, CF_ERRLEN, "RTM_GETROUTE: no answer");
	return -1;
}

cJSON *
route_json(const struct route_info *r)
{
	cJSON *o = cJSON_CreateObject();
	char b[NETADDR_STRLEN];

	cJSON_AddStringToObject(o, "egress_if", r->oif);
	if (r->src.family)
		cJSON_AddStringToObject(o, "source", netaddr_str(&r->src, b,
		    sizeof(b)));
	if (r->gw.family)
		cJSON_AddStringToObject(o, "gateway", netaddr_str(&r->gw, b,
		    sizeof(b)));
	cJSON_AddStringToObject(o, "local_if", r->local_if);
	cJSON_AddBoolToObject(o, "dst_attached", r->dst_attached);
	return o;
}
