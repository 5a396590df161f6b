/* watch: live capture per peer, see watch.h. */
#include "capture/watch.h"
#include "clock.h"
#include "log.h"
#include "msg.h"
#include "json.h"
#include "capture/analyzer.h"

#include <ifaddrs.h>
#include <math.h>
#include <poll.h>
#include <stdarg.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <pcap/pcap.h>

#define WATCH_SNAPLEN 128
#define WATCH_MAX_PEERS 1024

struct peerstat {
	struct netaddr peer;
	struct analyzer_counts tx, rx;	/* cumulative, as last reported */
};

struct watch {
	struct watches *ws;
	struct conn *owner;
	int net;
	char id[17];
	double interval, duration;
	double since;			/* wall clock when it began */
	unsigned flows;
	pthread_t th;
	bool th_started;
	_Atomic int stop, done;
	ev_async wake;
	pthread_mutex_t mu;
	cJSON *pending;			/* intervals for the loop to send */
	struct peerstat *ps;
	int nps;
	unsigned seq;
};

/* link_speed: the interface's speed in Mbit/s from sysfs, or -1 when
 * the driver does not say (veth, loopback, a link that is down). */
static long
link_speed(const char *ifname)
{
	char path[96], b[32];
	FILE *f;
	long v = -1;

	snprintf(path, sizeof(path), "/sys/class/net/%s/speed", ifname);
	if ((f = fopen(path, "re")) == NULL)
		return -1;
	if (fgets(b, sizeof(b), f) != NULL)
		v = strtol(b, NULL, 10);
	fclose(f);
	return v;
}

/* net_if: the interface holding an address inside c, or -1. */
static int
net_if(const struct netcidr *c, char *ifname, struct netaddr *addr)
{
	struct ifaddrs *ifa, *i;
	int found = -1;

	if (getifaddrs(&ifa) == -1)
		return -1;
	for (i = ifa; i && found < 0; i = i->ifa_next) {
		struct netaddr a;

		if (i->ifa_addr == NULL || netaddr_from_sockaddr(i->ifa_addr,
		    &a, NULL) == -1 || !netcidr_contains(c, &a))
			continue;
		snprintf(ifname, 16, "%s", i->ifa_name);
		*addr = a;
		found = 0;
	}
	freeifaddrs(ifa);
	return found;
}

/* idle: a kernel filter that takes nothing. An open handle with no
 * filter would copy every packet of a busy storage network into its ring
 * between watches (CPU on every packet), and the next watch would read
 * that backlog as if it were happening now. */
static int
idle(pcap_t *p)
{
	struct bpf_insn none = BPF_STMT(BPF_RET | BPF_K, 0);
	struct bpf_program prog = { 1, &none };

	return pcap_setfilter(p, &prog);
}

void
watches_init(struct watches *ws, struct ev_loop *loop,
    const struct agent_config *cfg)
{
	char eb[PCAP_ERRBUF_SIZE], ifn[16];
	int k;

	*ws = (struct watches){ .loop = loop, .cfg = cfg };
	for (k = 0; k < 2; k++) {
		struct wnet *w = &ws->net[k];
		const struct netcidr *c = k ? &cfg->clusnet : &cfg->pubnet;
		pcap_t *p;
		size_t ring;

		if (!(k ? cfg->has_clusnet : cfg->has_pubnet)) {
			snprintf(w->error, sizeof(w->error), "no %s_network in "
			    "agent.conf", k ? "cluster" : "public");
			continue;
		}
		if (net_if(c, w->ifname, &w->addr) == -1) {
			snprintf(w->error, sizeof(w->error), "no interface "
			    "holds an address of the %s network",
			    k ? "cluster" : "public");
			continue;
		}
		/* Opened now, while the agent may still be root: headers
		 * only, a large ring, 100 ms reads so the thread sees its
		 * stop flag. */
		/* Messages name the interface from a copy: w->error and
		 * w->ifname share a struct, which -Wrestrict dislikes. */
		snprintf(ifn, sizeof(ifn), "%s", w->ifname);
		ring = analyzer_ring_bytes(link_speed(ifn), WATCH_SNAPLEN);
		p = pcap_create(ifn, eb);
		if (p == NULL || pcap_set_snaplen(p, WATCH_SNAPLEN) != 0 ||
		    pcap_set_buffer_size(p, (int)ring) != 0 ||
		    pcap_set_timeout(p, 100) != 0 ||
		    pcap_set_tstamp_precision(p, PCAP_TSTAMP_PRECISION_NANO) <
		    0 || pcap_activate(p) < 0) {
			snprintf(w->error, sizeof(w->error), "capture on %s: "
			    "%s", ifn, p ? pcap_geterr(p) : eb);
			if (p)
				pcap_close(p);
			log_info("watch: %s", w->error);
			continue;
		}
		/* Non-blocking, read after poll: a blocking read with
		 * TPACKET_V3 waits for a first packet however long. */
		eb[0] = '\0';
		if (pcap_setnonblock(p, 1, eb) == -1 || idle(p) == -1) {
			snprintf(w->error, sizeof(w->error), "capture on %s: "
			    "%s", ifn, eb[0] ? eb : pcap_geterr(p));
			pcap_close(p);
			continue;
		}
		w->pcap = p;
		log_debug("watch: capture handle on %s for the %s network, "
		    "a %zu MB ring", w->ifname, k ? "cluster" : "public",
		    ring >> 20);
	}
}

