/* cli_plan: the cutover commands, plan and migrate, see cli.h. */
#include "cli/cli.h"
#include "ceph/ceph.h"
#include "migrate/migrate.h"
#include "json.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* plan_write: the plan as JSON (out) and as a script (script), each
 * whole or not at all; -1 (printed) when one could not be written. */
static int
plan_write(const cJSON *plan, const char *out, const char *script)
{
	struct out_file of;
	char err[CF_ERRLEN];
	int rc = 0;

	if (out && (out_file_open(&of, out, err) == -1 ||
	    (out_json_write(of.f, plan), out_file_close(&of, err)) == -1)) {
		fprintf(stderr, "cephfab: plan: %s\n", err);
		rc = -1;
	}
	if (script) {
		if (out_file_open(&of, script, err) == -1 ||
		    (plan_script(plan, of.f), out_file_close(&of, err)) == -1) {
			fprintf(stderr, "cephfab: plan: %s\n", err);
			rc = -1;
		} else
			chmod(script, 0755);
	}
	return rc;
}

/* plan_outcome puts the preflight into plan (its findings, its checks,
 * "refused") and prints it: a refusal first and alone (the steps out of
 * the document too, so that nothing runs them, unless show), else the
 * checks that passed and then the plan. With --json the document on
 * stdout and the findings as lines on stderr. Takes fs. */
static void
plan_outcome(cJSON *plan, cJSON *fs, int blocks, bool show, bool json)
{
	const cJSON *f, *c;
	FILE *tx = json ? stderr : stdout;

	cJSON_AddItemToObject(plan, "checks", plan_check_list(fs));
	cJSON_AddItemToObject(plan, "preflight", fs);
	cJSON_AddBoolToObject(plan, "refused", blocks > 0);
	if (blocks > 0 && !show)
		cJSON_DeleteItemFromObject(plan, "steps");
	if (blocks > 0)
		fprintf(tx, "REFUSED: the preflight found %d reason%s not to "
		    "move the cluster network:\n", blocks, blocks > 1 ? "s" :
		    "");
	cJSON_ArrayForEach(f, fs) {
		const char *k = cJSON_GetStringValue(cJSON_GetObjectItem(f,
		    "kind"));
		const char *sm = cJSON_GetStringValue(cJSON_GetObjectItem(f,
		    "summary"));
		const char *h = cJSON_GetStringValue(cJSON_GetObjectItem(f,
		    "hint"));

		fprintf(tx, "preflight: %s: %s\n", k ? k : "?", sm ? sm : "?");
		if (h && !json)
			fprintf(tx, "           hint: %s\n", h);
	}
	if (!json) {
		printf("preflight checks:\n");
		cJSON_ArrayForEach(c, cJSON_GetObjectItem(plan, "checks"))
			printf("  %-7s %s\n", cJSON_GetStringValue(
			    cJSON_GetObjectItem(c, "result")),
			    cJSON_GetStringValue(cJSON_GetObjectItem(c,
			    "what")));
	}
	if (json)
		out_json(plan);
	else if (blocks == 0 || show)
		plan_print(plan, stdout);
	else
		printf("the plan is not shown: fix the above and run plan "
		    "again (--show-plan shows it)\n");
}

