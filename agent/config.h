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
	/* After the listener and the capture handles are open, run as
	 * this user ("" = stay). */
	char user[64];
};

void config_defaults(struct agent_config *cfg);
/* config_load reads path into cfg (over the defaults already there).
 * Returns 0, or -1 with "file:line: message" in err. */
int config_load(const char *path, struct agent_config *cfg, char *err);
int config_parse_buf(const char *name, const char *text, size_t len,
    struct agent_config *cfg, char *err);
/* config_set_listen parses "ADDR:PORT", "ADDR", "[V6]:PORT" or ":PORT". */
int config_set_listen(struct agent_config *cfg, const char *val, char *err);

#endif
