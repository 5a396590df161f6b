/*
 * stream: the data plane of throughput tests. Each TCP stream, and each UDP
 * sender, runs in its own thread doing nothing but moving bytes and
 * counting them in an atomic; the event loop samples the counters and
 * TCP_INFO. Every loop here is bounded by the test's deadline and by the
 * stop flag, and socket timeouts of 200 ms make sure both are looked at.
 */
#include "engine/engine.h"
#include "clock.h"
#include "log.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <linux/errqueue.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <openssl/crypto.h>

#define STREAM_TIMEO_US 200000
/* What a receive may take at once when the data is not copied (MSG_TRUNC
 * touches no user memory; the buffer is this large only so that nothing,
 * a sanitizer included, sees a read past its end). */
#define STREAM_TRUNC_LEN (4u << 20)
/* The low-water marks of one test's receiving sockets add up to at most
 * this: each can make the kernel grow that socket's receive buffer. */
#define STREAM_LOWAT_TOTAL (64u << 20)
#define UDP_MAGIC 0x43465531u	/* "CFU1" */
#define UDP_F_FIN 1u

double
stream_now(void)
{
	return clock_mono();
}

static int64_t
stream_now_ns(void)
{
	return (int64_t)clock_mono_ns();
}

/* transient: a receive that timed out or was interrupted, to retry. */
static bool
transient(int e)
{
	return e == EINTR || e == EAGAIN || e == EWOULDBLOCK;
}

void
stream_finished(struct test *t)
{
	atomic_fetch_add(&t->threads_done, 1);
	ev_async_send(t->eng->loop, &t->done_async);
}

/* stream_end: a stream thread's last words: its end time, then the
 * count of finished threads. */
static void *
stream_end(struct test *t, struct stream *s)
{
	s->t_end = stream_now();
	stream_finished(t);
	return NULL;
}

/* stream_setup_socket applies the test's socket options to a data socket
 * and makes it blocking with short timeouts. */
int
stream_setup_socket(struct test *t, struct stream *s, int fd, char *err)
{
	const struct test_spec *sp = &t->spec;
	struct timeval tv = { 0, STREAM_TIMEO_US };
	int fl, one = 1;

	if (sp->window) {
		int w = (int)sp->window;

		setsockopt(fd, SOL_SOCKET, s->sending ? SO_SNDBUF : SO_RCVBUF,
		    &w, sizeof(w));
	}
	if (s->sending && sp->rate && sp->proto == TP_TCP) {
		/* Pacing in bytes per second, per stream (fq or the TCP
		 * internal pacer enforce it). */
		unsigned long bps = (unsigned long)(sp->rate / 8);

		if (setsockopt(fd, SOL_SOCKET, SO_MAX_PACING_RATE, &bps,
		    sizeof(bps)) == -1) {
			snprintf(err, CF_ERRLEN, "SO_MAX_PACING_RATE: %s",
			    strerror(errno));
			return -1;
		}
	}
	s->zerocopy = false;
	if (s->sending && sp->zerocopy && sp->proto == TP_TCP) {
		/* Fall back to copying sends where the kernel says no. */
		if (setsockopt(fd, SOL_SOCKET, SO_ZEROCOPY, &one,
		    sizeof(one)) == 0)
			s->zerocopy = true;
	}
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	fl = fcntl(fd, F_GETFL);
	if (fl == -1 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) == -1) {
		snprintf(err, CF_ERRLEN, "fcntl: %s", strerror(errno));
		return -1;
	}
	return 0;
}

/* stream_zc_drain reads MSG_ZEROCOPY completions: the buffer is never
 * written after start, so completions only need to be consumed to keep
 * the socket's option memory from filling up. */
static void
stream_zc_drain(int fd)
{
	char control[256];
	struct msghdr msg;
	int i;

	for (i = 0; i < 64; i++) {
		memset(&msg, 0, sizeof(msg));
		msg.msg_control = control;
		msg.msg_controllen = sizeof(control);
		if (recvmsg(fd, &msg, MSG_ERRQUEUE | MSG_DONTWAIT) == -1)
			return;
	}
}

/* stream_lowat_max: one socket's share of the test's low-water budget,
 * and never more than one receive takes. */
