/* Unit tests for coordinator/plan.c and plan_script.c on the lab
 * cluster's captured OSD map: the preflight's findings, the plan's steps
 * and gates per batch, and the script (which bash must accept). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "cf_unit.h"

#include "migrate/migrate.h"
#include "migrate/migrate_int.h"
#include "json.h"

#define G "tests/golden/ceph/"

static struct ceph_map m;
static struct plan_state st;
static struct plan_opts po;

static int
setup(void **state)
{
	char err[CF_ERRLEN];
	cJSON *j;
	int i;

	(void)state;
	/* The lab cluster's map as the planner reads it: the OSDs, their
	 * hosts and the mon's configuration. */
	memset(&m, 0, sizeof(m));
	for (i = 0; i < 3; i++) {
		static const char *const files[] = { G "osd_dump.json",
		    G "osd_tree.json", G "config_dump.json" };

		j = cf_unit_load_json(files[i]);
		assert_int_equal(i == 0 ? ceph_parse_osd_dump(j, &m, err) :
		    i == 1 ? ceph_parse_osd_tree(j, &m, err) :
		    ceph_parse_config_dump(j, &m, err), 0);
		cJSON_Delete(j);
	}
	/* A healthy cluster whose hosts all have a new address. */
	memset(&st, 0, sizeof(st));
	st.status.num_pgs = st.status.active_clean = 33;
	snprintf(st.health.status, sizeof(st.health.status), "HEALTH_OK");
	st.versions.distinct = 1;
	snprintf(st.cluster_network_source, sizeof(st.cluster_network_source),
	    "mon");
	for (i = 0; i < 3; i++) {
		char a[32];

		snprintf(st.hosts[i].host, CEPH_NAME_MAX, "h%d", i + 1);
		snprintf(a, sizeof(a), "198.19.0.1%d", i + 1);
		netaddr_parse(a, &st.hosts[i].addr[0]);
		snprintf(a, sizeof(a), "198.20.0.1%d", i + 1);
		netaddr_parse(a, &st.hosts[i].addr[1]);
		st.hosts[i].naddr = 2;
		st.hosts[i].known = true;
	}
	st.nhosts = 3;
	memset(&po, 0, sizeof(po));
	netcidr_parse("198.20.0.0/24", &po.new_net);
	po.batch = 1;
	po.grace = 20;
	return 0;
}

static const cJSON *
kind(const cJSON *fs, const char *k)
{
	const cJSON *f;

	cJSON_ArrayForEach(f, fs)
		if (strcmp(cJSON_GetObjectItem(f, "kind")->valuestring, k) == 0)
			return f;
	return NULL;
}

static void
test_preflight(void **state)
{
	cJSON *fs = cJSON_CreateArray();
	const cJSON *f;

	(void)state;
	setup(NULL);
	assert_int_equal(plan_preflight(&m, &st, &po, fs), 0);
	assert_int_equal(cJSON_GetArraySize(fs), 0);
	cJSON_Delete(fs);
	/* h2 without a new address, PGs not clean, an OSD down, the
	 * network in a local file, slow ops: five blocking findings. */
	st.hosts[1].naddr = 1;
	st.status.active_clean = 30;
	m.osds[2].up = false;
	snprintf(st.cluster_network_source, sizeof(st.cluster_network_source),
	    "file");
	snprintf(st.file_hosts, sizeof(st.file_hosts), "h1,h3");
	snprintf(st.health.checks, sizeof(st.health.checks), "SLOW_OPS");
	fs = cJSON_CreateArray();
	assert_int_equal(plan_preflight(&m, &st, &po, fs), 5);
	f = kind(fs, "no_new_address");
	assert_non_null(f);
	assert_string_equal(cJSON_GetArrayItem(cJSON_GetObjectItem(f, "hosts"),
	    0)->valuestring, "h2");
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(f, "hosts")),
	    1);
	assert_non_null(strstr(cJSON_GetObjectItem(kind(fs, "osd_down"),
	    "summary")->valuestring, "osd.2"));
	assert_non_null(kind(fs, "cluster_not_clean"));
	f = kind(fs, "cluster_network_in_file");
	assert_non_null(f);
	/* Which files to edit: the hosts named. */
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(f, "hosts")),
	    2);
	assert_string_equal(cJSON_GetArrayItem(cJSON_GetObjectItem(f, "hosts"),
	    1)->valuestring, "h3");
	assert_non_null(strstr(cJSON_GetObjectItem(f, "summary")->valuestring,
	    "ceph.conf on h1,h3"));
	assert_non_null(kind(fs, "slow_ops"));
	cJSON_Delete(fs);
}

