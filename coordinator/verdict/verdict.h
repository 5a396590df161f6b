/*
 * findings: from a matrix of measurements to what is wrong and where.
 * Pure functions on arrays, so synthetic matrices test them. A healthy
 * fabric gives no finding: the verdict must not cry wolf.
 */
#ifndef CF_FINDINGS_H
#define CF_FINDINGS_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

/* An acceptance profile (configs/profiles/NAME.conf). */
struct profile {
	char name[64];
	double line_gbps;	/* the slower end's line rate */
	double min_pct;		/* a pair below this % of line rate is slow */
	double max_rpg;		/* retransmits per GB */
	double max_p99_us;	/* RTT p99 */
	double latency_k;	/* or k x the fabric's median p99 */
	double asym_pct;	/* A->B vs B->A */
	double imbalance_pct;	/* a path's share off its fair share */
	double load_pct;	/* all-to-all / fanout: a host's aggregate
				   below this % of line rate; 0 = min_pct */
	uint32_t required_mtu;
	uint16_t ports[64];
	int nports;
};

/* One network's matrix. Arrays are n*n, [i*n+j] for i -> j; NAN where
 * nothing was measured. Strings may be NULL. */
/* A measured flow with its traced path (a stream of a bandwidth cell):
 * src sent it to dst; the strings are the addresses and interface the
 * sender's agent reported (NULL: unknown or no answer). */
#define MFLOW_HOPS 16
struct mflow {
	int src, dst;
	double bytes, lost;		/* sent; loss retransmits */
	double bps;			/* its rate, bits/s */
	int dir_flows;			/* flows its cell sent that way */
	bool load;			/* part of an all-to-all or fanout load */
	const char *dev, *egress_addr;	/* the sender's port, its address */
	const char *src_addr, *dst_addr, *gw;
	int nhops;
	const char *hop[MFLOW_HOPS];
};

/* A host's address on one of its ports, from its facts: names the port
 * a traced path reached it by. */
struct mport {
	const char *addr, *dev;
	int host;
};

/* A test of a cell that was not measured (its stored reason): the
 * verdict tells the tool's own causes (unmeasured.c) from the network's. */
struct munmeasured {
	int src, dst;
	const char *test;		/* "bw", "lat", ... */
	const char *why;
};

/* Why a test was not measured: the network's (a path that passes
 * nothing), or the tool's own, which is never a network finding. */
enum lost_cause {
	LOST_NETWORK, LOST_LIMIT, LOST_BUSY, LOST_AGENT, LOST_INTERRUPTED,
	LOST_TIMEOUT, LOST_NCAUSES
};
extern const char *const lost_cause_names[LOST_NCAUSES];
/* lost_cause_of: the cause a stored reason names; agent (asz bytes): the
 * host whose agent the reason names, holder: the coordinator that held a
 * busy agent ("" when none). */
enum lost_cause lost_cause_of(const char *why, char *agent, size_t asz,
    char *holder, size_t hsz);

struct mview {
	const char *net;
	int n;
	const char *const *names;
	const int *rack;		/* rack id per host */
	const double *gbps;
	const double *rpg;		/* retransmits per GB */
	const double *p99;		/* microseconds */
	const double *p99_loaded;	/* the same during a load, or NULL */
	const double *mtu_conf, *mtu_path;
	const int *lost;		/* cell could not be measured */
	const char *const *lost_why;
	const int *ports_bad;		/* ports not open */
	const char *const *ports_what;
	/* Spread (bandwidth cells): the sender's paths (ECMP next hops or
	 * bond members), how many carried nothing, the lowest share times
	 * the paths (1 = fair), the streams per direction. May be NULL. */
	const int *spread_paths, *spread_unused, *streams;
	const double *spread_min;
	const int *wrong_egress;
	const char *const *egress_what;
	/* Per direction whose MTU probe's large datagrams died on a fabric
	 * link: its near end (may be NULL) and far end, as traced, and
	 * the MTU a router there said it forwards (NAN). May be NULL. */
	const char *const *mtu_cut_near, *const *mtu_cut_far;
	const double *mtu_next;
	/* Every traced flow of the network's bandwidth cells (links.c). */
	const struct mflow *flows;
	int nflows;
	/* The traced flows of cells that failed (a stall): what an mtu_link
	 * explains (links_mtu.c), never a vote. */
	const struct mflow *stalled;
	int nstalled;
	const struct mport *ports;	/* may be NULL */
	int nports;
	/* Per host: how late its own probe thread ran (p99, us; NAN when
	 * unknown): a starved host's RTTs are its own (may be NULL). */
	const double *host_late_us;
	/* Per host: probe replies its own socket dropped, its buffer full
	 * (NAN when unknown; may be NULL): a thread that did not read in
	 * time, the host's loss, not the network's. */
	const double *host_drops;
	/* Tests not measured for a cause that is not the network's (the
	 * report puts a lost test here when lost_cause_of says so, and
	 * not in lost): one warning per cause and place (may be NULL). */
	const struct munmeasured *um;
	int num;
	/* Per direction: the pace a bandwidth cell ran at, Gbit/s (NAN:
	 * unpaced; may be NULL). A cell at its pace is not slow: the
	 * agents' max_rate, or --rate, chose it. */
	const double *pace_gbps;
	/* The links named on the run's other networks, "A B" one way by
	 * their ends as findings print them (both ways: both): a link that
	 * carries both networks and lost on one may have met only one flow
	 * of the other (may be NULL). */
	const char *const *other_links;
	int nother;
};

