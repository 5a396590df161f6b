/*
 * monitor_cmd: 'cephfab monitor start|stop|status': every agent is given its
 * pinglist (agent/monitor/) and then probes its peers on its own, with no
 * coordinator connected; stop ends it; status shows each agent's.
 *
 * Who probes whom: every peer on each network for clusters up to
 * MONITOR_ALL_MAX hosts; above, Pingmesh's scheme (every peer of the own
 * rack, K of every other rack, rotated), so that the probes per agent
 * grow with racks, not hosts.
 */
#ifndef CF_MONITOR_CMD_H
#define CF_MONITOR_CMD_H

#include <stdbool.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "auth.h"
#include "core/core.h"

#define MONITOR_ALL_MAX 64
#define MONITOR_K_DEFAULT 2
#define MONITOR_ROTATE_DEFAULT 300

enum monitor_op { MON_START, MON_STOP, MON_STATUS };

struct monitor_opts {
	enum monitor_op op;
	int nets;			/* bit 0 public, bit 1 cluster */
	double rate;			/* probes per second per peer */
	int peers;			/* -1 auto, 0 all, else K per rack */
	double rotate;			/* seconds per rotation (rack mode) */
	double mtu_every;
	uint16_t port;			/* UDP; 0: each agent's control port */
	uint32_t timeout_ms;
	bool json;
	double timeout;
};

/* pinglist_build: host h's pinglist under o (token: PL_TOKEN_LEN
 * bytes shared by all); NULL when h has no address on the networks. */
cJSON *pinglist_build(const struct inventory *inv,
    const struct inv_host *h, const struct monitor_opts *o,
    const uint8_t *token);
/* monitor_cmd_run: 0 when every agent did it, 1 when some did not (named),
 * 3 when none did. */
int monitor_cmd_run(struct inventory *inv, const struct auth_key *key,
    const struct monitor_opts *o);

#endif
