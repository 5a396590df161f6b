/* config: agent.conf parser, see config.h. */
#include "config.h"
#include "ini.h"
#include "json.h"
#include "units.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void
config_defaults(struct agent_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->port = 7470;
	snprintf(cfg->key_path, sizeof(cfg->key_path), "%s",
	    AGENT_KEY_DEFAULT);
	cfg->max_sessions = 8;
	cfg->max_conns = 256;
	cfg->max_unauth_per_source = 16;
	cfg->auth_timeout = 5.0;
	cfg->idle_timeout = 60.0;
	cfg->max_streams = 128;
	cfg->max_tests = 16;
	snprintf(cfg->vtysh, sizeof(cfg->vtysh), "/usr/bin/vtysh");
	snprintf(cfg->ovs_appctl, sizeof(cfg->ovs_appctl),
	    "/usr/bin/ovs-appctl");
	snprintf(cfg->ovs_rundir, sizeof(cfg->ovs_rundir), "/run/openvswitch");
	cfg->max_duration = 300;
	cfg->max_rate = 0;
	snprintf(cfg->state_dir, sizeof(cfg->state_dir), "%s",
	    STATE_DIR_DEFAULT);
	cfg->metrics_port = METRICS_PORT_DEFAULT;
	cfg->monitor_max_pps = 10000;
}

/* endpoint: "ADDR:PORT", "ADDR" (*port unchanged), "[V6]:PORT" or
 * ":PORT" (every address: family 0); -1 when it is none of them. */
static int
endpoint(const char *val, struct netaddr *a, uint16_t *port)
{
	memset(a, 0, sizeof(*a));
	if (val[0] == ':') {
		char *end;
		unsigned long v = strtoul(val + 1, &end, 10);

		if (val[1] == '\0' || *end != '\0' || v == 0 || v > 65535)
			return -1;
		*port = (uint16_t)v;
		return 0;
	}
	return netaddr_parse_endpoint(val, a, port);
}

int
config_set_listen(struct agent_config *cfg, const char *val, char *err)
{
	if (endpoint(val, &cfg->listen, &cfg->port) == -1) {
		snprintf(err, CF_ERRLEN, "listen: '%s' is not ADDR:PORT, ADDR "
		    "or :PORT", val);
		return -1;
	}
	return 0;
}

/* config_metrics parses metrics_listen: "ADDR:PORT", "ADDR" (port 7471),
 * ":PORT" (every address), or "off". */
static int
config_metrics(struct agent_config *cfg, const char *val, char *err)
{
	struct netaddr a;
	uint16_t port = METRICS_PORT_DEFAULT;

	if (strcmp(val, "off") == 0) {
		cfg->metrics_on = false;
		return 0;
	}
	if (endpoint(val, &a, &port) == -1) {
		snprintf(err, CF_ERRLEN, "metrics_listen: '%s' is not "
		    "ADDR:PORT, ADDR, :PORT or off", val);
		return -1;
	}
	cfg->metrics_on = true;
	cfg->metrics_addr = a;
	cfg->metrics_port = port;
	return 0;
}

static int
config_uint(const char *key, const char *val, unsigned min, unsigned max,
    unsigned *out, char *err)
{
	char *end;
	unsigned long v = strtoul(val, &end, 10);

	if (*val == '\0' || *end != '\0' || v < min || v > max) {
		snprintf(err, CF_ERRLEN, "%s: '%s' is not a whole number in "
		    "[%u, %u]", key, val, min, max);
		return -1;
	}
	*out = (unsigned)v;
	return 0;
}

static int
config_secs(const char *key, const char *val, double min, double max,
    double *out, char *err)
{
	if (units_number(val, min, max, out) == -1) {
		snprintf(err, CF_ERRLEN, "%s: '%s' is not a number of seconds "
		    "in [%g, %g]", key, val, min, max);
		return -1;
	}
	return 0;
}

