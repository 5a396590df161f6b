/* plan: the cluster_network cutover plan, see migrate.h. */
#include "migrate/migrate.h"
#include "text.h"
#include "verdict/verdict.h"
#include "json.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

cJSON *
plan_finding(cJSON *out, const char *kind, const char *hint,
    const char *fmt, ...)
{
	va_list ap;
	cJSON *f;

	va_start(ap, fmt);
	f = finding_vnew(out, kind, "error", "cluster", hint, fmt, ap);
	va_end(ap);
	return f;
}

/* osd_hosts: the distinct OSD hosts in name order (names point into m). */
static int
osd_hosts(const struct ceph_map *m, const char **out, int max)
{
	int i, k, n = 0;

	for (i = 0; i < m->nosds; i++) {
		const char *h = m->osds[i].host[0] ? m->osds[i].host :
		    m->osds[i].meta_host;

		if (h[0] == '\0')
			continue;
		for (k = 0; k < n && strcmp(out[k], h); k++)
			;
		if (k < n || n == max)
			continue;
		/* Insertion in name order. */
		for (k = n; k > 0 && strcmp(out[k - 1], h) > 0; k--)
			out[k] = out[k - 1];
		out[k] = h;
		n++;
	}
	return n;
}

int
plan_preflight(const struct ceph_map *m, const struct plan_state *s,
    const struct plan_opts *o, cJSON *out)
{
	const char *hosts[CEPH_MAX_OSDS];
	char a[NETADDR_STRLEN + 8], list[384];
	size_t off = 0;
	int n = osd_hosts(m, hosts, CEPH_MAX_OSDS), i, k, blocks = 0, down = 0;
	cJSON *f;

	/* A cluster that is not clean now is not one to move. */
	if (s->status.num_pgs == 0 || s->status.active_clean !=
	    s->status.num_pgs) {
		f = plan_finding(out, "cluster_not_clean", "wait for every PG to "
		    "be active+clean before a cutover", "%d of %d PGs are "
		    "active+clean", s->status.active_clean,
		    s->status.num_pgs);
		cJSON_AddNumberToObject(cJSON_GetObjectItem(f, "evidence"),
		    "active_clean", s->status.active_clean);
		blocks++;
	}
	list[0] = '\0';
	for (i = 0; i < m->nosds; i++)
		if (!m->osds[i].up && off < sizeof(list) - 16) {
			off = text_appendf(list, sizeof(list), off,
			    "%sosd.%d", off ? ", " : "", m->osds[i].id);
			down++;
		}
	if (down) {
		plan_finding(out, "osd_down", "bring every OSD up (or out and "
		    "replaced) first: a cutover restarts the others",
		    "%d OSD%s down: %s", down, down > 1 ? "s" : "", list);
		blocks++;
	}
	if (strstr(s->health.checks, "SLOW_OPS")) {
		plan_finding(out, "slow_ops", "find what is slow before restarting "
		    "OSDs", "the cluster reports SLOW_OPS");
		blocks++;
	}
	/* Every OSD host needs an address in the new network. */
	off = 0;
	list[0] = '\0';
	f = NULL;
	for (k = 0; k < n; k++) {
		bool in = false, known = false;

		for (i = 0; i < s->nhosts; i++) {
			int j;

			if (strcmp(s->hosts[i].host, hosts[k]) != 0)
				continue;
			known = s->hosts[i].known;
			for (j = 0; j < s->hosts[i].naddr; j++)
				in |= netcidr_contains(&o->new_net,
				    &s->hosts[i].addr[j]);
		}
		if (in)
			continue;
		if (f == NULL)
			f = plan_finding(out, "no_new_address", "give every OSD host "
			    "an address in the new network (and its route) "
			    "before the cutover", "placeholder");
		cJSON_AddItemToArray(cJSON_GetObjectItem(f, "hosts"),
		    cJSON_CreateString(hosts[k]));
		if (off < sizeof(list) - 40)
			off = text_appendf(list, sizeof(list), off,
			    "%s%s%s", off ? ", " : "", hosts[k], known ? "" :
			    " (agent did not answer)");
	}
	if (f) {
		char msg[512];

		snprintf(msg, sizeof(msg), "OSD hosts without an address in "
		    "%s: %s", netcidr_str(&o->new_net, a, sizeof(a)), list);
		cJSON_ReplaceItemInObject(f, "summary", cJSON_CreateString(msg));
		blocks++;
	}
	/* A cluster_network from a local ceph.conf wins over the mon's
	 * database: the masks would be ignored. */
	if (strcmp(s->cluster_network_source, "file") == 0) {
		char hl[512], *tok, *save = NULL;

		f = plan_finding(out, "cluster_network_in_file", "remove "
		    "cluster_network from /etc/ceph/ceph.conf on the hosts "
		    "named (the plan sets it in the mon's database), or edit it "
		    "there host by host", "cluster_network comes from a local "
		    "ceph.conf on %s, where 'ceph config set' cannot change it",
		    s->file_hosts[0] ? s->file_hosts : "the OSD hosts");
		snprintf(hl, sizeof(hl), "%s", s->file_hosts);
		for (tok = strtok_r(hl, ",", &save); tok;
		    tok = strtok_r(NULL, ",", &save))
			cJSON_AddItemToArray(cJSON_GetObjectItem(f, "hosts"),
			    cJSON_CreateString(tok));
		blocks++;
	}
	if (s->versions.distinct > 1) {
		f = plan_finding(out, "mixed_versions", "finish the upgrade first",
		    "%d different Ceph versions run in the cluster",
		    s->versions.distinct);
		cJSON_ReplaceItemInObject(f, "severity",
		    cJSON_CreateString("warn"));
	}
	return blocks;
}

