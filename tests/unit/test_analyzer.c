/* Unit tests for agent/analyzer.c on crafted packets: the handshake RTT,
 * the data RTT from ACKs when there are no timestamps (and none from a
 * retransmitted segment, Karn), a retransmission, a fast retransmission
 * after two duplicate ACKs, a zero window, and the flow cap. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "cf_unit.h"

#include <arpa/inet.h>

#include "capture/analyzer.h"
#include "probes/trace.h"

#define SYN 0x02
#define ACK 0x10

static uint8_t pkt[128];

/* T: seconds as the analyzer's nanoseconds. */
#define T(s) ((int64_t)((s) * 1e9 + 0.5))

/* mk: an IPv4/TCP packet from A (10.0.0.1:1000) or B (10.0.0.2:6800). */
static size_t
mk(int from_b, uint32_t seq, uint32_t ack, uint8_t flags, uint16_t win,
    uint16_t len)
{
	uint32_t a = htonl(0x0a000001), b = htonl(0x0a000002);
	uint16_t tot = htons((uint16_t)(40 + len));

	memset(pkt, 0, sizeof(pkt));
	pkt[0] = 0x45;
	memcpy(pkt + 2, &tot, 2);
	pkt[8] = 64;
	pkt[9] = 6;
	memcpy(pkt + 12, from_b ? &b : &a, 4);
	memcpy(pkt + 16, from_b ? &a : &b, 4);
	pkt[20] = from_b ? 0x1a : 0x03;	/* ports 6800 / 1000 */
	pkt[21] = from_b ? 0x90 : 0xe8;
	pkt[22] = from_b ? 0x03 : 0x1a;
	pkt[23] = from_b ? 0xe8 : 0x90;
	seq = htonl(seq);
	ack = htonl(ack);
	memcpy(pkt + 24, &seq, 4);
	memcpy(pkt + 28, &ack, 4);
	pkt[32] = 0x50;
	pkt[33] = flags;
	pkt[34] = (uint8_t)(win >> 8);
	pkt[35] = (uint8_t)win;
	return 40;	/* headers only, as captured */
}

static void
test_rtts(void **state)
{
	struct analyzer t;
	struct analyzer_flow *f;

	(void)state;
	assert_int_equal(analyzer_init(&t, 0), 0);
	analyzer_packet(&t, T(1.000), pkt, mk(0, 100, 0, SYN, 1000, 0));
	analyzer_packet(&t, T(1.002), pkt, mk(1, 500, 101, SYN | ACK, 1000, 0));
	f = analyzer_packet(&t, T(1.003), pkt, mk(0, 101, 501, ACK, 1000, 0));
	assert_non_null(f);
	/* SYN to the ACK that completes the handshake. */
	assert_int_equal(f->hs_rtt, 3000000);
	/* 1000 bytes out, ACKed 4 ms later: one sample of 4 ms. */
	analyzer_packet(&t, T(1.010), pkt, mk(0, 101, 501, ACK, 1000, 1000));
	analyzer_packet(&t, T(1.014), pkt, mk(1, 501, 1101, ACK, 1000, 0));
	assert_int_equal(f->d[0].c.rtt_n, 1);
	assert_true(f->d[0].c.rtt_sum > 0.0039 && f->d[0].c.rtt_sum < 0.0041);
	/* Sent, sent again (a retransmission), ACKed: no sample (Karn). */
	analyzer_packet(&t, T(1.020), pkt, mk(0, 1101, 501, ACK, 1000, 1000));
	analyzer_packet(&t, T(1.300), pkt, mk(0, 1101, 501, ACK, 1000, 1000));
	analyzer_packet(&t, T(1.301), pkt, mk(1, 501, 2101, ACK, 1000, 0));
	assert_int_equal(f->d[0].c.retrans, 1);
	assert_int_equal(f->d[0].c.rtt_n, 1);
	assert_int_equal(f->d[0].c.segments, 5);
	assert_int_equal(f->d[0].c.bytes, 3000);
	analyzer_free(&t);
}

/* At today's times since the epoch (1.8e9 s), a 17 us handshake and a
 * segment that fills a hole exactly 17 us after the highest one: tshark
 * compares integer times, finds 17 us not below the 17 us threshold, and
 * calls it a retransmission. In double seconds the handshake read
 * 17.17 us and the same segment came out out-of-order. */
