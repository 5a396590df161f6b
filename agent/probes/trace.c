/* trace: TTL-limited probes on a flow's own 5-tuple, see trace.h. */
#include "probes/trace.h"
#include "clock.h"
#include "json.h"
#include "log.h"

#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <netinet/icmp6.h>
#include <netinet/ip.h>
#include <netinet/ip_icmp.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static uint32_t
csum_add(uint32_t sum, const void *p, size_t len)
{
	const uint8_t *b = p;
	size_t i;

	for (i = 0; i + 1 < len; i += 2)
		sum += (uint32_t)(b[i] << 8 | b[i + 1]);
	if (len & 1)
		sum += (uint32_t)b[len - 1] << 8;
	return sum;
}

/* probe_tcp builds the TCP header of flow f's probe at ttl (TRACE_TCP_LEN
 * bytes), with a checksum that is wrong on purpose (see trace.h) and
 * the tracer's marker option, by which every capture analyzer of ours
 * tells the probe from the flow's own segments (its sequence number is
 * random: taken for data, it moved the flow's next sequence and made
 * every later segment read as a retransmission). */
static void
probe_tcp(const struct trace_flow *f, uint32_t nonce, int ttl,
    uint8_t out[TRACE_TCP_LEN])
{
	struct tcphdr th;
	uint32_t sum = 0;
	uint16_t good;
	uint8_t pseudo[4] = { 0, IPPROTO_TCP, 0, TRACE_TCP_LEN };
	const uint8_t opt[4] = { TRACE_OPT_KIND, 4, TRACE_OPT_EXID >> 8,
	    TRACE_OPT_EXID & 0xff };
	size_t alen = f->src.family == AF_INET ? 4 : 16;

	memset(&th, 0, sizeof(th));
	th.th_sport = htons(f->sport);
	th.th_dport = htons(f->dport);
	th.th_seq = htonl(nonce | (uint32_t)ttl);
	th.th_off = TRACE_TCP_LEN / 4;
	th.th_flags = TH_ACK;
	th.th_win = htons(512);
	sum = csum_add(sum, &f->src.u, alen);
	sum = csum_add(sum, &f->dst.u, alen);
	sum = csum_add(sum, pseudo, sizeof(pseudo));
	sum = csum_add(sum, &th, sizeof(th));
	sum = csum_add(sum, opt, sizeof(opt));
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	good = (uint16_t)~sum;
	/* Flipping the low byte never lands on good's other form (0x0000
	 * and 0xffff are the same sum), so the checksum is surely bad. */
	th.th_sum = htons((uint16_t)(good ^ 0x00ff));
	memcpy(out, &th, 20);
	memcpy(out + 20, opt, sizeof(opt));
}

/* flow_socket: a raw TCP socket bound to the flow's source (and device),
 * so that the kernel routes the probe as it routes the flow. */
