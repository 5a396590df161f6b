/*
 * mig_int: what migrate.c and mig_gates.c share. The state of one
 * migrate run, and the observations and gates (mig_gates.c): each gate
 * polls the cluster until it holds, pauses or times out, and every poll
 * also looks for what pauses a migration whatever the step.
 */
#ifndef CF_MIG_INT_H
#define CF_MIG_INT_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "ceph.h"
#include "journal.h"
#include "migrate.h"
#include "pj.h"

enum { G_PASS, G_PAUSE, G_ERROR };

struct mig {
	const struct mig_opts *o;
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
	double restart_t;		/* last restart issued (monotonic) */
	double max_unclean;		/* longest restart-to-clean window */
	char why[768];			/* what paused it */
	char hint[256];			/* what to do */
	char err[CF_ERRLEN];
	bool tty;
};

double mig_mono(void);
/* mig_pause records why and what to do; returns G_PAUSE. */
int mig_pause(struct mig *g, const char *hint, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* mig_obs_map reads 'osd dump' into g->cur; -1 with g->err. */
int mig_obs_map(struct mig *g);
const struct ceph_osd *mig_osd(const struct ceph_map *m, int id);
/* mig_osds: the "osds" array of a step's do or gate, at most max. */
int mig_osds(const cJSON *o, int *ids, int max);
/* mig_restart_ev: the journal's latest restart event of step n, osd. */
const cJSON *mig_restart_ev(const struct mig *g, int n, int osd);
/* mig_gate runs a step's gate: G_PASS, G_PAUSE (g->why, g->hint) or
 * G_ERROR (g->err). */
int mig_gate(struct mig *g, const cJSON *gate, int n);

#endif
