/* buckets: the RTT histogram's bounds, see buckets.h. */
#include "monitor/buckets.h"

const double mon_bucket_le[MON_BUCKETS] = { 25e-6, 50e-6, 100e-6, 250e-6,
    500e-6, 1e-3, 2.5e-3, 5e-3, 10e-3, 25e-3, 50e-3, 100e-3, 250e-3,
    500e-3, 1 };

int
bucket_of(double secs)
{
	int b;

	for (b = 0; b < MON_BUCKETS && !(secs <= mon_bucket_le[b]); b++)
		;
	return b;
}
