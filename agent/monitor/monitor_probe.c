/*
 * monitor_probe: the probing of a monitor run, on the agent's loop.
 *
 * One UDP socket per network, bound to the agent's own address there and
 * the pinglist's port, both sends this agent's probes and echoes its
 * peers'. A datagram counts only when it carries the pinglist's token and
 * comes from an address of the pinglist on that network: the echo is no
 * reflector for strangers, and a stranger cannot fake a reply.
 *
 * Probes leave at the pinglist's rate per peer, spread evenly: a tick
 * pays out the probes the schedule owes since the last one, round robin
 * over the active peers. A probe unanswered after timeout_ms is lost (a
 * late reply is not counted twice). Every mtu_every seconds a peer gets a
 * ladder of don't-fragment probes from the port's MTU down, answered with
 * the header only: the largest acknowledged is the path MTU one way.
 */
#include "monitor/monitor_int.h"
#include "log.h"
#include "probes/probe.h"

#include <errno.h>
#include <ifaddrs.h>
#include <math.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <arpa/inet.h>

#include <openssl/crypto.h>

#define MON_MAGIC 0x43464d4eu	/* "CFMN" */
#define MON_HOUSEKEEP 0.1	/* seconds between loss and MTU checks */

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void
put32(uint8_t *b, uint32_t v)
{
	v = htonl(v);
	memcpy(b, &v, 4);
}

static uint32_t
get32(const uint8_t *b)
{
	uint32_t v;

	memcpy(&v, b, 4);
	return ntohl(v);
}

static void
hdr_put(uint8_t *b, const struct pinglist *pl, uint32_t flags,
    uint32_t size, uint64_t seq)
{
	put32(b, MON_MAGIC);
	put32(b + 4, flags);
	put32(b + 8, size);
	put32(b + 12, 0);
	put32(b + 16, (uint32_t)(seq >> 32));
	put32(b + 20, (uint32_t)seq);
	memcpy(b + 24, pl->token, PL_TOKEN_LEN);
}

static uint32_t
addr_hash(const struct sockaddr *sa)
{
	const uint8_t *p;
	uint32_t h = 2166136261u;
	size_t n, i;

	if (sa->sa_family == AF_INET) {
		p = (const uint8_t *)&((const struct sockaddr_in *)
		    (const void *)sa)->sin_addr;
		n = 4;
	} else {
		p = (const uint8_t *)&((const struct sockaddr_in6 *)
		    (const void *)sa)->sin6_addr;
		n = 16;
	}
	for (i = 0; i < n; i++)
		h = (h ^ p[i]) * 16777619u;
	return h;
}

static bool
same_host(const struct sockaddr *a, const struct sockaddr *b)
{
	if (a->sa_family != b->sa_family)
		return false;
	if (a->sa_family == AF_INET)
		return memcmp(&((const struct sockaddr_in *)(const void *)a)->
		    sin_addr, &((const struct sockaddr_in *)(const void *)b)->
		    sin_addr, 4) == 0;
	return memcmp(&((const struct sockaddr_in6 *)(const void *)a)->
	    sin6_addr, &((const struct sockaddr_in6 *)(const void *)b)->
	    sin6_addr, 16) == 0;
}

/* lookup: the peer of network net that sa is, or NULL (a stranger). */
static struct mon_peer *
lookup(struct mon_run *r, int net, const struct sockaddr *sa)
{
	uint32_t i = addr_hash(sa) & r->hmask;
	int v;

	while ((v = r->hash[net][i]) != 0) {
		if (same_host((const struct sockaddr *)&r->mp[v - 1].ss, sa))
			return &r->mp[v - 1];
		i = (i + 1) & r->hmask;
	}
	return NULL;
}