static void
test_plan_steps(void **state)
{
	char err[CF_ERRLEN];
	cJSON *p;
	const cJSON *s, *g;
	int restarts = 0, moved = 0;

	(void)state;
	setup(NULL);
	p = plan_build(&m, &po, err);
	assert_non_null(p);
	/* noout, five steps per host, the global setting, unset noout. */
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(p, "steps")),
	    1 + 3 * 5 + 2);
	assert_string_equal(cJSON_GetObjectItem(p, "from")->valuestring,
	    "198.19.0.0/24");
	assert_string_equal(cJSON_GetObjectItem(p, "to")->valuestring,
	    "198.20.0.0/24");
	/* Settle: never under twice the heartbeat grace. */
	assert_true(cJSON_GetObjectItem(p, "settle_s")->valuedouble >= 40);
	cJSON_ArrayForEach(s, cJSON_GetObjectItem(p, "steps")) {
		const cJSON *c;

		g = cJSON_GetObjectItem(s, "gate");
		assert_non_null(g);	/* every step has a gate */
		assert_true(cJSON_GetObjectItem(g, "timeout_s")->valuedouble >
		    0);
		cJSON_ArrayForEach(c, cJSON_GetObjectItem(s, "commands"))
			restarts += strncmp(c->valuestring,
			    "systemctl restart ceph-osd@", 27) == 0;
		if (strcmp(cJSON_GetObjectItem(g, "kind")->valuestring,
		    "osds_moved") == 0) {
			moved++;
			assert_string_equal(cJSON_GetObjectItem(g,
			    "network")->valuestring, "198.20.0.0/24");
			assert_int_equal(cJSON_GetArraySize(
			    cJSON_GetObjectItem(g, "osds")), 1);
		}
	}
	assert_int_equal(restarts, 3);	/* each OSD once */
	assert_int_equal(moved, 3);
	/* The first batch's mask and its rollback. */
	s = cJSON_GetArrayItem(cJSON_GetObjectItem(p, "steps"), 1);
	assert_string_equal(cJSON_GetArrayItem(cJSON_GetObjectItem(s,
	    "commands"), 0)->valuestring,
	    "ceph config set osd.0 cluster_network 198.20.0.0/24");
	assert_string_equal(cJSON_GetArrayItem(cJSON_GetObjectItem(s,
	    "rollback"), 0)->valuestring,
	    "ceph config rm osd.0 cluster_network");
	/* What migrate executes: the same command as words, and the gate's
	 * expectation of the mon database. */
	g = cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetObjectItem(s, "do"),
	    "argv"), 0);
	assert_int_equal(cJSON_GetArraySize(g), 5);
	assert_string_equal(cJSON_GetArrayItem(g, 2)->valuestring, "osd.0");
	g = cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetObjectItem(s,
	    "gate"), "expect"), 0);
	assert_string_equal(cJSON_GetObjectItem(g, "who")->valuestring, "osd.0");
	assert_string_equal(cJSON_GetObjectItem(g, "value")->valuestring,
	    "198.20.0.0/24");
	s = cJSON_GetArrayItem(cJSON_GetObjectItem(p, "steps"), 3);
	assert_string_equal(cJSON_GetObjectItem(cJSON_GetObjectItem(s, "do"),
	    "op")->valuestring, "restart");
	assert_string_equal(cJSON_GetObjectItem(cJSON_GetObjectItem(
	    cJSON_GetObjectItem(s, "do"), "hosts"), "0")->valuestring, "h1");
	/* The last config step: global set, every mask removed. */
	s = cJSON_GetArrayItem(cJSON_GetObjectItem(p, "steps"), 16);
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(
	    cJSON_GetObjectItem(s, "gate"), "expect")), 4);
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(cJSON_GetArrayItem(
	    cJSON_GetObjectItem(cJSON_GetObjectItem(s, "gate"), "expect"), 1),
	    "value")));
	cJSON_Delete(p);
	/* Two hosts a batch, cephadm. */
	po.batch = 2;
	po.deploy = PLAN_CEPHADM;
	p = plan_build(&m, &po, err);
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(p, "steps")),
	    1 + 2 * 5 + 2);
	s = cJSON_GetArrayItem(cJSON_GetObjectItem(p, "steps"), 3);
	assert_string_equal(cJSON_GetArrayItem(cJSON_GetObjectItem(s,
	    "commands"), 0)->valuestring, "ceph orch daemon restart osd.0");
	cJSON_Delete(p);
}

