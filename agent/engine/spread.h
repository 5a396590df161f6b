/*
 * spread: proof that a test's traffic spread over every path. At a test's
 * start the agent notes the links that can carry it (the next hops of the
 * FIB entry for the peer, a bond's members, the link holding the local
 * address) and their byte counters; at its end, the deltas, so that the
 * coordinator can show each member's or path's share and the ones that
 * carried nothing.
 */
#ifndef CF_SPREAD_H
#define CF_SPREAD_H

#include <net/if.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "netaddr.h"

#define SPREAD_MAX 16

struct spread {
	int n;
	struct {
		char name[IF_NAMESIZE];
		const char *role;	/* "nexthop", "member", "local" */
		uint64_t tx0, rx0;
	} l[SPREAD_MAX];
	char error[128];
};

/* spread_start picks the links for traffic from local to peer and notes
 * their counters. Local rtnetlink dumps only (no network, no child):
 * a fraction of a millisecond. */
void spread_start(struct spread *sp, const struct netaddr *local,
    const struct netaddr *peer);
/* spread_end: {"links": [{"name", "role", "tx_bytes", "rx_bytes"}]} with
 * the deltas since spread_start (caller frees), or NULL if none. */
cJSON *spread_end(const struct spread *sp);

#endif
