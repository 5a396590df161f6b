/* ceph: the Ceph CLI and its JSON, see ceph.h. */
#include "ceph/ceph.h"
#include "child.h"
#include "json.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define CEPH_MAX_OUT (64u << 20)

/* ceph_argv: 'ceph' with the connection options, then args, then
 * '-f json'. */
static void
ceph_argv(const struct ceph_opts *o, const char *const *args,
    const char **argv)
{
	int k = 0, i;

	argv[k++] = "ceph";
	if (o->conf) {
		argv[k++] = "--conf";
		argv[k++] = o->conf;
	}
	if (o->name) {
		argv[k++] = "--name";
		argv[k++] = o->name;
	}
	if (o->keyring) {
		argv[k++] = "--keyring";
		argv[k++] = o->keyring;
	}
	/* The CLI's own connect timeout, below ours. */
	argv[k++] = "--connect-timeout";
	argv[k++] = "10";
	for (i = 0; args[i] && k < 58; i++)
		argv[k++] = args[i];
	argv[k++] = "-f";
	argv[k++] = "json";
	argv[k] = NULL;
}

int
ceph_run(const struct ceph_opts *o, const char *const *args, cJSON **out,
    char *err)
{
	const char *argv[64];
	char *buf;
	size_t len;
	int rc;

	*out = NULL;
	ceph_argv(o, args, argv);
	rc = child_run(argv, o->timeout > 0 ? o->timeout : 15, CHILD_ERRLINE,
	    &buf, &len, CEPH_MAX_OUT, err);
	if (rc == -1) {
		if (strstr(err, "not installed"))
			snprintf(err, CF_ERRLEN, "ceph: the CLI is not "
			    "installed (ceph-common)");
		else if (strstr(err, "no answer"))
			snprintf(err, CF_ERRLEN, "ceph %s: no answer in %.0f s",
			    args[0], o->timeout > 0 ? o->timeout : 15);
		return -1;
	}
	*out = buf ? cJSON_ParseWithLength(buf, len) : NULL;
	free(buf);
	if (*out == NULL) {
		char line[CF_ERRLEN];

		/* The CLI's own words, and which cluster it was asked. */
		snprintf(line, sizeof(line), "%s", rc != 0 ? err : "");
		snprintf(err, CF_ERRLEN, "ceph %s (--conf %s): exit status %d "
		    "and no JSON: %s", args[0], o->conf ? o->conf :
		    "/etc/ceph/ceph.conf", rc, line[0] ? line : "nothing on "
		    "stderr (is the cluster reachable, the keyring readable?)");
		return -1;
	}
	return rc;
}

int
ceph_cmd(const struct ceph_opts *o, const char *const *args, char *err)
{
	const char *argv[64];
	char *buf = NULL, *nl;
	int rc;

	ceph_argv(o, args, argv);
	rc = child_run(argv, o->timeout > 0 ? o->timeout : 15, CHILD_STDERR,
	    &buf, NULL, 1 << 20, err);
	if (rc > 0) {
		/* The CLI's last line says why ("Error EINVAL: ..."). */
		while (buf && (nl = strrchr(buf, '\n')) != NULL && nl[1] == '\0')
			*nl = '\0';
		nl = buf ? strrchr(buf, '\n') : NULL;
		snprintf(err, CF_ERRLEN, "ceph %s %s: exit status %d: %.200s",
		    args[0], args[1] ? args[1] : "", rc, nl ? nl + 1 :
		    buf ? buf : "");
	}
	free(buf);
	return rc;
}

int
ceph_addrvec(const cJSON *av, struct netaddr *out, char *err)
{
	const cJSON *arr, *a;
	const char *type, *addr;
	int n, best = 0;

	if (json_get_arr(av, "addrvec", 1, 16, &arr, &n, err) == -1)
		return -1;
	cJSON_ArrayForEach(a, arr) {
		uint16_t port;
		struct netaddr x;

		if (json_get_str(a, "type", 2, 8, &type, err) == -1 ||
		    json_get_str(a, "addr", 1, 64, &addr, err) == -1)
			return -1;
		if (netaddr_parse_endpoint(addr, &x, &port) == -1) {
			snprintf(err, CF_ERRLEN, "field 'addr': '%s' is not "
			    "an address:port", addr);
			return -1;
		}
		/* v2 (msgr2) first; v1 when that is all there is. */
		if (strcmp(type, "v2") == 0 || best == 0) {
			*out = x;
			best = strcmp(type, "v2") == 0 ? 2 : 1;
		}
	}
	return 0;
}