/* Only the ceph commands a plan contains run from a plan file: every
 * one plan_build writes passes, anything else (a hand-edited plan) is
 * refused. */
static void
test_ceph_allowlist(void **state)
{
	static const char *const good[][6] = {
		{ "osd", "set", "noout" }, { "osd", "unset", "noout" },
		{ "config", "set", "osd.12", "cluster_network",
		    "198.20.0.0/24" },
		{ "config", "set", "global", "cluster_network",
		    "198.20.0.0/24,fd00::/64" },
		{ "config", "rm", "osd.3", "cluster_network" },
	};
	static const char *const bad[][6] = {
		{ "osd", "pool", "delete", "rbd" },
		{ "auth", "get-or-create", "client.x" },
		{ "config", "set", "mon", "cluster_network", "198.20.0.0/24" },
		{ "config", "set", "osd.1", "public_network", "10.0.0.0/8" },
		{ "config", "set", "osd.1x", "cluster_network", "1.2.3.0/24" },
		{ "config", "set", "global", "cluster_network", "--x" },
		{ "osd", "set", "pause" },
	};
	static const int ng[] = { 3, 3, 5, 5, 4 }, nb[] = { 4, 3, 5, 5, 5,
	    5, 3 };
	const cJSON *sp, *d, *cmd, *w;
	char err[CF_ERRLEN];
	size_t i;
	cJSON *p;

	(void)state;
	for (i = 0; i < sizeof(ng) / sizeof(ng[0]); i++)
		assert_true(migrate_ceph_allowed(good[i], ng[i]));
	for (i = 0; i < sizeof(nb) / sizeof(nb[0]); i++)
		assert_false(migrate_ceph_allowed(bad[i], nb[i]));
	setup(NULL);
	p = plan_build(&m, &po, err);
	assert_non_null(p);
	cJSON_ArrayForEach(sp, cJSON_GetObjectItem(p, "steps")) {
		int k2;

		for (k2 = 0; k2 < 2; k2++) {
			d = cJSON_GetObjectItem(sp, k2 ? "undo" : "do");
			cJSON_ArrayForEach(cmd, cJSON_GetObjectItem(d, "argv")) {
				const char *a[16];
				int k = 0;

				cJSON_ArrayForEach(w, cmd)
					a[k++] = w->valuestring;
				assert_true(migrate_ceph_allowed(a, k));
			}
		}
	}
	cJSON_Delete(p);
}

/* script_of: plan p as a script, into text. */
static void
script_of(const cJSON *p, char *text, size_t sz)
{
	char path[] = "/tmp/cf-plan.XXXXXX";
	int fd = mkstemp(path);
	FILE *f;
	size_t n;

	assert_true(fd >= 0);
	f = fdopen(fd, "w+");
	assert_int_equal(plan_script(p, f), 0);
	rewind(f);
	n = fread(text, 1, sz - 1, f);
	text[n] = '\0';
	fclose(f);
	unlink(path);
}

/* Two hosts a batch, systemd: each OSD is restarted on its own host (the
 * old script ran "ssh 'h1,h2'", the batch's label); a CRUSH host name
 * that reads as an option is never an ssh target, nor a restart
 * command's argument. */
