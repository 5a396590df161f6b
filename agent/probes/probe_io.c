/*
 * probe_io: the threads of probes. Responders echo (latency) or
 * acknowledge (MTU) what the token admits; runners measure and build a
 * JSON result. Every loop checks the stop flag and its deadline at least
 * every 200 ms.
 */
#include "probes/probe_int.h"
#include "clock.h"
#include "histogram.h"
#include "log.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <linux/net_tstamp.h>
#include <linux/sock_diag.h>

#include <openssl/crypto.h>

static bool
stopped(struct probe *p, double end)
{
	return atomic_load(&p->stop) || probe_now() > end;
}

void
probe_finished(struct probe *p)
{
	ev_async_send(p->ps->loop, &p->done);
}

/* runner_done ends a runner thread: its socket closed (fd -1: none), the
 * error added when err is not NULL, res handed to the loop. */
void *
probe_runner_done(struct probe *p, cJSON *res, int fd, const char *err)
{
	if (fd != -1)
		close(fd);
	if (err)
		cJSON_AddStringToObject(res, "error", err);
	p->result = res;
	probe_finished(p);
	return NULL;
}

/* --- responders ------------------------------------------------------ */

void *
probe_udp_echo(void *arg)
{
	struct probe *p = arg;
	double end = probe_now() + p->duration;
	uint8_t *buf = malloc(65536);
	struct sockaddr_storage ss;
	socklen_t sl;
	uint32_t flags;
	uint64_t seq;
	ssize_t n;

	probe_timeo(p->fd, 200);
	while (buf && !stopped(p, end)) {
		sl = sizeof(ss);
		n = recvfrom(p->fd, buf, 65536, 0, (struct sockaddr *)&ss, &sl);
		if (n < 0 || probe_hdr_get(buf, (size_t)n, p, &flags, &seq) == -1)
			continue;	/* strangers are ignored */
		sendto(p->fd, buf, flags & PROBE_F_ACK ? PROBE_UDP_HDR :
		    (size_t)n, 0, (struct sockaddr *)&ss, sl);
	}
	free(buf);
	probe_finished(p);
	return NULL;
}

/* io_full reads (rx) or writes all n bytes of b, on a socket with short
 * timeouts; a reader gives up when the probe stops or end passes. */
static int
io_full(int fd, uint8_t *b, size_t n, bool rx, struct probe *p, double end)
{
	size_t off = 0;
	ssize_t r;

	while (off < n) {
		if (rx && stopped(p, end))
			return -1;
		r = rx ? recv(fd, b + off, n - off, 0) : send(fd, b + off,
		    n - off, MSG_NOSIGNAL);
		if (r == 0 && rx)
			return -1;
		if (r < 0) {
			if (errno == EAGAIN || errno == EINTR)
				continue;
			return -1;
		}
		off += (size_t)r;
	}
	return 0;
}

static int
read_full(int fd, uint8_t *b, size_t n, struct probe *p, double end)
{
	return io_full(fd, b, n, true, p, end);
}

static int
write_full(int fd, const uint8_t *b, size_t n)
{
	return io_full(fd, (uint8_t *)b, n, false, NULL, 0);
}

/* TCP echo: each connection first presents the token (48 bytes: 8 of
 * magic, 32 of token, 8 reserved), then sends messages of
 * [u32 length][u32 seq][payload] that come back whole. */
void *
probe_tcp_echo(void *arg)
{
	struct probe *p = arg;
	double end = probe_now() + p->duration;
	uint8_t *buf = malloc(65536 + 8), hdr[48];
	struct pollfd pf = { p->fd, POLLIN, 0 };
	int c, one = 1;

	while (buf && !stopped(p, end)) {
		if (poll(&pf, 1, 200) <= 0)
			continue;
		c = accept4(p->fd, NULL, NULL, SOCK_CLOEXEC);
		if (c == -1)
			continue;
		probe_timeo(c, 200);
		setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		if (read_full(c, hdr, sizeof(hdr), p, probe_now() + 2) == -1 ||
		    memcmp(hdr, "CFPROBE1", 8) != 0 ||
		    CRYPTO_memcmp(hdr + 8, p->token, PROBE_TOKEN_LEN) != 0) {
			close(c);
			continue;
		}
		for (;;) {
			uint32_t len;

			if (read_full(c, buf, 8, p, end) == -1)
				break;
			memcpy(&len, buf, 4);
			len = ntohl(len);
			if (len < 8 || len > 65536 + 8 ||
			    read_full(c, buf + 8, len - 8, p, end) == -1 ||
			    write_full(c, buf, len) == -1)
				break;
		}
		close(c);
	}
	free(buf);
	probe_finished(p);
	return NULL;
}

/* --- runners --------------------------------------------------------- */

