/*
 * cli: the argument parsing of the commands with options of their own
 * (pair, latency, mtu, ports, reach, matrix, report, runs), and what
 * main.c and they share. Parsing only: every command's work is in its
 * module.
 */
#ifndef CF_CLI_H
#define CF_CLI_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "core/core.h"

struct gopts {
	int facts;		/* hosts --facts */
	const char *db;		/* hosts --facts --db F --run R */
	int64_t run;
	const char *inventory;
	const char *key;
	int json;
	int verbose;
	double timeout;
};

/* load_inventory loads -i's inventory, printing the error; -1 on failure. */
int load_inventory(const struct gopts *g, struct inventory *inv);
/* key_path: -k, else the inventory's key, else the default. */
const char *key_path(const struct gopts *g, const struct inventory *inv);
int parse_num(const char *opt, const char *v, double min, double max,
    double *out);

int cmd_pair(const struct gopts *g, int argc, char **argv);
int cmd_probe(const struct gopts *g, int kind, int argc, char **argv);
int cmd_matrix(const struct gopts *g, int argc, char **argv, bool report);
int cmd_runs(const struct gopts *g, int argc, char **argv);
int cmd_compare(const struct gopts *g, int argc, char **argv);
int cmd_mesh(const struct gopts *g, int argc, char **argv);
int cmd_watch(const struct gopts *g, int argc, char **argv);
int cmd_inventory(const struct gopts *g, int argc, char **argv);
int cmd_ceph_heartbeats(const struct gopts *g, int argc, char **argv);
int cmd_plan(const struct gopts *g, int argc, char **argv);
int cmd_migrate(const struct gopts *g, int argc, char **argv);

#endif