/* ifmtu: the MTU of interface name, 0 if unknown. */
static uint32_t
ifmtu(const char *name)
{
	struct ifreq ifr;
	uint32_t mtu = 0;
	int fd;

	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", name);
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd != -1 && ioctl(fd, SIOCGIFMTU, &ifr) == 0 && ifr.ifr_mtu > 0)
		mtu = (uint32_t)ifr.ifr_mtu;
	if (fd != -1)
		close(fd);
	return mtu;
}

/* local_mtu: the MTU of the interface that holds addr, or else of one
 * whose subnet holds it (lo's 127.0.0.0/8 answers for all of it); 0 if
 * none does. */
static uint32_t
local_mtu(const struct netaddr *addr)
{
	struct ifaddrs *ifa, *i;
	uint32_t mtu = 0, near = 0;

	if (getifaddrs(&ifa) == -1)
		return 0;
	for (i = ifa; i != NULL && mtu == 0; i = i->ifa_next) {
		struct netaddr na, mask;
		struct netcidr c;

		if (i->ifa_addr == NULL || netaddr_from_sockaddr(i->ifa_addr,
		    &na, NULL) == -1)
			continue;
		if (netaddr_equal(&na, addr)) {
			mtu = ifmtu(i->ifa_name);
		} else if (near == 0 && i->ifa_netmask != NULL &&
		    netaddr_from_sockaddr(i->ifa_netmask, &mask, NULL) == 0) {
			c.addr = na;
			c.prefix = netaddr_mask_bits(&mask);
			if (na.family == addr->family &&
			    netcidr_contains(&c, addr))
				near = ifmtu(i->ifa_name);
		}
	}
	freeifaddrs(ifa);
	return mtu ? mtu : near;
}

/* A batch of datagrams for one sendmmsg per network: a tick's probes, a
 * read's echoes. On one host every datagram is a wakeup somewhere; in
 * batches the syscalls and the wakeups are shared. */
#define MON_BATCH 64

struct batch {
	struct mmsghdr m[MON_BATCH];
	struct iovec iov[MON_BATCH];
	uint8_t buf[MON_BATCH][MON_PROBE_SIZE];
	int n;
};

