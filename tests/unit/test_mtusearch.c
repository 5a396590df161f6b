/* Unit tests for proto/mtusearch.c on a fake prober. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "cf_unit.h"

#include "mtusearch.h"

struct fake {
	uint32_t limit;		/* largest size that crosses */
	unsigned calls;
};

static int
fake_try(void *arg, uint32_t size)
{
	struct fake *f = arg;

	f->calls++;
	return size <= f->limit;
}

static void
test_all_pass(void **state)
{
	struct fake f = { 9000, 0 };
	unsigned tries;

	(void)state;
	assert_int_equal(mtu_search(576, 9000, fake_try, &f, &tries), 9000);
	assert_int_equal(tries, 1);
	assert_int_equal(f.calls, 1);
}

static void
test_every_limit(void **state)
{
	uint32_t limit;
	unsigned tries;

	(void)state;
	/* Every black-hole size between the floor and jumbo is found, in
	 * at most 1 + log2(range) probes. */
	for (limit = 576; limit < 9000; limit += 7) {
		struct fake f = { limit, 0 };

		assert_int_equal(mtu_search(576, 9000, fake_try, &f, &tries),
		    limit);
		assert_true(tries <= 15);
		assert_int_equal(tries, f.calls);
	}
	{
		struct fake f = { 1500, 0 };

		assert_int_equal(mtu_search(576, 9000, fake_try, &f, &tries),
		    1500);
	}
}

static void
test_degenerate(void **state)
{
	struct fake f = { 600, 0 };
	unsigned tries;

	(void)state;
	assert_int_equal(mtu_search(576, 576, fake_try, &f, &tries), 576);
	assert_int_equal(mtu_search(576, 577, fake_try, &f, &tries), 577);
	f.limit = 576;
	assert_int_equal(mtu_search(576, 577, fake_try, &f, &tries), 576);
}

CF_UNIT_MAIN(NULL, NULL,
    cmocka_unit_test(test_all_pass), cmocka_unit_test(test_every_limit),
    cmocka_unit_test(test_degenerate))
