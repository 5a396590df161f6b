/*
 * report_ceph: Ceph's own heartbeat ping times beside the run's cells and
 * findings (the stored "ceph" "heartbeats" cell, cephfab ceph-heartbeats).
 */
#include "report/report_int.h"
#include "json.h"

#include <stdio.h>
#include <string.h>

/* report_ceph_join: Ceph's heartbeat matrix (back for the cluster network,
 * front for the public) beside each measured pair, as ceph_ping_ms; a
 * high_latency finding on a pair Ceph also sees slow carries both. */
void
report_ceph_join(const cJSON *c, void *arg)
{
	cJSON *doc = arg, *nj, *cell, *f;
	const cJSON *data, *hc, *itf;
	char err[CF_ERRLEN];
	int k;

	if (json_get_obj(c, "data", &data, err) == -1 ||
	    json_get_obj(data, "interfaces", &itf, err) == -1)
		return;
	cJSON_AddItemToObject(doc, "ceph_heartbeats", cJSON_Duplicate(data,
	    1));
	for (k = 0; k < 2; k++) {
		const cJSON *cells = cJSON_GetObjectItem(cJSON_GetObjectItem(
		    itf, k ? "back" : "front"), "cells");

		nj = cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "networks"),
		    k ? "cluster" : "public");
		cJSON_ArrayForEach(cell, cJSON_GetObjectItem(nj, "cells")) {
			const char *s, *d, *hs, *hd;
			double v;

			if (json_get_str(cell, "src", 0, 64, &s, err) == -1 ||
			    json_get_str(cell, "dst", 0, 64, &d, err) == -1)
				continue;
			cJSON_ArrayForEach(hc, cells)
				if (json_get_str(hc, "src", 0, 64, &hs, err) == 0 &&
				    json_get_str(hc, "dst", 0, 64, &hd, err) ==
				    0 && strcmp(hs, s) == 0 && strcmp(hd, d) ==
				    0 && json_get_double(hc, "avg_1min_ms", 0,
				    1e9, &v, err) == 0)
					cJSON_AddNumberToObject(cell,
					    "ceph_ping_ms", v);
		}
		cJSON_ArrayForEach(f, cJSON_GetObjectItem(doc, "findings")) {
			const char *kind, *net, *a, *b, *hs, *hd;
			const cJSON *hosts = cJSON_GetObjectItem(f, "hosts");
			double v, worst = 0;
			char msg[700];

			if (json_get_str(f, "kind", 0, 32, &kind, err) == -1 ||
			    strcmp(kind, "high_latency") != 0 ||
			    json_get_str(f, "network", 0, 16, &net, err) == -1 ||
			    strcmp(net, k ? "cluster" : "public") != 0 ||
			    cJSON_GetArraySize(hosts) != 2)
				continue;
			a = cJSON_GetArrayItem(hosts, 0)->valuestring;
			b = cJSON_GetArrayItem(hosts, 1)->valuestring;
			cJSON_ArrayForEach(hc, cells)
				if (json_get_str(hc, "src", 0, 64, &hs, err) == 0 &&
				    json_get_str(hc, "dst", 0, 64, &hd, err) ==
				    0 && ((strcmp(hs, a) == 0 && strcmp(hd,
				    b) == 0) || (strcmp(hs, b) == 0 &&
				    strcmp(hd, a) == 0)) && json_get_double(hc,
				    "avg_1min_ms", 0, 1e9, &v, err) == 0 &&
				    v > worst)
					worst = v;
			if (worst <= 0)
				continue;
			cJSON_AddNumberToObject(cJSON_GetObjectItem(f,
			    "evidence"), "ceph_ping_ms", worst);
			snprintf(msg, sizeof(msg), "%s; Ceph's own heartbeats "
			    "on this pair: %.2f ms", cJSON_GetObjectItem(f,
			    "summary")->valuestring, worst);
			cJSON_ReplaceItemInObject(f, "summary",
			    cJSON_CreateString(msg));
		}
	}
}
