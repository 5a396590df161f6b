/*
 * report_files: a matrix run's result tree written as files (JSON, CSV,
 * JUnit XML, Prometheus text; the HTML in report_html.c), each whole or
 * not at all, and report_render, which builds the tree from the store and
 * prints it and writes them, see report.h.
 */
#include "report/report_int.h"
#include "text.h"
#include "matrix/matrix.h"
#include "core/core.h"
#include "store/store.h"
#include "json.h"

#include <errno.h>
#include <stdbool.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* --- files (the HTML is report_html.c's) ---------------------------- */

static void
xml_esc(FILE *f, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '&': fputs("&amp;", f); break;
		case '"': fputs("&quot;", f); break;
		default: fputc(*s, f);
		}
	}
}

/* explains: when finding f lists the directions it explains
 * (evidence.pairs), *mine says whether s -> d is one of them; false when
 * it lists none (the hosts decide then). */
static bool
explains(const cJSON *f, const char *s, const char *d, bool *mine)
{
	const cJSON *ps = cJSON_GetObjectItem(cJSON_GetObjectItem(f,
	    "evidence"), "pairs"), *p;
	char want[160];

	if (!cJSON_IsArray(ps))
		return false;
	snprintf(want, sizeof(want), "%s->%s", s, d);
	*mine = false;
	cJSON_ArrayForEach(p, ps)
		if (cJSON_IsString(p) && strcmp(p->valuestring, want) == 0)
			*mine = true;
	return true;
}

/* measured: cell c has a measurement for JUnit check k (bandwidth,
 * latency, MTU, ports, egress: the last from any probe of a cell that
 * was not lost). */
static bool
measured(const cJSON *c, int k)
{
	static const char *const key[] = { "gbps", "rtt_p99_us", "path_mtu",
	    "ports" };
	const cJSON *st = cJSON_GetObjectItem(c, "state");
	int i;

	if (k < 4) {
		const cJSON *v = cJSON_GetObjectItem(c, key[k]);

		return v != NULL && !cJSON_IsNull(v);
	}
	if (cJSON_IsString(st) && strcmp(st->valuestring, "lost") == 0)
		return false;
	for (i = 0; i < 4; i++)
		if (measured(c, i))
			return true;
	return false;
}

/* nm_reason: "CAUSE: REASON" of check k's test in cell c's
 * not_measured, NULL when it has none. */
static const char *
nm_reason(const cJSON *c, int k)
{
	static const char *const test[] = { "bw", "lat", "mtu", "ports" };
	static char b[640];
	const cJSON *e = k < 4 ? report_not_measured(c, test[k]) : NULL;
	const char *cs, *r;

	if (e == NULL)
		return NULL;
	cs = cJSON_GetStringValue(cJSON_GetObjectItem(e, "cause"));
	r = cJSON_GetStringValue(cJSON_GetObjectItem(e, "reason"));
	snprintf(b, sizeof(b), "%s: %s", cs ? cs : "?", r ? r : "");
	return b;
}

