/*
 * ini: the ceph.conf-like syntax shared by inventories and agent configs.
 *
 *   # comment            ; comment
 *   [global]             [host node1]
 *   key = value          # trailing comments after white space
 *
 * Keys may be written with spaces, dashes or underscores ("cluster network",
 * "cluster-network" and "cluster_network" are the same key), as in
 * ceph.conf. Lines are limited to INI_LINE_MAX bytes.
 */
#ifndef CF_INI_H
#define CF_INI_H

#include <stddef.h>

#define INI_LINE_MAX 1024
#define INI_FILE_MAX (4 * 1024 * 1024)

struct ini_handler {
	/* A "[kind name]" or "[kind]" line; name is "" when absent. */
	int (*section)(void *udata, const char *kind, const char *name,
	    int line, char *err);
	/* A "key = value" line; key is normalised to underscores. */
	int (*pair)(void *udata, const char *key, const char *value, int line,
	    char *err);
};

/* ini_parse_buf parses text of len bytes. Handlers return 0, or -1 with a
 * message in err (without file or line). On failure err holds
 * "NAME:LINE: message" with name as given. Returns 0 or -1. */
int ini_parse_buf(const char *name, const char *text, size_t len,
    const struct ini_handler *h, void *udata, char *err);
/* ini_parse_file reads path (at most INI_FILE_MAX bytes) and parses it. */
int ini_parse_file(const char *path, const struct ini_handler *h,
    void *udata, char *err);

#endif