/* A capture thread's analyzer and the wall-clock time its watch began. */
struct cap_ctx {
	struct analyzer *t;
	double since;
};

static void
pcap_cb(u_char *arg, const struct pcap_pkthdr *h, const u_char *d)
{
	struct cap_ctx *x = (struct cap_ctx *)(void *)arg;
	/* Nanosecond precision (pcap_set_tstamp_precision): tv_usec
	 * holds ns. */
	int64_t ts = analyzer_ns(h->ts.tv_sec, h->ts.tv_usec, true);

	/* Left in the ring from before this watch: not what it measures. */
	if ((double)ts / 1e9 < x->since)
		return;
	analyzer_frame(x->t, x->t->dlt, ts, d, h->caplen);
}

static struct peerstat *
peer_get(struct watch *w, const struct netaddr *a)
{
	int i;

	for (i = 0; i < w->nps; i++)
		if (netaddr_equal(&w->ps[i].peer, a))
			return &w->ps[i];
	if (w->nps == WATCH_MAX_PEERS)
		return NULL;
	memset(&w->ps[w->nps], 0, sizeof(w->ps[0]));
	w->ps[w->nps].peer = *a;
	return &w->ps[w->nps++];
}

static void
sub(struct analyzer_counts *d, const struct analyzer_counts *now,
    const struct analyzer_counts *prev)
{
	/* Evicted flows take their counts with them: never below 0. */
#define D(f) d->f = now->f > prev->f ? now->f - prev->f : 0
	D(segments); D(bytes); D(retrans); D(fast_retrans); D(spurious);
	D(ooo); D(zero_window); D(dup_acks); D(rsts); D(keepalives);
	D(rtt_n);
#undef D
	d->rtt_sum = now->rtt_sum > prev->rtt_sum ? now->rtt_sum -
	    prev->rtt_sum : 0;
	d->rtt_max = now->rtt_max;
}

/* interval_json sums the flows per peer and reports what changed. */
static cJSON *
interval_json(struct watch *w, struct analyzer *t, double secs,
    struct pcap_stat *st0, pcap_t *p)
{
	const struct netaddr *me = &w->ws->net[w->net].addr;
	struct analyzer_counts *tx, *rx;
	struct analyzer_flow *f;
	struct pcap_stat st;
	cJSON *o = cJSON_CreateObject(), *arr;
	int i, n = w->nps;

	tx = calloc(WATCH_MAX_PEERS, sizeof(*tx));
	rx = calloc(WATCH_MAX_PEERS, sizeof(*rx));
	cJSON_AddStringToObject(o, "watch", w->id);
	cJSON_AddNumberToObject(o, "seq", ++w->seq);
	cJSON_AddNumberToObject(o, "seconds", secs);
	arr = cJSON_AddArrayToObject(o, "peers");
	TAILQ_FOREACH(f, &t->lru, lru) {
		int out = netaddr_equal(&f->addr[0], me) ? 0 :
		    netaddr_equal(&f->addr[1], me) ? 1 : -1;
		struct peerstat *ps;

		if (out < 0 || tx == NULL || rx == NULL ||
		    (ps = peer_get(w, &f->addr[!out])) == NULL)
			continue;
		i = (int)(ps - w->ps);
		analyzer_add(&tx[i], &f->d[out].c);
		analyzer_add(&rx[i], &f->d[!out].c);
	}
	for (i = 0; tx && rx && i < w->nps; i++) {
		struct analyzer_counts dt, dr;
		char a[NETADDR_STRLEN];
		cJSON *x;

		sub(&dt, &tx[i], &w->ps[i].tx);
		sub(&dr, &rx[i], &w->ps[i].rx);
		w->ps[i].tx = tx[i];
		w->ps[i].rx = rx[i];
		if (i >= n && dt.segments == 0 && dr.segments == 0)
			continue;
		if (dt.segments == 0 && dr.segments == 0)
			continue;	/* quiet peers are left out */
		x = cJSON_CreateObject();
		cJSON_AddStringToObject(x, "peer", netaddr_str(&w->ps[i].peer,
		    a, sizeof(a)));
		cJSON_AddNumberToObject(x, "tx_mbps", secs > 0 ?
		    (double)dt.bytes * 8 / secs / 1e6 : 0);
		cJSON_AddNumberToObject(x, "rx_mbps", secs > 0 ?
		    (double)dr.bytes * 8 / secs / 1e6 : 0);
		cJSON_AddItemToObject(x, "tx", analyzer_counts_json(&dt));
		cJSON_AddItemToObject(x, "rx", analyzer_counts_json(&dr));
		cJSON_AddItemToArray(arr, x);
	}
	cJSON_AddNumberToObject(o, "flows", t->nflows);
	cJSON_AddNumberToObject(o, "evicted", (double)t->evicted);
	if (pcap_stats(p, &st) == 0) {
		cJSON_AddNumberToObject(o, "dropped", st.ps_drop - st0->ps_drop);
		*st0 = st;
	}
	free(tx);
	free(rx);
	return o;
}

