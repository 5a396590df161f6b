/*
 * mload: the matrix's load modes. 'all-to-all' makes every host send to
 * every other at once (a recovery storm); 'fanout' makes each host send to
 * two hosts in other racks (a size-3 pool's primary -> replica writes).
 * Isolated pairs never show an oversubscribed spine; these do, as each
 * host's aggregate against its line rate. Pure functions on arrays, so
 * synthetic loads test them.
 */
#ifndef CF_MLOAD_H
#define CF_MLOAD_H

#include <cjson/cJSON.h>

#include "verdict/verdict.h"

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