static void
test_script_batch(void **state)
{
	char err[CF_ERRLEN], text[1 << 16], buf[512];
	const char *argv[16];
	cJSON *p;
	int i;

	(void)state;
	setup(NULL);
	po.batch = 2;
	p = plan_build(&m, &po, err);
	po.batch = 1;
	assert_non_null(p);
	script_of(p, text, sizeof(text));
	assert_null(strstr(text, "'h1,h2'"));
	for (i = 0; i < m.nosds; i++) {
		char want[96];

		snprintf(want, sizeof(want), "$SSH -- '%s' sudo 'systemctl "
		    "restart ceph-osd@%d'", m.osds[i].host, m.osds[i].id);
		if (strstr(text, want) == NULL)
			fail_msg("no '%s' in the script", want);
	}
	cJSON_Delete(p);
	assert_int_equal(migrate_restart_argv(MIGRATE_RESTART_DEFAULT, 3,
	    "-oProxyCommand=x", buf, sizeof(buf), argv, 16, err), -1);
	assert_non_null(strstr(err, "cannot go on a command line"));
	assert_int_equal(migrate_restart_argv(MIGRATE_RESTART_DEFAULT, 3,
	    "h1", buf, sizeof(buf), argv, 16, err), 0);
	assert_string_equal(argv[5], "--");
	assert_string_equal(argv[6], "h1");
}

/* Ten OSD hosts of FQDN-long names in one batch: the batch's label and
 * its ok-to-stop line stay inside their buffers (the old code wrote past
 * label[256]); the plan is built and its steps name every host. */
static void
test_long_host_names(void **state)
{
	struct ceph_map big;
	char err[CF_ERRLEN];
	cJSON *p;
	int i;

	(void)state;
	setup(NULL);
	memset(&big, 0, sizeof(big));
	for (i = 0; i < 20; i++) {
		struct ceph_osd *o = &big.osds[big.nosds++];

		*o = m.osds[i % m.nosds];
		o->id = i;
		snprintf(o->host, sizeof(o->host),
		    "osd-host-%02d.rack-a.example.internal", i / 2);
	}
	po.batch = 10;
	p = plan_build(&big, &po, err);
	po.batch = 1;
	assert_non_null(p);
	assert_true(cJSON_GetArraySize(cJSON_GetObjectItem(p, "steps")) > 3);
	cJSON_Delete(p);
}

/* ev: a journal event. */
static cJSON *
ev(const char *kind, int n, int osd)
{
	cJSON *e = cJSON_CreateObject();

	cJSON_AddStringToObject(e, "event", kind);
	cJSON_AddNumberToObject(e, "n", n);
	if (osd >= 0) {
		cJSON_AddNumberToObject(e, "osd", osd);
		cJSON_AddNumberToObject(e, "up_from", 10);
	}
	return e;
}

