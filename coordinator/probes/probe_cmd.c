/* probe_cmd: latency, mtu, ports and reach commands, see probes.h. */
#include "probes/probes.h"
#include "log.h"
#include "msg.h"
#include "core/core.h"
#include "json.h"
#include "mtusearch.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <ev.h>

struct pcmd {
	struct ev_loop *loop;
	struct conn_ctx ctx;
	const struct probe_cmd_opts *o;
	struct inv_host *ha, *hb;
	struct sess *sa, *sb;
	struct exchange_list pl;
	struct pex *x[2];
	int nx, ndone;
	bool started;
	ev_timer deadline;
	char error[CF_ERRLEN];
};

static const struct netaddr *
net_addr(const struct inv_host *h, int net)
{
	return net ? &h->clus : &h->pub;
}

static void
addr_field(cJSON *o, const char *name, const struct netaddr *a)
{
	char b[NETADDR_STRLEN];

	cJSON_AddStringToObject(o, name, netaddr_str(a, b, sizeof(b)));
}

static void
probe_cmd_done(struct pex *x, void *arg)
{
	struct pcmd *c = arg;

	(void)x;
	if (++c->ndone == c->nx)
		ev_break(c->loop, EVBREAK_ALL);
}

/* probe_cmd_plan: the responder and runner requests of one direction. */
static struct pex *
probe_cmd_pex(struct pcmd *c, struct sess *resp, struct inv_host *hr,
    struct sess *run, struct inv_host *hn, int rnet, int nnet)
{
	const struct probe_cmd_opts *o = c->o;
	cJSON *open = cJSON_CreateObject(), *runb = cJSON_CreateObject();
	cJSON *arr;
	double dur = o->duration > 0 ? o->duration : 30;
	int i;

	addr_field(open, "local", net_addr(hr, rnet));
	cJSON_AddNumberToObject(open, "duration", dur + 5);
	addr_field(runb, "local", net_addr(hn, nnet));
	addr_field(runb, "dst", net_addr(hr, rnet));
	if (net_addr(hn, !nnet)->family)
		addr_field(runb, "other", net_addr(hn, !nnet));
	cJSON_AddNumberToObject(runb, "duration", dur);
	switch (o->kind) {
	case PC_LATENCY:
	case PC_REACH:
		cJSON_AddStringToObject(open, "kind", o->tcp ? "tcp" : "udp");
		cJSON_AddStringToObject(runb, "kind", "latency");
		cJSON_AddStringToObject(runb, "proto", o->tcp ? "tcp" : "udp");
		cJSON_AddNumberToObject(runb, "count", o->count);
		cJSON_AddNumberToObject(runb, "rate", o->rate);
		if (o->window)
			cJSON_AddNumberToObject(runb, "window", o->window);
		arr = cJSON_AddArrayToObject(runb, "sizes");
		for (i = 0; i < o->nsizes; i++)
			cJSON_AddItemToArray(arr,
			    cJSON_CreateNumber(o->sizes[i]));
		cJSON_AddNumberToObject(runb, "timeout_ms", 1000);
		break;
	case PC_MTU:
		cJSON_AddStringToObject(open, "kind", "udp");
		cJSON_AddStringToObject(runb, "kind", "mtu");
		cJSON_AddNumberToObject(runb, "timeout_ms", 300);
		break;
	case PC_PORTS:
		cJSON_AddStringToObject(open, "kind", "ports");
		cJSON_AddStringToObject(runb, "kind", "ports");
		arr = cJSON_AddArrayToObject(open, "ports");
		for (i = 0; i < o->nports; i++)
			cJSON_AddItemToArray(arr,
			    cJSON_CreateNumber(o->ports[i]));
		cJSON_AddItemToObject(runb, "ports", cJSON_Duplicate(arr, 1));
		/* 2.5 s covers one lost SYN (retried after 1 s): a lossy
		 * path is not a firewall. */
		cJSON_AddNumberToObject(runb, "timeout_ms", 2500);
		break;
	}
	return exchange_new(&c->pl, resp, open, run, runb, probe_cmd_done, c);
}

