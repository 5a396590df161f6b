/* migrate: execute a cutover plan with gates and a journal, see migrate.h. */
#include "migrate.h"
#include "child.h"
#include "journal.h"
#include "out.h"
#include "plan.h"
#include "pj.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum { G_PASS, G_PAUSE, G_ERROR };

struct mig {
	const struct mig_opts *o;
	cJSON *plan;			/* owned */
	const cJSON *steps;
	int nsteps;
	struct journal jn;
	cJSON *events;			/* the journal so far (owned) */
	struct netcidr to;		/* where OSDs are going */
	const char *to_s;
	struct ceph_map *base;		/* each OSD as last accepted */
	struct ceph_map *cur;		/* the latest osd dump */
	int batch[256];			/* OSDs this batch may take down */
	int nbatch;
	double pga_since, slow_since;	/* PG_AVAILABILITY, SLOW_OPS seen */
	double restart_t;		/* last restart issued (monotonic) */
	double max_unclean;		/* longest restart-to-clean window */
	char why[768];			/* what paused it */
	char hint[256];			/* what to do */
	char err[CF_ERRLEN];
	bool tty;
};

static double
mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static int
pause_at(struct mig *g, const char *hint, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int
pause_at(struct mig *g, const char *hint, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(g->why, sizeof(g->why), fmt, ap);
	va_end(ap);
	snprintf(g->hint, sizeof(g->hint), "%s", hint);
	return G_PAUSE;
}

/* progress: one updating line on a terminal, nothing in a pipe. */
static void
progress(struct mig *g, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void
progress(struct mig *g, const char *fmt, ...)
{
	va_list ap;

	if (!g->tty)
		return;
	fputs("\r\033[K", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
}

static void
progress_end(struct mig *g)
{
	if (g->tty)
		fputs("\r\033[K", stderr);
}

static bool
has_check(const char *checks, const char *name)
{
	size_t n = strlen(name);
	const char *p = checks;

	while ((p = strstr(p, name)) != NULL) {
		if ((p == checks || p[-1] == ',') && (p[n] == ',' ||
		    p[n] == '\0'))
			return true;
		p += n;
	}
	return false;
}

static bool
in_batch(const struct mig *g, int id)
{
	int i;

	for (i = 0; i < g->nbatch; i++)
		if (g->batch[i] == id)
			return true;
	return false;
}

static const struct ceph_osd *
osd_of(const struct ceph_map *m, int id)
{
	int i;

	for (i = 0; i < m->nosds; i++)
		if (m->osds[i].id == id)
			return &m->osds[i];
	return NULL;
}

/* obs_map reads 'osd dump' into g->cur. */
static int
obs_map(struct mig *g)
{
	const char *a[] = { "osd", "dump", NULL };
	cJSON *j;
	int rc;

	if (ceph_run(&g->o->co, a, &j, g->err) == -1)
		return -1;
	memset(g->cur, 0, sizeof(*g->cur));
	rc = ceph_parse_osd_dump(j, g->cur, g->err);
	cJSON_Delete(j);
	return rc;
}

static int
obs_health(struct mig *g, struct ceph_health *h)
{
	const char *a[] = { "health", "detail", NULL };
	cJSON *j;
	int rc;

	if (ceph_run(&g->o->co, a, &j, g->err) == -1)
		return -1;
	rc = ceph_parse_health_detail(j, h, g->err);
	cJSON_Delete(j);
	return rc;
}

/* watch: what pauses a migration whatever step it is in. Reads the OSD
 * map and health; G_PAUSE with the reason. */
static int
watch(struct mig *g, struct ceph_health *h)
{
	double now = mono();
	int i;

	if (obs_map(g) == -1 || obs_health(g, h) == -1)
		return G_ERROR;
	if (has_check(h->checks, "MON_DOWN"))
		return pause_at(g, "bring the monitors back to quorum first",
		    "MON_DOWN: a monitor is down");
	if (has_check(h->checks, "PG_DAMAGED") ||
	    has_check(h->checks, "OBJECT_UNFOUND"))
		return pause_at(g, "repair the PGs (ceph health detail) before "
		    "anything else restarts", "%s raised",
		    has_check(h->checks, "PG_DAMAGED") ? "PG_DAMAGED" :
		    "OBJECT_UNFOUND");
	if (!has_check(h->checks, "PG_AVAILABILITY"))
		g->pga_since = 0;
	else if (g->pga_since == 0)
		g->pga_since = now;
	else if (now - g->pga_since > g->o->inactive_limit)
		return pause_at(g, "PGs cannot peer: check that the restarted "
		    "OSDs reach their peers on the cluster network (both "
		    "networks during the transition); then --resume, or "
		    "--rollback", "PG_AVAILABILITY for %.0f s: PGs inactive",
		    now - g->pga_since);
	if (!has_check(h->checks, "SLOW_OPS"))
		g->slow_since = 0;
	else if (g->slow_since == 0)
		g->slow_since = now;
	else if (now - g->slow_since > g->o->slow_ops_limit)
		return pause_at(g, "find what is slow before restarting more "
		    "OSDs", "SLOW_OPS for %.0f s", now - g->slow_since);
	/* OSDs outside the batch must stay as they were. */
	for (i = 0; i < g->base->nosds; i++) {
		const struct ceph_osd *b = &g->base->osds[i], *c;

		if (!b->up || in_batch(g, b->id))
			continue;
		c = osd_of(g->cur, b->id);
		if (c == NULL || !c->up)
			return pause_at(g, "find why it went down (its log, its "
			    "host's links) before restarting another OSD",
			    "osd.%d, outside this batch, is down", b->id);
		if (c->up_from > b->up_from)
			return pause_at(g, "an OSD restarting by itself is "
			    "flapping: find why before going on",
			    "osd.%d, outside this batch, came up again (up_from "
			    "%u -> %u)", b->id, b->up_from, c->up_from);
	}
	return G_PASS;
}

/* accept: the batch's OSDs as they are now become the baseline. */
static void
accept_batch(struct mig *g)
{
	int i;

	for (i = 0; i < g->base->nosds; i++) {
		const struct ceph_osd *c;

		if (in_batch(g, g->base->osds[i].id) &&
		    (c = osd_of(g->cur, g->base->osds[i].id)) != NULL)
			g->base->osds[i] = *c;
	}
}

static int
osds_of(const cJSON *o, int *ids, int max)
{
	const cJSON *v;
	int n = 0;

	cJSON_ArrayForEach(v, cJSON_GetObjectItem(o, "osds"))
		if (cJSON_IsNumber(v) && v->valuedouble >= 0 &&
		    v->valuedouble <= 1e6 && n < max)
			ids[n++] = (int)v->valuedouble;
	return n;
}

/* restart_ev: this journal's latest 'restart' event for step n, osd. */
static const cJSON *
restart_ev(const struct mig *g, int n, int osd)
{
	const cJSON *e, *found = NULL;

	cJSON_ArrayForEach(e, g->events) {
		const cJSON *ev = cJSON_GetObjectItem(e, "event");

		if (cJSON_IsString(ev) && strcmp(ev->valuestring, "restart") ==
		    0 && cJSON_GetObjectItem(e, "n") &&
		    cJSON_GetObjectItem(e, "n")->valueint == n &&
		    cJSON_GetObjectItem(e, "osd") &&
		    cJSON_GetObjectItem(e, "osd")->valueint == osd)
			found = e;
	}
	return found;
}

static int
jadd(struct mig *g, cJSON *ev)
{
	if (!g->o->execute) {
		cJSON_Delete(ev);
		return 0;
	}
	cJSON_AddItemToArray(g->events, cJSON_Duplicate(ev, 1));
	return journal_add(&g->jn, ev, g->err);
}

/* --- gates ----------------------------------------------------------------- */

typedef int (*gate_fn)(struct mig *, const cJSON *gate, int n, char *state,
    size_t slen);

/* gate_loop polls fn until it passes, pauses or the timeout. */
static int
gate_loop(struct mig *g, const cJSON *gate, int n, gate_fn fn,
    const char *what)
{
	double t0 = mono(), timeout = 300;
	char state[256] = "";
	int rc;

	pj_opt_double(gate, "timeout_s", 1, 86400, 300, &timeout, g->err);
	for (;;) {
		rc = fn(g, gate, n, state, sizeof(state));
		if (rc != 1)
			break;
		if (mono() - t0 > timeout) {
			progress_end(g);
			return pause_at(g, "see what holds it (ceph -s, ceph "
			    "health detail); fix it, then --resume, or "
			    "--rollback", "%s not met in %.0f s: %s", what,
			    timeout, state);
		}
		progress(g, "  %s: %s (%.0f s)", what, state, mono() - t0);
		usleep((useconds_t)(g->o->poll * 1e6));
	}
	progress_end(g);
	return rc == 0 ? G_PASS : rc == 2 ? G_PAUSE : G_ERROR;
}

/* Each gate check returns 0 passed, 1 not yet, 2 pause, 3 error. */
#define CHECK_WATCH(g, h) do {						\
	int w_ = watch(g, h);						\
	if (w_ != G_PASS)						\
		return w_ == G_PAUSE ? 2 : 3;				\
} while (0)

static int
chk_flag(struct mig *g, const cJSON *gate, int n, char *st, size_t sl)
{
	const char *flag = "noout";
	char f[300];

	(void)n;
	pj_opt_str(gate, "flag", 1, 64, "noout", &flag, g->err);
	if (obs_map(g) == -1)
		return 3;
	snprintf(f, sizeof(f), ",%s,", g->cur->flags);
	snprintf(st, sl, "flags %s", g->cur->flags);
	{
		char want[80];

		snprintf(want, sizeof(want), ",%s,", flag);
		return strstr(f, want) ? 0 : 1;
	}
}

static int
chk_config(struct mig *g, const cJSON *gate, int n, char *st, size_t sl)
{
	const char *a[] = { "config", "dump", NULL };
	const cJSON *e;
	cJSON *j;
	int rc = 0;

	(void)n;
	if (ceph_run(&g->o->co, a, &j, g->err) == -1)
		return 3;
	cJSON_ArrayForEach(e, cJSON_GetObjectItem(gate, "expect")) {
		const char *who = "";
		const cJSON *v = cJSON_GetObjectItem(e, "value");
		char val[256];
		int f;

		pj_get_str(e, "who", 1, 128, &who, g->err);
		f = ceph_config_lookup(j, who, "cluster_network", val,
		    sizeof(val), g->err);
		if (f == -1) {
			rc = 3;
			break;
		}
		if (cJSON_IsString(v) ? f == 1 && strcmp(val, v->valuestring)
		    == 0 : f == 0)
			continue;
		snprintf(st, sl, "%s cluster_network is %s", who, f ? val :
		    "not set");
		rc = 1;
		break;
	}
	cJSON_Delete(j);
	return rc;
}

static int
chk_ok_to_stop(struct mig *g, const cJSON *gate, int n, char *st, size_t sl)
{
	const char *a[64] = { "osd", "ok-to-stop" };
	char ids[256][12];
	int osd[256], k = osds_of(gate, osd, 250), i, rc;
	struct ceph_health h;
	struct ceph_ok_to_stop ok;
	cJSON *j;

	(void)n;
	for (i = 0; i < k && i < 60; i++) {
		snprintf(ids[i], sizeof(ids[i]), "%d", osd[i]);
		a[2 + i] = ids[i];
	}
	a[2 + i] = NULL;
	CHECK_WATCH(g, &h);
	rc = ceph_run(&g->o->co, a, &j, g->err);
	if (rc == -1)
		return 3;
	if (ceph_parse_ok_to_stop(j, &ok, g->err) == -1) {
		cJSON_Delete(j);
		return 3;
	}
	cJSON_Delete(j);
	snprintf(st, sl, "ok-to-stop refuses: %d PGs would not be ok",
	    ok.num_not_ok_pgs);
	return rc == 0 && ok.ok ? 0 : 1;
}

static int
chk_moved(struct mig *g, const cJSON *gate, int n, char *st, size_t sl)
{
	int osd[256], k = osds_of(gate, osd, 256), i, moved = 0;
	char a1[NETADDR_STRLEN], a2[NETADDR_STRLEN];
	struct ceph_health h;

	CHECK_WATCH(g, &h);
	for (i = 0; i < k; i++) {
		const struct ceph_osd *c = osd_of(g->cur, osd[i]);
		const cJSON *ev = restart_ev(g, n, osd[i]);
		double before = 0;
		const char *pub = "";
		struct netaddr pa;

		pj_opt_double(ev, "up_from", 0, 4294967295.0, 0, &before,
		    g->err);
		pj_opt_str(ev, "pub", 0, 64, "", &pub, g->err);
		if (c == NULL || !c->up || c->up_from <= (uint32_t)before)
			continue;
		if (!netcidr_contains(&g->to, &c->clus) ||
		    !netcidr_contains(&g->to, &c->hb_back))
			return pause_at(g, "the OSD picked another address: "
			    "check the host's addresses in the new network and "
			    "the mask ('ceph config show osd.N cluster_network'"
			    "); --rollback to undo",
			    "osd.%d came up with cluster address %s and back "
			    "heartbeat %s, not in %s", osd[i], netaddr_str(
			    &c->clus, a1, sizeof(a1)), netaddr_str(&c->hb_back,
			    a2, sizeof(a2)), g->to_s) == G_PAUSE ? 2 : 2;
		if (pub[0] && netaddr_parse(pub, &pa) == 0 &&
		    !netaddr_equal(&pa, &c->pub))
			return pause_at(g, "the public address must not move "
			    "in a cluster_network cutover: check public_network",
			    "osd.%d's public address moved from %s to %s",
			    osd[i], pub, netaddr_str(&c->pub, a1, sizeof(a1))) ==
			    G_PAUSE ? 2 : 2;
		moved++;
	}
	snprintf(st, sl, "%d of %d OSDs up on %s", moved, k, g->to_s);
	return moved == k ? 0 : 1;
}

static int
chk_clean(struct mig *g, const cJSON *gate, int n, char *st, size_t sl)
{
	const char *a[] = { "pg", "dump", "pgs", NULL };
	int osd[256], k = osds_of(gate, osd, 256), i;
	uint32_t epoch = 0;
	struct ceph_health h;
	struct ceph_pgdump d;
	cJSON *j;

	(void)n;
	CHECK_WATCH(g, &h);
	for (i = 0; i < k; i++) {
		const struct ceph_osd *c = osd_of(g->cur, osd[i]);

		if (c && c->up_from > epoch)
			epoch = c->up_from;
	}
	if (ceph_run(&g->o->co, a, &j, g->err) == -1)
		return 3;
	if (ceph_parse_pg_dump(j, epoch, &d, g->err) == -1) {
		cJSON_Delete(j);
		return 3;
	}
	cJSON_Delete(j);
	snprintf(st, sl, "%d of %d PGs active+clean since epoch %u%s%s",
	    d.fresh_clean, d.num_pgs, epoch, d.stuck[0] ? ", e.g. " : "",
	    d.stuck);
	return d.num_pgs > 0 && d.fresh_clean == d.num_pgs &&
	    (!d.has_ready || d.ready) ? 0 : 1;
}

/* settle: the whole time must pass with the batch's OSDs up and no slow
 * back-network ping naming them. */
static int
chk_settle(struct mig *g, const cJSON *gate, int n, char *st, size_t sl)
{
	static double t0;
	static int step = -1;
	double secs = 40;
	int osd[256], k = osds_of(gate, osd, 256), i;
	struct ceph_health h;

	if (step != n) {
		step = n;
		t0 = mono();
	}
	pj_opt_double(gate, "seconds", 0, 86400, 40, &secs, g->err);
	CHECK_WATCH(g, &h);
	for (i = 0; i < k; i++) {
		const struct ceph_osd *c = osd_of(g->cur, osd[i]);
		char name[24];
		const char *p;

		if (c == NULL || !c->up) {
			step = -1;
			pause_at(g, "a restarted OSD went down while settling: "
			    "check its peers on the new network; --rollback "
			    "to undo", "osd.%d went down while settling",
			    osd[i]);
			return 2;
		}
		snprintf(name, sizeof(name), "osd.%d ", osd[i]);
		for (p = h.text; (p = strstr(p, "OSD_SLOW_PING_TIME_BACK"));
		    p++) {
			const char *eol = strchr(p, '\n');
			const char *hit = strstr(p, name);

			if (hit && (eol == NULL || hit < eol)) {
				step = -1;
				pause_at(g, "the back network is slow for a "
				    "moved OSD: measure it (cephfab matrix) "
				    "before going on", "OSD_SLOW_PING_TIME_BACK "
				    "names osd.%d", osd[i]);
				return 2;
			}
		}
	}
	snprintf(st, sl, "settling, %.0f of %.0f s", mono() - t0, secs);
	if (mono() - t0 < secs)
		return 1;
	step = -1;
	return 0;
}

/* --- steps ----------------------------------------------------------------- */

int
mig_restart_argv(const char *tmpl, int osd, const char *host, char *buf,
    size_t blen, const char **argv, int maxargs, char *err)
{
	size_t off = 0;
	int n = 0;
	const char *p = tmpl;

	while (*p) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == '\0')
			break;
		if (n == maxargs - 1)
			goto toolong;
		argv[n++] = buf + off;
		while (*p && *p != ' ' && *p != '\t') {
			const char *sub = NULL;
			char num[16];
			size_t l;

			if (strncmp(p, "{osd}", 5) == 0) {
				snprintf(num, sizeof(num), "%d", osd);
				sub = num;
				p += 5;
			} else if (strncmp(p, "{host}", 6) == 0) {
				sub = host;
				p += 6;
			}
			l = sub ? strlen(sub) : 1;
			if (off + l + 1 >= blen)
				goto toolong;
			memcpy(buf + off, sub ? sub : p, l);
			off += l;
			if (sub == NULL)
				p++;
		}
		buf[off++] = '\0';
	}
	argv[n] = NULL;
	if (n == 0) {
		snprintf(err, CF_ERRLEN, "--restart-cmd: empty");
		return -1;
	}
	return 0;
toolong:
	snprintf(err, CF_ERRLEN, "--restart-cmd: too long once {osd} and "
	    "{host} are filled in");
	return -1;
}

