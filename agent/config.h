/*
 * config: the agent's configuration file (agent.conf), in the same syntax as
 * inventories (see include/ini.h). Every key is documented in
 * configs/README.md; an unknown key is an error, never silently ignored.
 */
#ifndef CF_AGENT_CONFIG_H
#define CF_AGENT_CONFIG_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#include "netaddr.h"

#define AGENT_CONF_DEFAULT "/etc/cephfab/agent.conf"
#define AGENT_KEY_DEFAULT "/etc/cephfab/key"

struct agent_config {
	struct netaddr listen;		/* family 0: all IPv4 addresses */
	uint16_t port;
	char key_path[PATH_MAX];
	unsigned max_sessions;		/* authenticated coordinators */
	unsigned max_conns;		/* sockets of any kind */
	unsigned max_unauth_per_source;	/* handshakes from one address */
	double auth_timeout;
	double idle_timeout;
	/* Test limits, enforced whatever a coordinator asks. */
	unsigned max_streams;		/* per test, all directions; and of
					   shared tests together */
	unsigned max_tests;		/* shared tests at once */
	double max_duration;		/* seconds */
	uint64_t max_rate;		/* bits/s per test, 0 = no limit */
	/* Where this agent may send test traffic. Empty: the configured
	 * public and cluster networks, else the host's own subnets. */
#define CONFIG_MAX_ALLOW 32
	struct netcidr allow[CONFIG_MAX_ALLOW];
	int nallow;
	struct netcidr pubnet, clusnet;
	bool has_pubnet, has_clusnet;
	/* FRR, for the facts: vtysh's path ("" = none) and its -N. */
	char vtysh[PATH_MAX];
	char frr_pathspace[64];
	/* Open vSwitch, for the facts and the spread of OVS bonds:
	 * ovs-appctl's path and the directory of ovs-vswitchd's pid file
	 * and control socket ("" = none). */
	char ovs_appctl[PATH_MAX];
	char ovs_rundir[PATH_MAX];
	/* After the listener and the capture handles are open, run as
	 * this user ("" = stay). */
	char user[64];
	/* Monitoring: where the pinglist is kept, and the Prometheus
	 * endpoint (off unless metrics_listen is set). */
	char state_dir[PATH_MAX];
	bool metrics_on;
	struct netaddr metrics_addr;	/* family 0: all IPv4 addresses */
	uint16_t metrics_port;
	unsigned monitor_max_pps;	/* probes per second, all peers */
};

#define METRICS_PORT_DEFAULT 7471
#define STATE_DIR_DEFAULT "/var/lib/cephfab"

void config_defaults(struct agent_config *cfg);
/* config_load reads path into cfg (over the defaults already there).
 * Returns 0, or -1 with "file:line: message" in err. */
int config_load(const char *path, struct agent_config *cfg, char *err);
int config_parse_buf(const char *name, const char *text, size_t len,
    struct agent_config *cfg, char *err);
/* config_set_listen parses "ADDR:PORT", "ADDR", "[V6]:PORT" or ":PORT". */
int config_set_listen(struct agent_config *cfg, const char *val, char *err);

/* config_targets_open: nothing names where test traffic may go (no
 * allow_targets, public_network or cluster_network): every subnet the
 * host is on is allowed. */
bool config_targets_open(const struct agent_config *cfg);

#endif
