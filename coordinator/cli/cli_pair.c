/* cli_pair: the commands between two hosts: pair (throughput) and the
 * probes latency, mtu, ports and reach, see cli.h. */
#include "cli/cli.h"
#include "auth.h"
#include "log.h"
#include "matrix/matrix.h"
#include "msg.h"
#include "core/core.h"
#include "json.h"
#include "probes/probes.h"
#include "report/report.h"
#include "store/store.h"
#include "units.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <openssl/crypto.h>

enum { O_NET = 256, O_BIDIR, O_RATE, O_SPB, O_SPS, O_UDP, O_IVAL, O_SKIP,
    O_DEV, O_SHARED, O_STARTAT, O_SWEEP, O_NOTRACE };

static const struct num_opt pair_nums[] = {
	NUM_OPT('P', "-P", 1, TPUTREQ_MAX_STREAMS, NUM_U32, struct pair_opts,
	    streams),
	NUM_OPT(O_SPB, "--sport-base", 1024, 65535, NUM_U16, struct pair_opts,
	    sport_base),
	NUM_OPT(O_IVAL, "--interval", 0.1, 60, NUM_DOUBLE, struct pair_opts,
	    interval),
	NUM_END
};

enum { P_NET = 256, P_TCP, P_UDP, P_SIZE, P_COUNT, P_RATE, P_LOADED, P_PORTS,
    P_FROM, P_TO, P_WINDOW };

static const struct num_opt probe_nums[] = {
	NUM_OPT(P_COUNT, "--count", 1, 1000000, NUM_U32, struct probe_cmd_opts,
	    count),
	NUM_OPT('t', "-t", 0.1, 86400, NUM_DOUBLE, struct probe_cmd_opts,
	    duration),
	NUM_OPT(P_RATE, "--rate", 1, 100000, NUM_U32, struct probe_cmd_opts,
	    rate),
	NUM_OPT(P_WINDOW, "--window", 1, 1024, NUM_U32, struct probe_cmd_opts,
	    window),
	NUM_END
};

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
	    "  -b, --rate RATE  pace each stream (bits/s: 500M, 2G); UDP "
	    "default 1M\n"
	    "  --sport-base P   stream i uses source port P + i * S "
	    "(--sport-stride, default 1)\n"
	    "  -u, --udp        UDP at --rate: loss, duplicates, reordering, "
	    "jitter\n"
	    "  --interval S     seconds between reports (default 1)\n"
	    "  -w, --window W   socket buffer size (SO_SNDBUF/SO_RCVBUF)\n"
	    "  -Z, --zerocopy   MSG_ZEROCOPY sends where the kernel allows\n"
	    "  --skip-rx-copy   receive with MSG_TRUNC (no copy to user "
	    "space)\n"
	    "  --bind-dev IF    force A's streams onto interface IF\n"
	    "  -j, -J, --json   the result as JSON (iperf3's -J, -u and -b "
	    "work too)\n"
	    "  --sport-sweep K  K one-stream tests from source ports "
	    "--sport-base.. (40000),\n"
	    "                   each mapped to the path it used (-t per "
	    "stream, default 1)\n"
	    "  --no-trace       do not trace the path of each stream (TTL-"
	    "limited probes\n"
	    "                   on its own 5-tuple, needs CAP_NET_RAW on the "
	    "sender)\n"
	    "  --shared         may run beside other shared tests on the same "
	    "agents\n"
	    "  --start-at T     send START at wall-clock time T (seconds since "
	    "the epoch)\n");
}

/* pair_start: the inventory, the network (cluster when both hosts have
 * one, unless --net) and the key, then the test. */
static int
pair_start(const struct gopts *g, struct pair_opts *o, const char *net)
{
	struct cli_env e;
	int rc;

	if (cli_env_open(g, &e) == -1)
		return EXIT_USAGE;
	if (net == NULL)
		o->net = cli_env_cluster_pair(&e, o->a, o->b) ? NET_CLUSTER :
		    NET_PUBLIC;
	else
		o->net = strcmp(net, "cluster") == 0 ? NET_CLUSTER : NET_PUBLIC;
	if (cli_env_key(g, &e) == -1)
		return EXIT_USAGE;
	o->timeout = e.timeout;
	rc = pair_run(&e.inv, &e.key, o);
	cli_env_close(&e);
	return rc;
}

