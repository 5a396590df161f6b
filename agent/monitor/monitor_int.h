/* monitor_int: what monitor.c (control), monitor_probe.c (the probing)
 * and metrics.c (the endpoint) share. */
#ifndef CF_MONITOR_INT_H
#define CF_MONITOR_INT_H

#include <sys/socket.h>

#include "monitor/monitor.h"
#include "monitor/pinglist.h"
#include "monitor/buckets.h"

#define MON_SLOTS 256		/* probes in flight per peer and network */
#define MON_HDR 40		/* magic 4, flags 4, size 4, pad 4, seq 8,
				   token 16 */
#define MON_PROBE_SIZE 64	/* a regular probe's UDP payload */
#define MON_F_REPLY 1u
#define MON_F_ACK 2u		/* answer with the header only (MTU) */
#define MON_SEQ_MTU (1ull << 63)	/* an MTU probe's sequence */

struct mon_slot {
	uint64_t seq;
	uint64_t sent_ns;
	uint8_t state;			/* 0 free, 1 in flight, 2 answered */
};

/* One peer on one network. */
struct mon_peer {
	int peer, net;
	struct sockaddr_storage ss;
	socklen_t sl;
	bool active;			/* probed in this rotation */
	uint64_t sent, lost;
	uint64_t bucket[MON_BUCKETS + 1];	/* not cumulative; +Inf last */
	double rtt_sum;
	uint64_t next_seq, oldest;	/* oldest: first unresolved */
	struct mon_slot slot[MON_SLOTS];
	double last_reply;		/* monotonic seconds, 0: never */
	/* Path MTU: the largest don't-fragment size acknowledged in the
	 * last completed round (0: nothing came back). */
	uint32_t path_mtu;
	bool mtu_known;
	double mtu_next, mtu_round_end;	/* monotonic; round_end 0: none */
	uint32_t mtu_best;
	uint64_t mtu_round;
};

struct mon_run {
	struct monitor *m;
	struct pinglist pl;
	char *text;			/* the pinglist as received, to keep */
	int fd[PL_NETS];		/* -1: network not probed */
	ev_io rio[PL_NETS];
	ev_timer tick;
	uint32_t local_mtu[PL_NETS];
	struct mon_peer *mp;		/* npeers x networks, peer-major */
	int nmp;
	int *hash[PL_NETS];		/* source address -> mp index + 1 */
	unsigned hmask;
	int cursor;			/* next to probe, round robin */
	double credit;			/* probes owed to the schedule */
	double last_tick, last_keep;
	uint64_t rotation;		/* of pinglist_active, last applied */
	int nactive[PL_NETS];
	double since;			/* wall clock of the start */
	uint64_t echoed, strangers;	/* answered; refused datagrams */
	uint64_t sent_total;
};

/* mon_run_start: the sockets bound and the schedule started; NULL with
 * err (the pinglist's ownership passes to the run either way). */
struct mon_run *mon_run_start(struct monitor *m, struct pinglist *pl,
    char *text, char *err);
void mon_run_stop(struct mon_run *r);
/* mon_error records what went wrong last, for status and the log. */
void mon_error(struct monitor *m, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
double mon_wall(void);
double mon_mono(void);

/* metrics.c */
int metrics_open(struct monitor *m, char *err);
void metrics_close(struct monitor *m);
/* metrics_render: the text exposition of m's state (caller frees). */
char *metrics_render(const struct monitor *m, size_t *len);

#endif