static void
test_threshold_exact(void **state)
{
	const int64_t t0 = 1800000000LL * 1000000000LL + 123456789;
	struct analyzer t;
	struct analyzer_flow *f;

	(void)state;
	assert_int_equal(analyzer_init(&t, 0), 0);
	analyzer_packet(&t, t0, pkt, mk(0, 100, 0, SYN, 1000, 0));
	analyzer_packet(&t, t0 + 8000, pkt, mk(1, 500, 101, SYN | ACK, 1000, 0));
	f = analyzer_packet(&t, t0 + 17000, pkt, mk(0, 101, 501, ACK, 1000, 0));
	assert_non_null(f);
	assert_int_equal(f->hs_rtt, 17000);
	/* 101..1101 and 2101..3101 sent, 1101..2101 missing (lost). */
	analyzer_packet(&t, t0 + 100000, pkt, mk(0, 101, 501, ACK, 1000, 1000));
	analyzer_packet(&t, t0 + 200000, pkt, mk(0, 2101, 501, ACK, 1000,
	    1000));
	/* The hole, exactly one handshake RTT after 2101 was sent. */
	analyzer_packet(&t, t0 + 217000, pkt, mk(0, 1101, 501, ACK, 1000,
	    1000));
	assert_int_equal(f->d[0].c.ooo, 0);
	assert_int_equal(f->d[0].c.retrans, 1);
	/* One nanosecond earlier it is out of order, as tshark says. */
	analyzer_packet(&t, t0 + 300000, pkt, mk(0, 4101, 501, ACK, 1000,
	    1000));
	analyzer_packet(&t, t0 + 316999, pkt, mk(0, 3101, 501, ACK, 1000,
	    1000));
	assert_int_equal(f->d[0].c.ooo, 1);
	assert_int_equal(f->d[0].c.retrans, 1);
	analyzer_free(&t);
}

/* tracer: the path tracer's probe of A's flow, as agent/probes/trace.c
 * sends it: no payload, a random sequence number, the marker option. */
static size_t
tracer(uint32_t seq, bool marked)
{
	size_t len = mk(0, seq, 0, ACK, 512, 0);
	uint16_t tot = htons(44);

	if (!marked)
		return len;
	memcpy(pkt + 2, &tot, 2);
	pkt[32] = 0x60;		/* 24-byte header */
	pkt[40] = TRACE_OPT_KIND;
	pkt[41] = 4;
	pkt[42] = TRACE_OPT_EXID >> 8;
	pkt[43] = TRACE_OPT_EXID & 0xff;
	return 44;
}

/* The tracer's probes in the middle of a flow (a sequence number far
 * ahead of the flow's): not the flow's segments, so no retransmission
 * of the data after them. Unmarked, the same probe moved the flow's next
 * sequence and every later segment read as retransmitted: the count
 * watch and the cutover's settle gate showed as 84 % retransmits. */
static void
test_tracer_probes(void **state)
{
	struct analyzer t;
	struct analyzer_flow *f = NULL;
	uint32_t seq = 1;
	int k, i;

	(void)state;
	for (k = 0; k < 2; k++) {
		assert_int_equal(analyzer_init(&t, 0), 0);
		seq = 1;
		for (i = 0; i < 20; i++) {
			f = analyzer_packet(&t, T(1.0 + i * 0.001), pkt, mk(0, seq,
			    1, ACK, 1000, 1000));
			seq += 1000;
			if (i == 5 || i == 6)
				analyzer_packet(&t, 1.0 + i * 0.001 + 0.0001,
				    pkt, tracer(0x80000000u | (uint32_t)i,
				    k == 0));
		}
		assert_non_null(f);
		if (k == 0) {
			assert_int_equal(f->d[0].c.retrans, 0);
			assert_int_equal(f->d[0].c.ooo, 0);
			assert_int_equal(f->d[0].c.segments, 20);
			assert_int_equal(t.tracer, 2);
		} else {
			/* What an unmarked probe does: why it is marked. */
			assert_true(f->d[0].c.retrans + f->d[0].c.ooo >= 10);
		}
		analyzer_free(&t);
	}
}

static void
test_fast_and_zero_window(void **state)
{
	struct analyzer t;
	struct analyzer_flow *f;

	(void)state;
	assert_int_equal(analyzer_init(&t, 0), 0);
	analyzer_packet(&t, T(1.0), pkt, mk(0, 1, 1, ACK, 1000, 1000));
	analyzer_packet(&t, T(1.0001), pkt, mk(0, 1001, 1, ACK, 1000, 1000));
	analyzer_packet(&t, T(1.0002), pkt, mk(0, 2001, 1, ACK, 1000, 1000));
	/* 1001 lost: B acks 1001 three times (two duplicates). */
	analyzer_packet(&t, T(1.01), pkt, mk(1, 1, 1001, ACK, 1000, 0));
	analyzer_packet(&t, T(1.011), pkt, mk(1, 1, 1001, ACK, 1000, 0));
	analyzer_packet(&t, T(1.012), pkt, mk(1, 1, 1001, ACK, 1000, 0));
	f = analyzer_packet(&t, T(1.015), pkt, mk(0, 1001, 1, ACK, 1000, 1000));
	assert_int_equal(f->d[1].c.dup_acks, 2);
	assert_int_equal(f->d[0].c.fast_retrans, 1);
	assert_int_equal(f->d[0].c.retrans, 1);
	/* B's window closes. */
	analyzer_packet(&t, T(1.02), pkt, mk(1, 1, 3001, ACK, 0, 0));
	assert_int_equal(f->d[1].c.zero_window, 1);
	analyzer_free(&t);
}