/* finding_new appends a finding to out (an array) and returns it: kind,
 * severity ("error" or "warn"), network, hosts (empty: finding_host adds
 * them in order), the summary from fmt, evidence (empty: finding_num adds
 * a number when it is finite) and the hint. out owns it. */
cJSON *finding_new(cJSON *out, const char *kind, const char *sev,
    const char *net, const char *hint, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));
cJSON *finding_vnew(cJSON *out, const char *kind, const char *sev,
    const char *net, const char *hint, const char *fmt, va_list ap)
    __attribute__((format(printf, 6, 0)));
void finding_host(cJSON *f, const char *name);
void finding_num(cJSON *f, const char *key, double x);
/* finding_location sets where the fault is: its scope ("host", "pair",
 * "link", "rack", "fabric"); the caller adds the scope's own keys to the
 * "location" object. finding_pair adds a direction it explains
 * ("SRC->DST") to evidence.pairs. */
void finding_location(cJSON *f, const char *scope);
/* finding_link: a finding's location: a host's port (kind 'P': host a,
 * interface b), one direction of a link ('R': near end a, far end b) or
 * both ('L'); text as the finding prints it, or_text its twin or NULL. */
void finding_link(cJSON *f, const struct mview *v, char kind,
    const char *a, const char *b, const char *text, const char *or_text);
/* finding_median sorts x and returns its median (NAN when n is 0). */
double finding_median(double *x, int n);
/* finding_quantile sorts x and returns its q quantile (nearest rank; NAN
 * when n is 0). */
double finding_quantile(double *x, int n, double q);
void finding_pair(cJSON *f, const char *pair);

/* findings_compute appends this network's findings to out (an array).
 * Returns how many of them are errors (a failing verdict). */
int findings_compute(const struct mview *v, const struct profile *p,
    cJSON *out);

/* A measured flow for the localizer: the fabric links its traced path
 * crossed (ids from 0 to nl - 1, the caller's numbering) and whether it
 * was bad (lost packets, or fell short of the floor). */
struct loc_flow {
	const int *links;
	int nlinks;
	bool bad;
};

/* A link the localizer names: the bad flows it explains (not explained by
 * a link named before it), all bad and all clean flows that crossed it,
 * and its twin: a link crossed by exactly the same bad flows, which these
 * flows cannot tell apart from it (-1 when none). */
struct loc_blame {
	int link;
	int explained, bad, good;
	int twin;
};

/* localize_links names at most cap links that explain the bad flows and
 * that no clean flow refutes (verdict/localize.c says how), most
 * explaining first; returns how many, -1 without memory. *unexplained:
 * the bad flows no named link explains (they stay pair findings).
 * prior (may be NULL): links named already on another network, which one
 * bad flow here is enough to name. */
int localize_links(const struct loc_flow *fl, int nf, int nl,
    const unsigned char *prior, struct loc_blame *out, int cap,
    int *unexplained);

/* profile_load reads a profile file; -1 with err ("file:line: ..."). */
int profile_load(const char *path, struct profile *p, char *err);
void profile_defaults(struct profile *p);
/* profile_rtt_high: an RTT p99 (us) over the profile's limit, or
 * latency_k times the fabric's median of nmed values (4 at least) and
 * clearly above noise (200 us more). The findings judge by it, and the
 * matrix measures again, alone, a pair it calls high. */
bool profile_rtt_high(const struct profile *p, double q, double med, int nmed);
/* profile_rtt_suspects: of n pairs' RTT p99 (NAN: unmeasured), which are
 * high against the limit or their median (pick[i] = 1), and how many; none
 * when most are high (a fabric-wide latency, which no single pair
 * explains). */
int profile_rtt_suspects(const struct profile *p, const double *q, int n,
    unsigned char *pick);
/* profile_to_json / profile_from_json: a profile as stored with a matrix
 * run, so that --resume and report judge by the run's own thresholds.
 * from_json: 0, or -1 with err naming the field. */
cJSON *profile_to_json(const struct profile *p);
int profile_from_json(const cJSON *j, struct profile *p, char *err);
/* profile_parse_buf: the same from text (name for the messages). */
int profile_parse_buf(const char *name, const char *text, size_t len,
    struct profile *p, char *err);

#endif
