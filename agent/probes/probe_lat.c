/*
 * probe_lat: UDP latency probes, pipelined. Probes leave at the asked rate
 * whatever happens to the ones before them; each is remembered by its
 * sequence number with its send time and is lost once its own timeout
 * passes (the request's, from its own send time). One
 * probe in flight with a 1 s timeout made --rate a wish on a lossy path
 * (111 probes in 34 s at --rate 100 with 20 % loss) and a long lossy run
 * meet the session's idle limit. See probe_int.h.
 */
#include "probes/probe_int.h"
#include "clock.h"
#include "histogram.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sys/socket.h>
#include <linux/net_tstamp.h>

/* A probe is lost once the request's timeout has passed since it left
 * (default 1 s): a fixed bound, as sockperf's, since a load that queues
 * the path makes RTTs jump a thousandfold, where any multiple of the RTTs
 * seen before would count queued probes lost. Pipelined, the timeout no
 * longer slows the rate, only the run's last wait. */
/* Five probes in a row lost with none answered since: the path passes
 * nothing of this size; the rest are counted lost, not waited on. */
#define LAT_DEAD_STREAK 5

/* ts_from_cmsg reads an SCM_TIMESTAMPING message: raw hardware (the
 * NIC's clock) when the NIC stamped it, else software. 0 when absent. */
static uint64_t
ts_from_cmsg(struct msghdr *mh, bool *hw, uint64_t *sw)
{
	struct cmsghdr *cm;

	*sw = 0;
	for (cm = CMSG_FIRSTHDR(mh); cm; cm = CMSG_NXTHDR(mh, cm)) {
		if (cm->cmsg_level == SOL_SOCKET &&
		    cm->cmsg_type == SCM_TIMESTAMPING) {
			struct timespec ts[3];

			memcpy(ts, CMSG_DATA(cm), sizeof(ts));
			*sw = (uint64_t)ts[0].tv_sec * 1000000000ull +
			    (uint64_t)ts[0].tv_nsec;
			if (ts[2].tv_sec || ts[2].tv_nsec) {
				*hw = true;
				return (uint64_t)ts[2].tv_sec * 1000000000ull +
				    (uint64_t)ts[2].tv_nsec;
			}
			*hw = false;
			return *sw;
		}
	}
	return 0;
}

/* tx_stamp drains the error queue and returns the newest send timestamp
 * (0 when none): the answered probe's only when it was the one in flight,
 * which the caller checks. */
static uint64_t
tx_stamp(int fd, bool *hw)
{
	char cbuf[256], data[64];
	struct iovec iov = { data, sizeof(data) };
	struct msghdr mh;
	uint64_t t = 0, sw;
	int i;

	for (i = 0; i < 64; i++) {
		uint64_t x;

		memset(&mh, 0, sizeof(mh));
		mh.msg_iov = &iov;
		mh.msg_iovlen = 1;
		mh.msg_control = cbuf;
		mh.msg_controllen = sizeof(cbuf);
		if (recvmsg(fd, &mh, MSG_ERRQUEUE | MSG_DONTWAIT) < 0)
			break;
		if ((x = ts_from_cmsg(&mh, hw, &sw)) != 0)
			t = x;
	}
	return t;
}

/* One size's run: the probes in flight by sequence, the histograms. */
struct lat {
	struct probe *p;
	int fd;
	uint32_t size;
	uint64_t seq0;			/* the sequence of probe 0, minus 1 */
	uint64_t *sent_ns;		/* [i]: when probe i left, 0 when not
					   in flight (answered, lost, unsent) */
	uint64_t next, sent, lost, answered;
	uint64_t oldest;		/* the oldest probe maybe in flight */
	uint64_t inflight;
	unsigned streak;		/* lost in a row, none answered */
	struct hist h, hd, hn;
	bool any_hw;
	uint8_t *buf, *rb;
};

static uint64_t
lat_timeout(const struct lat *l)
{
	return (uint64_t)l->p->timeout_ms * 1000000ull;
}

/* lat_room: whether the window lets one more probe go (a window of 1:
 * one in flight, self-clocked by the path, as the matrix's probes beside
 * its bandwidth tests are, so that they never load what they measure). */
static bool
lat_room(const struct lat *l)
{
	return l->p->window == 0 || l->inflight < l->p->window;
}

/* lat_expire: probes past their timeout are lost. */
static void
lat_expire(struct lat *l, uint64_t now)
{
	uint64_t to = lat_timeout(l);

	for (; l->oldest < l->next; l->oldest++) {
		uint64_t t = l->sent_ns[l->oldest];

		if (t == 0)
			continue;
		if (now - t < to)
			break;
		l->sent_ns[l->oldest] = 0;
		l->inflight--;
		l->lost++;
		l->streak++;
	}
}

/* lat_recv: every answer waiting on the socket, each matched to its
 * probe by sequence (a late or duplicate answer counts nothing). */
