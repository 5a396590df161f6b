/* Unit tests for proto/tputstat.c: TCP_INFO deltas, the limited-by verdict,
 * Jain's index and UDP loss / duplicate / reorder / jitter arithmetic on
 * crafted sequences. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <math.h>
#include <string.h>
#include <cmocka.h>

#include "cf_unit.h"

#include "tputstat.h"

static void
test_tcp_delta(void **state)
{
	struct tcp_sample a, b;
	struct tcp_delta d;

	(void)state;
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	a.total_retrans = 10;
	a.busy_us = 1000;
	a.rwnd_us = 100;
	b.total_retrans = 25;
	b.busy_us = 3000;
	b.rwnd_us = 100;
	b.sndbuf_us = 7;
	a.dsack_dups = 4;
	b.dsack_dups = 9;
	tputstat_tcp_delta(&a, &b, &d);
	assert_int_equal(d.retrans, 15);
	/* Of the 15, 5 were reported back as duplicates: spurious. */
	assert_int_equal(d.dsack_dups, 5);
	assert_int_equal(d.busy_us, 2000);
	assert_int_equal(d.rwnd_us, 0);
	assert_int_equal(d.sndbuf_us, 7);
	/* A counter that went backwards is a new socket: count from 0. */
	tputstat_tcp_delta(&b, &a, &d);
	assert_int_equal(d.retrans, 10);
	assert_int_equal(d.busy_us, 1000);
	/* No previous sample: the whole value. */
	tputstat_tcp_delta(NULL, &b, &d);
	assert_int_equal(d.retrans, 25);
	assert_int_equal(d.dsack_dups, 9);
}

static void
test_limit(void **state)
{
	(void)state;
	/* Too short to say. */
	assert_int_equal(tputstat_limit(1000, 0, 0, 50000), LIMIT_NONE);
	assert_int_equal(tputstat_limit(0, 0, 0, 10000000), LIMIT_NONE);
	/* Busy all the time, no window or buffer limits: the network. */
	assert_int_equal(tputstat_limit(10000000, 0, 0, 10000000),
	    LIMIT_NETWORK);
	/* 30 % of busy time waiting for the receiver's window. */
	assert_int_equal(tputstat_limit(10000000, 3000000, 0, 10000000),
	    LIMIT_RWND);
	/* Exactly 20 % is not enough. */
	assert_int_equal(tputstat_limit(10000000, 2000000, 0, 10000000),
	    LIMIT_NETWORK);
	assert_int_equal(tputstat_limit(10000000, 0, 5000000, 10000000),
	    LIMIT_SNDBUF);
	/* Both: the larger wins. */
	assert_int_equal(tputstat_limit(10000000, 3000000, 6000000, 10000000),
	    LIMIT_SNDBUF);
	/* Busy a third of the time: the sender was idle (pacing). */
	assert_int_equal(tputstat_limit(3000000, 0, 0, 10000000), LIMIT_APP);
	assert_string_equal(tputstat_limit_name(LIMIT_RWND), "receiver window");
	assert_string_equal(tputstat_limit_name(LIMIT_SNDBUF), "send buffer");
	assert_string_equal(tputstat_limit_name(LIMIT_NETWORK),
	    "congestion/network");
	assert_string_equal(tputstat_limit_key(LIMIT_APP), "app");
}

static void
test_jain(void **state)
{
	double eq[4] = { 5, 5, 5, 5 }, one[4] = { 8, 0, 0, 0 };
	double half[2] = { 3, 1 };

	(void)state;
	assert_true(fabs(tputstat_jain(eq, 4) - 1.0) < 1e-12);
	assert_true(fabs(tputstat_jain(one, 4) - 0.25) < 1e-12);
	/* (3+1)^2 / (2 * (9+1)) = 0.8 */
	assert_true(fabs(tputstat_jain(half, 2) - 0.8) < 1e-12);
	assert_true(tputstat_jain(NULL, 0) == 1.0);
	assert_true(tputstat_jain(one + 1, 3) == 1.0);
}

