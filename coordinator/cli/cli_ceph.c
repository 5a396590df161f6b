/* cli_ceph: the commands that read the live cluster: inventory
 * --from-ceph and ceph-heartbeats, see cli.h. */
#include "ceph/ceph.h"
#include "cli/cli.h"
#include "core/core.h"
#include "json.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int
cmd_inventory(const struct gopts *g, int argc, char **argv)
{
	enum { O_FROM = 256, O_CONF, O_NAME, O_KEYRING, O_OUT };
	static const struct option io[] = {
		OPT_FLAG("from-ceph", O_FROM), OPT_ARG("ceph-conf", O_CONF),
		OPT_ARG("ceph-name", O_NAME),
		OPT_ARG("ceph-keyring", O_KEYRING), OPT_ARG("out", O_OUT),
		OPT_FLAG("help", 'h'), OPT_END
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

int
cmd_ceph_heartbeats(const struct gopts *g, int argc, char **argv)
{
	enum { O_CONF = 256, O_NAME, O_KEYRING };
	static const struct option ho[] = {
		OPT_ARG("ceph-conf", O_CONF), OPT_ARG("ceph-name", O_NAME),
		OPT_ARG("ceph-keyring", O_KEYRING), OPT_FLAG("json", 'j'),
		OPT_FLAG("help", 'h'), OPT_END
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
	int ch, json = g->json;

	memset(&co, 0, sizeof(co));
	co.timeout = g->timeout > 0 ? g->timeout : 15;
	optind = 0;
	while ((ch = getopt_long(argc, argv, "jh", ho, NULL)) != -1) {
		switch (ch) {
		case O_CONF: co.conf = optarg; break;
		case O_NAME: co.name = optarg; break;
		case O_KEYRING: co.keyring = optarg; break;
		case 'j': json = 1; break;
		case 'h': fputs(use, stdout); return EXIT_PASS;
		default: fputs(use, stderr); return EXIT_USAGE;
		}
	}
	if (argc != optind) {
		fputs(use, stderr);
		return EXIT_USAGE;
	}
	return ceph_heartbeats_run(&co, json);
}

/* --- plan ------------------------------------------------------------------ */
