/* Unit tests for coordinator/ceph.c's parsers on JSON captured from the
 * lab's real Ceph 16.2.15 cluster (tests/golden/ceph) and on malformed
 * variants, each refused with the field named. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "cf_unit.h"
#include <unistd.h>

#include "ceph/ceph.h"
#include "json.h"

#define G "tests/golden/ceph/"

static struct ceph_map m;

static void
read_all(void)
{
	char err[CF_ERRLEN];
	cJSON *j;

	memset(&m, 0, sizeof(m));
	j = cf_unit_load_json(G "osd_dump.json");
	assert_int_equal(ceph_parse_osd_dump(j, &m, err), 0);
	cJSON_Delete(j);
	j = cf_unit_load_json(G "osd_tree.json");
	assert_int_equal(ceph_parse_osd_tree(j, &m, err), 0);
	cJSON_Delete(j);
	j = cf_unit_load_json(G "osd_metadata.json");
	assert_int_equal(ceph_parse_osd_metadata(j, &m, err), 0);
	cJSON_Delete(j);
	j = cf_unit_load_json(G "mon_dump.json");
	assert_int_equal(ceph_parse_mon_dump(j, &m, err), 0);
	cJSON_Delete(j);
	j = cf_unit_load_json(G "config_dump.json");
	assert_int_equal(ceph_parse_config_dump(j, &m, err), 0);
	cJSON_Delete(j);
}

static void
test_cluster(void **state)
{
	char a[NETADDR_STRLEN];
	int i;

	(void)state;
	read_all();
	assert_int_equal(m.nosds, 3);
	for (i = 0; i < 3; i++) {
		char want[32];

		assert_int_equal(m.osds[i].id, i);
		assert_true(m.osds[i].up && m.osds[i].in);
		assert_true(m.osds[i].up_from > 0);
		snprintf(want, sizeof(want), "h%d", i + 1);
		assert_string_equal(m.osds[i].host, want);
		assert_string_equal(m.osds[i].meta_host, want);
		snprintf(want, sizeof(want), "198.18.0.1%d", i + 1);
		assert_string_equal(netaddr_str(&m.osds[i].pub, a, sizeof(a)),
		    want);
		snprintf(want, sizeof(want), "198.19.0.1%d", i + 1);
		assert_string_equal(netaddr_str(&m.osds[i].clus, a, sizeof(a)),
		    want);
		/* osd metadata says the same. */
		assert_string_equal(netaddr_str(&m.osds[i].meta_back, a,
		    sizeof(a)), want);
		/* The back heartbeat follows the cluster network. */
		assert_string_equal(netaddr_str(&m.osds[i].hb_back, a,
		    sizeof(a)), want);
		snprintf(want, sizeof(want), "198.18.0.1%d", i + 1);
		assert_string_equal(netaddr_str(&m.osds[i].hb_front, a,
		    sizeof(a)), want);
	}
	assert_int_equal(m.npools, 2);
	assert_int_equal(m.pools[1].size, 3);
	assert_int_equal(m.pools[1].min_size, 2);
	assert_int_equal(m.nmons, 1);
	assert_string_equal(m.mons[0].name, "h1");
	assert_string_equal(m.cluster_network, "198.19.0.0/24");
}

static void
test_status(void **state)
{
	struct ceph_status s;
	char err[CF_ERRLEN];
	cJSON *j = cf_unit_load_json(G "status.json");

	(void)state;
	assert_int_equal(ceph_parse_status(j, &s, err), 0);
	assert_string_equal(s.health, "HEALTH_OK");
	assert_int_equal(s.num_pgs, 33);
	assert_int_equal(s.active_clean, 33);
	assert_int_equal(s.osds, 3);
	assert_int_equal(s.osds_up, 3);
	cJSON_Delete(j);
}