struct ceph_osd *
ceph_osd_find(const struct ceph_map *m, int id)
{
	int i;

	for (i = 0; i < m->nosds; i++)
		if (m->osds[i].id == id)
			return (struct ceph_osd *)&m->osds[i];
	return NULL;
}

void
ceph_prefix_err(char *err, const char *pre)
{
	char t[CF_ERRLEN];

	snprintf(t, sizeof(t), "%s: %s", pre, err);
	snprintf(err, CF_ERRLEN, "%s", t);
}

int
ceph_parse_osd_dump(const cJSON *j, struct ceph_map *m, char *err)
{
	const cJSON *osds, *o, *pools, *p, *av;
	const char *fl;
	int n, i = 0;

	if (json_get_arr(j, "osds", 0, CEPH_MAX_OSDS, &osds, &n, err) == -1 ||
	    json_get_arr(j, "pools", 0, 64, &pools, NULL, err) == -1 ||
	    json_opt_str(j, "flags", 0, 255, "", &fl, err) == -1) {
		ceph_prefix_err(err, "osd dump");
		return -1;
	}
	snprintf(m->flags, sizeof(m->flags), "%s", fl);
	m->nosds = 0;
	cJSON_ArrayForEach(o, osds) {
		struct ceph_osd *d = &m->osds[m->nosds];
		uint32_t id, up, in;
		char ctx[48];

		memset(d, 0, sizeof(*d));
		snprintf(ctx, sizeof(ctx), "osd dump: osds[%d]", i++);
		if (json_get_u32(o, "osd", 0, 1000000, &id, err) == -1 ||
		    json_get_u32(o, "up", 0, 1, &up, err) == -1 ||
		    json_get_u32(o, "in", 0, 1, &in, err) == -1 ||
		    json_get_u32(o, "up_from", 0, UINT32_MAX, &d->up_from,
		    err) == -1 ||
		    json_get_obj(o, "public_addrs", &av, err) == -1 ||
		    ceph_addrvec(av, &d->pub, err) == -1 ||
		    json_get_obj(o, "cluster_addrs", &av, err) == -1 ||
		    ceph_addrvec(av, &d->clus, err) == -1) {
			/* A down OSD that never booted has empty addrvecs:
			 * it stays, without addresses. */
			if (json_get_u32(o, "osd", 0, 1000000, &id, err) == 0 &&
			    json_get_u32(o, "up", 0, 1, &up, err) == 0 && !up) {
				memset(&d->pub, 0, sizeof(d->pub));
				memset(&d->clus, 0, sizeof(d->clus));
			} else {
				ceph_prefix_err(err, ctx);
				return -1;
			}
			in = 0;
		}
		/* Heartbeats: where the planner checks a moved OSD went. */
		if (json_opt_obj(o, "heartbeat_back_addrs", &av, err) == 0 && av &&
		    cJSON_GetArraySize(cJSON_GetObjectItem(av, "addrvec")) &&
		    ceph_addrvec(av, &d->hb_back, err) == -1) {
			ceph_prefix_err(err, ctx);
			return -1;
		}
		if (json_opt_obj(o, "heartbeat_front_addrs", &av, err) == 0 && av &&
		    cJSON_GetArraySize(cJSON_GetObjectItem(av, "addrvec")) &&
		    ceph_addrvec(av, &d->hb_front, err) == -1) {
			ceph_prefix_err(err, ctx);
			return -1;
		}
		d->id = (int)id;
		d->up = up;
		d->in = in;
		m->nosds++;
	}
	m->npools = 0;
	cJSON_ArrayForEach(p, pools) {
		struct ceph_pool *q = &m->pools[m->npools];
		uint32_t sz, msz;

		if (json_get_strcpy(p, "pool_name", 1, q->name, sizeof(q->name),
		    err) == -1 ||
		    json_get_u32(p, "size", 1, 100, &sz, err) == -1 ||
		    json_get_u32(p, "min_size", 0, 100, &msz, err) == -1) {
			ceph_prefix_err(err, "osd dump: pools");
			return -1;
		}
		q->size = (int)sz;
		q->min_size = (int)msz;
		m->npools++;
	}
	return 0;
}

