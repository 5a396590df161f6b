/* cli_admin: the commands about the tool itself and its agents: keygen,
 * check, hosts and version, see cli.h. */
#include "cli/cli.h"
#include "auth.h"
#include "facts/topology.h"
#include "json.h"
#include "msg.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <openssl/crypto.h>

int
cmd_keygen(const struct gopts *g, int argc, char **argv)
{
	char hex[2 * AUTH_KEY_MIN + 2];
	const char *out = NULL;
	int fd;

	(void)g;
	if (argc == 3 && strcmp(argv[1], "-o") == 0)
		out = argv[2];
	else if (argc != 1) {
		fprintf(stderr, "usage: cephfab keygen [-o FILE]\n");
		return EXIT_USAGE;
	}
	if (auth_keygen(hex, sizeof(hex)) == -1) {
		fprintf(stderr, "cephfab: keygen: no randomness available\n");
		return EXIT_RUNTIME;
	}
	strcat(hex, "\n");
	if (out == NULL) {
		fputs(hex, stdout);
		if (isatty(STDOUT_FILENO) == 0 && isatty(STDERR_FILENO))
			fprintf(stderr, "cephfab: keygen: remember 'chmod 600' "
			    "on the key file\n");
	} else {
		/* O_EXCL: never overwrite a key that agents already use. */
		fd = open(out, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
		if (fd == -1) {
			fprintf(stderr, "cephfab: keygen: %s: %s\n", out,
			    strerror(errno));
			return EXIT_RUNTIME;
		}
		if (write(fd, hex, strlen(hex)) != (ssize_t)strlen(hex) ||
		    close(fd) == -1) {
			fprintf(stderr, "cephfab: keygen: %s: %s\n", out,
			    strerror(errno));
			unlink(out);
			return EXIT_RUNTIME;
		}
	}
	OPENSSL_cleanse(hex, sizeof(hex));
	return EXIT_PASS;
}

/* An address, or null when the inventory gives none. */
static void
add_addr(cJSON *o, const char *name, const struct netaddr *a)
{
	char buf[NETADDR_STRLEN];

	if (a->family == 0)
		cJSON_AddNullToObject(o, name);
	else
		cJSON_AddStringToObject(o, name, netaddr_str(a, buf,
		    sizeof(buf)));
}

/* check --json: the inventory as understood, as data. */
static void
check_json(const struct gopts *g, const struct inventory *inv)
{
	cJSON *d = cJSON_CreateObject(), *hs, *h;
	const struct inv_host *ih;
	char buf[NETADDR_STRLEN];

	cJSON_AddStringToObject(d, "inventory", inv->path);
	cJSON_AddStringToObject(d, "key", key_path(g, inv));
	if (inv->has_pubnet)
		cJSON_AddStringToObject(d, "public_network",
		    netcidr_str(&inv->pubnet, buf, sizeof(buf)));
	else
		cJSON_AddNullToObject(d, "public_network");
	if (inv->has_clusnet)
		cJSON_AddStringToObject(d, "cluster_network",
		    netcidr_str(&inv->clusnet, buf, sizeof(buf)));
	else
		cJSON_AddNullToObject(d, "cluster_network");
	cJSON_AddNumberToObject(d, "timeout", inv->timeout);
	hs = cJSON_AddArrayToObject(d, "hosts");
	TAILQ_FOREACH(ih, &inv->hosts, entry) {
		h = cJSON_CreateObject();
		cJSON_AddItemToArray(hs, h);
		cJSON_AddStringToObject(h, "name", ih->name);
		cJSON_AddStringToObject(h, "agent", netaddr_endpoint_str(
		    &ih->agent, ih->port, buf, sizeof(buf)));
		add_addr(h, "public", &ih->pub);
		add_addr(h, "cluster", &ih->clus);
		if (ih->rack[0])
			cJSON_AddStringToObject(h, "rack", ih->rack);
		else
			cJSON_AddNullToObject(h, "rack");
	}
	cJSON_AddStringToObject(d, "verdict", "pass");
	out_json(d);
	cJSON_Delete(d);
}

int
cmd_check(const struct gopts *g, int argc, char **argv)
{
	struct cli_env e;

	if (argc != 1) {
		fprintf(stderr, "cephfab: check: takes no arguments ('%s'); "
		    "usage: cephfab -i INVENTORY check [-v] [--json]\n",
		    argv[1]);
		return EXIT_USAGE;
	}
	if (cli_env_open(g, &e) == -1 || cli_env_key(g, &e) == -1)
		return EXIT_USAGE;
	if (g->json)
		check_json(g, &e.inv);
	else if (g->verbose)
		inventory_dump(&e.inv, stdout);
	else
		printf("%s: %d hosts, inventory and key OK\n", e.inv.path,
		    e.inv.nhosts);
	cli_env_close(&e);
	return EXIT_PASS;
}

int
cmd_hosts(const struct gopts *g, int argc, char **argv)
{
	struct hosts_opts o;
	struct cli_env e;
	int rc;

	(void)argv;
	if (argc != 1) {
		fprintf(stderr, "usage: cephfab -i INVENTORY hosts [--facts] "
		    "[--json]\n");
		return EXIT_USAGE;
	}
	if (cli_env_open(g, &e) == -1 || cli_env_key(g, &e) == -1)
		return EXIT_USAGE;
	memset(&o, 0, sizeof(o));
	o.json = g->json;
	o.facts = g->facts;
	o.db = g->db;
	o.run = g->run;
	if ((o.db != NULL) != (o.run != 0) || (o.db && !o.facts)) {
		fprintf(stderr, "cephfab: hosts: --db and --run go together, "
		    "with --facts\n");
		cli_env_close(&e);
		return EXIT_USAGE;
	}
	o.timeout = e.timeout;
	rc = hosts_run(&e.inv, &e.key, &o);
	cli_env_close(&e);
	return rc;
}

int
cmd_version(const struct gopts *g, int argc, char **argv)
{
	(void)argv;
	if (argc > 1) {
		fprintf(stderr, "cephfab: version: takes no operand\n");
		return EXIT_USAGE;
	}
	if (g != NULL && g->json) {
		cJSON *d = cJSON_CreateObject();

		cJSON_AddStringToObject(d, "version", CF_VERSION);
		cJSON_AddNumberToObject(d, "protocol", CF_PROTO_VERSION);
		out_json(d);
		cJSON_Delete(d);
		return EXIT_PASS;
	}
	printf("cephfab %s (protocol %d)\n", CF_VERSION, CF_PROTO_VERSION);
	return EXIT_PASS;
}