static void
probe_cmd_ready(struct sess *s)
{
	struct pcmd *c = s->udata;
	int i;

	if (!c->sa->up || !c->sb->up || c->started)
		return;
	c->started = true;
	out_progress("%s: probing", c->o->a);
	/* B responds and A runs; MTU also the other way round. */
	c->x[c->nx++] = probe_cmd_pex(c, c->sb, c->hb, c->sa, c->ha,
	    c->o->kind == PC_REACH ? c->o->to_net : c->o->net, c->o->net);
	if (c->o->kind == PC_MTU)
		c->x[c->nx++] = probe_cmd_pex(c, c->sa, c->ha, c->sb, c->hb,
		    c->o->net, c->o->net);
	for (i = 0; i < c->nx; i++) {
		if (c->x[i] == NULL) {
			snprintf(c->error, sizeof(c->error), "out of memory");
			ev_break(c->loop, EVBREAK_ALL);
			return;
		}
		exchange_start(c->x[i]);
	}
}

static void
probe_cmd_message(struct sess *s, const struct frame_hdr *h, const cJSON *body)
{
	struct pcmd *c = s->udata;

	exchange_message(&c->pl, s, h, body);
}

static void
probe_cmd_closed(struct sess *s, enum conn_reason r, const char *detail)
{
	struct pcmd *c = s->udata;

	if (!c->started) {
		session_blame(c->error, sizeof(c->error), s->host->name, NULL,
		    r, detail);
		ev_break(c->loop, EVBREAK_ALL);
		return;
	}
	exchange_sess_closed(&c->pl, s, r, detail);
}

static void
probe_cmd_deadline_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct pcmd *c = w->data;

	(void)revents;
	snprintf(c->error, sizeof(c->error), "no result in time");
	ev_break(loop, EVBREAK_ALL);
}

/* probe_cmd_exchange runs the planned probes once; 0 when every exchange
 * finished (each may carry its own error). */
static int
probe_cmd_exchange(struct pcmd *c, const struct auth_key *key)
{
	char err[CF_ERRLEN];
	static const struct session_ops probe_cmd_ops = { .ready =
	    probe_cmd_ready, .message = probe_cmd_message, .closed =
	    probe_cmd_closed };

	memset(c->x, 0, sizeof(c->x));
	c->nx = c->ndone = 0;
	c->started = false;
	c->error[0] = '\0';
	c->loop = ev_loop_new(EVFLAG_AUTO);
	session_ctx_init(&c->ctx, c->loop, key, c->o->timeout);
	/* A runner answers when its probes are done, up to -t later. */
	session_ctx_quiet(&c->ctx, c->o->duration > 0 ? c->o->duration : 30);
	TAILQ_INIT(&c->pl);
	ev_timer_init(&c->deadline, probe_cmd_deadline_cb, (c->o->duration > 0 ?
	    c->o->duration : 30) + 20, 0.);
	c->deadline.data = c;
	ev_timer_start(c->loop, &c->deadline);
	c->sa = session_open(&c->ctx, c->ha, c->o->timeout, &probe_cmd_ops, c, err);
	c->sb = c->sa ? session_open(&c->ctx, c->hb, c->o->timeout, &probe_cmd_ops,
	    c, err) : NULL;
	if (c->sa == NULL || c->sb == NULL)
		snprintf(c->error, sizeof(c->error), "%s", err);
	else
		ev_run(c->loop, 0);
	out_progress_done();
	return c->error[0] ? -1 : 0;
}

static void
probe_cmd_release(struct pcmd *c)
{
	while (!TAILQ_EMPTY(&c->pl))
		exchange_free(&c->pl, TAILQ_FIRST(&c->pl));
	session_free(c->sa);
	session_free(c->sb);
	c->sa = c->sb = NULL;
	ev_timer_stop(c->loop, &c->deadline);
	conn_ctx_fini(&c->ctx);
	ev_loop_destroy(c->loop);
}