int
report_junit(const cJSON *doc, const char *path, char *err)
{
	static const char *checks[] = { "bandwidth", "latency", "mtu",
	    "ports", "egress" };
	const cJSON *nets = cJSON_GetObjectItem(doc, "networks"), *net, *c;
	const cJSON *fs = cJSON_GetObjectItem(doc, "findings"), *f;
	struct out_file of;
	FILE *fp;
	char e2[CF_ERRLEN];
	int k;

	if (out_file_open(&of, path, err) == -1)
		return -1;
	fp = of.f;
	fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites "
	    "name=\"cephfab matrix\">\n", fp);
	cJSON_ArrayForEach(net, nets) {
		fprintf(fp, "  <testsuite name=\"%s\">\n", net->string);
		cJSON_ArrayForEach(c, cJSON_GetObjectItem(net, "cells")) {
			const char *s, *d;

			if (json_get_str(c, "src", 0, 64, &s, e2) == -1 ||
			    json_get_str(c, "dst", 0, 64, &d, e2) == -1)
				continue;
			for (k = 0; k < 5; k++) {
				bool failed = false;

				fprintf(fp, "    <testcase classname=\"%s.%s\" "
				    "name=\"%s -&gt; %s\">", net->string,
				    checks[k], s, d);
				cJSON_ArrayForEach(f, fs) {
					const char *fk, *fn, *sum, *sev;
					const cJSON *hs;
					bool mine;

					if (json_get_str(f, "kind", 0, 32, &fk,
					    e2) == -1 || json_get_str(f,
					    "network", 0, 16, &fn, e2) == -1 ||
					    json_get_str(f, "summary", 0, 1024,
					    &sum, e2) == -1 || json_get_str(f,
					    "severity", 0, 8, &sev, e2) == -1 ||
					    strcmp(fn, net->string) != 0 ||
					    strcmp(sev, "error") != 0)
						continue;
					hs = cJSON_GetObjectItem(f, "hosts");
					mine = false;
					if (!explains(f, s, d, &mine)) {
						const cJSON *x;
						int hit = 0, cnt = 0;

						cJSON_ArrayForEach(x, hs) {
							cnt++;
							if (cJSON_IsString(x) &&
							    (!strcmp(x->
							    valuestring, s) ||
							    !strcmp(x->
							    valuestring, d)))
								hit++;
						}
						mine = hit == cnt || (cnt == 1 &&
						    hit == 1);
					}
					if (!mine || (k == 0 && !strstr(
					    "slow_pair slow_host rack_uplink "
					    "lossy_pair lossy_host lossy_link "
					    "fabric_rate unreachable", fk)) ||
					    (k == 1 && strcmp(fk,
					    "high_latency")) || (k == 2 &&
					    strcmp(fk, "mtu_blackhole")) ||
					    (k == 3 && strcmp(fk,
					    "port_blocked")) || (k == 4 &&
					    strcmp(fk, "wrong_egress")))
						continue;
					failed = true;
					fprintf(fp, "<failure type=\"%s\" "
					    "message=\"", fk);
					xml_esc(fp, sum);
					fputs("\"/>", fp);
				}
				/* What was not measured did not pass; the
				 * tool's own cause, when it is one, said. */
				if (!failed && !measured(c, k)) {
					const char *why = nm_reason(c, k);

					fputs("<skipped message=\"not measured",
					    fp);
					if (why) {
						fputs(": ", fp);
						xml_esc(fp, why);
					}
					fputs("\"/>", fp);
				}
				fputs("</testcase>\n", fp);
			}
		}
		fputs("  </testsuite>\n", fp);
	}
	fputs("</testsuites>\n", fp);
	return out_file_close(&of, err);
}

static void
prom_label(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\' || *s == '"')
			fputc('\\', f);
		if (*s == '\n') {
			fputs("\\n", f);
			continue;
		}
		fputc(*s, f);
	}
}

/* prom_cells: one sample of metric per measured cell of every network,
 * field * mul / div, with the quantile label when one is given. */
static void
prom_cells(FILE *fp, const cJSON *nets, const char *metric, const char *field,
    const char *quantile, double mul, double div, const char *vfmt)
{
	const cJSON *net, *c;
	char e2[CF_ERRLEN];

	cJSON_ArrayForEach(net, nets) {
		cJSON_ArrayForEach(c, cJSON_GetObjectItem(net, "cells")) {
			const char *s, *d;
			double v;

			if (json_get_str(c, "src", 0, 64, &s, e2) == -1 ||
			    json_get_str(c, "dst", 0, 64, &d, e2) == -1 ||
			    json_get_double(c, field, 0, 1e15, &v, e2) == -1)
				continue;
			fprintf(fp, "%s{src=\"", metric);
			prom_label(fp, s);
			fputs("\",dst=\"", fp);
			prom_label(fp, d);
			fprintf(fp, "\",network=\"%s\"", net->string);
			if (quantile)
				fprintf(fp, ",quantile=\"%s\"", quantile);
			fputs("} ", fp);
			fprintf(fp, vfmt, v * mul / div);
			fputc('\n', fp);
		}
	}
}

