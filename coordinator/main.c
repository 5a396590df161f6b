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
#include "hosts.h"
#include "tput.h"
#include "units.h"
#include "inventory.h"
#include "log.h"
#include "msg.h"
#include "out.h"
#include "pj.h"

#define KEY_DEFAULT "/etc/cephfab/key"

struct gopts {
	const char *inventory;
	const char *key;
	int json;
	int verbose;
	double timeout;
};

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
	    "  hosts              connect to every agent and show its "
	    "state\n"
	    "  pair A B [opts]    throughput test between two hosts "
	    "(pair --help)\n"
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
load_inventory(const struct gopts *g, struct inventory *inv)
{
	char err[CF_ERRLEN];

	if (g->inventory == NULL) {
		fprintf(stderr, "cephfab: no inventory: give -i FILE\n");
		return -1;
	}
	if (inventory_load(g->inventory, inv, err) == -1) {
		fprintf(stderr, "cephfab: %s\n", err);
		return -1;
	}
	return 0;
}

static const char *
key_path(const struct gopts *g, const struct inventory *inv)
{
	if (g->key)
		return g->key;
	if (inv->key_path[0])
		return inv->key_path;
	return KEY_DEFAULT;
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
		fprintf(stderr, "usage: cephfab -i INVENTORY hosts [--json]\n");
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
	o.timeout = g->timeout > 0 ? g->timeout : inv.timeout;
	rc = hosts_run(&inv, &key, &o);
	OPENSSL_cleanse(&key, sizeof(key));
	inventory_free(&inv);
	return rc;
}

static void
pair_usage(FILE *f)
{
	fprintf(f,
	    "usage: cephfab -i INV pair A B [--net public|cluster] [-P N] "
	    "[-t SECS] [-R | --bidir]\n"
	    "         [-l LEN] [--rate RATE] [--sport-base PORT "
	    "[--sport-stride S]] [--udp]\n"
	    "         [--interval SECS] [-w WINDOW] [--zerocopy] "
	    "[--skip-rx-copy] [--bind-dev IF] [--json]\n"
	    "  --net N          network to test (default: cluster when both "
	    "hosts have one)\n"
	    "  -P, --parallel N streams (default 1)\n"
	    "  -t, --time S     seconds of sending (default 10)\n"
	    "  -R, --reverse    B sends to A\n"
	    "  --bidir          both ways at once, N streams each\n"
	    "  -l, --len LEN    bytes per write (TCP, default 128K) or "
	    "datagram (UDP, default 1400)\n"
	    "  --rate RATE      pace each stream (bits/s: 500M, 2G); UDP "
	    "default 1M\n"
	    "  --sport-base P   stream i uses source port P + i * S "
	    "(--sport-stride, default 1)\n"
	    "  --udp            UDP at --rate: loss, duplicates, reordering, "
	    "jitter\n"
	    "  --interval S     seconds between reports (default 1)\n"
	    "  -w, --window W   socket buffer size (SO_SNDBUF/SO_RCVBUF)\n"
	    "  -Z, --zerocopy   MSG_ZEROCOPY sends where the kernel allows\n"
	    "  --skip-rx-copy   receive with MSG_TRUNC (no copy to user "
	    "space)\n"
	    "  --bind-dev IF    force A's streams onto interface IF\n");
}

static int
parse_num(const char *opt, const char *v, double min, double max,
    double *out)
{
	char *end;
	double d = strtod(v, &end);

	if (*v == '\0' || *end != '\0' || !(d >= min && d <= max)) {
		fprintf(stderr, "cephfab: pair: %s: '%s' is not a number in "
		    "[%g, %g]\n", opt, v, min, max);
		return -1;
	}
	*out = d;
	return 0;
}

