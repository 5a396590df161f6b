/*
 * matrix_int: what matrix.c and mjob.c share: the test indexes, a cell's
 * job and the state of one run.
 */
#ifndef CF_MATRIX_INT_H
#define CF_MATRIX_INT_H

#include <stdbool.h>
#include <sys/types.h>

#include <cjson/cJSON.h>
#include <ev.h>

#include "core/inventory.h"
#include "matrix/matrix.h"
#include "store/store.h"

/* Test indexes, named by test_names in matrix.c. */
#define NTESTS 9
#define T_BW 0
#define T_A2A 4
#define T_FANOUT 5
#define T_LATLOAD 6
#define T_FACTS 7
#define T_CEPHHB 8

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
	bool interrupted;
	bool oom;			/* planning ran out of memory */
	double t0;
	double load_at;			/* START time of the running load */
	ev_signal sigint_w, sigterm_w;
	unsigned char *mtu_bad;		/* [net][a][b]: a black hole */
	bool mtu_known;
	unsigned char *stored_idx;	/* [net][test][a][b]: in the DB */
};

static inline const char *
net_name(int net)
{
	return net ? "cluster" : "public";
}

/* matrix_job_argv: the child command line that measures job j ('cephfab ...
 * --json'); strings it makes live in bufs. */
void matrix_job_argv(struct job *j, char **argv, char bufs[8][32]);

#endif