static void
test_rollback(void **state)
{
	char err[CF_ERRLEN];
	cJSON *p, *evs, *r;
	const cJSON *s, *c;
	int i;

	(void)state;
	setup(NULL);
	po.batch = 1;
	po.deploy = PLAN_SYSTEMD;
	p = plan_build(&m, &po, err);
	assert_non_null(p);
	/* Killed in the second host's settle: steps 1-11 started, osd.0
	 * restarted at step 4, osd.1 at step 9. */
	evs = cJSON_CreateArray();
	for (i = 1; i <= 11; i++) {
		cJSON_AddItemToArray(evs, ev("step", i, -1));
		if (i == 4 || i == 9)
			cJSON_AddItemToArray(evs, ev("restart", i, i == 4 ? 0 : 1));
		if (i < 11)
			cJSON_AddItemToArray(evs, ev("done", i, -1));
	}
	r = plan_rollback(p, evs, err);
	assert_non_null(r);
	assert_string_equal(cJSON_GetObjectItem(r, "to")->valuestring,
	    "198.19.0.0/24");
	/* noout, the configuration, 4 steps per moved host, unset noout. */
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(r, "steps")),
	    1 + 1 + 2 * 4 + 1);
	s = cJSON_GetArrayItem(cJSON_GetObjectItem(r, "steps"), 1);
	/* The masks removed, the last one first. */
	c = cJSON_GetObjectItem(s, "commands");
	assert_int_equal(cJSON_GetArraySize(c), 2);
	assert_string_equal(cJSON_GetArrayItem(c, 0)->valuestring,
	    "ceph config rm osd.1 cluster_network");
	assert_string_equal(cJSON_GetArrayItem(c, 1)->valuestring,
	    "ceph config rm osd.0 cluster_network");
	/* The last moved OSD goes back first, to the old network. */
	s = cJSON_GetArrayItem(cJSON_GetObjectItem(r, "steps"), 3);
	assert_int_equal(cJSON_GetArrayItem(cJSON_GetObjectItem(
	    cJSON_GetObjectItem(s, "do"), "osds"), 0)->valueint, 1);
	assert_string_equal(cJSON_GetObjectItem(cJSON_GetObjectItem(s, "gate"),
	    "network")->valuestring, "198.19.0.0/24");
	s = cJSON_GetArrayItem(cJSON_GetObjectItem(r, "steps"), 7);
	assert_int_equal(cJSON_GetArrayItem(cJSON_GetObjectItem(
	    cJSON_GetObjectItem(s, "do"), "osds"), 0)->valueint, 0);
	cJSON_Delete(r);
	/* After the global step too: the old global value comes back. */
	for (i = 11; i <= 17; i++)
		cJSON_AddItemToArray(evs, ev("step", i, -1));
	cJSON_AddItemToArray(evs, ev("restart", 14, 2));
	r = plan_rollback(p, evs, err);
	s = cJSON_GetArrayItem(cJSON_GetObjectItem(r, "steps"), 1);
	assert_string_equal(cJSON_GetArrayItem(cJSON_GetObjectItem(s,
	    "commands"), 0)->valuestring,
	    "ceph config set global cluster_network 198.19.0.0/24");
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(r, "steps")),
	    1 + 1 + 3 * 4 + 1);
	cJSON_Delete(r);
	/* No old network to go back to: refused, named. */
	cJSON_ReplaceItemInObject(p, "from", cJSON_CreateString("(not set in "
	    "the mon database)"));
	assert_null(plan_rollback(p, evs, err));
	assert_non_null(strstr(err, "no old cluster_network"));
	cJSON_Delete(evs);
	cJSON_Delete(p);
}

/* The journal: events back in order, a torn last line (a kill mid-write)
 * ignored, an existing journal refused without --resume, a corrupt line
 * named. */
static void
test_journal(void **state)
{
	char dir[] = "/tmp/cf-jn.XXXXXX", path[64], err[CF_ERRLEN];
	struct journal jn;
	cJSON *evs = NULL;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/j", dir);
	assert_int_equal(journal_open(&jn, path, false, NULL, err), 0);
	assert_int_equal(journal_add(&jn, ev("step", 1, -1), err), 0);
	assert_int_equal(journal_add(&jn, ev("restart", 1, 3), err), 0);
	journal_close(&jn);
	f = fopen(path, "a");
	fputs("{\"event\":\"done\",\"n\":1", f);	/* no newline: torn */
	fclose(f);
	assert_int_equal(journal_open(&jn, path, false, NULL, err), -1);
	assert_non_null(strstr(err, "--resume"));
	assert_int_equal(journal_open(&jn, path, true, &evs, err), 0);
	{
		struct journal j2;
		cJSON *e2 = NULL;

		/* Locked while open: a second migrate is refused. */
		assert_int_equal(journal_open(&j2, path, true, &e2, err), -1);
		assert_non_null(strstr(err, "another migrate"));
		assert_null(e2);
	}
	journal_close(&jn);
	assert_int_equal(cJSON_GetArraySize(evs), 2);
	assert_int_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(evs, 1),
	    "osd")->valueint, 3);
	assert_true(cJSON_GetObjectItem(cJSON_GetArrayItem(evs, 0),
	    "t")->valuedouble > 1.7e9);
	cJSON_Delete(evs);
	f = fopen(path, "w");
	fputs("{\"event\":\"step\",\"n\":1}\nnot json\n", f);
	fclose(f);
	assert_int_equal(journal_read(path, &evs, err), -1);
	assert_non_null(strstr(err, ":2: not a journal event"));
	unlink(path);
	rmdir(dir);
}