int
report_prom(const cJSON *doc, const char *path, char *err)
{
	const cJSON *nets = cJSON_GetObjectItem(doc, "networks");
	const cJSON *f;
	char e2[CF_ERRLEN];
	struct out_file of;
	FILE *fp;
	/* Base units, as Prometheus's naming and promtool ask: bytes, not
	 * bits; seconds; a quantile label belongs to a summary, so each
	 * quantile is a gauge of its own. */
	static const struct {
		const char *name, *field, *help;
		double mul, div;
		const char *fmt;
	} m[] = {
		{ "cephfab_pair_bandwidth_bytes_per_second", "gbps",
		    "Throughput from src to dst measured by cephfab matrix.",
		    1e9, 8, "%.6g" },
		{ "cephfab_pair_loss_retransmits_per_gigabyte",
		    "loss_retransmits_per_gb",
		    "TCP retransmits per GB sent from src to dst, not counting "
		    "those the receiver reported as spurious.", 1, 1, "%.6g" },
		{ "cephfab_pair_rtt_p50_seconds", "rtt_p50_us", "Median "
		    "round-trip time of 2000-byte UDP probes.", 1, 1e6, "%.9f" },
		{ "cephfab_pair_rtt_p99_seconds", "rtt_p99_us", "99th percentile "
		    "round-trip time of 2000-byte UDP probes.", 1, 1e6, "%.9f" },
	};
	static const char *const verdicts[] = { "pass", "fail", "incomplete" };
	const char *verdict = cJSON_GetStringValue(cJSON_GetObjectItem(doc,
	    "verdict"));
	double nm = 0;
	size_t k;

	/* Written next to the target and renamed (out_file): the
	 * textfile collector never reads half a file. */
	if (out_file_open(&of, path, err) == -1)
		return -1;
	fp = of.f;
	for (k = 0; k < sizeof(m) / sizeof(m[0]); k++) {
		fprintf(fp, "# HELP %s %s\n# TYPE %s gauge\n", m[k].name,
		    m[k].help, m[k].name);
		prom_cells(fp, nets, m[k].name, m[k].field, NULL, m[k].mul,
		    m[k].div, m[k].fmt);
	}
	/* The verdict as a state set: an alert on 'incomplete' as well as
	 * on 'fail' (a run that did not measure everything never passes). */
	fputs("# HELP cephfab_matrix_verdict The verdict of the last matrix "
	    "run (1 for the one it has).\n# TYPE cephfab_matrix_verdict "
	    "gauge\n", fp);
	for (k = 0; k < sizeof(verdicts) / sizeof(verdicts[0]); k++)
		fprintf(fp, "cephfab_matrix_verdict{verdict=\"%s\"} %d\n",
		    verdicts[k], verdict && strcmp(verdict, verdicts[k]) == 0);
	json_opt_double(cJSON_GetObjectItem(doc, "completeness"),
	    "tests_not_measured", 0, 1e12, 0, &nm, e2);
	fprintf(fp, "# HELP cephfab_matrix_tests_not_measured Tests of the last "
	    "matrix run the tool did not measure (agents' limits, busy or "
	    "down agents, an interruption).\n# TYPE "
	    "cephfab_matrix_tests_not_measured gauge\n"
	    "cephfab_matrix_tests_not_measured %.0f\n", nm);
	fputs("# HELP cephfab_findings Findings of the last matrix run by kind "
	    "and severity.\n# TYPE cephfab_findings gauge\n", fp);
	{
		static const char *kinds[] = { "unreachable", "slow_host",
		    "slow_pair", "lossy_pair", "lossy_host", "lossy_link",
		    "fabric_rate",
		    "high_latency", "asymmetric", "mtu_blackhole",
		    "port_blocked", "wrong_egress", "rack_uplink",
		    "busy_host", "not_measured" };
		size_t i;

		for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
			int cnt = 0;
			const char *sev = "error";

			cJSON_ArrayForEach(f, cJSON_GetObjectItem(doc,
			    "findings")) {
				const char *kk;

				if (json_get_str(f, "kind", 0, 32, &kk, e2) == 0 &&
				    strcmp(kk, kinds[i]) == 0) {
					cnt++;
					json_get_str(f, "severity", 0, 8, &sev,
					    e2);
				}
			}
			/* A kind's severity whether or not it fired: a
			 * label that moved would be a new series. */
			if (strcmp(kinds[i], "high_latency") == 0 ||
			    strcmp(kinds[i], "asymmetric") == 0 ||
			    strcmp(kinds[i], "busy_host") == 0 ||
			    strcmp(kinds[i], "not_measured") == 0)
				sev = "warn";
			fprintf(fp, "cephfab_findings{kind=\"%s\",severity=\"%s\"}"
			    " %d\n", kinds[i], sev, cnt);
		}
	}
	return out_file_close(&of, err);
}