static void
batch_flush(struct mon_run *r, int net, struct batch *b)
{
	int off = 0, k;

	while (off < b->n) {
		k = sendmmsg(r->fd[net], b->m + off, (unsigned)(b->n - off), 0);
		if (k <= 0) {
			/* The first refused is as lost as on the wire; an
			 * error other than a full buffer is worth saying. */
			if (k < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
				mon_error(r->m, "probes on %s: %s",
				    pl_net_names[net], strerror(errno));
			off++;
			continue;
		}
		off += k;
	}
	b->n = 0;
}

/* batch_add: room for one datagram of len bytes to ss (copied from
 * data); the batch is sent first when full. */
static void
batch_add(struct mon_run *r, int net, struct batch *b, const uint8_t *data,
    size_t len, const struct sockaddr_storage *ss, socklen_t sl)
{
	struct mmsghdr *m;

	if (b->n == MON_BATCH)
		batch_flush(r, net, b);
	m = &b->m[b->n];
	memcpy(b->buf[b->n], data, len);
	b->iov[b->n].iov_base = b->buf[b->n];
	b->iov[b->n].iov_len = len;
	memset(&m->msg_hdr, 0, sizeof(m->msg_hdr));
	m->msg_hdr.msg_name = (void *)ss;
	m->msg_hdr.msg_namelen = sl;
	m->msg_hdr.msg_iov = &b->iov[b->n];
	m->msg_hdr.msg_iovlen = 1;
	b->n++;
}

static void
send_probe(struct mon_run *r, struct mon_peer *p, uint64_t now,
    struct batch *b)
{
	uint8_t buf[MON_PROBE_SIZE];
	struct mon_slot *s;

	/* A full ring: the oldest probe in flight is given up as lost. */
	if (p->next_seq - p->oldest >= MON_SLOTS) {
		s = &p->slot[p->oldest % MON_SLOTS];
		if (s->state == 1)
			p->lost++;
		s->state = 0;
		p->oldest++;
	}
	s = &p->slot[p->next_seq % MON_SLOTS];
	s->seq = p->next_seq;
	s->sent_ns = now;
	s->state = 1;
	memset(buf, 0, sizeof(buf));
	hdr_put(buf, &r->pl, 0, MON_PROBE_SIZE, p->next_seq);
	p->next_seq++;
	p->sent++;
	r->sent_total++;
	batch_add(r, p->net, &b[p->net], buf, sizeof(buf), &p->ss, p->sl);
}

/* mtu_round: a ladder of don't-fragment probes, the port's MTU first and
 * the common sizes below it, each acknowledged by the header alone. */
static void
mtu_round(struct mon_run *r, struct mon_peer *p, double now)
{
	static const uint32_t ladder[] = { 9000, 8192, 4352, 4096, 1500,
	    1280 };
	static uint8_t buf[65536];
	uint32_t top = r->local_mtu[p->net], ip = p->ss.ss_family == AF_INET ?
	    28 : 48;
	size_t i;

	p->mtu_round++;
	p->mtu_best = 0;
	p->mtu_round_end = now + r->pl.timeout_ms / 1000.0;
	p->mtu_next = now + r->pl.mtu_every;
	if (top > sizeof(buf))
		top = sizeof(buf);
	for (i = 0; i <= sizeof(ladder) / sizeof(ladder[0]); i++) {
		uint32_t size = i == 0 ? top : ladder[i - 1];

		if ((i > 0 && top > 0 && size >= top) || size < ip + MON_HDR)
			continue;
		memset(buf, 0, size - ip);
		hdr_put(buf, &r->pl, MON_F_ACK, size, MON_SEQ_MTU |
		    p->mtu_round);
		(void)sendto(r->fd[p->net], buf, size - ip, 0,
		    (struct sockaddr *)&p->ss, p->sl);
	}
}

/* housekeep: probes past their timeout become lost; MTU rounds end and
 * begin; the rotation moves on. */
static void
housekeep(struct mon_run *r, double now)
{
	uint64_t t = now_ns(), timeout = (uint64_t)r->pl.timeout_ms *
	    1000000ull;
	int i;

	if (r->pl.rack_mode) {
		uint64_t rot = (uint64_t)floor(mon_wall() / r->pl.rotate);

		if (rot != r->rotation) {
			bool *act = calloc((size_t)r->pl.npeers + 1, 1);
			int n;

			r->rotation = rot;
			if (act != NULL) {
				pinglist_active(&r->pl, mon_wall(), act);
				memset(r->nactive, 0, sizeof(r->nactive));
				for (i = 0; i < r->nmp; i++) {
					r->mp[i].active = act[r->mp[i].peer];
					r->nactive[r->mp[i].net] +=
					    r->mp[i].active;
				}
				free(act);
			}
			n = r->nactive[0] + r->nactive[1];
			log_info("monitor: rotation %llu: %d peer probes",
			    (unsigned long long)rot, n);
		}
	}
	for (i = 0; i < r->nmp; i++) {
		struct mon_peer *p = &r->mp[i];

		while (p->oldest < p->next_seq) {
			struct mon_slot *s = &p->slot[p->oldest % MON_SLOTS];

			if (s->state == 1 && t - s->sent_ns < timeout)
				break;
			if (s->state == 1)
				p->lost++;
			s->state = 0;
			p->oldest++;
		}
		if (p->mtu_round_end > 0 && now >= p->mtu_round_end) {
			p->path_mtu = p->mtu_best;
			p->mtu_known = true;
			p->mtu_round_end = 0;
		}
		if (p->active && r->pl.mtu_every > 0 && now >= p->mtu_next)
			mtu_round(r, p, now);
	}
}

static void
tick_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct mon_run *r = w->data;
	double now = mon_mono(), dt = now - r->last_tick;
	int n = r->nactive[0] + r->nactive[1], tries;
	uint64_t t = now_ns();
	static struct batch b[PL_NETS];

	(void)loop, (void)revents;
	r->last_tick = now;
	/* After a stall the schedule does not catch up in a burst. */
	r->credit += r->pl.rate * n * dt;
	if (r->credit > n)
		r->credit = n;
	for (tries = 0; r->credit >= 1 && tries < r->nmp; tries++) {
		struct mon_peer *p = &r->mp[r->cursor];

		r->cursor = (r->cursor + 1) % r->nmp;
		if (!p->active)
			continue;
		send_probe(r, p, t, b);
		r->credit -= 1;
		tries = -1;
	}
	for (tries = 0; tries < PL_NETS; tries++)
		if (b[tries].n > 0)
			batch_flush(r, tries, &b[tries]);
	if (now - r->last_keep >= MON_HOUSEKEEP) {
		r->last_keep = now;
		housekeep(r, now);
	}
}

