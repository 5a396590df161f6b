/*
 * pinglist: what a monitoring agent probes, as 'cephfab monitor start'
 * sends it and as the agent keeps it in its state_dir: the agent's own name,
 * rack and address per network, its peers (name, rack, address per
 * network), the rate and the shared token of the probes.
 *
 * Which peers are probed at a time (pinglist_active) is Pingmesh's scheme
 * when the list is long: every peer of the own rack, and K of every other
 * rack, a different K for each host of the rack and rotated every
 * 'rotate' seconds, so that probes per agent grow with racks, not hosts,
 * and every pair is covered within ceil(rack size / K) rotations.
 *
 * Pure logic: no sockets, no loop (unit-tested and fuzzed as such).
 */
#ifndef CF_PINGLIST_H
#define CF_PINGLIST_H

#include <stdbool.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "netaddr.h"

#define PL_NAME_MAX 64
#define PL_PEERS_MAX 4096
#define PL_NETS 2		/* public, cluster */
#define PL_TOKEN_LEN 16
#define PL_RATE_MAX 100		/* probes per second per peer */

extern const char *const pl_net_names[PL_NETS];

struct pl_peer {
	char name[PL_NAME_MAX];
	char rack[PL_NAME_MAX];
	struct netaddr addr[PL_NETS];	/* family 0: not on that network */
	int rack_id;			/* index into the racks, from 0 */
	int rack_pos, rack_size;	/* its place in its rack, by name */
};

struct pinglist {
	char self[PL_NAME_MAX];
	char rack[PL_NAME_MAX];
	struct netaddr addr[PL_NETS];	/* own; family 0: not probed */
	uint16_t port;			/* UDP, every agent's */
	double rate;			/* probes per second per peer */
	double mtu_every;		/* seconds between MTU probes, 0: never */
	uint32_t timeout_ms;		/* a probe unanswered by then is lost */
	uint8_t token[PL_TOKEN_LEN];
	bool rack_mode;			/* false: every peer */
	uint32_t k;			/* rack mode: peers per other rack */
	double rotate;			/* rack mode: seconds per rotation */
	struct pl_peer *peers;
	int npeers;
	int self_rack_id, self_index;	/* own rack, own place in it */
	int nracks;
};

/* pinglist_parse reads a pinglist (the body's "pinglist" object) into pl;
 * -1 with err naming the field. pl->peers is allocated: pinglist_free. */
int pinglist_parse(const cJSON *j, struct pinglist *pl, char *err);
void pinglist_free(struct pinglist *pl);
/* pinglist_active marks in active[] (npeers entries) the peers probed in
 * the rotation that covers wall-clock second now; returns how many. */
int pinglist_active(const struct pinglist *pl, double now, bool *active);

#endif
