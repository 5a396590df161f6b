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
/* links_mate: the other end of the point-to-point link address a is on:
 * its /31 (or /127) mate (wide30 0), or its /30 mate (wide30 1); -1 when
 * it has none. out holds 48 bytes. */
int links_mate(const char *a, int wide30, char *out);
/* links_location: a finding's location: a host's port (kind 'P': host a,
 * interface b), one direction of a link ('R': near end a, far end b) or
 * both ('L'); text as the finding prints it, or_text its twin or NULL. */
void links_location(cJSON *f, const struct mview *v, char kind,
    const char *a, const char *b, const char *text, const char *or_text);

/* links_mtu.c: the fabric link where the MTU probes' large datagrams
 * died (mtu_link), from their traces; the directions of the flows
 * through it are explained (they stalled there: no vote in
 * rootcause_links). Runs before it and before rootcause_mtu. */
void rootcause_mtu_links(struct fctx *c);

#endif