static void
on_reply(struct mon_peer *p, uint64_t seq,
    uint32_t size, uint64_t t)
{
	struct mon_slot *s;
	double rtt;

	if (seq & MON_SEQ_MTU) {
		if ((seq & ~MON_SEQ_MTU) == p->mtu_round &&
		    p->mtu_round_end > 0 && size > p->mtu_best)
			p->mtu_best = size;
		return;
	}
	if (seq < p->oldest || seq >= p->next_seq)
		return;			/* late, or never sent */
	s = &p->slot[seq % MON_SLOTS];
	if (s->seq != seq || s->state != 1)
		return;
	s->state = 2;
	rtt = (double)(t - s->sent_ns) / 1e9;
	p->bucket[bucket_of(rtt)]++;
	p->rtt_sum += rtt;
	p->last_reply = mon_mono();
}

static void
read_cb(struct ev_loop *loop, ev_io *w, int revents)
{
	struct mon_run *r = w->data;
	int net = w == &r->rio[0] ? 0 : 1, i, n, rounds;
	/* Only the header matters: a larger datagram (an MTU probe) is
	 * truncated on reading, and answered with the header alone. */
	static uint8_t bufs[MON_BATCH][MON_PROBE_SIZE];
	static struct sockaddr_storage from[MON_BATCH];
	static struct mmsghdr m[MON_BATCH];
	static struct iovec iov[MON_BATCH];
	static struct batch echo;

	(void)loop, (void)revents;
	/* A bounded number of batches: one flood cannot hold the loop. */
	for (rounds = 0; rounds < 4; rounds++) {
		uint64_t t;

		for (i = 0; i < MON_BATCH; i++) {
			iov[i].iov_base = bufs[i];
			iov[i].iov_len = sizeof(bufs[i]);
			memset(&m[i].msg_hdr, 0, sizeof(m[i].msg_hdr));
			m[i].msg_hdr.msg_name = &from[i];
			m[i].msg_hdr.msg_namelen = sizeof(from[i]);
			m[i].msg_hdr.msg_iov = &iov[i];
			m[i].msg_hdr.msg_iovlen = 1;
		}
		n = recvmmsg(r->fd[net], m, MON_BATCH, MSG_DONTWAIT, NULL);
		if (n <= 0)
			break;
		t = now_ns();
		for (i = 0; i < n; i++) {
			uint8_t *buf = bufs[i];
			size_t len = m[i].msg_len < sizeof(bufs[i]) ?
			    m[i].msg_len : sizeof(bufs[i]);
			bool trunc = m[i].msg_hdr.msg_flags & MSG_TRUNC;
			struct mon_peer *p;
			uint32_t flags;
			uint64_t seq;

			if (len < MON_HDR || get32(buf) != MON_MAGIC ||
			    CRYPTO_memcmp(buf + 24, r->pl.token, PL_TOKEN_LEN) !=
			    0 || (p = lookup(r, net,
			    (struct sockaddr *)&from[i])) == NULL) {
				r->strangers++;
				continue;
			}
			flags = get32(buf + 4);
			seq = (uint64_t)get32(buf + 16) << 32 | get32(buf + 20);
			if (flags & MON_F_REPLY) {
				on_reply(p, seq, get32(buf + 8), t);
				continue;
			}
			put32(buf + 4, flags | MON_F_REPLY);
			/* Echo the probe as it came, or the header alone when
			 * asked (MTU) or when it did not fit. */
			batch_add(r, net, &echo, buf, (flags & MON_F_ACK) ||
			    trunc ? MON_HDR : len, &p->ss, p->sl);
			r->echoed++;
		}
		if (echo.n > 0)
			batch_flush(r, net, &echo);
		if (n < MON_BATCH)
			break;
	}
}

