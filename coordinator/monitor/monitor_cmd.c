/* monitor_cmd: 'cephfab monitor start|stop|status', see monitor_cmd.h. */
#include "monitor/monitor_cmd.h"
#include "core/fanout.h"
#include "json.h"
#include "msg.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <openssl/rand.h>

struct mbuild {
	const struct inventory *inv;
	const struct monitor_opts *o;
	uint8_t token[16];
};

static cJSON *
request(struct inv_host *h, void *udata)
{
	static const char *const ops[] = { "start", "stop", "status" };
	struct mbuild *b = udata;
	cJSON *r, *pl = NULL;

	if (b->o->op == MON_START &&
	    (pl = pinglist_build(b->inv, h, b->o, b->token)) == NULL)
		return NULL;
	r = cJSON_CreateObject();
	cJSON_AddStringToObject(r, "op", ops[b->o->op]);
	if (pl != NULL)
		cJSON_AddItemToObject(r, "pinglist", pl);
	return r;
}

/* row: one agent's status, checked field by field (an agent's reply is
 * untrusted input), as the JSON output's entry. */
static cJSON *
row(const struct fanout_reply *r)
{
	static const char *const nums[] = { "pps", "sent", "lost", "answering",
	    "echoed", "strangers", "since", "rate", "scrapes",
	    "last_error_at" };
	cJSON *o = cJSON_CreateObject(), *peers;
	const cJSON *b = r->body, *pp;
	char err[CF_ERRLEN];
	const char *s;
	double v;
	size_t i;
	int n;

	cJSON_AddStringToObject(o, "name", r->host->name);
	if (b == NULL || r->error[0]) {
		cJSON_AddStringToObject(o, "state", "error");
		cJSON_AddStringToObject(o, "error", r->error);
		return o;
	}
	if (json_get_str(b, "state", 1, 16, &s, err) == -1 ||
	    (strcmp(s, "running") != 0 && strcmp(s, "stopped") != 0)) {
		cJSON_AddStringToObject(o, "state", "error");
		cJSON_AddStringToObject(o, "error", "MONITOR reply: field "
		    "'state' is not running or stopped");
		return o;
	}
	cJSON_AddStringToObject(o, "state", s);
	for (i = 0; i < sizeof(nums) / sizeof(nums[0]); i++)
		if (json_opt_double(b, nums[i], 0, 1e18, NAN, &v, err) == 0 &&
		    !isnan(v))
			cJSON_AddNumberToObject(o, nums[i], v);
	if (json_opt_str(b, "last_error", 0, 512, NULL, &s, err) == 0 && s)
		cJSON_AddStringToObject(o, "last_error", s);
	if (json_opt_str(b, "mode", 0, 8, NULL, &s, err) == 0 && s)
		cJSON_AddStringToObject(o, "mode", s);
	if (json_opt_obj(b, "peers", &pp, err) == 0 && pp != NULL) {
		peers = cJSON_AddObjectToObject(o, "peers");
		for (n = 0; n < 2; n++) {
			const char *net = n ? "cluster" : "public";
			uint32_t c;

			if (json_get_u32(pp, net, 0, 1u << 20, &c, err) == 0)
				cJSON_AddNumberToObject(peers, net, c);
		}
	}
	return o;
}

static double
num(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItem(o, k);

	return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

static void
print_table(const cJSON *hosts)
{
	const cJSON *h;

	printf("%-16s %-8s %9s %6s %9s %10s %8s  %-19s %s\n", "host", "state",
	    "peers", "up", "probes/s", "sent", "lost", "since", "last error");
	cJSON_ArrayForEach(h, hosts) {
		const cJSON *pp = cJSON_GetObjectItem(h, "peers");
		const char *st = cJSON_GetObjectItem(h, "state")->valuestring;
		const cJSON *e = cJSON_GetObjectItem(h, "error");
		const cJSON *le = cJSON_GetObjectItem(h, "last_error");
		char peers[32] = "-", since[32] = "-";
		double s = num(h, "since");

		if (pp != NULL) {
			double a = num(pp, "public"), b = num(pp, "cluster");
			char x[16] = "-", y[16] = "-";

			/* Peers probed now on public/cluster. */
			if (!isnan(a))
				snprintf(x, sizeof(x), "%.0f", a);
			if (!isnan(b))
				snprintf(y, sizeof(y), "%.0f", b);
			snprintf(peers, sizeof(peers), "%s/%s", x, y);
		}
		if (!isnan(s)) {
			time_t t = (time_t)s;
			struct tm tm;

			strftime(since, sizeof(since), "%Y-%m-%d %H:%M:%S",
			    localtime_r(&t, &tm));
		}
		if (strcmp(st, "running") == 0)
			printf("%-16s %-8s %9s %6.0f %9.1f %10.0f %8.0f  %-19s "
			    "%s\n", cJSON_GetObjectItem(h, "name")->valuestring,
			    st, peers, num(h, "answering"), num(h, "pps"),
			    num(h, "sent"), num(h, "lost"), since,
			    le ? le->valuestring : "-");
		else
			printf("%-16s %-8s %9s %6s %9s %10s %8s  %-19s %s\n",
			    cJSON_GetObjectItem(h, "name")->valuestring, st,
			    "-", "-", "-", "-", "-", "-", e ? e->valuestring :
			    le ? le->valuestring : "-");
	}
}

int
monitor_cmd_run(struct inventory *inv, const struct auth_key *key,
    const struct monitor_opts *o)
{
	static const char *const verbs[] = { "started", "stopped", "status" };
	struct fanout_reply *r = NULL;
	struct mbuild b = { inv, o, { 0 } };
	cJSON *doc, *hosts;
	int ok, i, running = 0;

	if (o->op == MON_START && RAND_bytes(b.token, sizeof(b.token)) != 1) {
		fprintf(stderr, "cephfab: monitor: no randomness for the "
		    "probes' token\n");
		return EXIT_RUNTIME;
	}
	ok = fanout_run(inv, key, o->timeout, 10, MSG_MONITOR, request, &b,
	    &r);
	if (ok < 0) {
		fprintf(stderr, "cephfab: monitor: out of memory\n");
		return EXIT_RUNTIME;
	}
	doc = cJSON_CreateObject();
	hosts = cJSON_AddArrayToObject(doc, "hosts");
	for (i = 0; i < inv->nhosts; i++) {
		cJSON *x = row(&r[i]);
		const char *st = cJSON_GetObjectItem(x, "state")->valuestring;

		running += strcmp(st, "running") == 0;
		cJSON_AddItemToArray(hosts, x);
	}
	cJSON_AddNumberToObject(doc, "agents", inv->nhosts);
	cJSON_AddNumberToObject(doc, "answered", ok);
	cJSON_AddNumberToObject(doc, "running", running);
	if (o->json) {
		out_json(doc);
	} else {
		if (o->op != MON_STATUS)
			printf("monitor %s on %d of %d agents\n", verbs[o->op],
			    ok, inv->nhosts);
		print_table(hosts);
	}
	for (i = 0; i < inv->nhosts; i++)
		if (r[i].error[0])
			fprintf(stderr, "cephfab: monitor: %s: %s\n",
			    r[i].host->name, r[i].error);
	cJSON_Delete(doc);
	fanout_free(r, inv->nhosts);
	return ok == inv->nhosts ? EXIT_PASS : ok == 0 ? EXIT_RUNTIME :
	    EXIT_PROBLEMS;
}