/* slurp: the first bytes of a file, "" when it cannot be read. */
static const char *
slurp(const char *path, char *buf, size_t n)
{
	FILE *f = fopen(path, "r");
	size_t k = 0;

	if (f) {
		k = fread(buf, 1, n - 1, f);
		fclose(f);
	}
	buf[k] = '\0';
	return buf;
}

/* Output files in a directory others can write (/tmp): a symbolic link
 * planted at the journal's name, at the output's own name, or at every
 * temporary name the old code used (PATH.tmp.PID) must not let the
 * coordinator, often root, write through it to another file. */
static void
test_output_symlinks(void **state)
{
	char dir[] = "/tmp/cf-out.XXXXXX", path[128], victim[128], lnk[160];
	char gone[128], err[CF_ERRLEN], buf[64];
	struct journal jn;
	struct out_file of;
	FILE *f;
	int pid;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(victim, sizeof(victim), "%s/victim", dir);
	f = fopen(victim, "w");
	fputs("precious\n", f);
	fclose(f);
	/* The journal's name a link to a file not there yet: refused, and
	 * the file the link names is not created. */
	snprintf(path, sizeof(path), "%s/journal", dir);
	snprintf(gone, sizeof(gone), "%s/created", dir);
	assert_int_equal(symlink(gone, path), 0);
	assert_int_equal(journal_open(&jn, path, false, NULL, err), -1);
	assert_non_null(strstr(err, path));
	assert_int_equal(access(gone, F_OK), -1);
	unlink(path);
	/* Links at every PID's temporary name of the output: the victim
	 * stays as it was, the output is whole, no temporary left. */
	snprintf(path, sizeof(path), "%s/matrix.json", dir);
	for (pid = getpid() - 64; pid <= getpid() + 64; pid++) {
		snprintf(lnk, sizeof(lnk), "%s.tmp.%d", path, pid);
		assert_int_equal(symlink(victim, lnk), 0);
	}
	assert_int_equal(out_file_open(&of, path, err), 0);
	fputs("{\"ok\":true}\n", of.f);
	assert_int_equal(out_file_close(&of, err), 0);
	assert_string_equal(slurp(victim, buf, sizeof(buf)), "precious\n");
	assert_string_equal(slurp(path, buf, sizeof(buf)), "{\"ok\":true}\n");
	for (pid = getpid() - 64; pid <= getpid() + 64; pid++) {
		struct stat sb;

		snprintf(lnk, sizeof(lnk), "%s.tmp.%d", path, pid);
		assert_int_equal(lstat(lnk, &sb), 0);
		assert_true(S_ISLNK(sb.st_mode));
		unlink(lnk);
	}
	/* The output's own name a link to the victim: the link is replaced
	 * by the output, the victim is not written. */
	unlink(path);
	assert_int_equal(symlink(victim, path), 0);
	assert_int_equal(out_file_open(&of, path, err), 0);
	fputs("new\n", of.f);
	assert_int_equal(out_file_close(&of, err), 0);
	assert_string_equal(slurp(victim, buf, sizeof(buf)), "precious\n");
	assert_string_equal(slurp(path, buf, sizeof(buf)), "new\n");
	unlink(path);
	unlink(victim);
	assert_int_equal(rmdir(dir), 0);
	/* /dev/stdout is standard output as "-" is, never a file written
	 * in /dev and renamed over the link. */
	assert_int_equal(out_file_open(&of, "/dev/stdout", err), 0);
	assert_true(of.std);
	assert_string_equal(of.tmp, "");
	assert_int_equal(out_file_close(&of, err), 0);
}