static int
bind_net(struct mon_run *r, int net, char *err)
{
	const struct netaddr *a = &r->pl.addr[net];
	struct sockaddr_storage ss;
	socklen_t sl = netaddr_sockaddr(a, r->pl.port, &ss);
	int fd, v;
	char ep[NETADDR_STRLEN];

	fd = socket(a->family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd == -1) {
		snprintf(err, CF_ERRLEN, "socket: %s", strerror(errno));
		return -1;
	}
	if (bind(fd, (struct sockaddr *)&ss, sl) == -1) {
		snprintf(err, CF_ERRLEN, "%s network: bind %s/udp: %s",
		    pl_net_names[net], netaddr_endpoint_str(a, r->pl.port, ep,
		    sizeof(ep)), strerror(errno));
		close(fd);
		return -1;
	}
	/* Don't fragment, and ignore the path MTU the kernel may have
	 * learned: an MTU probe tries the size it says. */
	v = IP_PMTUDISC_PROBE;
	if (a->family == AF_INET)
		setsockopt(fd, IPPROTO_IP, IP_MTU_DISCOVER, &v, sizeof(v));
	else
		setsockopt(fd, IPPROTO_IPV6, IPV6_MTU_DISCOVER, &v, sizeof(v));
	/* Room for a burst of echoes and replies from every peer at once
	 * (the kernel caps it at rmem_max). */
	v = 1 << 20;
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &v, sizeof(v));
	r->fd[net] = fd;
	ev_io_init(&r->rio[net], read_cb, fd, EV_READ);
	r->rio[net].data = r;
	ev_io_start(r->m->loop, &r->rio[net]);
	/* No IP datagram is larger (lo's MTU is 65536). */
	r->local_mtu[net] = local_mtu(a);
	if (r->local_mtu[net] > 65535)
		r->local_mtu[net] = 65535;
	return 0;
}

/* peers: one mon_peer per peer and network both are on (same family),
 * and the address tables of each network. */
