/*
 * cephfab: the coordinator CLI. main.c parses arguments and dispatches to
 * the command modules; it holds no logic of its own.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <openssl/crypto.h>

#include "auth.h"
#include "cli/cli.h"
#include "facts/topology.h"
#include "probes/probes.h"
#include "matrix/matrix.h"
#include "store/store.h"
#include "units.h"
#include "core/core.h"
#include "log.h"
#include "msg.h"
#include "json.h"



static void
usage(FILE *f)
{
	fprintf(f,
	    "usage: cephfab [-i INVENTORY] [-k KEY] [--json] [-v] COMMAND "
	    "[ARGS]\n"
	    "commands:\n"
	    "  keygen [-o FILE]   make a pre-shared key (stdout, or FILE "
	    "with mode 0600)\n"
	    "  check              validate the inventory without "
	    "connecting\n"
	    "  hosts [--facts]    connect to every agent and show its "
	    "state\n"
	    "  pair A B [opts]    throughput test between two hosts "
	    "(pair --help)\n"
	    "  latency A B        round-trip times (latency --help)\n"
	    "  mtu A B            configured vs path MTU, both ways\n"
	    "  ports A B          Ceph's ports: open, refused or filtered\n"
	    "  reach A B --from-net N --to-net M   cross-network reachability\n"
	    "  matrix [opts]      every pair on both networks, findings, "
	    "verdict (matrix --help)\n"
	    "  mesh [opts]        every pair's RTT at once, one runner per "
	    "agent (mesh --help)\n"
	    "  watch [opts]       live capture of the real traffic per host "
	    "pair (watch --help)\n"
	    "  inventory --from-ceph  an inventory from the live cluster "
	    "(inventory --help)\n"
	    "  ceph-heartbeats    Ceph's OSD heartbeat ping times per host "
	    "pair\n"
	    "  plan --cluster-network NEW  preflight and a staged cutover "
	    "plan (plan --help)\n"
	    "  migrate --plan F [--execute]  run a plan, gated and journaled "
	    "(migrate --help)\n"
	    "  runs [--db F]      the stored matrix runs\n"
	    "  report RUN [opts]  render a stored run again (same outputs as "
	    "matrix)\n"
	    "  compare A B        two stored runs side by side (--db F)\n"
	    "  version            print the version\n"
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

static int
cmd_keygen(int argc, char **argv)
{
	char hex[2 * AUTH_KEY_MIN + 2];
	const char *out = NULL;
	int fd;

	if (argc == 3 && strcmp(argv[1], "-o") == 0)
		out = argv[2];
	else if (argc != 1) {
		fprintf(stderr, "usage: cephfab keygen [-o FILE]\n");
		return EXIT_USAGE;
	}
	if (auth_keygen(hex, sizeof(hex)) == -1) {
		fprintf(stderr, "cephfab: keygen: no randomness available\n");
		return EXIT_RUNTIME;
	}
	strcat(hex, "\n");
	if (out == NULL) {
		fputs(hex, stdout);
		if (isatty(STDOUT_FILENO) == 0 && isatty(STDERR_FILENO))
			fprintf(stderr, "cephfab: keygen: remember 'chmod 600' "
			    "on the key file\n");
	} else {
		/* O_EXCL: never overwrite a key that agents already use. */
		fd = open(out, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
		if (fd == -1) {
			fprintf(stderr, "cephfab: keygen: %s: %s\n", out,
			    strerror(errno));
			return EXIT_RUNTIME;
		}
		if (write(fd, hex, strlen(hex)) != (ssize_t)strlen(hex) ||
		    close(fd) == -1) {
			fprintf(stderr, "cephfab: keygen: %s: %s\n", out,
			    strerror(errno));
			unlink(out);
			return EXIT_RUNTIME;
		}
	}
	OPENSSL_cleanse(hex, sizeof(hex));
	return EXIT_PASS;
}

