/*
 * route: which way the kernel would send to a peer, asked over netlink
 * (RTM_GETROUTE, as 'ip route get DST from SRC' does): egress interface,
 * source address and gateway. The answer decides 'wrong_egress'.
 */
#ifndef CF_ROUTE_H
#define CF_ROUTE_H

#include <net/if.h>
#include <stdbool.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "netaddr.h"

struct route_info {
	char oif[IF_NAMESIZE];		/* egress interface */
	struct netaddr src;		/* preferred source (family 0: none) */
	struct netaddr gw;		/* gateway (family 0: on-link) */
	char local_if[IF_NAMESIZE];	/* the interface holding 'from' */
	/* 'to' lies in a subnet of an address of the egress interface: a
	 * directly attached network, the port the kernel rightly takes
	 * whatever the source address. */
	bool dst_attached;
};

/* route_get fills r for traffic from 'from' (may be unset) to 'to'.
 * Returns 0, or -1 with err set. Blocking but bounded: one netlink round
 * trip with a 1 s receive timeout; call it from a probe thread. */
int route_get(const struct netaddr *from, const struct netaddr *to,
    struct route_info *r, char *err);
/* route_get_flow is route_get for one flow: protocol and ports too, so
 * that an ECMP route answers with the member the flow hashes to. */
struct route_flow {
	uint8_t proto;			/* IPPROTO_TCP, ... */
	uint16_t sport, dport;		/* host order */
	int oif;			/* through this interface (0: any) */
};
int route_get_flow(const struct netaddr *from, const struct netaddr *to,
    const struct route_flow *fl, struct route_info *r, char *err);
/* route_json: {"egress_if", "source", "gateway", "local_if"} */
cJSON *route_json(const struct route_info *r);

#endif