int
probe_runner_socket(struct probe *p, int type, char *err)
{
	struct sockaddr_storage ss;
	socklen_t sl;
	int fd = socket(p->local.family, type | SOCK_CLOEXEC, 0);

	if (fd == -1) {
		snprintf(err, CF_ERRLEN, "socket: %s", strerror(errno));
		return -1;
	}
	sl = netaddr_sockaddr(&p->local, 0, &ss);
	if (bind(fd, (struct sockaddr *)&ss, sl) == -1) {
		snprintf(err, CF_ERRLEN, "bind: %s", strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

int
probe_runner_connect(struct probe *p, int fd, uint16_t port, char *err)
{
	struct sockaddr_storage ss;
	socklen_t sl = netaddr_sockaddr(&p->dst, port, &ss);

	if (connect(fd, (struct sockaddr *)&ss, sl) == -1) {
		snprintf(err, CF_ERRLEN, "connect: %s", strerror(errno));
		return -1;
	}
	return 0;
}

/* probe_own_load: what this host's own load did to a measurement, into
 * o: the datagrams the kernel dropped on socket fd because its buffer was
 * full (SO_MEMINFO's drop count: the thread did not read in time), and
 * the run queue (runnable tasks now, /proc/loadavg) beside the CPUs. */
void
probe_own_load(cJSON *o, int fd)
{
	uint32_t mi[SK_MEMINFO_VARS];
	socklen_t ml = sizeof(mi);
	unsigned running = 0, total = 0;
	double l1;
	FILE *f;

	memset(mi, 0, sizeof(mi));
	if (fd >= 0 && getsockopt(fd, SOL_SOCKET, SO_MEMINFO, mi, &ml) == 0 &&
	    ml > SK_MEMINFO_DROPS * sizeof(uint32_t))
		cJSON_AddNumberToObject(o, "rx_drops", mi[SK_MEMINFO_DROPS]);
	if ((f = fopen("/proc/loadavg", "re")) != NULL) {
		/* "0.42 0.30 0.25 RUNNING/TOTAL LASTPID": ourselves too. */
		if (fscanf(f, "%lf %*f %*f %u/%u", &l1, &running, &total) == 3)
			cJSON_AddNumberToObject(o, "runq", running > 0 ?
			    running - 1 : 0);
		fclose(f);
	}
	if (!cJSON_GetObjectItem(o, "cpus")) {
		long cpus = sysconf(_SC_NPROCESSORS_ONLN);

		cJSON_AddNumberToObject(o, "cpus", cpus > 0 ? (double)cpus :
		    1);
	}
}

/* probe_add_route: which way the kernel sends to the peer, from our
 * address, and which interface holds our address on the other Ceph
 * network; into out too when it is not NULL (zeroed when unknown). */
void
probe_add_route(struct probe *p, cJSON *res, struct route_info *out)
{
	struct route_info r, o;
	char err[CF_ERRLEN];
	cJSON *j;

	if (out)
		memset(out, 0, sizeof(*out));
	if (route_get(&p->local, &p->dst, &r, err) == -1) {
		cJSON_AddStringToObject(res, "route_error", err);
		return;
	}
	if (out)
		*out = r;
	j = route_json(&r);
	if (p->other.family && route_get(&p->other, &p->dst, &o, err) == 0)
		cJSON_AddStringToObject(j, "other_if", o.local_if);
	cJSON_AddItemToObject(res, "route", j);
}

static void
pace(struct probe *p, uint64_t start, uint64_t i)
{
	uint64_t at;
	struct timespec ts;

	if (p->rate == 0)
		return;
	at = start + i * 1000000000ull / p->rate;
	if (at <= probe_now_ns())
		return;
	ts.tv_sec = (time_t)(at / 1000000000ull);
	ts.tv_nsec = (long)(at % 1000000000ull);
	clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
}

static cJSON *
latency_tcp(struct probe *p, int fd, uint32_t size, double end)
{
	struct hist *h = malloc(sizeof(*h));
	uint8_t *buf = calloc(1, size), *rb = malloc(size);
	uint64_t i, start = probe_now_ns(), t0;
	uint32_t v;
	int bad = 0;
	cJSON *o;

	if (!h || !buf || !rb) {
		free(h); free(buf); free(rb);
		return NULL;
	}
	histogram_init(h);
	for (i = 0; i < p->count && !stopped(p, end); i++) {
		pace(p, start, i);
		v = htonl(size);
		memcpy(buf, &v, 4);
		v = htonl((uint32_t)i);
		memcpy(buf + 4, &v, 4);
		t0 = probe_now_ns();
		if (write_full(fd, buf, size) == -1 ||
		    read_full(fd, rb, size, p, end) == -1 ||
		    memcmp(rb + 4, buf + 4, 4) != 0) {
			bad = 1;
			break;
		}
		histogram_add(h, probe_now_ns() - t0);
	}
	o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "size", size);
	cJSON_AddNumberToObject(o, "sent", (double)h->n + bad);
	cJSON_AddNumberToObject(o, "lost", 0);
	if (bad)
		cJSON_AddStringToObject(o, "error", "connection broke");
	cJSON_AddItemToObject(o, "rtt", histogram_json(h));
	free(h); free(buf); free(rb);
	return o;
}

void *
probe_run_latency(void *arg)
{
	struct probe *p = arg;
	double end = probe_now() + p->duration;
	cJSON *res = cJSON_CreateObject(), *arr;
	char err[CF_ERRLEN];
	uint64_t seq = 0;
	int fd, i, one = 1;

	probe_add_route(p, res, NULL);
	arr = cJSON_AddArrayToObject(res, "sizes");
	fd = probe_runner_socket(p, p->udp ? SOCK_DGRAM : SOCK_STREAM, err);
	if (fd == -1)
		goto fail;
	if (p->udp) {
		int tsf = SOF_TIMESTAMPING_TX_SOFTWARE |
		    SOF_TIMESTAMPING_RX_SOFTWARE | SOF_TIMESTAMPING_SOFTWARE |
		    SOF_TIMESTAMPING_TX_HARDWARE |
		    SOF_TIMESTAMPING_RX_HARDWARE |
		    SOF_TIMESTAMPING_RAW_HARDWARE | SOF_TIMESTAMPING_OPT_TSONLY;

		setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPING, &tsf, sizeof(tsf));
	}
	else
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	probe_timeo(fd, p->udp ? (int)p->timeout_ms : 1000);
	if (probe_runner_connect(p, fd, p->port, err) == -1)
		goto fail;
	if (!p->udp) {
		uint8_t hdr[48] = "CFPROBE1";

		memcpy(hdr + 8, p->token, PROBE_TOKEN_LEN);
		if (write_full(fd, hdr, sizeof(hdr)) == -1) {
			snprintf(err, CF_ERRLEN, "token: %s", strerror(errno));
			goto fail;
		}
	}
	for (i = 0; i < p->nsizes && !stopped(p, end); i++) {
		cJSON *o = p->udp ? probe_latency_udp(p, fd, p->sizes[i], end,
		    &seq) :
		    latency_tcp(p, fd, p->sizes[i], end);

		if (o)
			cJSON_AddItemToArray(arr, o);
	}
	probe_own_load(cJSON_AddObjectToObject(res, "load"), fd);
	return probe_runner_done(p, res, fd, NULL);
fail:
	return probe_runner_done(p, res, fd, err);
}

/* probe_run_ports connects to every port at once and classifies each as
 * open, refused (RST) or filtered (no answer within the timeout). */
void *
probe_run_ports(void *arg)
{
	struct probe *p = arg;
	cJSON *res = cJSON_CreateObject(), *arr;
	struct pollfd pf[PROBE_MAX_PORTS];
	const char *state[PROBE_MAX_PORTS];
	char err[CF_ERRLEN];
	double end;
	int i, left = 0;

	probe_add_route(p, res, NULL);
	arr = cJSON_AddArrayToObject(res, "ports");
	for (i = 0; i < p->nports; i++) {
		struct sockaddr_storage ss;
		socklen_t sl = netaddr_sockaddr(&p->dst, p->ports[i], &ss);
		int fd = probe_runner_socket(p, SOCK_STREAM | SOCK_NONBLOCK, err);

		pf[i].fd = fd;
		pf[i].events = POLLOUT;
		state[i] = fd == -1 ? "error" : NULL;
		if (fd == -1)
			continue;
		if (connect(fd, (struct sockaddr *)&ss, sl) == 0)
			state[i] = "open";
		else if (errno == ECONNREFUSED)
			state[i] = "refused";
		else if (errno != EINPROGRESS)
			state[i] = "error";
		else
			left++;
	}
	end = probe_now() + p->timeout_ms / 1000.0;
	while (left > 0 && !atomic_load(&p->stop) && probe_now() < end) {
		struct pollfd q[PROBE_MAX_PORTS];
		int map[PROBE_MAX_PORTS], nq = 0, k;

		for (i = 0; i < p->nports; i++)
			if (state[i] == NULL) {
				q[nq] = pf[i];
				map[nq++] = i;
			}
		if (poll(q, (nfds_t)nq, 100) <= 0)
			continue;
		for (k = 0; k < nq; k++) {
			int e = 0;
			socklen_t el = sizeof(e);

			if (q[k].revents == 0)
				continue;
			getsockopt(q[k].fd, SOL_SOCKET, SO_ERROR, &e, &el);
			i = map[k];
			state[i] = e == 0 ? "open" : e == ECONNREFUSED ?
			    "refused" : "error";
			left--;
		}
	}
	for (i = 0; i < p->nports; i++) {
		cJSON *o = cJSON_CreateObject();

		cJSON_AddNumberToObject(o, "port", p->ports[i]);
		/* No answer in time: a DROP rule somewhere. */
		cJSON_AddStringToObject(o, "state", state[i] ? state[i] :
		    "filtered");
		cJSON_AddItemToArray(arr, o);
		if (pf[i].fd != -1)
			close(pf[i].fd);
	}
	p->result = res;
	probe_finished(p);
	return NULL;
}