/* What pair's command line says besides struct pair_opts. */
struct pair_cli {
	const char *net;
	int sweep;
	int have_len, have_stride, have_t;
};

/* pair_parse: pair's options into o and pc; 1 when --help was printed,
 * -1 on a usage error (printed), else 0. */
static int
pair_parse(const struct gopts *g, int argc, char **argv,
    struct pair_opts *o, struct pair_cli *pc)
{
	static const struct option popts[] = {
		OPT_ARG("sport-sweep", O_SWEEP), OPT_FLAG("shared", O_SHARED),
		OPT_FLAG("no-trace", O_NOTRACE), OPT_ARG("start-at", O_STARTAT), OPT_ARG("net", O_NET),
		OPT_ARG("parallel", 'P'), OPT_ARG("time", 't'),
		OPT_FLAG("reverse", 'R'), OPT_FLAG("bidir", O_BIDIR),
		OPT_ARG("len", 'l'), OPT_ARG("rate", O_RATE),
		OPT_ARG("sport-base", O_SPB), OPT_ARG("sport-stride", O_SPS),
		OPT_FLAG("udp", O_UDP), OPT_ARG("interval", O_IVAL),
		OPT_ARG("window", 'w'), OPT_FLAG("zerocopy", 'Z'),
		OPT_FLAG("skip-rx-copy", O_SKIP), OPT_ARG("bind-dev", O_DEV),
		OPT_FLAG("json", 'j'), OPT_FLAG("help", 'h'), OPT_END
	};
	uint64_t u;
	double d;
	int ch;

	memset(o, 0, sizeof(*o));
	memset(pc, 0, sizeof(*pc));
	o->streams = 1;
	o->duration = 10;
	o->interval = 1;
	o->json = g->json;
	/* 0, not 1: glibc re-initialises getopt, dropping the '+' (stop at
	 * the first operand) mode main() used, so options may follow A B. */
	optind = 0;
	/* iperf3's -J, -u and -b mean the same here; -i and -O do not, and
	 * say what does. */
	while ((ch = cli_getopt(argc, argv, "P:t:Rl:w:ZjhJub:i:O:", popts,
	    pair_nums, o)) != -1) {
		switch (ch) {
		case CLI_BAD_NUMBER: return -1;
		case O_NET: pc->net = optarg; break;
		case 't':
			if (parse_num("-t", optarg, 0.1, 86400, &o->duration))
				return -1;
			pc->have_t = 1;
			break;
		case 'R': o->reverse = true; break;
		case O_BIDIR: o->bidir = true; break;
		case 'l':
			if (units_size(optarg, &u) == -1 || u < 1 ||
			    u > 16 * 1024 * 1024) {
				fprintf(stderr, "cephfab: pair: -l: '%s' is "
				    "not a size in [1, 16M]\n", optarg);
				return -1;
			}
			o->len = (uint32_t)u;
			pc->have_len = 1;
			break;
		case 'i':
			fprintf(stderr, "cephfab: pair: -i %s: the interval is "
			    "--interval S here (-i names the inventory, before "
			    "the command: cephfab -i FILE pair ...)\n", optarg);
			return -1;
		case 'O':
			fprintf(stderr, "cephfab: pair: -O %s: there is no omit "
			    "period: every second is measured and shown "
			    "(intervals), the sum is the whole test's\n",
			    optarg);
			return -1;
		case 'b':
		case O_RATE:
			if (units_rate(optarg, &o->rate) == -1 || o->rate == 0) {
				fprintf(stderr, "cephfab: pair: --rate: '%s' "
				    "is not a rate like 500M or 2G\n", optarg);
				return -1;
			}
			break;
		case O_SPS:
			if (parse_num("--sport-stride", optarg, 1, 1024, &d))
				return -1;
			o->sport_stride = (uint16_t)d;
			pc->have_stride = 1;
			break;
		case 'u':
		case O_UDP: o->udp = true; break;
		case 'w':
			if (units_size(optarg, &u) == -1 || u < 4096 ||
			    u > (1u << 30)) {
				fprintf(stderr, "cephfab: pair: -w: '%s' is "
				    "not a size in [4K, 1G]\n", optarg);
				return -1;
			}
			o->window = (uint32_t)u;
			break;
		case 'Z': o->zerocopy = true; break;
		case O_SKIP: o->skip_rx_copy = true; break;
		case O_DEV:
			if (strlen(optarg) >= sizeof(o->bind_dev)) {
				fprintf(stderr, "cephfab: pair: --bind-dev: "
				    "'%s' is too long\n", optarg);
				return -1;
			}
			snprintf(o->bind_dev, sizeof(o->bind_dev), "%s", optarg);
			break;
		case O_SHARED: o->shared = true; break;
		case O_NOTRACE: o->no_trace = true; break;
		case O_SWEEP:
			if (parse_num("--sport-sweep", optarg, 1, 1024, &d))
				return -1;
			pc->sweep = (int)d;
			break;
		case O_STARTAT:
			/* Bounded: an hour ahead at most, never a stall. */
			if (parse_num("--start-at", optarg, 0, (double)time(NULL)
			    + 3600, &o->start_at))
				return -1;
			break;
		case 'J':
		case 'j': o->json = true; break;
		case 'h': pair_usage(stdout); return 1;
		default: pair_usage(stderr); return -1;
		}
	}
	return 0;
}

