/*
 * probe_mesh: one runner thread that measures UDP round trips to many
 * targets at once (the matrix's latency phase on large clusters: one
 * runner and one echo responder per agent instead of one per pair).
 *
 * Probe k of target t carries sequence k * ntargets + t, sent in that
 * order at the runner's total rate, so every target sees the same spacing
 * and a burst never hits one responder. One socket, not connected: a reply
 * counts only when its source is the target its sequence names. Times are
 * user-space CLOCK_MONOTONIC stamps (no kernel timestamps here: one
 * socket serves every target, and the error is the same for all).
 */
#include "probes/probe_int.h"

#include <errno.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <sys/socket.h>

static int
u64cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static double
pct(const uint64_t *v, int n, double p)
{
	int i = (int)ceil(p / 100.0 * n) - 1;

	if (n == 0)
		return NAN;
	return (double)v[i < 0 ? 0 : i >= n ? n - 1 : i] / 1000.0;
}

/* mesh_load: how late this runner's own thread sent its probes against
 * its schedule (p99 and max, microseconds; late[] is sorted here): a
 * thread starved of CPU sends late and reads its replies late, and the
 * RTTs it measures are then the host's, not the network's. */
static void
mesh_load(cJSON *res, uint64_t *late, uint64_t n)
{
	cJSON *o = cJSON_AddObjectToObject(res, "load");
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);

	cJSON_AddNumberToObject(o, "cpus", cpus > 0 ? (double)cpus : 1);
	if (n == 0)
		return;
	qsort(late, (size_t)n, sizeof(*late), u64cmp);
	cJSON_AddNumberToObject(o, "late_p99_us",
	    (double)late[(n * 99) / 100 < n ? (n * 99) / 100 : n - 1] / 1000.0);
	cJSON_AddNumberToObject(o, "late_max_us", (double)late[n - 1] /
	    1000.0);
}

/* mesh_result: per target, what was sent, what came back and the RTT
 * percentiles in microseconds. rtt[] is ntargets x count, 0 = no reply. */
static cJSON *
mesh_result(struct probe *p, uint64_t *rtt, uint64_t sent_total,
    uint32_t size)
{
	cJSON *res = cJSON_CreateObject(), *arr;
	uint64_t *v = malloc(sizeof(uint64_t) * p->count);
	char a[NETADDR_STRLEN];
	int t;

	cJSON_AddStringToObject(res, "kind", "mesh");
	cJSON_AddNumberToObject(res, "size", size);
	cJSON_AddNumberToObject(res, "count", p->count);
	arr = cJSON_AddArrayToObject(res, "targets");
	for (t = 0; v != NULL && t < p->nmt; t++) {
		cJSON *o = cJSON_CreateObject(), *r;
		uint64_t k, sent = 0;
		int n = 0;

		/* Probe k of t went out if the sequence was reached. */
		for (k = 0; k < p->count; k++) {
			uint64_t seq = k * (uint64_t)p->nmt + (uint64_t)t;

			if (seq < sent_total)
				sent++;
			if (rtt[seq])
				v[n++] = rtt[seq];
		}
		qsort(v, (size_t)n, sizeof(*v), u64cmp);
		cJSON_AddStringToObject(o, "dst", netaddr_str(&p->mt[t].dst, a,
		    sizeof(a)));
		cJSON_AddNumberToObject(o, "sent", (double)sent);
		cJSON_AddNumberToObject(o, "received", n);
		if (n > 0) {
			double sum = 0;
			int i;

			for (i = 0; i < n; i++)
				sum += (double)v[i];
			r = cJSON_AddObjectToObject(o, "rtt");
			cJSON_AddNumberToObject(r, "min_us", pct(v, n, 0));
			cJSON_AddNumberToObject(r, "p50_us", pct(v, n, 50));
			cJSON_AddNumberToObject(r, "p90_us", pct(v, n, 90));
			cJSON_AddNumberToObject(r, "p99_us", pct(v, n, 99));
			cJSON_AddNumberToObject(r, "max_us", pct(v, n, 100));
			cJSON_AddNumberToObject(r, "mean_us", sum / n / 1000.0);
		}
		cJSON_AddItemToArray(arr, o);
	}
	free(v);
	return res;
}

/* mesh_drain reads every waiting reply; returns how many counted. */
static int
mesh_drain(struct probe *p, int fd, uint8_t *rb, uint64_t *sent_at,
    uint64_t *rtt, uint64_t total)
{
	struct sockaddr_storage ss;
	socklen_t sl;
	struct netaddr from;
	uint32_t flags;
	uint64_t seq, now;
	ssize_t n;
	int got = 0;

	for (;;) {
		sl = sizeof(ss);
		n = recvfrom(fd, rb, 65536, MSG_DONTWAIT,
		    (struct sockaddr *)&ss, &sl);
		if (n < 0)
			return got;
		now = probe_now_ns();
		if (probe_hdr_get(rb, (size_t)n, p, &flags, &seq) == -1 ||
		    seq >= total || sent_at[seq] == 0 || rtt[seq] != 0 ||
		    netaddr_from_sockaddr((struct sockaddr *)&ss, &from,
		    NULL) == -1 ||
		    !netaddr_equal(&from, &p->mt[seq % (uint64_t)p->nmt].dst))
			continue;	/* a stranger, a duplicate or late */
		rtt[seq] = now > sent_at[seq] ? now - sent_at[seq] : 1;
		got++;
	}
}

