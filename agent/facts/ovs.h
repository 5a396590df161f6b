/*
 * ovs: Open vSwitch bonds beside Linux bonds. Where ovs-vswitchd runs
 * (ovs_rundir in agent.conf holds its pid file and control socket), the
 * agent asks it, through ovs-appctl in a child with a deadline and a fixed
 * argv, for 'bond/show' (mode, LACP status, members enabled or not),
 * 'lacp/show' (each member's LACP state) and 'dpif/show' (which bridge
 * every port is on). The three are text: the parsers here read them line
 * by line, bounded, and are tested on outputs captured from OVS 3.1
 * (tests/unit/data/ovs-*.txt). Older releases say "slave" where 3.x says
 * "member"; both are read.
 *
 * The facts carry each OVS bond as a link of kind "ovs-bond" with the same
 * "bond" object as a Linux bond's, so the coordinator's bond findings read
 * both. The spread (engine/spread.c) asks ovs_map_members which bond
 * members carry an OVS internal port's traffic: that map is kept here,
 * refreshed by every facts request and once at the agent's start, never
 * by a call in the event loop.
 */
#ifndef CF_OVS_H
#define CF_OVS_H

#include <net/if.h>
#include <stdbool.h>

#include <cjson/cJSON.h>

#include "config.h"
#include "facts/netlink.h"

#define OVS_MAX_BONDS 16
#define OVS_MAX_MEMBERS 8
#define OVS_MAX_PORTS 128
#define OVS_NAMELEN 32			/* OVS port names may pass IFNAMSIZ */

struct ovs_member {
	char name[OVS_NAMELEN];
	bool enabled;			/* carries traffic */
	bool may_enable;		/* carrier and LACP allow it */
	char lacp[48];			/* "current attached", "" unknown */
};

struct ovs_bond {
	char name[OVS_NAMELEN];
	char mode[24];			/* balance-tcp, balance-slb, active-backup */
	char lacp[16];			/* negotiated, configured, off */
	int nmem;
	struct ovs_member mem[OVS_MAX_MEMBERS];
};

struct ovs_port {
	char name[OVS_NAMELEN];
	char bridge[OVS_NAMELEN];
	char type[16];			/* tap, system, internal, ... */
};

struct ovs_state {
	int nbonds, nports;
	struct ovs_bond bonds[OVS_MAX_BONDS];
	struct ovs_port ports[OVS_MAX_PORTS];
};

/* The parsers add to st (zeroed by the caller before the first); -1 with
 * err on a line they cannot read. Bonds, members and ports past the
 * limits above are dropped, as are names too long to keep. */
int ovs_parse_bond_show(const char *text, struct ovs_state *st, char *err);
int ovs_parse_lacp_show(const char *text, struct ovs_state *st, char *err);
int ovs_parse_dpif_show(const char *text, struct ovs_state *st, char *err);

/* ovs_bridge_of: the bridge port name is on, or NULL. */
const char *ovs_bridge_of(const struct ovs_state *st, const char *name);

/* ovs_collect runs the three ovs-appctl commands (blocking: call it from a
 * worker thread). 1 with st filled, 0 when this host runs no OVS (no pid
 * file), -1 with err. */
int ovs_collect(const struct agent_config *cfg, struct ovs_state *st,
    char *err);

/* ovs_facts adds every OVS bond to links as {"name", "kind": "ovs-bond",
 * "state", "bridge", "bond": {"source": "ovs", "mode", "xmit_hash_policy",
 * "lacp", "members": [{"name", "state", "mii", "lacp", "speed_mbps"}]}},
 * and to each kernel link that is an OVS port its "ovs_bridge" and, for
 * a bridge's internal port, the bond carrying it ("ovs_uplink"). */
void ovs_facts(const struct ovs_state *st, const struct link_fact *l, int n,
    cJSON *links);

/* The map the spread reads: ovs_map_store keeps a copy of st;
 * ovs_map_members fills out with the members of the bonds on the bridge
 * of ifname (an internal port), and returns how many (0: not OVS). */
void ovs_map_store(const struct ovs_state *st);
int ovs_map_members(const char *ifname, char out[][IF_NAMESIZE], int max);
/* ovs_map_refresh_async: ovs_collect and ovs_map_store in a detached
 * thread (the agent's start). */
void ovs_map_refresh_async(const struct agent_config *cfg);

#endif
