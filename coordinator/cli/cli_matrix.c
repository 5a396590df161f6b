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
#include "units.h"
#include "store/store.h"

#include <errno.h>
#include <getopt.h>
#include <openssl/crypto.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum { O_NET = 256, O_TESTS, O_MODE, O_PROFILE, O_DB, O_RESUME,
    O_HTML, O_JSONF, O_JUNIT, O_PROM, O_MPR, O_CONC, O_MESH,
    O_LRATE, O_LLOAD, O_CCONF, O_CNAME, O_CSV, O_SHOW, O_RATE, O_NOWAIT,
    O_WAIT };

static const struct num_opt matrix_nums[] = {
	NUM_OPT('P', "-P", 1, 64, NUM_U32, struct matrix_opts, streams),
	NUM_OPT('t', "-t", 1, 300, NUM_DOUBLE, struct matrix_opts, secs),
	NUM_OPT(O_RESUME, "--resume", 1, 1e15, NUM_I64, struct matrix_opts,
	    resume),
	NUM_OPT(O_MPR, "--max-per-rack", 1, 1000, NUM_INT, struct matrix_opts,
	    max_per_rack),
	NUM_OPT(O_CONC, "--concurrency", 1, 64, NUM_INT, struct matrix_opts,
	    concurrency),
	NUM_OPT(O_LRATE, "--lat-rate", 1, 100000, NUM_U32, struct matrix_opts,
	    lat_rate),
	NUM_OPT(O_WAIT, "--wait", 0, 86400, NUM_DOUBLE, struct matrix_opts,
	    wait_max),
	NUM_END
};

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
	    "2, 5; within the\n"
	    "                  agents' max_streams and max_duration)\n"
	    "  -b, --rate R    each bandwidth cell's rate each way (500M, 2G), "
	    "split over its\n"
	    "                  streams (default: unpaced, or the smaller "
	    "max_rate of the pair's\n"
	    "                  agents when one has it)\n"
	    "  --no-wait       agents running another coordinator's tests: "
	    "refuse to start\n"
	    "                  (exit 2) instead of waiting for them\n"
	    "  --wait S        wait for such agents at most S seconds "
	    "(default 900)\n"
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
	    "  --show LIST     the terminal's matrices: gbps, retrans, rtt, "
	    "mtu, ports\n                  (default: those of gbps, retrans "
	    "and rtt measured, else mtu, ports)\n"
	    "  --html, --json, --junit, --prom, --csv F  the outputs ('-': "
	    "standard output)\n"
	    "exit: 0 pass, 1 fail, 2 usage, 3 runtime, 4 incomplete (not "
	    "everything measured)\n");
}

static void
report_usage(FILE *f)
{
	fprintf(f,
	    "usage: cephfab report RUN [--db FILE] [--profile FILE] [--json "
	    "FILE|-]\n"
	    "         [--html FILE] [--junit FILE] [--prom FILE] [--csv FILE] "
	    "[--show LIST]\n"
	    "  a stored matrix run rendered again, with the inventory it was "
	    "measured on\n  (kept with the run; -i INV only compares today's "
	    "with it)\n"
	    "  RUN             the run's id ('cephfab runs' lists them)\n"
	    "  --db F          results database (default ./cephfab.db)\n"
	    "  --profile F     judge the run against another profile: a view, "
	    "the stored\n                  verdict stays\n"
	    "  --json, --html, --junit, --prom, --csv F  the outputs, as "
	    "matrix writes them\n                  ('-': standard output)\n"
	    "  --show LIST     the terminal's matrices: gbps, retrans, rtt, "
	    "mtu, ports\n"
	    "exit: 0 pass, 1 fail, 2 usage, 3 runtime, 4 incomplete (not "
	    "everything measured)\n");
}

static const struct word test_words[] = {
	{ "bw", MT_BW, NULL }, { "lat", MT_LAT, NULL }, { "mtu", MT_MTU, NULL },
	{ "ports", MT_PORTS, NULL }, { "facts", MT_FACTS, NULL },
	{ NULL, 0, "bw, lat, mtu, ports or facts" }
};
static const struct word mode_words[] = {
	{ "pairwise", MM_PAIRWISE, NULL }, { "all-to-all", MM_A2A, NULL },
	{ "fanout", MM_FANOUT, NULL },
	{ NULL, 0, "pairwise, all-to-all or fanout" }
};
static const struct word show_words[] = {
	{ "gbps", SHOW_GBPS, NULL }, { "retrans", SHOW_RETRANS, NULL },
	{ "rtt", SHOW_RTT, NULL }, { "mtu", SHOW_MTU, NULL },
	{ "ports", SHOW_PORTS, NULL },
	{ NULL, 0, "gbps, retrans, rtt, mtu or ports" }
};
static const struct word net_words[] = {
	{ "public", 1, NULL }, { "cluster", 2, NULL }, { NULL, 0, "public or cluster" }
};