/* csv_field writes one field, quoted when it needs to be (RFC 4180). */
static void
csv_field(FILE *f, const cJSON *v, bool last)
{
	if (cJSON_IsNumber(v))
		fprintf(f, "%.6g", v->valuedouble);
	else if (cJSON_IsString(v)) {
		const char *s = v->valuestring;

		if (strpbrk(s, ",\"\n\r")) {
			fputc('"', f);
			for (; *s; s++) {
				if (*s == '"')
					fputc('"', f);
				fputc(*s, f);
			}
			fputc('"', f);
		} else
			fputs(s, f);
	} else if (cJSON_IsBool(v)) {
		fputs(cJSON_IsTrue(v) ? "true" : "false", f);
	} else if (cJSON_IsArray(v)) {
		/* A cell's ports: "open", or those that were not. */
		const cJSON *p;
		int n = 0;

		cJSON_ArrayForEach(p, v) {
			const cJSON *port = cJSON_GetObjectItem(p, "port");
			const cJSON *st = cJSON_GetObjectItem(p, "state");

			if (cJSON_IsNumber(port) && cJSON_IsString(st))
				fprintf(f, "%s%.0f %s", n++ ? "; " : "",
				    port->valuedouble, st->valuestring);
		}
		if (n == 0)
			fputs("open", f);
	}
	fputc(last ? '\n' : ',', f);
}

int
report_csv(const cJSON *doc, const char *path, char *err)
{
	static const char *cols[] = { "src", "dst", "state", "gbps",
	    "loss_retransmits_per_gb", "rtt_p50_us", "rtt_p99_us", "path_mtu",
	    "configured_mtu", "ports", NULL };
	const cJSON *net, *c, *f;
	struct out_file of;
	FILE *fp;
	int k;

	if (out_file_open(&of, path, err) == -1)
		return -1;
	fp = of.f;
	fputs("network", fp);
	for (k = 0; cols[k]; k++)
		fprintf(fp, ",%s", cols[k]);
	fputc('\n', fp);
	cJSON_ArrayForEach(net, cJSON_GetObjectItem(doc, "networks")) {
		cJSON_ArrayForEach(c, cJSON_GetObjectItem(net, "cells")) {
			fprintf(fp, "%s,", net->string);
			for (k = 0; cols[k]; k++)
				csv_field(fp, cJSON_GetObjectItem(c, cols[k]),
				    cols[k + 1] == NULL);
		}
	}
	/* The findings after a blank line, their own header. */
	fputs("\nfinding,severity,network,hosts,summary\n", fp);
	cJSON_ArrayForEach(f, cJSON_GetObjectItem(doc, "findings")) {
		const cJSON *h;
		char hosts[512];
		size_t off = 0;
		cJSON *hs;

		hosts[0] = '\0';
		cJSON_ArrayForEach(h, cJSON_GetObjectItem(f, "hosts"))
			if (cJSON_IsString(h) && off < sizeof(hosts) - 2)
				off = text_appendf(hosts, sizeof(hosts), off,
				    "%s%s", off ? " " : "",
				    h->valuestring);
		csv_field(fp, cJSON_GetObjectItem(f, "kind"), false);
		csv_field(fp, cJSON_GetObjectItem(f, "severity"), false);
		csv_field(fp, cJSON_GetObjectItem(f, "network"), false);
		hs = cJSON_CreateString(hosts);
		csv_field(fp, hs, false);
		cJSON_Delete(hs);
		csv_field(fp, cJSON_GetObjectItem(f, "summary"), true);
	}
	return out_file_close(&of, err);
}

