/*
 * cwatch: 'cephfab watch': every agent captures the real traffic of one
 * Ceph network (agent/watch.c) and streams per-peer figures each
 * interval: a live table per host pair on a TTY, JSON lines in a pipe.
 */
#ifndef CF_CWATCH_H
#define CF_CWATCH_H

#include <stdbool.h>

#include <cjson/cJSON.h>

#include "auth.h"
#include "core/core.h"

struct watch_opts {
	int net;		/* 0 public, 1 cluster */
	double interval, duration;
	const char *filter;	/* NULL: Ceph's ports */
	bool json;
	double timeout;
};

/* An interval names at most this many peers (an agent watches at most
 * 1,024; room for both families). */
#define WATCH_MAX_PEERS_IN 4096

/* watch_peers_decode (watch_decode.c): an interval's "peers", rebuilt from
 * the checked fields (peer address, tx_mbps, rx_mbps, the tx and rx
 * figures); NULL with err naming the field. */
cJSON *watch_peers_decode(const cJSON *body, char *err);

/* watch_run: 0 when every host watched to the end, 1 when some could
 * not (named on stderr and in the output), 3 when none could. */
int watch_run(struct inventory *inv, const struct auth_key *key,
    const struct watch_opts *o);

#endif