/* matrix_parse: the options of matrix and report into o (and --net's
 * list into nets); 1 when --help was printed, -1 on a usage error (the
 * line printed), else 0 with argv[optind] the first operand. */
static int
matrix_parse(const struct gopts *g, int argc, char **argv,
    struct matrix_opts *o, const char **nets, bool report)
{
	static const struct option mopts[] = {
		OPT_ARG("net", O_NET), OPT_ARG("tests", O_TESTS),
		OPT_ARG("parallel", 'P'), OPT_ARG("time", 't'),
		OPT_ARG("mode", O_MODE), OPT_ARG("profile", O_PROFILE),
		OPT_ARG("db", O_DB), OPT_ARG("resume", O_RESUME),
		OPT_ARG("html", O_HTML), OPT_ARG("json", O_JSONF),
		OPT_ARG("junit", O_JUNIT), OPT_ARG("prom", O_PROM),
		OPT_ARG("csv", O_CSV), OPT_ARG("max-per-rack", O_MPR),
		OPT_ARG("concurrency", O_CONC), OPT_FLAG("lat-mesh", O_MESH),
		OPT_ARG("lat-rate", O_LRATE), OPT_FLAG("lat-loaded", O_LLOAD),
		OPT_ARG("ceph-conf", O_CCONF), OPT_ARG("ceph-name", O_CNAME),
		OPT_ARG("show", O_SHOW), OPT_ARG("rate", O_RATE),
		OPT_FLAG("no-wait", O_NOWAIT), OPT_ARG("wait", O_WAIT),
		OPT_FLAG("help", 'h'), OPT_END
	};
	char err[CF_ERRLEN];
	int ch;

	memset(o, 0, sizeof(*o));
	o->tests = MT_BW | MT_LAT | MT_MTU | MT_PORTS | MT_FACTS;
	o->modes = MM_PAIRWISE;
	o->streams = 2;
	o->secs = 5;
	o->concurrency = 4;
	o->wait_max = 900;
	o->db = "cephfab.db";
	o->json_stdout = g->json;
	profile_defaults(&o->prof);
	optind = 0;
	while ((ch = cli_getopt(argc, argv, "P:t:b:h", mopts, matrix_nums,
	    o)) != -1) {
		switch (ch) {
		case CLI_BAD_NUMBER: return -1;
		case O_NET: *nets = optarg; break;
		case O_TESTS:
			if (parse_words("matrix: --tests", optarg, test_words,
			    &o->tests) == -1)
				return -1;
			break;
		case O_MODE:
			if (parse_words("matrix: --mode", optarg, mode_words,
			    &o->modes) == -1)
				return -1;
			break;
		case O_PROFILE:
			if (profile_load(optarg, &o->prof, err) == -1) {
				fprintf(stderr, "cephfab: %s\n", err);
				return -1;
			}
			o->prof_given = true;
			break;
		case O_DB: o->db = optarg; break;
		case O_HTML: o->html = optarg; break;
		case O_JSONF:
			/* '-': the JSON on stdout instead of the table. */
			if (out_is_stdout(optarg))
				o->json_stdout = true;
			else
				o->json = optarg;
			break;
		case O_JUNIT: o->junit = optarg; break;
		case O_PROM: o->prom = optarg; break;
		case O_CSV: o->csv = optarg; break;
		case 'b':
		case O_RATE:
			if (units_rate(optarg, &o->rate) == -1 || o->rate == 0) {
				fprintf(stderr, "cephfab: matrix: --rate: '%s' "
				    "is not a rate (500M, 2G)\n", optarg);
				return -1;
			}
			break;
		case O_NOWAIT: o->no_wait = true; break;
		case O_MESH: o->lat_mesh = 1; break;
		case O_LLOAD: o->lat_loaded = true; break;
		case O_CCONF: o->ceph_conf = optarg; break;
		case O_CNAME: o->ceph_name = optarg; break;
		case O_SHOW:
			if (parse_words(report ? "report: --show" :
			    "matrix: --show", optarg, show_words,
			    (int *)&o->show) == -1)
				return -1;
			break;
		case 'h': (report ? report_usage : matrix_usage)(stdout);
			return 1;
		default: (report ? report_usage : matrix_usage)(stderr);
			return -1;
		}
	}
	return 0;
}