int
cmd_plan(const struct gopts *g, int argc, char **argv)
{
	enum { O_NEW = 256, O_CONF, O_NAME, O_DEPLOY, O_BATCH, O_SETTLE,
	    O_OUT, O_SCRIPT, O_SHOW };
	static const struct num_opt plan_nums[] = {
		NUM_OPT(O_SETTLE, "--settle", 0, 3600, NUM_DOUBLE,
		    struct plan_opts, settle),
		NUM_END
	};
	static const struct option po[] = {
		OPT_ARG("cluster-network", O_NEW),
		OPT_ARG("ceph-conf", O_CONF), OPT_ARG("ceph-name", O_NAME),
		OPT_ARG("deploy", O_DEPLOY), OPT_ARG("batch", O_BATCH),
		OPT_ARG("settle", O_SETTLE), OPT_ARG("out", O_OUT),
		OPT_ARG("script", O_SCRIPT), OPT_FLAG("show-plan", O_SHOW),
		OPT_FLAG("help", 'h'), OPT_END
	};
	static const char *use = "usage: cephfab -i INV plan --cluster-network "
	    "NEW_CIDR [--ceph-conf F] [--ceph-name N]\n"
	    "         [--deploy systemd|cephadm] [--batch host|N] [--settle S] "
	    "[--out plan.json]\n"
	    "         [--script plan.sh] [--show-plan]\n"
	    "  the preflight's checks, then a staged, gated plan; a refused "
	    "preflight (exit 1)\n"
	    "  says why first and stops there (--show-plan: the plan too, "
	    "which migrate\n"
	    "  still refuses to run)\n";
	struct plan_opts o;
	struct ceph_opts co;
	struct ceph_map *m = calloc(1, sizeof(*m));
	struct plan_state *ps = calloc(1, sizeof(*ps));
	const char *out = NULL, *script = NULL;
	char err[CF_ERRLEN];
	cJSON *fs, *plan = NULL;
	int ch, blocks, rc = EXIT_PASS;
	bool show = false;
	double d;

	if (m == NULL || ps == NULL) {
		free(m);
		free(ps);
		return EXIT_RUNTIME;
	}
	memset(&o, 0, sizeof(o));
	memset(&co, 0, sizeof(co));
	o.batch = 1;
	o.grace = 20;
	co.timeout = g->timeout > 0 ? g->timeout : 15;
	optind = 0;
	while ((ch = cli_getopt(argc, argv, "h", po, plan_nums, &o)) != -1) {
		switch (ch) {
		case CLI_BAD_NUMBER: rc = EXIT_USAGE; break;
		case O_NEW:
			if (netcidr_parse(optarg, &o.new_net) == -1) {
				fprintf(stderr, "cephfab: plan: --cluster-network: "
				    "'%s' is not ADDR/PREFIX\n", optarg);
				rc = EXIT_USAGE;
			}
			break;
		case O_CONF: co.conf = optarg; break;
		case O_NAME: co.name = optarg; break;
		case O_DEPLOY:
			if (strcmp(optarg, "systemd") == 0)
				o.deploy = PLAN_SYSTEMD;
			else if (strcmp(optarg, "cephadm") == 0)
				o.deploy = PLAN_CEPHADM;
			else {
				fprintf(stderr, "cephfab: plan: --deploy: '%s' "
				    "is not systemd or cephadm\n", optarg);
				rc = EXIT_USAGE;
			}
			break;
		case O_BATCH:
			if (strcmp(optarg, "host") == 0)
				o.batch = 1;
			else if (parse_num("--batch", optarg, 1, 1000, &d))
				rc = EXIT_USAGE;
			else
				o.batch = (int)d;
			break;
		case O_OUT: out = optarg; break;
		case O_SCRIPT: script = optarg; break;
		case O_SHOW: show = true; break;
		case 'h': fputs(use, stdout); free(m); free(ps);
			return EXIT_PASS;
		default: rc = EXIT_USAGE; break;
		}
	}
	if (rc == EXIT_PASS && (argc != optind || o.new_net.addr.family == 0 ||
	    g->inventory == NULL)) {
		fputs(use, stderr);
		rc = EXIT_USAGE;
	}
	if (rc != EXIT_PASS) {
		free(m);
		free(ps);
		return rc;
	}
	if (ceph_read_cluster(&co, m, err) == -1) {
		fprintf(stderr, "cephfab: plan: %s\n", err);
		free(m);
		free(ps);
		return EXIT_RUNTIME;
	}
	plan_read_state(&co, m, ps, &o.grace);
	plan_host_addrs(g->inventory, g->key, ps);
	fs = cJSON_CreateArray();
	blocks = plan_preflight(m, ps, &o, fs);
	/* Host to host on the new network (the hosts that have an address
	 * there: a missing one is a finding already). */
	blocks += plan_net_checks(g->inventory, g->key, m, ps, &o, fs);
	plan = plan_build(m, &o, err);
	if (plan == NULL) {
		fprintf(stderr, "cephfab: %s\n", err);
		rc = EXIT_RUNTIME;
	} else {
		plan_outcome(plan, fs, blocks, show, g->json);
		fs = NULL;
		if (plan_write(plan, out, script && (!blocks || show) ? script :
		    NULL) == -1)
			rc = EXIT_RUNTIME;
		if (rc == EXIT_PASS && blocks)
			rc = EXIT_PROBLEMS;
	}
	cJSON_Delete(fs);
	cJSON_Delete(plan);
	free(m);
	free(ps);
	return rc;
}

/* --- migrate --------------------------------------------------------------- */

