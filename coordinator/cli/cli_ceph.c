/* cli_ceph: ceph-heartbeats, the command that reads Ceph's own view of
 * its heartbeats, see cli.h (inventory --from-ceph: cli_inventory.c). */
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
