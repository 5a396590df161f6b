/*
 * facts: the FACTS request. In a worker thread (netlink dumps, sysfs and
 * vtysh children are blocking, if briefly, so never on the event loop):
 * links and bonds (netlink.h), addresses, the FIB entry for every peer
 * the coordinator names, the sysctls that matter for multipath and TCP,
 * and FRR's view (OSPF neighbours, BGP summary, BFD peers, the routes to
 * the peers) when vtysh is there, each vtysh call bounded by a timeout.
 */
#ifndef CF_FACTS_H
#define CF_FACTS_H

#include <ev.h>

#include "config.h"
#include "conn.h"
#include "queue_compat.h"

struct facts_job;

struct facts_ctx {
	struct ev_loop *loop;
	const struct agent_config *cfg;
	TAILQ_HEAD(, facts_job) jobs;	/* requests in their threads */
	unsigned running;
};

void facts_init(struct facts_ctx *fc, struct ev_loop *loop,
    const struct agent_config *cfg);
/* facts_message handles MSG_FACTS; 0 when the message is not one. */
int facts_message(struct facts_ctx *fc, struct conn *c,
    const struct frame_hdr *h, const cJSON *body);
/* facts_conn_closed: results for c are dropped when they come. */
void facts_conn_closed(struct facts_ctx *fc, struct conn *c);
/* facts_fini waits for the threads still running. */
void facts_fini(struct facts_ctx *fc);

/* facts_collect builds the facts document (caller frees); used by the
 * thread and by 'cephfab-agent --facts'. peers may be NULL. */
cJSON *facts_collect(const struct agent_config *cfg, const cJSON *peers,
    bool frr);

#endif
