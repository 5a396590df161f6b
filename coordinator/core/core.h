/*
 * core: what every command stands on: the inventory, sessions to agents and what is printed.
 * The one header other folders include (docs/architecture.md).
 */
#ifndef CF_CORE_CORE_H
#define CF_CORE_CORE_H

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>
#include <cjson/cJSON.h>

#include "queue_compat.h"
#include "netaddr.h"
#include "conn.h"
#include "json.h"

/*
 * inventory: the hosts a coordinator drives, from a ceph.conf-like file.
 *
 *   [global]
 *   key = /etc/cephfab/key
 *   public_network = 192.0.2.0/24
 *   cluster_network = 198.51.100.0/24
 *   [host node1]
 *   agent = 192.0.2.11        # control address, port 7470 unless given
 *   public = 192.0.2.11
 *   cluster = 198.51.100.11
 *   rack = rack1
 *
 * See configs/README.md for every key.
 */
#define INV_PORT_DEFAULT 7470
#define INV_NAME_MAX 64
#define INV_HOSTS_MAX 4096

struct inv_host {
	TAILQ_ENTRY(inv_host) entry;
	char name[INV_NAME_MAX];
	int line;			/* of the [host] header */
	struct netaddr agent;
	uint16_t port;			/* 0 until resolved at the end */
	struct netaddr pub, clus;	/* family 0 when not given */
	int pub_line, clus_line, agent_line;
	char rack[INV_NAME_MAX];
};

struct inventory {
	char path[PATH_MAX];
	char key_path[PATH_MAX];	/* "" when not given */
	struct netcidr pubnet, clusnet;	/* prefix family 0 when absent */
	bool has_pubnet, has_clusnet;
	uint16_t port;
	double timeout;			/* connect + handshake, seconds */
	TAILQ_HEAD(, inv_host) hosts;
	int nhosts;
};

/* inventory_load parses and validates an inventory. On error, err holds one
 * line naming file and line ("inv:7: unknown key 'agnet'"). The caller
 * frees a loaded inventory with inventory_free. */
int inventory_load(const char *path, struct inventory *inv, char *err);
/* inventory_parse_buf does the same for text in memory; name is used in
 * messages and to resolve a relative key path. */
int inventory_parse_buf(const char *name, const char *text, size_t len,
    struct inventory *inv, char *err);
void inventory_free(struct inventory *inv);
/* inventory_text: the file's text as it is now (caller frees), for a
 * matrix run to keep with its results; NULL when it cannot be read. */
char *inventory_text(const char *path);
struct inv_host *inventory_find(struct inventory *inv, const char *name);
/* inventory_dump writes a canonical text form (used by the golden tests and
 * 'cephfab check -v'). */
void inventory_dump(const struct inventory *inv, FILE *f);

/* inventory_write_ansible writes the Ansible inventory dist/ansible
 * reads (inventory_ansible.c) to path ("-": stdout), whole or not at all;
 * key is the key file the play copies to the nodes. */
int inventory_write_ansible(const struct inventory *inv, const char *key,
    const char *path, char *err);

#define KEY_DEFAULT "/etc/cephfab/key"
/* inventory_key_path: the key file to use: given (-k) if not NULL, else
 * the inventory's 'key', else KEY_DEFAULT. Never NULL. */
const char *inventory_key_path(const struct inventory *inv,
    const char *given);

/*
 * sess: an authenticated session from the coordinator to one agent of the
 * inventory, for commands that hold agents through a test (pair, and the
 * probes and matrix after it). Connects without blocking, and reports
 * through callbacks on the caller's loop.
 */
struct sess;

struct session_ops {
	void (*ready)(struct sess *);
	void (*message)(struct sess *, const struct frame_hdr *,
	    const cJSON *);
	void (*closed)(struct sess *, enum conn_reason, const char *detail);
};

struct sess {
	struct inv_host *host;
	struct conn *conn;	/* NULL once closed */
	const struct session_ops *ops;
	void *udata;
	bool up;
	char version[32];
};

/* session_open starts connecting; failures arrive through ops->closed.
 * Returns NULL (err set) only when no socket could be made. The caller
 * frees with session_free after the loop is done with it. */
struct sess *session_open(struct conn_ctx *ctx, struct inv_host *h,
    double timeout, const struct session_ops *ops, void *udata, char *err);
int session_send(struct sess *s, unsigned type, const cJSON *body);
/* session_bye says BYE and closes after the flush. */
void session_bye(struct sess *s);
void session_free(struct sess *s);
/* session_blame writes why host's agent (role: "sender", ...; NULL for
 * none) failed us, in the one form every command uses: "agent on H (role)
 * unreachable: detail" (or "refused our key", "speaks another protocol
 * version", "is busy", "timed out", "broke the protocol", "closed the
 * connection"). The verdict reads a stored reason of that form as the
 * agent's failure, not the network's (verdict/unmeasured.c). */
