/* hosts: agent reachability and status for every host, see topology.h. */
#include "facts/topology.h"
#include "conn.h"
#include "log.h"
#include "msg.h"
#include "core/core.h"
#include "json.h"
#include "store/store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ev.h>

/* The per-host state, in the words users see. */
enum hstate { HS_PENDING, HS_OK, HS_UNREACHABLE, HS_AUTH_FAILED,
    HS_VERSION, HS_BUSY, HS_ERROR };

static const char *hstate_names[] = {
	[HS_PENDING] = "pending",
	[HS_OK] = "ok",
	[HS_UNREACHABLE] = "unreachable",
	[HS_AUTH_FAILED] = "auth_failed",
	[HS_VERSION] = "version_mismatch",
	[HS_BUSY] = "busy",
	[HS_ERROR] = "error",
};

struct hprobe {
	struct hosts_run *run;
	struct inv_host *host;
	struct conn *conn;
	enum hstate state;
	char detail[CF_ERRLEN];
	cJSON *status;		/* the agent's STATUS reply, owned */
	cJSON *facts;		/* its FACTS reply, owned */
	char version[32];
	unsigned proto;
	enum hstate state_after;	/* --facts: STATUS's verdict */
	char detail_after[64];
};

struct hosts_run {
	struct ev_loop *loop;
	struct conn_ctx ctx;
	const struct hosts_opts *o;
	cJSON *peers;		/* every address of the inventory */
	struct hprobe *probes;
	int n, done;
	ev_timer deadline;
};

static void
hosts_finish(struct hprobe *p, enum hstate s, const char *detail)
{
	if (p->state != HS_PENDING)
		return;
	p->state = s;
	snprintf(p->detail, sizeof(p->detail), "%s", detail ? detail : "");
	p->run->done++;
	out_progress("hosts: %d/%d agents answered", p->run->done, p->run->n);
	if (p->run->done == p->run->n)
		ev_break(p->run->loop, EVBREAK_ALL);
}

static void
hosts_established(struct conn *c)
{
	struct hprobe *p = c->udata;

	p->proto = c->peer_proto;
	snprintf(p->version, sizeof(p->version), "%s", c->peer_version);
	if (conn_send(c, MSG_STATUS, 0, NULL) == -1 && !conn_closed(c))
		conn_close(c, CONN_R_PROTO, "cannot send STATUS");
}

static void
hosts_message(struct conn *c, const struct frame_hdr *h, const cJSON *body)
{
	struct hprobe *p = c->udata;
	char err[CF_ERRLEN];
	const cJSON *addrs;
	double up;
	bool busy;

	if (h->type == MSG_FACTS && (h->flags & MSG_F_REPLY) &&
	    p->status != NULL && p->facts == NULL) {
		const char *e;

		p->facts = cJSON_Duplicate(body, 1);
		if (json_opt_str(body, "error", 0, 512, NULL, &e, err) == 0 && e)
			hosts_finish(p, HS_ERROR, e);
		else
			hosts_finish(p, p->state_after, p->detail_after);
		conn_bye(c);
		return;
	}
	if (h->type != MSG_STATUS || !(h->flags & MSG_F_REPLY)) {
		conn_fail(c, CONN_R_PROTO, MSG_ERR_PROTO, "unexpected %s",
		    msg_name(h->type));
		return;
	}
	/* Validate the fields we print before keeping the reply. */
	if (json_get_double(body, "uptime", 0, 1e10, &up, err) == -1 ||
	    json_get_bool(body, "busy", &busy, err) == -1 ||
	    json_get_arr(body, "addrs", 0, 65536, &addrs, NULL, err) == -1) {
		conn_fail(c, CONN_R_PROTO, MSG_ERR_PROTO, "STATUS: %s", err);
		return;
	}
	cJSON_Delete(p->status);
	p->status = cJSON_Duplicate(body, 1);
	if (p->run->o->facts) {
		cJSON *req = cJSON_CreateObject();

		/* The state waits for the facts. An agent running some
		 * coordinator's test is healthy: 'ok', with what it does
		 * said ('busy' is an agent at its max_sessions). */
		p->state_after = HS_OK;
		snprintf(p->detail_after, sizeof(p->detail_after), "%s", busy ?
		    "running a test" : "");
		cJSON_AddItemToObject(req, "peers", cJSON_Duplicate(
		    p->run->peers, 1));
		conn_send(c, MSG_FACTS, 0, req);
		cJSON_Delete(req);
		return;
	}
	hosts_finish(p, HS_OK, busy ? "running a test" : "");
	conn_bye(c);
}