static void
post(struct watch *w, cJSON *o)
{
	pthread_mutex_lock(&w->mu);
	cJSON_AddItemToArray(w->pending, o);
	pthread_mutex_unlock(&w->mu);
	ev_async_send(w->ws->loop, &w->wake);
}

static void *
watch_thread(void *arg)
{
	struct watch *w = arg;
	pcap_t *p = w->ws->net[w->net].pcap;
	struct analyzer t;
	struct cap_ctx x = { &t, w->since };
	struct pcap_stat st0;
	double t0 = clock_mono(), last = t0, end = t0 + w->duration;

	memset(&st0, 0, sizeof(st0));
	pcap_stats(p, &st0);
	if (analyzer_init(&t, w->flows) == -1) {
		cJSON *o = cJSON_CreateObject();

		cJSON_AddStringToObject(o, "watch", w->id);
		cJSON_AddStringToObject(o, "error", "out of memory");
		post(w, o);
		atomic_store(&w->done, 1);
		ev_async_send(w->ws->loop, &w->wake);
		return NULL;
	}
	t.dlt = pcap_datalink(p);
	while (!atomic_load(&w->stop)) {
		struct pollfd pf = { pcap_get_selectable_fd(p), POLLIN, 0 };
		double now;

		if (poll(&pf, 1, 100) > 0 &&
		    pcap_dispatch(p, 4096, pcap_cb, (u_char *)&x) < 0)
			break;
		now = clock_mono();
		if (now - last >= w->interval || now >= end) {
			cJSON *o = interval_json(w, &t, now - last, &st0, p);

			if (now >= end)
				cJSON_AddBoolToObject(o, "final", true);
			post(w, o);
			last = now;
		}
		if (now >= end)
			break;
	}
	analyzer_free(&t);
	atomic_store(&w->done, 1);
	ev_async_send(w->ws->loop, &w->wake);
	return NULL;
}

static void
watch_free(struct watch *w)
{
	atomic_store(&w->stop, 1);
	if (w->th_started)
		pthread_join(w->th, NULL);
	if (idle(w->ws->net[w->net].pcap) == -1)
		log_warnx("watch: cannot idle the capture on %s: %s",
		    w->ws->net[w->net].ifname,
		    pcap_geterr(w->ws->net[w->net].pcap));
	ev_async_stop(w->ws->loop, &w->wake);
	w->ws->net[w->net].busy = NULL;
	cJSON_Delete(w->pending);
	pthread_mutex_destroy(&w->mu);
	free(w->ps);
	free(w);
}

static void
watch_wake_cb(struct ev_loop *loop, ev_async *a, int revents)
{
	struct watch *w = a->data;
	cJSON *items, *it;

	(void)loop, (void)revents;
	pthread_mutex_lock(&w->mu);
	items = w->pending;
	w->pending = cJSON_CreateArray();
	pthread_mutex_unlock(&w->mu);
	cJSON_ArrayForEach(it, items)
		if (w->owner)
			conn_send(w->owner, MSG_WATCH_INTERVAL, 0, it);
	cJSON_Delete(items);
	if (atomic_load(&w->done))
		watch_free(w);
}

