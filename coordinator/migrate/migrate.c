/* migrate: execute a cutover plan with gates and a journal, see migrate.h. */
#include "migrate/migrate_int.h"
#include "child.h"
#include "migrate/migrate.h"
#include "core/core.h"
#include "json.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

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

/* --- steps ----------------------------------------------------------------- */

int
migrate_restart_argv(const char *tmpl, int osd, const char *host, char *buf,
    size_t blen, const char **argv, int maxargs, char *err)
{
	size_t off = 0;
	int n = 0;
	const char *p = tmpl;

	/* A CRUSH host name that reads as an option ("-oProxyCommand=...")
	 * is never put on a command line. */
	if (host == NULL || host[0] == '\0' || host[0] == '-') {
		snprintf(err, CF_ERRLEN, "osd.%d: host name '%s' cannot go on "
		    "a command line", osd, host ? host : "");
		return -1;
	}
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
	json_opt_str(cJSON_GetObjectItem(d, "hosts"), key, 0, 255, "", &host,
	    g->err);
	if (g->o->restart_cmd == NULL && strcmp(cJSON_GetObjectItem(g->plan,
	    "deploy") ? cJSON_GetObjectItem(g->plan, "deploy")->valuestring :
	    "", "cephadm") == 0) {
		char name[24];
		const char *a[] = { "orch", "daemon", "restart", name, NULL };

		snprintf(name, sizeof(name), "osd.%d", osd);
		rc = ceph_cmd(&g->o->co, a, g->err);
		return rc == 0 ? G_PASS : migrate_pause(g, "restart it by hand, "
		    "then --resume", "osd.%d: %s", osd, g->err);
	}
	if (migrate_restart_argv(g->o->restart_cmd ? g->o->restart_cmd :
	    MIGRATE_RESTART_DEFAULT, osd, host, buf,
	    sizeof(buf), argv, 64, g->err) == -1)
		return G_ERROR;
	rc = child_run(argv, 180, CHILD_STDERR, &o, NULL, 1 << 16, out);
	if (rc != 0) {
		char *nl;

		while (o && (nl = strrchr(o, '\n')) && nl[1] == '\0')
			*nl = '\0';
		nl = o ? strrchr(o, '\n') : NULL;
		migrate_pause(g, "restart it by hand (or fix the command), then "
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
	int osd[256], k = migrate_osds(d, osd, 256), i, rc;
	char a[NETADDR_STRLEN];

	if (migrate_obs_map(g) == -1)
		return G_ERROR;
	for (i = 0; i < k; i++) {
		const struct ceph_osd *c = ceph_osd_find(g->cur, osd[i]);
		const cJSON *ev = migrate_restart_ev(g, n, osd[i]);
		cJSON *e;

		if (c == NULL)
			return migrate_pause(g, "the plan does not match the "
			    "cluster: make a new plan", "osd.%d is not in the "
			    "OSD map", osd[i]);
		if (ev) {
			double before = 0;

			json_opt_double(ev, "up_from", 0, 4294967295.0, 0,
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
		g->restart_t = migrate_mono();
		if ((rc = restart_one(g, d, osd[i])) != G_PASS)
			return rc;
	}
	return G_PASS;
}

/* who_ok: "global" or "osd.N". */
static bool
who_ok(const char *w)
{
	size_t i;

	if (strcmp(w, "global") == 0)
		return true;
	if (strncmp(w, "osd.", 4) != 0 || w[4] == '\0' || strlen(w) > 12)
		return false;
	for (i = 4; w[i]; i++)
		if (w[i] < '0' || w[i] > '9')
			return false;
	return true;
}

bool
migrate_ceph_allowed(const char *const *a, int k)
{
	struct netcidr c;

	if (k == 3 && strcmp(a[0], "osd") == 0 && (strcmp(a[1], "set") == 0 ||
	    strcmp(a[1], "unset") == 0) && strcmp(a[2], "noout") == 0)
		return true;
	if (k < 4 || strcmp(a[0], "config") != 0 || !who_ok(a[2]) ||
	    strcmp(a[3], "cluster_network") != 0)
		return false;
	if (k == 4)
		return strcmp(a[1], "rm") == 0;
	/* A value as Ceph takes it: one network or a comma list. */
	if (k == 5 && strcmp(a[1], "set") == 0 && a[4][0] != '-') {
		char one[64];
		const char *p = a[4], *e;

		do {
			e = strchr(p, ',');
			if ((size_t)(e ? e - p : (long)strlen(p)) >= sizeof(one))
				return false;
			snprintf(one, sizeof(one), "%.*s", e ? (int)(e - p) :
			    (int)strlen(p), p);
			if (netcidr_parse(one, &c) == -1)
				return false;
			p = e ? e + 1 : NULL;
		} while (p);
		return true;
	}
	return false;
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
		/* A plan is a file anyone may edit: only what a plan can
		 * contain runs. */
		if (!migrate_ceph_allowed(a, k)) {
			snprintf(g->err, CF_ERRLEN, "the plan asks for 'ceph "
			    "%s%s%s ...', which no plan contains: refused (was "
			    "it edited?)", a[0], k > 1 ? " " : "", k > 1 ?
			    a[1] : "");
			return G_ERROR;
		}
		if (ceph_cmd(&g->o->co, a, g->err) != 0)
			return migrate_pause(g, "see the CLI's message; fix it, then "
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

/* --- the run ---------------------------------------------------------------- */

static void
print_step(const cJSON *s, int n, int total, const char *tag)
{
	const char *name = "", *host = "";
	const cJSON *c;
	char err[CF_ERRLEN];

	json_opt_str(s, "name", 0, 128, "", &name, err);
	json_opt_str(s, "host", 0, 256, "", &host, err);
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
		double t0 = migrate_mono();
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
		json_opt_str(d, "op", 1, 16, "none", &opk, g->err);
		if (strcmp(opk, "ceph") == 0)
			rc = do_ceph(g, d);
		else if (strcmp(opk, "restart") == 0)
			rc = do_restart(g, d, n);
		else
			rc = G_PASS;
		if (rc == G_PASS)
			rc = migrate_gate(g, cJSON_GetObjectItem(s, "gate"), n);
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
		cJSON_AddNumberToObject(e, "duration_s", round((migrate_mono() - t0) *
		    10) / 10);
		if (cJSON_GetObjectItem(s, "gate"))
			cJSON_AddStringToObject(e, "observed", g->observed);
		if (jadd(g, e) == -1)
			return G_ERROR;
		printf("       done in %.1f s\n", migrate_mono() - t0);
		r = cJSON_CreateObject();
		cJSON_AddNumberToObject(r, "n", n);
		cJSON_AddItemToObject(r, "name", cJSON_Duplicate(
		    cJSON_GetObjectItem(s, "name"), 1));
		cJSON_AddNumberToObject(r, "duration_s", round((migrate_mono() - t0) *
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

	/* A plan its own preflight refused is not one to run. */
	if (cJSON_IsTrue(cJSON_GetObjectItem(p, "refused"))) {
		snprintf(err, CF_ERRLEN, "%s: its preflight refused the "
		    "migration (see its \"preflight\"); fix that and run plan "
		    "again", path);
		return -1;
	}
	if (json_get_str(p, "to", 1, 64, &to, err) == -1 ||
	    netcidr_parse(to, &c) == -1) {
		snprintf(err, CF_ERRLEN, "%s: \"to\": not a network", path);
		return -1;
	}
	if (json_get_arr(p, "steps", 1, 100000, &steps, &n, err) == -1)
		goto bad;
	cJSON_ArrayForEach(s, steps) {
		const cJSON *d, *g;
		const char *k;
		char ctx[64];

		i++;
		if (json_get_str(s, "name", 1, 128, &k, err) == -1 ||
		    json_opt_obj(s, "do", &d, err) == -1 ||
		    (d && json_get_str(d, "op", 1, 16, &k, err) == -1) ||
		    (d && strcmp(k, "ceph") && strcmp(k, "restart") &&
		    strcmp(k, "none") && (snprintf(err, CF_ERRLEN, "op: '%s' "
		    "unknown", k), 1)) ||
		    json_opt_obj(s, "gate", &g, err) == -1 ||
		    (g && json_get_str(g, "kind", 1, 32, &k, err) == -1)) {
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

/* rollback_plan: the reverse of plan, from the forward journal (a
 * resumed rollback reads it back from its own, jpath.rollback, which
 * jpath then names). NULL with err when there is none. */
static cJSON *
rollback_plan(const struct migrate_opts *o, const cJSON *plan, char *jpath,
    size_t jlen, char *err)
{
	char rpath[4300];
	cJSON *rev = NULL, *b, *fwd;

	snprintf(rpath, sizeof(rpath), "%s.rollback", jpath);
	if (o->resume && journal_read(rpath, &rev, err) == 0 &&
	    (b = cJSON_GetArrayItem(rev, 0)) != NULL &&
	    cJSON_IsObject(cJSON_GetObjectItem(b, "plan"))) {
		fwd = cJSON_DetachItemFromObject(b, "plan");
	} else {
		if (journal_read(jpath, &rev, err) == -1)
			return NULL;
		fwd = plan_rollback(plan, rev, err);
	}
	cJSON_Delete(rev);
	if (fwd)
		snprintf(jpath, jlen, "%s", rpath);
	return fwd;
}

/* journal_setup opens (with --execute) or reads the journal, and writes
 * the begin event or checks that the journal is this plan's. EXIT_PASS,
 * or the EXIT_* code with the error printed. */
static int
journal_setup(struct mig *g, const char *jpath, const char *phase)
{
	const struct migrate_opts *o = g->o;
	char err[CF_ERRLEN];
	cJSON *e;

	if (o->execute) {
		if (journal_open(&g->jn, jpath, o->resume, &g->events, err) ==
		    -1) {
			fprintf(stderr, "cephfab: migrate: %s\n", err);
			return access(jpath, F_OK) == 0 && !o->resume ?
			    EXIT_USAGE : EXIT_RUNTIME;
		}
	} else if (access(jpath, F_OK) == 0 && journal_read(jpath, &g->events,
	    err) == -1) {
		fprintf(stderr, "cephfab: migrate: %s\n", err);
		return EXIT_USAGE;
	}
	if (g->events == NULL)
		g->events = cJSON_CreateArray();
	if (cJSON_GetArraySize(g->events) == 0) {
		e = ev_new("begin", 0);
		cJSON_AddStringToObject(e, "phase", phase);
		cJSON_AddStringToObject(e, "to", g->to_s);
		cJSON_AddNumberToObject(e, "steps", g->nsteps);
		if (o->rollback)
			cJSON_AddItemToObject(e, "plan", cJSON_Duplicate(g->plan,
			    1));
		if (jadd(g, e) == -1) {
			fprintf(stderr, "cephfab: migrate: %s\n", g->err);
			return EXIT_RUNTIME;
		}
	} else {
		const cJSON *b = cJSON_GetArrayItem(g->events, 0);
		const cJSON *to = cJSON_GetObjectItem(b, "to");
		const cJSON *ns = cJSON_GetObjectItem(b, "steps");

		if (!cJSON_IsString(to) || strcmp(to->valuestring, g->to_s) ||
		    !cJSON_IsNumber(ns) || ns->valueint != g->nsteps) {
			fprintf(stderr, "cephfab: migrate: %s: this journal is "
			    "of another plan\n", jpath);
			return EXIT_USAGE;
		}
	}
	return EXIT_PASS;
}

/* migrate_done: the end event and the report of a completed run. */
static int
migrate_done(struct mig *g, const char *phase, double t0, cJSON *report)
{
	cJSON *doc = cJSON_CreateObject(), *e;
	int rc = EXIT_PASS;

	cJSON_AddStringToObject(doc, "phase", phase);
	cJSON_AddStringToObject(doc, "to", g->to_s);
	cJSON_AddNumberToObject(doc, "duration_s", round((migrate_mono() - t0) *
	    10) / 10);
	cJSON_AddNumberToObject(doc, "longest_unclean_s",
	    round(g->max_unclean * 10) / 10);
	cJSON_AddItemToObject(doc, "steps", report);
	migrate_probe_stop(g, doc);
	e = ev_new("end", 0);
	cJSON_AddItemToObject(e, "report", cJSON_Duplicate(doc, 1));
	if (jadd(g, e) == -1) {
		fprintf(stderr, "cephfab: migrate: %s\n", g->err);
		rc = EXIT_RUNTIME;
	}
	if (g->o->json)
		out_json(doc);
	else
		printf("%s complete in %.0f s (this run); longest time from a "
		    "restart to all PGs active+clean: %.1f s\n", phase,
		    migrate_mono() - t0, g->max_unclean);
	cJSON_Delete(doc);
	return rc;
}

/* journal_complete: the journal ends with 'end': nothing left to do. */
static bool
journal_complete(const struct mig *g)
{
	const cJSON *last = cJSON_GetArrayItem(g->events,
	    cJSON_GetArraySize(g->events) - 1);

	return strcmp(cJSON_GetObjectItem(last, "event")->valuestring,
	    "end") == 0;
}

int
migrate_run(const struct migrate_opts *o)
{
	struct mig g;
	char jpath[4200], err[CF_ERRLEN];
	const char *phase = o->rollback ? "rollback" : "migrate";
	cJSON *plan, *fwd, *report;
	int rc = EXIT_PASS, r;
	double t0 = migrate_mono();

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
		fwd = rollback_plan(o, plan, jpath, sizeof(jpath), err);
		cJSON_Delete(plan);
		if (fwd == NULL) {
			fprintf(stderr, "cephfab: migrate: --rollback: %s\n",
			    err);
			return EXIT_USAGE;
		}
		plan = fwd;
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
	if ((rc = journal_setup(&g, jpath, phase)) != EXIT_PASS)
		goto out;
	if (o->execute && journal_complete(&g)) {
		printf("%s: %s says it is complete: nothing to do\n", phase,
		    jpath);
		goto out;
	}
	printf("%s: cluster_network -> %s, %d steps%s\n", phase, g.to_s,
	    g.nsteps, o->execute ? "" : " (dry run: nothing is changed; "
	    "--execute runs them)");
	if (o->execute) {
		if (migrate_obs_map(&g) == -1) {
			fprintf(stderr, "cephfab: migrate: %s\n", g.err);
			rc = EXIT_RUNTIME;
			goto out;
		}
		*g.base = *g.cur;
	}
	report = cJSON_CreateArray();
	migrate_probe_start(&g);
	r = run_steps(&g, report);
	if (r == G_ERROR) {
		fprintf(stderr, "cephfab: migrate: %s\n", g.err);
		rc = EXIT_RUNTIME;
	} else if (r == G_PAUSE)
		rc = EXIT_PROBLEMS;
	if (o->execute && r == G_PASS) {
		if (migrate_done(&g, phase, t0, report) != EXIT_PASS)
			rc = EXIT_RUNTIME;
		report = NULL;
	}
	/* Paused or failed: what the client saw so far, all the same. */
	migrate_probe_stop(&g, NULL);
	cJSON_Delete(report);
out:
	journal_close(&g.jn);
	cJSON_Delete(g.events);
	cJSON_Delete(plan);
	free(g.base);
	free(g.cur);
	return rc;
}