static int
restart_one(struct mig *g, const cJSON *d, int osd)
{
	const char *host = "";
	char key[16], buf[2048], out[CF_ERRLEN];
	const char *argv[64];
	char *o = NULL;
	int rc;

	snprintf(key, sizeof(key), "%d", osd);
	pj_opt_str(cJSON_GetObjectItem(d, "hosts"), key, 0, 255, "", &host,
	    g->err);
	if (g->o->restart_cmd == NULL && strcmp(cJSON_GetObjectItem(g->plan,
	    "deploy") ? cJSON_GetObjectItem(g->plan, "deploy")->valuestring :
	    "", "cephadm") == 0) {
		char name[24];
		const char *a[] = { "orch", "daemon", "restart", name, NULL };

		snprintf(name, sizeof(name), "osd.%d", osd);
		rc = ceph_cmd(&g->o->co, a, g->err);
		return rc == 0 ? G_PASS : pause_at(g, "restart it by hand, "
		    "then --resume", "osd.%d: %s", osd, g->err);
	}
	if (mig_restart_argv(g->o->restart_cmd ? g->o->restart_cmd :
	    "ssh {host} systemctl restart ceph-osd@{osd}", osd, host, buf,
	    sizeof(buf), argv, 64, g->err) == -1)
		return G_ERROR;
	rc = child_run(argv, 180, CHILD_STDERR, &o, NULL, 1 << 16, out);
	if (rc != 0) {
		char *nl;

		while (o && (nl = strrchr(o, '\n')) && nl[1] == '\0')
			*nl = '\0';
		nl = o ? strrchr(o, '\n') : NULL;
		pause_at(g, "restart it by hand (or fix the command), then "
		    "--resume", "osd.%d: restart command '%s' %s%s%.200s", osd,
		    argv[0], rc == -1 ? out : "failed", o ? ": " : "",
		    nl ? nl + 1 : o ? o : "");
		free(o);
		return G_PAUSE;
	}
	free(o);
	return G_PASS;
}

