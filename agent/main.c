/*
 * cephfab-agent: runs on every Ceph node and serves the coordinator.
 * main.c parses arguments and wires modules; the logic lives in agent.c.
 */
#include <errno.h>
#include <getopt.h>
#include <grp.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ev.h>
#include <openssl/crypto.h>

#include "agent.h"
#include "capture/capture.h"
#include "config.h"
#include "log.h"
#include "optable.h"
#include "msg.h"

/* drop_privileges: become user, for good (groups, gid, uid), once the
 * listener and the capture handles are open. */
static int
drop_privileges(const char *user, char *err)
{
	struct passwd *pw = getpwnam(user);

	if (pw == NULL) {
		snprintf(err, CF_ERRLEN, "user = %s: no such user", user);
		return -1;
	}
	/* The user's own groups, and only those: vtysh needs FRR's frrvty
	 * group, root's groups go. */
	if (initgroups(pw->pw_name, pw->pw_gid) == -1 ||
	    setgid(pw->pw_gid) == -1 || setuid(pw->pw_uid) == -1) {
		snprintf(err, CF_ERRLEN, "user = %s: %s", user,
		    strerror(errno));
		return -1;
	}
	if (setuid(0) == 0) {
		snprintf(err, CF_ERRLEN, "user = %s: root could be regained",
		    user);
		return -1;
	}
	log_info("running as %s (uid %u)", user, (unsigned)pw->pw_uid);
	return 0;
}

static void
usage(FILE *f)
{
	fprintf(f,
	    "usage: cephfab-agent [-dnv] [-c FILE] [--listen ADDR:PORT] "
	    "[--key FILE]\n"
	    "  -c, --config FILE   configuration (default %s if it exists)\n"
	    "  -l, --listen A:P    control address (default 0.0.0.0:7470)\n"
	    "  -k, --key FILE      pre-shared key (default %s)\n"
	    "  -d, --foreground    stay in the foreground, log to stderr\n"
	    "  -v, --verbose       debug logging\n"
	    "  -n, --check         check the configuration and key, then "
	    "exit\n"
	    "  -V, --version       print the version\n"
	    "      --analyze FILE  analyze a saved capture (pcap/pcapng) "
	    "offline and exit\n"
	    "      --json          with --analyze: JSON\n"
	    "      --flows N       with --analyze: flow table cap (default "
	    "65536)\n",
	    AGENT_CONF_DEFAULT, AGENT_KEY_DEFAULT);
}

int
main(int argc, char **argv)
{
	static const struct option opts[] = {
		OPT_ARG("config", 'c'), OPT_ARG("listen", 'l'),
		OPT_ARG("key", 'k'), OPT_FLAG("foreground", 'd'),
		OPT_FLAG("verbose", 'v'), OPT_FLAG("check", 'n'),
		OPT_FLAG("version", 'V'), OPT_FLAG("help", 'h'),
		/* Testing only: speak another protocol version. */
		OPT_ARG("x-proto-version", 'P'), OPT_ARG("analyze", 'A'),
		OPT_FLAG("json", 'J'), OPT_ARG("flows", 'F'), OPT_END
	};
	struct agent_config cfg;
	struct agent agent;
	struct auth_key key;
	const char *conf = NULL, *listen_arg = NULL, *key_arg = NULL;
	char err[CF_ERRLEN];
	int ch, foreground = 0, verbose = 0, check = 0, json = 0;
	const char *analyze = NULL;
	unsigned long flows = 0;
	char *end;
	unsigned proto = 0;
	struct ev_loop *loop;

	while ((ch = getopt_long(argc, argv, "c:l:k:dvnVh", opts, NULL)) != -1) {
		switch (ch) {
		case 'c': conf = optarg; break;
		case 'l': listen_arg = optarg; break;
		case 'k': key_arg = optarg; break;
		case 'd': foreground = 1; break;
		case 'v': verbose = 1; break;
		case 'n': check = 1; break;
		case 'V':
			printf("cephfab-agent %s (protocol %d)\n", CF_VERSION,
			    CF_PROTO_VERSION);
			return 0;
		case 'h': usage(stdout); return 0;
		case 'P': proto = (unsigned)strtoul(optarg, NULL, 10); break;
		case 'A': analyze = optarg; break;
		case 'J': json = 1; break;
		case 'F':
			flows = strtoul(optarg, &end, 10);
			if (*optarg == '\0' || *end != '\0' || flows < 1 ||
			    flows > 10000000) {
				fprintf(stderr, "cephfab-agent: --flows: '%s' is "
				    "not a number in [1, 10000000]\n", optarg);
				return 2;
			}
			break;
		default: usage(stderr); return 2;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "cephfab-agent: unexpected argument '%s'\n",
		    argv[optind]);
		return 2;
	}
	log_init("cephfab-agent", 1, verbose);
	if (analyze)
		return capture_analyze_file(analyze, json, (unsigned)flows);
	config_defaults(&cfg);
	if (conf == NULL && access(AGENT_CONF_DEFAULT, F_OK) == 0)
		conf = AGENT_CONF_DEFAULT;
	if (conf != NULL && config_load(conf, &cfg, err) == -1) {
		fprintf(stderr, "cephfab-agent: %s\n", err);
		return 2;
	}
	if (listen_arg != NULL && config_set_listen(&cfg, listen_arg, err)) {
		fprintf(stderr, "cephfab-agent: --%s\n", err);
		return 2;
	}
	if (key_arg != NULL)
		snprintf(cfg.key_path, sizeof(cfg.key_path), "%s", key_arg);
	/* The key is checked before daemonising so that a bad one fails
	 * where the admin can see it. */
	if (auth_key_load(cfg.key_path, &key, err) == -1) {
		fprintf(stderr, "cephfab-agent: %s\n", err);
		return 2;
	}
	if (check) {
		printf("%s: configuration OK\n", conf ? conf : "(defaults)");
		if (config_targets_open(&cfg))
			printf("warning: no public_network, cluster_network or "
			    "allow_targets: a coordinator may send test traffic "
			    "to every subnet this host is on (its management "
			    "network and loopback included); set the Ceph "
			    "networks in agent.conf\n");
		if (cfg.max_rate == 0)
			printf("warning: no max_rate: a coordinator may make "
			    "this agent send as fast as its links go\n");
		return 0;
	}
	if (!foreground) {
		if (daemon(0, 0) == -1) {
			fprintf(stderr, "cephfab-agent: daemon failed\n");
			return 3;
		}
		log_init("cephfab-agent", 0, verbose);
	}
	signal(SIGPIPE, SIG_IGN);
	loop = ev_default_loop(EVFLAG_AUTO);
	if (loop == NULL) {
		log_warnx("cannot initialise libev");
		return 3;
	}
	if (agent_init(&agent, loop, &cfg, &key, proto, err) == -1) {
		log_warnx("%s", err);
		agent_fini(&agent);
		return 3;
	}
	OPENSSL_cleanse(&key, sizeof(key));
	if (cfg.user[0] && drop_privileges(cfg.user, err) == -1) {
		log_warnx("%s", err);
		agent_fini(&agent);
		return 3;
	}
	agent_run(&agent);
	agent_fini(&agent);
	ev_loop_destroy(loop);
	log_info("stopped");
	return 0;
}
