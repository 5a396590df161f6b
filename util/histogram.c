/* histogram: log-linear latency histogram, see include/histogram.h. */
#include "histogram.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void
histogram_init(struct hist *h)
{
	memset(h, 0, sizeof(*h));
}

/* Bucket (e, s): e = 0 holds the values 0..HIST_SUB-1 one each; each
 * e >= 1 covers [HIST_SUB << (e-1), HIST_SUB << e) in HIST_SUB steps of
 * 2^(e-1), so a bucket's width is at most 1/HIST_SUB of its values. */
static void
histogram_index(uint64_t v, unsigned *e, unsigned *s)
{
	unsigned b;

	if (v < HIST_SUB) {
		*e = 0;
		*s = (unsigned)v;
		return;
	}
	b = 63 - (unsigned)__builtin_clzll(v);	/* floor(log2 v) >= SUB_BITS */
	*e = b - HIST_SUB_BITS + 1;
	*s = (unsigned)((v >> (*e - 1)) - HIST_SUB);
	/* v >> (e-1) is in [SUB, 2*SUB): s in [0, SUB). */
}

static void
histogram_bounds(unsigned e, unsigned s, uint64_t *lo, uint64_t *hi)
{
	if (e == 0) {
		*lo = s;
		*hi = s + 1;
		return;
	}
	*lo = ((uint64_t)HIST_SUB + s) << (e - 1);
	*hi = *lo + (1ull << (e - 1));
}

void
histogram_add(struct hist *h, uint64_t v)
{
	unsigned e, s;

	if (h->n == 0 || v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
	h->n++;
	h->sum += (double)v;
	h->sumsq += (double)v * (double)v;
	histogram_index(v, &e, &s);
	if (e >= HIST_EXP) {
		h->over++;
		return;
	}
	h->counts[e][s]++;
}

uint64_t
histogram_pct(const struct hist *h, double p)
{
	uint64_t want, seen = 0, lo, hi, mid;
	unsigned e, s;

	if (h->n == 0)
		return 0;
	if (p <= 0)
		return h->min;
	if (p >= 100)
		return h->max;
	want = (uint64_t)ceil(p / 100.0 * (double)h->n);
	if (want == 0)
		want = 1;
	for (e = 0; e < HIST_EXP; e++) {
		for (s = 0; s < HIST_SUB; s++) {
			seen += h->counts[e][s];
			if (seen >= want) {
				histogram_bounds(e, s, &lo, &hi);
				mid = lo + (hi - lo) / 2;
				if (mid < h->min)
					mid = h->min;
				if (mid > h->max)
					mid = h->max;
				return mid;
			}
		}
	}
	return h->max;
}

double
histogram_mean(const struct hist *h)
{
	return h->n ? h->sum / (double)h->n : 0;
}

double
histogram_stddev(const struct hist *h)
{
	double m, v;

	if (h->n < 2)
		return 0;
	m = histogram_mean(h);
	v = h->sumsq / (double)h->n - m * m;
	return v > 0 ? sqrt(v) : 0;
}

void
histogram_merge(struct hist *a, const struct hist *b)
{
	unsigned e, s;

	if (b->n == 0)
		return;
	if (a->n == 0 || b->min < a->min)
		a->min = b->min;
	if (b->max > a->max)
		a->max = b->max;
	a->n += b->n;
	a->sum += b->sum;
	a->sumsq += b->sumsq;
	a->over += b->over;
	for (e = 0; e < HIST_EXP; e++)
		for (s = 0; s < HIST_SUB; s++)
			a->counts[e][s] += b->counts[e][s];
}

cJSON *
histogram_json(const struct hist *h)
{
	cJSON *o = cJSON_CreateObject(), *b;
	uint64_t lo, hi;
	unsigned e, s;

	if (o == NULL)
		return NULL;
	cJSON_AddNumberToObject(o, "count", (double)h->n);
	cJSON_AddNumberToObject(o, "min_us", (double)h->min / 1e3);
	cJSON_AddNumberToObject(o, "p50_us", (double)histogram_pct(h, 50) / 1e3);
	cJSON_AddNumberToObject(o, "p90_us", (double)histogram_pct(h, 90) / 1e3);
	cJSON_AddNumberToObject(o, "p99_us", (double)histogram_pct(h, 99) / 1e3);
	cJSON_AddNumberToObject(o, "p999_us", (double)histogram_pct(h, 99.9) / 1e3);
	cJSON_AddNumberToObject(o, "max_us", (double)h->max / 1e3);
	cJSON_AddNumberToObject(o, "mean_us", histogram_mean(h) / 1e3);
	cJSON_AddNumberToObject(o, "stddev_us", histogram_stddev(h) / 1e3);
	b = cJSON_AddArrayToObject(o, "buckets");
	for (e = 0; e < HIST_EXP; e++) {
		for (s = 0; s < HIST_SUB; s++) {
			cJSON *t;

			if (h->counts[e][s] == 0)
				continue;
			histogram_bounds(e, s, &lo, &hi);
			t = cJSON_CreateArray();
			cJSON_AddItemToArray(t, cJSON_CreateNumber((double)lo));
			cJSON_AddItemToArray(t, cJSON_CreateNumber((double)hi));
			cJSON_AddItemToArray(t,
			    cJSON_CreateNumber(h->counts[e][s]));
			cJSON_AddItemToArray(b, t);
		}
	}
	return o;
}