/* do_restart: each OSD restarted once per phase. An OSD the journal
 * says was restarted and is now up with a higher up_from is done; one
 * down is on its way; one up as before had the command lost: again. */
static int
do_restart(struct mig *g, const cJSON *d, int n)
{
	int osd[256], k = osds_of(d, osd, 256), i, rc;
	char a[NETADDR_STRLEN];

	if (obs_map(g) == -1)
		return G_ERROR;
	for (i = 0; i < k; i++) {
		const struct ceph_osd *c = osd_of(g->cur, osd[i]);
		const cJSON *ev = restart_ev(g, n, osd[i]);
		cJSON *e;

		if (c == NULL)
			return pause_at(g, "the plan does not match the "
			    "cluster: make a new plan", "osd.%d is not in the "
			    "OSD map", osd[i]);
		if (ev) {
			double before = 0;

			pj_opt_double(ev, "up_from", 0, 4294967295.0, 0,
			    &before, g->err);
			if (c->up_from > (uint32_t)before || !c->up) {
				printf("       osd.%d: restarted before "
				    "(journal), not again\n", osd[i]);
				continue;
			}
		}
		e = cJSON_CreateObject();
		cJSON_AddStringToObject(e, "event", "restart");
		cJSON_AddNumberToObject(e, "n", n);
		cJSON_AddNumberToObject(e, "osd", osd[i]);
		cJSON_AddNumberToObject(e, "up_from", c->up_from);
		cJSON_AddStringToObject(e, "pub", netaddr_str(&c->pub, a,
		    sizeof(a)));
		/* Journaled before it happens: a kill between the two
		 * leaves an OSD up as before, restarted on --resume. */
		if (jadd(g, e) == -1)
			return G_ERROR;
		printf("       restart osd.%d\n", osd[i]);
		fflush(stdout);
		g->restart_t = mono();
		if ((rc = restart_one(g, d, osd[i])) != G_PASS)
			return rc;
	}
	return G_PASS;
}

