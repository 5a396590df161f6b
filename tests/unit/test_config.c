/* Unit tests for agent/config.c. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "cf_unit.h"

#include "config.h"
#include "json.h"

static int
parse(const char *text, struct agent_config *cfg, char *err)
{
	config_defaults(cfg);
	return config_parse_buf("agent.conf", text, strlen(text), cfg, err);
}

static void
test_defaults_and_keys(void **state)
{
	struct agent_config cfg;
	char err[CF_ERRLEN], buf[NETADDR_STRLEN];

	(void)state;
	assert_int_equal(parse("", &cfg, err), 0);
	assert_int_equal(cfg.port, 7470);
	assert_int_equal(cfg.listen.family, 0);
	assert_string_equal(cfg.key_path, "/etc/cephfab/key");
	assert_int_equal(parse("# comment\n[agent]\nlisten = 192.0.2.5:7471\n"
	    "key = /k   # trailing\nmax-sessions = 3\nmax conns = 9\n"
	    "auth_timeout = 2.5\nidle_timeout = 30\n", &cfg, err), 0);
	assert_string_equal(netaddr_str(&cfg.listen, buf, sizeof(buf)),
	    "192.0.2.5");
	assert_int_equal(cfg.port, 7471);
	assert_string_equal(cfg.key_path, "/k");
	assert_int_equal(cfg.max_sessions, 3);
	assert_int_equal(cfg.max_conns, 9);
	assert_true(cfg.auth_timeout == 2.5);
	assert_true(cfg.idle_timeout == 30);
	assert_int_equal(parse("listen = :9000\n", &cfg, err), 0);
	assert_int_equal(cfg.port, 9000);
	assert_int_equal(parse("listen = [::1]:9001\n", &cfg, err), 0);
	assert_int_equal(cfg.listen.family, AF_INET6);
}

static void
test_errors_name_line(void **state)
{
	struct agent_config cfg;
	char err[CF_ERRLEN];

	(void)state;
	assert_int_equal(parse("\n\nlisten = nowhere\n", &cfg, err), -1);
	assert_string_equal(err, "agent.conf:3: listen: 'nowhere' is not "
	    "ADDR:PORT, ADDR or :PORT");
	assert_int_equal(parse("lsten = 1\n", &cfg, err), -1);
	assert_string_equal(err, "agent.conf:1: unknown key 'lsten'");
	assert_int_equal(parse("[global]\n", &cfg, err), -1);
	assert_string_equal(err, "agent.conf:1: unknown section [global] "
	    "(only [agent])");
	assert_int_equal(parse("max_sessions = 0\n", &cfg, err), -1);
	assert_int_equal(parse("max_sessions = 2x\n", &cfg, err), -1);
	assert_int_equal(parse("auth_timeout = 0\n", &cfg, err), -1);
	assert_int_equal(parse("idle_timeout = nan\n", &cfg, err), -1);
	assert_int_equal(parse("key =\n", &cfg, err), -1);
	assert_int_equal(parse("just words\n", &cfg, err), -1);
	assert_string_equal(err, "agent.conf:1: expected 'key = value' or "
	    "'[section]'");
}

/* The monitor's keys: off by default, the port 7471 when only an
 * address is given, every address with ":PORT", refusals named. */
static void
test_monitor_keys(void **state)
{
	struct agent_config cfg;
	char err[CF_ERRLEN], buf[NETADDR_STRLEN];

	(void)state;
	assert_int_equal(parse("", &cfg, err), 0);
	assert_false(cfg.metrics_on);
	assert_string_equal(cfg.state_dir, "/var/lib/cephfab");
	assert_int_equal(cfg.monitor_max_pps, 10000);
	assert_int_equal(parse("metrics_listen = 192.0.2.5\n", &cfg, err), 0);
	assert_true(cfg.metrics_on);
	assert_int_equal(cfg.metrics_port, 7471);
	assert_string_equal(netaddr_str(&cfg.metrics_addr, buf, sizeof(buf)),
	    "192.0.2.5");
	assert_int_equal(cfg.port, 7470);	/* the control port untouched */
	assert_int_equal(parse("metrics_listen = :9999\nstate_dir = /s\n"
	    "monitor_max_pps = 50\n", &cfg, err), 0);
	assert_true(cfg.metrics_on);
	assert_int_equal(cfg.metrics_addr.family, 0);
	assert_int_equal(cfg.metrics_port, 9999);
	assert_string_equal(cfg.state_dir, "/s");
	assert_int_equal(cfg.monitor_max_pps, 50);
	assert_int_equal(parse("metrics_listen = :7471\nmetrics_listen = off\n",
	    &cfg, err), 0);
	assert_false(cfg.metrics_on);
	assert_int_equal(parse("metrics_listen = :0\n", &cfg, err), -1);
	assert_string_equal(err, "agent.conf:1: metrics_listen: ':0' is not "
	    "ADDR:PORT, ADDR, :PORT or off");
	assert_int_equal(parse("state_dir = var/lib\n", &cfg, err), -1);
	assert_string_equal(err, "agent.conf:1: state_dir: 'var/lib' is not "
	    "an absolute path");
	assert_int_equal(parse("monitor_max_pps = 0\n", &cfg, err), -1);
}

/* Open vSwitch: the defaults, set, empty for none, a relative path refused
 * with its key named. */
static void
test_ovs_keys(void **state)
{
	struct agent_config cfg;
	char err[CF_ERRLEN];

	(void)state;
	assert_int_equal(parse("", &cfg, err), 0);
	assert_string_equal(cfg.ovs_appctl, "/usr/bin/ovs-appctl");
	assert_string_equal(cfg.ovs_rundir, "/run/openvswitch");
	assert_int_equal(parse("ovs_rundir = /run/lab/ovs-h1\novs_appctl =\n",
	    &cfg, err), 0);
	assert_string_equal(cfg.ovs_rundir, "/run/lab/ovs-h1");
	assert_string_equal(cfg.ovs_appctl, "");
	assert_int_equal(parse("\novs_rundir = run/ovs\n", &cfg, err), -1);
	assert_non_null(strstr(err, "agent.conf:2: ovs_rundir"));
}

CF_UNIT_MAIN(NULL, NULL,
    cmocka_unit_test(test_defaults_and_keys),
    cmocka_unit_test(test_monitor_keys),
    cmocka_unit_test(test_ovs_keys),
    cmocka_unit_test(test_errors_name_line))
