/* cli_monitor: 'cephfab monitor start|stop|status', see cli.h and
 * monitor/monitor_cmd.h. */
#include "cli/cli.h"
#include "monitor/monitor_cmd.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { O_NET = 256, O_RATE, O_PEERS, O_MTU_EVERY, O_PORT, O_ROTATE,
    O_PTIMEOUT };

static const struct num_opt monitor_nums[] = {
	NUM_OPT(O_RATE, "--rate", 0.01, 100, NUM_DOUBLE, struct monitor_opts,
	    rate),
	NUM_OPT(O_MTU_EVERY, "--mtu-every", 0, 86400, NUM_DOUBLE,
	    struct monitor_opts, mtu_every),
	NUM_OPT(O_PORT, "--port", 1, 65535, NUM_U16, struct monitor_opts,
	    port),
	NUM_OPT(O_ROTATE, "--rotate", 1, 604800, NUM_DOUBLE,
	    struct monitor_opts, rotate),
	NUM_OPT(O_PTIMEOUT, "--probe-timeout", 10, 10000, NUM_U32,
	    struct monitor_opts, timeout_ms),
	NUM_END
};

static void
usage(FILE *f)
{
	fprintf(f,
	    "usage: cephfab -i INV monitor start [--net public,cluster] "
	    "[--rate PPS]\n"
	    "         [--peers all|rack,K] [--mtu-every S] [--json]\n"
	    "       cephfab -i INV monitor stop|status [--json]\n"
	    "  every agent probes its peers on its own, with no coordinator "
	    "connected,\n"
	    "  keeps its pinglist in state_dir and serves the figures at "
	    "metrics_listen\n"
	    "  --net LIST      networks to probe (default: both where hosts "
	    "have them)\n"
	    "  --rate PPS      probes per second to each peer (default 1)\n"
	    "  --peers all|rack,K  every peer (default up to %d hosts), or "
	    "every peer of\n"
	    "                  the own rack and K of each other rack, rotated "
	    "(default\n"
	    "                  rack,%d above)\n"
	    "  --rotate S      seconds between rotations (default %d)\n"
	    "  --mtu-every S   a don't-fragment probe at the port's MTU every "
	    "S seconds\n"
	    "                  (default 60, 0: never)\n"
	    "  --port P        UDP port of the probes (default: the agents' "
	    "port, 7470)\n"
	    "  --probe-timeout MS  a probe unanswered by then is lost "
	    "(default 1000)\n"
	    "exit: 0 every agent did it, 1 some did not (named on stderr), "
	    "2 usage, 3 none\n", MONITOR_ALL_MAX, MONITOR_K_DEFAULT,
	    MONITOR_ROTATE_DEFAULT);
}

static int
parse_peers(const char *v, struct monitor_opts *o)
{
	char *end;
	unsigned long k;

	if (strcmp(v, "all") == 0) {
		o->peers = 0;
		return 0;
	}
	if (strncmp(v, "rack,", 5) == 0) {
		k = strtoul(v + 5, &end, 10);
		if (v[5] != '\0' && *end == '\0' && k >= 1 && k <= 4096) {
			o->peers = (int)k;
			return 0;
		}
	}
	fprintf(stderr, "cephfab: monitor: --peers: '%s' is not all or "
	    "rack,K (K from 1 to 4096)\n", v);
	return -1;
}

int
cmd_monitor(const struct gopts *g, int argc, char **argv)
{
	static const struct option lo[] = {
		OPT_ARG("net", O_NET), OPT_ARG("rate", O_RATE),
		OPT_ARG("peers", O_PEERS), OPT_ARG("mtu-every", O_MTU_EVERY),
		OPT_ARG("port", O_PORT), OPT_ARG("rotate", O_ROTATE),
		OPT_ARG("probe-timeout", O_PTIMEOUT),
		OPT_FLAG("json", 'j'), OPT_FLAG("help", 'h'), OPT_END
	};
	static const struct word nets[] = { { "public", 1, NULL },
	    { "cluster", 2, NULL }, { NULL, 0, "public or cluster" } };
	static const char *const ops[] = { "start", "stop", "status" };
	struct monitor_opts o;
	struct cli_env e;
	int ch, rc, i;

	memset(&o, 0, sizeof(o));
	o.nets = 3;
	o.rate = 1;
	o.peers = -1;
	o.rotate = MONITOR_ROTATE_DEFAULT;
	o.mtu_every = 60;
	o.timeout_ms = 1000;
	o.json = g->json;
	if (argc >= 2 && (strcmp(argv[1], "-h") == 0 ||
	    strcmp(argv[1], "--help") == 0)) {
		usage(stdout);
		return EXIT_PASS;
	}
	for (i = 0; argc >= 2 && i < 3 && strcmp(argv[1], ops[i]) != 0; i++)
		;
	if (argc < 2 || i == 3) {
		fprintf(stderr, "cephfab: monitor: %s\n", argc < 2 ?
		    "start, stop or status?" : "the word after monitor is "
		    "start, stop or status");
		usage(stderr);
		return EXIT_USAGE;
	}
	o.op = (enum monitor_op)i;
	argc--, argv++;
	optind = 0;
	while ((ch = cli_getopt(argc, argv, "jh", lo, monitor_nums, &o)) !=
	    -1) {
		switch (ch) {
		case CLI_BAD_NUMBER: return EXIT_USAGE;
		case O_NET:
			if (parse_words("--net", optarg, nets, &o.nets) == -1)
				return EXIT_USAGE;
			break;
		case O_PEERS:
			if (parse_peers(optarg, &o) == -1)
				return EXIT_USAGE;
			break;
		case 'j': o.json = true; break;
		case 'h': usage(stdout); return EXIT_PASS;
		default: usage(stderr); return EXIT_USAGE;
		}
	}
	if (argc != optind) {
		fprintf(stderr, "cephfab: monitor: unexpected '%s'\n",
		    argv[optind]);
		return EXIT_USAGE;
	}
	if (o.op != MON_START && (o.nets != 3 || o.peers != -1)) {
		fprintf(stderr, "cephfab: monitor: --net and --peers are "
		    "options of monitor start\n");
		return EXIT_USAGE;
	}
	if (o.mtu_every > 0 && o.mtu_every < 1) {
		fprintf(stderr, "cephfab: monitor: --mtu-every: at least 1 "
		    "second (or 0: never)\n");
		return EXIT_USAGE;
	}
	if (cli_env_open(g, &e) == -1 || cli_env_key(g, &e) == -1)
		return EXIT_USAGE;
	o.timeout = e.timeout;
	rc = monitor_cmd_run(&e.inv, &e.key, &o);
	cli_env_close(&e);
	return rc;
}
