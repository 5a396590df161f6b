/*
 * rounds: which pairs test at the same time. The pairwise matrix is a
 * round-robin tournament (circle method): n-1 rounds (n for odd n, one
 * host resting each round), floor(n/2) disjoint pairs per round, every
 * unordered pair exactly once. A rack cap moves inter-rack pairs beyond
 * max_per_rack into extra rounds, so uplinks are not what gets measured.
 */
#ifndef CF_ROUNDS_H
#define CF_ROUNDS_H

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
