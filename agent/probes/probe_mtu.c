/*
 * probe_mtu: the MTU runner. A binary search (mtusearch.h) with DF
 * datagrams the responder acknowledges finds the largest that crosses;
 * when that is less than the sender's port takes, trace_mtu.h finds
 * where on the path the larger ones die.
 */
#include "probes/probe_int.h"
#include "probes/trace_mtu.h"
#include "mtusearch.h"

#include <errno.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

/* mtu_try: does a DF datagram of 'size' IP bytes reach the responder?
 * Three tries, each waiting timeout_ms for the header-only answer. */
static int
mtu_try(struct probe *p, int fd, uint32_t size, uint64_t *seq)
{
	uint32_t payload = size - (p->dst.family == AF_INET ? 28 : 48);
	uint8_t *buf = calloc(1, payload < PROBE_UDP_HDR ? PROBE_UDP_HDR :
	    payload), rb[256];
	uint32_t flags;
	uint64_t rseq;
	int t, ok = 0;

	if (buf == NULL)
		return 0;
	for (t = 0; t < 3 && !ok && !atomic_load(&p->stop); t++) {
		probe_hdr_put(buf, p, PROBE_F_ACK, ++*seq);
		if (send(fd, buf, payload, 0) != (ssize_t)payload) {
			/* EMSGSIZE: larger than our own MTU. */
			break;
		}
		for (;;) {
			ssize_t n = recv(fd, rb, sizeof(rb), 0);

			if (n < 0)
				break;
			if (probe_hdr_get(rb, (size_t)n, p, &flags, &rseq) == 0 &&
			    rseq == *seq) {
				ok = 1;
				break;
			}
		}
	}
	free(buf);
	return ok;
}

struct mtu_ctx {
	struct probe *p;
	int fd;
	uint64_t *seq;
	cJSON *tried;
};

static int
mtu_try_cb(void *arg, uint32_t size)
{
	struct mtu_ctx *m = arg;
	int ok = mtu_try(m->p, m->fd, size, m->seq);
	cJSON *t = cJSON_CreateArray();

	cJSON_AddItemToArray(t, cJSON_CreateNumber(size));
	cJSON_AddItemToArray(t, cJSON_CreateBool(ok));
	cJSON_AddItemToArray(m->tried, t);
	return ok;
}

/* mtu_fill: a trace probe is an acknowledged MTU probe with the trace's
 * sequence number, so that the responder answers the ones that reach
 * it like the others. */
static void
mtu_fill(void *arg, uint8_t *buf, uint64_t seq)
{
	probe_hdr_put(buf, arg, PROBE_F_ACK, seq);
}

/* port_mtu: the MTU of the port the route leaves by, 0 when unknown.
 * Not the socket's IP_MTU: that is the path MTU the kernel learned from
 * the last "fragmentation needed", and a second run within its ten
 * minutes would take the narrow path for the configured one. */
static int
port_mtu(int fd, const struct route_info *ri)
{
	struct ifreq ifr;

	if (ri->oif[0] == 0)
		return 0;
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ri->oif);
	return ioctl(fd, SIOCGIFMTU, &ifr) == 0 ? ifr.ifr_mtu : 0;
}

/* mtu_where: the path is narrower than the port: where it narrows. */
static void
mtu_where(struct probe *p, int fd, uint32_t configured, cJSON *res)
{
	uint32_t hdr = p->dst.family == AF_INET ? 28 : 48;
	struct trace_mtu tm;

	trace_mtu(fd, p->dst.family, 576 - hdr, configured - hdr, mtu_fill, p,
	    &tm);
	cJSON_AddItemToObject(res, "trace", trace_mtu_json(&tm));
}

void *
probe_run_mtu(void *arg)
{
	struct probe *p = arg;
	cJSON *res = cJSON_CreateObject(), *tried;
	char err[CF_ERRLEN];
	int fd, val = IP_PMTUDISC_PROBE, mtu = 0;
	socklen_t ml = sizeof(mtu);
	struct route_info ri;
	uint32_t lo, configured;
	uint64_t seq = 0;

	probe_add_route(p, res, &ri);
	fd = probe_runner_socket(p, SOCK_DGRAM, err);
	if (fd == -1 || probe_runner_connect(p, fd, p->port, err) == -1)
		goto fail;
	/* DF set, and the kernel's cached path MTU ignored: we find out. */
	if (p->dst.family == AF_INET)
		setsockopt(fd, IPPROTO_IP, IP_MTU_DISCOVER, &val, sizeof(val));
	else
		setsockopt(fd, IPPROTO_IPV6, IPV6_MTU_DISCOVER, &val,
		    sizeof(val));
	if ((mtu = port_mtu(fd, &ri)) < 68 &&
	    (getsockopt(fd, p->dst.family == AF_INET ? IPPROTO_IP :
	    IPPROTO_IPV6, p->dst.family == AF_INET ? IP_MTU : IPV6_MTU, &mtu,
	    &ml) == -1 || mtu < 68))
		mtu = 1500;
	/* No datagram is larger than 65535 bytes (IP's 16-bit length):
	 * loopback's 65536, or IPoIB's 65520 with IPv6's larger header,
	 * must not read as a black hole for the last bytes. */
	configured = (uint32_t)mtu_ceiling(mtu);
	if (p->max_size && p->max_size < configured)
		configured = p->max_size;
	probe_timeo(fd, (int)p->timeout_ms);
	/* What the path can carry at most, and the port's own MTU. */
	cJSON_AddNumberToObject(res, "configured", mtu_ceiling(mtu));
	cJSON_AddNumberToObject(res, "port_mtu", mtu);
	tried = cJSON_AddArrayToObject(res, "tried");
	if (!mtu_try(p, fd, 576, &seq)) {
		cJSON_AddNumberToObject(res, "path", 0);
		cJSON_AddStringToObject(res, "error", "not even 576-byte "
		    "datagrams get through");
		close(fd);
		p->result = res;
		probe_finished(p);
		return NULL;
	}
	{
		struct mtu_ctx mc = { p, fd, &seq, tried };
		unsigned n;

		lo = mtu_search(576, configured, mtu_try_cb, &mc, &n);
		cJSON_AddNumberToObject(res, "probes", n);
	}
	cJSON_AddNumberToObject(res, "path", lo);
	if (lo < configured && !atomic_load(&p->stop))
		mtu_where(p, fd, configured, res);
	return probe_runner_done(p, res, fd, NULL);
fail:
	return probe_runner_done(p, res, fd, err);
}
