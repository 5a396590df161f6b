/* Unit tests for agent/probes/trace.c's answer matching: an ICMP (or
 * ICMPv6) time-exceeded quoting one of the flows' probes records that
 * hop; anything else, truncated or not quoting a probe of ours (another
 * flow's ports, another trace's nonce, a TTL out of range), records
 * nothing. And trace_mtu.c's: a time-exceeded or too-big quoting one of
 * its probes records where the small and the large ones got. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "cf_unit.h"

#include "probes/trace.h"
#include "probes/trace_mtu.h"

#include <netinet/icmp6.h>
#include <netinet/ip_icmp.h>

static struct trace_flow fl[2];
static uint32_t nonce[2] = { 0xabcd1200u, 0x55aa7700u };

static void
setup_flows(int family)
{
	memset(fl, 0, sizeof(fl));
	if (family == AF_INET) {
		netaddr_parse("10.1.1.11", &fl[0].src);
		netaddr_parse("10.1.2.11", &fl[0].dst);
	} else {
		netaddr_parse("fd00::11", &fl[0].src);
		netaddr_parse("fd00:2::11", &fl[0].dst);
	}
	fl[1] = fl[0];
	fl[0].sport = 40000;
	fl[0].dport = 5201;
	fl[1].sport = 40001;
	fl[1].dport = 5201;
}

/* v4: outer IP (20) + ICMP (8) + inner IP (20) + TCP's first 8 bytes. */
static size_t
icmp4(uint8_t *b, int type, const struct trace_flow *f, uint32_t seq)
{
	memset(b, 0, 64);
	b[0] = 0x45;
	b[9] = 1;
	b[20] = (uint8_t)type;
	b[28] = 0x45;
	b[37] = 6;
	memcpy(b + 40, &f->src.u.v4, 4);
	memcpy(b + 44, &f->dst.u.v4, 4);
	b[48] = (uint8_t)(f->sport >> 8);
	b[49] = (uint8_t)f->sport;
	b[50] = (uint8_t)(f->dport >> 8);
	b[51] = (uint8_t)f->dport;
	b[52] = (uint8_t)(seq >> 24);
	b[53] = (uint8_t)(seq >> 16);
	b[54] = (uint8_t)(seq >> 8);
	b[55] = (uint8_t)seq;
	return 56;
}

static void
test_v4_hop(void **state)
{
	struct netaddr from;
	uint8_t b[64];
	char s[64];

	(void)state;
	setup_flows(AF_INET);
	netaddr_parse("10.0.200.0", &from);
	assert_int_equal(trace_icmp_match(fl, 2, nonce, AF_INET, b,
	    icmp4(b, 11, &fl[1], nonce[1] | 2), &from), 1);
	assert_int_equal(fl[1].nhops, 2);
	assert_string_equal(netaddr_str(&fl[1].hop[1], s, sizeof(s)),
	    "10.0.200.0");
	assert_int_equal(fl[0].nhops, 0);
	assert_int_equal(fl[1].hop[0].family, 0);
}

static void
test_v4_rejects(void **state)
{
	struct netaddr from;
	uint8_t b[64];
	size_t n;

	(void)state;
	setup_flows(AF_INET);
	netaddr_parse("10.0.200.0", &from);
	/* Not time-exceeded (an unreachable). */
	assert_int_equal(trace_icmp_match(fl, 2, nonce, AF_INET, b,
	    icmp4(b, 3, &fl[0], nonce[0] | 1), &from), -1);
	/* Another trace's nonce. */
	assert_int_equal(trace_icmp_match(fl, 2, nonce, AF_INET, b,
	    icmp4(b, 11, &fl[0], nonce[1] | 1), &from), -1);
	/* TTL 0 and a TTL past the last hop we send. */
	assert_int_equal(trace_icmp_match(fl, 2, nonce, AF_INET, b,
	    icmp4(b, 11, &fl[0], nonce[0]), &from), -1);
	assert_int_equal(trace_icmp_match(fl, 2, nonce, AF_INET, b,
	    icmp4(b, 11, &fl[0], nonce[0] | 200), &from), -1);
	/* Every truncation of a good answer. */
	n = icmp4(b, 11, &fl[0], nonce[0] | 1);
	while (--n > 0)
		assert_int_equal(trace_icmp_match(fl, 2, nonce, AF_INET, b, n,
		    &from), -1);
	/* A header length that points past the packet. */
	icmp4(b, 11, &fl[0], nonce[0] | 1);
	b[0] = 0x4f;
	assert_int_equal(trace_icmp_match(fl, 2, nonce, AF_INET, b, 56,
	    &from), -1);
	assert_int_equal(fl[0].nhops, 0);
}

