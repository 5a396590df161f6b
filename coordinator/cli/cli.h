/*
 * cli: the command line. main.c holds the command table; each cli_*.c
 * parses one family of commands and hands the work to its subsystem
 * (probes/, matrix/, report/, watch/, ceph/, migrate/, facts/). Parsing
 * only: no command's work is done here. cli_setup.c holds what every
 * command shares (the inventory, the key, the timeout, number and list
 * parsers), so that a new command is a function and a table entry.
 */
#ifndef CF_CLI_CLI_H
#define CF_CLI_CLI_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "auth.h"
#include "optable.h"
#include "core/core.h"

/* The inventory used without -i or $CEPHFAB_INVENTORY, where it exists. */
#define CF_DEFAULT_INVENTORY "/etc/cephfab/inventory"

/* The global options (before the command word, and for check and hosts
 * also after it). */
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

/* One command: its word, the function that parses the rest of the line
 * and runs it (argv[0] is the word; returns an EXIT_* code), its line in
 * 'cephfab --help', whether global options may follow the word
 * (commands without options of their own), and, for those that do not
 * print their own, the page 'cephfab COMMAND --help' prints. */
struct command {
	const char *name;
	int (*fn)(const struct gopts *g, int argc, char **argv);
	const char *help;
	bool global_opts;
	const char *page;
};

/* What a command that talks to agents stands on: the inventory, the key
 * and the connect timeout (-t, else the inventory's). cli_env_open loads
 * the inventory (-i), cli_env_key the key; each prints its error and
 * returns -1 (cli_env_key then closes e). cli_env_close wipes the key and
 * frees the inventory. */
struct cli_env {
	struct inventory inv;
	struct auth_key key;
	bool have_key;
	double timeout;
};
int cli_env_open(const struct gopts *g, struct cli_env *e);
int cli_env_key(const struct gopts *g, struct cli_env *e);
void cli_env_close(struct cli_env *e);
/* cli_env_cluster_pair: 1 when hosts a and b both have a cluster address
 * (the default network of a two-host command), else 0; cli_env_cluster_all
 * the same for every host. */
int cli_env_cluster_pair(struct cli_env *e, const char *a,
    const char *b);
int cli_env_cluster_all(const struct cli_env *e);

/* load_inventory loads -i's inventory, printing the error; -1 on failure. */
int load_inventory(const struct gopts *g, struct inventory *inv);
/* key_path: -k, else the inventory's key, else the default. */
const char *key_path(const struct gopts *g, const struct inventory *inv);
/* parse_num: v as a number in [min, max] for option opt, or -1 with the
 * error printed. parse_list: a comma list (with ranges "a-b" when ranges)
 * of at most cap numbers in [min, max]; the count, or -1. parse_net:
 * "public" 0 or "cluster" 1, or -1. */
/* cli_command: the command word being run ("matrix"), which every error
 * line of the shared parsers names. */
extern const char *cli_command;
int parse_num(const char *opt, const char *v, double min, double max,
    double *out);
int parse_list(const char *opt, const char *v, uint32_t min, uint32_t max,
    uint32_t *out, int cap, bool ranges);
int parse_net(const char *opt, const char *v, int *out);
/* A numeric option: its getopt value, its name in messages, its range,
 * and the field of the command's options struct it fills. A table of
 * them ends with ch 0. */
enum num_type { NUM_DOUBLE, NUM_U32, NUM_U16, NUM_INT, NUM_I64 };
struct num_opt {
	int ch;
	const char *name;
	double min, max;
	enum num_type type;
	size_t off;
};
#define NUM_OPT(ch, name, min, max, type, st, field) \
	{ ch, name, min, max, type, offsetof(st, field) }
#define NUM_END { 0, NULL, 0, 0, NUM_DOUBLE, 0 }
/* cli_getopt is getopt_long that fills the numeric options of nums into
 * base itself: it returns the next other option, -1 at the end, or
 * CLI_BAD_NUMBER after printing why a number was refused. */
#define CLI_BAD_NUMBER (-2)
int cli_getopt(int argc, char **argv, const char *sopts,
    const struct option *lopts, const struct num_opt *nums, void *base);

/* A word of a comma list and its bit; the list ends with a NULL name
 * whose expect says what the words are ("public or cluster"). */
struct word {
	const char *name;
	int bit;
	const char *expect;
};
/* parse_words: v as a comma list of words into the OR of their bits;
 * -1 with "cephfab: OPT: 'x' is not EXPECT" printed. */
int parse_words(const char *opt, const char *v, const struct word *w,
    int *out);

/* The commands, one family a file: cli_admin.c, cli_pair.c,
 * cli_matrix.c, cli_live.c, cli_ceph.c, cli_plan.c, cli_monitor.c. */
int cmd_keygen(const struct gopts *g, int argc, char **argv);
int cmd_check(const struct gopts *g, int argc, char **argv);
int cmd_hosts(const struct gopts *g, int argc, char **argv);
int cmd_version(const struct gopts *g, int argc, char **argv);
int cmd_pair(const struct gopts *g, int argc, char **argv);
/* latency, mtu, ports and reach: the command word says which. */
int cmd_probe(const struct gopts *g, int argc, char **argv);
int cmd_matrix(const struct gopts *g, int argc, char **argv);
int cmd_report(const struct gopts *g, int argc, char **argv);
int cmd_runs(const struct gopts *g, int argc, char **argv);
int cmd_compare(const struct gopts *g, int argc, char **argv);
int cmd_mesh(const struct gopts *g, int argc, char **argv);
int cmd_watch(const struct gopts *g, int argc, char **argv);
int cmd_inventory(const struct gopts *g, int argc, char **argv);
int cmd_ceph_heartbeats(const struct gopts *g, int argc, char **argv);
int cmd_plan(const struct gopts *g, int argc, char **argv);
int cmd_migrate(const struct gopts *g, int argc, char **argv);
int cmd_monitor(const struct gopts *g, int argc, char **argv);

#endif
