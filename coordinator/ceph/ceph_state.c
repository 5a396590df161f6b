/* ceph_state: the cluster's state as the planner's and migrate's gates read it:
 * PGs, status, health, versions, a daemon's config, ok-to-stop and the
 * OSDs' heartbeat ping times, see ceph.h. */
#include "ceph/ceph.h"
#include "text.h"
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

/* pg_epoch: a PG's reported_epoch, a number (Pacific) or "E'V". */
static int
pg_epoch(const cJSON *pg, uint32_t *out, char *err)
{
	const cJSON *e = cJSON_GetObjectItemCaseSensitive(pg,
	    "reported_epoch");
	double v;

	if (cJSON_IsNumber(e))
		v = e->valuedouble;
	else if (cJSON_IsString(e))
		v = strtod(e->valuestring, NULL);
	else {
		snprintf(err, CF_ERRLEN, "reported_epoch: missing or not a "
		    "number");
		return -1;
	}
	if (!(v >= 0 && v <= 4294967295.0)) {
		snprintf(err, CF_ERRLEN, "reported_epoch: out of range");
		return -1;
	}
	*out = (uint32_t)v;
	return 0;
}

int
ceph_parse_pg_dump(const cJSON *j, uint32_t epoch, struct ceph_pgdump *d,
    char *err)
{
	const cJSON *pgs, *pg;
	int i = 0;

	memset(d, 0, sizeof(*d));
	d->min_epoch = UINT32_MAX;
	/* 'pg dump pgs' is {pg_ready, pg_stats[]}; older CLIs print the
	 * bare array. */
	if (cJSON_IsArray(j))
		pgs = j;
	else if (json_opt_bool(j, "pg_ready", false, &d->ready, err) == -1 ||
	    json_get_arr(j, "pg_stats", 0, 1 << 24, &pgs, NULL, err) == -1) {
		ceph_prefix_err(err, "pg dump");
		return -1;
	} else
		d->has_ready = cJSON_GetObjectItem(j, "pg_ready") != NULL;
	cJSON_ArrayForEach(pg, pgs) {
		const char *st, *id;
		uint32_t e;

		if (json_get_str(pg, "pgid", 1, 64, &id, err) == -1 ||
		    json_get_str(pg, "state", 1, 256, &st, err) == -1 ||
		    pg_epoch(pg, &e, err) == -1) {
			char ctx[48];

			snprintf(ctx, sizeof(ctx), "pg dump: pg_stats[%d]", i);
			ceph_prefix_err(err, ctx);
			return -1;
		}
		i++;
		d->num_pgs++;
		if (e < d->min_epoch)
			d->min_epoch = e;
		if (strcmp(st, "active+clean") == 0) {
			d->active_clean++;
			if (e >= epoch)
				d->fresh_clean++;
			continue;
		}
		if (strstr(st, "laggy") || strstr(st, "+wait"))
			d->laggy++;
		/* 'active' as a whole word of the state. */
		if (strncmp(st, "active", 6) != 0 || (st[6] && st[6] != '+'))
			d->inactive++;
		if (d->stuck[0] == '\0')
			snprintf(d->stuck, sizeof(d->stuck), "%s %s", id, st);
	}
	if (d->num_pgs == 0)
		d->min_epoch = 0;
	return 0;
}

/* active_clean adds the PGs counted as active+clean in a list of
 * {name: state, count: n} (the keys differ between commands). */
static int
active_clean(const cJSON *arr, const char *namek, const char *countk,
    const char *what, int *out, char *err)
{
	const cJSON *st;
	double v;

	cJSON_ArrayForEach(st, arr) {
		const char *name;

		if (json_get_str(st, namek, 1, 256, &name, err) == -1 ||
		    json_get_double(st, countk, 0, 1e9, &v, err) == -1) {
			ceph_prefix_err(err, what);
			return -1;
		}
		if (strcmp(name, "active+clean") == 0)
			*out += (int)v;
	}
	return 0;
}

