/*
 * mesh: 'cephfab mesh', the RTT of every ordered pair of hosts at once.
 * Every agent opens one UDP echo responder and runs one mesh runner that
 * probes all the others (agent/probe_mesh.c), so n hosts cost n sessions
 * and 2n probes instead of n(n-1) exchanges: the matrix's latency phase
 * for large clusters (hundreds of hosts in seconds).
 */
#ifndef CF_MESH_H
#define CF_MESH_H

#include <stdbool.h>
#include <stdint.h>

#include "auth.h"
#include "core/inventory.h"

struct mesh_opts {
	int net;		/* 0 public, 1 cluster */
	uint32_t count;		/* probes per ordered pair */
	uint32_t rate;		/* probes per second per agent */
	uint32_t size;		/* UDP payload bytes */
	bool json;
	double timeout;
	/* The matrix: store the pairs' latency cells into run of db (a
	 * cell already there is kept) and print only a summary. */
	const char *db;
	int64_t run;
	const char *test;	/* the cells' test name, default "lat" */
};

/* mesh_run measures and prints (JSON or a summary); returns EXIT_*: 0
 * every pair answered, 1 some pairs lost probes or could not be
 * measured, 3 nothing could be measured. */
int mesh_run(struct inventory *inv, const struct auth_key *key,
    const struct mesh_opts *o);

#endif