/* config_allow parses a comma-separated list of CIDRs. */
static int
config_allow(struct agent_config *cfg, const char *val, char *err)
{
	char buf[1024], *tok, *save = NULL;

	snprintf(buf, sizeof(buf), "%s", val);
	cfg->nallow = 0;
	for (tok = strtok_r(buf, ", \t", &save); tok;
	    tok = strtok_r(NULL, ", \t", &save)) {
		if (cfg->nallow == CONFIG_MAX_ALLOW) {
			snprintf(err, CF_ERRLEN, "allow_targets: more than %d "
			    "subnets", CONFIG_MAX_ALLOW);
			return -1;
		}
		if (netcidr_parse(tok, &cfg->allow[cfg->nallow]) == -1) {
			snprintf(err, CF_ERRLEN, "allow_targets: '%s' is not a "
			    "subnet like 192.0.2.0/24", tok);
			return -1;
		}
		cfg->nallow++;
	}
	if (cfg->nallow == 0) {
		snprintf(err, CF_ERRLEN, "allow_targets: empty list");
		return -1;
	}
	return 0;
}

static int
config_section_cb(void *udata, const char *kind, const char *name, int line,
    char *err)
{
	(void)udata, (void)line;
	if (strcmp(kind, "agent") != 0 || *name != '\0') {
		snprintf(err, CF_ERRLEN, "unknown section [%s%s%s] (only "
		    "[agent])", kind, *name ? " " : "", name);
		return -1;
	}
	return 0;
}

/* The numeric keys: counts (unsigned) and durations (seconds), with
 * their ranges and fields. */
static const struct config_num {
	const char *key;
	double min, max;
	bool secs;
	size_t off;
} config_nums[] = {
#define CN(key, min, max, secs, field) \
	{ key, min, max, secs, offsetof(struct agent_config, field) }
	CN("max_sessions", 1, 1024, false, max_sessions),
	CN("max_conns", 1, 65536, false, max_conns),
	CN("max_unauth_per_source", 1, 65536, false, max_unauth_per_source),
	CN("auth_timeout", 0.1, 60, true, auth_timeout),
	CN("idle_timeout", 1, 86400, true, idle_timeout),
	CN("max_tests", 1, 256, false, max_tests),
	CN("max_streams", 1, 1024, false, max_streams),
	CN("max_duration", 1, 86400, true, max_duration),
	CN("monitor_max_pps", 1, 1000000, false, monitor_max_pps),
#undef CN
	{ NULL, 0, 0, false, 0 }
};