static int
cmd_check(const struct gopts *g, int argc, char **argv)
{
	struct inventory inv;
	struct auth_key key;
	char err[CF_ERRLEN];
	int rc = EXIT_PASS;

	(void)argv;
	if (argc != 1) {
		fprintf(stderr, "usage: cephfab -i INVENTORY check\n");
		return EXIT_USAGE;
	}
	if (load_inventory(g, &inv) == -1)
		return EXIT_USAGE;
	if (auth_key_load(key_path(g, &inv), &key, err) == -1) {
		fprintf(stderr, "cephfab: %s\n", err);
		rc = EXIT_USAGE;
	} else if (g->verbose) {
		inventory_dump(&inv, stdout);
	} else {
		printf("%s: %d hosts, inventory and key OK\n", inv.path,
		    inv.nhosts);
	}
	OPENSSL_cleanse(&key, sizeof(key));
	inventory_free(&inv);
	return rc;
}

static int
cmd_hosts(const struct gopts *g, int argc, char **argv)
{
	struct hosts_opts o;
	struct inventory inv;
	struct auth_key key;
	char err[CF_ERRLEN];
	int rc;

	(void)argv;
	if (argc != 1) {
		fprintf(stderr, "usage: cephfab -i INVENTORY hosts [--facts] "
		    "[--json]\n");
		return EXIT_USAGE;
	}
	if (load_inventory(g, &inv) == -1)
		return EXIT_USAGE;
	if (auth_key_load(key_path(g, &inv), &key, err) == -1) {
		fprintf(stderr, "cephfab: %s\n", err);
		inventory_free(&inv);
		return EXIT_USAGE;
	}
	memset(&o, 0, sizeof(o));
	o.json = g->json;
	o.facts = g->facts;
	o.db = g->db;
	o.run = g->run;
	if ((o.db != NULL) != (o.run != 0) || (o.db && !o.facts)) {
		fprintf(stderr, "cephfab: hosts: --db and --run go together, "
		    "with --facts\n");
		OPENSSL_cleanse(&key, sizeof(key));
		inventory_free(&inv);
		return EXIT_USAGE;
	}
	o.timeout = g->timeout > 0 ? g->timeout : inv.timeout;
	rc = hosts_run(&inv, &key, &o);
	OPENSSL_cleanse(&key, sizeof(key));
	inventory_free(&inv);
	return rc;
}

