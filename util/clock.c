/* clock: the monotonic clock, see clock.h. */
#include "clock.h"

#include <time.h>

static uint64_t
ns_of(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

uint64_t
clock_mono_ns(void)
{
	return ns_of(CLOCK_MONOTONIC);
}

uint64_t
clock_real_ns(void)
{
	return ns_of(CLOCK_REALTIME);
}

double
clock_mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}
