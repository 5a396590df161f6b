/*
 * matrix: 'cephfab matrix', the all-pairs test of a whole inventory on
 * both Ceph networks. Every cell (one probe or one throughput test) runs
 * as a child 'cephfab' command with --json, so a cell is isolated,
 * bounded and killable by PID; the scheduler runs probes concurrently
 * first, then the throughput rounds (rounds.h), retests cells that look
 * bad alone, stores each cell as it completes (store.h), classifies
 * (findings.h) and reports (mreport.c).
 */
#ifndef CF_MATRIX_H
#define CF_MATRIX_H

#include <stdbool.h>
#include <stdint.h>

#include "verdict/verdict.h"
#include "core/inventory.h"

enum { MT_BW = 1, MT_LAT = 2, MT_MTU = 4, MT_PORTS = 8, MT_FACTS = 16 };
/* Above this many hosts the latency phase runs as one 'mesh' per network
 * (mesh.h) instead of one exchange per pair. */
#define MATRIX_MESH_HOSTS 16
/* Bandwidth patterns (--mode): isolated pairs, and the loads of mload.h. */
enum { MM_PAIRWISE = 1, MM_A2A = 2, MM_FANOUT = 4 };

struct matrix_opts {
	int nets;			/* bit 0 public, bit 1 cluster */
	int tests;			/* MT_* bits */
	int modes;			/* MM_* bits */
	uint32_t streams;
	double secs;
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
};

int matrix_run(struct inventory *inv, const struct matrix_opts *o);
/* report_render renders a stored run again without measuring. */
int report_render(struct inventory *inv, const struct matrix_opts *o,
    int64_t run);

/* report_restore puts a stored run's options (store_run_options) over
 * o's: with all, what was measured and how (a resumed run must finish
 * as it began); always the profile, unless one was given to this
 * command (report may re-judge by another). */
void report_restore(const cJSON *opts, struct matrix_opts *o, bool all);

/* mreport.c: build the result tree from stored cells and render it. */
struct store;
/* report_build reads the run's cells from st one at a time. */
cJSON *report_build(struct inventory *inv, const struct matrix_opts *o,
    int64_t run, struct store *st, int *errors);
void report_terminal(const cJSON *doc, bool color);
int report_json(const cJSON *doc, const char *path, char *err);
int report_html(const cJSON *doc, const char *path, char *err);
int report_junit(const cJSON *doc, const char *path, char *err);
int report_prom(const cJSON *doc, const char *path, char *err);
/* report_csv: one line per cell (network, src, dst and its metrics),
 * then one per finding, for spreadsheets. */
int report_csv(const cJSON *doc, const char *path, char *err);

#endif
