/*
 * cephfab: the coordinator. main.c holds the command table and the
 * global options; every command is a function of cli/ that parses the
 * rest of its line and hands the work to its subsystem. To add a
 * command: write cmd_NAME in the cli/ file of its family, declare it in
 * cli/cli.h and give it a line in commands[] below.
 */
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "log.h"
#include "msg.h"

/* The commands in the order 'cephfab --help' lists them. */
static const struct command commands[] = {
	{ "keygen", cmd_keygen, "keygen [-o FILE]   make a pre-shared key "
	    "(stdout, or FILE with mode 0600)", false },
	{ "check", cmd_check, "check              validate the inventory "
	    "without connecting", true },
	{ "hosts", cmd_hosts, "hosts [--facts]    connect to every agent and "
	    "show its state", true },
	{ "pair", cmd_pair, "pair A B [opts]    throughput test between two "
	    "hosts (pair --help)", false },
	{ "latency", cmd_probe, "latency A B        round-trip times "
	    "(latency --help)", false },
	{ "mtu", cmd_probe, "mtu A B            configured vs path MTU, both "
	    "ways", false },
	{ "ports", cmd_probe, "ports A B          Ceph's ports: open, refused "
	    "or filtered", false },
	{ "reach", cmd_probe, "reach A B --from-net N --to-net M   "
	    "cross-network reachability", false },
	{ "matrix", cmd_matrix, "matrix [opts]      every pair on both "
	    "networks, findings, verdict (matrix --help)", false },
	{ "mesh", cmd_mesh, "mesh [opts]        every pair's RTT at once, one "
	    "runner per agent (mesh --help)", false },
	{ "watch", cmd_watch, "watch [opts]       live capture of the real "
	    "traffic per host pair (watch --help)", false },
	{ "inventory", cmd_inventory, "inventory --from-ceph  an inventory "
	    "from the live cluster (inventory --help)", false },
	{ "ceph-heartbeats", cmd_ceph_heartbeats, "ceph-heartbeats    Ceph's "
	    "OSD heartbeat ping times per host pair", false },
	{ "plan", cmd_plan, "plan --cluster-network NEW  preflight and a "
	    "staged cutover plan (plan --help)", false },
	{ "migrate", cmd_migrate, "migrate --plan F [--execute]  run a plan, "
	    "gated and journaled (migrate --help)", false },
	{ "runs", cmd_runs, "runs [--db F]      the stored matrix runs",
	    false },
	{ "report", cmd_report, "report RUN [opts]  render a stored run again "
	    "(same outputs as matrix)", false },
	{ "compare", cmd_compare, "compare A B        two stored runs side by "
	    "side (--db F)", false },
	{ "version", cmd_version, "version            print the version",
	    true },
};

static const struct option global_opts[] = {
	OPT_ARG("inventory", 'i'), OPT_ARG("key", 'k'), OPT_FLAG("json", 'j'),
	OPT_ARG("timeout", 't'), OPT_FLAG("verbose", 'v'),
	OPT_FLAG("help", 'h'), OPT_FLAG("version", 'V'),
	OPT_FLAG("facts", 'F'), OPT_ARG("db", 'D'), OPT_ARG("run", 'R'),
	OPT_END
};

static void
usage(FILE *f)
{
	size_t i;

	fprintf(f, "usage: cephfab [-i INVENTORY] [-k KEY] [--json] [-v] "
	    "COMMAND [ARGS]\ncommands:\n");
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %s\n", commands[i].help);
	fprintf(f,
	    "options:\n"
	    "  -i, --inventory F  inventory file (see configs/README.md)\n"
	    "  -k, --key F        key file (overrides the inventory's "
	    "'key')\n"
	    "  -j, --json         JSON on stdout\n"
	    "  -t, --timeout S    per-agent connect+handshake timeout "
	    "(default: inventory's, 3)\n"
	    "  -v, --verbose      debug logging on stderr\n"
	    "exit codes: 0 pass, 1 problems found, 2 usage or configuration "
	    "error, 3 runtime failure\n");
}

/* global_opt applies one global option; -1 on a bad value (printed),
 * 1 for an option that ends the program (help, version), else 0. The
 * options after a command word (after_cmd) are the few that commands
 * without options of their own take. */
static int
global_opt(struct gopts *g, int ch, bool after_cmd, int *rc)
{
	char *end;

	switch (ch) {
	case 'i': g->inventory = optarg; return 0;
	case 'k': g->key = optarg; return 0;
	case 'j': g->json = 1; return 0;
	case 't':
		g->timeout = strtod(optarg, &end);
		if (*optarg == '\0' || *end != '\0' ||
		    !(g->timeout >= 0.1 && g->timeout <= 600)) {
			fprintf(stderr, "cephfab: --timeout: '%s' is not a "
			    "number of seconds in [0.1, 600]\n", optarg);
			*rc = EXIT_USAGE;
			return -1;
		}
		return 0;
	case 'v':
		g->verbose = 1;
		if (after_cmd)
			log_init("cephfab", 1, 1);
		return 0;
	case 'F':
		if (!after_cmd)
			break;
		g->facts = 1;
		return 0;
	case 'D':
		if (!after_cmd)
			break;
		g->db = optarg;
		return 0;
	case 'R':
		if (!after_cmd)
			break;
		g->run = strtoll(optarg, &end, 10);
		if (*optarg == '\0' || *end != '\0' || g->run < 1) {
			fprintf(stderr, "cephfab: --run: '%s' is not a run "
			    "id\n", optarg);
			*rc = EXIT_USAGE;
			return -1;
		}
		return 0;
	case 'h':
		if (after_cmd)
			break;
		usage(stdout);
		*rc = EXIT_PASS;
		return 1;
	case 'V':
		if (after_cmd)
			break;
		*rc = cmd_version(g, 0, NULL);
		return 1;
	}
	usage(stderr);
	*rc = EXIT_USAGE;
	return -1;
}

int
main(int argc, char **argv)
{
	const struct command *c = NULL;
	struct gopts g;
	size_t i;
	int ch, rc = EXIT_PASS;

	memset(&g, 0, sizeof(g));
	/* '+': stop at the command word so its own options stay its own. */
	while ((ch = getopt_long(argc, argv, "+i:k:jt:vhV", global_opts,
	    NULL)) != -1)
		if (global_opt(&g, ch, false, &rc) != 0)
			return rc;
	if (optind >= argc) {
		usage(stderr);
		return EXIT_USAGE;
	}
	log_init("cephfab", 1, g.verbose);
	signal(SIGPIPE, SIG_IGN);
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (strcmp(argv[optind], commands[i].name) == 0)
			c = &commands[i];
	if (c == NULL) {
		fprintf(stderr, "cephfab: unknown command '%s' (see cephfab "
		    "--help)\n", argv[optind]);
		return EXIT_USAGE;
	}
	argc -= optind;
	argv += optind;
	if (!c->global_opts)
		return c->fn(&g, argc, argv);
	/* Options may also follow the command word: "hosts --json". */
	optind = 1;
	while ((ch = getopt_long(argc, argv, "+i:k:jt:v", global_opts,
	    NULL)) != -1)
		if (global_opt(&g, ch, true, &rc) != 0)
			return rc;
	argc -= optind - 1;
	argv += optind - 1;
	return c->fn(&g, argc, argv);
}
