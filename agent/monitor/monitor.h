/*
 * monitor: the agent's continuous probing ('cephfab monitor start'): UDP
 * echo probes to the peers of its pinglist at a low rate, a periodic
 * don't-fragment probe at the port's MTU, and the counters, RTT histograms
 * and path MTUs that the metrics endpoint (metrics.c) serves to
 * Prometheus. Everything runs on the agent's loop: non-blocking sockets
 * and timers, no thread but the one that saves the pinglist to state_dir
 * (an fsync must not delay the echoes other agents are timing).
 *
 * It runs with no coordinator connected: the pinglist is kept in
 * state_dir/monitor.json and taken up again when the agent starts.
 */
#ifndef CF_MONITOR_H
#define CF_MONITOR_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include <ev.h>

#include "config.h"
#include "conn.h"

struct mon_run;
struct metrics_conn;

struct monitor {
	struct ev_loop *loop;
	const struct agent_config *cfg;
	const char *hostname;
	struct mon_run *run;		/* NULL: not monitoring */
	char last_error[CF_ERRLEN];	/* "" when none */
	double last_error_at;		/* wall clock */
	uint64_t save_gen;		/* the newest save asked for */
	/* The metrics endpoint (metrics_listen), -1 when off. */
	int mfd;
	ev_io maccept;
	struct metrics_conn *mconns;
	unsigned nmconns;
	uint64_t scrapes;
};

/* monitor_init: the metrics endpoint opened (when configured) and the
 * kept pinglist taken up; -1 with err when the endpoint cannot listen. */
int monitor_init(struct monitor *m, struct ev_loop *loop,
    const struct agent_config *cfg, const char *hostname, char *err);
/* monitor_message serves MONITOR {op: start|stop|status}. */
void monitor_message(struct monitor *m, struct conn *c,
    const struct frame_hdr *h, const cJSON *body);
void monitor_fini(struct monitor *m);

#endif
