/*
 * buckets: the RTT histogram's bucket bounds (Prometheus's "le"), from
 * 25 us, a fast fabric's round trip, to 1 s, Ceph's heartbeat grace order,
 * and which bucket a round trip falls in. Pure: unit-tested.
 */
#ifndef CF_BUCKETS_H
#define CF_BUCKETS_H

#define MON_BUCKETS 15		/* finite bounds; index MON_BUCKETS: +Inf */

extern const double mon_bucket_le[MON_BUCKETS];	/* seconds */

/* bucket_of: the first bucket whose bound is >= secs (le is inclusive),
 * MON_BUCKETS when none is. */
int bucket_of(double secs);

#endif
