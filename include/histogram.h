/*
 * histogram: a log-linear latency histogram in the style of HDR Histogram.
 * Values are nanoseconds; each power of two is split into HIST_SUB linear
 * buckets, so a bucket is at most 1/HIST_SUB of its value wide and every
 * percentile is within 1 % (HIST_SUB = 128: 0.8 %).
 */
#ifndef CF_HIST_H
#define CF_HIST_H

#include <stdint.h>

#include <cjson/cJSON.h>

#define HIST_SUB_BITS 7
#define HIST_SUB (1u << HIST_SUB_BITS)
#define HIST_EXP 40		/* up to 2^46 ns, about 19 hours */

struct hist {
	uint64_t n;
	uint64_t min, max;
	double sum, sumsq;
	uint64_t over;		/* values beyond the top bucket */
	uint32_t counts[HIST_EXP][HIST_SUB];
};

void histogram_init(struct hist *h);
void histogram_add(struct hist *h, uint64_t ns);
/* histogram_pct returns the value at percentile p (0-100), as the middle of its
 * bucket, clamped to [min, max]. 0 for an empty histogram. */
uint64_t histogram_pct(const struct hist *h, double p);
double histogram_mean(const struct hist *h);
double histogram_stddev(const struct hist *h);
/* histogram_merge adds b into a. */
void histogram_merge(struct hist *a, const struct hist *b);
/* histogram_json: summary in microseconds plus the non-empty buckets as
 * [[lower_ns, upper_ns, count], ...]. */
cJSON *histogram_json(const struct hist *h);

#endif
