/* cli_matrix: argument parsing of the matrix family (matrix, report,
 * runs, compare) and of mesh, see cli.h. */
#include "cli/cli.h"
#include "auth.h"
#include "report/report.h"
#include "watch/watch.h"
#include "log.h"
#include "matrix/matrix.h"
#include "probes/probes.h"
#include "core/core.h"
#include "json.h"
#include "store/store.h"

#include <errno.h>
#include <getopt.h>
#include <openssl/crypto.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void
matrix_usage(FILE *f)
{
	fprintf(f,
	    "usage: cephfab -i INV matrix [--net public,cluster] "
	    "[--tests bw,lat,mtu,ports,facts] [-P N] [-t S]\n"
	    "         [--mode pairwise,all-to-all,fanout] [--profile FILE] "
	    "[--db FILE] "
	    "[--resume RUN] [--max-per-rack N]\n"
	    "         [--html FILE] [--json FILE|-] [--junit FILE] [--prom FILE] [--csv FILE]\n"
	    "       cephfab -i INV report RUN [--db FILE] [same outputs]\n"
	    "  --net LIST      networks (default: both where the inventory has "
	    "them)\n"
	    "  --tests LIST    bw (throughput), lat, mtu, ports, facts "
	    "(links, bonds, routes,\n"
	    "                  FRR: topology findings) (default: all)\n"
	    "  -P N, -t S      streams each way and seconds per pair (default "
	    "2, 5)\n"
	    "  --profile F     acceptance thresholds (configs/profiles/*.conf)\n"
	    "  --db F          results database (default ./cephfab.db)\n"
	    "  --resume RUN    finish an interrupted run\n"
	    "  --mode LIST     bandwidth patterns: pairwise (isolated pairs, "
	    "default),\n"
	    "                  all-to-all (every host to every other at once), "
	    "fanout\n"
	    "                  (each host to two hosts in other racks)\n"
	    "  --max-per-rack N  inter-rack pairs per rack per round\n"
	    "  --concurrency N probe cells at once (default 4)\n"
	    "  --lat-mesh      latency of all pairs at once, one runner per "
	    "agent (the default\n"
	    "                  above 16 hosts)\n"
	    "  --lat-rate PPS  mesh probes per second from each agent "
	    "(default 1000)\n"
	    "  --lat-loaded    the latency mesh again during the all-to-all "
	    "(or fanout) load\n"
	    "  --ceph-conf F   Ceph's own heartbeat times beside the RTT "
	    "(--ceph-name N)\n"
	    "exit: 0 pass, 1 fail, 2 usage, 3 runtime\n");
}