/* matrix_nets: --net's networks, or those on which every host has an
 * address; -1 (printed) when there are none. */
static int
matrix_nets(const struct inventory *inv, const char *nets, int *out)
{
	const struct inv_host *h;
	int pub = 1, clu = 1;

	if (nets)
		return parse_words("matrix: --net", nets, net_words, out);
	TAILQ_FOREACH(h, &inv->hosts, entry) {
		pub &= h->pub.family != 0;
		clu &= h->clus.family != 0;
	}
	*out = pub | clu << 1;
	if (*out == 0) {
		fprintf(stderr, "cephfab: matrix: no network on which every "
		    "host of %s has an address\n", inv->path);
		return -1;
	}
	return 0;
}

static int
matrix_or_report(const struct gopts *g, int argc, char **argv, bool report)
{
	struct matrix_opts o;
	struct cli_env e;
	const char *nets = NULL;
	char serr[CF_ERRLEN];
	int rc;
	double d;
	int64_t run;

	rc = matrix_parse(g, argc, argv, &o, &nets, report);
	if (rc != 0)
		return rc == 1 ? EXIT_PASS : EXIT_USAGE;
	if (argc - optind != (report ? 1 : 0)) {
		if (report)
			fprintf(stderr, "cephfab: report: %s\n", argc == optind ?
			    "which run? ('cephfab runs' lists them)" :
			    "one run at a time ('cephfab compare A B' for two)");
		else
			fprintf(stderr, "cephfab: matrix: unexpected '%s' (the "
			    "hosts are the inventory's)\n", argv[optind]);
		(report ? report_usage : matrix_usage)(stderr);
		return EXIT_USAGE;
	}
	if (o.lat_loaded && (!(o.modes & (MM_A2A | MM_FANOUT)) ||
	    !(o.tests & MT_BW))) {
		fprintf(stderr, "cephfab: matrix: --lat-loaded needs a load: "
		    "--mode all-to-all or fanout, with bw in --tests\n");
		return EXIT_USAGE;
	}
	{
		const char *const paths[] = { o.json, o.csv, o.html, o.junit,
		    o.prom };
		static const char *const flag[] = { "--json", "--csv",
		    "--html", "--junit", "--prom" };
		char err[CF_ERRLEN];
		size_t k;

		int std = o.json_stdout;

		for (k = 0; k < sizeof(paths) / sizeof(paths[0]); k++) {
			std += paths[k] && out_is_stdout(paths[k]);
			if (std > 1) {
				fprintf(stderr, "cephfab: %s: %s -: only one "
				    "output can go to standard output\n",
				    report ? "report" : "matrix", flag[k]);
				return EXIT_USAGE;
			}
		}
		for (k = 0; k < sizeof(paths) / sizeof(paths[0]); k++)
			if (paths[k] && out_path_check(paths[k], err) == -1) {
				fprintf(stderr, "cephfab: %s: %s %s\n", report ?
				    "report" : "matrix", flag[k], err);
				return EXIT_USAGE;
			}
	}
	if (report) {
		char err[CF_ERRLEN];

		if (parse_num("RUN", argv[optind], 1, 1e15, &d))
			return EXIT_USAGE;
		memset(&e, 0, sizeof(e));
		if (report_inventory(o.db, (int64_t)d, g->inventory, &e.inv,
		    err) == -1) {
			fprintf(stderr, "cephfab: report: %s\n", err);
			return EXIT_USAGE;
		}
	} else if (self_usable(serr) == -1) {
		fprintf(stderr, "cephfab: matrix: %s\n", serr);
		return EXIT_USAGE;
	} else if (cli_env_open(g, &e) == -1)
		return EXIT_USAGE;
	if (matrix_nets(&e.inv, nets, &o.nets) == -1) {
		cli_env_close(&e);
		return EXIT_USAGE;
	}
	o.inventory = e.inv.path;
	o.key = g->key;
	o.timeout = e.timeout;
	if (report) {
		rc = report_render(&e.inv, &o, (int64_t)d, false);
	} else {
		rc = matrix_run(&e.inv, &o, &run);
		if (rc == EXIT_PASS)
			rc = report_render(&e.inv, &o, run, true);
	}
	cli_env_close(&e);
	return rc;
}

int
cmd_matrix(const struct gopts *g, int argc, char **argv)
{
	return matrix_or_report(g, argc, argv, false);
}

int
cmd_report(const struct gopts *g, int argc, char **argv)
{
	return matrix_or_report(g, argc, argv, true);
}

