/* migrate_gates: observations and gates of a migrate run, see migrate_int.h. */
#include "migrate/migrate_int.h"
#include "clock.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

double
migrate_mono(void)
{
	return clock_mono();
}

int
migrate_pause(struct mig *g, const char *hint, const char *fmt, ...)
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

/* obs_map reads 'osd dump' into g->cur. */
int
migrate_obs_map(struct mig *g)
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

/* lasting: a condition seen now (present) that began at *since: true once
 * it has lasted more than limit seconds; *since is 0 while it is absent. */
static bool
lasting(double *since, bool present, double now, double limit)
{
	if (!present)
		*since = 0;
	else if (*since == 0)
		*since = now;
	else if (now - *since > limit)
		return true;
	return false;
}

/* watch: what pauses a migration whatever step it is in. Reads the OSD
 * map and health; G_PAUSE with the reason. */
static int
watch(struct mig *g, struct ceph_health *h)
{
	double now = migrate_mono();
	int i;

	if (migrate_obs_map(g) == -1 || obs_health(g, h) == -1)
		return G_ERROR;
	if (has_check(h->checks, "MON_DOWN"))
		return migrate_pause(g, "bring the monitors back to quorum first",
		    "MON_DOWN: a monitor is down");
	if (has_check(h->checks, "PG_DAMAGED") ||
	    has_check(h->checks, "OBJECT_UNFOUND"))
		return migrate_pause(g, "repair the PGs (ceph health detail) before "
		    "anything else restarts", "%s raised",
		    has_check(h->checks, "PG_DAMAGED") ? "PG_DAMAGED" :
		    "OBJECT_UNFOUND");
	if (lasting(&g->pga_since, has_check(h->checks, "PG_AVAILABILITY"),
	    now, g->o->inactive_limit))
		return migrate_pause(g, "PGs cannot peer: check that the restarted "
		    "OSDs reach their peers on the cluster network (both "
		    "networks during the transition); then --resume, or "
		    "--rollback", "PG_AVAILABILITY for %.0f s: PGs inactive",
		    now - g->pga_since);
	if (lasting(&g->slow_since, has_check(h->checks, "SLOW_OPS"), now,
	    g->o->slow_ops_limit))
		return migrate_pause(g, "find what is slow before restarting more "
		    "OSDs", "SLOW_OPS for %.0f s", now - g->slow_since);
	/* OSDs outside the batch must stay as they were. */
	for (i = 0; i < g->base->nosds; i++) {
		const struct ceph_osd *b = &g->base->osds[i], *c;

		if (!b->up || in_batch(g, b->id))
			continue;
		c = ceph_osd_find(g->cur, b->id);
		if (c == NULL || !c->up)
			return migrate_pause(g, "find why it went down (its log, its "
			    "host's links) before restarting another OSD",
			    "osd.%d, outside this batch, is down", b->id);
		if (c->up_from > b->up_from)
			return migrate_pause(g, "an OSD restarting by itself is "
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
		    (c = ceph_osd_find(g->cur, g->base->osds[i].id)) != NULL)
			g->base->osds[i] = *c;
	}
}

int
migrate_osds(const cJSON *o, int *ids, int max)
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
const cJSON *
migrate_restart_ev(const struct mig *g, int n, int osd)
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


/* --- gates ----------------------------------------------------------------- */

typedef int (*gate_fn)(struct mig *, const cJSON *gate, int n, char *state,
    size_t slen);