static void
finding(cJSON *fs, const char *kind, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void
finding(cJSON *fs, const char *kind, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	cJSON *f = cJSON_CreateObject();

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	cJSON_AddStringToObject(f, "kind", kind);
	cJSON_AddStringToObject(f, "detail", msg);
	cJSON_AddItemToArray(fs, f);
}

/* check_egress: cluster traffic leaving through the public NIC (or the
 * other way round) is a finding, unless the target's network is directly
 * attached to the port it leaves by: the kernel rightly takes that port
 * whatever the source address (reach from the public address to a
 * cluster address on a flat fabric). A route that sends a network's
 * traffic out of a port not on it is still one. */
static void
check_egress(const cJSON *res, const char *who, const char *net, cJSON *fs)
{
	const cJSON *r = cJSON_GetObjectItemCaseSensitive(res, "route");
	const char *eg = "", *other = "", *local = "";
	char err[CF_ERRLEN];
	bool on_link = false;

	if (r == NULL || (json_opt_bool(r, "dst_attached", false, &on_link,
	    err) == 0 && on_link))
		return;
	json_opt_str(r, "egress_if", 0, 64, "", &eg, err);
	json_opt_str(r, "other_if", 0, 64, "", &other, err);
	json_opt_str(r, "local_if", 0, 64, "", &local, err);
	if (*eg && *other && strcmp(eg, other) == 0 && strcmp(eg, local) != 0)
		finding(fs, "wrong_egress", "%s's %s traffic leaves through %s, "
		    "the interface of its other Ceph network (its %s address "
		    "is on %s)", who, net, eg, net, *local ? local : "?");
}

static void
print_latency(const cJSON *res)
{
	const cJSON *sizes = cJSON_GetObjectItemCaseSensitive(res, "sizes");
	const cJSON *s, *r;
	char err[CF_ERRLEN];
	double v[9], size, sent, lost;
	static const char *k[] = { "min_us", "p50_us", "p90_us", "p99_us",
	    "p999_us", "max_us", "mean_us", "stddev_us" };
	int i;

	printf("%7s %7s %6s %9s %9s %9s %9s %9s %9s %9s %9s\n", "size",
	    "count", "lost", "min", "p50", "p90", "p99", "p99.9", "max",
	    "mean", "stddev");
	cJSON_ArrayForEach(s, sizes) {
		if (json_get_double(s, "size", 0, 1e6, &size, err) == -1 ||
		    json_get_double(s, "sent", 0, 1e9, &sent, err) == -1 ||
		    json_get_double(s, "lost", 0, 1e9, &lost, err) == -1)
			continue;
		if ((r = probe_size_rtt(s)) == NULL) {
			printf("%7.0f %7.0f %6.0f  no reply\n", size, sent, lost);
			continue;
		}
		for (i = 0; i < 8; i++)
			if (json_get_double(r, k[i], 0, 1e12, &v[i], err) == -1)
				v[i] = 0;
		printf("%7.0f %7.0f %6.0f %9.1f %9.1f %9.1f %9.1f %9.1f %9.1f "
		    "%9.1f %9.1f\n", size, sent, lost, v[0], v[1], v[2], v[3],
		    v[4], v[5], v[6], v[7]);
	}
	printf("(round-trip times in microseconds, full RTT)\n");
}

/* latency_p99 of the largest size, for idle vs loaded. */
static double
latency_p99(const cJSON *res)
{
	const cJSON *sizes = cJSON_GetObjectItemCaseSensitive(res, "sizes");
	const cJSON *s, *r;
	char err[CF_ERRLEN];
	double v = 0;

	cJSON_ArrayForEach(s, sizes)
		if ((r = probe_size_rtt(s)) != NULL)
			json_get_double(r, "p99_us", 0, 1e12, &v, err);
	return v;
}

/* spawn_load starts 'cephfab pair A B' in a child for --loaded. */
static pid_t
spawn_load(const struct probe_cmd_opts *o, double secs)
{
	char t[32];
	pid_t pid;

	snprintf(t, sizeof(t), "%.1f", secs);
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		if (null != -1) {
			dup2(null, STDOUT_FILENO);
			dup2(null, STDERR_FILENO);
		}
		execl("/proc/self/exe", "cephfab", "-i", o->inventory_path,
		    "-k", o->key_path, "pair", o->a, o->b, "--net",
		    o->net ? "cluster" : "public", "-P", "4", "-t", t,
		    (char *)NULL);
		_exit(127);
	}
	return pid;
}