static cJSON *
step(cJSON *steps, const char *name, const char *host)
{
	cJSON *s = cJSON_CreateObject();

	cJSON_AddNumberToObject(s, "n", cJSON_GetArraySize(steps) + 1);
	cJSON_AddStringToObject(s, "name", name);
	if (host)
		cJSON_AddStringToObject(s, "host", host);
	cJSON_AddArrayToObject(s, "commands");
	cJSON_AddArrayToObject(s, "rollback");
	cJSON_AddItemToArray(steps, s);
	return s;
}

static void
cmd(cJSON *s, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void
cmd(cJSON *s, const char *key, const char *fmt, ...)
{
	char b[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(b, sizeof(b), fmt, ap);
	va_end(ap);
	cJSON_AddItemToArray(cJSON_GetObjectItem(s, key),
	    cJSON_CreateString(b));
}

static cJSON *
gate(cJSON *s, const char *kind, double timeout, const char *why)
{
	cJSON *g = cJSON_AddObjectToObject(s, "gate");

	cJSON_AddStringToObject(g, "kind", kind);
	cJSON_AddNumberToObject(g, "timeout_s", timeout);
	cJSON_AddStringToObject(g, "why", why);
	return g;
}

/* op: a step's machine-readable action ("do" or "undo"), what migrate
 * executes; "commands" stay for the operator. */
static cJSON *
op(cJSON *s, const char *key, const char *kind)
{
	cJSON *o = cJSON_AddObjectToObject(s, key);

	cJSON_AddStringToObject(o, "op", kind);
	if (strcmp(kind, "ceph") == 0)
		cJSON_AddArrayToObject(o, "argv");
	return o;
}

/* argv_add: one ceph command of up to five words (NULL ends it). */
static void
argv_add(cJSON *o, const char *a, const char *b, const char *c,
    const char *d, const char *e)
{
	const char *w[] = { a, b, c, d, e };
	cJSON *v = cJSON_CreateArray();
	int i;

	for (i = 0; i < 5 && w[i]; i++)
		cJSON_AddItemToArray(v, cJSON_CreateString(w[i]));
	cJSON_AddItemToArray(cJSON_GetObjectItem(o, "argv"), v);
}

/* expect: a config gate's condition: WHO's cluster_network is VALUE
 * (NULL: not set). */
static void
expect(cJSON *g, const char *who, const char *value)
{
	cJSON *arr = cJSON_GetObjectItem(g, "expect"), *e;

	if (arr == NULL)
		arr = cJSON_AddArrayToObject(g, "expect");
	e = cJSON_CreateObject();
	cJSON_AddStringToObject(e, "who", who);
	if (value)
		cJSON_AddStringToObject(e, "value", value);
	else
		cJSON_AddNullToObject(e, "value");
	cJSON_AddItemToArray(arr, e);
}

/* ok_step: "ok to stop" for a batch, gated on ceph osd ok-to-stop. */
static void
ok_step(cJSON *steps, const char *host, const cJSON *ids)
{
	const cJSON *id;
	char label[256];
	size_t off = 0;
	cJSON *s = step(steps, "ok to stop", host), *g;

	label[0] = '\0';
	cJSON_ArrayForEach(id, ids)
		if (off < sizeof(label))
			off = text_appendf(label, sizeof(label), off,
			    "%s%d", off ? " " : "", id->valueint);
	cmd(s, "commands", "ceph osd ok-to-stop %s", label);
	g = gate(s, "ok_to_stop", 600, "stopping these OSDs must not make any "
	    "PG unavailable");
	cJSON_AddItemToObject(g, "osds", cJSON_Duplicate(ids, 1));
}

/* restart_gates: the restart step s's gate (each OSD of ids back on
 * net), then the steps that wait for clean PGs and settle; takes ids. */
static void
restart_gates(cJSON *steps, cJSON *s, cJSON *ids, const char *net,
    const char *which, double settle)
{
	char why[256];
	cJSON *g;

	/* Observed state, never a fixed sleep. */
	snprintf(why, sizeof(why), "each OSD up again (a higher up_from), its "
	    "cluster and back-heartbeat addresses in the %s network, its "
	    "public address unchanged", which);
	g = gate(s, "osds_moved", 300, why);
	cJSON_AddItemToObject(g, "osds", cJSON_Duplicate(ids, 1));
	cJSON_AddStringToObject(g, "network", net);
	s = step(steps, "wait for clean PGs", NULL);
	g = gate(s, "pgs_clean", 900, "every PG active+clean, reported at or "
	    "after the restarted OSDs' up_from (mgr stats lag behind a "
	    "restart)");
	cJSON_AddItemToObject(g, "osds", cJSON_Duplicate(ids, 1));
	s = step(steps, "settle", NULL);
	g = gate(s, "settle", settle + 60, "at least twice the heartbeat grace "
	    "with no OSD_DOWN or OSD_SLOW_PING_TIME_BACK naming these OSDs");
	cJSON_AddNumberToObject(g, "seconds", settle);
	cJSON_AddItemToObject(g, "osds", ids);
}

cJSON *
plan_build(const struct ceph_map *m, const struct plan_opts *o, char *err)
{
	const char *hosts[CEPH_MAX_OSDS];
	char nn[NETADDR_STRLEN + 8];
	int n = osd_hosts(m, hosts, CEPH_MAX_OSDS), b, k, i;
	double settle = fmax(o->settle, 2 * (o->grace > 0 ? o->grace : 20));
	cJSON *plan, *steps, *s, *g, *ids, *id, *d, *u;

	if (n == 0) {
		snprintf(err, CF_ERRLEN, "plan: no OSD host in the OSD map");
		return NULL;
	}
	netcidr_str(&o->new_net, nn, sizeof(nn));
	plan = cJSON_CreateObject();
	cJSON_AddStringToObject(plan, "from", m->cluster_network[0] ?
	    m->cluster_network : "(not set in the mon database)");
	cJSON_AddStringToObject(plan, "to", nn);
	cJSON_AddStringToObject(plan, "deploy", o->deploy == PLAN_CEPHADM ?
	    "cephadm" : "systemd");
	cJSON_AddNumberToObject(plan, "settle_s", settle);
	steps = cJSON_AddArrayToObject(plan, "steps");
	s = step(steps, "set noout", NULL);
	cmd(s, "commands", "ceph osd set noout");
	cmd(s, "rollback", "ceph osd unset noout");
	argv_add(op(s, "do", "ceph"), "osd", "set", "noout", NULL, NULL);
	argv_add(op(s, "undo", "ceph"), "osd", "unset", "noout", NULL, NULL);
	g = gate(s, "flag", 60, "restarted OSDs must not be marked out");
	cJSON_AddStringToObject(g, "flag", "noout");
	for (b = 0; b < n; b += o->batch > 0 ? o->batch : 1) {
		int end = b + (o->batch > 0 ? o->batch : 1);
		char label[256];
		size_t off = 0;

		if (end > n)
			end = n;
		label[0] = '\0';
		for (k = b; k < end; k++)
			off = text_appendf(label, sizeof(label), off,
			    "%s%s", off ? "," : "", hosts[k]);
		/* Which OSDs the batch holds. */
		ids = cJSON_CreateArray();
		for (i = 0; i < m->nosds; i++)
			for (k = b; k < end; k++)
				if (strcmp(m->osds[i].host, hosts[k]) == 0)
					cJSON_AddItemToArray(ids,
					    cJSON_CreateNumber(m->osds[i].id));
		/* The mask: only these OSDs pick the new network at their
		 * next start. Per OSD, not 'osd/host:H': Pacific's mon
		 * resolves a daemon's host mask from the CRUSH ancestors of
		 * its host bucket, which leave the host itself out, so a
		 * host mask is shown by 'config get' but never reaches the
		 * daemon (seen on 16.2.15: the OSD restarted on OLD). */
		s = step(steps, "mask the batch to the new network", label);
		d = op(s, "do", "ceph");
		u = op(s, "undo", "ceph");
		g = gate(s, "config", 30, "the mask is in the mon database");
		cJSON_ArrayForEach(id, ids) {
			char who[32];

			snprintf(who, sizeof(who), "osd.%d", id->valueint);
			cmd(s, "commands", "ceph config set %s cluster_network "
			    "%s", who, nn);
			cmd(s, "rollback", "ceph config rm %s cluster_network",
			    who);
			argv_add(d, "config", "set", who, "cluster_network", nn);
			argv_add(u, "config", "rm", who, "cluster_network",
			    NULL);
			expect(g, who, nn);
		}
		ok_step(steps, label, ids);
		s = step(steps, "restart the batch's OSDs", label);
		d = op(s, "do", "restart");
		cJSON_AddItemToObject(d, "osds", cJSON_Duplicate(ids, 1));
		u = cJSON_AddObjectToObject(d, "hosts");
		for (i = 0; i < m->nosds; i++)
			for (k = b; k < end; k++)
				if (strcmp(m->osds[i].host, hosts[k]) == 0) {
					char key[16];

					snprintf(key, sizeof(key), "%d",
					    m->osds[i].id);
					cJSON_AddStringToObject(u, key,
					    hosts[k]);
				}
		cJSON_ArrayForEach(id, ids) {
			if (o->deploy == PLAN_CEPHADM)
				cmd(s, "commands", "ceph orch daemon restart "
				    "osd.%d", id->valueint);
			else
				cmd(s, "commands", "systemctl restart "
				    "ceph-osd@%d", id->valueint);
		}
		cJSON_ArrayForEach(id, ids) {
			cmd(s, "rollback", "(after removing the mask) "
			    "restart osd.%d again", id->valueint);
		}
		restart_gates(steps, s, ids, nn, "new", settle);
	}
	s = step(steps, "set the new network globally, remove the masks",
	    NULL);
	d = op(s, "do", "ceph");
	u = op(s, "undo", "ceph");
	g = gate(s, "config", 30, "the global value is in the mon database, "
	    "no mask left");
	cmd(s, "commands", "ceph config set global cluster_network %s", nn);
	argv_add(d, "config", "set", "global", "cluster_network", nn);
	expect(g, "global", nn);
	if (m->cluster_network[0]) {
		cmd(s, "rollback", "ceph config set global cluster_network %s",
		    m->cluster_network);
		argv_add(u, "config", "set", "global", "cluster_network",
		    m->cluster_network);
	}
	for (i = 0; i < m->nosds; i++) {
		char who[32];

		if (m->osds[i].host[0] == '\0')
			continue;
		snprintf(who, sizeof(who), "osd.%d", m->osds[i].id);
		cmd(s, "commands", "ceph config rm %s cluster_network", who);
		argv_add(d, "config", "rm", who, "cluster_network", NULL);
		expect(g, who, NULL);
	}
	s = step(steps, "unset noout", NULL);
	cmd(s, "commands", "ceph osd unset noout");
	argv_add(op(s, "do", "ceph"), "osd", "unset", "noout", NULL, NULL);
	argv_add(op(s, "undo", "ceph"), "osd", "set", "noout", NULL, NULL);
	gate(s, "pgs_clean", 900, "the cluster ends as it began: every PG "
	    "active+clean");
	return plan;
}

/* ev_n: the step number of a journal event of kind k, else 0. */
static int
ev_n(const cJSON *e, const char *k)
{
	const cJSON *ev = cJSON_GetObjectItem(e, "event");
	const cJSON *n = cJSON_GetObjectItem(e, "n");

	return cJSON_IsString(ev) && strcmp(ev->valuestring, k) == 0 &&
	    cJSON_IsNumber(n) ? n->valueint : 0;
}

cJSON *
plan_rollback(const cJSON *plan, const cJSON *events, char *err)
{
	const cJSON *steps = cJSON_GetObjectItem(plan, "steps"), *e, *c, *w;
	const char *from = "", *to = "";
	struct netcidr old;
	cJSON *rb, *rs, *s, *d, *g, *ids, *hosts;
	double settle = 40;
	int n, k, nsteps = cJSON_GetArraySize(steps);
	char perr[CF_ERRLEN];

	if (json_get_str(plan, "from", 0, 128, &from, perr) == -1 ||
	    netcidr_parse(from, &old) == -1) {
		snprintf(err, CF_ERRLEN, "the plan has no old cluster_network "
		    "(\"from\": '%s'): it was not in the mon database; roll "
		    "back by hand", from);
		return NULL;
	}
	json_opt_str(plan, "to", 0, 128, "", &to, perr);
	json_opt_double(plan, "settle_s", 0, 86400, 40, &settle, perr);
	rb = cJSON_CreateObject();
	cJSON_AddStringToObject(rb, "from", to);
	cJSON_AddStringToObject(rb, "to", from);
	cJSON_AddItemToObject(rb, "deploy", cJSON_Duplicate(
	    cJSON_GetObjectItem(plan, "deploy"), 1));
	cJSON_AddNumberToObject(rb, "settle_s", settle);
	rs = cJSON_AddArrayToObject(rb, "steps");
	s = step(rs, "set noout", NULL);
	cmd(s, "commands", "ceph osd set noout");
	argv_add(op(s, "do", "ceph"), "osd", "set", "noout", NULL, NULL);
	g = gate(s, "flag", 60, "restarted OSDs must not be marked out");
	cJSON_AddStringToObject(g, "flag", "noout");
	/* The configuration: every started step's undo, last first. */
	s = step(rs, "restore the configuration", NULL);
	d = op(s, "do", "ceph");
	g = gate(s, "config", 30, "the old configuration is in the mon "
	    "database");
	cJSON_AddArrayToObject(g, "expect");
	for (n = nsteps; n >= 1; n--) {
		const cJSON *st = cJSON_GetArrayItem(steps, n - 1);
		bool started = false;

		cJSON_ArrayForEach(e, events)
			started |= ev_n(e, "step") == n;
		if (!started)
			continue;
		cJSON_ArrayForEach(c, cJSON_GetObjectItem(cJSON_GetObjectItem(
		    st, "undo"), "argv")) {
			const char *v[5] = { NULL };
			char line[512];
			size_t off;

			k = 0;
			cJSON_ArrayForEach(w, c)
				if (cJSON_IsString(w) && k < 5)
					v[k++] = w->valuestring;
			/* noout has steps of its own here. */
			if (k < 3 || strcmp(v[0], "config") != 0)
				continue;
			argv_add(d, v[0], v[1], v[2], v[3], v[4]);
			off = (size_t)snprintf(line, sizeof(line), "ceph");
			for (k = 0; k < 5 && v[k]; k++)
				off = text_appendf(line, sizeof(line), off,
				    " %s", v[k]);
			cmd(s, "commands", "%s", line);
			expect(g, v[2], strcmp(v[1], "set") == 0 ? v[4] : NULL);
		}
	}
	/* The OSDs restarted, last batch first, back to the old network. */
	for (n = nsteps; n >= 1; n--) {
		const cJSON *st = cJSON_GetArrayItem(steps, n - 1);
		const cJSON *fd = cJSON_GetObjectItem(st, "do");
		char label[256];
		const char *host;
		size_t off = 0;
		int seen[256], ns = 0, i;

		ids = cJSON_CreateArray();
		cJSON_ArrayForEach(e, events) {
			const cJSON *o = cJSON_GetObjectItem(e, "osd");

			if (ev_n(e, "restart") != n || !cJSON_IsNumber(o))
				continue;
			for (i = 0; i < ns && seen[i] != o->valueint; i++)
				;
			if (i < ns || ns == 256)
				continue;
			seen[ns++] = o->valueint;
			cJSON_AddItemToArray(ids, cJSON_CreateNumber(
			    o->valueint));
		}
		if (ns == 0) {
			cJSON_Delete(ids);
			continue;
		}
		label[0] = '\0';
		for (i = 0; i < ns; i++)
			off = text_appendf(label, sizeof(label), off,
			    "%s%d", i ? " " : "",
			    seen[i]);
		host = cJSON_IsString(cJSON_GetObjectItem(st, "host")) ?
		    cJSON_GetObjectItem(st, "host")->valuestring : NULL;
		ok_step(rs, host, ids);
		s = step(rs, "restart the batch's OSDs", host);
		d = op(s, "do", "restart");
		cJSON_AddItemToObject(d, "osds", cJSON_Duplicate(ids, 1));
		hosts = cJSON_Duplicate(cJSON_GetObjectItem(fd, "hosts"), 1);
		cJSON_AddItemToObject(d, "hosts", hosts ? hosts :
		    cJSON_CreateObject());
		for (i = 0; i < ns; i++)
			cmd(s, "commands", "restart osd.%d", seen[i]);
		restart_gates(rs, s, ids, from, "old", settle);
	}
	s = step(rs, "unset noout", NULL);
	cmd(s, "commands", "ceph osd unset noout");
	argv_add(op(s, "do", "ceph"), "osd", "unset", "noout", NULL, NULL);
	gate(s, "pgs_clean", 900, "every PG active+clean");
	return rb;
}

void
plan_print(const cJSON *plan, FILE *f)
{
	const cJSON *s, *c, *g;
	char err[CF_ERRLEN];
	const char *from = "?", *to = "?", *name, *host, *why;

	json_get_str(plan, "from", 0, 128, &from, err);
	json_get_str(plan, "to", 0, 128, &to, err);
	fprintf(f, "cluster_network %s -> %s\n", from, to);
	cJSON_ArrayForEach(s, cJSON_GetObjectItem(plan, "steps")) {
		double n = 0, t = 0;

		json_get_double(s, "n", 0, 1e6, &n, err);
		name = host = "";
		json_get_str(s, "name", 0, 128, &name, err);
		json_opt_str(s, "host", 0, 256, "", &host, err);
		fprintf(f, "%3.0f. %s%s%s\n", n, name, host[0] ? " on " : "",
		    host);
		cJSON_ArrayForEach(c, cJSON_GetObjectItem(s, "commands"))
			fprintf(f, "       $ %s\n", c->valuestring);
		if ((g = cJSON_GetObjectItem(s, "gate")) != NULL) {
			why = "";
			json_get_str(g, "why", 0, 512, &why, err);
			json_get_double(g, "timeout_s", 0, 1e6, &t, err);
			fprintf(f, "       gate (%.0f s at most): %s\n", t, why);
		}
	}
}