static int
stream_lowat_max(const struct test *t, size_t len)
{
	size_t m = STREAM_LOWAT_TOTAL / (t->n ? t->n : 1);

	return (int)(m < len ? m : len);
}

/* stream_lowat tunes a receiving socket's SO_RCVLOWAT to about 4 ms of
 * its own recent rate, up to max: the reader then wakes a few hundred
 * times a second whatever the rate, where by default it wakes for every
 * few segments, each wake-up a window update and an ACK more (on a veth
 * pair at P = 4 this took 0.40 CPU-seconds per GB down to 0.20). At
 * 1 Gbit/s that is 500 KB a wake-up; at 10 Mbit/s under 5 KB, so a slow
 * path is counted as it arrives. A stalled stream still wakes at
 * the socket's receive timeout, and the kernel wakes a reader early
 * when the window would close first, so a low-water mark set from a
 * faster past never stalls a slower present. */
static void
stream_lowat(struct stream *s, double now, int max)
{
	uint64_t b = atomic_load_explicit(&s->bytes, memory_order_relaxed);
	double rate;
	int want;

	if (s->lw_t == 0) {
		s->lw_t = now;
		s->lw_bytes = b;
		return;
	}
	if (now - s->lw_t < 0.1)
		return;
	rate = (double)(b - s->lw_bytes) / (now - s->lw_t);
	s->lw_t = now;
	s->lw_bytes = b;
	want = rate / 250 > max ? max : (int)(rate / 250) & ~4095;
	if (want < 4096)
		want = 1;
	/* Only a real change is worth a system call. */
	if (want == s->lowat || (want > s->lowat * 3 / 4 &&
	    want < s->lowat * 5 / 4))
		return;
	if (setsockopt(s->fd, SOL_SOCKET, SO_RCVLOWAT, &want,
	    sizeof(want)) == 0)
		s->lowat = want;
}

static void *
stream_tcp_send(void *arg)
{
	struct stream *s = arg;
	struct test *t = s->t;
	double deadline = t->t0 + t->spec.duration;
	int flags = MSG_NOSIGNAL | (s->zerocopy ? MSG_ZEROCOPY : 0);
	unsigned since = 0;
	ssize_t n;

	while (!atomic_load_explicit(&t->stop, memory_order_relaxed)) {
		if (stream_now() >= deadline)
			break;
		n = send(s->fd, t->buf, t->spec.len, flags);
		if (n == -1) {
			if (errno == EINTR || errno == EAGAIN ||
			    errno == EWOULDBLOCK)
				continue;
			if (errno == ENOBUFS && s->zerocopy) {
				stream_zc_drain(s->fd);
				continue;
			}
			s->err = errno;
			break;
		}
		atomic_fetch_add_explicit(&s->bytes, (uint64_t)n,
		    memory_order_relaxed);
		if (s->zerocopy && ++since >= 32) {
			stream_zc_drain(s->fd);
			since = 0;
		}
	}
	/* Tell the receiver we are done; it ends on EOF. */
	shutdown(s->fd, SHUT_WR);
	if (s->zerocopy)
		stream_zc_drain(s->fd);
	return stream_end(t, s);
}

static void *
stream_tcp_recv(void *arg)
{
	struct stream *s = arg;
	struct test *t = s->t;
	/* The receiver's bound: the sender's time plus a grace for data in
	 * flight and a late START on the other side. */
	double hard = t->t0 + t->spec.duration + 10;
	size_t len = t->spec.skip_rx_copy ? STREAM_TRUNC_LEN :
	    t->spec.len < 65536 ? 65536 : t->spec.len;
	int flags = t->spec.skip_rx_copy ? MSG_TRUNC : 0;
	char *buf = malloc(len);
	ssize_t n;

	if (buf == NULL) {
		s->err = ENOMEM;
		goto out;
	}
	while (!atomic_load_explicit(&t->stop, memory_order_relaxed)) {
		/* MSG_TRUNC on TCP discards the data in the kernel: no copy
		 * to user space. */
		n = recv(s->fd, buf, len, flags);
		if (n == 0)
			break;
		if (n == -1) {
			if (transient(errno)) {
				if (stream_now() > hard)
					break;
				continue;
			}
			s->err = errno;
			break;
		}
		atomic_fetch_add_explicit(&s->bytes, (uint64_t)n,
		    memory_order_relaxed);
		stream_lowat(s, stream_now(), stream_lowat_max(t, len));
	}
out:
	free(buf);
	return stream_end(t, s);
}