static void
reap(pid_t pid, double secs)
{
	int st, i;

	/* Bounded: the child's test ends on its own; then we stop it. */
	for (i = 0; i < (int)(secs * 10) + 100; i++) {
		if (waitpid(pid, &st, WNOHANG) == pid)
			return;
		usleep(100000);
	}
	kill(pid, SIGTERM);
	waitpid(pid, &st, 0);
}

/* probe_cmd_measure runs the exchange (twice with --loaded: idle, then
 * beside a throughput test on the same path) and appends each side's
 * result to runs; results[r] is run r's first. Returns an EXIT_* code. */
static int
probe_cmd_measure(struct pcmd *c, const struct auth_key *key, cJSON *doc,
    cJSON *runs, cJSON *fs, cJSON *results[2])
{
	const struct probe_cmd_opts *o = c->o;
	const char *netname = o->net ? "cluster" : "public";
	int i, r, rc = EXIT_PASS, nrun = o->loaded ? 2 : 1;

	for (r = 0; r < nrun; r++) {
		pid_t load = -1;

		if (r == 1) {
			/* Latency under load: a throughput test on the same
			 * path, started a moment before the probe. */
			load = spawn_load(o, o->duration + 4);
			usleep(1500000);
		}
		if (probe_cmd_exchange(c, key) == -1) {
			cJSON_AddStringToObject(doc, "error", c->error);
			rc = EXIT_RUNTIME;
		}
		for (i = 0; i < c->nx; i++) {
			struct pex *x = c->x[i];
			cJSON *res = x && x->result ? cJSON_Duplicate(x->result,
			    1) : cJSON_CreateObject();
			const char *who = i == 0 ? o->a : o->b;

			if (x && x->error[0]) {
				cJSON_AddStringToObject(res, "error", x->error);
				rc = EXIT_RUNTIME;
			}
			cJSON_AddStringToObject(res, "from", who);
			cJSON_AddStringToObject(res, "to", i == 0 ? o->b :
			    o->a);
			if (r == 1)
				cJSON_AddBoolToObject(res, "loaded", 1);
			check_egress(res, who, netname, fs);
			cJSON_AddItemToArray(runs, res);
			if (r < 2 && i == 0)
				results[r] = res;
		}
		probe_cmd_release(c);
		if (load > 0)
			reap(load, o->duration + 10);
	}
	return rc;
}

