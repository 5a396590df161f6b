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
#ifndef CF_INVENTORY_H
#define CF_INVENTORY_H

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include "queue_compat.h"

#include "netaddr.h"

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
struct inv_host *inventory_find(struct inventory *inv, const char *name);
/* inventory_dump writes a canonical text form (used by the golden tests and
 * 'cephfab check -v'). */
void inventory_dump(const struct inventory *inv, FILE *f);

#endif
