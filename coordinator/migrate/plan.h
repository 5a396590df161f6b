/*
 * plan: a staged cluster_network cutover. From the cluster's state
 * (ceph.h) and the hosts' addresses, a preflight (each problem a
 * finding with evidence) and an ordered plan: noout, then per batch
 * (default one host) a cluster_network mask for the host, ok-to-stop,
 * the OSD restarts, and gates on observed state (every OSD back with a
 * higher up_from and its cluster and back-heartbeat addresses in the new
 * network, every PG active+clean as reported after that epoch, a settle
 * of at least twice the heartbeat grace with no slow-ping check naming
 * them), then the global setting, the masks removed, noout unset. Each
 * step has its commands, its gate, a timeout and its rollback. Pure
 * functions: the tests feed captured cluster state.
 */
#ifndef CF_PLAN_H
#define CF_PLAN_H

#include <stdbool.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "ceph/ceph.h"

enum plan_deploy { PLAN_SYSTEMD, PLAN_CEPHADM };

struct plan_opts {
	struct netcidr new_net;
	enum plan_deploy deploy;
	int batch;			/* OSD hosts per batch (>= 1) */
	double settle;			/* seconds, at least 2 x grace */
	double grace;			/* osd_heartbeat_grace, seconds */
};

/* What the preflight looks at besides the OSD map. */
struct plan_state {
	struct ceph_status status;
	struct ceph_health health;
	struct ceph_versions versions;
	char cluster_network_source[32];	/* "mon", "file", ... */
	char file_hosts[512];	/* OSD hosts whose ceph.conf sets it, "a,b" */
	/* Each OSD host's addresses (from the agents' facts). */
	struct {
		char host[CEPH_NAME_MAX];
		struct netaddr addr[16];
		int naddr;
		bool known;		/* its agent answered */
	} hosts[CEPH_MAX_OSDS];
	int nhosts;
};

/* plan_finding appends a blocking finding (kind, severity "error",
 * network, hosts [], summary, evidence {}, hint) to out; returns it. */
cJSON *plan_finding(cJSON *out, const char *kind, const char *hint,
    const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* plan_preflight appends findings (kind, severity, hosts, summary,
 * evidence, hint) to out; returns how many block the migration. */
int plan_preflight(const struct ceph_map *m, const struct plan_state *s,
    const struct plan_opts *o, cJSON *out);

/* plan_build: the plan as JSON (caller frees), NULL with err when the
 * map has no OSD to move. */
cJSON *plan_build(const struct ceph_map *m, const struct plan_opts *o,
    char *err);

/* plan_rollback: the reverse of what a migrate journal's events say was
 * done (noout; the configuration restored; the restarted OSDs, last
 * batch first, restarted again with the same gates towards the old
 * network; noout unset), a plan in the same shape, or NULL with err
 * when the plan has no old network to go back to. */
cJSON *plan_rollback(const cJSON *plan, const cJSON *events, char *err);

/* plan_print: the plan for a human, step by step. */
void plan_print(const cJSON *plan, FILE *f);

/* plan_script writes a reviewable bash script: set -euo pipefail, each
 * gate a bounded polling loop, resumable with the step number as its
 * first argument. -1 on a write error. */
int plan_script(const cJSON *plan, FILE *f);

#endif