int
ceph_parse_status(const cJSON *j, struct ceph_status *s, char *err)
{
	const cJSON *h, *pg, *om;
	double v;

	memset(s, 0, sizeof(*s));
	if (json_get_obj(j, "health", &h, err) == -1 ||
	    json_get_strcpy(h, "status", 1, s->health, sizeof(s->health),
	    err) == -1 ||
	    json_get_obj(j, "pgmap", &pg, err) == -1 ||
	    json_get_double(pg, "num_pgs", 0, 1e9, &v, err) == -1 ||
	    json_get_obj(j, "osdmap", &om, err) == -1) {
		ceph_prefix_err(err, "status");
		return -1;
	}
	s->num_pgs = (int)v;
	/* Ceph 16 nests the counts one level deeper than 17+. */
	if (cJSON_GetObjectItem(om, "osdmap"))
		om = cJSON_GetObjectItem(om, "osdmap");
	if (json_get_double(om, "num_osds", 0, 1e6, &v, err) == 0)
		s->osds = (int)v;
	if (json_get_double(om, "num_up_osds", 0, 1e6, &v, err) == 0)
		s->osds_up = (int)v;
	if (json_get_double(om, "num_in_osds", 0, 1e6, &v, err) == 0)
		s->osds_in = (int)v;
	return active_clean(cJSON_GetObjectItem(pg, "pgs_by_state"),
	    "state_name", "count", "status: pgmap.pgs_by_state",
	    &s->active_clean, err);
}

int
ceph_parse_pg_stat(const cJSON *j, struct ceph_pgstat *s, char *err)
{
	const cJSON *sum;
	double v;

	memset(s, 0, sizeof(*s));
	if (json_opt_bool(j, "pg_ready", false, &s->ready, err) == -1 ||
	    json_get_obj(j, "pg_summary", &sum, err) == -1 ||
	    json_get_double(sum, "num_pgs", 0, 1e9, &v, err) == -1) {
		ceph_prefix_err(err, "pg stat");
		return -1;
	}
	s->num_pgs = (int)v;
	return active_clean(cJSON_GetObjectItem(sum, "num_pg_by_state"),
	    "name", "num", "pg stat: num_pg_by_state", &s->active_clean, err);
}

/* health_text appends a check's summary and detail messages, one per
 * line ("NAME: message"), as far as they fit. */
static void
health_text(struct ceph_health *h, const cJSON *c)
{
	const cJSON *sm = cJSON_GetObjectItem(cJSON_GetObjectItem(c, "summary"),
	    "message"), *d;
	size_t off = strlen(h->text);

	if (cJSON_IsString(sm) && off + 8 < sizeof(h->text))
		off = text_appendf(h->text, sizeof(h->text), off,
		    "%s: %s\n", c->string, sm->valuestring);
	cJSON_ArrayForEach(d, cJSON_GetObjectItem(c, "detail")) {
		const cJSON *m = cJSON_GetObjectItem(d, "message");

		if (cJSON_IsString(m) && off + 8 < sizeof(h->text))
			off = text_appendf(h->text, sizeof(h->text), off,
			    "%s: %s\n", c->string,
			    m->valuestring);
	}
	if (off >= sizeof(h->text))
		h->text[sizeof(h->text) - 1] = '\0';
}

int
ceph_parse_health_detail(const cJSON *j, struct ceph_health *h, char *err)
{
	const cJSON *checks, *c;
	size_t off = 0;

	memset(h, 0, sizeof(*h));
	if (json_get_strcpy(j, "status", 1, h->status, sizeof(h->status),
	    err) == -1 || json_get_obj(j, "checks", &checks, err) == -1) {
		ceph_prefix_err(err, "health detail");
		return -1;
	}
	cJSON_ArrayForEach(c, checks) {
		if (!cJSON_IsObject(c) || c->string == NULL) {
			snprintf(err, CF_ERRLEN, "health detail: checks: not "
			    "an object of checks");
			return -1;
		}
		h->nchecks++;
		health_text(h, c);
		if (h->nchecks <= 16 && off + strlen(c->string) + 2 <
		    sizeof(h->checks))
			off = text_appendf(h->checks, sizeof(h->checks), off,
			    "%s%s", off ? "," : "",
			    c->string);
	}
	return 0;
}

