/* plan_state: what the planner reads from the live cluster besides the
 * OSD map: status, health, versions, where each OSD host takes
 * cluster_network from, and the heartbeat grace, see migrate.h. */
#include "migrate/migrate.h"
#include "json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void
plan_read_state(const struct ceph_opts *co, const struct ceph_map *m,
    struct plan_state *ps, double *grace)
{
	const char *a1[] = { "status", NULL }, *a2[] = { "health",
	    "detail", NULL }, *a3[] = { "versions", NULL };
	char err[CF_ERRLEN], val[128], src[32], osd[32];
	const char *a4[] = { "config", "show", osd, NULL };
	cJSON *j;
	int i;

	if (ceph_run(co, a1, &j, err) >= 0 && j)
		ceph_parse_status(j, &ps->status, err);
	cJSON_Delete(j);
	if (ceph_run(co, a2, &j, err) >= 0 && j)
		ceph_parse_health_detail(j, &ps->health, err);
	cJSON_Delete(j);
	if (ceph_run(co, a3, &j, err) >= 0 && j)
		ceph_parse_versions(j, &ps->versions, err);
	cJSON_Delete(j);
	/* Where each OSD host's OSDs take cluster_network from (one
	 * OSD per host: a ceph.conf is per host). */
	for (i = 0; i < m->nosds; i++) {
		size_t off = strlen(ps->file_hosts);
		int k;

		for (k = 0; k < i && strcmp(m->osds[k].host,
		    m->osds[i].host); k++)
			;
		if (k < i || !m->osds[i].up)
			continue;
		snprintf(osd, sizeof(osd), "osd.%d", m->osds[i].id);
		if (ceph_run(co, a4, &j, err) >= 0 && j &&
		    ceph_parse_config_show(j, "cluster_network", val,
		    sizeof(val), src, sizeof(src), err) == 1) {
			if (ps->cluster_network_source[0] == '\0' ||
			    strcmp(src, "file") == 0)
				snprintf(ps->cluster_network_source,
				    sizeof(ps->cluster_network_source),
				    "%s", src);
			if (strcmp(src, "file") == 0 && off + strlen(
			    m->osds[i].host) + 2 < sizeof(ps->file_hosts))
				snprintf(ps->file_hosts + off,
				    sizeof(ps->file_hosts) - off, "%s%s",
				    off ? "," : "", m->osds[i].host);
		}
		cJSON_Delete(j);
		j = NULL;
	}
	snprintf(osd, sizeof(osd), "osd.%d", m->nosds ? m->osds[0].id :
	    0);
	if (ceph_run(co, a4, &j, err) >= 0 && j &&
	    ceph_parse_config_show(j, "osd_heartbeat_grace", val,
	    sizeof(val), src, sizeof(src), err) == 1)
		*grace = atof(val) > 0 ? atof(val) : 20;
	cJSON_Delete(j);
}
