/*
 * report: a stored matrix run as its users read it. report.c builds the
 * result tree (cells, findings, verdict) from the stored cells;
 * report_term.c prints it on the terminal; report_files.c writes it as
 * JSON, HTML, JUnit, Prometheus text and CSV; compare.c sets stored runs
 * side by side. Reads the store, never measures.
 */
#ifndef CF_REPORT_REPORT_H
#define CF_REPORT_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <cjson/cJSON.h>

#include "matrix/matrix.h"

/* report_render renders a stored run without measuring; finish (the
 * matrix that just measured it) stores its verdict and findings, else the
 * stored run is left as it is. */
int report_render(struct inventory *inv, const struct matrix_opts *o,
    int64_t run, bool finish);


/* report_inventory: the inventory run was measured on, as stored with it
 * (report_inventory.c), into inv; today's (given, may be NULL) is only
 * compared with it, a difference a warning on stderr. A run stored
 * without its inventory needs given. -1 with err. */
int report_inventory(const char *db, int64_t run, const char *given,
    struct inventory *inv, char *err);

struct store;
/* report_build reads the run's cells from st one at a time; measuring:
 * the matrix that measured the run renders it (so its end is not yet
 * stored). Its "verdict" is "fail" (*errors > 0), "incomplete" (tests not
 * measured, or a run that did not finish) or "pass". */
cJSON *report_build(struct inventory *inv, const struct matrix_opts *o,
    int64_t run, struct store *st, bool measuring, int *errors);
/* The terminal's matrices ('--show'): 0 is the default, every measured
 * one of Gbit/s, loss retransmits and RTT, or MTU and ports when a run
 * measured neither. */
enum { SHOW_GBPS = 1, SHOW_RETRANS = 2, SHOW_RTT = 4, SHOW_MTU = 8,
    SHOW_PORTS = 16 };
void report_terminal(const cJSON *doc, bool color, unsigned show);
int report_json(const cJSON *doc, const char *path, char *err);
int report_html(const cJSON *doc, const char *path, char *err);
int report_junit(const cJSON *doc, const char *path, char *err);
int report_prom(const cJSON *doc, const char *path, char *err);
/* report_csv: one line per cell (network, src, dst and its metrics),
 * then one per finding, for spreadsheets. */
int report_csv(const cJSON *doc, const char *path, char *err);

/* compare_run prints 2 to COMPARE_MAX stored runs side by side
 * (compare.c). */
#define COMPARE_MAX 6
int compare_run(const char *db, const int64_t *runs, int n, bool json);

#endif
