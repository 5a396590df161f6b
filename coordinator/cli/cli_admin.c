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

int
cmd_check(const struct gopts *g, int argc, char **argv)
{
	struct cli_env e;

	(void)argv;
	if (argc != 1) {
		fprintf(stderr, "usage: cephfab -i INVENTORY check\n");
		return EXIT_USAGE;
	}
	if (cli_env_open(g, &e) == -1 || cli_env_key(g, &e) == -1)
		return EXIT_USAGE;
	if (g->verbose)
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