int
cmd_runs(const struct gopts *g, int argc, char **argv)
{
	struct store st;
	char err[CF_ERRLEN];
	static const struct option lo[] = {
		OPT_ARG("db", O_DB), OPT_FLAG("json", 'j'), OPT_END
	};
	const char *db = "cephfab.db";
	cJSON *runs, *r, *doc;
	bool json = g->json;
	int ch;

	optind = 0;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, "+j", lo, NULL)) != -1) {
		if (ch == O_DB) {
			db = optarg;
		} else if (ch == 'j') {
			json = true;
		} else {
			fprintf(stderr, "cephfab: runs: '%s' is not an option "
			    "of runs (usage: cephfab runs [--db FILE] "
			    "[--json])\n", argv[optind - 1]);
			return EXIT_USAGE;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "cephfab: runs: takes no arguments ('%s'; "
		    "'cephfab report %s' renders a run)\n", argv[optind],
		    argv[optind]);
		return EXIT_USAGE;
	}
	if (access(db, R_OK) != 0) {
		fprintf(stderr, "cephfab: runs: %s: %s\n", db,
		    strerror(errno));
		return EXIT_USAGE;
	}
	if (store_open_ro(&st, db, err) == -1) {
		fprintf(stderr, "cephfab: runs: %s\n", err);
		return EXIT_USAGE;
	}
	runs = store_runs(&st);
	if (json) {
		doc = cJSON_CreateObject();
		cJSON_AddStringToObject(doc, "db", db);
		cJSON_AddItemReferenceToObject(doc, "runs", runs);
		out_json(doc);
		cJSON_Delete(doc);
	} else {
		printf("%6s  %-19s  %-10s  %5s  %s\n", "RUN", "STARTED",
		    "VERDICT", "CELLS", "INVENTORY");
		cJSON_ArrayForEach(r, runs) {
			double id = 0, cells = 0, planned = -1;
			const char *started = "", *verdict = "", *inv = "";
			char cn[40];

			json_get_double(r, "id", 0, 1e15, &id, err);
			json_get_double(r, "cells", 0, 1e15, &cells, err);
			json_opt_double(r, "planned", 0, 1e15, -1, &planned,
			    err);
			json_get_str(r, "started", 0, 64, &started, err);
			json_get_str(r, "verdict", 0, 32, &verdict, err);
			json_get_str(r, "inventory", 0, 4096, &inv, err);
			/* A run stored short of its plan shows both, as
			 * the interrupt line and report count them. */
			if (planned > cells)
				snprintf(cn, sizeof(cn), "%.0f/%.0f", cells,
				    planned);
			else
				snprintf(cn, sizeof(cn), "%.0f", cells);
			printf("%6.0f  %-19s  %-10s  %5s  %s\n", id, started,
			    verdict, cn, inv);
		}
	}
	cJSON_Delete(runs);
	store_close(&st);
	return EXIT_PASS;
}

int
cmd_compare(const struct gopts *g, int argc, char **argv)
{
	static const struct option lo[] = {
		OPT_ARG("db", O_DB), OPT_FLAG("help", 'h'), OPT_END
	};
	static const char *use = "usage: cephfab compare [--db FILE] RUN_A "
	    "RUN_B [RUN_C...]\n  two to six stored runs side by side, per "
	    "network (the runs of 'cephfab runs');\n  with two, B's change "
	    "from A\n";
	const char *db = "cephfab.db";
	int64_t runs[COMPARE_MAX];
	char what[16];
	double v;
	int ch, i, n;

	/* Options before or after the runs, as everywhere. */
	optind = 0;
	while ((ch = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (ch) {
		case O_DB: db = optarg; break;
		case 'h': fputs(use, stdout); return EXIT_PASS;
		default: fputs(use, stderr); return EXIT_USAGE;
		}
	}
	n = argc - optind;
	if (n < 2 || n > COMPARE_MAX) {
		fprintf(stderr, "cephfab: compare: %s runs to compare, got "
		    "%d\n%s", n < 2 ? "two or more" : "at most six", n, use);
		return EXIT_USAGE;
	}
	for (i = 0; i < n; i++) {
		snprintf(what, sizeof(what), "RUN_%c", 'A' + i);
		if (parse_num(what, argv[optind + i], 1, 1e15, &v))
			return EXIT_USAGE;
		runs[i] = (int64_t)v;
	}
	if (access(db, R_OK) != 0) {
		fprintf(stderr, "cephfab: compare: %s: %s\n", db,
		    strerror(errno));
		return EXIT_USAGE;
	}
	return compare_run(db, runs, n, g->json);
}
