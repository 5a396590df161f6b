/*
 * hosts: 'cephfab hosts': connect to every agent of the inventory at once,
 * authenticate, ask for STATUS and report one row per host.
 */
#ifndef CF_HOSTS_H
#define CF_HOSTS_H

#include <stdbool.h>
#include <stdint.h>

#include "auth.h"
#include "core/inventory.h"

struct hosts_opts {
	int json;
	double timeout;		/* per agent: connect + handshake + reply */
	bool facts;		/* also FACTS: links, bonds, routes, FRR */
	/* The matrix: each host's facts stored as a cell of run in db
	 * (network "host", test "facts") as it arrives. */
	const char *db;
	int64_t run;
};

/* hosts_run returns EXIT_PASS when every host is ok, EXIT_PROBLEMS when
 * any is not, EXIT_RUNTIME when the check itself could not run. */
int hosts_run(struct inventory *inv, const struct auth_key *key,
    const struct hosts_opts *o);

#endif