static int
peers(struct mon_run *r, char *err)
{
	double now = mon_mono();
	char why[CF_ERRLEN];
	int i, n, k;

	r->mp = calloc((size_t)r->pl.npeers * PL_NETS + 1, sizeof(*r->mp));
	for (r->hmask = 1; r->hmask < (unsigned)r->pl.npeers * 2 + 2;
	    r->hmask <<= 1)
		;
	r->hash[0] = calloc(r->hmask, sizeof(int));
	r->hash[1] = calloc(r->hmask, sizeof(int));
	r->hmask--;
	if (r->mp == NULL || r->hash[0] == NULL || r->hash[1] == NULL) {
		snprintf(err, CF_ERRLEN, "out of memory");
		return -1;
	}
	for (i = 0; i < r->pl.npeers; i++)
		for (n = 0; n < PL_NETS; n++) {
			const struct netaddr *a = &r->pl.peers[i].addr[n];
			struct mon_peer *p = &r->mp[r->nmp];
			uint32_t h;

			if (r->fd[n] == -1 || a->family != r->pl.addr[n].family)
				continue;
			/* Probes are test traffic: only where tests may go. */
			if (!engine_target_allowed_cfg(r->m->cfg, a, why)) {
				char as[NETADDR_STRLEN];

				snprintf(err, CF_ERRLEN, "limit %s: peer %s's %s "
				    "address %s not allowed", why,
				    r->pl.peers[i].name, pl_net_names[n],
				    netaddr_str(a, as, sizeof(as)));
				return -1;
			}
			p->peer = i;
			p->net = n;
			p->sl = netaddr_sockaddr(a, r->pl.port, &p->ss);
			p->active = true;
			if (lookup(r, n, (struct sockaddr *)&p->ss) != NULL) {
				snprintf(err, CF_ERRLEN, "peers: %s's %s address "
				    "is another peer's", r->pl.peers[i].name,
				    pl_net_names[n]);
				return -1;
			}
			for (h = addr_hash((struct sockaddr *)&p->ss) &
			    r->hmask; r->hash[n][h] != 0; h = (h + 1) & r->hmask)
				;
			r->hash[n][h] = ++r->nmp;
			r->nactive[n]++;
		}
	/* Light by design, whatever a coordinator asks. */
	if (r->pl.rate * r->nmp > r->m->cfg->monitor_max_pps) {
		snprintf(err, CF_ERRLEN, "limit monitor_max_pps = %u: %g "
		    "probes/s asked (%d peers and networks at %g/s)",
		    r->m->cfg->monitor_max_pps, r->pl.rate * r->nmp, r->nmp,
		    r->pl.rate);
		return -1;
	}
	/* The first MTU rounds spread over five seconds (or mtu_every if
	 * shorter), so that a start is not a burst at every peer. */
	for (k = 0; k < r->nmp; k++)
		r->mp[k].mtu_next = now + 1 + (r->pl.mtu_every < 5 ?
		    r->pl.mtu_every : 5) * k / (r->nmp ? r->nmp : 1);
	return 0;
}

struct mon_run *
mon_run_start(struct monitor *m, struct pinglist *pl, char *text, char *err)
{
	struct mon_run *r = calloc(1, sizeof(*r));
	int n;

	if (r == NULL) {
		pinglist_free(pl);
		free(text);
		snprintf(err, CF_ERRLEN, "out of memory");
		return NULL;
	}
	r->m = m;
	r->pl = *pl;
	r->text = text;
	r->fd[0] = r->fd[1] = -1;
	r->since = mon_wall();
	r->rotation = UINT64_MAX;
	for (n = 0; n < PL_NETS; n++)
		if (r->pl.addr[n].family && bind_net(r, n, err) == -1)
			goto fail;
	if (peers(r, err) == -1)
		goto fail;
	r->last_tick = r->last_keep = mon_mono();
	housekeep(r, r->last_tick);	/* the first rotation */
	{
		double pps = r->pl.rate * (r->nactive[0] + r->nactive[1]);
		double period = pps > 0 ? 1 / pps : 0.1;

		/* Ticks at the probe spacing, between 20 and 100 ms: even
		 * spacing for a short list, and a large one sent in
		 * batches, not a wakeup per probe. */
		if (period < 0.02)
			period = 0.02;
		if (period > 0.1)
			period = 0.1;
		ev_timer_init(&r->tick, tick_cb, period, period);
	}
	r->tick.data = r;
	ev_timer_start(m->loop, &r->tick);
	return r;
fail:
	mon_run_stop(r);
	return NULL;
}

void
mon_run_stop(struct mon_run *r)
{
	int n;

	if (r == NULL)
		return;
	ev_timer_stop(r->m->loop, &r->tick);
	for (n = 0; n < PL_NETS; n++) {
		if (r->fd[n] == -1)
			continue;
		ev_io_stop(r->m->loop, &r->rio[n]);
		close(r->fd[n]);
	}
	free(r->hash[0]);
	free(r->hash[1]);
	free(r->mp);
	pinglist_free(&r->pl);
	free(r->text);
	free(r);
}
