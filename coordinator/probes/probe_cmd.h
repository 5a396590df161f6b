/*
 * probecmd: 'cephfab latency', 'mtu', 'ports' and 'reach': probes between
 * two hosts, each a pex (pex.h) over sessions to both agents, reported
 * with findings (mtu_blackhole, filtered/refused ports, unreachable,
 * wrong_egress).
 */
#ifndef CF_PROBECMD_H
#define CF_PROBECMD_H

#include <stdbool.h>
#include <stdint.h>

#include "auth.h"
#include "core/inventory.h"

enum probe_cmd_kind { PC_LATENCY, PC_MTU, PC_PORTS, PC_REACH };

struct probe_cmd_opts {
	enum probe_cmd_kind kind;
	const char *a, *b;
	int net, to_net;	/* 0 public, 1 cluster; to_net for reach */
	bool tcp;
	uint32_t sizes[16];
	int nsizes;
	uint32_t count;
	double duration;
	uint32_t rate;
	bool loaded;
	uint16_t ports[128];
	int nports;
	bool json;
	double timeout;
	const char *inventory_path, *key_path;	/* for --loaded's child */
};

int probe_cmd_run(struct inventory *inv, const struct auth_key *key,
    const struct probe_cmd_opts *o);

#endif