int
main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "inventory", required_argument, NULL, 'i' },
		{ "key", required_argument, NULL, 'k' },
		{ "json", no_argument, NULL, 'j' },
		{ "timeout", required_argument, NULL, 't' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ "facts", no_argument, NULL, 'F' },
		{ "db", required_argument, NULL, 'D' },
		{ "run", required_argument, NULL, 'R' },
		{ NULL, 0, NULL, 0 }
	};
	struct gopts g;
	const char *cmd;
	char *end;
	int ch;

	memset(&g, 0, sizeof(g));
	/* '+': stop at the command word so its own options stay its own. */
	while ((ch = getopt_long(argc, argv, "+i:k:jt:vhV", opts, NULL)) != -1) {
		switch (ch) {
		case 'i': g.inventory = optarg; break;
		case 'k': g.key = optarg; break;
		case 'j': g.json = 1; break;
		case 't':
			g.timeout = strtod(optarg, &end);
			if (*optarg == '\0' || *end != '\0' ||
			    !(g.timeout >= 0.1 && g.timeout <= 600)) {
				fprintf(stderr, "cephfab: --timeout: '%s' is "
				    "not a number of seconds in [0.1, 600]\n",
				    optarg);
				return EXIT_USAGE;
			}
			break;
		case 'v': g.verbose = 1; break;
		case 'h': usage(stdout); return EXIT_PASS;
		case 'V':
			printf("cephfab %s (protocol %d)\n", CF_VERSION,
			    CF_PROTO_VERSION);
			return EXIT_PASS;
		default: usage(stderr); return EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		usage(stderr);
		return EXIT_USAGE;
	}
	log_init("cephfab", 1, g.verbose);
	signal(SIGPIPE, SIG_IGN);
	cmd = argv[optind];
	argc -= optind;
	argv += optind;
	if (strcmp(cmd, "keygen") == 0)
		return cmd_keygen(argc, argv);
	/* Commands with options of their own parse the rest themselves. */
	if (strcmp(cmd, "pair") == 0)
		return cmd_pair(&g, argc, argv);
	if (strcmp(cmd, "latency") == 0)
		return cmd_probe(&g, PC_LATENCY, argc, argv);
	if (strcmp(cmd, "mtu") == 0)
		return cmd_probe(&g, PC_MTU, argc, argv);
	if (strcmp(cmd, "ports") == 0)
		return cmd_probe(&g, PC_PORTS, argc, argv);
	if (strcmp(cmd, "reach") == 0)
		return cmd_probe(&g, PC_REACH, argc, argv);
	if (strcmp(cmd, "mesh") == 0)
		return cmd_mesh(&g, argc, argv);
	if (strcmp(cmd, "watch") == 0)
		return cmd_watch(&g, argc, argv);
	if (strcmp(cmd, "inventory") == 0)
		return cmd_inventory(&g, argc, argv);
	if (strcmp(cmd, "ceph-heartbeats") == 0)
		return cmd_ceph_heartbeats(&g, argc, argv);
	if (strcmp(cmd, "plan") == 0)
		return cmd_plan(&g, argc, argv);
	if (strcmp(cmd, "migrate") == 0)
		return cmd_migrate(&g, argc, argv);
	if (strcmp(cmd, "matrix") == 0)
		return cmd_matrix(&g, argc, argv, false);
	if (strcmp(cmd, "report") == 0)
		return cmd_matrix(&g, argc, argv, true);
	if (strcmp(cmd, "runs") == 0)
		return cmd_runs(&g, argc, argv);
	if (strcmp(cmd, "compare") == 0)
		return cmd_compare(&g, argc, argv);
	/* Options may also follow the command word: "hosts --json". */
	optind = 1;
	while ((ch = getopt_long(argc, argv, "+i:k:jt:v", opts, NULL)) != -1) {
		switch (ch) {
		case 'i': g.inventory = optarg; break;
		case 'k': g.key = optarg; break;
		case 'j': g.json = 1; break;
		case 't':
			g.timeout = strtod(optarg, &end);
			if (*optarg == '\0' || *end != '\0' ||
			    !(g.timeout >= 0.1 && g.timeout <= 600)) {
				fprintf(stderr, "cephfab: --timeout: '%s' is "
				    "not a number of seconds in [0.1, 600]\n",
				    optarg);
				return EXIT_USAGE;
			}
			break;
		case 'v': g.verbose = 1; log_init("cephfab", 1, 1); break;
		case 'F': g.facts = 1; break;
		case 'D': g.db = optarg; break;
		case 'R':
			g.run = strtoll(optarg, &end, 10);
			if (*optarg == '\0' || *end != '\0' || g.run < 1) {
				fprintf(stderr, "cephfab: --run: '%s' is not a "
				    "run id\n", optarg);
				return EXIT_USAGE;
			}
			break;
		default:
			usage(stderr);
			return EXIT_USAGE;
		}
	}
	argc -= optind - 1;
	argv += optind - 1;
	if (strcmp(cmd, "check") == 0)
		return cmd_check(&g, argc, argv);
	if (strcmp(cmd, "hosts") == 0)
		return cmd_hosts(&g, argc, argv);
	if (strcmp(cmd, "version") == 0) {
		printf("cephfab %s (protocol %d)\n", CF_VERSION,
		    CF_PROTO_VERSION);
		return EXIT_PASS;
	}
	fprintf(stderr, "cephfab: unknown command '%s' (see cephfab "
	    "--help)\n", cmd);
	return EXIT_USAGE;
}
