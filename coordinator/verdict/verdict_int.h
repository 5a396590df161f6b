/*
 * verdict_int: what the verdict's files share: the state of one
 * network's classification (struct fctx) and the helpers every check
 * uses. Not for other rooms: verdict.h is the door.
 */
#ifndef CF_VERDICT_INT_H
#define CF_VERDICT_INT_H

#include <stdbool.h>

#include "verdict/verdict.h"

/* A cell of an n x n array of the view: i sends to j. */
#define AT(a, i, j) ((a)[(i) * v->n + (j)])

/* routers.c: the traced addresses grouped by router (routers.c says
 * from what), so that a link is named by the routers around it. */
struct raddr {
	const char *addr;
	int parent;		/* union-find: the group's root is its own */
	bool gw;		/* some host's gateway */
	bool mid;		/* a hop a whole trace went on from */
	bool multi;		/* it answered after several routers */
	int rack;		/* a group's root: the group of the one
				   gateway of every source whose whole trace
				   crossed it past the first hop, -1 when
				   several (a router every rack sees alike) */
};
struct routers {
	struct raddr *a;
	int n, cap;
	int *longest;		/* per direction: its longest trace */
};
/* What the checks share: the view, the profile, the findings so far and
 * the cells already explained. */
struct fctx {
	const struct mview *v;
	const struct profile *p;
	cJSON *out;
	int n, errors;
	double thr;		/* the profile's floor, Gbit/s */
	double med;		/* the fabric's median RTT p99 */
	int nmed;
	bool rtt_wide;		/* high latency reported fabric-wide */
	int *slow, *done, *slow_host;
	int *expl;		/* directions a root cause explained: the
				   per-direction checks skip them */
	double *tmp;		/* n * n + 1 scratch values */
	unsigned char *busy;	/* hosts whose own probe thread ran late:
				   their RTTs are theirs, not the path's */
	unsigned char *mtu_expl;	/* directions an mtu_link explains */
	unsigned char *lat_host;	/* hosts whose port explains their
					   pairs' high RTT (rootcause_latency) */
	struct routers r;	/* the traces' routers (links, links_mtu) */
};

/* findings_add appends a finding about hosts a and b (-1: none; a pair is
 * listed in name order) with its location (a pair, a host, the fabric);
 * the caller adds evidence. */
cJSON *findings_add(cJSON *out, const char *kind, const char *sev,
    const struct mview *v, int a, int b, const char *hint,
    const char *fmt, ...) __attribute__((format(printf, 8, 9)));
/* findings_pair_p99: the worse direction's RTT p99 of a pair, 0 if
 * unmeasured. */
double findings_pair_p99(const struct mview *v, int i, int j);
/* finding_evidence_pair adds "SRC->DST" to a finding's evidence.pairs. */
void findings_evidence_pair(cJSON *f, const struct mview *v, int i, int j);

/* rootcause.c: faults wider than a pair, each found once: a host that no
 * peer reaches, a host's port that passes no full-size frame, a host's own
 * filter, a host every pair with which loses packets, and a fabric whose
 * every pair runs at one rate below the floor. Each marks the cells it
 * explains as done. */
void rootcause_unreachable(struct fctx *c);
/* unmeasured.c: the tests the tool did not measure, one warning per cause
 * and place (an agent's limit, a coordinator holding agents, an agent
 * down, an interrupted run). */
void check_unmeasured(struct fctx *c);
void rootcause_mtu(struct fctx *c);
void rootcause_ports(struct fctx *c);
void rootcause_lossy(struct fctx *c);
void rootcause_rate(struct fctx *c);
void rootcause_latency(struct fctx *c);

/* links.c: the fabric links that explain the bad flows, from their
 * traced paths (localize.c scores them): lossy_link, one per link, with
 * the pairs it explains. */
void rootcause_links(struct fctx *c);

/* links_mtu.c: the fabric link where the MTU probes' large datagrams
 * died (mtu_link), from their traces; the directions of the flows
 * through it are explained (they stalled there: no vote in
 * rootcause_links). Runs before it and before rootcause_mtu. */
void rootcause_mtu_links(struct fctx *c);

/* routers.c (the groups above): */
/* routers_build groups the addresses of v's traces (-1: no memory). */
int routers_build(struct routers *r, const struct mview *v);
void routers_free(struct routers *r);
/* routers_mate: the other end of the point-to-point link address a is on:
 * its /31 (or /127) mate (wide30 0), or its /30 mate (wide30 1); -1 when
 * it has none. out holds 48 bytes. */
int routers_mate(const char *a, int wide30, char *out);
/* routers_find: address a's index, -1 when no trace saw it as a router. */
int routers_find(const struct routers *r, const char *a);
/* routers_group: the group (its root's index) of address index i, -1 for
 * -1. */
int routers_group(const struct routers *r, int i);
/* routers_name: how a finding names group g: an address of it that names
 * no link (a loopback), else its gateway, else its smallest address. */
const char *routers_name(const struct routers *r, const struct mview *v,
    int g);
/* routers_link_ends: the two ends of the link from group ga to group gb
 * as a finding prints them: the link's own two addresses when the traces
 * saw both, else each router's name. */
void routers_link_ends(const struct routers *r, const struct mview *v,
    int ga, int gb, const char **a, const char **b);
/* routers_p2p: address a is one end of a point-to-point link (its /31
 * or /30 mate was seen, and it only ever answered probes that came from
 * one router): it names that link, as an answer from the ingress does. */
bool routers_p2p(const struct routers *r, const struct mview *v,
    const char *a);
/* routers_rack: group g's rack (struct raddr), -1 for a router seen
 * alike from several racks. A router seen from one rack only is how a
 * router that answers each sender from its own side (Linux's default) is
 * seen from that rack: the same router may be another such group from
 * another rack. */
int routers_rack(const struct routers *r, int g);
/* routers_host_of: the host whose address a is on this network, and the
 * port (interface) it is on, as its facts or its own flows said; -1. */
int routers_host_of(const struct mview *v, const char *a, const char **dev);
/* routers_tail: the address of the router a trace cut short one hop
 * before its destination's leaf went on to: the destination's one
 * gateway (its leaf, whatever address it answers from), when the last hop
 * that answered is the one before it in the direction's longest trace
 * and another router; NULL when that cannot be told. A lossy link into
 * a leaf often silences the leaf's answer to that very flow. */
const char *routers_tail(const struct routers *r, const struct mview *v,
    const struct mflow *f);
/* routers_whole: flow f's trace has every hop that the longest trace of
 * its direction has (a lost probe or answer leaves a hole, or cuts the path
 * short, and such a flow cannot say which links it crossed). */
bool routers_whole(const struct routers *r, const struct mview *v,
    const struct mflow *f);

#endif
