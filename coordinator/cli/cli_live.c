/* cli_live: the commands that look at every pair at once, live: mesh
 * (RTT of all pairs) and watch (capture of the real traffic), see
 * cli.h. */
#include "cli/cli.h"
#include "probes/probes.h"
#include "watch/watch.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { O_NET = 256, O_COUNT, O_RATE, O_SIZE, O_DB, O_RUN, O_TEST, O_START,
    O_IVAL, O_FILTER };

static const struct num_opt mesh_nums[] = {
	NUM_OPT(O_COUNT, "--count", 1, 10000, NUM_U32, struct mesh_opts, count),
	NUM_OPT(O_RATE, "--rate", 1, 100000, NUM_U32, struct mesh_opts, rate),
	NUM_OPT(O_SIZE, "--size", 32, 65507, NUM_U32, struct mesh_opts, size),
	NUM_OPT(O_RUN, "--run", 1, 1e15, NUM_I64, struct mesh_opts, run),
	NUM_END
};

static const struct num_opt watch_nums[] = {
	NUM_OPT(O_IVAL, "--interval", 0.2, 60, NUM_DOUBLE, struct watch_opts,
	    interval),
	NUM_OPT('t', "-t", 0.5, 86400, NUM_DOUBLE, struct watch_opts,
	    duration),
	NUM_END
};

static void
mesh_usage(FILE *f)
{
	fprintf(f,
	    "usage: cephfab -i INV mesh [--net public|cluster] [--count N] "
	    "[--rate PPS] [--size BYTES] [--json]\n"
	    "  every ordered pair's UDP round trip at once: one echo responder "
	    "and one\n"
	    "  runner per agent (the matrix's latency phase above 16 hosts)\n"
	    "  --net N       network (default: cluster when every host has "
	    "one)\n"
	    "  --count N     probes per ordered pair (default 20)\n"
	    "  --rate PPS    probes per second each agent sends (default "
	    "1000)\n"
	    "  --size BYTES  UDP payload (default 2000, Ceph's heartbeat "
	    "size)\n"
	    "  --db F --run R  store the pairs as latency cells of matrix run "
	    "R in F\n"
	    "                (the matrix does this) and print a summary\n"
	    "  --test NAME   the cells' test: lat (default) or lat_load\n"
	    "  --start-at T  begin at wall-clock time T (seconds since the "
	    "epoch)\n"
	    "exit: 0 every pair answered every probe, 1 losses or hosts "
	    "missing, 2 usage, 3 nothing measured\n");
}

