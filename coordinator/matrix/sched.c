/* sched: circle-method rounds with a rack cap, see matrix_int.h. */
#include "matrix/matrix_int.h"

#include <stdlib.h>
#include <string.h>

static int
sched_add_round(struct sched *s, int cap)
{
	struct sched_pair **r = realloc(s->round, (size_t)(s->nrounds + 1) *
	    sizeof(*r));
	int *c;

	if (r == NULL)
		return -1;
	s->round = r;
	c = realloc(s->count, (size_t)(s->nrounds + 1) * sizeof(*c));
	if (c == NULL)
		return -1;
	s->count = c;
	s->round[s->nrounds] = calloc((size_t)cap, sizeof(struct sched_pair));
	if (s->round[s->nrounds] == NULL)
		return -1;
	s->count[s->nrounds] = 0;
	s->nrounds++;
	return 0;
}

/* fits: may pair (a, b) join round r under the rack cap? */
static int
fits(const struct sched *s, int r, const int *rack, int max, int a, int b)
{
	int k, ra = 0, rb = 0;

	if (rack == NULL || max <= 0 || rack[a] == rack[b])
		return 1;
	for (k = 0; k < s->count[r]; k++) {
		const struct sched_pair *p = &s->round[r][k];

		if (rack[p->a] == rack[p->b])
			continue;
		if (rack[p->a] == rack[a] || rack[p->b] == rack[a])
			ra++;
		if (rack[p->a] == rack[b] || rack[p->b] == rack[b])
			rb++;
	}
	return ra < max && rb < max;
}

static int
busy(const struct sched *s, int r, int h)
{
	int k;

	for (k = 0; k < s->count[r]; k++)
		if (s->round[r][k].a == h || s->round[r][k].b == h)
			return 1;
	return 0;
}

int
sched_build(struct sched *s, int n, const int *rack, int max_per_rack)
{
	int m = n % 2 ? n + 1 : n;	/* a ghost host for odd n */
	int *pos, r, k, cap = n / 2 > 0 ? n / 2 : 1;

	memset(s, 0, sizeof(*s));
	if (n < 2)
		return 0;
	pos = malloc((size_t)m * sizeof(*pos));
	if (pos == NULL)
		return -1;
	for (k = 0; k < m; k++)
		pos[k] = k;
	for (r = 0; r < m - 1; r++) {
		int first = -1;

		/* Circle method: pos[0] fixed, the others rotate. */
		for (k = 0; k < m / 2; k++) {
			int a = pos[k], b = pos[m - 1 - k], rr, placed = 0;

			if (a >= n || b >= n)
				continue;	/* the ghost: a bye */
			if (first == -1) {
				if (sched_add_round(s, cap) == -1)
					goto oom;
				first = s->nrounds - 1;
			}
			/* The pair goes to its round, or to the first later
			 * round where the rack cap and host use allow. */
			for (rr = first; rr < s->nrounds && !placed; rr++) {
				if (busy(s, rr, a) || busy(s, rr, b) ||
				    !fits(s, rr, rack, max_per_rack, a, b))
					continue;
				s->round[rr][s->count[rr]++] =
				    (struct sched_pair){ a < b ? a : b,
				    a < b ? b : a };
				placed = 1;
			}
			if (!placed) {
				if (sched_add_round(s, cap) == -1)
					goto oom;
				rr = s->nrounds - 1;
				s->round[rr][s->count[rr]++] =
				    (struct sched_pair){ a < b ? a : b,
				    a < b ? b : a };
			}
		}
		/* Rotate positions 1..m-1 by one. */
		{
			int last = pos[m - 1];

			memmove(pos + 2, pos + 1, (size_t)(m - 2) *
			    sizeof(*pos));
			pos[1] = last;
		}
	}
	free(pos);
	return 0;
oom:
	free(pos);
	sched_free(s);
	return -1;
}

void
sched_free(struct sched *s)
{
	int r;

	for (r = 0; r < s->nrounds; r++)
		free(s->round[r]);
	free(s->round);
	free(s->count);
	memset(s, 0, sizeof(*s));
}
