/* Unit tests for proto/tputreq.c and proto/units.c: test requests on the
 * wire, data stream tokens, and rates and sizes as typed. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "cf_unit.h"

#include "json.h"
#include "tputreq.h"
#include "units.h"

static void
spec(struct test_spec *s)
{
	memset(s, 0, sizeof(*s));
	memcpy(s->id, "0123456789abcdef", 17);
	s->proto = TP_TCP;
	s->streams = 4;
	s->duration = 10;
	s->len = 131072;
	s->interval = 1;
	s->connector_sends = true;
	memset(s->token, 0x42, sizeof(s->token));
	netaddr_parse("198.19.0.11", &s->local);
	netaddr_parse("198.19.0.12", &s->dst);
	s->port = 40000;
	s->sport_base = 50000;
	s->sport_stride = 2;
	snprintf(s->coordinator, sizeof(s->coordinator), "me");
}

static void
test_round_trip(void **state)
{
	struct test_spec a, b;
	char err[CF_ERRLEN];
	cJSON *j;

	(void)state;
	spec(&a);
	j = tputreq_encode(&a, true);
	assert_int_equal(tputreq_decode(j, true, &b, err), 0);
	assert_string_equal(b.id, a.id);
	assert_int_equal(b.streams, 4);
	assert_int_equal(b.len, 131072);
	assert_int_equal(b.port, 40000);
	assert_int_equal(b.sport_base, 50000);
	assert_int_equal(b.sport_stride, 2);
	assert_memory_equal(b.token, a.token, TPUTREQ_TOKEN_LEN);
	assert_true(netaddr_equal(&b.dst, &a.dst));
	assert_true(netaddr_equal(&b.local, &a.local));
	assert_int_equal(tputreq_total(&b), 4);
	cJSON_Delete(j);
	/* A listener's request has no destination. */
	j = tputreq_encode(&a, false);
	assert_null(cJSON_GetObjectItem(j, "dst"));
	assert_int_equal(tputreq_decode(j, false, &b, err), 0);
	assert_int_equal(tputreq_decode(j, true, &b, err), -1);
	assert_non_null(strstr(err, "'port'"));
	cJSON_Delete(j);
}

static void
mutate(const char *field, cJSON *val, const char *want)
{
	struct test_spec a, b;
	char err[CF_ERRLEN];
	cJSON *j;

	spec(&a);
	j = tputreq_encode(&a, true);
	if (val)
		cJSON_ReplaceItemInObject(j, field, val);
	else
		cJSON_DeleteItemFromObject(j, field);
	assert_int_equal(tputreq_decode(j, true, &b, err), -1);
	if (strstr(err, want) == NULL)
		fail_msg("%s: '%s' lacks '%s'", field, err, want);
	cJSON_Delete(j);
}

static void
test_bad_fields(void **state)
{
	(void)state;
	mutate("streams", cJSON_CreateNumber(0), "'streams'");
	mutate("streams", cJSON_CreateNumber(TPUTREQ_MAX_STREAMS + 1),
	    "out of range");
	mutate("duration", cJSON_CreateString("10"), "expected number");
	mutate("proto", cJSON_CreateString("ip6"), "not tcp or udp");
	mutate("test", cJSON_CreateString("0123456789ABCDEF"), "not hex");
	mutate("token", cJSON_CreateString("zz"), "'token'");
	mutate("dst", cJSON_CreateString("nowhere"), "not an address");
	mutate("dst", cJSON_CreateString("2001:db8::1"), "families");
	mutate("len", cJSON_CreateNumber(0), "'len'");
	mutate("connector_sends", cJSON_CreateFalse(), "no direction");
	mutate("sport_base", cJSON_CreateNumber(65534), "past 65535");
	mutate("port", NULL, "'port': missing");
	mutate("interval", cJSON_CreateNumber(0.01), "'interval'");
}

static void
test_udp_rules(void **state)
{
	struct test_spec a, b;
	char err[CF_ERRLEN];
	cJSON *j;

	(void)state;
	spec(&a);
	a.proto = TP_UDP;
	a.len = 1400;
	j = tputreq_encode(&a, true);
	assert_int_equal(tputreq_decode(j, true, &b, err), -1);
	assert_non_null(strstr(err, "UDP needs a rate"));
	cJSON_Delete(j);
	a.rate = 1000000;
	a.listener_sends = true;
	j = tputreq_encode(&a, true);
	assert_int_equal(tputreq_decode(j, true, &b, err), -1);
	cJSON_Delete(j);
	a.listener_sends = false;
	a.len = 20;
	j = tputreq_encode(&a, true);
	assert_int_equal(tputreq_decode(j, true, &b, err), -1);
	cJSON_Delete(j);
}

static void
test_directions(void **state)
{
	struct test_spec a;

	(void)state;
	spec(&a);
	a.listener_sends = true;
	assert_int_equal(tputreq_total(&a), 8);
	assert_true(tputreq_connector_sends(&a, 0));
	assert_true(tputreq_connector_sends(&a, 3));
	assert_false(tputreq_connector_sends(&a, 4));
	a.connector_sends = false;
	assert_int_equal(tputreq_total(&a), 4);
	assert_false(tputreq_connector_sends(&a, 0));
}

static void
test_stream_token(void **state)
{
	struct test_spec a;
	uint8_t h[TPUTREQ_STREAM_HDR];
	uint32_t idx = 99;

	(void)state;
	spec(&a);
	tputreq_stream_hdr(&a, 3, h);
	assert_int_equal(tputreq_stream_check(&a, h, &idx), 0);
	assert_int_equal(idx, 3);
	h[20] ^= 1;
	assert_int_equal(tputreq_stream_check(&a, h, &idx), -1);
	h[20] ^= 1;
	h[0] = 'X';
	assert_int_equal(tputreq_stream_check(&a, h, &idx), -1);
	tputreq_stream_hdr(&a, 4, h);	/* only 0..3 exist */
	assert_int_equal(tputreq_stream_check(&a, h, &idx), -1);
}

static void
test_units(void **state)
{
	uint64_t v;
	char buf[32];

	(void)state;
	assert_int_equal(units_rate("500M", &v), 0);
	assert_true(v == 500000000ull);
	assert_int_equal(units_rate("1.5g", &v), 0);
	assert_true(v == 1500000000ull);
	assert_int_equal(units_rate("200000", &v), 0);
	assert_true(v == 200000);
	assert_int_equal(units_size("128K", &v), 0);
	assert_true(v == 131072);
	assert_int_equal(units_size("1M", &v), 0);
	assert_true(v == 1048576);
	assert_int_equal(units_rate("", &v), -1);
	assert_int_equal(units_rate("-5M", &v), -1);
	assert_int_equal(units_rate("5X", &v), -1);
	assert_int_equal(units_rate("5MB", &v), -1);
	assert_int_equal(units_rate(" 5", &v), -1);
	assert_int_equal(units_rate("1e30", &v), -1);
	assert_string_equal(units_fmt_rate(941e6, buf, sizeof(buf)),
	    "941 Mbits/sec");
	assert_string_equal(units_fmt_rate(9.41e9, buf, sizeof(buf)),
	    "9.41 Gbits/sec");
	assert_string_equal(units_fmt_bytes(1073741824.0 * 1.1, buf,
	    sizeof(buf)), "1.10 GBytes");
}

CF_UNIT_MAIN(NULL, NULL,
    cmocka_unit_test(test_round_trip), cmocka_unit_test(test_bad_fields),
    cmocka_unit_test(test_udp_rules), cmocka_unit_test(test_directions),
    cmocka_unit_test(test_stream_token), cmocka_unit_test(test_units))