static void
test_v6_hop(void **state)
{
	struct netaddr from;
	uint8_t b[64];
	char s[64];
	uint32_t seq = nonce[0] | 3;

	(void)state;
	setup_flows(AF_INET6);
	netaddr_parse("fd00:200::1", &from);
	memset(b, 0, sizeof(b));
	b[0] = 3;			/* ICMPv6 time exceeded */
	b[8] = 0x60;
	b[14] = 6;
	memcpy(b + 16, &fl[0].src.u.v6, 16);
	memcpy(b + 32, &fl[0].dst.u.v6, 16);
	b[48] = (uint8_t)(fl[0].sport >> 8);
	b[49] = (uint8_t)fl[0].sport;
	b[50] = (uint8_t)(fl[0].dport >> 8);
	b[51] = (uint8_t)fl[0].dport;
	b[52] = (uint8_t)(seq >> 24);
	b[53] = (uint8_t)(seq >> 16);
	b[54] = (uint8_t)(seq >> 8);
	b[55] = (uint8_t)seq;
	assert_int_equal(trace_icmp_match(fl, 2, nonce, AF_INET6, b, 56,
	    &from), 0);
	assert_int_equal(fl[0].nhops, 3);
	assert_string_equal(netaddr_str(&fl[0].hop[2], s, sizeof(s)),
	    "fd00:200::1");
	assert_int_equal(trace_icmp_match(fl, 2, nonce, AF_INET6, b, 55,
	    &from), -1);
}

/* A flow with nothing traced says so; one with hops lists them, a silent
 * hop as null. */
static void
test_json(void **state)
{
	cJSON *j;
	char *s;

	(void)state;
	setup_flows(AF_INET);
	snprintf(fl[0].err, sizeof(fl[0].err), "raw socket: Operation not "
	    "permitted");
	j = trace_json(&fl[0]);
	s = cJSON_PrintUnformatted(j);
	assert_string_equal(s, "{\"error\":\"raw socket: Operation not "
	    "permitted\"}");
	cJSON_free(s);
	cJSON_Delete(j);
	snprintf(fl[1].egress, sizeof(fl[1].egress), "clu");
	netaddr_parse("10.1.1.1", &fl[1].hop[0]);
	netaddr_parse("10.0.200.5", &fl[1].hop[2]);
	fl[1].nhops = 3;
	j = trace_json(&fl[1]);
	s = cJSON_PrintUnformatted(j);
	assert_string_equal(s, "{\"egress_if\":\"clu\",\"hops\":"
	    "[\"10.1.1.1\",null,\"10.0.200.5\"]}");
	cJSON_free(s);
	cJSON_Delete(j);
}

/* The MTU trace's probes: a header like the probes' own, "CFP1", flags,
 * then the sequence number at bytes 8..15. */
static void
mfill(void *arg, uint8_t *b, uint64_t seq)
{
	int i;

	(void)arg;
	memcpy(b, "CFP1\0\0\0\1", 8);
	for (i = 0; i < 8; i++)
		b[8 + i] = (uint8_t)(seq >> (56 - 8 * i));
}

static size_t
mquote(uint8_t *b, int big, int ttl)
{
	memset(b, 0, 32);
	mfill(NULL, b, 0x43464d5400000000ull | (uint64_t)big << 8 |
	    (uint64_t)ttl);
	return 24;
}

