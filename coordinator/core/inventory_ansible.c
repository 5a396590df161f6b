/* inventory_ansible: the Ansible inventory that dist/ansible's playbook
 * reads, written from the cephfab inventory so that one file (this one's
 * source) stays the truth: host names, the control address Ansible
 * reaches each node on and the agent listens on, the Ceph networks each
 * agent may test, the rack, and where the admin host's inventory and key
 * are (the gate runs 'cephfab hosts' with them; the key is the file the
 * play copies to the nodes). */
#include "core/core.h"
#include "netaddr.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Every value double-quoted: a host named "no" or "1e3" stays a string
 * (YAML 1.1 reads both as something else). Names are [A-Za-z0-9._-]
 * (inventory.c), paths may hold anything: '"' and '\' are escaped,
 * control characters refused by the caller's inventory already. */
static void
yq(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

static void
yline(FILE *f, int indent, const char *key, const char *val)
{
	fprintf(f, "%*s%s: ", indent, "", key);
	yq(f, val);
	fputc('\n', f);
}

/* A relative path means the admin host's working directory at the time
 * of writing; the play runs elsewhere, so it gets the absolute one. */
static const char *
abspath(const char *p, char *buf)
{
	return realpath(p, buf) ? buf : p;
}

static void
write_ansible(const struct inventory *inv, const char *key, FILE *f)
{
	char a[NETADDR_STRLEN + 8], b[PATH_MAX];
	const struct inv_host *h;

	fprintf(f, "# Ansible inventory written by 'cephfab inventory "
	    "--ansible' from\n# %s: edit that file and write this one "
	    "again.\n", abspath(inv->path, b));
	fprintf(f, "all:\n  children:\n    cephfab_agents:\n      vars:\n");
	yline(f, 8, "cephfab_inventory", abspath(inv->path, b));
	yline(f, 8, "cephfab_key_file", abspath(key, b));
	if (inv->has_pubnet)
		yline(f, 8, "cephfab_public_network",
		    netcidr_str(&inv->pubnet, a, sizeof(a)));
	if (inv->has_clusnet)
		yline(f, 8, "cephfab_cluster_network",
		    netcidr_str(&inv->clusnet, a, sizeof(a)));
	fprintf(f, "      hosts:\n");
	TAILQ_FOREACH(h, &inv->hosts, entry) {
		fprintf(f, "        ");
		yq(f, h->name);
		fprintf(f, ":\n");
		yline(f, 10, "ansible_host", netaddr_str(&h->agent, a,
		    sizeof(a)));
		yline(f, 10, "cephfab_listen", netaddr_endpoint_str(&h->agent,
		    h->port, a, sizeof(a)));
		if (h->pub.family)
			yline(f, 10, "cephfab_public", netaddr_str(&h->pub, a,
			    sizeof(a)));
		if (h->clus.family)
			yline(f, 10, "cephfab_cluster", netaddr_str(&h->clus,
			    a, sizeof(a)));
		if (h->rack[0])
			yline(f, 10, "cephfab_rack", h->rack);
	}
}

int
inventory_write_ansible(const struct inventory *inv, const char *key,
    const char *path, char *err)
{
	char tmp[PATH_MAX];
	FILE *f;
	int fd;

	if (strcmp(path, "-") == 0) {
		write_ansible(inv, key, stdout);
		return fflush(stdout) == 0 ? 0 : -1;
	}
	/* Whole or not at all: a play must never read half an inventory. */
	if (snprintf(tmp, sizeof(tmp), "%s.XXXXXX", path) >= (int)sizeof(tmp)) {
		snprintf(err, CF_ERRLEN, "%s: path too long", path);
		return -1;
	}
	fd = mkstemp(tmp);
	if (fd == -1 || fchmod(fd, 0644) == -1 ||
	    (f = fdopen(fd, "w")) == NULL) {
		snprintf(err, CF_ERRLEN, "%s: %s", path, strerror(errno));
		if (fd != -1) {
			close(fd);
			unlink(tmp);
		}
		return -1;
	}
	write_ansible(inv, key, f);
	if (ferror(f) | (fclose(f) != 0) || rename(tmp, path) == -1) {
		snprintf(err, CF_ERRLEN, "%s: %s", path, strerror(errno));
		unlink(tmp);
		return -1;
	}
	return 0;
}
