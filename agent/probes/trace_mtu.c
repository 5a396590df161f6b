/* trace_mtu: where a too-large datagram dies on its path, see
 * trace_mtu.h. */
#include "probes/trace_mtu.h"
#include "clock.h"
#include "json.h"

#include <errno.h>
#include <linux/errqueue.h>
#include <netinet/icmp6.h>
#include <netinet/in.h>
#include <netinet/ip_icmp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

/* A probe's sequence number: "CFMT", then whether it is the large one,
 * then its TTL. The MTU search's own numbers count up from 1. */
#define TM_BASE 0x43464d5400000000ull

static uint64_t
tm_seq(int big, int ttl)
{
	return TM_BASE | (uint64_t)big << 8 | (uint64_t)ttl;
}

int
trace_mtu_err(struct trace_mtu *r, int family, int type, int code,
    uint32_t info, const struct netaddr *from, const uint8_t *quote,
    size_t qlen, trace_mtu_fill *fill, void *arg)
{
	uint8_t want[64];
	uint64_t seq = 0;
	bool exceeded, too_big;
	int big, ttl, i;

	if (qlen < TRACE_MTU_QUOTE || from == NULL || from->family == 0)
		return 0;
	exceeded = family == AF_INET ? type == ICMP_TIME_EXCEEDED &&
	    code == ICMP_EXC_TTL : type == ICMP6_TIME_EXCEEDED &&
	    code == ICMP6_TIME_EXCEED_TRANSIT;
	too_big = family == AF_INET ? type == ICMP_DEST_UNREACH &&
	    code == ICMP_FRAG_NEEDED : type == ICMP6_PACKET_TOO_BIG;
	if (!exceeded && !too_big)
		return 0;
	/* The sequence number is at bytes 8..15 of every probe header;
	 * the rest of the quoted start must be what we sent with it. */
	for (i = 8; i < 16; i++)
		seq = seq << 8 | quote[i];
	if ((seq & ~0xffffull) != TM_BASE)
		return 0;
	big = (int)(seq >> 8 & 0xff);
	ttl = (int)(seq & 0xff);
	if (big > 1 || ttl < 1 || ttl > TRACE_MAX_HOPS)
		return 0;
	memset(want, 0, sizeof(want));
	fill(arg, want, seq);
	if (memcmp(want, quote, TRACE_MTU_QUOTE) != 0)
		return 0;
	if (too_big) {
		if (!big)
			return 0;	/* a small probe is never too big */
		r->too_big_from = *from;
		r->next_mtu = info;
		return 1;
	}
	if (big) {
		if (ttl > r->reached)
			r->reached = ttl;
	} else {
		r->hop[ttl - 1] = *from;
		if (ttl > r->nhops)
			r->nhops = ttl;
	}
	return 1;
}

/* tm_read drains the error queue into r. */
static void
tm_read(int fd, int family, struct trace_mtu *r, trace_mtu_fill *fill,
    void *arg)
{
	uint8_t data[256], ctl[512];
	struct sockaddr_storage name;

	for (;;) {
		struct iovec iov = { data, sizeof(data) };
		struct msghdr m = { .msg_name = &name,
		    .msg_namelen = sizeof(name), .msg_iov = &iov,
		    .msg_iovlen = 1, .msg_control = ctl,
		    .msg_controllen = sizeof(ctl) };
		struct cmsghdr *c;
		ssize_t n = recvmsg(fd, &m, MSG_ERRQUEUE | MSG_DONTWAIT);

		if (n < 0)
			return;
		for (c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c)) {
			struct sock_extended_err ee;
			struct sockaddr_storage off;
			struct netaddr from;

			if (!((c->cmsg_level == SOL_IP &&
			    c->cmsg_type == IP_RECVERR) ||
			    (c->cmsg_level == SOL_IPV6 &&
			    c->cmsg_type == IPV6_RECVERR)) ||
			    c->cmsg_len < CMSG_LEN(sizeof(ee)))
				continue;
			memcpy(&ee, CMSG_DATA(c), sizeof(ee));
			if (ee.ee_origin != SO_EE_ORIGIN_ICMP &&
			    ee.ee_origin != SO_EE_ORIGIN_ICMP6)
				continue;
			/* The sender follows the error (SO_EE_OFFENDER),
			 * as long as the cmsg is: copied, never read past. */
			memset(&off, 0, sizeof(off));
			memcpy(&off, CMSG_DATA(c) + sizeof(ee),
			    c->cmsg_len - CMSG_LEN(sizeof(ee)) < sizeof(off) ?
			    c->cmsg_len - CMSG_LEN(sizeof(ee)) : sizeof(off));
			if (netaddr_from_sockaddr((struct sockaddr *)&off,
			    &from, NULL) == -1)
				continue;
			trace_mtu_err(r, family, ee.ee_type, ee.ee_code,
			    ee.ee_info, &from, data, (size_t)n, fill, arg);
		}
	}
}