static void
test_udp_in_order(void **state)
{
	struct udp_rx u;
	uint64_t s;

	(void)state;
	tputstat_udp_rx_init(&u);
	assert_int_equal(tputstat_udp_rx_expected(&u), 0);
	for (s = 0; s < 1000; s++)
		tputstat_udp_rx_packet(&u, s, (int64_t)s * 1000, (int64_t)s * 1000 + 50,
		    100);
	assert_int_equal(tputstat_udp_rx_expected(&u), 1000);
	assert_int_equal(tputstat_udp_rx_lost(&u), 0);
	assert_int_equal(u.dups, 0);
	assert_int_equal(u.reordered, 0);
	assert_int_equal(u.bytes, 100000);
	/* Constant transit: no jitter. */
	assert_true(u.jitter_ns == 0);
}

static void
test_udp_loss_dup_reorder(void **state)
{
	struct udp_rx u;
	uint64_t seqs[] = { 0, 1, 3, 2, 2, 6, 7, 5, 9 };
	size_t i;

	(void)state;
	tputstat_udp_rx_init(&u);
	for (i = 0; i < sizeof(seqs) / sizeof(seqs[0]); i++)
		tputstat_udp_rx_packet(&u, seqs[i], 0, 0, 10);
	/* Expected 0..9 = 10; unique {0,1,2,3,5,6,7,9} = 8; lost 4 and 8. */
	assert_int_equal(tputstat_udp_rx_expected(&u), 10);
	assert_int_equal(u.unique, 8);
	assert_int_equal(tputstat_udp_rx_lost(&u), 2);
	assert_int_equal(u.dups, 1);
	/* 2 after 3, and 5 after 7. */
	assert_int_equal(u.reordered, 2);
	assert_int_equal(u.bytes, 80);
}

/* The duplicate window forgets slots the maximum moves past, so a
 * sequence number reused a window later is new, not a duplicate. */
static void
test_udp_window(void **state)
{
	struct udp_rx u;

	(void)state;
	tputstat_udp_rx_init(&u);
	tputstat_udp_rx_packet(&u, 5, 0, 0, 1);
	tputstat_udp_rx_packet(&u, 5 + UDP_DUP_WINDOW, 0, 0, 1);
	assert_int_equal(u.dups, 0);
	/* 5 is now older than the window: late, not a duplicate. */
	tputstat_udp_rx_packet(&u, 5, 0, 0, 1);
	assert_int_equal(u.dups, 0);
	assert_int_equal(u.late, 1);
	/* 6 + W - 1 is inside the window and new. */
	tputstat_udp_rx_packet(&u, 4 + UDP_DUP_WINDOW, 0, 0, 1);
	assert_int_equal(u.dups, 0);
	tputstat_udp_rx_packet(&u, 4 + UDP_DUP_WINDOW, 0, 0, 1);
	assert_int_equal(u.dups, 1);
}

/* RFC 3550: with transit times alternating by 1 ms, J converges to 1 ms. */
static void
test_udp_jitter(void **state)
{
	struct udp_rx u;
	uint64_t s;

	(void)state;
	tputstat_udp_rx_init(&u);
	for (s = 0; s < 500; s++)
		tputstat_udp_rx_packet(&u, s, (int64_t)s * 10000000,
		    (int64_t)s * 10000000 + (s % 2 ? 1000000 : 0), 1);
	assert_true(fabs(u.jitter_ns - 1000000) < 1000);
	/* One step: J = |D| / 16 after the first difference. */
	tputstat_udp_rx_init(&u);
	tputstat_udp_rx_packet(&u, 0, 0, 100, 1);
	tputstat_udp_rx_packet(&u, 1, 1000, 1100 + 1600, 1);
	assert_true(fabs(u.jitter_ns - 100) < 1e-9);
}

CF_UNIT_MAIN(NULL, NULL,
    cmocka_unit_test(test_tcp_delta), cmocka_unit_test(test_limit),
    cmocka_unit_test(test_jain), cmocka_unit_test(test_udp_in_order),
    cmocka_unit_test(test_udp_loss_dup_reorder),
    cmocka_unit_test(test_udp_window), cmocka_unit_test(test_udp_jitter))