static void
test_more(void **state)
{
	struct ceph_pgstat ps;
	struct ceph_health h;
	struct ceph_versions v;
	struct ceph_ok_to_stop ok;
	char err[CF_ERRLEN], val[128], src[32];
	cJSON *j;

	(void)state;
	j = cf_unit_load_json(G "pg_stat.json");
	assert_int_equal(ceph_parse_pg_stat(j, &ps, err), 0);
	assert_true(ps.ready);
	assert_int_equal(ps.num_pgs, 33);
	assert_int_equal(ps.active_clean, 33);
	cJSON_Delete(j);
	j = cf_unit_load_json(G "health_detail.json");
	assert_int_equal(ceph_parse_health_detail(j, &h, err), 0);
	assert_string_equal(h.status, "HEALTH_OK");
	assert_int_equal(h.nchecks, 0);
	cJSON_Delete(j);
	j = cJSON_Parse("{\"status\": \"HEALTH_WARN\", \"checks\": "
	    "{\"OSD_SLOW_PING_TIME_BACK\": {}, \"OSDMAP_FLAGS\": {}}}");
	assert_int_equal(ceph_parse_health_detail(j, &h, err), 0);
	assert_string_equal(h.checks, "OSD_SLOW_PING_TIME_BACK,OSDMAP_FLAGS");
	cJSON_Delete(j);
	/* Where cluster_network came from: the mon's database. */
	j = cf_unit_load_json(G "config_show_osd.0.json");
	assert_int_equal(ceph_parse_config_show(j, "cluster_network", val,
	    sizeof(val), src, sizeof(src), err), 1);
	assert_string_equal(val, "198.19.0.0/24");
	assert_string_equal(src, "mon");
	assert_int_equal(ceph_parse_config_show(j, "public_network", val,
	    sizeof(val), src, sizeof(src), err), 1);
	assert_string_equal(src, "file");
	assert_int_equal(ceph_parse_config_show(j, "cluster_addr_x", val,
	    sizeof(val), src, sizeof(src), err), 0);
	cJSON_Delete(j);
	j = cf_unit_load_json(G "versions.json");
	assert_int_equal(ceph_parse_versions(j, &v, err), 0);
	assert_int_equal(v.daemons, 5);
	assert_int_equal(v.distinct, 1);
	assert_non_null(strstr(v.first, "16.2.15"));
	cJSON_Delete(j);
	j = cf_unit_load_json(G "ok-to-stop_0.json");
	assert_int_equal(ceph_parse_ok_to_stop(j, &ok, err), 0);
	assert_true(ok.ok);
	assert_int_equal(ok.nosds, 1);
	assert_int_equal(ok.num_ok_pgs, 33);
	cJSON_Delete(j);
	/* Malformed: the field named. */
	j = cJSON_Parse("{\"ok_to_stop\": \"yes\", \"osds\": []}");
	assert_int_equal(ceph_parse_ok_to_stop(j, &ok, err), -1);
	assert_non_null(strstr(err, "ok_to_stop"));
	cJSON_Delete(j);
	j = cJSON_Parse("{\"pg_summary\": {\"num_pgs\": 3, "
	    "\"num_pg_by_state\": [{\"name\": \"x\"}]}}");
	assert_int_equal(ceph_parse_pg_stat(j, &ps, err), -1);
	assert_non_null(strstr(err, "num"));
	cJSON_Delete(j);
	j = cJSON_Parse("{\"overall\": {\"v\": \"3\"}}");
	assert_int_equal(ceph_parse_versions(j, &v, err), -1);
	cJSON_Delete(j);
	j = cJSON_Parse("[{\"name\": \"a\", \"value\": 1}]");
	assert_int_equal(ceph_parse_config_show(j, "a", val, sizeof(val), src,
	    sizeof(src), err), -1);
	assert_non_null(strstr(err, "config show[0]"));
	cJSON_Delete(j);
}

static void
ping_cb(const struct ceph_ping *p, void *arg)
{
	struct ceph_ping *out = arg;

	out[out[0].from == -1 ? 0 : 1] = *p;
}

static void
count_cb(const struct ceph_ping *p, void *arg)
{
	(void)p;
	(*(int *)arg)++;
}