static void
hosts_closed(struct conn *c, enum conn_reason r, const char *detail)
{
	struct hprobe *p = c->udata;
	enum hstate s;

	p->conn = NULL;
	if (c->peer_proto && !p->proto)
		p->proto = c->peer_proto;
	switch (r) {
	case CONN_R_UNREACHABLE: s = HS_UNREACHABLE; break;
	case CONN_R_AUTH_FAILED: s = HS_AUTH_FAILED; break;
	case CONN_R_VERSION: s = HS_VERSION; break;
	case CONN_R_BUSY: s = HS_BUSY; break;
	default: s = HS_ERROR; break;
	}
	hosts_finish(p, s, detail);
}

static void
hosts_deadline_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct hosts_run *run = w->data;
	int i;

	(void)revents;
	for (i = 0; i < run->n; i++) {
		struct hprobe *p = &run->probes[i];

		if (p->state == HS_PENDING) {
			if (p->conn)
				conn_close(p->conn, CONN_R_UNREACHABLE,
				    "no answer before the deadline");
			else
				hosts_finish(p, HS_UNREACHABLE,
				    "no answer before the deadline");
		}
	}
	ev_break(loop, EVBREAK_ALL);
}

/* hosts_addr describes how a host's inventory address for one network
 * appears among the addresses the agent reported. */
static cJSON *
hosts_addr(const struct netaddr *want, const struct netcidr *net,
    bool has_net, const cJSON *addrs, char *line, size_t linesz,
    const char *label)
{
	char ws[NETADDR_STRLEN], err[CF_ERRLEN];
	const cJSON *a;
	cJSON *o = cJSON_CreateObject();
	int found = 0, idx = 0;

	if (o == NULL)
		return NULL;
	cJSON_ArrayForEach(a, addrs) {
		const char *ifname, *as;
		uint32_t prefix;
		struct netaddr na;

		if (json_elem_obj(a, "addrs", idx++, err) == -1 ||
		    json_get_str(a, "ifname", 1, 64, &ifname, err) == -1 ||
		    json_get_str(a, "addr", 2, 64, &as, err) == -1 ||
		    json_get_u32(a, "prefix", 0, 128, &prefix, err) == -1 ||
		    netaddr_parse(as, &na) == -1)
			continue;
		/* Linux answers for all of 127.0.0.0/8 when lo has
		 * 127.0.0.1/8, so such an address is present too. */
		if ((want->family && netaddr_equal(want, &na)) ||
		    (want->family == AF_INET && netaddr_loopback(want) &&
		    netaddr_loopback(&na) && strcmp(ifname, "lo") == 0 &&
		    prefix <= 8) ||
		    (!want->family && has_net && netcidr_contains(net, &na))) {
			/* Show the inventory's address, which may be one
			 * that lo's 127.0.0.0/8 covers. */
			if (want->family)
				as = netaddr_str(want, ws, sizeof(ws));
			cJSON_AddStringToObject(o, "addr", as);
			cJSON_AddNumberToObject(o, "prefix", prefix);
			cJSON_AddStringToObject(o, "ifname", ifname);
			snprintf(line, linesz, "%s %s/%u %s", label, as,
			    prefix, ifname);
			found = 1;
			break;
		}
	}
	if (!found) {
		if (want->family) {
			cJSON_AddStringToObject(o, "addr",
			    netaddr_str(want, ws, sizeof(ws)));
			snprintf(line, linesz, "%s %s MISSING", label, ws);
		} else {
			cJSON_AddNullToObject(o, "addr");
			snprintf(line, linesz, "%s -", label);
		}
	}
	cJSON_AddBoolToObject(o, "present", found);
	return o;
}


/* hosts_warn_open: agents that may send test traffic anywhere their host
 * is (no Ceph networks in their agent.conf): a warning, not a failure. */
static void
hosts_warn_open(const cJSON *arr)
{
	const cJSON *h, *t, *n;

	cJSON_ArrayForEach(h, arr) {
		t = cJSON_GetObjectItem(h, "targets");
		n = cJSON_GetObjectItem(h, "name");
		if (cJSON_IsString(t) && cJSON_IsString(n) &&
		    strcmp(t->valuestring, "host_subnets") == 0)
			printf("warning: %s's agent has no public_network, "
			    "cluster_network or allow_targets in agent.conf: it "
			    "may send test traffic to every subnet its host is "
			    "on\n", n->valuestring);
	}
}