static int
do_ceph(struct mig *g, const cJSON *d)
{
	const cJSON *cmd, *w;

	cJSON_ArrayForEach(cmd, cJSON_GetObjectItem(d, "argv")) {
		const char *a[16];
		int k = 0;

		cJSON_ArrayForEach(w, cmd)
			if (cJSON_IsString(w) && k < 15)
				a[k++] = w->valuestring;
		a[k] = NULL;
		if (k == 0)
			continue;
		if (ceph_cmd(&g->o->co, a, g->err) != 0)
			return pause_at(g, "see the CLI's message; fix it, then "
			    "--resume", "%s", g->err);
	}
	return G_PASS;
}

static bool
step_done(const struct mig *g, int n)
{
	const cJSON *e;

	cJSON_ArrayForEach(e, g->events) {
		const cJSON *ev = cJSON_GetObjectItem(e, "event");

		if (cJSON_IsString(ev) && strcmp(ev->valuestring, "done") == 0 &&
		    cJSON_GetObjectItem(e, "n") &&
		    cJSON_GetObjectItem(e, "n")->valueint == n)
			return true;
	}
	return false;
}

static int
run_gate(struct mig *g, const cJSON *gate, int n)
{
	const char *kind = "";
	int rc;

	if (gate == NULL)
		return G_PASS;
	pj_get_str(gate, "kind", 1, 32, &kind, g->err);
	if (strcmp(kind, "flag") == 0)
		return gate_loop(g, gate, n, chk_flag, "noout set");
	if (strcmp(kind, "config") == 0)
		return gate_loop(g, gate, n, chk_config, "configuration");
	if (strcmp(kind, "ok_to_stop") == 0) {
		g->nbatch = osds_of(gate, g->batch, 256);
		rc = gate_loop(g, gate, n, chk_ok_to_stop, "ok-to-stop");
		if (rc == G_PAUSE && strstr(g->why, "not met"))
			snprintf(g->hint, sizeof(g->hint), "stopping these OSDs "
			    "would leave PGs without enough copies: wait for "
			    "recovery, then --resume");
		return rc;
	}
	if (strcmp(kind, "osds_moved") == 0) {
		g->nbatch = osds_of(gate, g->batch, 256);
		rc = gate_loop(g, gate, n, chk_moved, "OSDs back on the new "
		    "network");
		if (rc == G_PASS)
			accept_batch(g);
		return rc;
	}
	if (strcmp(kind, "pgs_clean") == 0) {
		rc = gate_loop(g, gate, n, chk_clean, "PGs active+clean");
		if (rc == G_PASS && g->restart_t > 0) {
			g->max_unclean = fmax(g->max_unclean, mono() -
			    g->restart_t);
			g->restart_t = 0;
		}
		return rc;
	}
	if (strcmp(kind, "settle") == 0) {
		rc = gate_loop(g, gate, n, chk_settle, "settle");
		if (rc == G_PASS) {
			accept_batch(g);
			g->nbatch = 0;
		}
		return rc;
	}
	snprintf(g->err, CF_ERRLEN, "step %d: unknown gate kind '%s'", n,
	    kind);
	return G_ERROR;
}

