#ifndef CF_MATRIX_MATRIX_H
#define CF_MATRIX_MATRIX_H

#include <stdbool.h>
#include <stdint.h>
#include <cjson/cJSON.h>

#include "verdict/verdict.h"
#include "core/core.h"

/*
 * matrix: 'cephfab matrix', the all-pairs test of a whole inventory on
 * both Ceph networks. Every cell (one probe or one throughput test) runs
 * as a child 'cephfab' command with --json, so a cell is isolated,
 * bounded and killable by PID; the scheduler runs probes concurrently
 * first, then the throughput rounds (sched.c), retests cells that look
 * bad alone and stores each cell as it completes (store/store.h); the
 * verdict (verdict/) and the report (report/) read the stored run.
 */
enum { MT_BW = 1, MT_LAT = 2, MT_MTU = 4, MT_PORTS = 8, MT_FACTS = 16 };
/* Above this many hosts the latency phase runs as one 'mesh' per network
 * (probes.h) instead of one exchange per pair. */
#define MATRIX_MESH_HOSTS 16
/* Bandwidth patterns (--mode): isolated pairs, and the loads (matrix_load.c). */
enum { MM_PAIRWISE = 1, MM_A2A = 2, MM_FANOUT = 4 };

struct matrix_opts {
	int nets;			/* bit 0 public, bit 1 cluster */
	int tests;			/* MT_* bits */
	int modes;			/* MM_* bits */
	uint32_t streams;
	double secs;
	/* Each bandwidth cell's rate each way, bits/s, split over its
	 * streams (0: unpaced, or the smaller max_rate of the pair's
	 * agents when one has it). */
	uint64_t rate;
	/* Agents running another coordinator's tests: refuse to start
	 * (no_wait), or wait for them at most wait_max seconds. */
	bool no_wait;
	double wait_max;
	int max_per_rack;
	int concurrency;		/* probe cells at once */
	int lat_mesh;			/* latency by 'mesh': 1 yes, 0 above
					   MATRIX_MESH_HOSTS hosts */
	uint32_t lat_rate;		/* mesh probes/s per agent, 0 = 1000 */
	bool lat_loaded;		/* the mesh again during the load */
	/* Ceph's own heartbeat view beside the measured RTT: the
	 * 'ceph-heartbeats' of this cluster, stored with the run. */
	const char *ceph_conf, *ceph_name;
	const char *db;
	int64_t resume;
	const char *html, *json, *junit, *prom, *csv;
	bool json_stdout;
	struct profile prof;
	bool prof_given;		/* --profile on this command line */
	const char *inventory, *key;
	double timeout;
	unsigned show;			/* SHOW_* bits of the terminal's
					   matrices, 0: the default (a view,
					   not stored with the run) */
};

/* matrix_run measures every cell of a new run (or the missing cells of
 * o->resume, whose stored options then replace *o) and stores each as it
 * completes. Returns EXIT_PASS with *run set when every cell ran (the
 * caller then reports it: report_render), or an EXIT_* code when the run
 * could not start or was interrupted (the run stays resumable). */
int matrix_run(struct inventory *inv, struct matrix_opts *o, int64_t *run);

/* matrix_opts_json: the options stored with a run (the caller owns it). */
cJSON *matrix_opts_json(const struct matrix_opts *o);
/* matrix_restore puts a stored run's options (store_run_options) over
 * o's: with all, what was measured and how (a resumed run must finish
 * as it began); always the profile, unless one was given to this
 * command (report may re-judge by another). */
void matrix_restore(const cJSON *opts, struct matrix_opts *o, bool all);

/*
 * mload: the matrix's load modes. 'all-to-all' makes every host send to
 * every other at once (a recovery storm); 'fanout' makes each host send to
 * two hosts in other racks (a size-3 pool's primary -> replica writes).
 * Isolated pairs never show an oversubscribed spine; these do, as each
 * host's aggregate against its line rate. Pure functions on arrays, so
 * synthetic loads test them.
 */
enum matrix_load_mode { ML_A2A, ML_FANOUT };

/* matrix_load_name: "all-to-all" or "fanout"; matrix_load_test: the cell's test name
 * in the store ("a2a", "fanout"). */
const char *matrix_load_name(enum matrix_load_mode m);
const char *matrix_load_test(enum matrix_load_mode m);

/* matrix_load_fanout picks each host's two receivers: the next hosts in rack
 * order that are in another rack, else the next hosts at all. rack[i] is
 * a rack id; dst[2 * i] and dst[2 * i + 1] are filled (distinct, never i).
 * n >= 3. Returns 0, or -1 for n < 3. */
int matrix_load_fanout(int n, const int *rack, int *dst);

/* One load's flows, arrays n*n as in struct mview: gbps NAN where no flow
 * ran, lost set where a flow ran and failed. */
struct matrix_load_view {
	enum matrix_load_mode mode;
	const char *net;
	int n;
	const char *const *names;
	const int *rack;
	const double *gbps;
	const double *rpg;
	const int *lost;
	double seconds;
};

/* matrix_load_compute returns the load's section (caller frees): per host its
 * flows, tx and rx Gbit/s and % of line rate; intra- and inter-rack flow
 * means. Findings ('oversubscribed', 'unreachable') go to out; the return
 * through *errors counts those that fail the verdict. NULL when the view
 * has no flow. */
cJSON *matrix_load_compute(const struct matrix_load_view *v, const struct profile *p,
    cJSON *out, int *errors);

/* matrix_load_terminal prints a load section as a table on stdout. */
void matrix_load_terminal(const cJSON *load, const char *net, bool color);

#endif
