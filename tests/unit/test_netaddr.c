/* Unit tests for proto/netaddr.c. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "cf_unit.h"

#include "netaddr.h"

static void
test_endpoint(void **state)
{
	struct netaddr a;
	char buf[NETADDR_STRLEN];
	uint16_t port;

	(void)state;
	port = 7470;
	assert_int_equal(netaddr_parse_endpoint("192.0.2.1", &a, &port), 0);
	assert_int_equal(a.family, AF_INET);
	assert_int_equal(port, 7470);
	assert_int_equal(netaddr_parse_endpoint("192.0.2.1:99", &a, &port), 0);
	assert_int_equal(port, 99);
	assert_string_equal(netaddr_endpoint_str(&a, port, buf, sizeof(buf)),
	    "192.0.2.1:99");
	assert_int_equal(netaddr_parse_endpoint("[2001:db8::1]:7471", &a,
	    &port), 0);
	assert_int_equal(a.family, AF_INET6);
	assert_int_equal(port, 7471);
	assert_string_equal(netaddr_endpoint_str(&a, port, buf, sizeof(buf)),
	    "[2001:db8::1]:7471");
	port = 1;
	assert_int_equal(netaddr_parse_endpoint("2001:db8::2", &a, &port), 0);
	assert_int_equal(port, 1);
	assert_int_equal(netaddr_parse_endpoint("[::1]", &a, &port), 0);
	assert_true(netaddr_loopback(&a));
	assert_int_equal(netaddr_parse_endpoint("192.0.2.1:0", &a, &port), -1);
	assert_int_equal(netaddr_parse_endpoint("192.0.2.1:65536", &a, &port),
	    -1);
	assert_int_equal(netaddr_parse_endpoint("192.0.2.1:x", &a, &port), -1);
	assert_int_equal(netaddr_parse_endpoint("192.0.2.1:", &a, &port), -1);
	assert_int_equal(netaddr_parse_endpoint("host:1", &a, &port), -1);
	assert_int_equal(netaddr_parse_endpoint("[::1", &a, &port), -1);
	assert_int_equal(netaddr_parse_endpoint("[::1]x", &a, &port), -1);
	assert_int_equal(netaddr_parse_endpoint("[1.2.3.4]:5", &a, &port), -1);
	assert_int_equal(netaddr_parse_endpoint("", &a, &port), -1);
	assert_int_equal(netaddr_parse_endpoint("256.1.1.1", &a, &port), -1);
}

static void
test_cidr(void **state)
{
	struct netcidr c;
	struct netaddr a;
	char buf[NETADDR_STRLEN];

	(void)state;
	assert_int_equal(netcidr_parse("198.51.100.0/24", &c), 0);
	assert_string_equal(netcidr_str(&c, buf, sizeof(buf)),
	    "198.51.100.0/24");
	netaddr_parse("198.51.100.77", &a);
	assert_true(netcidr_contains(&c, &a));
	netaddr_parse("198.51.101.77", &a);
	assert_false(netcidr_contains(&c, &a));
	assert_int_equal(netcidr_parse("10.0.0.0/12", &c), 0);
	netaddr_parse("10.15.255.255", &a);
	assert_true(netcidr_contains(&c, &a));
	netaddr_parse("10.16.0.0", &a);
	assert_false(netcidr_contains(&c, &a));
	netaddr_parse("2001:db8::1", &a);
	assert_false(netcidr_contains(&c, &a));
	assert_int_equal(netcidr_parse("0.0.0.0/0", &c), 0);
	netaddr_parse("203.0.113.9", &a);
	assert_true(netcidr_contains(&c, &a));
	assert_int_equal(netcidr_parse("2001:db8::/33", &c), 0);
	netaddr_parse("2001:db8:7fff::1", &a);
	assert_true(netcidr_contains(&c, &a));
	netaddr_parse("2001:db8:8000::1", &a);
	assert_false(netcidr_contains(&c, &a));
	assert_int_equal(netcidr_parse("10.0.0.0/33", &c), -1);
	assert_int_equal(netcidr_parse("10.0.0.0", &c), -1);
	assert_int_equal(netcidr_parse("10.0.0.0/", &c), -1);
	assert_int_equal(netcidr_parse("10.0.0.0/8x", &c), -1);
	assert_int_equal(netcidr_parse("2001:db8::/129", &c), -1);
}

static void
test_loopback_equal(void **state)
{
	struct netaddr a, b;

	(void)state;
	netaddr_parse("127.4.5.6", &a);
	assert_true(netaddr_loopback(&a));
	netaddr_parse("128.0.0.1", &b);
	assert_false(netaddr_loopback(&b));
	assert_false(netaddr_equal(&a, &b));
	netaddr_parse("127.4.5.6", &b);
	assert_true(netaddr_equal(&a, &b));
}

CF_UNIT_MAIN(NULL, NULL,
    cmocka_unit_test(test_endpoint), cmocka_unit_test(test_cidr),
    cmocka_unit_test(test_loopback_equal))