static void
test_mtu_match(void **state)
{
	struct trace_mtu r;
	struct netaddr a, b6;
	uint8_t q[32];
	size_t n;
	cJSON *j;
	char *txt;

	(void)state;
	memset(&r, 0, sizeof(r));
	netaddr_parse("198.19.200.0", &a);
	n = mquote(q, 0, 2);
	/* A small probe's time-exceeded at TTL 2: that hop. */
	assert_int_equal(trace_mtu_err(&r, AF_INET, ICMP_TIME_EXCEEDED,
	    ICMP_EXC_TTL, 0, &a, q, n, mfill, NULL), 1);
	assert_int_equal(r.nhops, 2);
	assert_true(netaddr_equal(&r.hop[1], &a));
	assert_int_equal(r.reached, 0);
	/* A large one's at TTL 1: it got that far. */
	n = mquote(q, 1, 1);
	assert_int_equal(trace_mtu_err(&r, AF_INET, ICMP_TIME_EXCEEDED,
	    ICMP_EXC_TTL, 0, &a, q, n, mfill, NULL), 1);
	assert_int_equal(r.reached, 1);
	/* Too big, for a large probe: who said so and what it forwards. */
	n = mquote(q, 1, 3);
	assert_int_equal(trace_mtu_err(&r, AF_INET, ICMP_DEST_UNREACH,
	    ICMP_FRAG_NEEDED, 1500, &a, q, n, mfill, NULL), 1);
	assert_int_equal(r.next_mtu, 1500);
	assert_true(netaddr_equal(&r.too_big_from, &a));
	assert_int_equal(r.reached, 1);
	/* Nothing else counts: a small probe "too big", a port unreachable,
	 * a quote too short, a TTL out of range, another header. */
	n = mquote(q, 0, 3);
	assert_int_equal(trace_mtu_err(&r, AF_INET, ICMP_DEST_UNREACH,
	    ICMP_FRAG_NEEDED, 1400, &a, q, n, mfill, NULL), 0);
	assert_int_equal(trace_mtu_err(&r, AF_INET, ICMP_DEST_UNREACH,
	    ICMP_PORT_UNREACH, 0, &a, q, n, mfill, NULL), 0);
	assert_int_equal(trace_mtu_err(&r, AF_INET, ICMP_TIME_EXCEEDED,
	    ICMP_EXC_TTL, 0, &a, q, 15, mfill, NULL), 0);
	n = mquote(q, 0, TRACE_MAX_HOPS + 1);
	assert_int_equal(trace_mtu_err(&r, AF_INET, ICMP_TIME_EXCEEDED,
	    ICMP_EXC_TTL, 0, &a, q, n, mfill, NULL), 0);
	n = mquote(q, 0, 4);
	q[0] = 'X';
	assert_int_equal(trace_mtu_err(&r, AF_INET, ICMP_TIME_EXCEEDED,
	    ICMP_EXC_TTL, 0, &a, q, n, mfill, NULL), 0);
	n = mquote(q, 2, 4);
	assert_int_equal(trace_mtu_err(&r, AF_INET, ICMP_TIME_EXCEEDED,
	    ICMP_EXC_TTL, 0, &a, q, n, mfill, NULL), 0);
	assert_int_equal(r.nhops, 2);
	assert_int_equal(r.next_mtu, 1500);
	/* ICMPv6: time exceeded is type 3, packet too big type 2. */
	netaddr_parse("fd00:200::1", &b6);
	n = mquote(q, 0, 1);
	assert_int_equal(trace_mtu_err(&r, AF_INET6, ICMP6_TIME_EXCEEDED,
	    ICMP6_TIME_EXCEED_TRANSIT, 0, &b6, q, n, mfill, NULL), 1);
	assert_true(netaddr_equal(&r.hop[0], &b6));
	n = mquote(q, 1, 2);
	assert_int_equal(trace_mtu_err(&r, AF_INET6, ICMP6_PACKET_TOO_BIG, 0,
	    1280, &b6, q, n, mfill, NULL), 1);
	assert_int_equal(r.next_mtu, 1280);
	/* As JSON: the hops, how far the large ones got, who refused. */
	j = trace_mtu_json(&r);
	txt = cJSON_PrintUnformatted(j);
	assert_string_equal(txt, "{\"hops\":[\"fd00:200::1\",\"198.19.200.0\"],"
	    "\"reached\":1,\"too_big_from\":\"fd00:200::1\",\"next_mtu\":1280}");
	free(txt);
	cJSON_Delete(j);
}

CF_UNIT_MAIN(NULL, NULL,
    cmocka_unit_test(test_v4_hop),
    cmocka_unit_test(test_v4_rejects),
    cmocka_unit_test(test_v6_hop),
    cmocka_unit_test(test_json),
    cmocka_unit_test(test_mtu_match))
