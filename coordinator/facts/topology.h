/*
 * facts: what the agents say about themselves (hosts, hosts --facts) and the findings drawn from it.
 * The one header other folders include (docs/architecture.md).
 */
#ifndef CF_FACTS_TOPOLOGY_H
#define CF_FACTS_TOPOLOGY_H

#include <stdbool.h>
#include <stdint.h>
#include <cjson/cJSON.h>

#include "auth.h"
#include "core/core.h"
#include "verdict/verdict.h"

/*
 * hosts: 'cephfab hosts': connect to every agent of the inventory at once,
 * authenticate, ask for STATUS and report one row per host.
 */
struct hosts_opts {
	int json;
	double timeout;		/* per agent: connect + handshake + reply */
	bool facts;		/* also FACTS: links, bonds, routes, FRR */
	/* The matrix: each host's facts stored as a cell of run in db
	 * (network "host", test "facts") as it arrives. */
	const char *db;
	int64_t run;
};

/* hosts_run returns EXIT_PASS when every host is ok, EXIT_PROBLEMS when
 * any is not, EXIT_RUNTIME when the check itself could not run. */
int hosts_run(struct inventory *inv, const struct auth_key *key,
    const struct hosts_opts *o);

/*
 * topo: what the hosts' facts (agent/facts.c) say about the paths, across
 * the whole inventory: the interface holding each host's address on each
 * network, its MTU and speed; every peer route's next hops; bonds and
 * their members; FRR's neighbours. Findings: ecmp_single_path,
 * bond_degraded, bond_hash_policy, mtu_inconsistent, speed_inconsistent,
 * rp_filter_strict. Pure functions on JSON: tests feed captured facts.
 */
/* FRR's state as counts. */
struct frr_sum {
	bool available;
	int ospf_total, ospf_full;
	int bgp_total, bgp_established;
	int bfd_total, bfd_up;
};

/* topology_frr parses the "frr" object of the facts (FRR's own JSON for
 * 'show ip ospf neighbor', 'show bgp summary', 'show bfd peers'); -1 with
 * err naming the field when a shape is not FRR's. */
int topology_frr(const cJSON *frr, struct frr_sum *s, char *err);

/* topology_bonds appends one host's bond findings to out; the errors
 * (topology_bonds.c). */
int topology_bonds(const char *host, const cJSON *facts, cJSON *out);
/* topology_findings appends the findings of hosts (an array of {"name",
 * "facts"}, as 'hosts --facts --json' prints) to out; prof may be NULL.
 * Returns how many are errors. */
int topology_findings(const struct inventory *inv, const cJSON *hosts,
    const struct profile *prof, cJSON *out);

/* topology_summary: per host, each network as data ({"link",
 * "speed_mbps", "mtu", "bond"?: {"kind", "name"?, "mode", "members",
 * "hash"?, "lacp"?}, "paths_min"?, "paths_max"?, "text"}) and FRR's
 * session counts ({"ospf_full", ..., "text"}), "text" the line reports
 * print ("bond0 802.3ad 2x25G, 2 paths, OSPF 2/2 Full"). Caller frees. */
cJSON *topology_summary(const struct inventory *inv, const cJSON *hosts);
/* topology_text: the line of a summary's member ("public", "cluster",
 * "frr"), "" when it has none. */
const char *topology_text(const cJSON *t, const char *key);

/* topology_spread: from an agent's TEST_END "spread" ({"links": [{"name",
 * "role", "tx_bytes", "rx_bytes"}]}), each path link's share of the bytes
 * sent (tx) or received: {"links": [{"name", "role", "bytes", "share"}],
 * "paths": N, "unused": [names]}. A bond's members or a route's next hops
 * count; the address's own link only when there are neither. A link is
 * unused below 1 % of the bytes when more than 1 MB moved. NULL (err set)
 * for a shape the agent never sends. Caller frees. */
cJSON *topology_spread(const cJSON *sp, bool tx, char *err);

/* topology_cell_cb: a store_each callback appending a stored facts cell to
 * the array arg as {"name", "facts"}. */
void topology_cell_cb(const cJSON *cell, void *arg);

/* topology_print: the table 'hosts --facts' shows, then the findings. */
void topology_print(const struct inventory *inv, const cJSON *hosts,
    const cJSON *findings);

#endif
