/*
 * ceph_heartbeats: Ceph's own view of the network: every up OSD's
 * heartbeat ping times (dump_osd_network) folded into host pairs per
 * interface (back: cluster network, front: public) and the
 * OSD_SLOW_PING_TIME health checks, see ceph.h.
 */
#include "ceph/ceph.h"
#include "core/core.h"
#include "json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HB_HOSTS 256

struct hb {
	const struct ceph_map *m;
	char host[HB_HOSTS][CEPH_NAME_MAX];
	int nh;
	double avg[2][HB_HOSTS * HB_HOSTS], mx[2][HB_HOSTS * HB_HOSTS];
	int n[2][HB_HOSTS * HB_HOSTS];
};

static int
hb_host(struct hb *b, int osd)
{
	int i, k;

	for (i = 0; i < b->m->nosds; i++) {
		const char *h;

		if (b->m->osds[i].id != osd)
			continue;
		h = b->m->osds[i].host[0] ? b->m->osds[i].host :
		    b->m->osds[i].meta_host;
		for (k = 0; k < b->nh && strcmp(b->host[k], h); k++)
			;
		if (k == b->nh) {
			if (b->nh == HB_HOSTS)
				return -1;
			snprintf(b->host[b->nh++], CEPH_NAME_MAX, "%s", h);
		}
		return k;
	}
	return -1;
}

static void
hb_cb(const struct ceph_ping *p, void *arg)
{
	struct hb *b = arg;
	int a = hb_host(b, p->from), c = hb_host(b, p->to), k;

	if (a < 0 || c < 0 || a == c)
		return;
	/* Host pairs: the slowest OSD pair between them stands. */
	k = a * HB_HOSTS + c;
	if (p->avg1 > b->avg[p->back][k])
		b->avg[p->back][k] = p->avg1;
	if (p->max1 > b->mx[p->back][k])
		b->mx[p->back][k] = p->max1;
	b->n[p->back][k]++;
}

/* hb_order: the hosts in name order, whatever order the pings come in. */
static void
hb_order(struct hb *b, const struct ceph_map *m)
{
	int order[CEPH_MAX_OSDS], n = 0, x, y, i;

	for (i = 0; i < m->nosds && n < CEPH_MAX_OSDS; i++)
		order[n++] = i;
	for (x = 1; x < n; x++)
		for (y = x; y > 0 && strcmp(m->osds[order[y - 1]].host,
		    m->osds[order[y]].host) > 0; y--) {
			int t = order[y];

			order[y] = order[y - 1];
			order[y - 1] = t;
		}
	for (x = 0; x < n; x++)
		hb_host(b, m->osds[order[x]].id);
}

/* hb_collect asks every up OSD; EXIT_PROBLEMS when one did not answer. */
static int
hb_collect(const struct ceph_opts *co, struct hb *b, int *asked, int *got)
{
	const struct ceph_map *m = b->m;
	char err[CF_ERRLEN], osd[32];
	cJSON *j;
	int i, rc = EXIT_PASS;

	for (i = 0; i < m->nosds; i++) {
		const char *args[] = { "tell", osd, "dump_osd_network", "0",
		    NULL };

		if (!m->osds[i].up)
			continue;
		hb_host(b, m->osds[i].id);
		snprintf(osd, sizeof(osd), "osd.%d", m->osds[i].id);
		(*asked)++;
		if (ceph_run(co, args, &j, err) == -1 ||
		    ceph_parse_osd_network(j, hb_cb, b, err) == -1) {
			fprintf(stderr, "cephfab: ceph-heartbeats: %s: %s\n", osd,
			    err);
			rc = EXIT_PROBLEMS;
		} else {
			(*got)++;
		}
		cJSON_Delete(j);
	}
	return rc;
}

/* hb_interface: one interface's hosts and cells into o. */
static void
hb_interface(const struct hb *b, int itf, cJSON *o)
{
	cJSON *hs = cJSON_AddArrayToObject(o, "hosts");
	cJSON *cells = cJSON_AddArrayToObject(o, "cells");
	int i, k;

	for (i = 0; i < b->nh; i++)
		cJSON_AddItemToArray(hs, cJSON_CreateString(b->host[i]));
	for (i = 0; i < b->nh; i++)
		for (k = 0; k < b->nh; k++) {
			int x = i * HB_HOSTS + k;
			cJSON *c;

			if (i == k || b->n[itf][x] == 0)
				continue;
			c = cJSON_CreateObject();
			cJSON_AddStringToObject(c, "src", b->host[i]);
			cJSON_AddStringToObject(c, "dst", b->host[k]);
			cJSON_AddNumberToObject(c, "avg_1min_ms", b->avg[itf][x]);
			cJSON_AddNumberToObject(c, "max_1min_ms", b->mx[itf][x]);
			cJSON_AddItemToArray(cells, c);
		}
}

