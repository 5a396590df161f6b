/* mtusearch: largest passing size by bisection, see include/mtusearch.h. */
#include "mtusearch.h"

uint32_t
mtu_search(uint32_t lo, uint32_t hi, mtu_try_fn try, void *arg,
    unsigned *tries)
{
	uint32_t mid;

	*tries = 1;
	if (hi <= lo || try(arg, hi))
		return hi <= lo ? lo : hi;
	/* Invariant: lo passes, hi fails. */
	while (hi - lo > 1) {
		mid = lo + (hi - lo) / 2;
		(*tries)++;
		if (try(arg, mid))
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}
