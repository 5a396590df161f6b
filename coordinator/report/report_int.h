/*
 * report_int: what the report's files share. Not for other rooms:
 * report.h is the door.
 */
#ifndef CF_REPORT_INT_H
#define CF_REPORT_INT_H

#include "report/report.h"
#include "verdict/verdict.h"

/* The traced flows of one network (report_flows.c): their strings are
 * interned in str and live as long as the set. */
struct rflows {
	struct mflow *f;
	int n, cap;
	char **str;
	int nstr, capstr;
	struct inv_host **h;
	int nh;
	struct mport *ports;		/* every host's addresses (facts) */
	int nports, capports;
	bool lost_cells;		/* the flows of cells that failed */
};

/* The traced flows of a network's measured cells, or (lost) of its cells
 * that failed, a stall among them: report_flows_init, then every cell of
 * the network to report_flows_cell (it takes the throughput cells of its
 * kind), then report_flows_ports for the ports' names from the facts. The
 * report reads each cell once, for the grid and both sets of flows. */
void report_flows_init(struct rflows *F, struct inv_host **h, int n,
    bool lost);
void report_flows_cell(struct rflows *F, const cJSON *cell);
void report_flows_ports(struct rflows *F, struct store *st, int64_t run);
void report_flows_free(struct rflows *F);
/* report_flows_fabric: {"steps": [[FROM, TO, DEPTH, FLOWS, BAD], ...]}:
 * each step of the traced paths (TO at hop DEPTH; -1 - D: into the
 * receiving host from hop D, 0 being the sender), how
 * many flows took it and how many of those lost packets. */
cJSON *report_flows_fabric(const struct rflows *F, double max_rpg);
/* report_mtu_cut: the fabric link where an MTU result's large datagrams
 * died, from its "trace" (agent/probes/trace_mtu.h): its near end (NULL
 * when that router did not answer) and far end, as new strings (left as
 * they are when the trace names no fabric link), and the MTU a router
 * said it forwards (left as it is when none said). */
void report_mtu_cut(const cJSON *r, char **near, char **far,
    double *next_mtu);

/* The tests of one network the tool did not measure (report_unmeasured.c),
 * its strings owned. */
struct umlist {
	struct munmeasured *u;
	int n, cap;
};
/* report_unmeasured_take: whether stored cell c is a test the tool itself
 * did not measure (lost for a cause lost_cause_of says is not the
 * network's). If so it is added to l, a and b are its hosts' indexes and
 * *entry a new {"test", "cause", "reason"} for the cell's not_measured
 * (the caller owns it). */
bool report_unmeasured_take(struct umlist *l, struct inv_host **h, int n,
    const cJSON *c, int *a, int *b, cJSON **entry);
void report_unmeasured_free(struct umlist *l);
/* report_not_measured: the entry of cell's "not_measured" for test
 * ("bw", "lat", ...), NULL when that test was not left unmeasured. */
const cJSON *report_not_measured(const cJSON *cell, const char *test);
/* report_completeness adds doc's "completeness" ({finished, cells_stored,
 * cells_planned, cells_missing, tests_not_measured}) and, for a run that
 * did not finish (measuring: the matrix renders the run it measured,
 * which has finished), a not_measured warning to fs. True when the run
 * is incomplete. */
bool report_completeness(cJSON *doc, cJSON *fs, struct store *st,
    int64_t run, bool measuring, int unmeasured);

/* The links a network's findings named (report_links.c), "A B" one way
 * by the ends they print, for the other network's mview.other_links. */
struct report_links {
	char **s;
	int n, cap;
};
/* report_links_collect adds the lossy and slow links of findings fs on
 * network net (both ways of a link named both ways); -1 without memory. */
int report_links_collect(struct report_links *rl, const cJSON *fs,
    const char *net);
void report_links_free(struct report_links *rl);

/* report_ceph_join (report_ceph.c), a store_each callback on the run's
 * "ceph" "heartbeats" cell with the report's doc: Ceph's heartbeat ping
 * times beside each pair's cells (ceph_ping_ms) and in the high_latency
 * findings of pairs Ceph sees slow too. */
void report_ceph_join(const cJSON *c, void *arg);

/* report_host_index: host name's index in h[0..n), -1 when not there. */
int report_host_index(struct inv_host **h, int n, const char *name);
/* report_load_sections (report_load.c) adds the network's all-to-all and
 * fanout loads, if any ran, as nj's "load", their findings to fs. */
void report_load_sections(cJSON *nj, struct inv_host **h, int n,
    const char **names, const int *rack, struct store *st, int64_t run,
    const char *nn, const struct profile *prof, cJSON *fs, int *errors);

#endif