int
ceph_parse_osd_tree(const cJSON *j, struct ceph_map *m, char *err)
{
	const cJSON *nodes, *nd, *ch, *pn;
	int guard = 0;

	if (json_get_arr(j, "nodes", 0, 100000, &nodes, NULL, err) == -1) {
		ceph_prefix_err(err, "osd tree");
		return -1;
	}
	/* Hosts name their OSDs; racks (or any bucket above a host) name
	 * their hosts: the host's failure domain. */
	cJSON_ArrayForEach(nd, nodes) {
		const char *type, *name;
		double id;

		if (json_get_str(nd, "type", 1, 32, &type, err) == -1 ||
		    json_get_str(nd, "name", 1, CEPH_NAME_MAX - 1, &name,
		    err) == -1 ||
		    json_get_double(nd, "id", -1e9, 1e9, &id, err) == -1) {
			ceph_prefix_err(err, "osd tree: nodes");
			return -1;
		}
		if (strcmp(type, "host") != 0)
			continue;
		cJSON_ArrayForEach(ch, cJSON_GetObjectItem(nd, "children")) {
			struct ceph_osd *o;

			if (!cJSON_IsNumber(ch)) {
				snprintf(err, CF_ERRLEN, "osd tree: host %s: "
				    "children: not numbers", name);
				return -1;
			}
			if ((o = ceph_osd_find(m, ch->valueint)) != NULL)
				snprintf(o->host, sizeof(o->host), "%s", name);
		}
		/* Its parent bucket, if it is not the root. */
		cJSON_ArrayForEach(pn, nodes) {
			const char *pt, *pname;
			const cJSON *c2;

			if (++guard > 10000000)
				break;
			if (json_get_str(pn, "type", 1, 32, &pt, err) == -1 ||
			    strcmp(pt, "root") == 0 || strcmp(pt, "host") == 0 ||
			    json_get_str(pn, "name", 1, CEPH_NAME_MAX - 1, &pname,
			    err) == -1)
				continue;
			cJSON_ArrayForEach(c2, cJSON_GetObjectItem(pn,
			    "children")) {
				int k;

				if (!cJSON_IsNumber(c2) || c2->valuedouble != id)
					continue;
				for (k = 0; k < m->nosds; k++)
					if (strcmp(m->osds[k].host, name) == 0)
						snprintf(m->osds[k].domain,
						    CEPH_NAME_MAX, "%s", pname);
			}
		}
	}
	return 0;
}

/* meta_addr reads an 'osd metadata' address list such as
 * "[v2:198.19.0.12:6800/11849,v1:198.19.0.12:6801/11849]": the first
 * entry's address. -1 when it is not one. */
static int
meta_addr(const char *s, struct netaddr *out)
{
	char b[128], *p, *e;
	uint16_t port;

	snprintf(b, sizeof(b), "%s", s);
	p = b;
	if (*p == '[')
		p++;
	if (strncmp(p, "v2:", 3) == 0 || strncmp(p, "v1:", 3) == 0)
		p += 3;
	if ((e = strpbrk(p, "/,]")) != NULL)
		*e = '\0';
	return netaddr_parse_endpoint(p, out, &port);
}

