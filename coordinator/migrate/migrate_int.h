/*
 * migrate_int: what migrate.c and migrate_gates.c share. The state of one
 * migrate run, and the observations and gates (migrate_gates.c): each gate
 * polls the cluster until it holds, pauses or times out, and every poll
 * also looks for what pauses a migration whatever the step.
 */
#ifndef CF_MIG_INT_H
#define CF_MIG_INT_H

#include <stdbool.h>
#include <stdio.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "ceph/ceph.h"
#include "migrate/migrate.h"
#include "json.h"

enum { G_PASS, G_PAUSE, G_ERROR };

struct mig {
	const struct migrate_opts *o;
	cJSON *plan;			/* owned */
	const cJSON *steps;
	int nsteps;
	struct journal jn;
	cJSON *events;			/* the journal so far (owned) */
	struct netcidr to;		/* where OSDs are going */
	const char *to_s;
	struct ceph_map *base;		/* each OSD as last accepted */
	struct ceph_map *cur;		/* the latest osd dump */
	int batch[256];			/* OSDs this batch may take down */
	int nbatch;
	double pga_since, slow_since;	/* PG_AVAILABILITY, SLOW_OPS seen */
	double laggy_since;		/* laggy PGs seen */
	char observed[256];		/* the last gate's last state */
	double restart_t;		/* last restart issued (monotonic) */
	double max_unclean;		/* longest restart-to-clean window */
	char why[768];			/* what paused it */
	char hint[256];			/* what to do */
	char err[CF_ERRLEN];
	bool tty;
	/* The settle gate of step settle_n began at settle_t0. */
	int settle_n;
	double settle_t0;
	/* 'cephfab watch' on the cluster network while settling (migrate_settle.c,
	 * when migrate has an inventory): its child, its output file, how
	 * far it was read, what it saw. */
	int watch_pid;
	char watch_path[64];
	long watch_off;
	int watch_lines;
	double watch_max_pct;
	char watch_max_pair[160];
	/* The client probe (migrate_probe.c, with --probe-pool): its child and
	 * the file it logs each operation to. */
	int probe_pid;
	char probe_path[64];
};

double migrate_mono(void);
/* migrate_pause records why and what to do; returns G_PAUSE. */
int migrate_pause(struct mig *g, const char *hint, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* migrate_obs_map reads 'osd dump' into g->cur; -1 with g->err. */
int migrate_obs_map(struct mig *g);
/* migrate_osds: the "osds" array of a step's do or gate, at most max. */
int migrate_osds(const cJSON *o, int *ids, int max);
/* migrate_restart_ev: the journal's latest restart event of step n, osd. */
const cJSON *migrate_restart_ev(const struct mig *g, int n, int osd);
/* migrate_gate runs a step's gate: G_PASS, G_PAUSE (g->why, g->hint) or
 * G_ERROR (g->err). */
int migrate_gate(struct mig *g, const cJSON *gate, int n);

/* migrate_watch_start runs 'cephfab watch --net cluster' for secs in the
 * background (nothing when migrate has no inventory); migrate_watch_poll
 * reads what it printed since and returns 1 on a retransmission spike,
 * the first spiking pair in spike (the settle gate pauses on it), else 0;
 * migrate_watch_stop ends it. */
void migrate_watch_start(struct mig *g, double secs);
int migrate_watch_poll(struct mig *g, char *spike, size_t len);
void migrate_watch_stop(struct mig *g);
/* migrate_ceph_allowed: whether a plan's ceph argv (k words) is one a plan
 * can contain: osd set|unset noout, config set WHO cluster_network NETS,
 * config rm WHO cluster_network, WHO being global or osd.N. Pure. */
bool migrate_ceph_allowed(const char *const *a, int k);
/* migrate_watch_silent: why the settle gate cannot pass on the traffic
 * watch (it was to run and did not start, or gave no sample), NULL when it
 * can (samples came, no inventory, or --no-traffic-gate). Pure. */
const char *migrate_watch_silent(bool wanted, bool no_gate, bool started,
    int lines);
/* migrate_reap ends a child of ours: SIGTERM, up to grace seconds for it to
 * exit, then SIGKILL; it is waited for either way. */
void migrate_reap(int pid, double grace);
/* migrate_watch_judge: one line of 'watch --json'; 1 with the worst pair in
 * why when a peer's retransmissions exceed limit percent of at least
 * min_segments segments, 0 otherwise, -1 when it is not such a line.
 * *max_pct is raised to the line's highest percentage. Pure. */
int migrate_watch_judge(const char *line, double limit, double min_segments,
    double *max_pct, char *why, size_t wl);

/* migrate_probe_start forks the client probe when the run executes and has a
 * pool to probe; migrate_probe_stop ends it, prints what it saw and adds it to
 * doc as "client" (when doc is not NULL). */
void migrate_probe_start(struct mig *g);
void migrate_probe_stop(struct mig *g, cJSON *doc);
/* migrate_probe_summary reads a probe's log: lines "OP ok|err|bad MS". */
struct migrate_probe {
	int ops, errors, mismatches;
	double longest_ms;
};
int migrate_probe_summary(FILE *f, struct migrate_probe *p);

#endif
