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
#include <unistd.h>

#include "cli/cli.h"
#include "log.h"
#include "msg.h"

/* The commands in the order 'cephfab --help' lists them. */
static const struct command commands[] = {
	{ "keygen", cmd_keygen, "keygen [-o FILE]   make a pre-shared key "
	    "(stdout, or FILE with mode 0600)", false,
	    "usage: cephfab keygen [-o FILE]\n"
	    "  a new pre-shared key (256 bits, hex) on stdout, or in FILE made "
	    "with mode 0600\n"
	    "  (never over an existing file); every agent and coordinator of a "
	    "cluster\n  shares it\n" },
	{ "check", cmd_check, "check              validate the inventory "
	    "without connecting", true,
	    "usage: cephfab -i INV check [-v]\n"
	    "  validate the inventory and the key file without connecting; -v "
	    "prints the\n  inventory as understood\n"
	    "exit: 0 valid, 2 an error (file and line named)\n" },
	{ "hosts", cmd_hosts, "hosts [--facts]    connect to every agent and "
	    "show its state", true,
	    "usage: cephfab -i INV hosts [--json] [--facts [--db F --run R]]\n"
	    "  every agent at once: version, protocol, uptime, state (ok, "
	    "unreachable,\n  auth_failed, version_mismatch, busy, error) and "
	    "the host's addresses\n"
	    "  --facts       also the topology facts: links, bonds, routes, "
	    "FRR, findings\n"
	    "  --db F --run R  store the facts with matrix run R\n"
	    "exit: 0 every agent ok, 1 some not, 2 usage\n" },
	{ "pair", cmd_pair, "pair A B [opts]    throughput test between two "
	    "hosts (pair --help)", false, NULL },
	{ "latency", cmd_probe, "latency A B        round-trip times "
	    "(latency --help)", false, NULL },
	{ "mtu", cmd_probe, "mtu A B            configured vs path MTU, both "
	    "ways", false, NULL },
	{ "ports", cmd_probe, "ports A B          Ceph's ports: open, refused "
	    "or filtered", false, NULL },
	{ "reach", cmd_probe, "reach A B --from-net N --to-net M   "
	    "cross-network reachability", false, NULL },
	{ "matrix", cmd_matrix, "matrix [opts]      every pair on both "
	    "networks, findings, verdict (matrix --help)", false, NULL },
	{ "mesh", cmd_mesh, "mesh [opts]        every pair's RTT at once, one "
	    "runner per agent (mesh --help)", false, NULL },
	{ "watch", cmd_watch, "watch [opts]       live capture of the real "
	    "traffic per host pair (watch --help)", false, NULL },
	{ "monitor", cmd_monitor, "monitor start|stop|status  agents probe "
	    "their peers on their own (monitor --help)", false, NULL },
	{ "inventory", cmd_inventory, "inventory [opts]   an inventory from "
	    "the live cluster, or for Ansible", false, NULL },
	{ "ceph-heartbeats", cmd_ceph_heartbeats, "ceph-heartbeats    Ceph's "
	    "OSD heartbeat ping times per host pair", false, NULL },
	{ "plan", cmd_plan, "plan --cluster-network NEW  preflight and a "
	    "staged cutover plan (plan --help)", false, NULL },
	{ "migrate", cmd_migrate, "migrate --plan F [--execute]  run a plan, "
	    "gated and journaled (migrate --help)", false, NULL },
	{ "runs", cmd_runs, "runs [--db F]      the stored matrix runs",
	    false, "usage: cephfab runs [--db FILE] [--json]\n"
	    "  the matrix runs stored in FILE (default ./cephfab.db): id, "
	    "start, verdict,\n  cells, inventory; 'cephfab report RUN' "
	    "renders one again\n" },
	{ "report", cmd_report, "report RUN [opts]  render a stored run again "
	    "(same outputs as matrix)", false, NULL },
	{ "compare", cmd_compare, "compare A B [C..]  two to six stored runs "
	    "side by side (--db F)", false, NULL },
	{ "version", cmd_version, "version            print the version",
	    true, "usage: cephfab version [--json]\n"
	    "  the coordinator's version and protocol version\n" },
};

