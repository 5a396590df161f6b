/* Unit tests for util/histogram.c: percentiles of known distributions within
 * 1 %, bucket edges, merge, JSON. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "cf_unit.h"

#include "histogram.h"

static int
cmp64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Exact percentile of a sorted sample, nearest-rank. */
static uint64_t
exact(const uint64_t *v, size_t n, double p)
{
	size_t k = (size_t)ceil(p / 100.0 * (double)n);

	return v[k ? k - 1 : 0];
}

static void
check_dist(uint64_t *v, size_t n)
{
	static const double ps[] = { 1, 10, 50, 90, 99, 99.9 };
	struct hist *h = malloc(sizeof(*h));
	size_t i;

	histogram_init(h);
	for (i = 0; i < n; i++)
		histogram_add(h, v[i]);
	qsort(v, n, sizeof(*v), cmp64);
	for (i = 0; i < sizeof(ps) / sizeof(ps[0]); i++) {
		double want = (double)exact(v, n, ps[i]);
		double got = (double)histogram_pct(h, ps[i]);

		if (fabs(got - want) > want * 0.01 + 1)
			fail_msg("p%g: got %.0f want %.0f", ps[i], got, want);
	}
	assert_true(histogram_pct(h, 0) == v[0]);
	assert_true(histogram_pct(h, 100) == v[n - 1]);
	assert_true(h->n == n);
	free(h);
}

static void
test_uniform(void **state)
{
	size_t n = 200000, i;
	uint64_t *v = malloc(n * sizeof(*v));

	(void)state;
	srandom(1);
	for (i = 0; i < n; i++)
		v[i] = 20000 + (uint64_t)(random() % 80000);	/* 20-100 us */
	check_dist(v, n);
	free(v);
}

/* A long tail: log-normal RTTs around 50 us with rare millisecond
 * outliers, the shape that p99.9 exists for. */
static void
test_lognormal_tail(void **state)
{
	size_t n = 200000, i;
	uint64_t *v = malloc(n * sizeof(*v));

	(void)state;
	srandom(2);
	for (i = 0; i < n; i++) {
		double u1 = (random() + 1.0) / 2147483649.0;
		double u2 = (random() + 1.0) / 2147483649.0;
		double z = sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);

		v[i] = (uint64_t)(50000 * exp(0.5 * z));
		if (i % 997 == 0)
			v[i] += 3000000;
	}
	check_dist(v, n);
	free(v);
}

static void
test_small_exact_and_stats(void **state)
{
	struct hist *h = malloc(sizeof(*h));
	uint64_t i;

	(void)state;
	histogram_init(h);
	assert_true(histogram_pct(h, 50) == 0);
	for (i = 1; i <= 100; i++)
		histogram_add(h, i);
	/* Values below HIST_SUB have buckets of width 1: exact. */
	assert_true(histogram_pct(h, 50) == 50);
	assert_true(histogram_pct(h, 99) == 99);
	assert_true(h->min == 1 && h->max == 100);
	assert_true(fabs(histogram_mean(h) - 50.5) < 1e-9);
	assert_true(fabs(histogram_stddev(h) - 28.866) < 0.01);
	free(h);
}

static void
test_merge_json(void **state)
{
	struct hist *a = malloc(sizeof(*a)), *b = malloc(sizeof(*b));
	cJSON *j;

	(void)state;
	histogram_init(a);
	histogram_init(b);
	histogram_add(a, 1000);
	histogram_add(b, 5000000);
	histogram_add(b, 1ull << 50);	/* beyond the top: counted, not lost */
	histogram_merge(a, b);
	assert_true(a->n == 3);
	assert_true(a->over == 1);
	assert_true(a->min == 1000);
	j = histogram_json(a);
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(j,
	    "buckets")), 2);
	assert_true(cJSON_GetObjectItem(j, "min_us")->valuedouble == 1.0);
	cJSON_Delete(j);
	free(a);
	free(b);
}

CF_UNIT_MAIN(NULL, NULL,
    cmocka_unit_test(test_uniform), cmocka_unit_test(test_lognormal_tail),
    cmocka_unit_test(test_small_exact_and_stats),
    cmocka_unit_test(test_merge_json))