static void
test_osd_network(void **state)
{
	static const char *j1 = "{\"threshold\": 0, \"entries\": [{"
	    "\"last update\": \"x\", \"stale\": false, \"from osd\": 2,"
	    " \"to osd\": 0, \"interface\": \"back\", \"average\": "
	    "{\"1min\": 1.5, \"5min\": 0.9, \"15min\": 0.8}, \"min\": "
	    "{\"1min\": 0.5, \"5min\": 0.5, \"15min\": 0.5}, \"max\": "
	    "{\"1min\": 4.25, \"5min\": 4.25, \"15min\": 4.25}, "
	    "\"last\": 0.7}]}";
	struct ceph_ping got[2];
	char err[CF_ERRLEN];
	cJSON *j = cJSON_Parse(j1);

	(void)state;
	got[0].from = -1;
	assert_int_equal(ceph_parse_osd_network(j, ping_cb, got, err), 0);
	assert_int_equal(got[0].from, 2);
	assert_int_equal(got[0].to, 0);
	assert_true(got[0].back);
	assert_true(got[0].avg1 == 1.5 && got[0].max1 == 4.25);
	cJSON_Delete(j);
	/* An interface Ceph does not have, and a missing average. */
	/* The real thing, from the lab: both interfaces, both peers. */
	{
		int n = 0;

		j = cf_unit_load_json(G "dump_osd_network_osd.0.json");
		assert_int_equal(ceph_parse_osd_network(j, count_cb, &n, err),
		    0);
		assert_int_equal(n, 4);
		cJSON_Delete(j);
	}
	j = cJSON_Parse("{\"entries\": [{\"from osd\": 1, \"to osd\": 2, "
	    "\"interface\": \"side\", \"average\": {\"1min\": 1, "
	    "\"5min\": 1, \"15min\": 1}, \"max\": {\"1min\": 1}, "
	    "\"last\": 1}]}");
	assert_int_equal(ceph_parse_osd_network(j, ping_cb, got, err), -1);
	assert_non_null(strstr(err, "interface"));
	cJSON_Delete(j);
	j = cJSON_Parse("{\"entries\": [{\"from osd\": 1, \"to osd\": 2, "
	    "\"interface\": \"back\"}]}");
	assert_int_equal(ceph_parse_osd_network(j, ping_cb, got, err), -1);
	assert_non_null(strstr(err, "entries[0]"));
	cJSON_Delete(j);
}

/* pg dump pgs (the lab's, every PG active+clean at epochs 19-20) against
 * the epoch of a restart; config dump lookups by 'who'; health detail
 * messages kept for the planner's checks. */
