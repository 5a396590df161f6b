/*
 * ceph: the coordinator's view of a live Ceph cluster, read with the
 * 'ceph' CLI in a child process (bounded by a timeout, never on an event
 * loop) and parsed with the typed getters. Every parser takes the CLI's
 * JSON and fails with the field named when the shape is not Ceph's.
 */
#ifndef CF_CEPH_H
#define CF_CEPH_H

#include <stdbool.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "core/core.h"
#include "netaddr.h"

#define CEPH_MAX_OSDS 4096
#define CEPH_NAME_MAX 64

struct ceph_opts {
	const char *conf;		/* --conf, NULL: the CLI's default */
	const char *name;		/* --name (client.admin) */
	const char *keyring;		/* --keyring */
	double timeout;			/* seconds per command */
};

struct ceph_osd {
	int id;
	bool up, in;
	uint32_t up_from;
	struct netaddr pub, clus;	/* from the OSD map's addrvecs */
	struct netaddr hb_back, hb_front;	/* heartbeat addrvecs */
	char host[CEPH_NAME_MAX];	/* from the CRUSH tree */
	char domain[CEPH_NAME_MAX];	/* the host's rack, or "" */
	char meta_host[CEPH_NAME_MAX];	/* 'osd metadata' hostname */
	struct netaddr meta_front, meta_back;	/* its front/back_addr */
};

struct ceph_pool {
	char name[CEPH_NAME_MAX];
	int size, min_size;
};

struct ceph_map {
	struct ceph_osd osds[CEPH_MAX_OSDS];
	int nosds;
	struct ceph_pool pools[64];
	int npools;
	char flags[256];
	struct { char name[CEPH_NAME_MAX]; struct netaddr addr; } mons[16];
	int nmons;
	char public_network[128], cluster_network[128];
};

/* ceph_run runs 'ceph ARGS -f json' and parses its stdout (caller frees
 * *out). Returns the exit status (0, or EBUSY/EAGAIN for ok-to-stop),
 * or -1 with err when it could not run, timed out or printed no JSON. */
int ceph_run(const struct ceph_opts *o, const char *const *args,
    cJSON **out, char *err);

/* ceph_cmd runs 'ceph ARGS' for its effect: the exit status (err then
 * holds the CLI's last line), or -1 with err. */
int ceph_cmd(const struct ceph_opts *o, const char *const *args, char *err);

/* Parsers: 0, or -1 with err naming the field. */
int ceph_parse_osd_dump(const cJSON *j, struct ceph_map *m, char *err);
int ceph_parse_osd_tree(const cJSON *j, struct ceph_map *m, char *err);
int ceph_parse_osd_metadata(const cJSON *j, struct ceph_map *m, char *err);
int ceph_parse_mon_dump(const cJSON *j, struct ceph_map *m, char *err);
int ceph_parse_config_dump(const cJSON *j, struct ceph_map *m, char *err);
/* ceph_parse_status: health and PG counts. */
struct ceph_status {
	char health[32];
	int num_pgs, active_clean;
	int osds, osds_up, osds_in;
};
int ceph_parse_status(const cJSON *j, struct ceph_status *s, char *err);

/* pg stat: whether PG stats are ready and how many are active+clean. */
struct ceph_pgstat {
	bool ready;
	int num_pgs, active_clean;
};
int ceph_parse_pg_stat(const cJSON *j, struct ceph_pgstat *s, char *err);

/* health detail: the status and the names of the checks raised, e.g.
 * "OSD_SLOW_PING_TIME_BACK" (names: up to 16, comma-separated). */
struct ceph_health {
	char status[32];
	char checks[512];
	int nchecks;
	char text[4096];	/* "CHECK: message" lines (summary, detail) */
};
int ceph_parse_health_detail(const cJSON *j, struct ceph_health *h,
    char *err);

/* config show DAEMON: one setting's value and where it came from ("mon"
 * database, "file" = a local ceph.conf, "default", ...). 1 found, 0 not
 * set at all, -1 malformed. */
int ceph_parse_config_show(const cJSON *j, const char *name, char *value,
    size_t vlen, char *source, size_t slen, char *err);

/* config dump: the value of NAME set for WHO as 'ceph config set' names
 * it ("global", "osd.3", "osd/host:h2"): 1 found, 0 not set, -1. */
int ceph_config_lookup(const cJSON *j, const char *who, const char *name,
    char *value, size_t vlen, char *err);

/* pg dump pgs: PG states against an epoch (a restarted OSD's up_from:
 * the mgr's stats lag behind a restart, a PG counts as clean for the
 * gate only when reported at or after it). */
struct ceph_pgdump {
	bool ready, has_ready;
	int num_pgs, active_clean;
	int fresh_clean;		/* active+clean, reported >= epoch */
	int inactive;			/* not active at all */
	int laggy;			/* "laggy" or "wait" in the state */
	uint32_t min_epoch;		/* lowest reported_epoch */
	char stuck[64];			/* one PG not active+clean: "ID STATE" */
};
int ceph_parse_pg_dump(const cJSON *j, uint32_t epoch, struct ceph_pgdump *d,
    char *err);

/* versions: how many daemons run how many distinct versions. */
struct ceph_versions {
	int daemons, distinct;
	char first[128];		/* one version string, for display */
};
int ceph_parse_versions(const cJSON *j, struct ceph_versions *v,
    char *err);

/* osd ok-to-stop (JSON even when it refuses; its exit status says
 * which: 0 ok, EBUSY unsafe, EAGAIN unknown). */
struct ceph_ok_to_stop {
	bool ok;
	int num_ok_pgs, num_not_ok_pgs, nosds;
};
int ceph_parse_ok_to_stop(const cJSON *j, struct ceph_ok_to_stop *o,
    char *err);

/* dump_osd_network: one OSD's heartbeat ping times to its peers, per
 * interface ("back" = cluster network, "front" = public), in ms. */
struct ceph_ping {
	int from, to;
	bool back;
	double avg1, avg5, avg15, max1, last;
};
/* ceph_parse_osd_network calls cb for each entry; -1 with err. */
int ceph_parse_osd_network(const cJSON *j,
    void (*cb)(const struct ceph_ping *, void *), void *arg, char *err);

/* ceph_addrvec picks an addrvec's v2 address (else v1) without its port. */
int ceph_addrvec(const cJSON *av, struct netaddr *out, char *err);

/* ceph_read_cluster fills m from osd dump, osd tree, osd metadata, mon
 * dump and config dump. */
int ceph_read_cluster(const struct ceph_opts *o, struct ceph_map *m,
    char *err);

/* ceph_write_inventory writes m as an inventory (the normal format) to
 * path ("-": stdout), with a comment above what it had to guess. */
int ceph_write_inventory(const struct ceph_map *m, const char *path,
    const char *key_path, char *err);

/* ceph_heartbeats_run: 'cephfab ceph-heartbeats': Ceph's heartbeat ping
 * times per host pair and interface, as a table or JSON on stdout, and
 * the slow-ping health checks. Returns an EXIT_* code. */
int ceph_heartbeats_run(const struct ceph_opts *co, bool json);

/* ceph_prefix_err: err becomes "pre: err" (a parser names the command
 * whose JSON it could not read). */
void ceph_prefix_err(char *err, const char *pre);

/* ceph_osd_find: the OSD of m with this id, or NULL. The map's own entry:
 * writable through a map the caller may write. */
struct ceph_osd *ceph_osd_find(const struct ceph_map *m, int id);

#endif