/* hb_print: one interface as a table, row pings column. */
static void
hb_print(const struct hb *b, int itf)
{
	int i, k;

	printf("%s (%s network): heartbeat ping, 1-minute average ms, "
	    "row pings column\n%10s", itf ? "back" : "front", itf ?
	    "cluster" : "public", "");
	for (k = 0; k < b->nh; k++)
		printf(" %9.9s", b->host[k]);
	printf("\n");
	for (i = 0; i < b->nh; i++) {
		printf("%-10.10s", b->host[i]);
		for (k = 0; k < b->nh; k++) {
			int x = i * HB_HOSTS + k;

			if (i == k)
				printf(" %9s", "-");
			else if (b->n[itf][x] == 0)
				printf(" %9s", "?");
			else
				printf(" %9.3f", b->avg[itf][x]);
		}
		printf("\n");
	}
	printf("\n");
}

/* hb_slow_checks: the OSD_SLOW_PING_TIME checks among hd's into arr. */
static void
hb_slow_checks(const struct ceph_health *hd, cJSON *arr)
{
	char t[sizeof(hd->checks)], *tok, *save = NULL;

	snprintf(t, sizeof(t), "%s", hd->checks);
	for (tok = strtok_r(t, ",", &save); tok;
	    tok = strtok_r(NULL, ",", &save))
		if (strncmp(tok, "OSD_SLOW_PING_TIME", 18) == 0)
			cJSON_AddItemToArray(arr, cJSON_CreateString(tok));
}

int
ceph_heartbeats_run(const struct ceph_opts *co, bool json)
{
	struct ceph_map *m = calloc(1, sizeof(*m));
	struct hb *b = calloc(1, sizeof(*b));
	struct ceph_health hd;
	char err[CF_ERRLEN];
	const char *hargs[] = { "health", "detail", NULL };
	cJSON *doc, *j, *itfs;
	int itf, rc, asked = 0, got = 0;

	if (m == NULL || b == NULL) {
		free(m);
		free(b);
		return EXIT_RUNTIME;
	}
	if (ceph_read_cluster(co, m, err) == -1) {
		fprintf(stderr, "cephfab: ceph-heartbeats: %s\n", err);
		free(m);
		free(b);
		return EXIT_RUNTIME;
	}
	b->m = m;
	hb_order(b, m);
	rc = hb_collect(co, b, &asked, &got);
	memset(&hd, 0, sizeof(hd));
	if (ceph_run(co, hargs, &j, err) == -1 ||
	    ceph_parse_health_detail(j, &hd, err) == -1)
		fprintf(stderr, "cephfab: ceph-heartbeats: %s\n", err);
	cJSON_Delete(j);
	doc = cJSON_CreateObject();
	cJSON_AddNumberToObject(doc, "osds_asked", asked);
	cJSON_AddNumberToObject(doc, "osds_answered", got);
	cJSON_AddStringToObject(doc, "health", hd.status);
	j = cJSON_AddArrayToObject(doc, "slow_ping_checks");
	hb_slow_checks(&hd, j);
	itfs = cJSON_AddObjectToObject(doc, "interfaces");
	for (itf = 1; itf >= 0; itf--) {
		hb_interface(b, itf, cJSON_AddObjectToObject(itfs, itf ?
		    "back" : "front"));
		if (!json)
			hb_print(b, itf);
	}
	if (json)
		out_json(doc);
	else
		printf("health %s%s%s\n", hd.status,
		    cJSON_GetArraySize(j) ? ", slow ping checks: " : "",
		    cJSON_GetArraySize(j) ? hd.checks : "");
	if (cJSON_GetArraySize(j))
		rc = EXIT_PROBLEMS;
	cJSON_Delete(doc);
	free(m);
	free(b);
	return got == 0 && asked > 0 ? EXIT_RUNTIME : rc;
}
