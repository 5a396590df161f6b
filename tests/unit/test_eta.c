/* Unit tests for coordinator/matrix/eta.c: the time left of a run is
 * its rounds' time (probes over the concurrency, a bandwidth round at
 * once), learned from what the finished cells took, and a count of cells
 * would read low while the long bandwidth rounds wait at the end. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "cf_unit.h"

#include "matrix/matrix_int.h"

#define NPROBE 12
#define NBW 6

static struct job jobs[NPROBE + NBW];
static struct job *queue[NPROBE + NBW];
static int round_end[5];
static struct matrix_opts opts;
static struct mrun m;

/* A 4-host run: 12 probe cells in one round (latency, MTU, ports), then
 * three bandwidth rounds of two cells, -t 5, concurrency 4. */
static void
setup_run(void)
{
	int k;

	memset(&m, 0, sizeof(m));
	memset(jobs, 0, sizeof(jobs));
	memset(&opts, 0, sizeof(opts));
	opts.secs = 5;
	opts.concurrency = 4;
	for (k = 0; k < NPROBE + NBW; k++) {
		jobs[k].m = &m;
		jobs[k].test = k < NPROBE ? 1 + k % 3 : T_BW;
		queue[k] = &jobs[k];
	}
	round_end[0] = NPROBE;
	round_end[1] = NPROBE + 2;
	round_end[2] = NPROBE + 4;
	round_end[3] = NPROBE + 6;
	round_end[4] = 1 << 30;
	m.o = &opts;
	m.queue = queue;
	m.nq = NPROBE + NBW;
	m.nrounds = 4;
	m.round_end = round_end;
	m.total = m.nq;
}

static void
test_priors(void **state)
{
	(void)state;
	setup_run();
	/* Probes: 12 x 2 s over 4 at once = 6 s; each bandwidth round
	 * 5 + 3 s with its two cells at once: 24 s. */
	assert_true(fabs(matrix_eta(&m, 100) - 30) < 1e-9);
}

static void
test_learned(void **state)
{
	double now = 100, cells_say;
	int k;

	(void)state;
	setup_run();
	/* The probes took half a second each and are done. */
	for (k = 0; k < NPROBE; k++) {
		matrix_eta_learn(&m, &jobs[k], 0.5);
		jobs[k].finished = true;
	}
	assert_true(fabs(matrix_eta(&m, now) - 24) < 1e-9);
	/* By cells: 12 of 18 done in 6 s, so 3 s left; the truth is 24. */
	cells_say = 6.0 / NPROBE * NBW;
	assert_true(matrix_eta(&m, now) > 5 * cells_say);
	/* The first bandwidth round runs, 4 s in, and one cell of it took
	 * 7 s before: 7 - 4 left of it, then two rounds of 7. */
	jobs[NPROBE].t_start = jobs[NPROBE + 1].t_start = now - 4;
	matrix_eta_learn(&m, &jobs[NPROBE], 7);
	assert_true(fabs(matrix_eta(&m, now) - (3 + 14)) < 1e-9);
	/* Late: never less than a fifth of its estimate. */
	assert_true(fabs(matrix_eta(&m, now + 100) - (0.2 * 7 + 14)) < 1e-9);
	/* Everything finished: nothing left. */
	for (k = NPROBE; k < NPROBE + NBW; k++)
		jobs[k].finished = true;
	assert_true(matrix_eta(&m, now) == 0);
}

CF_UNIT_MAIN(NULL, NULL,
    cmocka_unit_test(test_priors), cmocka_unit_test(test_learned))