static void
test_gates(void **state)
{
	struct ceph_pgdump d;
	struct ceph_health h;
	char err[CF_ERRLEN], val[64];
	cJSON *j = cf_unit_load_json(G "pg_dump_pgs.json");

	(void)state;
	assert_int_equal(ceph_parse_pg_dump(j, 0, &d, err), 0);
	assert_true(d.ready && d.has_ready);
	assert_int_equal(d.num_pgs, 33);
	assert_int_equal(d.active_clean, 33);
	assert_int_equal(d.fresh_clean, 33);
	assert_int_equal(d.inactive, 0);
	/* Stats older than the restart do not count. */
	assert_int_equal(ceph_parse_pg_dump(j, d.min_epoch + 1, &d, err), 0);
	assert_true(d.fresh_clean < 33 && d.active_clean == 33);
	assert_int_equal(ceph_parse_pg_dump(j, 1000, &d, err), 0);
	assert_int_equal(d.fresh_clean, 0);
	cJSON_Delete(j);
	j = cJSON_Parse("{\"pg_ready\": true, \"pg_stats\": ["
	    "{\"pgid\": \"2.0\", \"state\": \"peering\", \"reported_epoch\": \"41'7\"},"
	    "{\"pgid\": \"2.1\", \"state\": \"active+undersized\", \"reported_epoch\": 41},"
	    "{\"pgid\": \"2.2\", \"state\": \"activating\", \"reported_epoch\": 40},"
	    "{\"pgid\": \"2.3\", \"state\": \"active+clean+laggy\", \"reported_epoch\": 41}]}");
	assert_int_equal(ceph_parse_pg_dump(j, 41, &d, err), 0);
	assert_int_equal(d.fresh_clean, 0);
	assert_int_equal(d.inactive, 2);	/* 'activating' is not active */
	assert_int_equal(d.laggy, 1);
	assert_int_equal(d.min_epoch, 40);
	assert_string_equal(d.stuck, "2.0 peering");
	cJSON_Delete(j);
	j = cJSON_Parse("{\"pg_stats\": [{\"pgid\": \"2.0\", \"state\": "
	    "\"active+clean\"}]}");
	assert_int_equal(ceph_parse_pg_dump(j, 0, &d, err), -1);
	assert_non_null(strstr(err, "pg_stats[0]"));
	assert_non_null(strstr(err, "reported_epoch"));
	cJSON_Delete(j);
	j = cJSON_Parse("{\"pg_stats\": {}}");
	assert_int_equal(ceph_parse_pg_dump(j, 0, &d, err), -1);
	assert_non_null(strstr(err, "pg_stats"));
	cJSON_Delete(j);
	j = cf_unit_load_json(G "config_dump.json");
	assert_int_equal(ceph_config_lookup(j, "global", "cluster_network", val,
	    sizeof(val), err), 1);
	assert_string_equal(val, "198.19.0.0/24");
	assert_int_equal(ceph_config_lookup(j, "osd.0", "cluster_network", val,
	    sizeof(val), err), 0);
	cJSON_Delete(j);
	j = cJSON_Parse("[{\"section\": \"osd\", \"name\": \"cluster_network\", "
	    "\"value\": \"198.20.0.0/24\", \"mask\": \"host:h2\"}, "
	    "{\"section\": \"osd.3\", \"name\": \"cluster_network\", "
	    "\"value\": \"198.20.0.0/24\", \"mask\": \"\"}]");
	assert_int_equal(ceph_config_lookup(j, "osd/host:h2", "cluster_network",
	    val, sizeof(val), err), 1);
	assert_int_equal(ceph_config_lookup(j, "osd.3", "cluster_network",
	    val, sizeof(val), err), 1);
	assert_int_equal(ceph_config_lookup(j, "osd", "cluster_network",
	    val, sizeof(val), err), 0);
	cJSON_Delete(j);
	j = cJSON_Parse("[{\"section\": \"osd.3\", \"value\": \"x\"}]");
	assert_int_equal(ceph_config_lookup(j, "osd.3", "cluster_network",
	    val, sizeof(val), err), -1);
	assert_non_null(strstr(err, "config dump[0]"));
	cJSON_Delete(j);
	j = cJSON_Parse("{\"status\": \"HEALTH_WARN\", \"checks\": {"
	    "\"OSD_SLOW_PING_TIME_BACK\": {\"severity\": \"HEALTH_WARN\", "
	    "\"summary\": {\"message\": \"Slow OSD heartbeats on back "
	    "(longest 1520.3ms)\"}, \"detail\": [{\"message\": \"Slow OSD "
	    "heartbeats on back from osd.1 [] to osd.2 [] 1520.3 msec\"}]},"
	    "\"PG_AVAILABILITY\": {\"summary\": {\"message\": \"Reduced "
	    "data availability: 16 pgs peering\"}, \"detail\": []}}}");
	assert_int_equal(ceph_parse_health_detail(j, &h, err), 0);
	assert_int_equal(h.nchecks, 2);
	assert_non_null(strstr(h.text, "OSD_SLOW_PING_TIME_BACK: Slow OSD "
	    "heartbeats on back from osd.1 [] to osd.2"));
	assert_non_null(strstr(h.text, "PG_AVAILABILITY: Reduced data"));
	cJSON_Delete(j);
}