static const struct option global_opts[] = {
	OPT_ARG("inventory", 'i'), OPT_ARG("key", 'k'), OPT_FLAG("json", 'j'),
	OPT_ARG("timeout", 't'), OPT_ARG("connect-timeout", 'C'),
	OPT_FLAG("verbose", 'v'),
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
	    "  -i, --inventory F  inventory file (see configs/README.md; "
	    "default:\n                     $CEPHFAB_INVENTORY, else "
	    CF_DEFAULT_INVENTORY ")\n"
	    "  -k, --key F        key file (overrides the inventory's "
	    "'key')\n"
	    "  -j, --json         JSON on stdout\n"
	    "  --connect-timeout S  per-agent connect+handshake timeout "
	    "(default: the\n                     inventory's, 3); after a "
	    "command, -t is a test's duration\n"
	    "  -v, --verbose      debug logging on stderr\n"
	    "  -V, --version      print the version\n"
	    "  -h, --help         this page; 'cephfab COMMAND --help' for "
	    "each command's\n"
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
		/* Kept for scripts, but said: after the command word -t is
		 * a test's duration, and one letter must not mean both. */
		fprintf(stderr, "cephfab: warning: -t before the command is "
		    "the connect timeout: say --connect-timeout (after the "
		    "command, -t is a test's duration)\n");
		/* FALLTHROUGH */
	case 'C':
		g->timeout = strtod(optarg, &end);
		if (*optarg == '\0' || *end != '\0' ||
		    !(g->timeout >= 0.1 && g->timeout <= 600)) {
			fprintf(stderr, "cephfab: --connect-timeout: '%s' is "
			    "not a number of seconds in [0.1, 600]\n", optarg);
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

/* json_names_file: whether the command's --json takes a file (matrix and
 * report write JSON beside their table) rather than being a flag. */
static bool
json_names_file(const char *cmd)
{
	return strcmp(cmd, "matrix") == 0 || strcmp(cmd, "report") == 0;
}

/* pluck_globals: the global options that stand after the command word
 * (-i, -k, --connect-timeout, -v and their long names; "--" ends the
 * search) applied and taken out of argv, so that every command takes
 * them anywhere: "pair h1 h2 -i inv" as "-i inv pair h1 h2". pair's -i
 * with a number is iperf3's interval, left for pair to explain. -1 on a
 * bad value (printed), else 0. */
static int
pluck_globals(struct gopts *g, const char *cmd, int *argc, char **argv,
    int *rc)
{
	static const struct { const char *s, *l; int ch, arg; } gl[] = {
		{ "-i", "--inventory", 'i', 1 }, { "-k", "--key", 'k', 1 },
		{ NULL, "--connect-timeout", 'C', 1 },
		{ "-v", "--verbose", 'v', 0 },
	};
	int i = 1, j, k, take;

	while (i < *argc && strcmp(argv[i], "--") != 0) {
		const char *a = argv[i], *val = NULL;
		size_t ll;

		for (k = 0, take = 0; k < 4 && !take; k++) {
			ll = strlen(gl[k].l);
			if ((gl[k].s && strcmp(a, gl[k].s) == 0) ||
			    strcmp(a, gl[k].l) == 0) {
				take = 1 + gl[k].arg;
				val = gl[k].arg ? argv[i + 1] : NULL;
			} else if (gl[k].arg && strncmp(a, gl[k].l, ll) == 0 &&
			    a[ll] == '=') {
				take = 1;
				val = a + ll + 1;
			}
			if (take)
				break;
		}
		/* --json, -j: a flag everywhere but where it names a file. */
		if (!take && (strcmp(a, "--json") == 0 || strcmp(a, "-j") ==
		    0) && !json_names_file(cmd)) {
			g->json = 1;
			for (j = i; j + 1 <= *argc; j++)
				argv[j] = argv[j + 1];
			(*argc)--;
			continue;
		}
		if (!take || (gl[k].arg && val == NULL) ||
		    (gl[k].ch == 'i' && strcmp(cmd, "pair") == 0 &&
		    strspn(val, "0123456789.") == strlen(val))) {
			i++;
			continue;
		}
		optarg = (char *)val;
		if (global_opt(g, gl[k].ch, true, rc) != 0)
			return -1;
		for (j = i; j + take <= *argc; j++)
			argv[j] = argv[j + take];
		*argc -= take;
	}
	return 0;
}

/* default_inventory: without -i, $CEPHFAB_INVENTORY names the inventory
 * (an error later if it is missing: the user asked for it), else
 * /etc/cephfab/inventory where it exists, as ceph finds ceph.conf. */
static void
default_inventory(struct gopts *g)
{
	const char *env = getenv("CEPHFAB_INVENTORY");

	if (g->inventory != NULL)
		return;
	if (env != NULL && *env != '\0')
		g->inventory = env;
	else if (access(CF_DEFAULT_INVENTORY, F_OK) == 0)
		g->inventory = CF_DEFAULT_INVENTORY;
}

/* json_wanted: whether the command's document goes to stdout as JSON:
 * the global --json, or the command's own (-j, --json; pair's iperf3
 * -J), which for matrix and report names a file, stdout only as "-". */
static bool
json_wanted(const struct gopts *g, const char *cmd, int argc, char **argv)
{
	bool file = json_names_file(cmd);
	int i;

	if (g->json)
		return true;
	for (i = 1; i < argc && strcmp(argv[i], "--") != 0; i++) {
		if (strcmp(argv[i], "--json=-") == 0)
			return true;
		if (strcmp(argv[i], "--json") == 0)
			return !file || (i + 1 < argc &&
			    strcmp(argv[i + 1], "-") == 0);
		if (!file && (strcmp(argv[i], "-j") == 0 ||
		    (strcmp(cmd, "pair") == 0 && strcmp(argv[i], "-J") == 0)))
			return true;
	}
	return false;
}

/* run: the command, and with --json a document on stdout also when it
 * failed before printing its own (envelope_error). */
static int
run(const struct command *c, struct gopts *g, int argc, char **argv)
{
	bool json = json_wanted(g, c->name, argc, argv);
	char prog[64];
	int rc;

	/* getopt names the program by argv[0]: its complaints then read
	 * "cephfab: pair: unrecognized option", as every error does. */
	snprintf(prog, sizeof(prog), "cephfab: %s", c->name);
	argv[0] = prog;
	rc = c->fn(g, argc, argv);
	return json ? envelope_error(rc) : rc;
}

int
main(int argc, char **argv)
{
	const struct command *c = NULL;
	struct gopts g;
	size_t i;
	int ch, rc = EXIT_PASS;

	memset(&g, 0, sizeof(g));
	/* Every error line passes through the tap, which keeps the last
	 * one for the --json error document. */
	envelope_tap_stderr();
	/* '+': stop at the command word so its own options stay its own. */
	while ((ch = getopt_long(argc, argv, "+i:k:jt:C:vhV", global_opts,
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
	cli_command = c->name;
	argc -= optind;
	argv += optind;
	/* The words as given, before the global ones are taken out. */
	envelope_begin(c->name, argc, argv);
	if (pluck_globals(&g, c->name, &argc, argv, &rc) == -1)
		return rc;
	default_inventory(&g);
	/* The commands that print no page of their own get theirs here. */
	for (i = 1; c->page != NULL && i < (size_t)argc &&
	    strcmp(argv[i], "--") != 0; i++)
		if (strcmp(argv[i], "-h") == 0 ||
		    strcmp(argv[i], "--help") == 0) {
			fputs(c->page, stdout);
			return EXIT_PASS;
		}
	if (!c->global_opts)
		return run(c, &g, argc, argv);
	/* Options may also follow the command word: "hosts --json". */
	optind = 1;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, "+:i:k:jC:v", global_opts,
	    NULL)) != -1) {
		/* One line naming the command and the option, not getopt's
		 * line and the global page. */
		if (ch == '?' || ch == ':') {
			fprintf(stderr, "cephfab: %s: %s '%s' (cephfab %s --help "
			    "lists its options)\n", c->name, ch == ':' ?
			    "no value for" : "unknown option", argv[optind - 1],
			    c->name);
			return EXIT_USAGE;
		}
		if (global_opt(&g, ch, true, &rc) != 0)
			return rc;
	}
	argc -= optind - 1;
	argv += optind - 1;
	if (rc != EXIT_PASS)
		return rc;
	return run(c, &g, argc, argv);
}