static void
watch_refuse(struct conn *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void
watch_refuse(struct conn *c, const char *fmt, ...)
{
	cJSON *b = cJSON_CreateObject();
	char msg[CF_ERRLEN];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	log_warnx("%s: WATCH refused: %s", c->peer, msg);
	cJSON_AddStringToObject(b, "error", msg);
	conn_send(c, MSG_WATCH, MSG_F_REPLY, b);
	cJSON_Delete(b);
}

int
watches_message(struct watches *ws, struct conn *c, const struct frame_hdr *h,
    const cJSON *body)
{
	struct bpf_program prog;
	struct timespec since;
	const char *net, *filter, *id;
	struct watch *w;
	struct wnet *wn;
	char err[CF_ERRLEN];
	uint32_t flows;
	double ival, dur;
	cJSON *r;

	if (h->type != MSG_WATCH || (h->flags & MSG_F_REPLY))
		return 0;
	if (json_get_str(body, "watch", 16, 16, &id, err) == -1 ||
	    json_get_str(body, "net", 6, 7, &net, err) == -1 ||
	    json_opt_str(body, "filter", 0, 1024, WATCH_DEFAULT_FILTER, &filter,
	    err) == -1 ||
	    json_opt_double(body, "interval", 0.2, 60, 5, &ival, err) == -1 ||
	    json_get_double(body, "duration", 0.5, 86400, &dur, err) == -1 ||
	    json_opt_u32(body, "flows", 16, ANALYZER_MAX_FLOWS,
	    ANALYZER_DEFAULT_FLOWS,
	    &flows, err) == -1) {
		watch_refuse(c, "%s", err);
		return 1;
	}
	if (strcmp(net, "public") != 0 && strcmp(net, "cluster") != 0) {
		watch_refuse(c, "field 'net': '%s' is not public or cluster",
		    net);
		return 1;
	}
	if (dur > ws->cfg->max_duration) {
		watch_refuse(c, "limit max_duration = %.0f s: %.0f s asked",
		    ws->cfg->max_duration, dur);
		return 1;
	}
	wn = &ws->net[strcmp(net, "cluster") == 0];
	if (wn->pcap == NULL) {
		watch_refuse(c, "no capture on the %s network: %s", net,
		    wn->error);
		return 1;
	}
	if (wn->busy) {
		watch_refuse(c, "busy: a watch already captures on %s",
		    wn->ifname);
		return 1;
	}
	/* Packets are stamped with the wall clock; nothing stamped before
	 * the filter goes in belongs to this watch. */
	clock_gettime(CLOCK_REALTIME, &since);
	if (pcap_compile(wn->pcap, &prog, filter, 1,
	    PCAP_NETMASK_UNKNOWN) == -1) {
		watch_refuse(c, "field 'filter': %s", pcap_geterr(wn->pcap));
		return 1;
	}
	if (pcap_setfilter(wn->pcap, &prog) == -1) {
		pcap_freecode(&prog);
		watch_refuse(c, "filter: %s", pcap_geterr(wn->pcap));
		return 1;
	}
	pcap_freecode(&prog);
	w = calloc(1, sizeof(*w));
	if (w == NULL || (w->ps = calloc(WATCH_MAX_PEERS,
	    sizeof(*w->ps))) == NULL) {
		free(w);
		watch_refuse(c, "out of memory");
		return 1;
	}
	w->ws = ws;
	w->owner = c;
	w->net = (int)(wn - ws->net);
	snprintf(w->id, sizeof(w->id), "%s", id);
	w->interval = ival;
	w->duration = dur;
	w->since = (double)since.tv_sec + (double)since.tv_nsec / 1e9;
	w->flows = flows;
	w->pending = cJSON_CreateArray();
	pthread_mutex_init(&w->mu, NULL);
	ev_async_init(&w->wake, watch_wake_cb);
	w->wake.data = w;
	ev_async_start(ws->loop, &w->wake);
	wn->busy = w;
	if (pthread_create(&w->th, NULL, watch_thread, w) != 0) {
		watch_free(w);
		watch_refuse(c, "cannot start a thread");
		return 1;
	}
	w->th_started = true;
	r = cJSON_CreateObject();
	cJSON_AddStringToObject(r, "watch", w->id);
	cJSON_AddStringToObject(r, "interface", wn->ifname);
	cJSON_AddStringToObject(r, "filter", filter);
	conn_send(c, MSG_WATCH, MSG_F_REPLY, r);
	cJSON_Delete(r);
	log_info("watch %s: %s on %s for %.0f s", w->id, filter, wn->ifname,
	    dur);
	return 1;
}

void
watches_conn_closed(struct watches *ws, struct conn *c)
{
	int k;

	/* Nobody to report to: the thread stops within 100 ms and the
	 * watch is freed when it says it is done. */
	for (k = 0; k < 2; k++)
		if (ws->net[k].busy && ws->net[k].busy->owner == c) {
			ws->net[k].busy->owner = NULL;
			atomic_store(&ws->net[k].busy->stop, 1);
		}
}

void
watches_fini(struct watches *ws)
{
	int k;

	for (k = 0; k < 2; k++) {
		if (ws->net[k].busy)
			watch_free(ws->net[k].busy);
		if (ws->net[k].pcap)
			pcap_close(ws->net[k].pcap);
		ws->net[k].pcap = NULL;
	}
}