static int
cmd_pair(const struct gopts *g, int argc, char **argv)
{
	enum { O_NET = 256, O_BIDIR, O_RATE, O_SPB, O_SPS, O_UDP, O_IVAL,
	    O_SKIP, O_DEV };
	static const struct option popts[] = {
		{ "net", required_argument, NULL, O_NET },
		{ "parallel", required_argument, NULL, 'P' },
		{ "time", required_argument, NULL, 't' },
		{ "reverse", no_argument, NULL, 'R' },
		{ "bidir", no_argument, NULL, O_BIDIR },
		{ "len", required_argument, NULL, 'l' },
		{ "rate", required_argument, NULL, O_RATE },
		{ "sport-base", required_argument, NULL, O_SPB },
		{ "sport-stride", required_argument, NULL, O_SPS },
		{ "udp", no_argument, NULL, O_UDP },
		{ "interval", required_argument, NULL, O_IVAL },
		{ "window", required_argument, NULL, 'w' },
		{ "zerocopy", no_argument, NULL, 'Z' },
		{ "skip-rx-copy", no_argument, NULL, O_SKIP },
		{ "bind-dev", required_argument, NULL, O_DEV },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct pair_opts o;
	struct inventory inv;
	struct auth_key key;
	char err[CF_ERRLEN];
	const char *net = NULL;
	uint64_t u;
	double d;
	int ch, rc, have_len = 0, have_stride = 0;

	memset(&o, 0, sizeof(o));
	o.streams = 1;
	o.duration = 10;
	o.interval = 1;
	o.json = g->json;
	/* 0, not 1: glibc re-initialises getopt, dropping the '+' (stop at
	 * the first operand) mode main() used, so options may follow A B. */
	optind = 0;
	while ((ch = getopt_long(argc, argv, "P:t:Rl:w:Zjh", popts,
	    NULL)) != -1) {
		switch (ch) {
		case O_NET: net = optarg; break;
		case 'P':
			if (parse_num("-P", optarg, 1, TMSG_MAX_STREAMS, &d))
				return EXIT_USAGE;
			o.streams = (uint32_t)d;
			break;
		case 't':
			if (parse_num("-t", optarg, 0.1, 86400, &o.duration))
				return EXIT_USAGE;
			break;
		case 'R': o.reverse = true; break;
		case O_BIDIR: o.bidir = true; break;
		case 'l':
			if (units_size(optarg, &u) == -1 || u < 1 ||
			    u > 16 * 1024 * 1024) {
				fprintf(stderr, "cephfab: pair: -l: '%s' is "
				    "not a size in [1, 16M]\n", optarg);
				return EXIT_USAGE;
			}
			o.len = (uint32_t)u;
			have_len = 1;
			break;
		case O_RATE:
			if (units_rate(optarg, &o.rate) == -1 || o.rate == 0) {
				fprintf(stderr, "cephfab: pair: --rate: '%s' "
				    "is not a rate like 500M or 2G\n", optarg);
				return EXIT_USAGE;
			}
			break;
		case O_SPB:
			if (parse_num("--sport-base", optarg, 1024, 65535, &d))
				return EXIT_USAGE;
			o.sport_base = (uint16_t)d;
			break;
		case O_SPS:
			if (parse_num("--sport-stride", optarg, 1, 1024, &d))
				return EXIT_USAGE;
			o.sport_stride = (uint16_t)d;
			have_stride = 1;
			break;
		case O_UDP: o.udp = true; break;
		case O_IVAL:
			if (parse_num("--interval", optarg, 0.1, 60,
			    &o.interval))
				return EXIT_USAGE;
			break;
		case 'w':
			if (units_size(optarg, &u) == -1 || u < 4096 ||
			    u > (1u << 30)) {
				fprintf(stderr, "cephfab: pair: -w: '%s' is "
				    "not a size in [4K, 1G]\n", optarg);
				return EXIT_USAGE;
			}
			o.window = (uint32_t)u;
			break;
		case 'Z': o.zerocopy = true; break;
		case O_SKIP: o.skip_rx_copy = true; break;
		case O_DEV:
			if (strlen(optarg) >= sizeof(o.bind_dev)) {
				fprintf(stderr, "cephfab: pair: --bind-dev: "
				    "'%s' is too long\n", optarg);
				return EXIT_USAGE;
			}
			snprintf(o.bind_dev, sizeof(o.bind_dev), "%s", optarg);
			break;
		case 'j': o.json = true; break;
		case 'h': pair_usage(stdout); return EXIT_PASS;
		default: pair_usage(stderr); return EXIT_USAGE;
		}
	}
	if (argc - optind != 2) {
		pair_usage(stderr);
		return EXIT_USAGE;
	}
	o.a = argv[optind];
	o.b = argv[optind + 1];
	if (o.reverse && o.bidir) {
		fprintf(stderr, "cephfab: pair: -R and --bidir exclude each "
		    "other\n");
		return EXIT_USAGE;
	}
	if (o.udp && o.bidir) {
		fprintf(stderr, "cephfab: pair: --udp runs one way; use -R for "
		    "the other\n");
		return EXIT_USAGE;
	}
	if (have_stride && !o.sport_base) {
		fprintf(stderr, "cephfab: pair: --sport-stride needs "
		    "--sport-base\n");
		return EXIT_USAGE;
	}
	if (o.sport_base && !have_stride)
		o.sport_stride = 1;
	if (!have_len)
		o.len = o.udp ? 1400 : 128 * 1024;
	if (o.udp && (o.len < TMSG_UDP_HDR || o.len > 65507)) {
		fprintf(stderr, "cephfab: pair: -l: UDP datagrams are %d to "
		    "65507 bytes\n", TMSG_UDP_HDR);
		return EXIT_USAGE;
	}
	if (o.udp && o.rate == 0)
		o.rate = 1000000;
	if (o.interval > o.duration)
		o.interval = o.duration;
	if (load_inventory(g, &inv) == -1)
		return EXIT_USAGE;
	if (net == NULL) {
		struct inv_host *ha = inventory_find(&inv, o.a);
		struct inv_host *hb = inventory_find(&inv, o.b);

		o.net = ha && hb && ha->clus.family && hb->clus.family ?
		    NET_CLUSTER : NET_PUBLIC;
	} else if (strcmp(net, "public") == 0) {
		o.net = NET_PUBLIC;
	} else if (strcmp(net, "cluster") == 0) {
		o.net = NET_CLUSTER;
	} else {
		fprintf(stderr, "cephfab: pair: --net: '%s' is not public or "
		    "cluster\n", net);
		inventory_free(&inv);
		return EXIT_USAGE;
	}
	if (auth_key_load(key_path(g, &inv), &key, err) == -1) {
		fprintf(stderr, "cephfab: %s\n", err);
		inventory_free(&inv);
		return EXIT_USAGE;
	}
	o.timeout = g->timeout > 0 ? g->timeout : inv.timeout;
	rc = pair_run(&inv, &key, &o);
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
