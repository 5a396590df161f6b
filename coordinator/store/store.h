/*
 * store: the results database (SQLite). Each cell is written, and so
 * committed, the moment it completes: a killed coordinator loses at most
 * the cells in flight, and 'matrix --resume RUN' skips what is stored.
 *
 *   runs(id, started, inventory, options, verdict, finished)
 *   cells(run, network, src, dst, test, state, data)   data: JSON
 *   findings(run, data)                                data: JSON array
 */
#ifndef CF_STORE_H
#define CF_STORE_H

#include <stdbool.h>
#include <stdint.h>

#include <cjson/cJSON.h>

struct sqlite3;
struct sqlite3_stmt;

/* The statements run once per cell or per pass over a run are prepared
 * once and kept (a report makes a dozen passes; preparing each one cost
 * more than reading the cells). store_close finalizes them. */
struct store {
	struct sqlite3 *db;
	struct sqlite3_stmt *put, *add, *each;
	int each_busy;		/* a pass runs: a nested one prepares its own */
	char path[4096];
};

/* store_open opens or creates the database; -1 with err. */
int store_open(struct store *s, const char *path, char *err);
/* store_open_ro opens an existing database read-only, for the commands
 * that only read (report, runs, compare): a path with no database is an
 * error ("PATH: no results database there"), and no file is made. */
int store_open_ro(struct store *s, const char *path, char *err);
void store_close(struct store *s);
/* store_begin / store_commit: many cells in one transaction (a mesh's
 * pairs all complete at once); commit failing rolls the batch back. */
int store_begin(struct store *s);
int store_commit(struct store *s, char *err);
void store_rollback(struct store *s);
/* store_add_cell stores a cell unless one is there already: 1 stored, 0
 * kept the old one, -1 error. */
int store_add_cell(struct store *s, int64_t run, const char *net,
    const char *src, const char *dst, const char *test, const char *state,
    const cJSON *data, char *err);
/* store_new_run returns a new run id (> 0), or -1. */
int64_t store_new_run(struct store *s, const char *inventory,
    const cJSON *options, char *err);
/* store_run_options returns the stored options of a run (caller frees),
 * NULL if there is no such run. */
cJSON *store_run_options(struct store *s, int64_t run, char *inventory,
    size_t invsz);
int store_put_cell(struct store *s, int64_t run, const char *net,
    const char *src, const char *dst, const char *test, const char *state,
    const cJSON *data, char *err);
/* store_cells returns every cell of a run as an array of
 * {network, src, dst, test, state, data} (caller frees). */
cJSON *store_cells(struct store *s, int64_t run);
/* store_each calls cb with each cell of run (of network net and test,
 * when not NULL) in the same shape, one at a time, so that a large run is
 * never in memory whole. Returns the count, or -1. */
/* store_count: the run's cells, or -1. */
int store_count(struct store *s, int64_t run);
int store_each(struct store *s, int64_t run, const char *net,
    const char *test, void (*cb)(const cJSON *cell, void *arg), void *arg);
int store_finish(struct store *s, int64_t run, const char *verdict,
    const cJSON *findings, char *err);
/* store_findings: a finished run's findings array (caller frees; empty
 * when the run has none or is unfinished). */
cJSON *store_findings(struct store *s, int64_t run);
/* store_delete_cell forgets one cell (a resumed run measures again what
 * the tool did not measure the first time). */
int store_delete_cell(struct store *s, int64_t run, const char *net,
    const char *src, const char *dst, const char *test, char *err);
/* store_set_planned records how many cells a complete run stores (the
 * matrix's plan); store_planned reads it, -1 when unknown (a run of an
 * older version). store_run_finished: whether the run was measured to
 * its end (its verdict stored). */
int store_set_planned(struct store *s, int64_t run, int cells, char *err);
int store_planned(struct store *s, int64_t run);
bool store_run_finished(struct store *s, int64_t run);
/* store_run_verdict: the run's stored verdict ("pass", "fail",
 * "incomplete"), "incomplete" for a run never measured to its end. */
const char *store_run_verdict(struct store *s, int64_t run);
/* store_runs: [{id, started, inventory, verdict, finished, cells,
 * planned}] (planned: null when unknown) */
cJSON *store_runs(struct store *s);

#endif
