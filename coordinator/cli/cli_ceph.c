/* cli_ceph: argument parsing of the Ceph commands (inventory --from-ceph),
 * see cli.h. */
#include "ceph/ceph.h"
#include "cli/cli.h"
#include "migrate/migrate.h"
#include "core/core.h"
#include "json.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int
cmd_inventory(const struct gopts *g, int argc, char **argv)
{
	enum { O_FROM = 256, O_CONF, O_NAME, O_KEYRING, O_OUT };
	static const struct option io[] = {
		{ "from-ceph", no_argument, NULL, O_FROM },
		{ "ceph-conf", required_argument, NULL, O_CONF },
		{ "ceph-name", required_argument, NULL, O_NAME },
		{ "ceph-keyring", required_argument, NULL, O_KEYRING },
		{ "out", required_argument, NULL, O_OUT },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	static const char *use = "usage: cephfab inventory --from-ceph "
	    "[--ceph-conf FILE] [--ceph-name NAME]\n"
	    "         [--ceph-keyring FILE] [--out FILE]\n"
	    "  an inventory from the live cluster: one host per OSD host "
	    "and mon, its\n"
	    "  public and cluster addresses from the OSD map, racks from the "
	    "CRUSH tree,\n"
	    "  the networks from the mon's configuration database\n";
	struct ceph_opts co;
	struct ceph_map *m;
	const char *out = "-";
	char err[CF_ERRLEN];
	int ch, from = 0, rc;

	memset(&co, 0, sizeof(co));
	co.timeout = g->timeout > 0 ? g->timeout : 15;
	optind = 0;
	while ((ch = getopt_long(argc, argv, "h", io, NULL)) != -1) {
		switch (ch) {
		case O_FROM: from = 1; break;
		case O_CONF: co.conf = optarg; break;
		case O_NAME: co.name = optarg; break;
		case O_KEYRING: co.keyring = optarg; break;
		case O_OUT: out = optarg; break;
		case 'h': fputs(use, stdout); return EXIT_PASS;
		default: fputs(use, stderr); return EXIT_USAGE;
		}
	}
	if (!from || argc != optind) {
		fputs(use, stderr);
		return EXIT_USAGE;
	}
	m = calloc(1, sizeof(*m));
	if (m == NULL)
		return EXIT_RUNTIME;
	if (ceph_read_cluster(&co, m, err) == -1) {
		fprintf(stderr, "cephfab: inventory: %s\n", err);
		free(m);
		return EXIT_RUNTIME;
	}
	rc = ceph_write_inventory(m, out, g->key ? g->key : KEY_DEFAULT, err);
	if (rc == -1)
		fprintf(stderr, "cephfab: inventory: %s\n", err);
	free(m);
	return rc == -1 ? EXIT_RUNTIME : EXIT_PASS;
}

/* --- ceph-heartbeats ------------------------------------------------------ */

#define HB_HOSTS 256

struct hb {
	const struct ceph_map *m;
	char host[HB_HOSTS][CEPH_NAME_MAX];
	int nh;
	double avg[2][HB_HOSTS * HB_HOSTS], mx[2][HB_HOSTS * HB_HOSTS];
	int n[2][HB_HOSTS * HB_HOSTS];
};

static int
hb_host(struct hb *b, int osd)
{
	int i, k;

	for (i = 0; i < b->m->nosds; i++) {
		const char *h;

		if (b->m->osds[i].id != osd)
			continue;
		h = b->m->osds[i].host[0] ? b->m->osds[i].host :
		    b->m->osds[i].meta_host;
		for (k = 0; k < b->nh && strcmp(b->host[k], h); k++)
			;
		if (k == b->nh) {
			if (b->nh == HB_HOSTS)
				return -1;
			snprintf(b->host[b->nh++], CEPH_NAME_MAX, "%s", h);
		}
		return k;
	}
	return -1;
}

static void
hb_cb(const struct ceph_ping *p, void *arg)
{
	struct hb *b = arg;
	int a = hb_host(b, p->from), c = hb_host(b, p->to), k;

	if (a < 0 || c < 0 || a == c)
		return;
	/* Host pairs: the slowest OSD pair between them stands. */
	k = a * HB_HOSTS + c;
	if (p->avg1 > b->avg[p->back][k])
		b->avg[p->back][k] = p->avg1;
	if (p->max1 > b->mx[p->back][k])
		b->mx[p->back][k] = p->max1;
	b->n[p->back][k]++;
}

int
cmd_ceph_heartbeats(const struct gopts *g, int argc, char **argv)
{
	enum { O_CONF = 256, O_NAME, O_KEYRING };
	static const struct option ho[] = {
		{ "ceph-conf", required_argument, NULL, O_CONF },
		{ "ceph-name", required_argument, NULL, O_NAME },
		{ "ceph-keyring", required_argument, NULL, O_KEYRING },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	static const char *use = "usage: cephfab ceph-heartbeats [--ceph-conf "
	    "FILE] [--ceph-name NAME] [--ceph-keyring FILE]\n"
	    "         [--json]\n"
	    "  Ceph's own OSD heartbeat ping times (dump_osd_network of every "
	    "up OSD),\n"
	    "  per host pair and interface (back: cluster network, front: "
	    "public), and\n"
	    "  the OSD_SLOW_PING_TIME health checks\n";
	struct ceph_opts co;
	struct ceph_map *m = calloc(1, sizeof(*m));
	struct hb *b = calloc(1, sizeof(*b));
	struct ceph_health hd;
	char err[CF_ERRLEN], osd[32];
	const char *hargs[] = { "health", "detail", NULL };
	cJSON *doc, *j, *itfs;
	int ch, i, k, itf, json = g->json, rc = EXIT_PASS, asked = 0, got = 0;

	if (m == NULL || b == NULL) {
		free(m);
		free(b);
		return EXIT_RUNTIME;
	}
	memset(&co, 0, sizeof(co));
	co.timeout = g->timeout > 0 ? g->timeout : 15;
	optind = 0;
	while ((ch = getopt_long(argc, argv, "jh", ho, NULL)) != -1) {
		switch (ch) {
		case O_CONF: co.conf = optarg; break;
		case O_NAME: co.name = optarg; break;
		case O_KEYRING: co.keyring = optarg; break;
		case 'j': json = 1; break;
		case 'h': fputs(use, stdout); free(m); free(b);
			return EXIT_PASS;
		default: fputs(use, stderr); free(m); free(b);
			return EXIT_USAGE;
		}
	}
	if (argc != optind) {
		fputs(use, stderr);
		free(m);
		free(b);
		return EXIT_USAGE;
	}
	if (ceph_read_cluster(&co, m, err) == -1) {
		fprintf(stderr, "cephfab: ceph-heartbeats: %s\n", err);
		free(m);
		free(b);
		return EXIT_RUNTIME;
	}
	b->m = m;
	/* Hosts in name order, whatever order the pings come in. */
	{
		int order[CEPH_MAX_OSDS], n = 0, x, y;

		for (i = 0; i < m->nosds && n < CEPH_MAX_OSDS; i++)
			order[n++] = i;
		for (x = 1; x < n; x++)
			for (y = x; y > 0 && strcmp(m->osds[order[y - 1]].host,
			    m->osds[order[y]].host) > 0; y--) {
				int t = order[y];

				order[y] = order[y - 1];
				order[y - 1] = t;
			}
		for (x = 0; x < n; x++)
			hb_host(b, m->osds[order[x]].id);
	}
	for (i = 0; i < m->nosds; i++) {
		const char *args[] = { "tell", osd, "dump_osd_network", "0",
		    NULL };

		if (!m->osds[i].up)
			continue;
		hb_host(b, m->osds[i].id);
		snprintf(osd, sizeof(osd), "osd.%d", m->osds[i].id);
		asked++;
		if (ceph_run(&co, args, &j, err) == -1 ||
		    ceph_parse_osd_network(j, hb_cb, b, err) == -1) {
			fprintf(stderr, "cephfab: ceph-heartbeats: %s: %s\n", osd,
			    err);
			rc = EXIT_PROBLEMS;
		} else {
			got++;
		}
		cJSON_Delete(j);
	}
	memset(&hd, 0, sizeof(hd));
	if (ceph_run(&co, hargs, &j, err) == -1 ||
	    ceph_parse_health_detail(j, &hd, err) == -1)
		fprintf(stderr, "cephfab: ceph-heartbeats: %s\n", err);
	cJSON_Delete(j);
	doc = cJSON_CreateObject();
	cJSON_AddNumberToObject(doc, "osds_asked", asked);
	cJSON_AddNumberToObject(doc, "osds_answered", got);
	cJSON_AddStringToObject(doc, "health", hd.status);
	j = cJSON_AddArrayToObject(doc, "slow_ping_checks");
	{
		char t[sizeof(hd.checks)], *tok, *save = NULL;

		snprintf(t, sizeof(t), "%s", hd.checks);
		for (tok = strtok_r(t, ",", &save); tok;
		    tok = strtok_r(NULL, ",", &save))
			if (strncmp(tok, "OSD_SLOW_PING_TIME", 18) == 0)
				cJSON_AddItemToArray(j, cJSON_CreateString(tok));
	}
	itfs = cJSON_AddObjectToObject(doc, "interfaces");
	for (itf = 1; itf >= 0; itf--) {
		cJSON *o = cJSON_AddObjectToObject(itfs, itf ? "back" : "front");
		cJSON *hs = cJSON_AddArrayToObject(o, "hosts");
		cJSON *cells = cJSON_AddArrayToObject(o, "cells");

		for (i = 0; i < b->nh; i++)
			cJSON_AddItemToArray(hs, cJSON_CreateString(b->host[i]));
		for (i = 0; i < b->nh; i++)
			for (k = 0; k < b->nh; k++) {
				int x = i * HB_HOSTS + k;
				cJSON *c;

				if (i == k || b->n[itf][x] == 0)
					continue;
				c = cJSON_CreateObject();
				cJSON_AddStringToObject(c, "src", b->host[i]);
				cJSON_AddStringToObject(c, "dst", b->host[k]);
				cJSON_AddNumberToObject(c, "avg_1min_ms",
				    b->avg[itf][x]);
				cJSON_AddNumberToObject(c, "max_1min_ms",
				    b->mx[itf][x]);
				cJSON_AddItemToArray(cells, c);
			}
		if (json)
			continue;
		printf("%s (%s network): heartbeat ping, 1-minute average ms, "
		    "row pings column\n%10s", itf ? "back" : "front", itf ?
		    "cluster" : "public", "");
		for (k = 0; k < b->nh; k++)
			printf(" %9.9s", b->host[k]);
		printf("\n");
		for (i = 0; i < b->nh; i++) {
			printf("%-10.10s", b->host[i]);
			for (k = 0; k < b->nh; k++) {
				int x = i * HB_HOSTS + k;

				if (i == k)
					printf(" %9s", "-");
				else if (b->n[itf][x] == 0)
					printf(" %9s", "?");
				else
					printf(" %9.3f", b->avg[itf][x]);
			}
			printf("\n");
		}
		printf("\n");
	}
	if (json)
		out_json(doc);
	else
		printf("health %s%s%s\n", hd.status,
		    cJSON_GetArraySize(j) ? ", slow ping checks: " : "",
		    cJSON_GetArraySize(j) ? hd.checks : "");
	if (cJSON_GetArraySize(j))
		rc = EXIT_PROBLEMS;
	cJSON_Delete(doc);
	free(m);
	free(b);
	return got == 0 && asked > 0 ? EXIT_RUNTIME : rc;
}

/* --- plan ------------------------------------------------------------------ */

int
cmd_plan(const struct gopts *g, int argc, char **argv)
{
	enum { O_NEW = 256, O_CONF, O_NAME, O_DEPLOY, O_BATCH, O_SETTLE,
	    O_OUT, O_SCRIPT };
	static const struct option po[] = {
		{ "cluster-network", required_argument, NULL, O_NEW },
		{ "ceph-conf", required_argument, NULL, O_CONF },
		{ "ceph-name", required_argument, NULL, O_NAME },
		{ "deploy", required_argument, NULL, O_DEPLOY },
		{ "batch", required_argument, NULL, O_BATCH },
		{ "settle", required_argument, NULL, O_SETTLE },
		{ "out", required_argument, NULL, O_OUT },
		{ "script", required_argument, NULL, O_SCRIPT },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	static const char *use = "usage: cephfab -i INV plan --cluster-network "
	    "NEW_CIDR [--ceph-conf F] [--ceph-name N]\n"
	    "         [--deploy systemd|cephadm] [--batch host|N] [--settle S] "
	    "[--out plan.json]\n"
	    "         [--script plan.sh]\n"
	    "  preflight (exit 1 on any blocking finding) and a staged, gated "
	    "plan\n";
	struct plan_opts o;
	struct ceph_opts co;
	struct ceph_map *m = calloc(1, sizeof(*m));
	struct plan_state *ps = calloc(1, sizeof(*ps));
	const char *out = NULL, *script = NULL;
	char err[CF_ERRLEN], val[128], src[32];
	cJSON *fs, *plan = NULL, *j, *f;
	int ch, blocks, rc = EXIT_PASS, i;
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
	while ((ch = getopt_long(argc, argv, "h", po, NULL)) != -1) {
		switch (ch) {
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
		case O_SETTLE:
			if (parse_num("--settle", optarg, 0, 3600, &o.settle))
				rc = EXIT_USAGE;
			break;
		case O_OUT: out = optarg; break;
		case O_SCRIPT: script = optarg; break;
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
	{
		const char *a1[] = { "status", NULL }, *a2[] = { "health",
		    "detail", NULL }, *a3[] = { "versions", NULL };
		char osd[32];
		const char *a4[] = { "config", "show", osd, NULL };

		if (ceph_run(&co, a1, &j, err) >= 0 && j)
			ceph_parse_status(j, &ps->status, err);
		cJSON_Delete(j);
		if (ceph_run(&co, a2, &j, err) >= 0 && j)
			ceph_parse_health_detail(j, &ps->health, err);
		cJSON_Delete(j);
		if (ceph_run(&co, a3, &j, err) >= 0 && j)
			ceph_parse_versions(j, &ps->versions, err);
		cJSON_Delete(j);
		/* Where each OSD host's OSDs take cluster_network from (one
		 * OSD per host: a ceph.conf is per host). */
		for (i = 0; i < m->nosds; i++) {
			size_t off = strlen(ps->file_hosts);
			int k;

			for (k = 0; k < i && strcmp(m->osds[k].host,
			    m->osds[i].host); k++)
				;
			if (k < i || !m->osds[i].up)
				continue;
			snprintf(osd, sizeof(osd), "osd.%d", m->osds[i].id);
			if (ceph_run(&co, a4, &j, err) >= 0 && j &&
			    ceph_parse_config_show(j, "cluster_network", val,
			    sizeof(val), src, sizeof(src), err) == 1) {
				if (ps->cluster_network_source[0] == '\0' ||
				    strcmp(src, "file") == 0)
					snprintf(ps->cluster_network_source,
					    sizeof(ps->cluster_network_source),
					    "%s", src);
				if (strcmp(src, "file") == 0 && off + strlen(
				    m->osds[i].host) + 2 < sizeof(ps->file_hosts))
					snprintf(ps->file_hosts + off,
					    sizeof(ps->file_hosts) - off, "%s%s",
					    off ? "," : "", m->osds[i].host);
			}
			cJSON_Delete(j);
			j = NULL;
		}
		snprintf(osd, sizeof(osd), "osd.%d", m->nosds ? m->osds[0].id :
		    0);
		if (ceph_run(&co, a4, &j, err) >= 0 && j &&
		    ceph_parse_config_show(j, "osd_heartbeat_grace", val,
		    sizeof(val), src, sizeof(src), err) == 1)
			o.grace = atof(val) > 0 ? atof(val) : 20;
		cJSON_Delete(j);
	}
	plan_host_addrs(g->inventory, g->key, ps);
	fs = cJSON_CreateArray();
	blocks = plan_preflight(m, ps, &o, fs);
	/* Host to host on the new network (the hosts that have an address
	 * there: a missing one is a finding already). */
	blocks += plan_net_checks(g->inventory, g->key, m, ps, &o, fs);
	cJSON_ArrayForEach(f, fs) {
		const cJSON *sm = cJSON_GetObjectItem(f, "summary");
		const cJSON *k = cJSON_GetObjectItem(f, "kind");

		fprintf(stderr, "preflight: %s: %s\n", k ? k->valuestring : "?",
		    sm ? sm->valuestring : "?");
	}
	plan = plan_build(m, &o, err);
	if (plan == NULL) {
		fprintf(stderr, "cephfab: %s\n", err);
		rc = EXIT_RUNTIME;
	} else {
		cJSON_AddItemToObject(plan, "preflight", fs);
		fs = NULL;
		if (g->json)
			out_json(plan);
		else
			plan_print(plan, stdout);
		if (out) {
			struct out_file of;

			if (out_file_open(&of, out, err) == -1 ||
			    (out_json_write(of.f, plan), out_file_close(&of,
			    err)) == -1) {
				fprintf(stderr, "cephfab: plan: %s\n", err);
				rc = EXIT_RUNTIME;
			}
		}
		if (script) {
			struct out_file of;

			if (out_file_open(&of, script, err) == -1 ||
			    (plan_script(plan, of.f), out_file_close(&of,
			    err)) == -1) {
				fprintf(stderr, "cephfab: plan: %s\n", err);
				rc = EXIT_RUNTIME;
			} else
				chmod(script, 0755);
		}
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
	    O_PROBE };
	static const struct option mo[] = {
		{ "plan", required_argument, NULL, O_PLAN },
		{ "execute", no_argument, NULL, O_EXEC },
		{ "journal", required_argument, NULL, O_JOURNAL },
		{ "resume", no_argument, NULL, O_RESUME },
		{ "rollback", no_argument, NULL, O_ROLLBACK },
		{ "restart-cmd", required_argument, NULL, O_RESTART },
		{ "ceph-conf", required_argument, NULL, O_CONF },
		{ "ceph-name", required_argument, NULL, O_NAME },
		{ "inactive-limit", required_argument, NULL, O_INACTIVE },
		{ "slow-ops-limit", required_argument, NULL, O_SLOW },
		{ "poll", required_argument, NULL, O_POLL },
		{ "retrans-limit", required_argument, NULL, O_RETR },
		{ "probe-pool", required_argument, NULL, O_PROBE },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	static const char *use = "usage: cephfab migrate --plan plan.json "
	    "[--execute] [--journal F] [--resume] [--rollback]\n"
	    "         [--restart-cmd 'CMD {host} {osd}'] [--ceph-conf F] "
	    "[--ceph-name N]\n"
	    "         [--inactive-limit S] [--slow-ops-limit S] [--poll S] "
	    "[--retrans-limit PCT]\n"
	    "         [--probe-pool POOL]\n"
	    "  without --execute: what it would do. With it: the plan's "
	    "steps, each\n"
	    "  gated on the cluster's state, journaled (default "
	    "PLAN.journal); exit 1\n"
	    "  when it paused (the message says why and what to do)\n"
	    "  --restart-cmd   default 'ssh {host} systemctl restart "
	    "ceph-osd@{osd}'\n"
	    "                  (cephadm plans: ceph orch daemon restart)\n"
	    "  -i INV          also watch the cluster network's real traffic "
	    "while settling:\n"
	    "                  a peer retransmitting over --retrans-limit % "
	    "(default 2) pauses\n"
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
	while ((ch = getopt_long(argc, argv, "h", mo, NULL)) != -1) {
		switch (ch) {
		case O_PLAN: o.plan_path = optarg; break;
		case O_EXEC: o.execute = true; break;
		case O_JOURNAL: o.journal_path = optarg; break;
		case O_RESUME: o.resume = true; break;
		case O_ROLLBACK: o.rollback = true; break;
		case O_RESTART: o.restart_cmd = optarg; break;
		case O_CONF: o.co.conf = optarg; break;
		case O_NAME: o.co.name = optarg; break;
		case O_INACTIVE:
			if (parse_num("--inactive-limit", optarg, 1, 86400,
			    &o.inactive_limit))
				rc = EXIT_USAGE;
			break;
		case O_SLOW:
			if (parse_num("--slow-ops-limit", optarg, 1, 86400,
			    &o.slow_ops_limit))
				rc = EXIT_USAGE;
			break;
		case O_POLL:
			if (parse_num("--poll", optarg, 0.2, 60, &o.poll))
				rc = EXIT_USAGE;
			break;
		case O_RETR:
			if (parse_num("--retrans-limit", optarg, 0, 100,
			    &o.retrans_limit))
				rc = EXIT_USAGE;
			break;
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