/* gate_loop polls fn until it passes, pauses or the timeout. */
static int
gate_loop(struct mig *g, const cJSON *gate, int n, gate_fn fn,
    const char *what)
{
	double t0 = migrate_mono(), timeout = 300;
	char state[256] = "";
	int rc;

	json_opt_double(gate, "timeout_s", 1, 86400, 300, &timeout, g->err);
	for (;;) {
		rc = fn(g, gate, n, state, sizeof(state));
		if (rc != 1)
			break;
		if (migrate_mono() - t0 > timeout) {
			progress_end(g);
			return migrate_pause(g, "see what holds it (ceph -s, ceph "
			    "health detail); fix it, then --resume, or "
			    "--rollback", "%s not met in %.0f s: %s", what,
			    timeout, state);
		}
		progress(g, "  %s: %s (%.0f s)", what, state, migrate_mono() - t0);
		usleep((useconds_t)(g->o->poll * 1e6));
	}
	progress_end(g);
	/* What the gate saw last, for the journal. */
	snprintf(g->observed, sizeof(g->observed), "%s", state);
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
	json_opt_str(gate, "flag", 1, 64, "noout", &flag, g->err);
	if (migrate_obs_map(g) == -1)
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

		json_get_str(e, "who", 1, 128, &who, g->err);
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
	int osd[256], k = migrate_osds(gate, osd, 250), i, rc;
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
	/* What the journal keeps as the gate's evidence: a pass must read
	 * as one. */
	if (rc == 0 && ok.ok)
		snprintf(st, sl, "ok-to-stop: safe to stop (%d PGs would not "
		    "be ok)", ok.num_not_ok_pgs);
	else
		snprintf(st, sl, "ok-to-stop refuses: %d PGs would not be ok",
		    ok.num_not_ok_pgs);
	return rc == 0 && ok.ok ? 0 : 1;
}