/* --- re-rendering a stored run ------------------------------------- */

/* utc_secs: "YYYY-MM-DD HH:MM:SS" (SQLite's datetime('now'), UTC) as
 * seconds since the epoch, -1 when it is not one. */
static double
utc_secs(const char *s)
{
	struct tm tm;
	const char *e;

	memset(&tm, 0, sizeof(tm));
	e = strptime(s, "%Y-%m-%d %H:%M:%S", &tm);
	return e != NULL && *e == '\0' ? (double)timegm(&tm) : -1;
}

/* bits_words: the words of the bits set in v, as an array. */
static cJSON *
bits_words(double v, const char *const *words, int n)
{
	cJSON *a = cJSON_CreateArray();
	int i;

	for (i = 0; i < n; i++)
		if ((long)v & (1L << i))
			cJSON_AddItemToArray(a, cJSON_CreateString(words[i]));
	return a;
}

/* readable_options: a run's stored options (matrix_opts_json: bit
 * masks) as a reader says them. */
static cJSON *
readable_options(const cJSON *o)
{
	static const char *const nets[] = { "public", "cluster" };
	static const char *const tests[] = { "bw", "lat", "mtu", "ports",
	    "facts" };
	static const char *const modes[] = { "pairwise", "all-to-all",
	    "fanout" };
	cJSON *r = cJSON_CreateObject();
	const char *prof = "";
	char err[CF_ERRLEN];
	double v;

	if (json_get_double(o, "nets", 0, 3, &v, err) == 0)
		cJSON_AddItemToObject(r, "networks", bits_words(v, nets, 2));
	if (json_get_double(o, "tests", 0, 1 << 16, &v, err) == 0)
		cJSON_AddItemToObject(r, "tests", bits_words(v, tests, 5));
	if (json_get_double(o, "modes", 0, 1 << 16, &v, err) == 0)
		cJSON_AddItemToObject(r, "modes", bits_words(v, modes, 3));
	if (json_get_double(o, "streams", 0, 1024, &v, err) == 0)
		cJSON_AddNumberToObject(r, "streams", v);
	if (json_get_double(o, "seconds", 0, 1e6, &v, err) == 0)
		cJSON_AddNumberToObject(r, "seconds", v);
	if (json_get_str(o, "profile", 0, 64, &prof, err) == 0)
		cJSON_AddStringToObject(r, "profile", prof);
	return r;
}

/* report_measured: when and how the run was measured, as the renderers
 * show it: "measured": {"started", "finished" (RFC 3339, UTC),
 * "seconds", "options" (the run's stored options)}. */
static void
report_measured(cJSON *doc, struct store *st, int64_t run)
{
	cJSON *runs = store_runs(st), *r, *m, *opts;
	char ip[4096], t[40];
	double a = -1, b = -1, id;
	const char *k[2] = { "started", "finished" };
	char err[CF_ERRLEN];
	int i;

	m = cJSON_AddObjectToObject(doc, "measured");
	cJSON_ArrayForEach(r, runs) {
		if (json_get_double(r, "id", 0, 1e15, &id, err) == -1 ||
		    (int64_t)id != run)
			continue;
		for (i = 0; i < 2; i++) {
			const char *v = "";
			double x;

			json_get_str(r, k[i], 0, 64, &v, err);
			x = utc_secs(v);
			if (x < 0) {
				cJSON_AddNullToObject(m, k[i]);
				continue;
			}
			/* "2026-12-04 13:45:34" is UTC: say so. */
			snprintf(t, sizeof(t), "%.10sT%.8sZ", v, v + 11);
			cJSON_AddStringToObject(m, k[i], t);
			*(i ? &b : &a) = x;
		}
	}
	cJSON_Delete(runs);
	if (a >= 0 && b >= a)
		cJSON_AddNumberToObject(m, "seconds", b - a);
	else
		cJSON_AddNullToObject(m, "seconds");
	opts = store_run_options(st, run, ip, sizeof(ip));
	if (opts != NULL)
		cJSON_AddItemToObject(m, "options", readable_options(opts));
	cJSON_Delete(opts);
}