static int
hosts_report(struct hosts_run *run, struct inventory *inv,
    const struct hosts_opts *o)
{
	cJSON *doc = cJSON_CreateObject(), *arr, *sum;
	int counts[HS_ERROR + 1] = { 0 }, i, bad = 0;

	if (doc == NULL)
		return EXIT_RUNTIME;
	cJSON_AddStringToObject(doc, "command", "hosts");
	cJSON_AddStringToObject(doc, "inventory", inv->path);
	arr = cJSON_AddArrayToObject(doc, "hosts");
	if (!o->json && !o->db)
		printf("%-16s %-22s %-8s %-5s %-8s %-16s %s\n", "HOST", "AGENT",
		    "VERSION", "PROTO", "UPTIME", "STATE", "ADDRESSES");
	for (i = 0; i < run->n; i++) {
		struct hprobe *p = &run->probes[i];
		char ep[NETADDR_STRLEN], up[32], pr[16], pl[160], cl[160];
		char err[CF_ERRLEN];
		const cJSON *addrs = NULL;
		cJSON *h = cJSON_CreateObject(), *x;
		double uptime = 0;

		counts[p->state]++;
		if (p->state != HS_OK)
			bad = 1;
		netaddr_endpoint_str(&p->host->agent, p->host->port, ep,
		    sizeof(ep));
		cJSON_AddStringToObject(h, "name", p->host->name);
		cJSON_AddStringToObject(h, "agent", ep);
		cJSON_AddStringToObject(h, "state", hstate_names[p->state]);
		if (p->detail[0])
			cJSON_AddStringToObject(h, "detail", p->detail);
		if (p->version[0])
			cJSON_AddStringToObject(h, "version", p->version);
		if (p->proto)
			cJSON_AddNumberToObject(h, "proto", p->proto);
		if (p->host->rack[0])
			cJSON_AddStringToObject(h, "rack", p->host->rack);
		pl[0] = cl[0] = '\0';
		if (p->status != NULL &&
		    json_get_double(p->status, "uptime", 0, 1e10, &uptime,
		    err) == 0 &&
		    json_get_arr(p->status, "addrs", 0, 65536, &addrs, NULL,
		    err) == 0) {
			const char *hn;

			cJSON_AddNumberToObject(h, "uptime", uptime);
			{
				double v;
				bool b;

				/* Resource use, for operators and for tests
				 * that prove nothing leaks. */
				if (json_get_double(p->status, "fds", -1, 1e7, &v,
				    err) == 0)
					cJSON_AddNumberToObject(h, "fds", v);
				if (json_get_double(p->status, "threads", -1, 1e7,
				    &v, err) == 0)
					cJSON_AddNumberToObject(h, "threads", v);
				if (json_get_bool(p->status, "busy", &b, err) == 0)
					cJSON_AddBoolToObject(h, "busy", b);
				if (json_opt_str(p->status, "targets", 0, 16,
				    "", &hn, err) == 0 && hn[0])
					cJSON_AddStringToObject(h, "targets",
					    hn);
			}
			if (json_get_str(p->status, "hostname", 0, 255, &hn,
			    err) == 0)
				cJSON_AddStringToObject(h, "hostname", hn);
			x = hosts_addr(&p->host->pub, &inv->pubnet,
			    inv->has_pubnet, addrs, pl, sizeof(pl), "public");
			cJSON_AddItemToObject(h, "public", x);
			x = hosts_addr(&p->host->clus, &inv->clusnet,
			    inv->has_clusnet, addrs, cl, sizeof(cl), "cluster");
			cJSON_AddItemToObject(h, "cluster", x);
		}
		if (p->facts)
			cJSON_AddItemToObject(h, "facts", cJSON_Duplicate(
			    p->facts, 1));
		cJSON_AddItemToArray(arr, h);
		if (!o->json && !o->db)
			printf("%-16s %-22s %-8s %-5s %-8s %-16s %s%s%s\n",
			    p->host->name, ep,
			    p->version[0] ? p->version : "-",
			    p->proto ? (snprintf(pr, sizeof(pr), "%u",
			    p->proto), pr) : "-",
			    p->status ? out_duration(uptime, up, sizeof(up)) :
			    "-", p->state == HS_OK && p->detail[0] ?
			    "ok, testing" : hstate_names[p->state],
			    p->status ? pl : p->detail,
			    p->status ? "  " : "", p->status ? cl : "");
	}
	if (o->facts && o->db) {
		/* For the matrix: the facts into its run, nothing else. */
		struct store st;
		char err[CF_ERRLEN];
		int stored = 0;

		if (store_open(&st, o->db, err) == -1 || store_begin(&st) ==
		    -1) {
			fprintf(stderr, "cephfab: hosts: %s\n", err);
			cJSON_Delete(doc);
			return EXIT_RUNTIME;
		}
		for (i = 0; i < run->n; i++)
			if (run->probes[i].facts && !cJSON_GetObjectItem(
			    run->probes[i].facts, "error") &&
			    store_add_cell(&st, o->run, "host",
			    run->probes[i].host->name,
			    run->probes[i].host->name, "facts", "ok",
			    run->probes[i].facts, err) == 1)
				stored++;
		if (store_commit(&st, err) == -1)
			fprintf(stderr, "cephfab: hosts: %s\n", err);
		store_close(&st);
		printf("{\"facts_stored\": %d}\n", stored);
		cJSON_Delete(doc);
		return stored ? EXIT_PASS : EXIT_PROBLEMS;
	}
	if (o->facts) {
		/* The paths: per host and across hosts (topology.h). */
		cJSON *fs = cJSON_AddArrayToObject(doc, "findings");

		if (topology_findings(inv, arr, NULL, fs) > 0)
			bad = 1;
		if (!o->json)
			topology_print(inv, arr, fs);
	}
	sum = cJSON_AddObjectToObject(doc, "summary");
	cJSON_AddNumberToObject(sum, "total", run->n);
	for (i = HS_OK; i <= HS_ERROR; i++)
		cJSON_AddNumberToObject(sum, hstate_names[i], counts[i]);
	cJSON_AddStringToObject(doc, "verdict", bad ? "fail" : "pass");
	if (o->json)
		out_json(doc);
	else {
		printf("%d of %d hosts ok\n", counts[HS_OK], run->n);
		hosts_warn_open(arr);
	}
	cJSON_Delete(doc);
	return bad ? EXIT_PROBLEMS : EXIT_PASS;
}