static int
chk_moved(struct mig *g, const cJSON *gate, int n, char *st, size_t sl)
{
	int osd[256], k = migrate_osds(gate, osd, 256), i, moved = 0;
	char a1[NETADDR_STRLEN], a2[NETADDR_STRLEN];
	struct ceph_health h;

	CHECK_WATCH(g, &h);
	for (i = 0; i < k; i++) {
		const struct ceph_osd *c = ceph_osd_find(g->cur, osd[i]);
		const cJSON *ev = migrate_restart_ev(g, n, osd[i]);
		double before = 0;
		const char *pub = "";
		struct netaddr pa;

		json_opt_double(ev, "up_from", 0, 4294967295.0, 0, &before,
		    g->err);
		json_opt_str(ev, "pub", 0, 64, "", &pub, g->err);
		if (c == NULL || !c->up || c->up_from <= (uint32_t)before)
			continue;
		if (!netcidr_contains(&g->to, &c->clus) ||
		    !netcidr_contains(&g->to, &c->hb_back))
			return migrate_pause(g, "the OSD picked another address: "
			    "check the host's addresses in the new network and "
			    "the mask ('ceph config show osd.N cluster_network'"
			    "); --rollback to undo",
			    "osd.%d came up with cluster address %s and back "
			    "heartbeat %s, not in %s", osd[i], netaddr_str(
			    &c->clus, a1, sizeof(a1)), netaddr_str(&c->hb_back,
			    a2, sizeof(a2)), g->to_s) == G_PAUSE ? 2 : 2;
		if (pub[0] && netaddr_parse(pub, &pa) == 0 &&
		    !netaddr_equal(&pa, &c->pub))
			return migrate_pause(g, "the public address must not move "
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
	int osd[256], k = migrate_osds(gate, osd, 256), i;
	uint32_t epoch = 0;
	struct ceph_health h;
	struct ceph_pgdump d;
	cJSON *j;

	(void)n;
	CHECK_WATCH(g, &h);
	for (i = 0; i < k; i++) {
		const struct ceph_osd *c = ceph_osd_find(g->cur, osd[i]);

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
	/* Laggy PGs (a primary that lost its lease) serve no I/O: as bad
	 * as inactive when they last. */
	if (d.laggy == 0)
		g->laggy_since = 0;
	else if (g->laggy_since == 0)
		g->laggy_since = migrate_mono();
	else if (migrate_mono() - g->laggy_since > g->o->inactive_limit) {
		migrate_pause(g, "laggy PGs wait for heartbeats between the "
		    "restarted OSDs and their peers: check the cluster network "
		    "both ways; then --resume, or --rollback", "%d PGs laggy "
		    "for %.0f s", d.laggy, migrate_mono() - g->laggy_since);
		return 2;
	}
	return d.num_pgs > 0 && d.fresh_clean == d.num_pgs &&
	    (!d.has_ready || d.ready) ? 0 : 1;
}

/* settle: the whole time must pass with the batch's OSDs up and no slow
 * back-network ping naming them. */
static int
chk_settle(struct mig *g, const cJSON *gate, int n, char *st, size_t sl)
{
	double secs = 40;
	char spike[160];
	int osd[256], k = migrate_osds(gate, osd, 256), i;
	struct ceph_health h;
	const char *why;

	json_opt_double(gate, "seconds", 0, 86400, 40, &secs, g->err);
	if (g->settle_n != n) {
		g->settle_n = n;
		g->settle_t0 = migrate_mono();
		migrate_watch_start(g, secs);
	}
	CHECK_WATCH(g, &h);
	if (migrate_watch_poll(g, spike, sizeof(spike)) == 1) {
		migrate_pause(g, "find what drops the cluster network's "
		    "traffic (cephfab matrix on it, the switch counters) "
		    "before restarting more OSDs; --rollback to undo",
		    "retransmission spike on the cluster network while "
		    "settling: %s (limit %.1f %%)", spike,
		    g->o->retrans_limit);
		return 2;
	}
	for (i = 0; i < k; i++) {
		const struct ceph_osd *c = ceph_osd_find(g->cur, osd[i]);
		char name[24];
		const char *p;

		if (c == NULL || !c->up) {
			migrate_pause(g, "a restarted OSD went down while settling: "
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
				migrate_pause(g, "the back network is slow for a "
				    "moved OSD: measure it (cephfab matrix) "
				    "before going on", "OSD_SLOW_PING_TIME_BACK "
				    "names osd.%d", osd[i]);
				return 2;
			}
		}
	}
	snprintf(st, sl, "settling, %.0f of %.0f s", migrate_mono() - g->settle_t0,
	    secs);
	if (migrate_mono() - g->settle_t0 < secs)
		return 1;
	/* A watch that saw nothing has not seen the traffic was fine: a
	 * dead watch (or one silenced) must not switch the gate off. */
	if ((why = migrate_watch_silent(g->o->inventory != NULL,
	    g->o->no_traffic_gate, g->watch_pid > 0, g->watch_lines)) != NULL) {
		migrate_pause(g, "check that the agents answer (cephfab -i INV "
		    "watch --net cluster), then --resume; or --resume "
		    "--no-traffic-gate to settle on Ceph's own state alone",
		    "the cluster network's traffic watch gave no samples "
		    "while settling (%s)", why);
		return 2;
	}
	return 0;
}

int
migrate_gate(struct mig *g, const cJSON *gate, int n)
{
	const char *kind = "";
	int rc;

	if (gate == NULL)
		return G_PASS;
	json_get_str(gate, "kind", 1, 32, &kind, g->err);
	if (strcmp(kind, "flag") == 0)
		return gate_loop(g, gate, n, chk_flag, "noout set");
	if (strcmp(kind, "config") == 0)
		return gate_loop(g, gate, n, chk_config, "configuration");
	if (strcmp(kind, "ok_to_stop") == 0) {
		g->nbatch = migrate_osds(gate, g->batch, 256);
		rc = gate_loop(g, gate, n, chk_ok_to_stop, "ok-to-stop");
		if (rc == G_PAUSE && strstr(g->why, "not met"))
			snprintf(g->hint, sizeof(g->hint), "stopping these OSDs "
			    "would leave PGs without enough copies: wait for "
			    "recovery, then --resume");
		return rc;
	}
	if (strcmp(kind, "osds_moved") == 0) {
		g->nbatch = migrate_osds(gate, g->batch, 256);
		rc = gate_loop(g, gate, n, chk_moved, "OSDs back on the new "
		    "network");
		if (rc == G_PASS)
			accept_batch(g);
		return rc;
	}
	if (strcmp(kind, "pgs_clean") == 0) {
		rc = gate_loop(g, gate, n, chk_clean, "PGs active+clean");
		if (rc == G_PASS && g->restart_t > 0) {
			g->max_unclean = fmax(g->max_unclean, migrate_mono() -
			    g->restart_t);
			g->restart_t = 0;
		}
		return rc;
	}
	if (strcmp(kind, "settle") == 0) {
		rc = gate_loop(g, gate, n, chk_settle, "settle");
		g->settle_n = 0;
		migrate_watch_stop(g);
		if (rc == G_PASS && g->watch_pid == 0 && g->o->inventory)
			printf("       cluster network while settling: %d "
			    "samples, retransmissions at most %.2f %%%s%s\n",
			    g->watch_lines, g->watch_max_pct,
			    g->watch_max_pair[0] ? " " : "", g->watch_max_pair);
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