static void
test_inventory(void **state)
{
	char err[CF_ERRLEN], path[] = "/tmp/cf-ceph-inv.XXXXXX";
	struct inventory inv;
	struct inv_host *h;
	int fd = mkstemp(path), n = 0;

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	read_all();
	assert_int_equal(ceph_write_inventory(&m, path, "/etc/cephfab/key",
	    err), 0);
	/* What it writes, the normal parser reads. */
	if (inventory_load(path, &inv, err) == -1)
		fail_msg("%s", err);
	TAILQ_FOREACH(h, &inv.hosts, entry)
		n++;
	assert_int_equal(n, 3);
	assert_non_null(inventory_find(&inv, "h2"));
	inventory_free(&inv);
	unlink(path);
}

static void
test_malformed(void **state)
{
	static const struct { const char *json, *needle; int which; } bad[] = {
		{ "{\"osds\": 5, \"pools\": []}", "osds", 0 },
		{ "{\"osds\": [{\"osd\": 0, \"up\": 1, \"in\": 1, \"up_from\": 5,"
		    " \"public_addrs\": {\"addrvec\": [{\"type\": \"v2\","
		    " \"addr\": \"nonsense\"}]}, \"cluster_addrs\": {}}],"
		    " \"pools\": []}", "addr", 0 },
		{ "{\"osds\": [{\"osd\": 0, \"up\": 1, \"in\": 1}],"
		    " \"pools\": []}", "up_from", 0 },
		{ "{\"osds\": [], \"pools\": [{\"pool_name\": \"x\","
		    " \"size\": 0, \"min_size\": 1}]}", "size", 0 },
		{ "{\"nodes\": [{\"type\": \"host\", \"name\": \"a\"}]}", "id",
		    1 },
		{ "{\"nodes\": [{\"id\": -2, \"type\": \"host\", \"name\": "
		    "\"a\", \"children\": [\"x\"]}]}", "children", 1 },
		{ "{\"id\": 0}", "not an array", 2 },
		{ "[{\"id\": 0}]", "hostname", 2 },
		{ "[{\"id\": 0, \"hostname\": \"h\", \"back_addr\": "
		    "\"[v2:zz]\"}]", "back_addr", 2 },
		{ "{\"mons\": []}", "mons", 3 },
		{ "[{\"section\": \"global\", \"name\": 5}]", "name", 4 },
		{ "{\"pgmap\": {}}", "health", 5 },
		{ "{\"health\": {\"status\": \"HEALTH_OK\"}, \"pgmap\": "
		    "{\"num_pgs\": 1, \"pgs_by_state\": [{\"state_name\": "
		    "\"x\"}]}, \"osdmap\": {}}", "count", 5 },
	};
	struct ceph_status s;
	char err[CF_ERRLEN];
	size_t i;
	int rc;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		cJSON *j = cJSON_Parse(bad[i].json);

		assert_non_null(j);
		memset(&m, 0, sizeof(m));
		err[0] = '\0';
		switch (bad[i].which) {
		case 0: rc = ceph_parse_osd_dump(j, &m, err); break;
		case 1: rc = ceph_parse_osd_tree(j, &m, err); break;
		case 2: rc = ceph_parse_osd_metadata(j, &m, err); break;
		case 3: rc = ceph_parse_mon_dump(j, &m, err); break;
		case 4: rc = ceph_parse_config_dump(j, &m, err); break;
		default: rc = ceph_parse_status(j, &s, err); break;
		}
		if (rc != -1 || strstr(err, bad[i].needle) == NULL)
			fail_msg("case %zu: rc %d, err '%s'", i, rc, err);
		cJSON_Delete(j);
	}
}

CF_UNIT_MAIN(NULL, NULL,
    cmocka_unit_test(test_cluster), cmocka_unit_test(test_status),
    cmocka_unit_test(test_more), cmocka_unit_test(test_osd_network),
    cmocka_unit_test(test_inventory), cmocka_unit_test(test_gates),
    cmocka_unit_test(test_malformed))