void session_blame(char *buf, size_t sz, const char *host, const char *role,
    enum conn_reason r, const char *detail);

/* session_host_name: this machine's name, as every coordinator command
 * says it in its HELLO (the agents log it, busy refusals name it). */
const char *session_host_name(void);
/* session_ctx_init prepares a conn_ctx for a coordinator command. */
void session_ctx_init(struct conn_ctx *ctx, struct ev_loop *loop,
    const struct auth_key *key, double timeout);
/* session_ctx_quiet allows agents secs of silence (plus a margin). */
void session_ctx_quiet(struct conn_ctx *ctx, double secs);

/*
 * out: what the coordinator prints. Results go to stdout (a table or JSON);
 * progress goes to stderr and only when stderr is a terminal, so pipes and
 * --json output stay clean (house style rule 9).
 */
/* Exit codes shared by every cephfab command. */
#define EXIT_PASS 0
#define EXIT_PROBLEMS 1
#define EXIT_USAGE 2
#define EXIT_RUNTIME 3
/* The run did not measure everything it planned (interrupted, agents
 * down, busy or refusing by their limits), and what it measured found
 * nothing wrong: not a pass. */
#define EXIT_INCOMPLETE 4

/* out_progress rewrites one status line on a TTY; silent otherwise. */
void out_progress(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* out_progress_done clears the status line. */
void out_progress_done(void);
/* out_json prints a JSON document on stdout and a newline. Returns -1 when
 * it could not be printed (out of memory). */
int out_json(const cJSON *doc);
/* out_json_doc writes doc to f with the envelope first (envelope_json),
 * as out_json does on stdout; a result file (matrix --json F) uses it. */
int out_json_doc(FILE *f, const cJSON *doc);
/* out_json_write writes doc to f as it walks it (no whole-document string:
 * a 256-host matrix is tens of MB); -1 on a write error. */
int out_json_write(FILE *f, const cJSON *doc);
/* out_file: a result file written whole or not at all. A regular file
 * (or a new one) is written as PATH.tmp.PID beside it, flushed, fsynced
 * and renamed into place by out_file_close; anything else (a pipe,
 * /dev/stdout, a device) is written directly. A full disk or a kill
 * never leaves half a report where the old one was. */
struct out_file {
	FILE *f;
	char path[4096];
	char tmp[4200];			/* "" when written directly */
	bool std;			/* "-": standard output */
};
/* out_path_check: whether a file can be written at path ("-" always):
 * its directory exists and is writable, it is not a directory; -1 with
 * err naming it. Asked before measuring, so that a run is never lost to
 * a typo in an output path. */
int out_path_check(const char *path, char *err);
/* out_is_stdout: "-", /dev/stdout, /dev/fd/1 or /proc/self/fd/1. */
bool out_is_stdout(const char *path);
/* out_file_open: -1 with err naming the file; out_is_stdout names are
 * standard output. */
int out_file_open(struct out_file *o, const char *path, char *err);
/* out_file_close: -1 with err ("PATH: cannot write: No space left on
 * device") when any write failed; the temporary is removed then. */
int out_file_close(struct out_file *o, char *err);

/* envelope: every JSON document on stdout begins with the command that
 * made it: "command", "version", "started" and "finished" (local time,
 * RFC 3339 with the zone), "options" (the words after the command word).
 * envelope_begin records them once the command is known; envelope_json
 * is that object (NULL before), the caller's to free. A command run with
 * --json that fails without printing its document (a usage or
 * configuration error, exit 2, or a runtime failure, exit 3) prints the
 * envelope with "exit", "error" (its last error line, which
 * envelope_tap_stderr keeps while passing stderr through) and
 * "verdict": "error" through envelope_error, which returns rc. */
void envelope_begin(const char *command, int argc, char *const argv[]);
cJSON *envelope_json(void);
void envelope_tap_stderr(void);
void envelope_printed(void);
int envelope_error(int rc);

/* out_duration formats seconds as "3d4h", "5h12m", "7m3s" or "42s". */
const char *out_duration(double secs, char *buf, size_t sz);

/* self_argv_begin: "cephfab -i INVENTORY [-k KEY] --connect-timeout
 * TIMEOUT" into argv
 * (the strings are the caller's); returns how many. */
int self_argv_begin(char **argv, const char *inventory, const char *key,
    const char *timeout);
/* self_spawn runs this program with argv, its stdout on a pipe (*fd, the
 * caller's to read and close) and its stderr on /dev/null; the child's
 * PID, or -1 when it could not start. */
pid_t self_spawn(char *const argv[], int *fd);
/* self_usable: 0 when this program can run itself as children (through
 * /proc/self/exe), else -1 with err saying why (no /proc in a chroot). */
int self_usable(char *err);
/* self_run runs this program with args (no shell: any path works), at
 * most timeout seconds, and parses what it prints into *out (NULL when
 * nothing parses); the exit status, -1 when it could not run. */
int self_run(const char *const *args, double timeout, cJSON **out);

#endif