/* --- the run ---------------------------------------------------------------- */

static void
print_step(const cJSON *s, int n, int total, const char *tag)
{
	const char *name = "", *host = "";
	const cJSON *c;
	char err[CF_ERRLEN];

	pj_opt_str(s, "name", 0, 128, "", &name, err);
	pj_opt_str(s, "host", 0, 256, "", &host, err);
	printf("[%2d/%d] %s%s%s%s\n", n, total, name, host[0] ? " on " : "",
	    host, tag);
	if (tag[0] == '\0')
		return;
	cJSON_ArrayForEach(c, cJSON_GetObjectItem(s, "commands"))
		printf("       $ %s\n", c->valuestring);
	if ((c = cJSON_GetObjectItem(s, "gate")) != NULL &&
	    cJSON_IsString(cJSON_GetObjectItem(c, "why")))
		printf("       gate: %s\n", cJSON_GetObjectItem(c,
		    "why")->valuestring);
}

static cJSON *
ev_new(const char *kind, int n)
{
	cJSON *e = cJSON_CreateObject();

	cJSON_AddStringToObject(e, "event", kind);
	if (n > 0)
		cJSON_AddNumberToObject(e, "n", n);
	return e;
}

static int
run_steps(struct mig *g, cJSON *report)
{
	const cJSON *s;
	int n = 0, rc;

	cJSON_ArrayForEach(s, g->steps) {
		const cJSON *d = cJSON_GetObjectItem(s, "do");
		const char *opk = "none";
		double t0 = mono();
		cJSON *r, *e;

		n++;
		if (step_done(g, n)) {
			if (!g->o->execute)
				print_step(s, n, g->nsteps, " (done)");
			continue;
		}
		if (!g->o->execute) {
			print_step(s, n, g->nsteps, " (would run)");
			continue;
		}
		print_step(s, n, g->nsteps, "");
		fflush(stdout);
		if (jadd(g, ev_new("step", n)) == -1)
			return G_ERROR;
		pj_opt_str(d, "op", 1, 16, "none", &opk, g->err);
		if (strcmp(opk, "ceph") == 0)
			rc = do_ceph(g, d);
		else if (strcmp(opk, "restart") == 0)
			rc = do_restart(g, d, n);
		else
			rc = G_PASS;
		if (rc == G_PASS)
			rc = run_gate(g, cJSON_GetObjectItem(s, "gate"), n);
		if (rc != G_PASS) {
			if (rc == G_PAUSE) {
				e = ev_new("pause", n);
				cJSON_AddStringToObject(e, "reason", g->why);
				jadd(g, e);
				printf("PAUSED at step %d: %s\n  what to do: %s\n",
				    n, g->why, g->hint);
			}
			return rc;
		}
		e = ev_new("done", n);
		cJSON_AddNumberToObject(e, "duration_s", round((mono() - t0) *
		    10) / 10);
		if (jadd(g, e) == -1)
			return G_ERROR;
		printf("       done in %.1f s\n", mono() - t0);
		r = cJSON_CreateObject();
		cJSON_AddNumberToObject(r, "n", n);
		cJSON_AddItemToObject(r, "name", cJSON_Duplicate(
		    cJSON_GetObjectItem(s, "name"), 1));
		cJSON_AddNumberToObject(r, "duration_s", round((mono() - t0) *
		    10) / 10);
		cJSON_AddItemToArray(report, r);
	}
	return G_PASS;
}

