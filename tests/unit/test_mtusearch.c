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
	uint32_t lose[4];	/* sizes whose first probe is lost */
};

static int
fake_try(void *arg, uint32_t size)
{
	struct fake *f = arg;
	int i;

	f->calls++;
	for (i = 0; i < 4; i++)
		if (f->lose[i] && f->lose[i] == size) {
			f->lose[i] = 0;		/* lost once */
			return 0;
		}
	return size <= f->limit;
}

static void
test_all_pass(void **state)
{
	struct fake f = { 9000, 0, { 0 } };
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
		struct fake f = { limit, 0, { 0 } };

		assert_int_equal(mtu_search(576, 9000, fake_try, &f, &tries),
		    limit);
		/* 1 + log2(range) + the one confirmation. */
		assert_true(tries <= 16);
		assert_int_equal(tries, f.calls);
	}
	{
		struct fake f = { 1500, 0, { 0 } };

		assert_int_equal(mtu_search(576, 9000, fake_try, &f, &tries),
		    1500);
	}
}

static void
test_degenerate(void **state)
{
	struct fake f = { 600, 0, { 0 } };
	unsigned tries;

	(void)state;
	assert_int_equal(mtu_search(576, 576, fake_try, &f, &tries), 576);
	assert_int_equal(mtu_search(576, 577, fake_try, &f, &tries), 577);
	f.limit = 576;
	assert_int_equal(mtu_search(576, 577, fake_try, &f, &tries), 576);
}

/* A lossy path without a black hole: the full size's first probe lost
 * (and, another time, a size the bisection asks) is not a limit. Before
 * the confirmation this read "only 8999 of 9000 cross". */
static void
test_loss_is_not_a_limit(void **state)
{
	unsigned tries;

	(void)state;
	{
		struct fake f = { 9000, 0, { 9000 } };

		assert_int_equal(mtu_search(576, 9000, fake_try, &f, &tries),
		    9000);
	}
	{
		struct fake f = { 9000, 0, { 9000, 4788 } };

		assert_int_equal(mtu_search(576, 9000, fake_try, &f, &tries),
		    9000);
	}
	{
		/* A real limit under loss: still found exactly. */
		struct fake f = { 1500, 0, { 9000, 1500 } };

		assert_int_equal(mtu_search(576, 9000, fake_try, &f, &tries),
		    1500);
	}
}

CF_UNIT_MAIN(NULL, NULL,
    cmocka_unit_test(test_all_pass), cmocka_unit_test(test_every_limit),
    cmocka_unit_test(test_degenerate),
    cmocka_unit_test(test_loss_is_not_a_limit))
