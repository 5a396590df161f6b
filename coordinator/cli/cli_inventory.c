/* cli_inventory: 'cephfab inventory', the inventory written for others or
 * from others: --from-ceph (a cephfab inventory read off the live
 * cluster) and --ansible (the Ansible inventory dist/ansible's playbook
 * reads, from this cephfab inventory), see cli.h. */
#include "ceph/ceph.h"
#include "cli/cli.h"
#include "core/core.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *inventory_use = "usage: cephfab inventory --from-ceph "
    "[--ceph-conf FILE] [--ceph-name NAME]\n"
    "         [--ceph-keyring FILE] [--out FILE]\n"
    "       cephfab -i INV inventory --ansible [--out FILE]\n"
    "  --from-ceph  an inventory from the live cluster: one host per OSD "
    "host and\n"
    "               mon, its public and cluster addresses from the OSD "
    "map, racks\n"
    "               from the CRUSH tree, the networks from the mon's "
    "configuration\n"
    "               database\n"
    "  --ansible    the Ansible inventory of dist/ansible's playbook "
    "from INV: host\n"
    "               names, control addresses, networks, racks, INV's "
    "path and key\n"
    "  --out FILE   write FILE, whole or not at all (default: standard "
    "output)\n";

static int
inventory_from_ceph(const struct gopts *g, struct ceph_opts *co,
    const char *out)
{
	char err[CF_ERRLEN];
	struct ceph_map *m;
	int rc;

	co->timeout = g->timeout > 0 ? g->timeout : 15;
	m = calloc(1, sizeof(*m));
	if (m == NULL)
		return EXIT_RUNTIME;
	if (ceph_read_cluster(co, m, err) == -1) {
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

static int
inventory_ansible(const struct gopts *g, const char *out)
{
	char err[CF_ERRLEN];
	struct cli_env e;
	int rc;

	if (cli_env_open(g, &e) == -1)
		return EXIT_USAGE;
	rc = inventory_write_ansible(&e.inv, inventory_key_path(&e.inv,
	    g->key), out, err);
	if (rc == -1)
		fprintf(stderr, "cephfab: inventory: %s\n", err);
	cli_env_close(&e);
	return rc == -1 ? EXIT_RUNTIME : EXIT_PASS;
}

int
cmd_inventory(const struct gopts *g, int argc, char **argv)
{
	enum { O_FROM = 256, O_CONF, O_NAME, O_KEYRING, O_OUT, O_ANSIBLE };
	static const struct option io[] = {
		OPT_FLAG("from-ceph", O_FROM), OPT_ARG("ceph-conf", O_CONF),
		OPT_ARG("ceph-name", O_NAME),
		OPT_ARG("ceph-keyring", O_KEYRING), OPT_ARG("out", O_OUT),
		OPT_FLAG("ansible", O_ANSIBLE),
		OPT_FLAG("help", 'h'), OPT_END
	};
	struct ceph_opts co;
	const char *out = "-";
	int ch, from = 0, ansible = 0;

	memset(&co, 0, sizeof(co));
	optind = 0;
	while ((ch = getopt_long(argc, argv, "h", io, NULL)) != -1) {
		switch (ch) {
		case O_FROM: from = 1; break;
		case O_ANSIBLE: ansible = 1; break;
		case O_CONF: co.conf = optarg; break;
		case O_NAME: co.name = optarg; break;
		case O_KEYRING: co.keyring = optarg; break;
		case O_OUT: out = optarg; break;
		case 'h': fputs(inventory_use, stdout); return EXIT_PASS;
		default: fputs(inventory_use, stderr); return EXIT_USAGE;
		}
	}
	if (from + ansible != 1 || argc != optind) {
		fprintf(stderr, "cephfab: inventory: give one of --from-ceph "
		    "and --ansible\n");
		fputs(inventory_use, stderr);
		return EXIT_USAGE;
	}
	if (ansible && (co.conf || co.name || co.keyring)) {
		fprintf(stderr, "cephfab: inventory: --ceph-* options are for "
		    "--from-ceph\n");
		return EXIT_USAGE;
	}
	return from ? inventory_from_ceph(g, &co, out) :
	    inventory_ansible(g, out);
}
