#ifndef CF_MATRIX_MATRIX_INT_H
#define CF_MATRIX_MATRIX_INT_H

#include <stdbool.h>
#include <sys/types.h>
#include <cjson/cJSON.h>
#include <ev.h>

#include "core/core.h"
#include "matrix/matrix.h"
#include "store/store.h"

/*
 * matrix_int: what matrix.c and matrix_job.c share: the test indexes, a cell's
 * job and the state of one run.
 */
/* Test indexes, named by matrix_test_names (matrix.c). */
#define NTESTS 9
#define T_BW 0
#define T_A2A 4
#define T_FANOUT 5
#define T_LATLOAD 6
#define T_FACTS 7
#define T_CEPHHB 8

/* Streams each way of a retest (matrix_job.c): with two ECMP members, the
 * chance that eight flows all hash onto one is 1 in 128. */
#define RETEST_STREAMS 8

/* is_tput: a throughput cell, which a round runs all at once. */
static inline bool
is_tput(int test)
{
	return test == T_BW || test == T_A2A || test == T_FANOUT;
}

struct job {
	struct mrun *m;
	int net, test;			/* test: index into test_names */
	int a, b;
	bool retest;
	bool mesh;			/* the whole network's latency at once */
	bool whole;			/* one job for all hosts (mesh, facts):
					   the child stores its cells */
	pid_t pid;
	int fd;
	ev_io rw;
	ev_child cw;
	char *out;
	size_t len, cap;
	bool eof, exited;
	int status;
	double t_start;			/* when it started, 0 before */
	uint64_t pace;			/* a bandwidth cell's rate each way,
					   bits/s (0: unpaced) */
	ev_timer retry_w;		/* refused busy: runs again then */
	bool finished;			/* stored (or skipped) */
};

struct mrun {
	struct ev_loop *loop;
	const struct matrix_opts *o;
	struct inventory *inv;
	struct inv_host **h;
	int n;
	struct store st;
	int64_t run;
	cJSON *stored;			/* cells already in the DB */
	struct job **queue;		/* probe jobs, then rounds */
	int nq, next;			/* next job to start */
	int *round_end;			/* jobs of round r end at this index */
	int nrounds;			/* entries before the sentinel */
	int running, done, total;
	int waiting;			/* cells waiting for a busy agent */
	int busy_said;			/* such waits said on stderr */
	int planned;			/* cells a complete run stores (a fresh
					   run's plan; retests replace cells) */
	bool interrupted;
	bool oom;			/* planning ran out of memory */
	double t0;
	double load_at;			/* START time of the running load */
	ev_signal sigint_w, sigterm_w;
	ev_idle pump_w;			/* pump deferred, never re-entered */
	unsigned char *mtu_bad;		/* [net][a][b]: a black hole */
	bool mtu_known;
	unsigned char *stored_idx;	/* [net][test][a][b]: in the DB */
	char **dead;			/* [host]: why its agent does not
					   answer, NULL when it does */
	/* [host]: its agent's limits (0: none, or not said): the plan
	 * paces and fits the bandwidth cells within them. */
	uint64_t *lim_rate;
	unsigned *lim_streams;
	double *lim_secs;
	/* What the cells that ran took, per kind ([whole][test]): the
	 * progress's estimate of what is left (eta.c). */
	double eta_sum[2][NTESTS];
	int eta_n[2][NTESTS];
};

static inline const char *
net_name(int net)
{
	return net ? "cluster" : "public";
}

extern const char *const matrix_test_names[];

/* matrix_plan.c: matrix_plan queues the run's cells in rounds (what is
 * stored already is skipped; m->oom on failure); matrix_retest_plan
 * queues the cells to measure again alone and returns how many;
 * matrix_stored_index indexes the cells a resumed run has stored. */
void matrix_plan(struct mrun *m);
int matrix_retest_plan(struct mrun *m);
void matrix_stored_index(struct mrun *m);

/* matrix_preflight.c: matrix_preflight asks every agent for its status
 * at once, reads their limits, waits for agents another coordinator
 * holds (or, --no-wait, returns -1: the run must not start), and says
 * once on stderr which do not answer (m->dead); returns how many. matrix_dead_cell stores job j as lost when one of its agents
 * does not answer, and says whether it did; matrix_preflight_free. */
int matrix_preflight(struct mrun *m);
bool matrix_dead_cell(struct mrun *m, const struct job *j);
void matrix_preflight_free(struct mrun *m);

/* eta.c: matrix_eta is the seconds the rest of the run should take at
 * now: each round's unfinished cells at what their kind has taken so far
 * (or a prior), a bandwidth round's cells at once, probes over the
 * concurrency; matrix_eta_learn records that job j took secs. */
double matrix_eta(const struct mrun *m, double now);
void matrix_eta_learn(struct mrun *m, const struct job *j, double secs);

/* matrix_job_argv: the child command line that measures job j ('cephfab ...
 * --json'); strings it makes live in bufs. */
void matrix_job_argv(struct job *j, char **argv, char bufs[8][32]);

/*
 * rounds: which pairs test at the same time. The pairwise matrix is a
 * round-robin tournament (circle method): n-1 rounds (n for odd n, one
 * host resting each round), floor(n/2) disjoint pairs per round, every
 * unordered pair exactly once. A rack cap moves inter-rack pairs beyond
 * max_per_rack into extra rounds, so uplinks are not what gets measured.
 */
struct sched_pair {
	int a, b;
};

struct sched {
	int nrounds;
	int *count;			/* pairs in each round */
	struct sched_pair **round;	/* round[r][k] */
};

/* sched_build: n hosts, rack[i] an id per host (NULL: one rack),
 * max_per_rack 0 for no cap: at most that many inter-rack pairs leave any
 * one rack in a round. Returns 0 or -1 (out of memory). */
int sched_build(struct sched *s, int n, const int *rack, int max_per_rack);
void sched_free(struct sched *s);

#endif
