/* libFuzzer harness: every Ceph JSON parser on the same arbitrary JSON. */
#include "fuzz.h"
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ceph/ceph.h"
#include "json.h"

static void
ping_cb(const struct ceph_ping *p, void *arg)
{
	(void)p;
	(*(int *)arg)++;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct ceph_map m;
	struct ceph_status s;
	struct ceph_pgstat ps;
	struct ceph_health h;
	struct ceph_versions v;
	struct ceph_ok_to_stop ok;
	struct ceph_pgdump pd;
	char err[CF_ERRLEN], val[64], src[16];
	cJSON *j = cJSON_ParseWithLength((const char *)data, size);
	int n = 0;

	if (j == NULL)
		return 0;
	memset(&m, 0, sizeof(m));
	ceph_parse_osd_dump(j, &m, err);
	ceph_parse_osd_tree(j, &m, err);
	ceph_parse_osd_metadata(j, &m, err);
	ceph_parse_mon_dump(j, &m, err);
	ceph_parse_config_dump(j, &m, err);
	ceph_parse_status(j, &s, err);
	ceph_parse_pg_stat(j, &ps, err);
	ceph_parse_health_detail(j, &h, err);
	ceph_parse_config_show(j, "cluster_network", val, sizeof(val), src,
	    sizeof(src), err);
	ceph_parse_versions(j, &v, err);
	ceph_parse_ok_to_stop(j, &ok, err);
	ceph_parse_osd_network(j, ping_cb, &n, err);
	ceph_parse_pg_dump(j, 20, &pd, err);
	ceph_config_lookup(j, "osd.0", "cluster_network", val, sizeof(val),
	    err);
	if (m.nosds > CEPH_MAX_OSDS || m.npools > 64 || m.nmons > 16)
		__builtin_trap();
	cJSON_Delete(j);
	return 0;
}