/* tm_send sends probe (big, ttl); an error the socket holds from an
 * earlier ICMP fails one send, so it is tried twice. */
static void
tm_send(int fd, int family, uint8_t *buf, uint32_t len, int big, int ttl,
    trace_mtu_fill *fill, void *arg)
{
	int t;

	setsockopt(fd, family == AF_INET ? IPPROTO_IP : IPPROTO_IPV6,
	    family == AF_INET ? IP_TTL : IPV6_UNICAST_HOPS, &ttl,
	    sizeof(ttl));
	fill(arg, buf, tm_seq(big, ttl));
	for (t = 0; t < 2; t++)
		if (send(fd, buf, len, MSG_DONTWAIT) >= 0 || errno == EMSGSIZE)
			break;
}

/* tm_collect reads answers until 'until' (seconds, monotonic). */
static void
tm_collect(int fd, int family, struct trace_mtu *r, trace_mtu_fill *fill,
    void *arg, double until)
{
	uint8_t junk[256];
	double now;

	while ((now = clock_mono()) < until) {
		struct pollfd pf = { fd, POLLIN, 0 };

		if (poll(&pf, 1, (int)((until - now) * 1000) + 1) <= 0)
			continue;
		if (pf.revents & POLLERR)
			tm_read(fd, family, r, fill, arg);
		/* The destination echoes the small probes that reach it;
		 * reading also clears an error the socket holds. */
		while (recv(fd, junk, sizeof(junk), MSG_DONTWAIT) >= 0 ||
		    (errno != EAGAIN && errno != EWOULDBLOCK))
			;
	}
}

int
trace_mtu(int fd, int family, uint32_t small, uint32_t big,
    trace_mtu_fill *fill, void *arg, struct trace_mtu *r)
{
	int lvl = family == AF_INET ? IPPROTO_IP : IPPROTO_IPV6;
	int on = 1, off = 0, dflt = -1, ttl, last;
	uint8_t *buf;

	memset(r, 0, sizeof(*r));
	if (small < TRACE_MTU_QUOTE || big < small ||
	    (buf = calloc(1, big)) == NULL) {
		snprintf(r->err, sizeof(r->err), "no memory");
		return -1;
	}
	if (setsockopt(fd, lvl, family == AF_INET ? IP_RECVERR :
	    IPV6_RECVERR, &on, sizeof(on)) == -1) {
		snprintf(r->err, sizeof(r->err), "IP_RECVERR: %s",
		    strerror(errno));
		free(buf);
		return -1;
	}
	for (ttl = 1; ttl <= TRACE_MAX_HOPS; ttl++) {
		tm_send(fd, family, buf, small, 0, ttl, fill, arg);
		tm_send(fd, family, buf, big, 1, ttl, fill, arg);
	}
	tm_collect(fd, family, r, fill, arg, clock_mono() + TRACE_WAIT);
	/* Once more for what did not answer, up to two past the farthest
	 * answer: an ICMP rate limit or a lost probe. */
	last = r->nhops + 2 < TRACE_MAX_HOPS ? r->nhops + 2 : TRACE_MAX_HOPS;
	for (ttl = 1; ttl <= last; ttl++) {
		if (r->hop[ttl - 1].family == 0)
			tm_send(fd, family, buf, small, 0, ttl, fill, arg);
		if (ttl > r->reached && ttl <= r->nhops)
			tm_send(fd, family, buf, big, 1, ttl, fill, arg);
	}
	tm_collect(fd, family, r, fill, arg, clock_mono() + TRACE_RETRY_WAIT);
	setsockopt(fd, lvl, family == AF_INET ? IP_TTL : IPV6_UNICAST_HOPS,
	    &dflt, sizeof(dflt));
	setsockopt(fd, lvl, family == AF_INET ? IP_RECVERR : IPV6_RECVERR,
	    &off, sizeof(off));
	free(buf);
	if (r->nhops == 0)
		snprintf(r->err, sizeof(r->err), "no router answered");
	return 0;
}

cJSON *
trace_mtu_json(const struct trace_mtu *r)
{
	cJSON *o = cJSON_CreateObject(), *hops;
	char a[NETADDR_STRLEN];
	int i;

	if (r->err[0]) {
		cJSON_AddStringToObject(o, "error", r->err);
		return o;
	}
	hops = cJSON_AddArrayToObject(o, "hops");
	for (i = 0; i < r->nhops; i++)
		cJSON_AddItemToArray(hops, r->hop[i].family ?
		    cJSON_CreateString(netaddr_str(&r->hop[i], a, sizeof(a))) :
		    cJSON_CreateNull());
	cJSON_AddNumberToObject(o, "reached", r->reached);
	if (r->too_big_from.family) {
		cJSON_AddStringToObject(o, "too_big_from",
		    netaddr_str(&r->too_big_from, a, sizeof(a)));
		cJSON_AddNumberToObject(o, "next_mtu", r->next_mtu);
	}
	return o;
}