int
cmd_mesh(const struct gopts *g, int argc, char **argv)
{
	static const struct option mo[] = {
		OPT_ARG("net", O_NET), OPT_ARG("count", O_COUNT),
		OPT_ARG("rate", O_RATE), OPT_ARG("size", O_SIZE),
		OPT_ARG("db", O_DB), OPT_ARG("run", O_RUN),
		OPT_ARG("test", O_TEST), OPT_ARG("start-at", O_START),
		OPT_FLAG("json", 'j'), OPT_FLAG("help", 'h'), OPT_END
	};
	struct mesh_opts o;
	struct cli_env e;
	const char *net = NULL;
	int ch, rc;
	double d, start_at = 0;

	memset(&o, 0, sizeof(o));
	o.count = 20;
	o.rate = 1000;
	o.size = 2000;
	o.json = g->json;
	optind = 0;
	while ((ch = cli_getopt(argc, argv, "jh", mo, mesh_nums, &o)) != -1) {
		switch (ch) {
		case CLI_BAD_NUMBER: return EXIT_USAGE;
		case O_NET: net = optarg; break;
		case O_DB: o.db = optarg; break;
		case O_TEST:
			if (strcmp(optarg, "lat") != 0 &&
			    strcmp(optarg, "lat_load") != 0) {
				fprintf(stderr, "cephfab: mesh: --test: '%s' is "
				    "not lat or lat_load\n", optarg);
				return EXIT_USAGE;
			}
			o.test = optarg;
			break;
		case O_START:
			/* Bounded: an hour ahead at most, never a stall. */
			if (parse_num("--start-at", optarg, 0, (double)time(NULL)
			    + 3600, &start_at))
				return EXIT_USAGE;
			break;
		case 'j': o.json = true; break;
		case 'h': mesh_usage(stdout); return EXIT_PASS;
		default: mesh_usage(stderr); return EXIT_USAGE;
		}
	}
	if (argc != optind) {
		mesh_usage(stderr);
		return EXIT_USAGE;
	}
	if ((o.db == NULL) != (o.run == 0)) {
		fprintf(stderr, "cephfab: mesh: --db and --run go together\n");
		return EXIT_USAGE;
	}
	if (net && strcmp(net, "public") != 0 && strcmp(net, "cluster") != 0) {
		fprintf(stderr, "cephfab: mesh: --net: '%s' is not public or "
		    "cluster\n", net);
		return EXIT_USAGE;
	}
	if (cli_env_open(g, &e) == -1)
		return EXIT_USAGE;
	o.net = net ? strcmp(net, "cluster") == 0 : cli_env_cluster_all(&e);
	o.timeout = e.timeout;
	if (cli_env_key(g, &e) == -1)
		return EXIT_USAGE;
	if (start_at > 0) {
		struct timespec now, ts;

		/* The matrix's loaded mesh waits for its load to run. */
		clock_gettime(CLOCK_REALTIME, &now);
		d = start_at - ((double)now.tv_sec + now.tv_nsec / 1e9);
		if (d > 0) {
			ts.tv_sec = (time_t)d;
			ts.tv_nsec = (long)((d - (double)ts.tv_sec) * 1e9);
			nanosleep(&ts, NULL);
		}
	}
	rc = mesh_run(&e.inv, &e.key, &o);
	cli_env_close(&e);
	return rc;
}

int
cmd_watch(const struct gopts *g, int argc, char **argv)
{
	static const struct option wo[] = {
		OPT_ARG("net", O_NET), OPT_ARG("interval", O_IVAL),
		OPT_ARG("time", 't'), OPT_ARG("filter", O_FILTER),
		OPT_FLAG("json", 'j'), OPT_FLAG("help", 'h'), OPT_END
	};
	static const char *use = "usage: cephfab -i INV watch [--net "
	    "cluster|public] [--interval S] [-t SECONDS]\n"
	    "         [--filter BPF] [--json]\n"
	    "  live per host pair: Mbit/s, segments, retransmits, "
	    "out-of-order,\n"
	    "  zero windows, RSTs, RTT of the real traffic (default filter: "
	    "Ceph's ports)\n"
	    "exit: 0 every agent watched, 1 some could not, 2 usage, 3 none "
	    "could\n";
	struct watch_opts o;
	struct cli_env e;
	const char *net = "cluster";
	int ch, rc;

	memset(&o, 0, sizeof(o));
	o.interval = 5;
	o.duration = 60;
	o.json = g->json;
	optind = 0;
	while ((ch = cli_getopt(argc, argv, "t:jh", wo, watch_nums, &o)) != -1) {
		switch (ch) {
		case CLI_BAD_NUMBER: return EXIT_USAGE;
		case O_NET: net = optarg; break;
		case O_FILTER: o.filter = optarg; break;
		case 'j': o.json = true; break;
		case 'h': fputs(use, stdout); return EXIT_PASS;
		default: fputs(use, stderr); return EXIT_USAGE;
		}
	}
	if (argc != optind) {
		fprintf(stderr, "cephfab: watch: unexpected '%s'\n",
		    argv[optind]);
		fputs(use, stderr);
		return EXIT_USAGE;
	}
	if (strcmp(net, "public") != 0 && strcmp(net, "cluster") != 0) {
		fprintf(stderr, "cephfab: watch: --net: '%s' is not public or "
		    "cluster\n", net);
		return EXIT_USAGE;
	}
	o.net = strcmp(net, "cluster") == 0;
	if (cli_env_open(g, &e) == -1 || cli_env_key(g, &e) == -1)
		return EXIT_USAGE;
	o.timeout = e.timeout;
	rc = watch_run(&e.inv, &e.key, &o);
	cli_env_close(&e);
	return rc;
}