static void
test_restart_argv(void **state)
{
	char buf[256], err[CF_ERRLEN];
	const char *argv[8];

	(void)state;
	assert_int_equal(migrate_restart_argv("ssh {host}  systemctl restart "
	    "ceph-osd@{osd}", 12, "osd-host-3", buf, sizeof(buf), argv, 8,
	    err), 0);
	assert_string_equal(argv[0], "ssh");
	assert_string_equal(argv[1], "osd-host-3");
	assert_string_equal(argv[3], "restart");
	assert_string_equal(argv[4], "ceph-osd@12");
	assert_null(argv[5]);
	/* Too many words, too long, empty: refused, not truncated. */
	assert_int_equal(migrate_restart_argv("a b c d e f g h i", 1, "h", buf,
	    sizeof(buf), argv, 8, err), -1);
	assert_int_equal(migrate_restart_argv("{host}{host}{host}", 1,
	    "a-rather-long-host-name-that-is-long-enough-to-overflow-"
	    "a-rather-long-host-name-that-is-long-enough-to-overflow", buf,
	    128, argv, 8, err), -1);
	assert_int_equal(migrate_restart_argv("   ", 1, "h", buf, sizeof(buf),
	    argv, 8, err), -1);
}

/* The settle gate's verdict on one line of 'watch --json': the worst
 * peer named, quiet peers (too few segments) ignored, other lines not
 * judged. */
static void
test_watch_judge(void **state)
{
	char why[160] = "";
	double max = 0;

	(void)state;
	assert_int_equal(migrate_watch_judge("{\"host\": \"h2\", \"seq\": 3, "
	    "\"peers\": [{\"host\": \"h3\", \"tx\": {\"segments\": 5000, "
	    "\"retrans_pct\": 0.4}}, {\"host\": \"h4\", \"tx\": "
	    "{\"segments\": 20, \"retrans_pct\": 50}}]}", 2, 1000, &max, why,
	    sizeof(why)), 0);
	assert_true(max > 0.39 && max < 0.41);
	assert_string_equal(why, "h2 -> h3 0.40 % of 5000 segments");
	assert_int_equal(migrate_watch_judge("{\"host\": \"h3\", \"peers\": "
	    "[{\"host\": \"h2\", \"tx\": {\"segments\": 8000, "
	    "\"retrans_pct\": 3.5}}]}", 2, 1000, &max, why, sizeof(why)), 1);
	assert_string_equal(why, "h3 -> h2 3.50 % of 8000 segments");
	assert_int_equal(migrate_watch_judge("{\"error\": \"h4: no capture\"}", 2,
	    1000, &max, why, sizeof(why)), -1);
	assert_int_equal(migrate_watch_judge("not json", 2, 1000, &max, why,
	    sizeof(why)), -1);
	/* A malformed figure is skipped, not trusted. */
	assert_int_equal(migrate_watch_judge("{\"host\": \"h3\", \"peers\": "
	    "[{\"host\": \"h2\", \"tx\": {\"segments\": 8000, "
	    "\"retrans_pct\": 300}}]}", 2, 1000, &max, why, sizeof(why)), 0);
}

/* A watch with nothing to say is no pass: not started, or no sample,
 * pauses the settle gate, unless there is no inventory to watch with or
 * the user said --no-traffic-gate. */
static void
test_watch_silent(void **state)
{
	(void)state;
	assert_null(migrate_watch_silent(true, false, true, 3));
	assert_string_equal(migrate_watch_silent(true, false, true, 0),
	    "no agent reported a sample");
	assert_string_equal(migrate_watch_silent(true, false, false, 0),
	    "it did not start");
	assert_null(migrate_watch_silent(true, true, false, 0));
	assert_null(migrate_watch_silent(false, false, false, 0));
}

