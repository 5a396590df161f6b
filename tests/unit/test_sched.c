/* Unit tests for coordinator/matrix/sched.c: coverage, disjointness, round
 * counts and the rack cap for n = 2..40. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "cf_unit.h"

#include "matrix/matrix_int.h"

static void
check(int n, const int *rack, int cap)
{
	struct sched s;
	int *seen = calloc((size_t)(n * n), sizeof(int));
	int r, k, pairs = 0;

	assert_int_equal(sched_build(&s, n, rack, cap), 0);
	for (r = 0; r < s.nrounds; r++) {
		int *used = calloc((size_t)n, sizeof(int));

		assert_true(s.count[r] <= n / 2);
		for (k = 0; k < s.count[r]; k++) {
			int a = s.round[r][k].a, b = s.round[r][k].b;

			assert_true(a >= 0 && a < b && b < n);
			/* No host twice in a round. */
			assert_int_equal(used[a]++, 0);
			assert_int_equal(used[b]++, 0);
			seen[a * n + b]++;
			pairs++;
		}
		if (rack && cap > 0) {
			int *out = calloc((size_t)n, sizeof(int));

			for (k = 0; k < s.count[r]; k++) {
				int a = s.round[r][k].a, b = s.round[r][k].b;

				if (rack[a] != rack[b]) {
					out[rack[a]]++;
					out[rack[b]]++;
				}
			}
			for (k = 0; k < n; k++)
				assert_true(out[k] <= cap);
			free(out);
		}
		free(used);
	}
	/* Every unordered pair exactly once. */
	for (r = 0; r < n; r++)
		for (k = r + 1; k < n; k++)
			assert_int_equal(seen[r * n + k], 1);
	assert_int_equal(pairs, n * (n - 1) / 2);
	if (rack == NULL || cap <= 0)
		assert_int_equal(s.nrounds, n % 2 ? n : n - 1);
	sched_free(&s);
	free(seen);
}

static void
test_all_sizes(void **state)
{
	int n;

	(void)state;
	for (n = 2; n <= 40; n++)
		check(n, NULL, 0);
}

static void
test_rack_cap(void **state)
{
	int rack[40], n, k;

	(void)state;
	for (n = 4; n <= 40; n += 3) {
		for (k = 0; k < n; k++)
			rack[k] = k % 4;	/* four racks */
		check(n, rack, 1);
		check(n, rack, 2);
	}
}

static void
test_tiny(void **state)
{
	struct sched s;

	(void)state;
	assert_int_equal(sched_build(&s, 1, NULL, 0), 0);
	assert_int_equal(s.nrounds, 0);
	sched_free(&s);
	assert_int_equal(sched_build(&s, 2, NULL, 0), 0);
	assert_int_equal(s.nrounds, 1);
	assert_int_equal(s.count[0], 1);
	sched_free(&s);
}

CF_UNIT_MAIN(NULL, NULL,
    cmocka_unit_test(test_all_sizes), cmocka_unit_test(test_rack_cap),
    cmocka_unit_test(test_tiny))