static void
test_cap(void **state)
{
	struct analyzer t;
	uint32_t i;

	(void)state;
	assert_int_equal(analyzer_init(&t, 8), 0);
	for (i = 0; i < 100; i++) {
		mk(0, 1, 0, SYN, 1000, 0);
		pkt[20] = (uint8_t)(i >> 8);	/* a new source port each */
		pkt[21] = (uint8_t)i;
		analyzer_packet(&t, T(1.0 + i), pkt, 40);
	}
	assert_int_equal(t.nflows, 8);
	assert_int_equal(t.evicted, 92);
	/* Too short or not TCP: counted, not analyzed. */
	assert_null(analyzer_packet(&t, T(2.0), pkt, 30));
	pkt[9] = 17;
	assert_null(analyzer_packet(&t, T(2.0), pkt, 40));
	assert_int_equal(t.truncated + t.non_tcp, 2);
	analyzer_free(&t);
}

/* The capture ring follows the link: 200 ms of full-size frames' headers,
 * within its floor and ceiling. */
static void
test_ring(void **state)
{
	size_t r10, r25;

	(void)state;
	/* Unknown speed (veth, down link) and slow links: the floor. */
	assert_int_equal(analyzer_ring_bytes(-1, 128), 16u << 20);
	assert_int_equal(analyzer_ring_bytes(0, 128), 16u << 20);
	assert_int_equal(analyzer_ring_bytes(1000, 128), 16u << 20);
	/* 10G: 812,744 frames/s x 176 bytes x 0.2 s = 28.6 MB. */
	r10 = analyzer_ring_bytes(10000, 128);
	assert_true(r10 > 28000000 && r10 < 29000000);
	/* 25G: 2.5 times as much; a larger snaplen costs more. */
	r25 = analyzer_ring_bytes(25000, 128);
	assert_true(r25 > r10 * 24 / 10 && r25 < r10 * 26 / 10);
	assert_true(analyzer_ring_bytes(25000, 256) > r25);
	/* 100G and a bond of two: the ceiling. */
	assert_int_equal(analyzer_ring_bytes(100000, 128), 128u << 20);
	assert_int_equal(analyzer_ring_bytes(200000, 128), 128u << 20);
}

/* The flow hash is the same both ways and keyed per analyzer: one
 * analyzer cannot be aimed at another's buckets, and a sender's choice of
 * ports spreads (the old unkeyed XOR put every flow with equal ends in
 * bucket 0). A coordinator asking for more flows than the cap gets the
 * cap. */
static void
test_hash_keyed(void **state)
{
	struct analyzer t, u;
	struct netaddr a, b;
	int i, differ = 0, zero = 0;

	(void)state;
	assert_int_equal(analyzer_init(&t, 10000000), 0);
	assert_int_equal(t.cap, ANALYZER_MAX_FLOWS);
	assert_int_equal(analyzer_init(&u, 0), 0);
	netaddr_parse("10.0.0.1", &a);
	netaddr_parse("10.0.0.2", &b);
	for (i = 0; i < 64; i++) {
		uint16_t p = (uint16_t)(40000 + i);

		assert_int_equal(analyzer_hash(&t, &a, p, &b, 6800),
		    analyzer_hash(&t, &b, 6800, &a, p));
		differ += analyzer_hash(&t, &a, p, &b, 6800) !=
		    analyzer_hash(&u, &a, p, &b, 6800);
		zero += analyzer_hash(&t, &a, p, &a, p) == 0;
	}
	assert_true(differ >= 60);
	assert_true(zero < 2);
	analyzer_free(&t);
	analyzer_free(&u);
}

CF_UNIT_MAIN(NULL, NULL,
    cmocka_unit_test(test_rtts), cmocka_unit_test(test_tracer_probes),
    cmocka_unit_test(test_threshold_exact),
    cmocka_unit_test(test_fast_and_zero_window),
    cmocka_unit_test(test_cap), cmocka_unit_test(test_ring),
    cmocka_unit_test(test_hash_keyed))