int
ceph_parse_osd_metadata(const cJSON *j, struct ceph_map *m, char *err)
{
	const cJSON *e;
	int i = 0;

	if (json_is_array(j, "osd metadata", err) == -1)
		return -1;
	cJSON_ArrayForEach(e, j) {
		uint32_t id;
		const char *hn;
		struct ceph_osd *o;

		if (json_get_u32(e, "id", 0, 1000000, &id, err) == -1 ||
		    json_get_str(e, "hostname", 1, CEPH_NAME_MAX - 1, &hn,
		    err) == -1) {
			char ctx[48];

			snprintf(ctx, sizeof(ctx), "osd metadata[%d]", i);
			ceph_prefix_err(err, ctx);
			return -1;
		}
		/* back_iface can be empty: never relied on. */
		{
			struct netaddr fa_a, ba_a;
			const char *fa, *ba;
			char ctx[48];
			int bad = 0;

			memset(&fa_a, 0, sizeof(fa_a));
			memset(&ba_a, 0, sizeof(ba_a));
			snprintf(ctx, sizeof(ctx), "osd metadata[%d]", i);
			if (json_opt_str(e, "front_addr", 0, 256, "", &fa,
			    err) == -1 || json_opt_str(e, "back_addr", 0, 256, "",
			    &ba, err) == -1) {
				ceph_prefix_err(err, ctx);
				return -1;
			}
			if (fa[0] && meta_addr(fa, &fa_a) == -1)
				bad = 1;
			else if (ba[0] && meta_addr(ba, &ba_a) == -1)
				bad = 2;
			if (bad) {
				snprintf(err, CF_ERRLEN, "%s: field '%s': '%s' "
				    "is not an address list", ctx, bad == 1 ?
				    "front_addr" : "back_addr", bad == 1 ? fa :
				    ba);
				return -1;
			}
			if ((o = ceph_osd_find(m, (int)id)) != NULL) {
				snprintf(o->meta_host, sizeof(o->meta_host),
				    "%s", hn);
				o->meta_front = fa_a;
				o->meta_back = ba_a;
			}
		}
		i++;
	}
	return 0;
}

int
ceph_parse_mon_dump(const cJSON *j, struct ceph_map *m, char *err)
{
	const cJSON *mons, *e, *av;

	if (json_get_arr(j, "mons", 1, 16, &mons, NULL, err) == -1) {
		ceph_prefix_err(err, "mon dump");
		return -1;
	}
	m->nmons = 0;
	cJSON_ArrayForEach(e, mons) {
		if (json_get_strcpy(e, "name", 1, m->mons[m->nmons].name,
		    CEPH_NAME_MAX, err) == -1 ||
		    json_get_obj(e, "public_addrs", &av, err) == -1 ||
		    ceph_addrvec(av, &m->mons[m->nmons].addr, err) == -1) {
			ceph_prefix_err(err, "mon dump: mons");
			return -1;
		}
		m->nmons++;
	}
	return 0;
}

/* config_entry: one entry of 'config dump': section, name, value and
 * mask ("" when none). */
static int
config_entry(const cJSON *e, const char **sec, const char **name,
    const char **val, const char **mask, char *err)
{
	if (json_get_str(e, "section", 0, 128, sec, err) == -1 ||
	    json_get_str(e, "name", 1, 128, name, err) == -1 ||
	    json_get_str(e, "value", 0, 4096, val, err) == -1 ||
	    json_opt_str(e, "mask", 0, 256, "", mask, err) == -1)
		return -1;
	return 0;
}

int
ceph_parse_config_dump(const cJSON *j, struct ceph_map *m, char *err)
{
	const cJSON *e;

	if (json_is_array(j, "config dump", err) == -1)
		return -1;
	cJSON_ArrayForEach(e, j) {
		const char *sec, *name, *val, *mask;

		if (config_entry(e, &sec, &name, &val, &mask, err) == -1) {
			ceph_prefix_err(err, "config dump");
			return -1;
		}
		/* The global value; per-host masks are the planner's. */
		if (strcmp(sec, "global") != 0 || mask[0])
			continue;
		if (strcmp(name, "cluster_network") == 0)
			snprintf(m->cluster_network, sizeof(m->cluster_network),
			    "%s", val);
		else if (strcmp(name, "public_network") == 0)
			snprintf(m->public_network, sizeof(m->public_network),
			    "%s", val);
	}
	return 0;
}

int
ceph_config_lookup(const cJSON *j, const char *who, const char *name,
    char *value, size_t vlen, char *err)
{
	const cJSON *e;
	char w[512];
	int i = 0;

	if (json_is_array(j, "config dump", err) == -1)
		return -1;
	cJSON_ArrayForEach(e, j) {
		const char *sec, *n, *val, *mask;

		if (config_entry(e, &sec, &n, &val, &mask, err) == -1) {
			char ctx[48];

			snprintf(ctx, sizeof(ctx), "config dump[%d]", i);
			ceph_prefix_err(err, ctx);
			return -1;
		}
		i++;
		/* 'who' as 'ceph config set' takes it: section[/mask]. */
		snprintf(w, sizeof(w), "%s%s%s", sec, mask[0] ? "/" : "", mask);
		if (strcmp(w, who) == 0 && strcmp(n, name) == 0) {
			snprintf(value, vlen, "%s", val);
			return 1;
		}
	}
	return 0;
}