static int
flow_socket(const struct trace_flow *f, char *err)
{
	struct sockaddr_storage ss;
	socklen_t sl = netaddr_sockaddr(&f->src, 0, &ss);
	int fd = socket(f->src.family, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK,
	    IPPROTO_TCP);

	if (fd == -1) {
		snprintf(err, CF_ERRLEN, "raw socket: %s%s", strerror(errno),
		    errno == EPERM ? " (tracing needs CAP_NET_RAW)" : "");
		return -1;
	}
	if ((f->dev[0] && setsockopt(fd, SOL_SOCKET, SO_BINDTODEVICE, f->dev,
	    (socklen_t)strlen(f->dev)) == -1) ||
	    bind(fd, (struct sockaddr *)&ss, sl) == -1) {
		snprintf(err, CF_ERRLEN, "raw socket: %s", strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

static void
probe_send(int fd, const struct trace_flow *f, uint32_t nonce, int ttl)
{
	struct sockaddr_storage ss;
	socklen_t sl = netaddr_sockaddr(&f->dst, 0, &ss);
	uint8_t th[TRACE_TCP_LEN];

	probe_tcp(f, nonce, ttl, th);
	if (f->src.family == AF_INET)
		setsockopt(fd, IPPROTO_IP, IP_TTL, &ttl, sizeof(ttl));
	else
		setsockopt(fd, IPPROTO_IPV6, IPV6_UNICAST_HOPS, &ttl,
		    sizeof(ttl));
	/* A lost probe is a hop without an answer, nothing more. */
	(void)sendto(fd, th, sizeof(th), 0, (struct sockaddr *)&ss, sl);
}

int
trace_icmp_match(struct trace_flow *f, int n, const uint32_t *nonce,
    int family, const uint8_t *buf, size_t len, const struct netaddr *from)
{
	struct netaddr src, dst;
	const uint8_t *in;
	size_t ihl;
	uint32_t seq;
	uint16_t sp, dp;
	int i, ttl;

	memset(&src, 0, sizeof(src));
	memset(&dst, 0, sizeof(dst));
	if (family == AF_INET) {
		/* Outer IP header, ICMP header, inner IP header, 8 bytes of
		 * TCP: all that RFC 792 promises. */
		if (len < 20 || (ihl = (size_t)(buf[0] & 0x0f) * 4) < 20 ||
		    len < ihl + 8 + 20 + 8)
			return -1;
		if (buf[ihl] != ICMP_TIME_EXCEEDED || buf[ihl + 1] != 0)
			return -1;
		in = buf + ihl + 8;
		len -= ihl + 8;
		ihl = (size_t)(in[0] & 0x0f) * 4;
		if ((in[0] >> 4) != 4 || ihl < 20 || len < ihl + 8 ||
		    in[9] != IPPROTO_TCP)
			return -1;
		src.family = dst.family = AF_INET;
		memcpy(&src.u.v4, in + 12, 4);
		memcpy(&dst.u.v4, in + 16, 4);
		in += ihl;
	} else {
		/* ICMPv6 header, the inner IPv6 header (a probe has no
		 * extension headers), 8 bytes of TCP. */
		if (len < 8 + 40 + 8 || buf[0] != ICMP6_TIME_EXCEEDED ||
		    buf[1] != 0)
			return -1;
		in = buf + 8;
		if ((in[0] >> 4) != 6 || in[6] != IPPROTO_TCP)
			return -1;
		src.family = dst.family = AF_INET6;
		memcpy(&src.u.v6, in + 8, 16);
		memcpy(&dst.u.v6, in + 24, 16);
		in += 40;
	}
	sp = (uint16_t)(in[0] << 8 | in[1]);
	dp = (uint16_t)(in[2] << 8 | in[3]);
	seq = (uint32_t)in[4] << 24 | (uint32_t)in[5] << 16 |
	    (uint32_t)in[6] << 8 | in[7];
	ttl = (int)(seq & 0xff);
	for (i = 0; i < n; i++) {
		if (f[i].sport != sp || f[i].dport != dp ||
		    (seq & ~0xffu) != nonce[i] ||
		    !netaddr_equal(&f[i].src, &src) ||
		    !netaddr_equal(&f[i].dst, &dst))
			continue;
		if (ttl < 1 || ttl > TRACE_MAX_HOPS)
			return -1;
		f[i].hop[ttl - 1] = *from;
		if (ttl > f[i].nhops)
			f[i].nhops = ttl;
		return i;
	}
	return -1;
}

/* icmp_collect reads answers on the ICMP sockets until the deadline. */
static void
icmp_collect(int fd4, int fd6, struct trace_flow *f, int n,
    const uint32_t *nonce, double until)
{
	struct pollfd pf[2] = { { fd4, POLLIN, 0 }, { fd6, POLLIN, 0 } };
	uint8_t buf[1500];
	double now;

	while ((now = clock_mono()) < until) {
		int k, ms = (int)((until - now) * 1000) + 1;

		if (poll(pf, 2, ms) <= 0)
			continue;
		for (k = 0; k < 2; k++) {
			struct sockaddr_storage ss;
			socklen_t sl = sizeof(ss);
			struct netaddr from;
			ssize_t len;

			if (pf[k].fd == -1 || !(pf[k].revents & POLLIN))
				continue;
			while ((len = recvfrom(pf[k].fd, buf, sizeof(buf), 0,
			    (struct sockaddr *)&ss, &sl)) > 0) {
				if (netaddr_from_sockaddr((struct sockaddr *)&ss,
				    &from, NULL) == 0)
					trace_icmp_match(f, n, nonce, k == 0 ?
					    AF_INET : AF_INET6, buf, (size_t)len,
					    &from);
				sl = sizeof(ss);
			}
		}
	}
}

static int
icmp_socket(int family)
{
	int fd = socket(family, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK,
	    family == AF_INET ? IPPROTO_ICMP : IPPROTO_ICMPV6);

	if (fd != -1 && family == AF_INET6) {
		struct icmp6_filter flt;

		ICMP6_FILTER_SETBLOCKALL(&flt);
		ICMP6_FILTER_SETPASS(ICMP6_TIME_EXCEEDED, &flt);
		setsockopt(fd, IPPROTO_ICMPV6, ICMP6_FILTER, &flt, sizeof(flt));
	}
	return fd;
}

/* if_addr: the first address of family fam on interface dev, as text. */
static const char *
if_addr(const char *dev, int fam, char *buf, size_t sz)
{
	struct ifaddrs *ifa, *i;
	struct netaddr x;
	const char *r = NULL;

	if (dev[0] == '\0' || getifaddrs(&ifa) == -1)
		return NULL;
	for (i = ifa; i && r == NULL; i = i->ifa_next)
		if (i->ifa_addr && strcmp(i->ifa_name, dev) == 0 &&
		    i->ifa_addr->sa_family == fam &&
		    netaddr_from_sockaddr(i->ifa_addr, &x, NULL) == 0)
			r = netaddr_str(&x, buf, sz);
	freeifaddrs(ifa);
	return r;
}

/* trace_routes: each flow's port as seen on the wire, then the route
 * through that port (its gateway) and the port's own address. */
static void
trace_routes(struct trace_flow *f, int n)
{
	char err[CF_ERRLEN];
	int i;

	trace_egress(f, n);
	for (i = 0; i < n; i++) {
		struct route_flow fl = { IPPROTO_TCP, f[i].sport, f[i].dport,
		    0 };

		f[i].have_route = false;
		f[i].egress_addr[0] = '\0';
		if (f[i].egress[0] == '\0' ||
		    (fl.oif = (int)if_nametoindex(f[i].egress)) == 0)
			continue;
		f[i].have_route = route_get_flow(&f[i].src, &f[i].dst, &fl,
		    &f[i].route, err) == 0;
		if_addr(f[i].egress, f[i].src.family, f[i].egress_addr,
		    sizeof(f[i].egress_addr));
	}
}

/* resend_holes sends again each flow's silent TTLs up to the farthest
 * answer of any flow to its destination; returns how many it sent. */
static int
resend_holes(struct trace_flow *f, int n, const int *fds,
    const uint32_t *nonce)
{
	int i, k, ttl, far, sent = 0;

	for (i = 0; i < n; i++) {
		if (fds[i] == -1)
			continue;
		for (far = f[i].nhops, k = 0; k < n; k++)
			if (netaddr_equal(&f[k].dst, &f[i].dst) &&
			    f[k].nhops > far)
				far = f[k].nhops;
		for (ttl = 1; ttl <= far && ttl <= TRACE_MAX_HOPS; ttl++)
			if (f[i].hop[ttl - 1].family == 0) {
				probe_send(fds[i], &f[i], nonce[i], ttl);
				sent++;
			}
	}
	return sent;
}

int
trace_flows(struct trace_flow *f, int n, char *err)
{
	uint32_t nonce[TRACE_MAX_FLOWS];
	int fds[TRACE_MAX_FLOWS], fd4 = -1, fd6 = -1, i, ttl, sent = 0, try;
	char why[CF_ERRLEN] = "";

	if (n > TRACE_MAX_FLOWS)
		n = TRACE_MAX_FLOWS;
	trace_routes(f, n);
	for (i = 0; i < n; i++) {
		memset(f[i].hop, 0, sizeof(f[i].hop));
		f[i].nhops = 0;
		if (getrandom(&nonce[i], sizeof(nonce[i]), 0) !=
		    sizeof(nonce[i]))
			nonce[i] = (uint32_t)random();
		nonce[i] &= ~0xffu;
		if ((fds[i] = flow_socket(&f[i], why)) == -1) {
			snprintf(f[i].err, sizeof(f[i].err), "%s", why);
			continue;
		}
		if (f[i].src.family == AF_INET && fd4 == -1)
			fd4 = icmp_socket(AF_INET);
		if (f[i].src.family == AF_INET6 && fd6 == -1)
			fd6 = icmp_socket(AF_INET6);
		sent++;
	}
	if (sent == 0 || (fd4 == -1 && fd6 == -1)) {
		snprintf(err, CF_ERRLEN, "%s", why[0] ? why :
		    "no ICMP socket (tracing needs CAP_NET_RAW)");
		for (i = 0; i < n; i++) {
			if (fds[i] != -1)
				close(fds[i]);
			snprintf(f[i].err, sizeof(f[i].err), "%s", err);
		}
		if (fd4 != -1)
			close(fd4);
		if (fd6 != -1)
			close(fd6);
		return -1;
	}
	for (ttl = 1; ttl <= TRACE_MAX_HOPS; ttl++)
		for (i = 0; i < n; i++)
			if (fds[i] != -1)
				probe_send(fds[i], &f[i], nonce[i], ttl);
	icmp_collect(fd4, fd6, f, n, nonce, clock_mono() + TRACE_WAIT);
	/* A router that rate-limits its ICMP, or a lossy link that ate a
	 * probe or its answer, leaves a hop silent: ask once more for every
	 * hop up to two past the farthest answer (a silent last router looks
	 * like the path's end). */
	for (i = 0; i < n; i++)
		for (ttl = 1; fds[i] != -1 && ttl <= f[i].nhops + 2 &&
		    ttl <= TRACE_MAX_HOPS; ttl++)
			if (f[i].hop[ttl - 1].family == 0)
				probe_send(fds[i], &f[i], nonce[i], ttl);
	icmp_collect(fd4, fd6, f, n, nonce, clock_mono() + TRACE_RETRY_WAIT);
	/* A router's ICMP rate limit (Linux: one a second per destination
	 * after a burst of six) leaves holes the second try cannot fill: ask
	 * again, a second apart, while some hop is still silent that this
	 * flow's or another flow to its destination's trace shows a router
	 * at. Bounded: TRACE_PATIENCE tries more at most. */
	for (try = 0; try < TRACE_PATIENCE && resend_holes(f, n, fds,
	    nonce) > 0; try++)
		icmp_collect(fd4, fd6, f, n, nonce, clock_mono() +
		    TRACE_PACE_WAIT);
	for (i = 0; i < n; i++)
		if (fds[i] != -1)
			close(fds[i]);
	if (fd4 != -1)
		close(fd4);
	if (fd6 != -1)
		close(fd6);
	return 0;
}

cJSON *
trace_json(const struct trace_flow *f)
{
	cJSON *o = cJSON_CreateObject(), *h;
	char b[NETADDR_STRLEN];
	int i;

	if (f->err[0]) {
		cJSON_AddStringToObject(o, "error", f->err);
		return o;
	}
	if (f->egress[0]) {
		cJSON_AddStringToObject(o, "egress_if", f->egress);
		/* The port's own address: where peers reach it, which names
		 * the same port in their paths. */
		if (f->egress_addr[0])
			cJSON_AddStringToObject(o, "egress_addr",
			    f->egress_addr);
		if (f->have_route && f->route.gw.family)
			cJSON_AddStringToObject(o, "gateway", netaddr_str(
			    &f->route.gw, b, sizeof(b)));
	}
	h = cJSON_AddArrayToObject(o, "hops");
	for (i = 0; i < f->nhops; i++)
		cJSON_AddItemToArray(h, f->hop[i].family ? cJSON_CreateString(
		    netaddr_str(&f->hop[i], b, sizeof(b))) : cJSON_CreateNull());
	return o;
}
