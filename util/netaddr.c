/* netaddr: address parsing and formatting, see include/netaddr.h. */
#include "netaddr.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int
netaddr_parse(const char *s, struct netaddr *a)
{
	memset(a, 0, sizeof(*a));
	if (inet_pton(AF_INET, s, &a->u.v4) == 1) {
		a->family = AF_INET;
		return 0;
	}
	if (inet_pton(AF_INET6, s, &a->u.v6) == 1) {
		a->family = AF_INET6;
		return 0;
	}
	return -1;
}

static int
netaddr_parse_port(const char *s, uint16_t *port)
{
	char *end;
	unsigned long v;

	if (*s == '\0' || strlen(s) > 5)
		return -1;
	v = strtoul(s, &end, 10);
	if (*end != '\0' || v == 0 || v > 65535)
		return -1;
	*port = (uint16_t)v;
	return 0;
}

int
netaddr_parse_endpoint(const char *s, struct netaddr *a, uint16_t *port)
{
	char buf[NETADDR_STRLEN];
	const char *colon;
	size_t len = strlen(s);

	if (len == 0 || len >= sizeof(buf))
		return -1;
	if (s[0] == '[') {
		const char *close = strchr(s, ']');

		if (close == NULL || (size_t)(close - s - 1) >= sizeof(buf))
			return -1;
		memcpy(buf, s + 1, (size_t)(close - s - 1));
		buf[close - s - 1] = '\0';
		if (netaddr_parse(buf, a) == -1 || a->family != AF_INET6)
			return -1;
		if (close[1] == '\0')
			return 0;
		if (close[1] != ':')
			return -1;
		return netaddr_parse_port(close + 2, port);
	}
	colon = strchr(s, ':');
	if (colon != NULL && strchr(colon + 1, ':') != NULL)
		/* Bare IPv6 without brackets: no port possible. */
		return netaddr_parse(s, a);
	if (colon == NULL)
		return netaddr_parse(s, a);
	memcpy(buf, s, (size_t)(colon - s));
	buf[colon - s] = '\0';
	if (netaddr_parse(buf, a) == -1 || a->family != AF_INET)
		return -1;
	return netaddr_parse_port(colon + 1, port);
}

int
netcidr_parse(const char *s, struct netcidr *c)
{
	char buf[NETADDR_STRLEN], *end;
	const char *slash = strchr(s, '/');
	unsigned long p;

	memset(c, 0, sizeof(*c));
	if (slash == NULL || (size_t)(slash - s) >= sizeof(buf))
		return -1;
	memcpy(buf, s, (size_t)(slash - s));
	buf[slash - s] = '\0';
	if (netaddr_parse(buf, &c->addr) == -1)
		return -1;
	if (slash[1] == '\0' || strlen(slash + 1) > 3)
		return -1;
	p = strtoul(slash + 1, &end, 10);
	if (*end != '\0' || p > (c->addr.family == AF_INET ? 32u : 128u))
		return -1;
	c->prefix = (unsigned)p;
	return 0;
}

bool
netcidr_contains(const struct netcidr *c, const struct netaddr *a)
{
	const uint8_t *x, *y;
	unsigned bits = c->prefix, i;

	if (c->addr.family != a->family)
		return false;
	x = (const uint8_t *)&c->addr.u;
	y = (const uint8_t *)&a->u;
	for (i = 0; bits >= 8; i++, bits -= 8)
		if (x[i] != y[i])
			return false;
	if (bits) {
		uint8_t mask = (uint8_t)(0xff << (8 - bits));

		if ((x[i] & mask) != (y[i] & mask))
			return false;
	}
	return true;
}

bool
netaddr_equal(const struct netaddr *a, const struct netaddr *b)
{
	if (a->family != b->family)
		return false;
	if (a->family == AF_INET)
		return a->u.v4.s_addr == b->u.v4.s_addr;
	return memcmp(&a->u.v6, &b->u.v6, sizeof(a->u.v6)) == 0;
}

bool
netaddr_loopback(const struct netaddr *a)
{
	if (a->family == AF_INET)
		return (ntohl(a->u.v4.s_addr) >> 24) == 127;
	if (a->family == AF_INET6)
		return IN6_IS_ADDR_LOOPBACK(&a->u.v6);
	return false;
}

const char *
netaddr_str(const struct netaddr *a, char *buf, size_t sz)
{
	if (a->family == 0 || inet_ntop(a->family, &a->u, buf,
	    (socklen_t)sz) == NULL)
		snprintf(buf, sz, "-");
	return buf;
}

const char *
netaddr_endpoint_str(const struct netaddr *a, uint16_t port, char *buf,
    size_t sz)
{
	char tmp[INET6_ADDRSTRLEN];

	netaddr_str(a, tmp, sizeof(tmp));
	if (a->family == AF_INET6)
		snprintf(buf, sz, "[%s]:%u", tmp, port);
	else
		snprintf(buf, sz, "%s:%u", tmp, port);
	return buf;
}

const char *
netcidr_str(const struct netcidr *c, char *buf, size_t sz)
{
	char tmp[INET6_ADDRSTRLEN];

	snprintf(buf, sz, "%s/%u", netaddr_str(&c->addr, tmp, sizeof(tmp)),
	    c->prefix);
	return buf;
}

socklen_t
netaddr_sockaddr(const struct netaddr *a, uint16_t port,
    struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof(*ss));
	if (a->family == AF_INET6) {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;

		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons(port);
		s6->sin6_addr = a->u.v6;
		return sizeof(*s6);
	} else {
		struct sockaddr_in *s4 = (struct sockaddr_in *)ss;

		s4->sin_family = AF_INET;
		s4->sin_port = htons(port);
		s4->sin_addr = a->u.v4;
		return sizeof(*s4);
	}
}

int
netaddr_from_sockaddr(const struct sockaddr *sa, struct netaddr *a,
    uint16_t *port)
{
	memset(a, 0, sizeof(*a));
	if (sa->sa_family == AF_INET) {
		const struct sockaddr_in *s4 = (const struct sockaddr_in *)sa;

		a->family = AF_INET;
		a->u.v4 = s4->sin_addr;
		if (port)
			*port = ntohs(s4->sin_port);
		return 0;
	}
	if (sa->sa_family == AF_INET6) {
		const struct sockaddr_in6 *s6 =
		    (const struct sockaddr_in6 *)sa;

		a->family = AF_INET6;
		a->u.v6 = s6->sin6_addr;
		if (port)
			*port = ntohs(s6->sin6_port);
		return 0;
	}
	return -1;
}

unsigned
netaddr_mask_bits(const struct netaddr *mask)
{
	const uint8_t *p = (const uint8_t *)&mask->u;
	unsigned bits = 0, i, n = mask->family == AF_INET ? 4 : 16;

	for (i = 0; i < n; i++)
		bits += (unsigned)__builtin_popcount(p[i]);
	return bits;
}
