/*
 * migrate: the cluster_network cutover: its preflight and plan, the script, the journal and the gated execution.
 * The one header other folders include (docs/architecture.md).
 */
#ifndef CF_MIGRATE_MIGRATE_H
#define CF_MIGRATE_MIGRATE_H

#include <stdbool.h>
#include <stdio.h>
#include <cjson/cJSON.h>

#include "ceph/ceph.h"

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

/* plan_check_list: every check the preflight makes, {check, what,
 * result: "ok", "warn" or "blocked"} by the findings fs (caller frees):
 * a passing preflight says what it checked. */
cJSON *plan_check_list(const cJSON *fs);
/* plan_print: the plan for a human, step by step. */
void plan_print(const cJSON *plan, FILE *f);

/* plan_script writes a reviewable bash script: set -euo pipefail, each
 * gate a bounded polling loop, resumable with the step number as its
 * first argument. -1 on a write error. */
int plan_script(const cJSON *plan, FILE *f);

/*
 * plan_net: the planner's look at the hosts themselves, through this
 * program's own commands run as children (so each keeps its event loop
 * and its limits): the OSD hosts' addresses from the agents' facts, and
 * the new network tested host to host before any OSD moves.
 */
/* plan_read_state fills ps from the live cluster (status, health,
 * versions, where cluster_network is set on each OSD host) and *grace
 * with osd_heartbeat_grace; what cannot be read stays empty. */
void plan_read_state(const struct ceph_opts *co, const struct ceph_map *m,
    struct plan_state *ps, double *grace);
/* plan_host_addrs fills ps->hosts from 'hosts --facts --json'. */
void plan_host_addrs(const char *inventory, const char *key, struct plan_state *ps);

/* plan_net_checks: between the OSD hosts, the new network as the matrix
 * tests any network (reach, DF path MTU, Ceph's OSD ports 6800-7300),
 * and every old cluster address to every new one and back (during the
 * transition moved and unmoved OSDs heartbeat each other). Appends a
 * finding per problem to fs; returns how many block. */
int plan_net_checks(const char *inventory, const char *key_given,
    const struct ceph_map *m,
    const struct plan_state *ps, const struct plan_opts *o, cJSON *fs);

/*
 * journal: the migration's append-only record. One JSON object per line
 * ({"t": unix seconds, "event": ..., ...}), each written with one write()
 * and fsync()ed before the action it announces is taken, so a migrate
 * killed at any point can be resumed from what the file says happened.
 * A torn last line (killed mid-write) is ignored on reading.
 */
#define JOURNAL_LINE_MAX (64 * 1024)

struct journal {
	int fd;
	char path[4096];
};

/* journal_open opens path for appending. With resume false it must not
 * exist yet (or be empty); with resume true its events are returned in
 * *events (a JSON array, caller frees). The file stays locked (flock)
 * until closed: a second migrate on it is refused. -1 with err. */
int journal_open(struct journal *jn, const char *path, bool resume,
    cJSON **events, char *err);
/* journal_read reads a journal's events without opening it for writing. */
int journal_read(const char *path, cJSON **events, char *err);
/* journal_add stamps ev with "t", appends it and fsyncs; takes ev. */
int journal_add(struct journal *jn, cJSON *ev, char *err);
void journal_close(struct journal *jn);

/*
 * migrate: executes a cutover plan (plan.h) on a live cluster, step by
 * step, each gated on observed state: noout, per batch the masks,
 * ok-to-stop, the restarts, every restarted OSD up again with its cluster
 * and back-heartbeat addresses in the new network, every PG active+clean
 * as reported after the restart, a settle of twice the heartbeat grace;
 * then the global setting, noout unset. It pauses (never continues) on
 * anything a careful operator would stop for, says what it saw and what
 * to do, and records every step in a journal (journal.h) before acting,
 * so that a killed migrate resumes where it was and each OSD restarts
 * once per phase. --rollback builds the reverse plan from the journal.
 */
struct migrate_opts {
	struct ceph_opts co;
	const char *plan_path;
	const char *journal_path;	/* NULL: PLAN.journal */
	const char *restart_cmd;	/* NULL: by the plan's deploy */
	bool execute, resume, rollback, json;
	double inactive_limit;		/* s a PG may stay inactive (90) */
	double slow_ops_limit;		/* s SLOW_OPS may last (120) */
	double poll;			/* s between observations (2) */
	/* With an inventory, 'watch' on the cluster network while settling:
	 * a pause when a peer retransmits more than retrans_limit % of at
	 * least retrans_min segments in an interval. */
	const char *inventory, *key;
	double retrans_limit;		/* percent (2) */
	double retrans_min;		/* segments (1000) */
	/* Settle on Ceph's own state alone when the watch has nothing to
	 * say (else no samples is a pause). */
	bool no_traffic_gate;
	/* A client probe writing and reading objects in this pool while it
	 * runs (NULL: none). */
	const char *probe_pool;
};

/* migrate_run: EXIT_PASS when the (dry) run completed, EXIT_PROBLEMS when
 * paused at a gate, EXIT_USAGE for a bad plan or journal, EXIT_RUNTIME
 * when the cluster or the journal could not be used. */
int migrate_run(const struct migrate_opts *o);

/* The default restart command: never a prompt (BatchMode), a bounded
 * connect, and the host after "--" (it cannot be read as an option). */
#define MIGRATE_RESTART_DEFAULT "ssh -o BatchMode=yes -o ConnectTimeout=10 " \
	"-- {host} systemctl restart ceph-osd@{osd}"

/* migrate_restart_argv: the restart command for one OSD, TEMPLATE split at
 * blanks with {osd} and {host} replaced, in buf; argv points into it.
 * -1 with err when it does not fit. */
int migrate_restart_argv(const char *tmpl, int osd, const char *host,
    char *buf, size_t blen, const char **argv, int maxargs, char *err);

#endif