static bool
any_stdout(const char *const *paths, size_t n)
{
	size_t k;

	for (k = 0; k < n; k++)
		if (paths[k] && strcmp(paths[k], "-") == 0)
			return true;
	return false;
}

int
report_render(struct inventory *inv, const struct matrix_opts *o, int64_t run,
    bool finish)
{
	static int (*const writers[])(const cJSON *, const char *, char *) = {
		report_json, report_csv, report_html, report_junit,
		report_prom
	};
	const char *paths[] = { o->json, o->csv, o->html, o->junit, o->prom };
	struct matrix_opts ro;
	struct store st;
	char err[CF_ERRLEN];
	cJSON *doc;
	const char *verdict;
	int errors = 0, rc = EXIT_PASS;
	size_t k;

	/* A view of a stored run only reads: no database is made for a
	 * path that has none (report --db typo.db). */
	if ((finish ? store_open(&st, o->db, err) : store_open_ro(&st, o->db,
	    err)) == -1) {
		fprintf(stderr, "cephfab: %s\n", err);
		return finish ? EXIT_RUNTIME : EXIT_USAGE;
	}
	/* A run interrupted before its first cell is still a run: its
	 * plan says so, and it renders as incomplete. */
	if (store_count(&st, run) <= 0 && store_planned(&st, run) <= 0) {
		fprintf(stderr, "cephfab: no cells of run %lld in %s\n",
		    (long long)run, o->db);
		store_close(&st);
		return EXIT_USAGE;
	}
	{
		/* Judged by the run's own profile unless one was given. */
		char ip[4096];
		cJSON *opts = store_run_options(&st, run, ip, sizeof(ip));

		ro = *o;
		if (opts)
			matrix_restore(opts, &ro, false);
		cJSON_Delete(opts);
		o = &ro;
	}
	doc = report_build(inv, o, run, &st, finish, &errors);
	verdict = cJSON_GetStringValue(cJSON_GetObjectItem(doc, "verdict"));
	/* The run's own verdict is stored once, when it is measured;
	 * rendering it again (another profile, say) is a view. */
	if (finish)
		store_finish(&st, run, verdict, cJSON_GetObjectItem(doc,
		    "findings"), err);
	report_measured(doc, &st, run);
	if (errors)
		rc = EXIT_PROBLEMS;
	else if (strcmp(verdict, "incomplete") == 0)
		rc = EXIT_INCOMPLETE;
	/* One thing on standard output: a file asked for as "-" takes the
	 * table's place. */
	if (o->json_stdout)
		out_json(doc);
	else if (!any_stdout(paths, sizeof(paths) / sizeof(paths[0])))
		report_terminal(doc, isatty(STDOUT_FILENO), o->show);
	/* Each file whole or not at all (out_file); one line per failure. */
	for (k = 0; k < sizeof(paths) / sizeof(paths[0]); k++)
		if (paths[k] && writers[k](doc, paths[k], err) == -1) {
			fprintf(stderr, "cephfab: %s\n", err);
			rc = EXIT_RUNTIME;
		}
	cJSON_Delete(doc);
	store_close(&st);
	return rc;
}

int
report_json(const cJSON *doc, const char *path, char *err)
{
	struct out_file of;

	if (out_file_open(&of, path, err) == -1)
		return -1;
	out_json_doc(of.f, doc);
	return out_file_close(&of, err);
}
