/* mtusearch: largest passing size by bisection, see include/mtusearch.h. */
#include "mtusearch.h"

/* bisect: the largest passing size in [lo, hi], lo known to pass and hi
 * to fail; *fail gets the smallest size seen failing. */
static uint32_t
bisect(uint32_t lo, uint32_t hi, mtu_try_fn try, void *arg, unsigned *tries,
    uint32_t *fail)
{
	uint32_t mid;

	while (hi - lo > 1) {
		mid = lo + (hi - lo) / 2;
		(*tries)++;
		if (try(arg, mid))
			lo = mid;
		else
			hi = mid;
	}
	*fail = hi;
	return lo;
}

uint32_t
mtu_search(uint32_t lo, uint32_t hi, mtu_try_fn try, void *arg,
    unsigned *tries)
{
	uint32_t top = hi, fail;
	int round;

	*tries = 1;
	if (hi <= lo || try(arg, hi))
		return hi <= lo ? lo : hi;
	lo = bisect(lo, hi, try, arg, tries, &fail);
	/* A size too large for the path fails every time; a lost probe (or
	 * its lost answer) fails once. The size the answer rests on, the
	 * smallest seen failing, is asked again: crossing now, the failure
	 * was loss, and the search goes on above it. Without this a lossy
	 * path read as a black hole for the last bytes ("only 8999 of
	 * 9000 cross"). Bounded: a few rounds, one probe more on a real
	 * black hole. */
	for (round = 0; round < MTU_CONFIRM_ROUNDS; round++) {
		(*tries)++;
		if (!try(arg, fail))
			break;
		lo = fail;
		if (lo == top)
			break;
		(*tries)++;
		if (try(arg, top)) {
			lo = top;
			break;
		}
		lo = bisect(lo, top, try, arg, tries, &fail);
	}
	return lo;
}