static int
config_pair_cb(void *udata, const char *key, const char *val, int line,
    char *err)
{
	struct agent_config *cfg = udata;
	const struct config_num *n;

	(void)line;
	for (n = config_nums; n->key; n++) {
		char *f = (char *)cfg + n->off;

		if (strcmp(key, n->key) != 0)
			continue;
		if (n->secs)
			return config_secs(key, val, n->min, n->max,
			    (double *)(void *)f, err);
		return config_uint(key, val, (unsigned)n->min,
		    (unsigned)n->max, (unsigned *)(void *)f, err);
	}
	if (strcmp(key, "listen") == 0)
		return config_set_listen(cfg, val, err);
	if (strcmp(key, "key") == 0) {
		if (*val == '\0') {
			snprintf(err, CF_ERRLEN, "key: empty path");
			return -1;
		}
		snprintf(cfg->key_path, sizeof(cfg->key_path), "%s", val);
		return 0;
	}
	if (strcmp(key, "vtysh") == 0) {
		if (strlen(val) >= sizeof(cfg->vtysh) || (val[0] &&
		    val[0] != '/')) {
			snprintf(err, CF_ERRLEN, "vtysh: '%s' is not an "
			    "absolute path (or empty for none)", val);
			return -1;
		}
		snprintf(cfg->vtysh, sizeof(cfg->vtysh), "%s", val);
		return 0;
	}
	if (strcmp(key, "ovs_appctl") == 0 || strcmp(key, "ovs_rundir") == 0) {
		char *dst = key[4] == 'a' ? cfg->ovs_appctl : cfg->ovs_rundir;

		/* Both go into a child's argv: an absolute path, no more. */
		if (strlen(val) >= sizeof(cfg->ovs_appctl) || (val[0] &&
		    val[0] != '/')) {
			snprintf(err, CF_ERRLEN, "%s: '%s' is not an absolute "
			    "path (or empty for none)", key, val);
			return -1;
		}
		snprintf(dst, sizeof(cfg->ovs_appctl), "%s", val);
		return 0;
	}
	if (strcmp(key, "user") == 0) {
		if (strlen(val) >= sizeof(cfg->user)) {
			snprintf(err, CF_ERRLEN, "user: '%s' is too long", val);
			return -1;
		}
		snprintf(cfg->user, sizeof(cfg->user), "%s", val);
		return 0;
	}
	if (strcmp(key, "frr_pathspace") == 0) {
		size_t i;

		for (i = 0; val[i]; i++)
			if (!((val[i] >= 'a' && val[i] <= 'z') ||
			    (val[i] >= 'A' && val[i] <= 'Z') ||
			    (val[i] >= '0' && val[i] <= '9') ||
			    val[i] == '-' || val[i] == '_' || val[i] == '.'))
				break;
		if (val[i] || i >= sizeof(cfg->frr_pathspace)) {
			snprintf(err, CF_ERRLEN, "frr_pathspace: '%s' is not "
			    "a name of letters, digits, '-', '_', '.'", val);
			return -1;
		}
		snprintf(cfg->frr_pathspace, sizeof(cfg->frr_pathspace), "%s",
		    val);
		return 0;
	}
	if (strcmp(key, "max_rate") == 0) {
		if (units_rate(val, &cfg->max_rate) == -1) {
			snprintf(err, CF_ERRLEN, "max_rate: '%s' is not a rate "
			    "like 10G or 500M (bits/s)", val);
			return -1;
		}
		return 0;
	}
	if (strcmp(key, "allow_targets") == 0)
		return config_allow(cfg, val, err);
	if (strcmp(key, "metrics_listen") == 0)
		return config_metrics(cfg, val, err);
	if (strcmp(key, "state_dir") == 0) {
		if (val[0] != '/' || strlen(val) >= sizeof(cfg->state_dir) -
		    32) {
			snprintf(err, CF_ERRLEN, "state_dir: '%s' is not an "
			    "absolute path", val);
			return -1;
		}
		snprintf(cfg->state_dir, sizeof(cfg->state_dir), "%s", val);
		return 0;
	}
	if (strcmp(key, "public_network") == 0 ||
	    strcmp(key, "cluster_network") == 0) {
		struct netcidr *c = key[0] == 'p' ? &cfg->pubnet :
		    &cfg->clusnet;

		if (netcidr_parse(val, c) == -1) {
			snprintf(err, CF_ERRLEN, "%s: '%s' is not a subnet like "
			    "192.0.2.0/24", key, val);
			return -1;
		}
		if (key[0] == 'p')
			cfg->has_pubnet = true;
		else
			cfg->has_clusnet = true;
		return 0;
	}
	snprintf(err, CF_ERRLEN, "unknown key '%s'", key);
	return -1;
}

static const struct ini_handler config_handler = {
	config_section_cb, config_pair_cb
};

int
config_load(const char *path, struct agent_config *cfg, char *err)
{
	return ini_parse_file(path, &config_handler, cfg, err);
}

int
config_parse_buf(const char *name, const char *text, size_t len,
    struct agent_config *cfg, char *err)
{
	return ini_parse_buf(name, text, len, &config_handler, cfg, err);
}

bool
config_targets_open(const struct agent_config *cfg)
{
	return cfg->nallow == 0 && !cfg->has_pubnet && !cfg->has_clusnet;
}
