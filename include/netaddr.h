/*
 * netaddr: IPv4/IPv6 addresses, ADDR:PORT endpoints and CIDR networks as
 * written in inventories and configs.
 */
#ifndef CF_NETADDR_H
#define CF_NETADDR_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#define NETADDR_STRLEN 64	/* "[v6]:port" fits */

struct netaddr {
	int family;		/* AF_INET or AF_INET6, 0 when unset */
	union {
		struct in_addr v4;
		struct in6_addr v6;
	} u;
};

struct netcidr {
	struct netaddr addr;
	unsigned prefix;
};

/* netaddr_parse parses a bare IPv4 or IPv6 address. Returns 0 or -1. */
int netaddr_parse(const char *s, struct netaddr *a);
/* netaddr_parse_endpoint parses "ADDR", "ADDR:PORT", "[V6]" or "[V6]:PORT";
 * *port keeps its value when none is given. Returns 0 or -1. */
int netaddr_parse_endpoint(const char *s, struct netaddr *a, uint16_t *port);
/* netcidr_parse parses "ADDR/PREFIX"; host bits may be set. */
int netcidr_parse(const char *s, struct netcidr *c);
bool netcidr_contains(const struct netcidr *c, const struct netaddr *a);
bool netaddr_equal(const struct netaddr *a, const struct netaddr *b);
/* netaddr_loopback is true for 127.0.0.0/8 and ::1. */
bool netaddr_loopback(const struct netaddr *a);

const char *netaddr_str(const struct netaddr *a, char *buf, size_t sz);
/* netaddr_endpoint_str writes "a.b.c.d:port" or "[v6]:port". */
const char *netaddr_endpoint_str(const struct netaddr *a, uint16_t port,
    char *buf, size_t sz);
const char *netcidr_str(const struct netcidr *c, char *buf, size_t sz);
/* netaddr_sockaddr fills a sockaddr for connect/bind; returns its length. */
socklen_t netaddr_sockaddr(const struct netaddr *a, uint16_t port,
    struct sockaddr_storage *ss);
/* netaddr_from_sockaddr is the reverse; returns -1 for other families. */
int netaddr_from_sockaddr(const struct sockaddr *sa, struct netaddr *a,
    uint16_t *port);

/* netaddr_mask_bits: the prefix length of a netmask (its one bits). */
unsigned netaddr_mask_bits(const struct netaddr *mask);

#endif
