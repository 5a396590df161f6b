/* eta: how long the rest of a matrix run takes, by time, not by cells:
 * the probes come first and take a second or two each, the bandwidth
 * rounds last and take -t each, so a count of cells read far too low
 * until the end. See matrix_int.h. */
#include "matrix/matrix_int.h"

#include <math.h>

/* prior: what a cell of test t takes before any has finished: a
 * throughput cell its seconds plus the setup and trace, a whole-network
 * job a few seconds, a probe about two. */
static double
prior(const struct mrun *m, const struct job *j)
{
	if (is_tput(j->test) || j->test == T_LATLOAD)
		return m->o->secs + 3;
	if (j->whole)
		return 5;
	return 2;
}

/* job_est: test t's mean duration so far, or its prior. */
static double
job_est(const struct mrun *m, const struct job *j)
{
	int t = j->test, w = j->whole ? 1 : 0;

	if (t >= 0 && t < NTESTS && m->eta_n[w][t] > 0)
		return m->eta_sum[w][t] / m->eta_n[w][t];
	return prior(m, j);
}

void
matrix_eta_learn(struct mrun *m, const struct job *j, double secs)
{
	int w = j->whole ? 1 : 0;

	if (j->test < 0 || j->test >= NTESTS || !(secs >= 0))
		return;
	m->eta_sum[w][j->test] += secs;
	m->eta_n[w][j->test]++;
}

double
matrix_eta(const struct mrun *m, double now)
{
	double total = 0;
	int r, k, first = 0;

	for (r = 0; r < m->nrounds && first < m->nq; r++) {
		int end = m->round_end[r] < m->nq ? m->round_end[r] : m->nq;
		double sum = 0, most = 0;
		bool together = false;

		for (k = first; k < end; k++) {
			const struct job *j = m->queue[k];
			double e, rem;

			if (j->finished)
				continue;
			e = job_est(m, j);
			/* A running cell has what is left of its estimate,
			 * never less than a fifth of it: it is late, not
			 * done. */
			rem = j->t_start > 0 ? fmax(e - (now - j->t_start),
			    0.2 * e) : e;
			sum += rem;
			most = fmax(most, rem);
			together |= is_tput(j->test) || j->test == T_LATLOAD;
		}
		/* A bandwidth round runs all its cells at once; probes
		 * share the concurrency. */
		if (together)
			total += most;
		else if (sum > 0)
			total += fmax(most, sum / (m->o->concurrency > 0 ?
			    m->o->concurrency : 1));
		first = end;
	}
	return total;
}