/* probe_cmd_findings: each result's findings, per command, into fs. */
static void
probe_cmd_findings(const struct probe_cmd_opts *o, const cJSON *runs,
    cJSON *fs)
{
	const char *netname = o->net ? "cluster" : "public";
	char err[CF_ERRLEN];
	const cJSON *res;

	cJSON_ArrayForEach(res, runs) {
		const char *from = "", *to = "", *state;
		const cJSON *ports, *p;
		double conf, path, lost, sent, port;
		const cJSON *sizes, *s;

		json_opt_str(res, "from", 0, 64, "", &from, err);
		json_opt_str(res, "to", 0, 64, "", &to, err);
		switch (o->kind) {
		case PC_MTU:
			if (json_get_double(res, "configured", 0, 1e6, &conf,
			    err) == 0 && json_get_double(res, "path", 0, 1e6,
			    &path, err) == 0 && path < mtu_ceiling(conf))
				finding(fs, "mtu_blackhole", "%s -> %s on the "
				    "%s network: %.0f bytes configured, only "
				    "%.0f cross", from, to, netname, conf, path);
			break;
		case PC_PORTS:
			ports = cJSON_GetObjectItemCaseSensitive(res, "ports");
			cJSON_ArrayForEach(p, ports) {
				if (json_get_double(p, "port", 0, 65535, &port,
				    err) == -1 || json_get_str(p, "state", 1, 16,
				    &state, err) == -1 || strcmp(state,
				    "open") == 0)
					continue;
				finding(fs, strcmp(state, "filtered") == 0 ?
				    "port_filtered" : "port_refused", "%s -> "
				    "%s port %.0f on the %s network: %s", from,
				    to, port, netname, state);
			}
			break;
		case PC_LATENCY:
		case PC_REACH:
			sizes = cJSON_GetObjectItemCaseSensitive(res, "sizes");
			cJSON_ArrayForEach(s, sizes) {
				if (json_get_double(s, "sent", 0, 1e9, &sent,
				    err) == 0 && json_get_double(s, "lost", 0,
				    1e9, &lost, err) == 0 && sent > 0 &&
				    lost >= sent)
					finding(fs, "unreachable", "%s -> %s: "
					    "no answer to %.0f probes", from,
					    to, sent);
				else if (sent > 0 && lost > 0)
					finding(fs, "probe_loss", "%s -> %s: "
					    "%.0f of %.0f probes lost", from,
					    to, lost, sent);
			}
			break;
		}
	}
}

/* probe_cmd_print: the results, findings and verdict as text. */
static void
probe_cmd_print(const struct probe_cmd_opts *o, const cJSON *doc,
    const cJSON *runs, const cJSON *fs, int rc)
{
	const char *netname = o->net ? "cluster" : "public";
	char err[CF_ERRLEN];
	const cJSON *res;
	const cJSON *f;

	cJSON_ArrayForEach(res, runs) {
		const char *from = "", *to = "", *e = NULL;
		const cJSON *route = cJSON_GetObjectItemCaseSensitive(
		    res, "route");
		const char *eg = "", *src = "";

		json_opt_str(res, "from", 0, 64, "", &from, err);
		json_opt_str(res, "to", 0, 64, "", &to, err);
		json_opt_str(res, "error", 0, 512, NULL, &e, err);
		if (route) {
			json_opt_str(route, "egress_if", 0, 64, "", &eg,
			    err);
			json_opt_str(route, "source", 0, 64, "", &src,
			    err);
		}
		printf("%s -> %s on the %s network%s (egress %s, "
		    "source %s)\n", from, to, netname,
		    cJSON_GetObjectItem(res, "loaded") ? ", under "
		    "load" : "", *eg ? eg : "?", *src ? src : "?");
		if (e)
			printf("  error: %s\n", e);
		if (o->kind == PC_LATENCY || o->kind == PC_REACH)
			print_latency(res);
		else if (o->kind == PC_MTU) {
			double conf = 0, path = 0;

			json_get_double(res, "configured", 0, 1e6, &conf,
			    err);
			json_get_double(res, "path", 0, 1e6, &path, err);
			printf("  configured MTU %.0f, path MTU %.0f\n",
			    conf, path);
		} else {
			const cJSON *p;

			cJSON_ArrayForEach(p, cJSON_GetObjectItem(res,
			    "ports")) {
				double port = 0;
				const char *st = "?";

				json_get_double(p, "port", 0, 65535,
				    &port, err);
				json_get_str(p, "state", 1, 16, &st, err);
				printf("  %5.0f %s\n", port, st);
			}
		}
	}
	if (cJSON_GetObjectItem(doc, "load")) {
		const cJSON *l = cJSON_GetObjectItem(doc, "load");
		double ip = 0, lp = 0;

		json_get_double(l, "idle_p99_us", 0, 1e12, &ip, err);
		json_get_double(l, "loaded_p99_us", 0, 1e12, &lp, err);
		printf("p99 idle %.1f us, under load %.1f us (+%.1f "
		    "us queueing)\n", ip, lp, lp - ip);
	}
	cJSON_ArrayForEach(f, fs) {
		const char *k = "", *d = "";

		json_get_str(f, "kind", 1, 64, &k, err);
		json_get_str(f, "detail", 0, 512, &d, err);
		printf("FINDING %s: %s\n", k, d);
	}
	/* The error is the tool's, on stderr like every other: the
	 * results above it stay a clean table on stdout. */
	if (cJSON_IsString(cJSON_GetObjectItem(doc, "error"))) {
		const cJSON *cmd = cJSON_GetObjectItem(doc, "command");

		fflush(stdout);
		fprintf(stderr, "cephfab: %s: %s\n", cJSON_IsString(cmd) ?
		    cmd->valuestring : "probe", cJSON_GetObjectItem(doc,
		    "error")->valuestring);
	}
	printf("verdict: %s\n", rc == EXIT_PASS ? "pass" :
	    rc == EXIT_PROBLEMS ? "fail" : "error");
}