static cJSON *
load_plan(const char *path, char *err)
{
	FILE *f = fopen(path, "r");
	char *buf;
	long len;
	cJSON *p;

	if (f == NULL) {
		snprintf(err, CF_ERRLEN, "%s: %s", path, strerror(errno));
		return NULL;
	}
	if (fseek(f, 0, SEEK_END) == -1 || (len = ftell(f)) < 0 ||
	    len > (16 << 20) || fseek(f, 0, SEEK_SET) == -1 ||
	    (buf = malloc((size_t)len + 1)) == NULL) {
		snprintf(err, CF_ERRLEN, "%s: unreadable or over 16 MB", path);
		fclose(f);
		return NULL;
	}
	if (fread(buf, 1, (size_t)len, f) != (size_t)len) {
		snprintf(err, CF_ERRLEN, "%s: read error", path);
		free(buf);
		fclose(f);
		return NULL;
	}
	fclose(f);
	p = cJSON_ParseWithLength(buf, (size_t)len);
	free(buf);
	if (p == NULL)
		snprintf(err, CF_ERRLEN, "%s: not JSON (a plan from 'cephfab "
		    "plan --out')", path);
	return p;
}

/* check_plan: the fields migrate relies on, named when wrong. */
static int
check_plan(const cJSON *p, const char *path, char *err)
{
	const cJSON *steps, *s;
	const char *to;
	struct netcidr c;
	int i = 0, n;

	if (pj_get_str(p, "to", 1, 64, &to, err) == -1 ||
	    netcidr_parse(to, &c) == -1) {
		snprintf(err, CF_ERRLEN, "%s: \"to\": not a network", path);
		return -1;
	}
	if (pj_get_arr(p, "steps", 1, 100000, &steps, &n, err) == -1)
		goto bad;
	cJSON_ArrayForEach(s, steps) {
		const cJSON *d, *g;
		const char *k;
		char ctx[64];

		i++;
		if (pj_get_str(s, "name", 1, 128, &k, err) == -1 ||
		    pj_opt_obj(s, "do", &d, err) == -1 ||
		    (d && pj_get_str(d, "op", 1, 16, &k, err) == -1) ||
		    (d && strcmp(k, "ceph") && strcmp(k, "restart") &&
		    strcmp(k, "none") && (snprintf(err, CF_ERRLEN, "op: '%s' "
		    "unknown", k), 1)) ||
		    pj_opt_obj(s, "gate", &g, err) == -1 ||
		    (g && pj_get_str(g, "kind", 1, 32, &k, err) == -1)) {
			snprintf(ctx, sizeof(ctx), "%s: steps[%d]", path, i - 1);
			{
				char tmp[CF_ERRLEN];

				snprintf(tmp, sizeof(tmp), "%s: %s", ctx, err);
				snprintf(err, CF_ERRLEN, "%s", tmp);
			}
			return -1;
		}
	}
	return 0;
bad:
	{
		char tmp[CF_ERRLEN];

		snprintf(tmp, sizeof(tmp), "%s: %s", path, err);
		snprintf(err, CF_ERRLEN, "%s", tmp);
	}
	return -1;
}