int
cmd_migrate(const struct gopts *g, int argc, char **argv)
{
	enum { O_PLAN = 256, O_EXEC, O_JOURNAL, O_RESUME, O_ROLLBACK,
	    O_RESTART, O_CONF, O_NAME, O_INACTIVE, O_SLOW, O_POLL, O_RETR,
	    O_PROBE, O_NOGATE };
	static const struct num_opt migrate_nums[] = {
		NUM_OPT(O_INACTIVE, "--inactive-limit", 1, 86400, NUM_DOUBLE,
		    struct migrate_opts, inactive_limit),
		NUM_OPT(O_SLOW, "--slow-ops-limit", 1, 86400, NUM_DOUBLE,
		    struct migrate_opts, slow_ops_limit),
		NUM_OPT(O_POLL, "--poll", 0.2, 60, NUM_DOUBLE,
		    struct migrate_opts, poll),
		NUM_OPT(O_RETR, "--retrans-limit", 0, 100, NUM_DOUBLE,
		    struct migrate_opts, retrans_limit),
		NUM_END
	};
	static const struct option mo[] = {
		OPT_ARG("plan", O_PLAN), OPT_FLAG("execute", O_EXEC),
		OPT_ARG("journal", O_JOURNAL), OPT_FLAG("resume", O_RESUME),
		OPT_FLAG("rollback", O_ROLLBACK),
		OPT_ARG("restart-cmd", O_RESTART),
		OPT_ARG("ceph-conf", O_CONF), OPT_ARG("ceph-name", O_NAME),
		OPT_ARG("inactive-limit", O_INACTIVE),
		OPT_ARG("slow-ops-limit", O_SLOW), OPT_ARG("poll", O_POLL),
		OPT_ARG("retrans-limit", O_RETR),
		OPT_FLAG("no-traffic-gate", O_NOGATE),
		OPT_ARG("probe-pool", O_PROBE), OPT_FLAG("help", 'h'), OPT_END
	};
	static const char *use = "usage: cephfab migrate --plan plan.json "
	    "[--execute] [--journal F] [--resume] [--rollback]\n"
	    "         [--restart-cmd 'CMD {host} {osd}'] [--ceph-conf F] "
	    "[--ceph-name N]\n"
	    "         [--inactive-limit S] [--slow-ops-limit S] [--poll S] "
	    "[--retrans-limit PCT]\n"
	    "         [--no-traffic-gate] [--probe-pool POOL]\n"
	    "  without --execute: what it would do. With it: the plan's "
	    "steps, each\n"
	    "  gated on the cluster's state, journaled (default "
	    "PLAN.journal); exit 1\n"
	    "  when it paused (the message says why and what to do)\n"
	    "  --restart-cmd   default 'ssh -o BatchMode=yes -o "
	    "ConnectTimeout=10 -- {host}\n"
	    "                  systemctl restart "
	    "ceph-osd@{osd}'\n"
	    "                  (cephadm plans: ceph orch daemon restart)\n"
	    "  -i INV          also watch the cluster network's real traffic "
	    "while settling:\n"
	    "                  a peer retransmitting over --retrans-limit % "
	    "(default 2) pauses,\n"
	    "                  and so does a watch with no samples (unless "
	    "--no-traffic-gate)\n"
	    "  --probe-pool P  a client writing and reading back a 4 KiB "
	    "object in pool P\n"
	    "                  twice a second throughout; its errors and "
	    "longest stall are reported\n";
	struct migrate_opts o;
	int ch, rc = EXIT_PASS;

	memset(&o, 0, sizeof(o));
	o.co.timeout = g->timeout > 0 ? g->timeout : 30;
	o.inactive_limit = 90;
	o.slow_ops_limit = 120;
	o.poll = 2;
	o.json = g->json;
	o.inventory = g->inventory;
	o.key = g->key;
	o.retrans_limit = 2;
	o.retrans_min = 1000;
	optind = 0;
	while ((ch = cli_getopt(argc, argv, "h", mo, migrate_nums, &o)) != -1) {
		switch (ch) {
		case CLI_BAD_NUMBER: rc = EXIT_USAGE; break;
		case O_PLAN: o.plan_path = optarg; break;
		case O_EXEC: o.execute = true; break;
		case O_JOURNAL: o.journal_path = optarg; break;
		case O_RESUME: o.resume = true; break;
		case O_ROLLBACK: o.rollback = true; break;
		case O_NOGATE: o.no_traffic_gate = true; break;
		case O_RESTART: o.restart_cmd = optarg; break;
		case O_CONF: o.co.conf = optarg; break;
		case O_NAME: o.co.name = optarg; break;
		case O_PROBE:
			if (optarg[0] == '\0' || optarg[0] == '-' ||
			    strlen(optarg) > 128) {
				fprintf(stderr, "cephfab: migrate: "
				    "--probe-pool: a pool name, not '%s'\n",
				    optarg);
				rc = EXIT_USAGE;
			} else
				o.probe_pool = optarg;
			break;
		case 'h': fputs(use, stdout); return EXIT_PASS;
		default: rc = EXIT_USAGE; break;
		}
	}
	if (rc == EXIT_PASS && (argc != optind || o.plan_path == NULL)) {
		fputs(use, stderr);
		rc = EXIT_USAGE;
	}
	if (rc != EXIT_PASS)
		return rc;
	return migrate_run(&o);
}