static int
read_one(const struct ceph_opts *o, const char *a0, const char *a1,
    int (*parse)(const cJSON *, struct ceph_map *, char *),
    struct ceph_map *m, char *err)
{
	const char *args[3] = { a0, a1, NULL };
	cJSON *j;
	int rc;

	if (ceph_run(o, args, &j, err) == -1)
		return -1;
	rc = parse(j, m, err);
	cJSON_Delete(j);
	return rc;
}

int
ceph_read_cluster(const struct ceph_opts *o, struct ceph_map *m, char *err)
{
	memset(m, 0, sizeof(*m));
	if (read_one(o, "osd", "dump", ceph_parse_osd_dump, m, err) == -1 ||
	    read_one(o, "osd", "tree", ceph_parse_osd_tree, m, err) == -1 ||
	    read_one(o, "osd", "metadata", ceph_parse_osd_metadata, m,
	    err) == -1 ||
	    read_one(o, "mon", "dump", ceph_parse_mon_dump, m, err) == -1 ||
	    read_one(o, "config", "dump", ceph_parse_config_dump, m,
	    err) == -1)
		return -1;
	return 0;
}

int
ceph_write_inventory(const struct ceph_map *m, const char *path,
    const char *key_path, char *err)
{
	/* Never through a symbolic link someone left at the path. */
	int fd = strcmp(path, "-") == 0 ? -1 : open(path, O_WRONLY | O_CREAT |
	    O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
	FILE *f = strcmp(path, "-") == 0 ? stdout : fd == -1 ? NULL :
	    fdopen(fd, "w");
	char a[NETADDR_STRLEN], b[NETADDR_STRLEN];
	const char *done[CEPH_MAX_OSDS + 16];
	int nd = 0, i, k;

	if (f == NULL) {
		if (fd != -1)
			close(fd);
		snprintf(err, CF_ERRLEN, "%s: %s", path, strerror(errno));
		return -1;
	}
	fprintf(f, "# cephfab inventory written by 'cephfab inventory "
	    "--from-ceph' from the OSD map,\n# the CRUSH tree, the mon map "
	    "and the mon's configuration database.\n[global]\n");
	fprintf(f, "key = %s\n", key_path);
	if (m->public_network[0])
		fprintf(f, "public_network = %s\n", m->public_network);
	else
		fprintf(f, "# public_network: not in the mon's configuration "
		    "database (set in a local ceph.conf?)\n");
	if (m->cluster_network[0])
		fprintf(f, "cluster_network = %s\n", m->cluster_network);
	for (i = 0; i < m->nosds; i++) {
		const struct ceph_osd *o = &m->osds[i];
		const char *name = o->host[0] ? o->host : o->meta_host;

		if (name[0] == '\0' || o->pub.family == 0)
			continue;
		for (k = 0; k < nd && strcmp(done[k], name); k++)
			;
		if (k < nd)
			continue;	/* one host, several OSDs */
		done[nd++] = name;
		fprintf(f, "\n[host %s]\n", name);
		fprintf(f, "# agent: guessed as the public address (the "
		    "agent's control port, 7470)\n");
		fprintf(f, "agent = %s\n", netaddr_str(&o->pub, a, sizeof(a)));
		fprintf(f, "public = %s\n", a);
		if (o->clus.family && !netaddr_equal(&o->clus, &o->pub))
			fprintf(f, "cluster = %s\n", netaddr_str(&o->clus, b,
			    sizeof(b)));
		if (o->domain[0])
			fprintf(f, "rack = %s\n", o->domain);
	}
	/* Mon hosts that run no OSD. */
	for (i = 0; i < m->nmons; i++) {
		for (k = 0; k < nd && strcmp(done[k], m->mons[i].name); k++)
			;
		if (k < nd)
			continue;
		done[nd++] = m->mons[i].name;
		fprintf(f, "\n[host %s]\n# a mon; its name is the mon's id, "
		    "usually the host name\n", m->mons[i].name);
		fprintf(f, "agent = %s\npublic = %s\n", netaddr_str(
		    &m->mons[i].addr, a, sizeof(a)), a);
	}
	if (f != stdout && fclose(f) != 0) {
		snprintf(err, CF_ERRLEN, "%s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}