static void
put32(uint8_t *p, uint32_t v)
{
	memcpy(p, &(uint32_t){ htonl(v) }, 4);
}

static void
put64(uint8_t *p, uint64_t v)
{
	put32(p, (uint32_t)(v >> 32));
	put32(p + 4, (uint32_t)v);
}

static uint32_t
get32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return ntohl(v);
}

static uint64_t
get64(const uint8_t *p)
{
	return (uint64_t)get32(p) << 32 | get32(p + 4);
}

/*
 * UDP datagram header (TPUTREQ_UDP_HDR = 40 bytes, big-endian):
 *   0 magic "CFU1", 4 stream index, 8 sequence, 16 send time (ns,
 *   sender's monotonic clock), 24 cookie (first 8 token bytes), 32 flags,
 *   36 reserved.
 */
static void
stream_udp_hdr(struct test *t, struct stream *s, uint8_t *b, uint32_t flags)
{
	put32(b, UDP_MAGIC);
	put32(b + 4, s->idx);
	put64(b + 8, s->seq);
	put64(b + 16, (uint64_t)stream_now_ns());
	memcpy(b + 24, t->spec.token, 8);
	put32(b + 32, flags);
	put32(b + 36, 0);
}

static void *
stream_udp_send(void *arg)
{
	struct stream *s = arg;
	struct test *t = s->t;
	double deadline = t->t0 + t->spec.duration;
	int64_t gap = (int64_t)((double)t->spec.len * 8 * 1e9 /
	    (double)t->spec.rate), next = stream_now_ns(), now;
	uint8_t *buf = malloc(t->spec.len);
	struct timespec ts;
	int i;

	if (buf == NULL) {
		s->err = ENOMEM;
		goto out;
	}
	memset(buf, 0x5a, t->spec.len);
	while (!atomic_load_explicit(&t->stop, memory_order_relaxed) &&
	    stream_now() < deadline) {
		stream_udp_hdr(t, s, buf, 0);
		if (send(s->fd, buf, t->spec.len, MSG_NOSIGNAL) ==
		    (ssize_t)t->spec.len) {
			atomic_fetch_add_explicit(&s->bytes, t->spec.len,
			    memory_order_relaxed);
			s->seq++;
		} else if (errno != ENOBUFS && errno != EAGAIN &&
		    errno != EINTR && errno != ECONNREFUSED) {
			s->err = errno;
			break;
		}
		/* Pace to the absolute schedule; after a stall of more
		 * than 100 ms start afresh instead of bursting. */
		next += gap;
		now = stream_now_ns();
		if (next < now - 100000000)
			next = now;
		if (next > now) {
			ts.tv_sec = next / 1000000000;
			ts.tv_nsec = next % 1000000000;
			clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts,
			    NULL);
		}
	}
	/* FIN carries the count sent, so trailing losses are counted. A
	 * few copies: any one may be lost. */
	for (i = 0; i < 5 && s->err == 0; i++) {
		stream_udp_hdr(t, s, buf, UDP_F_FIN);
		send(s->fd, buf, TPUTREQ_UDP_HDR, MSG_NOSIGNAL);
		usleep(2000);
	}
out:
	free(buf);
	return stream_end(t, s);
}