int
hosts_run(struct inventory *inv, const struct auth_key *key,
    const struct hosts_opts *o)
{
	struct hosts_run run;
	struct inv_host *h;
	char err[CF_ERRLEN], host[256];
	int i = 0, rc;
	static const struct conn_ops hosts_ops = { .established =
	    hosts_established, .message = hosts_message, .closed = hosts_closed
	    };

	memset(&run, 0, sizeof(run));
	run.o = o;
	run.peers = cJSON_CreateArray();
	TAILQ_FOREACH(h, &inv->hosts, entry) {
		char a[NETADDR_STRLEN];

		if (h->pub.family)
			cJSON_AddItemToArray(run.peers, cJSON_CreateString(
			    netaddr_str(&h->pub, a, sizeof(a))));
		if (h->clus.family)
			cJSON_AddItemToArray(run.peers, cJSON_CreateString(
			    netaddr_str(&h->clus, a, sizeof(a))));
	}
	run.loop = ev_loop_new(EVFLAG_AUTO);
	if (run.loop == NULL) {
		log_warnx("cannot create an event loop");
		return EXIT_RUNTIME;
	}
	run.n = inv->nhosts;
	run.probes = calloc((size_t)run.n, sizeof(*run.probes));
	if (run.probes == NULL) {
		ev_loop_destroy(run.loop);
		return EXIT_RUNTIME;
	}
	if (gethostname(host, sizeof(host) - 1) == -1)
		snprintf(host, sizeof(host), "coordinator");
	host[sizeof(host) - 1] = '\0';
	conn_ctx_init(&run.ctx, run.loop, key, CF_VERSION);
	run.ctx.hostname = session_host_name();
	run.ctx.hostname = host;
	run.ctx.auth_timeout = o->timeout;
	/* Every connect starts now: hundreds of agents are probed at once,
	 * never one after another. */
	TAILQ_FOREACH(h, &inv->hosts, entry) {
		struct hprobe *p = &run.probes[i++];

		p->run = &run;
		p->host = h;
		p->conn = conn_connect(&run.ctx, &h->agent, h->port,
		    o->timeout, &hosts_ops, p, err);
		if (p->conn == NULL)
			hosts_finish(p, HS_UNREACHABLE, err);
	}
	/* Facts take longer: a vtysh call per peer, each bounded. */
	ev_timer_init(&run.deadline, hosts_deadline_cb, 2 * o->timeout + 1 +
	    (o->facts ? 60 : 0), 0.);
	run.deadline.data = &run;
	ev_timer_start(run.loop, &run.deadline);
	if (run.done < run.n)
		ev_run(run.loop, 0);
	/* Let BYEs and closes flush, bounded. */
	for (i = 0; i < run.n; i++)
		if (run.probes[i].conn)
			conn_close(run.probes[i].conn, CONN_R_OK, "done");
	out_progress_done();
	rc = hosts_report(&run, inv, o);
	ev_timer_stop(run.loop, &run.deadline);
	conn_ctx_fini(&run.ctx);
	for (i = 0; i < run.n; i++) {
		cJSON_Delete(run.probes[i].status);
		cJSON_Delete(run.probes[i].facts);
	}
	cJSON_Delete(run.peers);
	free(run.probes);
	ev_loop_destroy(run.loop);
	return rc;
}
