/*
 * probe: the agent's side of latency, path-MTU, port and reachability
 * probes. A responder (PROBE_OPEN: UDP or TCP echo, or temporary port
 * listeners) serves the peer's runner (PROBE_RUN), which works in its own
 * thread and answers with its results. Every probe is bounded: count,
 * rate and duration limits are the agent's own, and a responder closes by
 * itself at its deadline.
 */
#ifndef CF_PROBE_H
#define CF_PROBE_H

#include <stdbool.h>
#include <sys/queue.h>

#include <ev.h>

#include "config.h"
#include "conn.h"

#define PROBE_MAX 32		/* probes at once per agent */

struct probe;

struct probes {
	struct ev_loop *loop;
	const struct agent_config *cfg;
	TAILQ_HEAD(, probe) list;
	unsigned n;
};

void probes_init(struct probes *ps, struct ev_loop *loop,
    const struct agent_config *cfg);
/* probes_message handles PROBE_* requests; 0 if not a probe message. */
int probes_message(struct probes *ps, struct conn *c,
    const struct frame_hdr *h, const cJSON *body);
/* probes_conn_closed ends every probe owned by c. */
void probes_conn_closed(struct probes *ps, struct conn *c);
void probes_fini(struct probes *ps);

/* probe_allowed is engine.c's allow_targets check, shared. */
int engine_target_allowed_cfg(const struct agent_config *cfg,
    const struct netaddr *addr, char *why);

#endif
