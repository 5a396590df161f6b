/*
 * localize: which fabric links explain the bad flows, from the links each
 * measured flow crossed (its traced path) and whether it was bad, see
 * verdict.h.
 *
 * The idea is 007's and NetBouncer's, on one cluster: a flow that lost
 * packets votes for every link on its path, and a flow that crossed a
 * link cleanly speaks for that link. A link that good flows crossed is
 * refuted: a lossy link drops from every flow that crosses it for
 * seconds at full rate, so a clean flow through it says the loss is
 * elsewhere (a tolerance of one clean flow in ten absorbs a flow too
 * short to meet a drop). Among the links no good flow refutes, the one
 * that explains the most bad flows not yet explained is named, then the
 * next, until every bad flow is explained or no link explains two of
 * them: a single bad flow no link explains stays a pair finding (unless
 * the link was named on the run's other network: the same link, which
 * one flow of this network happened to cross). Links
 * that explain exactly the same bad flows and no others cannot be told
 * apart by these flows: each is named with the other as its twin.
 */
#include "verdict/verdict.h"

#include <stdlib.h>
#include <string.h>

/* refuted: more clean flows crossed the link than noise allows. */
static bool
refuted(int bad, int good)
{
	return good * 10 > bad + good;
}

/* crosses: flow f's path has link l. */
static bool
crosses(const struct loc_flow *f, int l)
{
	const int *k = f->links, *end = f->links + f->nlinks;

	while (k < end && *k != l)
		k++;
	return k < end;
}

/* counts: per link, the bad flows not yet explained through it (fresh),
 * all bad and all good flows through it. */
static void
counts(const struct loc_flow *fl, int nf, const unsigned char *expl,
    int nl, int *fresh, int *bad, int *good)
{
	int i, k;

	memset(fresh, 0, sizeof(int) * (size_t)nl);
	memset(bad, 0, sizeof(int) * (size_t)nl);
	memset(good, 0, sizeof(int) * (size_t)nl);
	for (i = 0; i < nf; i++)
		for (k = 0; k < fl[i].nlinks; k++) {
			int l = fl[i].links[k];

			if (l < 0 || l >= nl)
				continue;
			if (!fl[i].bad)
				good[l]++;
			else {
				bad[l]++;
				fresh[l] += !expl[i];
			}
		}
}

/* same_flows: links a and b are crossed by exactly the same bad flows. */
static bool
same_flows(const struct loc_flow *fl, int nf, int a, int b)
{
	int i;

	for (i = 0; i < nf; i++)
		if (fl[i].bad && crosses(&fl[i], a) != crosses(&fl[i], b))
			return false;
	return true;
}

int
localize_links(const struct loc_flow *fl, int nf, int nl,
    const unsigned char *prior, struct loc_blame *out, int cap,
    int *unexplained)
{
	int *fresh = calloc((size_t)nl + 1, sizeof(int));
	int *bad = calloc((size_t)nl + 1, sizeof(int));
	int *good = calloc((size_t)nl + 1, sizeof(int));
	unsigned char *expl = calloc((size_t)nf + 1, 1);
	int n = 0, l, best, i, k;

	if (!fresh || !bad || !good || !expl) {
		n = -1;
		goto out;
	}
	while (n < cap) {
		counts(fl, nf, expl, nl, fresh, bad, good);
		best = -1;
		for (l = 0; l < nl; l++) {
			if (fresh[l] < (prior && prior[l] ? 1 : 2) ||
			    refuted(bad[l], good[l]))
				continue;
			/* More fresh bad flows wins; then fewer clean ones. */
			if (best < 0 || fresh[l] > fresh[best] ||
			    (fresh[l] == fresh[best] && good[l] < good[best]))
				best = l;
		}
		if (best < 0)
			break;
		out[n].link = best;
		out[n].explained = fresh[best];
		out[n].bad = bad[best];
		out[n].good = good[best];
		out[n].twin = -1;
		for (l = 0; l < nl; l++)
			if (l != best && bad[l] == bad[best] &&
			    !refuted(bad[l], good[l]) &&
			    same_flows(fl, nf, l, best)) {
				out[n].twin = l;
				break;
			}
		for (i = 0; i < nf; i++)
			if (fl[i].bad && crosses(&fl[i], best))
				expl[i] = 1;
		n++;
	}
	/* The bad flows no named link explains. */
	for (i = 0, k = 0; i < nf; i++)
		k += fl[i].bad && !expl[i];
	*unexplained = k;
out:
	free(fresh);
	free(bad);
	free(good);
	free(expl);
	return n;
}