int
mig_run(const struct mig_opts *o)
{
	struct mig g;
	char jpath[4200], err[CF_ERRLEN];
	const char *phase = o->rollback ? "rollback" : "migrate";
	cJSON *plan, *fwd = NULL, *report, *doc, *e;
	int rc = EXIT_PASS, r;
	double t0 = mono();

	memset(&g, 0, sizeof(g));
	g.o = o;
	g.jn.fd = -1;
	g.tty = isatty(STDERR_FILENO);
	if ((plan = load_plan(o->plan_path, err)) == NULL ||
	    check_plan(plan, o->plan_path, err) == -1) {
		fprintf(stderr, "cephfab: migrate: %s\n", err);
		cJSON_Delete(plan);
		return EXIT_USAGE;
	}
	snprintf(jpath, sizeof(jpath), "%s", o->journal_path ?
	    o->journal_path : o->plan_path);
	if (o->journal_path == NULL)
		strncat(jpath, ".journal", sizeof(jpath) - strlen(jpath) - 1);
	if (o->rollback) {
		/* The reverse plan comes from the forward journal; a
		 * resumed rollback reads it back from its own. */
		char rpath[4300];
		cJSON *rev = NULL, *b;

		snprintf(rpath, sizeof(rpath), "%s.rollback", jpath);
		if (o->resume && journal_read(rpath, &rev, err) == 0 &&
		    (b = cJSON_GetArrayItem(rev, 0)) != NULL &&
		    cJSON_IsObject(cJSON_GetObjectItem(b, "plan"))) {
			fwd = cJSON_DetachItemFromObject(b, "plan");
		} else {
			if (journal_read(jpath, &rev, err) == -1) {
				fprintf(stderr, "cephfab: migrate: --rollback: "
				    "%s\n", err);
				cJSON_Delete(plan);
				return EXIT_USAGE;
			}
			fwd = plan_rollback(plan, rev, err);
		}
		cJSON_Delete(rev);
		if (fwd == NULL) {
			fprintf(stderr, "cephfab: migrate: --rollback: %s\n",
			    err);
			cJSON_Delete(plan);
			return EXIT_USAGE;
		}
		cJSON_Delete(plan);
		plan = fwd;
		snprintf(jpath, sizeof(jpath), "%s", rpath);
	}
	g.plan = plan;
	g.steps = cJSON_GetObjectItem(plan, "steps");
	g.nsteps = cJSON_GetArraySize(g.steps);
	g.to_s = cJSON_GetObjectItem(plan, "to")->valuestring;
	netcidr_parse(g.to_s, &g.to);
	g.base = calloc(1, sizeof(*g.base));
	g.cur = calloc(1, sizeof(*g.cur));
	if (g.base == NULL || g.cur == NULL) {
		rc = EXIT_RUNTIME;
		goto out;
	}
	if (o->execute) {
		if (journal_open(&g.jn, jpath, o->resume, &g.events, err) ==
		    -1) {
			fprintf(stderr, "cephfab: migrate: %s\n", err);
			rc = access(jpath, F_OK) == 0 && !o->resume ?
			    EXIT_USAGE : EXIT_RUNTIME;
			goto out;
		}
	} else if (access(jpath, F_OK) == 0 && journal_read(jpath, &g.events,
	    err) == -1) {
		fprintf(stderr, "cephfab: migrate: %s\n", err);
		rc = EXIT_USAGE;
		goto out;
	}
	if (g.events == NULL)
		g.events = cJSON_CreateArray();
	if (cJSON_GetArraySize(g.events) == 0) {
		e = ev_new("begin", 0);
		cJSON_AddStringToObject(e, "phase", phase);
		cJSON_AddStringToObject(e, "to", g.to_s);
		cJSON_AddNumberToObject(e, "steps", g.nsteps);
		if (o->rollback)
			cJSON_AddItemToObject(e, "plan", cJSON_Duplicate(plan,
			    1));
		if (jadd(&g, e) == -1) {
			fprintf(stderr, "cephfab: migrate: %s\n", g.err);
			rc = EXIT_RUNTIME;
			goto out;
		}
	} else {
		const cJSON *b = cJSON_GetArrayItem(g.events, 0);
		const cJSON *to = cJSON_GetObjectItem(b, "to");
		const cJSON *ns = cJSON_GetObjectItem(b, "steps");

		if (!cJSON_IsString(to) || strcmp(to->valuestring, g.to_s) ||
		    !cJSON_IsNumber(ns) || ns->valueint != g.nsteps) {
			fprintf(stderr, "cephfab: migrate: %s: this journal is "
			    "of another plan\n", jpath);
			rc = EXIT_USAGE;
			goto out;
		}
	}
	if (o->execute) {
		const cJSON *last = cJSON_GetArrayItem(g.events,
		    cJSON_GetArraySize(g.events) - 1);

		if (strcmp(cJSON_GetObjectItem(last, "event")->valuestring,
		    "end") == 0) {
			printf("%s: %s says it is complete: nothing to do\n",
			    phase, jpath);
			goto out;
		}
	}
	printf("%s: cluster_network -> %s, %d steps%s\n", phase, g.to_s,
	    g.nsteps, o->execute ? "" : " (dry run: nothing is changed; "
	    "--execute runs them)");
	if (o->execute) {
		if (obs_map(&g) == -1) {
			fprintf(stderr, "cephfab: migrate: %s\n", g.err);
			rc = EXIT_RUNTIME;
			goto out;
		}
		*g.base = *g.cur;
	}
	report = cJSON_CreateArray();
	r = run_steps(&g, report);
	if (r == G_ERROR) {
		fprintf(stderr, "cephfab: migrate: %s\n", g.err);
		rc = EXIT_RUNTIME;
	} else if (r == G_PAUSE)
		rc = EXIT_PROBLEMS;
	if (o->execute && r == G_PASS) {
		doc = cJSON_CreateObject();
		cJSON_AddStringToObject(doc, "phase", phase);
		cJSON_AddStringToObject(doc, "to", g.to_s);
		cJSON_AddNumberToObject(doc, "duration_s", round((mono() - t0) *
		    10) / 10);
		cJSON_AddNumberToObject(doc, "longest_unclean_s",
		    round(g.max_unclean * 10) / 10);
		cJSON_AddItemToObject(doc, "steps", report);
		report = NULL;
		e = ev_new("end", 0);
		cJSON_AddItemToObject(e, "report", cJSON_Duplicate(doc, 1));
		if (jadd(&g, e) == -1) {
			fprintf(stderr, "cephfab: migrate: %s\n", g.err);
			rc = EXIT_RUNTIME;
		}
		if (o->json)
			out_json(doc);
		else
			printf("%s complete in %.0f s (this run); longest time "
			    "from a restart to all PGs active+clean: %.1f s\n",
			    phase, mono() - t0, g.max_unclean);
		cJSON_Delete(doc);
	}
	cJSON_Delete(report);
out:
	journal_close(&g.jn);
	cJSON_Delete(g.events);
	cJSON_Delete(plan);
	free(g.base);
	free(g.cur);
	return rc;
}