/* stream_udp_rx: the listener's one UDP socket, for all streams. */
static void *
stream_udp_rx(void *arg)
{
	struct test *t = arg;
	double hard = t->t0 + t->spec.duration + 10;
	uint8_t *buf = malloc(65536);
	uint32_t idx, flags, nfin = 0, i;
	ssize_t n;

	while (buf != NULL &&
	    !atomic_load_explicit(&t->stop, memory_order_relaxed)) {
		n = recv(t->ufd, buf, 65536, 0);
		if (n == -1) {
			if (transient(errno)) {
				if (stream_now() > hard)
					break;
				continue;
			}
			break;
		}
		if (n < TPUTREQ_UDP_HDR || get32(buf) != UDP_MAGIC ||
		    CRYPTO_memcmp(buf + 24, t->spec.token, 8) != 0)
			continue;	/* not this test's: ignored */
		idx = get32(buf + 4);
		flags = get32(buf + 32);
		if (idx >= t->n)
			continue;
		pthread_mutex_lock(&t->umu);
		if (flags & UDP_F_FIN) {
			if (!t->st[idx].fin) {
				t->st[idx].fin = true;
				t->st[idx].fin_total = get64(buf + 8);
				nfin++;
			}
		} else {
			tputstat_udp_rx_packet(&t->st[idx].rx, get64(buf + 8),
			    (int64_t)get64(buf + 16), stream_now_ns(),
			    (uint32_t)n);
			atomic_store(&t->st[idx].bytes, t->st[idx].rx.bytes);
		}
		pthread_mutex_unlock(&t->umu);
		if (nfin == t->n)
			break;
	}
	free(buf);
	for (i = 0; i < t->n; i++)
		t->st[i].t_end = stream_now();
	stream_finished(t);
	return NULL;
}

/* thread_start: one data-plane thread of t, counted; -1 when it could
 * not start. */
static int
thread_start(struct test *t, pthread_t *th, bool *started,
    void *(*fn)(void *), void *arg)
{
	if (pthread_create(th, NULL, fn, arg) != 0)
		return -1;
	*started = true;
	t->threads++;
	return 0;
}

/* stream_start_threads gives every stream a thread of its own, on both
 * sides. A blocking loop per stream is the cheapest way to move bytes:
 * measured on two CPUs with four and eight streams (more threads than
 * CPUs), it used as little or less CPU per GB than a few threads
 * multiplexing the streams with non-blocking sockets and poll(), once the
 * receivers wake only every few milliseconds (SO_RCVLOWAT); and it uses
 * every core a host has without a thread count to tune. */
int
stream_start_threads(struct test *t)
{
	uint32_t i;

	for (i = 0; i < t->n; i++) {
		struct stream *s = &t->st[i];
		void *(*fn)(void *) = t->spec.proto == TP_UDP ?
		    stream_udp_send : s->sending ? stream_tcp_send :
		    stream_tcp_recv;

		if (thread_start(t, &s->th, &s->th_started, fn, s) == -1)
			return -1;
	}
	return 0;
}

int
stream_start_udp_rx(struct test *t)
{
	return thread_start(t, &t->uth, &t->uth_started, stream_udp_rx, t);
}

int
stream_udp_socket(struct test *t, struct stream *s, char *err)
{
	struct sockaddr_storage ss;
	socklen_t sl;
	int fd;

	fd = socket(t->spec.local.family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd == -1) {
		snprintf(err, CF_ERRLEN, "socket: %s", strerror(errno));
		return -1;
	}
	sl = netaddr_sockaddr(&t->spec.local, t->spec.sport_base ?
	    (uint16_t)(t->spec.sport_base + s->idx * t->spec.sport_stride) : 0,
	    &ss);
	if (t->spec.bind_dev[0] && setsockopt(fd, SOL_SOCKET, SO_BINDTODEVICE,
	    t->spec.bind_dev, (socklen_t)strlen(t->spec.bind_dev)) == -1) {
		snprintf(err, CF_ERRLEN, "SO_BINDTODEVICE %s: %s",
		    t->spec.bind_dev, strerror(errno));
		close(fd);
		return -1;
	}
	if (bind(fd, (struct sockaddr *)&ss, sl) == -1) {
		snprintf(err, CF_ERRLEN, "bind: %s", strerror(errno));
		close(fd);
		return -1;
	}
	sl = netaddr_sockaddr(&t->spec.dst, t->spec.port, &ss);
	if (connect(fd, (struct sockaddr *)&ss, sl) == -1) {
		snprintf(err, CF_ERRLEN, "connect: %s", strerror(errno));
		close(fd);
		return -1;
	}
	s->fd = fd;
	return 0;
}

void
stream_wake(struct test *t)
{
	uint32_t i;

	atomic_store(&t->stop, 1);
	/* shutdown() returns a blocked send/recv at once. */
	for (i = 0; i < t->n; i++)
		if (t->st[i].fd != -1)
			shutdown(t->st[i].fd, SHUT_RDWR);
	if (t->ufd != -1)
		shutdown(t->ufd, SHUT_RDWR);
}
