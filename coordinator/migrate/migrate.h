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
#ifndef CF_MIGRATE_H
#define CF_MIGRATE_H

#include <stdbool.h>

#include <cjson/cJSON.h>

#include "ceph/ceph.h"

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
	/* A client probe writing and reading objects in this pool while it
	 * runs (NULL: none). */
	const char *probe_pool;
};

/* migrate_run: EXIT_PASS when the (dry) run completed, EXIT_PROBLEMS when
 * paused at a gate, EXIT_USAGE for a bad plan or journal, EXIT_RUNTIME
 * when the cluster or the journal could not be used. */
int migrate_run(const struct migrate_opts *o);

/* migrate_restart_argv: the restart command for one OSD, TEMPLATE split at
 * blanks with {osd} and {host} replaced, in buf; argv points into it.
 * -1 with err when it does not fit. */
int migrate_restart_argv(const char *tmpl, int osd, const char *host,
    char *buf, size_t blen, const char **argv, int maxargs, char *err);

#endif