int
ceph_parse_config_show(const cJSON *j, const char *name, char *value,
    size_t vlen, char *source, size_t slen, char *err)
{
	const cJSON *e;
	int i = 0;

	if (json_is_array(j, "config show", err) == -1)
		return -1;
	cJSON_ArrayForEach(e, j) {
		const char *n, *v, *src;

		if (json_get_str(e, "name", 1, 256, &n, err) == -1 ||
		    json_get_str(e, "value", 0, 65536, &v, err) == -1 ||
		    json_get_str(e, "source", 0, 64, &src, err) == -1) {
			char ctx[48];

			snprintf(ctx, sizeof(ctx), "config show[%d]", i);
			ceph_prefix_err(err, ctx);
			return -1;
		}
		i++;
		if (strcmp(n, name) != 0)
			continue;
		snprintf(value, vlen, "%s", v);
		snprintf(source, slen, "%s", src);
		return 1;
	}
	return 0;
}

int
ceph_parse_versions(const cJSON *j, struct ceph_versions *v, char *err)
{
	const cJSON *all, *e;

	memset(v, 0, sizeof(*v));
	if (json_get_obj(j, "overall", &all, err) == -1) {
		ceph_prefix_err(err, "versions");
		return -1;
	}
	cJSON_ArrayForEach(e, all) {
		if (!cJSON_IsNumber(e) || e->string == NULL) {
			snprintf(err, CF_ERRLEN, "versions: overall: not "
			    "counts");
			return -1;
		}
		if (v->distinct++ == 0)
			snprintf(v->first, sizeof(v->first), "%s", e->string);
		v->daemons += e->valueint;
	}
	return 0;
}

int
ceph_parse_ok_to_stop(const cJSON *j, struct ceph_ok_to_stop *o, char *err)
{
	const cJSON *osds;
	double v;

	memset(o, 0, sizeof(*o));
	if (json_get_bool(j, "ok_to_stop", &o->ok, err) == -1 ||
	    json_get_arr(j, "osds", 0, CEPH_MAX_OSDS, &osds, &o->nosds,
	    err) == -1) {
		ceph_prefix_err(err, "osd ok-to-stop");
		return -1;
	}
	if (json_get_double(j, "num_ok_pgs", 0, 1e9, &v, err) == 0)
		o->num_ok_pgs = (int)v;
	if (json_get_double(j, "num_not_ok_pgs", 0, 1e9, &v, err) == 0)
		o->num_not_ok_pgs = (int)v;
	return 0;
}

int
ceph_parse_osd_network(const cJSON *j,
    void (*cb)(const struct ceph_ping *, void *), void *arg, char *err)
{
	const cJSON *arr, *e, *o;
	int i = 0;

	if (json_get_arr(j, "entries", 0, 1000000, &arr, NULL, err) == -1) {
		ceph_prefix_err(err, "dump_osd_network");
		return -1;
	}
	cJSON_ArrayForEach(e, arr) {
		struct ceph_ping p;
		const char *itf;
		uint32_t from, to;
		char ctx[48];

		memset(&p, 0, sizeof(p));
		snprintf(ctx, sizeof(ctx), "dump_osd_network: entries[%d]",
		    i++);
		if (json_get_u32(e, "from osd", 0, 1000000, &from, err) == -1 ||
		    json_get_u32(e, "to osd", 0, 1000000, &to, err) == -1 ||
		    json_get_str(e, "interface", 4, 5, &itf, err) == -1 ||
		    json_get_obj(e, "average", &o, err) == -1 ||
		    json_get_double(o, "1min", 0, 1e9, &p.avg1, err) == -1 ||
		    json_get_double(o, "5min", 0, 1e9, &p.avg5, err) == -1 ||
		    json_get_double(o, "15min", 0, 1e9, &p.avg15, err) == -1 ||
		    json_get_obj(e, "max", &o, err) == -1 ||
		    json_get_double(o, "1min", 0, 1e9, &p.max1, err) == -1 ||
		    json_get_double(e, "last", 0, 1e9, &p.last, err) == -1) {
			ceph_prefix_err(err, ctx);
			return -1;
		}
		if (strcmp(itf, "back") != 0 && strcmp(itf, "front") != 0) {
			snprintf(err, CF_ERRLEN, "%s: field 'interface': '%s' "
			    "is not back or front", ctx, itf);
			return -1;
		}
		p.from = (int)from;
		p.to = (int)to;
		p.back = strcmp(itf, "back") == 0;
		cb(&p, arg);
	}
	return 0;
}
