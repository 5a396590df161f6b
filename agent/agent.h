/*
 * agent: the agent's control loop: a listener, authenticated sessions with
 * coordinators, and the STATUS service. Later modules (throughput, probes,
 * facts, capture) hang their requests off agent_message().
 */
#ifndef CF_AGENT_H
#define CF_AGENT_H

#include <stdint.h>
#include "queue_compat.h"
#include <time.h>

#include <ev.h>

#include "auth.h"
#include "config.h"
#include "conn.h"
#include "engine/engine.h"
#include "facts/facts.h"
#include "capture/watch.h"
#include "probes/probe.h"
#include "monitor/monitor.h"

struct agent_peer {
	TAILQ_ENTRY(agent_peer) entry;
	struct agent *agent;
	struct conn *conn;
	int authed;
	struct netaddr src;		/* the peer's address, for its budget */
};

struct agent {
	struct ev_loop *loop;
	const struct agent_config *cfg;
	struct auth_key key;
	struct conn_ctx ctx;
	int lfd;
	ev_io accept_w;
	ev_timer accept_pause;
	ev_signal sigint_w, sigterm_w;
	TAILQ_HEAD(, agent_peer) peers;
	unsigned nconns, nsessions;
	uint64_t refused;
	uint64_t evicted;		/* unauthenticated, closed for room */
	struct timespec started;	/* CLOCK_MONOTONIC */
	char hostname[256];
	char bound[NETADDR_STRLEN];
	struct engine engine;
	struct probes probes;
	struct facts_ctx facts;
	struct watches watches;
	struct monitor monitor;
};

/* agent_init copies the key, binds the listener and sets up signal
 * handling on loop. proto overrides the protocol version (testing only; 0
 * for the real one). Returns 0 or -1 with err set. */
int agent_init(struct agent *a, struct ev_loop *loop,
    const struct agent_config *cfg, const struct auth_key *key,
    unsigned proto, char *err);
/* agent_run runs the loop until SIGINT/SIGTERM, then closes every
 * connection and the listener. */
void agent_run(struct agent *a);
void agent_fini(struct agent *a);

#endif