int
probe_cmd_run(struct inventory *inv, const struct auth_key *key,
    const struct probe_cmd_opts *o)
{
	static const char *names[] = { "latency", "mtu", "ports", "reach" };
	struct pcmd c;
	cJSON *doc, *fs, *runs;
	char b1[NETADDR_STRLEN], b2[NETADDR_STRLEN];
	const char *netname = o->net ? "cluster" : "public";
	int rc;
	cJSON *results[2] = { NULL, NULL };

	memset(&c, 0, sizeof(c));
	c.o = o;
	c.ha = inventory_find(inv, o->a);
	c.hb = inventory_find(inv, o->b);
	if (c.ha == NULL || c.hb == NULL || c.ha == c.hb) {
		fprintf(stderr, "cephfab: %s: need two different hosts of %s\n",
		    names[o->kind], inv->path);
		return EXIT_USAGE;
	}
	if (!net_addr(c.ha, o->net)->family ||
	    !net_addr(c.hb, o->kind == PC_REACH ? o->to_net : o->net)->family) {
		fprintf(stderr, "cephfab: %s: a host lacks an address on that "
		    "network in %s\n", names[o->kind], inv->path);
		return EXIT_USAGE;
	}
	doc = cJSON_CreateObject();
	cJSON_AddStringToObject(doc, "command", names[o->kind]);
	cJSON_AddStringToObject(doc, "a", o->a);
	cJSON_AddStringToObject(doc, "b", o->b);
	cJSON_AddStringToObject(doc, "network", netname);
	if (o->kind == PC_REACH)
		cJSON_AddStringToObject(doc, "to_network", o->to_net ?
		    "cluster" : "public");
	cJSON_AddStringToObject(doc, "a_address",
	    netaddr_str(net_addr(c.ha, o->net), b1, sizeof(b1)));
	cJSON_AddStringToObject(doc, "b_address", netaddr_str(net_addr(c.hb,
	    o->kind == PC_REACH ? o->to_net : o->net), b2, sizeof(b2)));
	fs = cJSON_AddArrayToObject(doc, "findings");
	runs = cJSON_CreateArray();
	rc = probe_cmd_measure(&c, key, doc, runs, fs, results);
	cJSON_AddItemToObject(doc, "results", runs);
	probe_cmd_findings(o, runs, fs);
	if (o->loaded && results[0] && results[1]) {
		cJSON *l = cJSON_AddObjectToObject(doc, "load");

		cJSON_AddNumberToObject(l, "idle_p99_us",
		    latency_p99(results[0]));
		cJSON_AddNumberToObject(l, "loaded_p99_us",
		    latency_p99(results[1]));
	}
	if (rc == EXIT_PASS && cJSON_GetArraySize(fs) > 0)
		rc = EXIT_PROBLEMS;
	cJSON_AddStringToObject(doc, "verdict", rc == EXIT_PASS ? "pass" :
	    rc == EXIT_PROBLEMS ? "fail" : "error");
	if (o->json) {
		out_json(doc);
	} else {
		probe_cmd_print(o, doc, runs, fs, rc);
	}
	cJSON_Delete(doc);
	return rc;
}