static void
lat_recv(struct lat *l)
{
	struct iovec iov = { l->rb, 65536 };
	struct msghdr mh;
	char cbuf[256];
	uint64_t rseq, t1, i;
	uint32_t flags;
	ssize_t n;

	for (;;) {
		memset(&mh, 0, sizeof(mh));
		mh.msg_iov = &iov;
		mh.msg_iovlen = 1;
		mh.msg_control = cbuf;
		mh.msg_controllen = sizeof(cbuf);
		n = recvmsg(l->fd, &mh, MSG_DONTWAIT);
		if (n < 0)
			return;
		t1 = probe_now_ns();
		if (probe_hdr_get(l->rb, (size_t)n, l->p, &flags, &rseq) == -1 ||
		    rseq <= l->seq0 || rseq - l->seq0 > l->next)
			continue;
		i = rseq - l->seq0 - 1;
		if (l->sent_ns[i] == 0)
			continue;	/* already counted lost, or twice */
		histogram_add(&l->h, t1 - l->sent_ns[i]);
		{
			bool rhw = false, thw = false;
			uint64_t rsw, rx = ts_from_cmsg(&mh, &rhw, &rsw);
			uint64_t tx = tx_stamp(l->fd, &thw);
			uint64_t u = clock_real_ns();

			if (rsw && u >= rsw)
				histogram_add(&l->hd, u - rsw);
			/* Both stamps from one clock, or none; the send
			 * stamp is this probe's only when it was alone. */
			if (l->inflight == 1 && rx && tx && rhw == thw &&
			    rx >= tx) {
				histogram_add(&l->hn, rx - tx);
				l->any_hw |= rhw;
			}
		}
		l->sent_ns[i] = 0;
		l->inflight--;
		l->answered++;
		l->streak = 0;
	}
}

/* lat_send: probe number l->next, now. */
static void
lat_send(struct lat *l)
{
	uint64_t i = l->next++;

	probe_hdr_put(l->buf, l->p, 0, l->seq0 + i + 1);
	l->sent++;
	if (send(l->fd, l->buf, l->size, 0) != (ssize_t)l->size) {
		l->lost++;
		return;
	}
	l->sent_ns[i] = probe_now_ns();
	l->inflight++;
}

/* lat_wait: poll until the next thing to do: the socket, the next send
 * (its paced time; none while one is in flight at rate 0), the oldest
 * probe's timeout, the end; 200 ms at most (the stop flag). */
static void
lat_wait(struct lat *l, uint64_t start, uint64_t end_ns)
{
	struct pollfd pfd = { l->fd, POLLIN, 0 };
	uint64_t now = probe_now_ns(), at = now + 200000000ull;
	uint64_t k;

	if (l->next < l->p->count && lat_room(l) && (l->p->rate > 0 ||
	    l->inflight == 0)) {
		uint64_t s = l->p->rate ? start + l->next * 1000000000ull /
		    l->p->rate : now;

		if (s < at)
			at = s;
	}
	for (k = l->oldest; k < l->next; k++)
		if (l->sent_ns[k]) {
			if (l->sent_ns[k] + lat_timeout(l) < at)
				at = l->sent_ns[k] + lat_timeout(l);
			break;
		}
	if (end_ns < at)
		at = end_ns;
	if (at > now)
		(void)poll(&pfd, 1, (int)((at - now + 999999) / 1000000));
}

static cJSON *
lat_json(struct lat *l)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddNumberToObject(o, "size", l->size);
	cJSON_AddNumberToObject(o, "sent", (double)l->sent);
	cJSON_AddNumberToObject(o, "lost", (double)l->lost);
	cJSON_AddItemToObject(o, "rtt", histogram_json(&l->h));
	if (l->hd.n) {
		/* Time from the kernel's receive to our read: host
		 * scheduling, not network. */
		cJSON *d = cJSON_AddObjectToObject(o, "rx_wakeup");

		cJSON_AddNumberToObject(d, "p50_us",
		    (double)histogram_pct(&l->hd, 50) / 1e3);
		cJSON_AddNumberToObject(d, "p99_us",
		    (double)histogram_pct(&l->hd, 99) / 1e3);
		cJSON_AddNumberToObject(d, "mean_us",
		    histogram_mean(&l->hd) / 1e3);
	}
	if (l->hn.n) {
		cJSON *nr = histogram_json(&l->hn);

		/* The buckets are in "rtt"; here the summary is enough. */
		cJSON_DeleteItemFromObject(nr, "buckets");
		cJSON_AddStringToObject(nr, "timestamps", l->any_hw ?
		    "hardware" : "software");
		cJSON_AddItemToObject(o, "network_rtt", nr);
	}
	return o;
}

cJSON *
probe_latency_udp(struct probe *p, int fd, uint32_t size, double end,
    uint64_t *seq)
{
	struct lat *l = calloc(1, sizeof(*l));
	uint64_t start, end_ns, now;
	double left = end - probe_now();
	cJSON *o = NULL;

	if (l == NULL)
		return NULL;
	*l = (struct lat){ .p = p, .fd = fd, .size = size, .seq0 = *seq };
	l->sent_ns = calloc(p->count ? p->count : 1, sizeof(*l->sent_ns));
	l->buf = calloc(1, size);
	l->rb = malloc(65536);
	if (l->sent_ns == NULL || l->buf == NULL || l->rb == NULL)
		goto out;
	histogram_init(&l->h);
	histogram_init(&l->hd);
	histogram_init(&l->hn);
	start = probe_now_ns();
	end_ns = start + (left > 0 ? (uint64_t)(left * 1e9) : 0);
	while (!atomic_load(&p->stop) && (now = probe_now_ns()) < end_ns &&
	    (l->next < p->count || l->inflight > 0)) {
		lat_recv(l);
		lat_expire(l, now);
		if (l->streak >= LAT_DEAD_STREAK && l->answered == 0) {
			/* Nothing of this size crosses: the rest lost. */
			l->lost += l->inflight + (p->count - l->next);
			l->sent += p->count - l->next;
			l->inflight = 0;
			l->next = p->count;
			break;
		}
		if (l->next < p->count && lat_room(l) && (p->rate ? now >=
		    start + l->next * 1000000000ull / p->rate :
		    l->inflight == 0)) {
			lat_send(l);
			continue;
		}
		lat_wait(l, start, end_ns);
	}
	/* Still in flight at the end (the deadline or a stop): lost. */
	l->lost += l->inflight;
	*seq = l->seq0 + l->next;
	o = lat_json(l);
out:
	free(l->sent_ns);
	free(l->buf);
	free(l->rb);
	free(l);
	return o;
}