int
cmd_matrix(const struct gopts *g, int argc, char **argv, bool report)
{
	enum { O_NET = 256, O_TESTS, O_MODE, O_PROFILE, O_DB, O_RESUME,
	    O_HTML, O_JSONF, O_JUNIT, O_PROM, O_MPR, O_CONC, O_MESH,
	    O_LRATE, O_LLOAD, O_CCONF, O_CNAME, O_CSV };
	static const struct option mopts[] = {
		{ "net", required_argument, NULL, O_NET },
		{ "tests", required_argument, NULL, O_TESTS },
		{ "parallel", required_argument, NULL, 'P' },
		{ "time", required_argument, NULL, 't' },
		{ "mode", required_argument, NULL, O_MODE },
		{ "profile", required_argument, NULL, O_PROFILE },
		{ "db", required_argument, NULL, O_DB },
		{ "resume", required_argument, NULL, O_RESUME },
		{ "html", required_argument, NULL, O_HTML },
		{ "json", required_argument, NULL, O_JSONF },
		{ "junit", required_argument, NULL, O_JUNIT },
		{ "prom", required_argument, NULL, O_PROM },
		{ "csv", required_argument, NULL, O_CSV },
		{ "max-per-rack", required_argument, NULL, O_MPR },
		{ "concurrency", required_argument, NULL, O_CONC },
		{ "lat-mesh", no_argument, NULL, O_MESH },
		{ "lat-rate", required_argument, NULL, O_LRATE },
		{ "lat-loaded", no_argument, NULL, O_LLOAD },
		{ "ceph-conf", required_argument, NULL, O_CCONF },
		{ "ceph-name", required_argument, NULL, O_CNAME },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct matrix_opts o;
	struct inventory inv;
	char err[CF_ERRLEN], buf[256], *tok, *save;
	const char *nets = NULL;
	int ch, rc;
	double d;
	int64_t run;

	memset(&o, 0, sizeof(o));
	o.tests = MT_BW | MT_LAT | MT_MTU | MT_PORTS | MT_FACTS;
	o.modes = MM_PAIRWISE;
	o.streams = 2;
	o.secs = 5;
	o.concurrency = 4;
	o.db = "cephfab.db";
	o.json_stdout = g->json;
	profile_defaults(&o.prof);
	optind = 0;
	while ((ch = getopt_long(argc, argv, "P:t:h", mopts, NULL)) != -1) {
		switch (ch) {
		case O_NET: nets = optarg; break;
		case O_TESTS:
			o.tests = 0;
			snprintf(buf, sizeof(buf), "%s", optarg);
			save = NULL;
			for (tok = strtok_r(buf, ",", &save); tok;
			    tok = strtok_r(NULL, ",", &save)) {
				if (strcmp(tok, "bw") == 0) o.tests |= MT_BW;
				else if (strcmp(tok, "lat") == 0) o.tests |= MT_LAT;
				else if (strcmp(tok, "mtu") == 0) o.tests |= MT_MTU;
				else if (strcmp(tok, "ports") == 0)
					o.tests |= MT_PORTS;
				else if (strcmp(tok, "facts") == 0)
					o.tests |= MT_FACTS;
				else {
					fprintf(stderr, "cephfab: matrix: "
					    "--tests: '%s' is not bw, lat, mtu, "
					    "ports or facts\n", tok);
					return EXIT_USAGE;
				}
			}
			break;
		case 'P':
			if (parse_num("-P", optarg, 1, 64, &d))
				return EXIT_USAGE;
			o.streams = (uint32_t)d;
			break;
		case 't':
			if (parse_num("-t", optarg, 1, 300, &o.secs))
				return EXIT_USAGE;
			break;
		case O_MODE:
			o.modes = 0;
			snprintf(buf, sizeof(buf), "%s", optarg);
			save = NULL;
			for (tok = strtok_r(buf, ",", &save); tok;
			    tok = strtok_r(NULL, ",", &save)) {
				if (strcmp(tok, "pairwise") == 0)
					o.modes |= MM_PAIRWISE;
				else if (strcmp(tok, "all-to-all") == 0)
					o.modes |= MM_A2A;
				else if (strcmp(tok, "fanout") == 0)
					o.modes |= MM_FANOUT;
				else {
					fprintf(stderr, "cephfab: matrix: "
					    "--mode: '%s' is not pairwise, "
					    "all-to-all or fanout\n", tok);
					return EXIT_USAGE;
				}
			}
			break;
		case O_PROFILE:
			if (profile_load(optarg, &o.prof, err) == -1) {
				fprintf(stderr, "cephfab: %s\n", err);
				return EXIT_USAGE;
			}
			o.prof_given = true;
			break;
		case O_DB: o.db = optarg; break;
		case O_RESUME:
			if (parse_num("--resume", optarg, 1, 1e15, &d))
				return EXIT_USAGE;
			o.resume = (int64_t)d;
			break;
		case O_HTML: o.html = optarg; break;
		case O_JSONF:
			/* '-': the JSON on stdout instead of the table. */
			if (strcmp(optarg, "-") == 0)
				o.json_stdout = true;
			else
				o.json = optarg;
			break;
		case O_JUNIT: o.junit = optarg; break;
		case O_PROM: o.prom = optarg; break;
		case O_CSV: o.csv = optarg; break;
		case O_MPR:
			if (parse_num("--max-per-rack", optarg, 1, 1000, &d))
				return EXIT_USAGE;
			o.max_per_rack = (int)d;
			break;
		case O_CONC:
			if (parse_num("--concurrency", optarg, 1, 64, &d))
				return EXIT_USAGE;
			o.concurrency = (int)d;
			break;
		case O_MESH: o.lat_mesh = 1; break;
		case O_LLOAD: o.lat_loaded = true; break;
		case O_CCONF: o.ceph_conf = optarg; break;
		case O_CNAME: o.ceph_name = optarg; break;
		case O_LRATE:
			if (parse_num("--lat-rate", optarg, 1, 100000, &d))
				return EXIT_USAGE;
			o.lat_rate = (uint32_t)d;
			break;
		case 'h': matrix_usage(stdout); return EXIT_PASS;
		default: matrix_usage(stderr); return EXIT_USAGE;
		}
	}
	if (argc - optind != (report ? 1 : 0)) {
		matrix_usage(stderr);
		return EXIT_USAGE;
	}
	if (o.lat_loaded && (!(o.modes & (MM_A2A | MM_FANOUT)) ||
	    !(o.tests & MT_BW))) {
		fprintf(stderr, "cephfab: matrix: --lat-loaded needs a load: "
		    "--mode all-to-all or fanout, with bw in --tests\n");
		return EXIT_USAGE;
	}
	if (load_inventory(g, &inv) == -1)
		return EXIT_USAGE;
	if (nets) {
		snprintf(buf, sizeof(buf), "%s", nets);
		save = NULL;
		for (tok = strtok_r(buf, ",", &save); tok;
		    tok = strtok_r(NULL, ",", &save)) {
			if (strcmp(tok, "public") == 0)
				o.nets |= 1;
			else if (strcmp(tok, "cluster") == 0)
				o.nets |= 2;
			else {
				fprintf(stderr, "cephfab: matrix: --net: '%s' is "
				    "not public or cluster\n", tok);
				inventory_free(&inv);
				return EXIT_USAGE;
			}
		}
	} else {
		struct inv_host *h;
		int pub = 1, clu = 1;

		TAILQ_FOREACH(h, &inv.hosts, entry) {
			pub &= h->pub.family != 0;
			clu &= h->clus.family != 0;
		}
		o.nets = pub | clu << 1;
		if (o.nets == 0) {
			fprintf(stderr, "cephfab: matrix: no network on which "
			    "every host of %s has an address\n", inv.path);
			inventory_free(&inv);
			return EXIT_USAGE;
		}
	}
	o.inventory = inv.path;
	o.key = g->key;
	o.timeout = g->timeout > 0 ? g->timeout : inv.timeout;
	if (report) {
		if (parse_num("RUN", argv[optind], 1, 1e15, &d)) {
			inventory_free(&inv);
			return EXIT_USAGE;
		}
		rc = report_render(&inv, &o, (int64_t)d);
	} else {
		rc = matrix_run(&inv, &o, &run);
		if (rc == EXIT_PASS)
			rc = report_render(&inv, &o, run);
	}
	inventory_free(&inv);
	return rc;
}

int
cmd_runs(const struct gopts *g, int argc, char **argv)
{
	struct store st;
	char err[CF_ERRLEN];
	const char *db = "cephfab.db";
	cJSON *runs, *r;

	if (argc == 3 && strcmp(argv[1], "--db") == 0)
		db = argv[2];
	else if (argc != 1) {
		fprintf(stderr, "usage: cephfab runs [--db FILE]\n");
		return EXIT_USAGE;
	}
	if (access(db, R_OK) != 0) {
		fprintf(stderr, "cephfab: runs: %s: %s\n", db,
		    strerror(errno));
		return EXIT_USAGE;
	}
	if (store_open(&st, db, err) == -1) {
		fprintf(stderr, "cephfab: %s\n", err);
		return EXIT_RUNTIME;
	}
	runs = store_runs(&st);
	if (g->json) {
		out_json(runs);
	} else {
		printf("%6s  %-19s  %-10s  %5s  %s\n", "RUN", "STARTED",
		    "VERDICT", "CELLS", "INVENTORY");
		cJSON_ArrayForEach(r, runs) {
			double id = 0, cells = 0;
			const char *started = "", *verdict = "", *inv = "";

			json_get_double(r, "id", 0, 1e15, &id, err);
			json_get_double(r, "cells", 0, 1e15, &cells, err);
			json_get_str(r, "started", 0, 64, &started, err);
			json_get_str(r, "verdict", 0, 32, &verdict, err);
			json_get_str(r, "inventory", 0, 4096, &inv, err);
			printf("%6.0f  %-19s  %-10s  %5.0f  %s\n", id, started,
			    verdict, cells, inv);
		}
	}
	cJSON_Delete(runs);
	store_close(&st);
	return EXIT_PASS;
}


int
cmd_compare(const struct gopts *g, int argc, char **argv)
{
	const char *db = "cephfab.db";
	double a, b;
	int i = 1;

	if (argc >= 3 && strcmp(argv[1], "--db") == 0) {
		db = argv[2];
		i = 3;
	}
	if (argc - i != 2) {
		fprintf(stderr, "usage: cephfab compare [--db FILE] RUN_A "
		    "RUN_B\n");
		return EXIT_USAGE;
	}
	if (parse_num("RUN_A", argv[i], 1, 1e15, &a) ||
	    parse_num("RUN_B", argv[i + 1], 1, 1e15, &b))
		return EXIT_USAGE;
	if (access(db, R_OK) != 0) {
		fprintf(stderr, "cephfab: compare: %s: %s\n", db,
		    strerror(errno));
		return EXIT_USAGE;
	}
	return compare_run(db, (int64_t)a, (int64_t)b, g->json);
}

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
	enum { O_NET = 256, O_COUNT, O_RATE, O_SIZE, O_DB, O_RUN, O_TEST,
	    O_START };
	static const struct option mo[] = {
		{ "net", required_argument, NULL, O_NET },
		{ "count", required_argument, NULL, O_COUNT },
		{ "rate", required_argument, NULL, O_RATE },
		{ "size", required_argument, NULL, O_SIZE },
		{ "db", required_argument, NULL, O_DB },
		{ "run", required_argument, NULL, O_RUN },
		{ "test", required_argument, NULL, O_TEST },
		{ "start-at", required_argument, NULL, O_START },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct mesh_opts o;
	struct inventory inv;
	struct auth_key key;
	struct inv_host *h;
	char err[CF_ERRLEN];
	const char *net = NULL;
	int ch, rc, clu = 1;
	double d, start_at = 0;

	memset(&o, 0, sizeof(o));
	o.count = 20;
	o.rate = 1000;
	o.size = 2000;
	o.json = g->json;
	optind = 0;
	while ((ch = getopt_long(argc, argv, "jh", mo, NULL)) != -1) {
		switch (ch) {
		case O_NET: net = optarg; break;
		case O_COUNT:
			if (parse_num("--count", optarg, 1, 10000, &d))
				return EXIT_USAGE;
			o.count = (uint32_t)d;
			break;
		case O_RATE:
			if (parse_num("--rate", optarg, 1, 100000, &d))
				return EXIT_USAGE;
			o.rate = (uint32_t)d;
			break;
		case O_SIZE:
			if (parse_num("--size", optarg, 32, 65507, &d))
				return EXIT_USAGE;
			o.size = (uint32_t)d;
			break;
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
		case O_RUN:
			if (parse_num("--run", optarg, 1, 1e15, &d))
				return EXIT_USAGE;
			o.run = (int64_t)d;
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
	if (load_inventory(g, &inv) == -1)
		return EXIT_USAGE;
	TAILQ_FOREACH(h, &inv.hosts, entry)
		clu &= h->clus.family != 0;
	o.net = net ? strcmp(net, "cluster") == 0 : clu;
	o.timeout = g->timeout > 0 ? g->timeout : inv.timeout;
	if (auth_key_load(key_path(g, &inv), &key, err) == -1) {
		fprintf(stderr, "cephfab: %s\n", err);
		inventory_free(&inv);
		return EXIT_USAGE;
	}
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
	rc = mesh_run(&inv, &key, &o);
	OPENSSL_cleanse(&key, sizeof(key));
	inventory_free(&inv);
	return rc;
}

int
cmd_watch(const struct gopts *g, int argc, char **argv)
{
	enum { O_NET = 256, O_IVAL, O_FILTER };
	static const struct option wo[] = {
		{ "net", required_argument, NULL, O_NET },
		{ "interval", required_argument, NULL, O_IVAL },
		{ "time", required_argument, NULL, 't' },
		{ "filter", required_argument, NULL, O_FILTER },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	static const char *use = "usage: cephfab -i INV watch [--net "
	    "cluster|public] [--interval S] [-t SECONDS]\n"
	    "         [--filter BPF] [--json]\n"
	    "  live per host pair: Mbit/s, segments, retransmits, "
	    "out-of-order,\n"
	    "  zero windows, RSTs, RTT of the real traffic (default filter: "
	    "Ceph's ports)\n";
	struct watch_opts o;
	struct inventory inv;
	struct auth_key key;
	char err[CF_ERRLEN];
	const char *net = "cluster";
	int ch, rc;
	double d;

	memset(&o, 0, sizeof(o));
	o.interval = 5;
	o.duration = 60;
	o.json = g->json;
	optind = 0;
	while ((ch = getopt_long(argc, argv, "t:jh", wo, NULL)) != -1) {
		switch (ch) {
		case O_NET: net = optarg; break;
		case O_IVAL:
			if (parse_num("--interval", optarg, 0.2, 60, &d))
				return EXIT_USAGE;
			o.interval = d;
			break;
		case 't':
			if (parse_num("-t", optarg, 0.5, 86400, &d))
				return EXIT_USAGE;
			o.duration = d;
			break;
		case O_FILTER: o.filter = optarg; break;
		case 'j': o.json = true; break;
		case 'h': fputs(use, stdout); return EXIT_PASS;
		default: fputs(use, stderr); return EXIT_USAGE;
		}
	}
	if (argc != optind || (strcmp(net, "public") != 0 &&
	    strcmp(net, "cluster") != 0)) {
		fputs(use, stderr);
		return EXIT_USAGE;
	}
	o.net = strcmp(net, "cluster") == 0;
	if (load_inventory(g, &inv) == -1)
		return EXIT_USAGE;
	o.timeout = g->timeout > 0 ? g->timeout : inv.timeout;
	if (auth_key_load(key_path(g, &inv), &key, err) == -1) {
		fprintf(stderr, "cephfab: %s\n", err);
		inventory_free(&inv);
		return EXIT_USAGE;
	}
	rc = watch_run(&inv, &key, &o);
	OPENSSL_cleanse(&key, sizeof(key));
	inventory_free(&inv);
	return rc;
}