int
cmd_pair(const struct gopts *g, int argc, char **argv)
{
	struct pair_opts o;
	struct pair_cli pc;
	int rc;

	rc = pair_parse(g, argc, argv, &o, &pc);
	if (rc != 0)
		return rc == 1 ? EXIT_PASS : EXIT_USAGE;
	if (argc - optind != 2) {
		fprintf(stderr, "cephfab: pair: %s\n", argc - optind < 2 ?
		    "two hosts, A and B" : "only two hosts, A and B");
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
	if (pc.have_stride && !o.sport_base) {
		fprintf(stderr, "cephfab: pair: --sport-stride needs "
		    "--sport-base\n");
		return EXIT_USAGE;
	}
	if (o.sport_base && !pc.have_stride)
		o.sport_stride = 1;
	if (!pc.have_len)
		o.len = o.udp ? 1400 : 128 * 1024;
	if (o.udp && (o.len < TPUTREQ_UDP_HDR || o.len > 65507)) {
		fprintf(stderr, "cephfab: pair: -l: UDP datagrams are %d to "
		    "65507 bytes\n", TPUTREQ_UDP_HDR);
		return EXIT_USAGE;
	}
	if (o.udp && o.rate == 0)
		o.rate = 1000000;
	if (o.interval > o.duration)
		o.interval = o.duration;
	if (pc.sweep) {
		struct sweep_opts so;

		/* Each source port its own single-stream test. */
		memset(&so, 0, sizeof(so));
		so.inventory = g->inventory;
		so.key = g->key;
		so.a = o.a;
		so.b = o.b;
		so.net = pc.net;
		so.count = pc.sweep;
		so.sport_base = o.sport_base ? o.sport_base : 40000;
		so.seconds = pc.have_t ? o.duration : 1;
		so.timeout = g->timeout > 0 ? g->timeout : 5;
		so.json = o.json;
		if (so.sport_base + (unsigned)pc.sweep > 65535) {
			fprintf(stderr, "cephfab: pair: --sport-sweep: ports "
			    "run past 65535\n");
			return EXIT_USAGE;
		}
		return sweep_run(&so);
	}
	if (pc.net != NULL && strcmp(pc.net, "public") != 0 &&
	    strcmp(pc.net, "cluster") != 0) {
		fprintf(stderr, "cephfab: pair: --net: '%s' is not public or "
		    "cluster\n", pc.net);
		return EXIT_USAGE;
	}
	return pair_start(g, &o, pc.net);
}

/* probe_usage: the page of one of the four probe commands (kind: the
 * index of its word in cmd_probe's words). */
static void
probe_usage(FILE *f, int kind)
{
	static const char *const pages[] = {
	    "usage: cephfab -i INV latency A B [--net N] [--tcp|--udp] "
	    "[--size LIST] [--count N | -t S]\n"
	    "                 [--rate PPS] [--window N] [--loaded] [--json]\n"
	    "  round-trip times from A to B, per message size\n"
	    "  --net N       public or cluster (default: cluster when both "
	    "have one)\n"
	    "  --tcp, --udp  the transport (default UDP)\n"
	    "  --size LIST   message sizes, e.g. 64,2000,65536 (default "
	    "64,512,2000,8192)\n"
	    "  --count N     round trips per size (default 1000); -t S bounds "
	    "the time instead\n"
	    "  --rate PPS    probes per second, sent whatever is lost (default: "
	    "back to back,\n"
	    "                one at a time)\n"
	    "  --window N    probes in flight at most (default: as the rate "
	    "sends them;\n"
	    "                1: one at a time, never loading the path)\n"
	    "  --loaded      again while a 4-stream throughput test runs on "
	    "the path\n",
	    "usage: cephfab -i INV mtu A B [--net N] [--json]\n"
	    "  configured against path MTU, both ways: the largest "
	    "don't-fragment datagram\n  that crosses, and where a larger "
	    "one dies (the router that says so)\n"
	    "  --net N       public or cluster (default: cluster when both "
	    "have one)\n",
	    "usage: cephfab -i INV ports A B [--net N] [--ports LIST] "
	    "[--json]\n"
	    "  Ceph's ports from A to B: open, refused or filtered (B listens "
	    "on each for\n  the test, so a closed port is a filter)\n"
	    "  --net N       public or cluster (default: cluster when both "
	    "have one)\n"
	    "  --ports LIST  e.g. 3300,6789,6800-6810 (default: Ceph's, "
	    "sampled)\n",
	    "usage: cephfab -i INV reach A B --from-net N --to-net M "
	    "[--json]\n"
	    "  whether A's address on one network reaches B's on another "
	    "(the cutover's\n  old-to-new paths)\n"
	    "  --from-net N, --to-net M  public or cluster\n",
	};

	fputs(pages[kind], f);
	fputs("exit: 0 pass, 1 problems found, 2 usage, 3 runtime\n", f);
}

/* cmd_probe: latency, mtu, ports and reach, told apart by the command
 * word (argv[0]). */
int
cmd_probe(const struct gopts *g, int argc, char **argv)
{
	static const char *const words[] = { "latency", "mtu", "ports",
	    "reach" };
	static const struct option popts[] = {
		OPT_ARG("net", P_NET), OPT_FLAG("tcp", P_TCP),
		OPT_FLAG("udp", P_UDP), OPT_ARG("size", P_SIZE),
		OPT_ARG("count", P_COUNT), OPT_ARG("time", 't'),
		OPT_ARG("rate", P_RATE), OPT_FLAG("loaded", P_LOADED),
		OPT_ARG("window", P_WINDOW),
		OPT_ARG("ports", P_PORTS), OPT_ARG("from-net", P_FROM),
		OPT_ARG("to-net", P_TO), OPT_FLAG("json", 'j'),
		OPT_FLAG("help", 'h'), OPT_END
	};
	struct probe_cmd_opts o;
	struct cli_env e;
	uint32_t tmp[128];
	const char *net = NULL;
	int ch, rc, i, n, kind, have_from = 0, have_to = 0;

	for (kind = PC_LATENCY; kind < PC_REACH && strcmp(cli_command,
	    words[kind]) != 0; kind++)
		;
	memset(&o, 0, sizeof(o));
	o.kind = (enum probe_cmd_kind)kind;
	o.json = g->json;
	o.count = 1000;
	o.duration = 0;
	optind = 0;
	while ((ch = cli_getopt(argc, argv, "t:jh", popts, probe_nums,
	    &o)) != -1) {
		switch (ch) {
		case CLI_BAD_NUMBER: return EXIT_USAGE;
		case P_NET: net = optarg; break;
		case P_TCP: o.tcp = true; break;
		case P_UDP: o.tcp = false; break;
		case P_SIZE:
			if ((n = parse_list("--size", optarg, 32, 65536,
			    o.sizes, 16, false)) == -1)
				return EXIT_USAGE;
			o.nsizes = n;
			break;
		case P_LOADED: o.loaded = true; break;
		case P_PORTS:
			if ((n = parse_list("--ports", optarg, 1, 65535, tmp,
			    128, true)) == -1)
				return EXIT_USAGE;
			for (i = 0; i < n; i++)
				o.ports[i] = (uint16_t)tmp[i];
			o.nports = n;
			break;
		case P_FROM:
			if (parse_net("--from-net", optarg, &o.net))
				return EXIT_USAGE;
			have_from = 1;
			break;
		case P_TO:
			if (parse_net("--to-net", optarg, &o.to_net))
				return EXIT_USAGE;
			have_to = 1;
			break;
		case 'j': o.json = true; break;
		case 'h': probe_usage(stdout, o.kind); return EXIT_PASS;
		default: probe_usage(stderr, o.kind); return EXIT_USAGE;
		}
	}
	if (argc - optind != 2) {
		fprintf(stderr, "cephfab: %s: %s\n", cli_command, argc - optind < 2 ?
		    "two hosts, A and B" : "only two hosts, A and B");
		probe_usage(stderr, o.kind);
		return EXIT_USAGE;
	}
	o.a = argv[optind];
	o.b = argv[optind + 1];
	for (i = 0; i < o.nsizes; i++) {
		if (!o.tcp && o.sizes[i] > 65507) {
			fprintf(stderr, "cephfab: --size: %u is larger than a "
			    "UDP datagram (65507); use --tcp\n", o.sizes[i]);
			return EXIT_USAGE;
		}
	}
	if (kind == PC_REACH && (!have_from || !have_to)) {
		fprintf(stderr, "cephfab: reach: give --from-net and "
		    "--to-net\n");
		return EXIT_USAGE;
	}
	if (net && parse_net("--net", net, &o.net))
		return EXIT_USAGE;
	if (o.duration > 0 && o.count == 1000)
		o.count = 1000000;	/* -t bounds it instead */
	if (o.nsizes == 0) {
		static const uint32_t dflt[] = { 64, 512, 2000, 8192 };

		/* 2000 B: the size Ceph pads OSD heartbeats to. */
		memcpy(o.sizes, dflt, sizeof(dflt));
		o.nsizes = kind == PC_REACH ? 2 : 4;
		if (kind == PC_REACH)
			o.count = 20;
	}
	if (cli_env_open(g, &e) == -1)
		return EXIT_USAGE;
	if (net == NULL && kind != PC_REACH)
		o.net = cli_env_cluster_pair(&e, o.a, o.b);
	if (kind == PC_PORTS && o.nports == 0) {
		/* Ceph's: the mons on the public network, and a spread of
		 * the OSD range on both. */
		if (o.net == 0) {
			o.ports[o.nports++] = 3300;
			o.ports[o.nports++] = 6789;
		}
		for (i = 6800; i <= 7300; i += 50)
			o.ports[o.nports++] = (uint16_t)i;
	}
	if (cli_env_key(g, &e) == -1)
		return EXIT_USAGE;
	o.timeout = e.timeout;
	o.inventory_path = e.inv.path;
	o.key_path = key_path(g, &e.inv);
	if (o.duration == 0)
		o.duration = kind == PC_LATENCY ? 30 : 15;
	rc = probe_cmd_run(&e.inv, &e.key, &o);
	cli_env_close(&e);
	return rc;
}