/* mesh_warm sends uncounted probes (sequences past the counted ones) to
 * every target until each has answered once, again every 250 ms, for 2 s
 * at most: a cold neighbour cache drops what it cannot queue while it
 * resolves, and a lost ARP request is retried only after a second; those
 * losses are not the path's. */
static void
mesh_warm(struct probe *p, int fd, uint8_t *buf, uint8_t *rb, uint64_t total)
{
	uint64_t t0 = probe_now_ns(), last = 0, seq;
	unsigned char *ok = calloc((size_t)p->nmt, 1);
	struct sockaddr_storage ss;
	socklen_t sl;
	uint32_t flags;
	int t, left = p->nmt;
	ssize_t n;

	while (ok && left > 0 && !atomic_load(&p->stop) &&
	    probe_now_ns() - t0 < 2000000000ull) {
		struct pollfd pf = { fd, POLLIN, 0 };

		if (probe_now_ns() - last > 250000000ull) {
			last = probe_now_ns();
			for (t = 0; t < p->nmt; t++) {
				if (ok[t])
					continue;
				sl = netaddr_sockaddr(&p->mt[t].dst,
				    p->mt[t].port, &ss);
				probe_hdr_put(buf, p, PROBE_F_ACK,
				    total + (uint64_t)t);
				sendto(fd, buf, PROBE_UDP_HDR, MSG_DONTWAIT,
				    (struct sockaddr *)&ss, sl);
			}
		}
		if (poll(&pf, 1, 20) <= 0)
			continue;
		while ((n = recv(fd, rb, 65536, MSG_DONTWAIT)) > 0) {
			if (probe_hdr_get(rb, (size_t)n, p, &flags, &seq) == 0 &&
			    seq >= total && seq < total + (uint64_t)p->nmt &&
			    !ok[seq - total]) {
				ok[seq - total] = 1;
				left--;
			}
		}
	}
	free(ok);
}

void *
probe_run_mesh(void *arg)
{
	struct probe *p = arg;
	double end = probe_now() + p->duration;
	uint64_t total = (uint64_t)p->nmt * p->count, sent = 0, start, last = 0;
	uint32_t size = p->sizes[0], rate = p->rate ? p->rate : 1000;
	uint64_t *sent_at = calloc(total, sizeof(uint64_t));
	uint64_t *rtt = calloc(total, sizeof(uint64_t));
	uint64_t *late = calloc(total + 1, sizeof(uint64_t));
	uint8_t *buf = calloc(1, size), *rb = malloc(65536);
	char err[CF_ERRLEN];
	int fd = -1, sz = 4 << 20;
	cJSON *res;

	if (sent_at == NULL || rtt == NULL || late == NULL || buf == NULL ||
	    rb == NULL) {
		snprintf(err, CF_ERRLEN, "out of memory for %llu probes",
		    (unsigned long long)total);
		goto fail;
	}
	if ((fd = probe_runner_socket(p, SOCK_DGRAM, err)) == -1)
		goto fail;
	/* Replies from every target may arrive together. */
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz));
	mesh_warm(p, fd, buf, rb, total);
	start = probe_now_ns();
	while (!atomic_load(&p->stop) && probe_now() < end) {
		uint64_t now = probe_now_ns(), due;
		struct pollfd pf = { fd, POLLIN, 0 };
		int ms;

		/* Send what is due by now (the total rate, paced). */
		due = (now - start) * rate / 1000000000ull + 1;
		while (sent < total && sent < due) {
			const struct mesh_target *t =
			    &p->mt[sent % (uint64_t)p->nmt];
			struct sockaddr_storage ss;
			socklen_t sl = netaddr_sockaddr(&t->dst, t->port, &ss);

			/* Probe k is due (k - 1) / rate after the start. */
			uint64_t sched = start + (sent ? (sent - 1) *
			    1000000000ull / rate : 0);

			probe_hdr_put(buf, p, 0, sent);
			sent_at[sent] = probe_now_ns();
			late[sent] = sent_at[sent] > sched ? sent_at[sent] -
			    sched : 0;
			/* A full socket buffer or an unreachable target is
			 * a loss for that probe, not the end of the run. */
			sendto(fd, buf, size, MSG_DONTWAIT,
			    (struct sockaddr *)&ss, sl);
			last = sent_at[sent];
			sent++;
		}
		mesh_drain(p, fd, rb, sent_at, rtt, total);
		if (sent == total && probe_now_ns() - last >
		    (uint64_t)p->timeout_ms * 1000000ull)
			break;	/* the last replies had their time */
		ms = sent < total ? (int)(1000 / rate) : 20;
		poll(&pf, 1, ms < 1 ? 1 : ms > 50 ? 50 : ms);
	}
	mesh_drain(p, fd, rb, sent_at, rtt, total);
	res = mesh_result(p, rtt, sent, size);
	mesh_load(res, late, sent);
	probe_own_load(cJSON_GetObjectItem(res, "load"), fd);
	close(fd);
	if (sent < total)
		cJSON_AddStringToObject(res, "warning", "the duration ended "
		    "before every probe was sent");
	free(sent_at);
	free(rtt);
	free(late);
	free(buf);
	free(rb);
	p->result = res;
	ev_async_send(p->ps->loop, &p->done);
	return NULL;
fail:
	free(sent_at);
	free(rtt);
	free(late);
	free(buf);
	free(rb);
	res = cJSON_CreateObject();
	cJSON_AddStringToObject(res, "error", err);
	p->result = res;
	ev_async_send(p->ps->loop, &p->done);
	return NULL;
}