static void
test_script(void **state)
{
	char err[CF_ERRLEN], path[] = "/tmp/cf-plan.XXXXXX", cmd[128];
	char text[1 << 16];
	cJSON *p;
	FILE *f;
	int fd;
	size_t n;

	(void)state;
	setup(NULL);
	p = plan_build(&m, &po, err);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	assert_int_equal(plan_script(p, f), 0);
	fclose(f);
	/* bash accepts it. */
	snprintf(cmd, sizeof(cmd), "bash -n %s", path);
	if (system(cmd) != 0) {
		snprintf(cmd, sizeof(cmd), "cp %s /tmp/cf-plan-bad.sh", path);
		(void)!system(cmd);
		fail_msg("bash -n refused the script (/tmp/cf-plan-bad.sh)");
	}
	f = fopen(path, "r");
	n = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[n] = '\0';
	assert_non_null(strstr(text, "set -euo pipefail"));
	assert_non_null(strstr(text, "$SSH -- 'h1' sudo 'systemctl restart "
	    "ceph-osd@0'"));
	assert_non_null(strstr(text, "SSH=${SSH:-ssh -o BatchMode=yes -o "
	    "ConnectTimeout=10}"));
	assert_non_null(strstr(text, "wait_for 300 moved 198.20.0.0/24 \"$E\" 0"));
	assert_non_null(strstr(text, "$CEPH osd set noout"));
	assert_null(strstr(text, "sleep 30"));	/* gates, not sleeps */
	/* The gates against the lab's captured OSD map, through a stand-in
	 * for the ceph CLI: its OSDs are on 198.19 (moved there, from epoch
	 * 0) and not on 198.20; PGs clean at epoch 20, not at 99. */
	f = fopen("/tmp/cf-fakeceph", "w");
	assert_non_null(f);
	fprintf(f, "#!/bin/sh\ncase \"$*\" in\n"
	    "'osd dump -f json') cat %s/" G "osd_dump.json ;;\n"
	    "'pg dump pgs -f json') echo '{\"pg_ready\": true, \"pg_stats\": "
	    "[{\"state\": \"active+clean\", \"reported_epoch\": \"25\"}, "
	    "{\"state\": \"active+clean\", \"reported_epoch\": 30}]}' ;;\n"
	    "*) exit 1 ;;\nesac\n", getcwd(text, sizeof(text)));
	fclose(f);
	chmod("/tmp/cf-fakeceph", 0755);
	snprintf(text, sizeof(text), "CEPH=/tmp/cf-fakeceph bash -c '. %s 999 "
	    "2>/dev/null; moved 198.19.0.0/24 0 0 1 2 && ! moved "
	    "198.20.0.0/24 0 0 && ! moved 198.19.0.0/24 99999 0 && "
	    "pgs_clean 20 && ! pgs_clean 99 && [ \"$(up_from 0 1)\" -gt 0 ]'",
	    path);
	assert_int_equal(system(text), 0);
	unlink("/tmp/cf-fakeceph");
	unlink(path);
	cJSON_Delete(p);
}

/* The client probe's log: operations, errors (failed and mismatched),
 * the longest one; a damaged log is refused, not half-read. */
static void
test_probe_summary(void **state)
{
	struct migrate_probe p;
	FILE *f = tmpfile();

	(void)state;
	assert_non_null(f);
	fputs("put ok 41.5\nget ok 30.0\nput ok 17250.2\nget bad 35.0\n"
	    "put err 60000.0\nput ok 40.1\n", f);
	rewind(f);
	assert_int_equal(migrate_probe_summary(f, &p), 0);
	assert_int_equal(p.ops, 6);
	assert_int_equal(p.errors, 2);
	assert_int_equal(p.mismatches, 1);
	assert_true(p.longest_ms == 60000.0);
	fclose(f);
	f = tmpfile();
	fputs("put ok 41.5\nput ok garbage\n", f);
	rewind(f);
	assert_int_equal(migrate_probe_summary(f, &p), -1);
	fclose(f);
	/* Empty: nothing ran, nothing to report but zeros. */
	f = tmpfile();
	assert_int_equal(migrate_probe_summary(f, &p), 0);
	assert_int_equal(p.ops, 0);
	fclose(f);
}

CF_UNIT_MAIN(NULL, NULL,
    cmocka_unit_test(test_preflight), cmocka_unit_test(test_plan_steps),
    cmocka_unit_test(test_long_host_names),
    cmocka_unit_test(test_script), cmocka_unit_test(test_rollback),
    cmocka_unit_test(test_journal), cmocka_unit_test(test_output_symlinks),
    cmocka_unit_test(test_restart_argv),
    cmocka_unit_test(test_watch_judge), cmocka_unit_test(test_watch_silent),
    cmocka_unit_test(test_script_batch), cmocka_unit_test(test_ceph_allowlist),
    cmocka_unit_test(test_probe_summary))
