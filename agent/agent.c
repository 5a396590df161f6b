/* agent: listener, sessions and STATUS, see agent.h. */
#include "agent.h"
#include "child.h"
#include "facts/ifaddrs.h"
#include "facts/ovs.h"
#include "log.h"
#include "msg.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <openssl/crypto.h>

static double
agent_uptime(const struct agent *a)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - a->started.tv_sec) +
	    (double)(now.tv_nsec - a->started.tv_nsec) / 1e9;
}

static const char *
agent_admit(struct conn *c, char *msg)
{
	struct agent_peer *p = c->udata;
	struct agent *a = p->agent;

	if (a->nsessions >= a->cfg->max_sessions) {
		snprintf(msg, CF_ERRLEN, "agent %s already serves %u "
		    "coordinator sessions (max_sessions)", a->hostname,
		    a->nsessions);
		return MSG_ERR_BUSY;
	}
	return NULL;
}

static void
agent_auth_fill(struct conn *c, cJSON *auth)
{
	struct agent_peer *p = c->udata;

	cJSON_AddNumberToObject(auth, "uptime", agent_uptime(p->agent));
}

static void
agent_established(struct conn *c)
{
	struct agent_peer *p = c->udata;

	p->authed = 1;
	p->agent->nsessions++;
	log_info("%s: coordinator %s (%s) authenticated", c->peer,
	    c->peer_host, c->peer_version);
}

static int
agent_count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	if (d == NULL)
		return -1;
	while ((e = readdir(d)) != NULL)
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return n - 1;	/* the DIR's own descriptor */
}

static int
agent_count_threads(void)
{
	FILE *f = fopen("/proc/self/status", "re");
	char line[256];
	int n = -1;

	if (f == NULL)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Threads: %d", &n) == 1)
			break;
	fclose(f);
	return n;
}

static void
agent_status(struct agent *a, struct conn *c)
{
	struct utsname u;
	cJSON *r = cJSON_CreateObject(), *addrs;

	if (r == NULL)
		return;
	cJSON_AddStringToObject(r, "version", CF_VERSION);
	cJSON_AddNumberToObject(r, "proto", a->ctx.proto);
	cJSON_AddStringToObject(r, "hostname", a->hostname);
	cJSON_AddNumberToObject(r, "uptime", agent_uptime(a));
	cJSON_AddNumberToObject(r, "pid", getpid());
	cJSON_AddNumberToObject(r, "sessions", a->nsessions);
	cJSON_AddNumberToObject(r, "conns", a->nconns);
	cJSON_AddNumberToObject(r, "refused", (double)a->refused);
	cJSON_AddNumberToObject(r, "evicted", (double)a->evicted);
	cJSON_AddBoolToObject(r, "busy", engine_busy(&a->engine));
	{
		/* What a coordinator plans within (the matrix paces its
		 * cells by max_rate, fits streams and duration), and who
		 * holds this agent now, so that it can wait or say so before
		 * measuring instead of reading refusals as a network. */
		cJSON *lim = cJSON_AddObjectToObject(r, "limits");
		char who[80];
		double left;

		cJSON_AddNumberToObject(lim, "max_rate", (double)a->cfg->max_rate);
		cJSON_AddNumberToObject(lim, "max_streams", a->cfg->max_streams);
		cJSON_AddNumberToObject(lim, "max_duration",
		    a->cfg->max_duration);
		cJSON_AddNumberToObject(lim, "max_tests", a->cfg->max_tests);
		if (engine_holder(&a->engine, who, sizeof(who), &left)) {
			cJSON_AddStringToObject(r, "held_by", who);
			cJSON_AddNumberToObject(r, "busy_left_s", left);
		}
	}
	/* Where test traffic may go: "networks" (the Ceph networks or
	 * allow_targets), or "host_subnets" (nothing configured). */
	cJSON_AddStringToObject(r, "targets", config_targets_open(a->cfg) ?
	    "host_subnets" : "networks");
	/* Descriptors and threads in use: tests prove with these that
	 * nothing outlives a throughput test. */
	cJSON_AddNumberToObject(r, "fds", agent_count_fds());
	cJSON_AddNumberToObject(r, "threads", agent_count_threads());
	if (uname(&u) == 0)
		cJSON_AddStringToObject(r, "kernel", u.release);
	addrs = ifaddrs_json();
	if (addrs == NULL)
		addrs = cJSON_CreateArray();
	cJSON_AddItemToObject(r, "addrs", addrs);
	conn_send(c, MSG_STATUS, MSG_F_REPLY, r);
	cJSON_Delete(r);
}

/* The handlers of the requests an agent serves, one per module (the
 * modules' _message functions decode and answer their own bodies). */
typedef void msg_handler(struct agent *a, struct conn *c,
    const struct frame_hdr *h, const cJSON *body);

static void
on_status(struct agent *a, struct conn *c, const struct frame_hdr *h,
    const cJSON *body)
{
	(void)h, (void)body;
	agent_status(a, c);
}

/* ON_MODULE defines the handler that passes a request to one module's
 * _message function with the module's own state. */
#define ON_MODULE(name, field, fn)					\
	static void							\
	name(struct agent *a, struct conn *c, const struct frame_hdr *h,	\
	    const cJSON *body)						\
	{								\
		fn(&a->field, c, h, body);				\
	}
ON_MODULE(on_test, engine, engine_message)
ON_MODULE(on_probe, probes, probes_message)
ON_MODULE(on_facts, facts, facts_message)
ON_MODULE(on_watch, watches, watches_message)
ON_MODULE(on_monitor, monitor, monitor_message)

/* Which module serves which request: HELLO, AUTH and BYE are the
 * connection's (proto/conn.c); a type without an entry, and every reply,
 * is a protocol error. */
static msg_handler *const handlers[MSG_TYPE_MAX] = {
	[MSG_STATUS] = on_status,
	[MSG_TEST_LISTEN] = on_test,
	[MSG_TEST_CONNECT] = on_test,
	[MSG_TEST_START] = on_test,
	[MSG_TEST_ABORT] = on_test,
	[MSG_PROBE_OPEN] = on_probe,
	[MSG_PROBE_RUN] = on_probe,
	[MSG_PROBE_CLOSE] = on_probe,
	[MSG_FACTS] = on_facts,
	[MSG_WATCH] = on_watch,
	[MSG_MONITOR] = on_monitor,
};

static void
agent_message(struct conn *c, const struct frame_hdr *h, const cJSON *body)
{
	struct agent_peer *p = c->udata;

	if (!(h->flags & MSG_F_REPLY) && h->type < MSG_TYPE_MAX &&
	    handlers[h->type] != NULL) {
		handlers[h->type](p->agent, c, h, body);
		return;
	}
	conn_fail(c, CONN_R_PROTO, MSG_ERR_PROTO, "agent does not serve %s%s",
	    msg_name(h->type), (h->flags & MSG_F_REPLY) ? " replies" : "");
}

static void
agent_closed(struct conn *c, enum conn_reason r, const char *detail)
{
	struct agent_peer *p = c->udata;
	struct agent *a = p->agent;

	if (r == CONN_R_OK || r == CONN_R_PEER_CLOSED)
		log_debug("%s: closed: %s", c->peer, detail);
	else
		log_warnx("%s: closed (%s): %s", c->peer, conn_reason_name(r),
		    detail);
	engine_conn_closed(&a->engine, c);
	probes_conn_closed(&a->probes, c);
	facts_conn_closed(&a->facts, c);
	watches_conn_closed(&a->watches, c);
	if (p->authed)
		a->nsessions--;
	a->nconns--;
	TAILQ_REMOVE(&a->peers, p, entry);
	free(p);
	/* A slot is free again: resume accepting if we had paused. */
	if (a->lfd != -1 && !ev_is_active(&a->accept_w) &&
	    !ev_is_active(&a->accept_pause))
		ev_io_start(a->loop, &a->accept_w);
}

/* agent_make_room: whether a connection from src may be accepted, making
 * room for it. Strangers are cheap to be and free to connect, so their
 * handshakes are bounded twice: max_unauth_per_source from one address
 * (a Ceph client's socket leak, a scanner), and max_conns less
 * max_sessions in all, the rest being kept for coordinators that prove
 * the key. Past either bound the oldest unauthenticated connection (of
 * that address, or of all) is closed: a flood pushes out its own
 * connections, not a coordinator's. Authenticated ones are never closed
 * for room; only when they fill max_conns is a newcomer refused. */
static int
agent_make_room(struct agent *a, const struct netaddr *src)
{
	unsigned budget = a->cfg->max_conns > a->cfg->max_sessions ?
	    a->cfg->max_conns - a->cfg->max_sessions : 1, unauth = 0, mine = 0;
	struct agent_peer *p, *oldest = NULL, *oldest_mine = NULL, *victim;

	TAILQ_FOREACH(p, &a->peers, entry) {
		if (p->authed)
			continue;
		unauth++;
		if (oldest == NULL)
			oldest = p;
		if (netaddr_equal(&p->src, src) && mine++ == 0)
			oldest_mine = p;
	}
	victim = mine >= a->cfg->max_unauth_per_source ? oldest_mine :
	    unauth >= budget || a->nconns >= a->cfg->max_conns ? oldest : NULL;
	if (victim != NULL) {
		a->evicted++;
		/* Closing calls agent_closed, which frees victim. */
		conn_close(victim->conn, CONN_R_OK, "closed to make room for "
		    "a newer connection (unauthenticated)");
	}
	return a->nconns < a->cfg->max_conns ? 0 : -1;
}

static void
agent_accept_cb(struct ev_loop *loop, ev_io *w, int revents)
{
	struct agent *a = w->data;
	struct sockaddr_storage ss;
	socklen_t sl;
	char peer[NETADDR_STRLEN];
	struct agent_peer *p;
	struct netaddr na;
	uint16_t port = 0;
	int fd, i;
	static const struct conn_ops agent_ops = { .admit = agent_admit,
	    .auth_fill = agent_auth_fill, .established = agent_established,
	    .message = agent_message, .closed = agent_closed };

	(void)revents;
	/* Accept a bounded batch so one flood cannot starve the loop. */
	for (i = 0; i < 64; i++) {
		sl = sizeof(ss);
		fd = accept4(a->lfd, (struct sockaddr *)&ss, &sl,
		    SOCK_CLOEXEC | SOCK_NONBLOCK);
		if (fd == -1) {
			if (errno == EAGAIN || errno == EWOULDBLOCK ||
			    errno == EINTR || errno == ECONNABORTED)
				return;
			if (errno == EMFILE || errno == ENFILE) {
				/* Out of descriptors: stop accepting for a
				 * moment instead of spinning on the
				 * listener. */
				log_warn("accept");
				ev_io_stop(loop, &a->accept_w);
				ev_timer_start(loop, &a->accept_pause);
				return;
			}
			log_warn("accept");
			return;
		}
		if (netaddr_from_sockaddr((struct sockaddr *)&ss, &na,
		    &port) == 0)
			netaddr_endpoint_str(&na, port, peer, sizeof(peer));
		else
			snprintf(peer, sizeof(peer), "?");
		if (agent_make_room(a, &na) == -1) {
			a->refused++;
			log_debug("%s: refused: %u connections open "
			    "(max_conns)", peer, a->nconns);
			close(fd);
			continue;
		}
		p = calloc(1, sizeof(*p));
		if (p == NULL) {
			close(fd);
			continue;
		}
		p->agent = a;
		p->src = na;
		TAILQ_INSERT_TAIL(&a->peers, p, entry);
		a->nconns++;
		p->conn = conn_accept(&a->ctx, fd, peer, &agent_ops, p);
		if (p->conn == NULL) {
			TAILQ_REMOVE(&a->peers, p, entry);
			a->nconns--;
			free(p);
			continue;
		}
		log_debug("%s: connected", peer);
	}
}

static void
agent_accept_pause_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct agent *a = w->data;

	(void)revents;
	if (a->lfd != -1)
		ev_io_start(loop, &a->accept_w);
}

static void
agent_signal_cb(struct ev_loop *loop, ev_signal *w, int revents)
{
	struct agent *a = w->data;
	struct agent_peer *p, *tmp;

	(void)revents;
	log_info("signal %d: shutting down", w->signum);
	/* A facts job may be waiting for a vtysh that hangs: end it now,
	 * not at its deadline, so that facts_fini's join is prompt. */
	child_kill_all();
	engine_fini(&a->engine);
	probes_fini(&a->probes);
	facts_fini(&a->facts);
	watches_fini(&a->watches);
	monitor_fini(&a->monitor);
	ev_io_stop(loop, &a->accept_w);
	ev_timer_stop(loop, &a->accept_pause);
	if (a->lfd != -1) {
		close(a->lfd);
		a->lfd = -1;
	}
	TAILQ_FOREACH_SAFE(p, &a->peers, entry, tmp)
		conn_close(p->conn, CONN_R_OK, "agent shutting down");
	ev_signal_stop(loop, &a->sigint_w);
	ev_signal_stop(loop, &a->sigterm_w);
	ev_break(loop, EVBREAK_ALL);
}

static int
agent_listen(struct agent *a, char *err)
{
	const struct agent_config *cfg = a->cfg;
	struct netaddr any;
	struct sockaddr_storage ss;
	socklen_t sl;
	int fd, one = 1;

	if (cfg->listen.family != 0) {
		any = cfg->listen;
	} else {
		memset(&any, 0, sizeof(any));
		any.family = AF_INET;
	}
	sl = netaddr_sockaddr(&any, cfg->port, &ss);
	netaddr_endpoint_str(&any, cfg->port, a->bound, sizeof(a->bound));
	fd = socket(any.family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd == -1) {
		snprintf(err, CF_ERRLEN, "socket: %s", strerror(errno));
		return -1;
	}
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&ss, sl) == -1) {
		snprintf(err, CF_ERRLEN, "bind %s: %s", a->bound,
		    strerror(errno));
		close(fd);
		return -1;
	}
	if (listen(fd, 128) == -1) {
		snprintf(err, CF_ERRLEN, "listen %s: %s", a->bound,
		    strerror(errno));
		close(fd);
		return -1;
	}
	a->lfd = fd;
	return 0;
}

int
agent_init(struct agent *a, struct ev_loop *loop,
    const struct agent_config *cfg, const struct auth_key *key,
    unsigned proto, char *err)
{
	memset(a, 0, sizeof(*a));
	a->loop = loop;
	a->cfg = cfg;
	a->lfd = -1;
	TAILQ_INIT(&a->peers);
	clock_gettime(CLOCK_MONOTONIC, &a->started);
	if (gethostname(a->hostname, sizeof(a->hostname) - 1) == -1)
		snprintf(a->hostname, sizeof(a->hostname), "unknown");
	a->key = *key;
	if (agent_listen(a, err) == -1)
		return -1;
	conn_ctx_init(&a->ctx, loop, &a->key, CF_VERSION);
	engine_init(&a->engine, loop, cfg, a->hostname);
	probes_init(&a->probes, loop, cfg);
	facts_init(&a->facts, loop, cfg);
	/* The spread of a test over OVS bond members needs the map before
	 * any facts request: learn it now, off the loop. */
	ovs_map_refresh_async(cfg);
	watches_init(&a->watches, loop, cfg);
	if (monitor_init(&a->monitor, loop, cfg, a->hostname, err) == -1)
		return -1;
	a->ctx.hostname = a->hostname;
	a->ctx.auth_timeout = cfg->auth_timeout;
	a->ctx.idle_timeout = cfg->idle_timeout;
	if (proto)
		a->ctx.proto = proto;
	ev_io_init(&a->accept_w, agent_accept_cb, a->lfd, EV_READ);
	a->accept_w.data = a;
	ev_timer_init(&a->accept_pause, agent_accept_pause_cb, 0.5, 0.);
	a->accept_pause.data = a;
	ev_signal_init(&a->sigint_w, agent_signal_cb, SIGINT);
	ev_signal_init(&a->sigterm_w, agent_signal_cb, SIGTERM);
	a->sigint_w.data = a->sigterm_w.data = a;
	ev_signal_start(loop, &a->sigint_w);
	ev_signal_start(loop, &a->sigterm_w);
	ev_io_start(loop, &a->accept_w);
	log_info("listening on %s (protocol %u, version %s)", a->bound,
	    a->ctx.proto, CF_VERSION);
	return 0;
}

void
agent_run(struct agent *a)
{
	ev_run(a->loop, 0);
}

void
agent_fini(struct agent *a)
{
	struct agent_peer *p, *tmp;

	if (a->engine.loop)
		engine_fini(&a->engine);
	if (a->probes.loop)
		probes_fini(&a->probes);
	facts_fini(&a->facts);
	watches_fini(&a->watches);
	monitor_fini(&a->monitor);
	TAILQ_FOREACH_SAFE(p, &a->peers, entry, tmp)
		conn_close(p->conn, CONN_R_OK, "agent shutting down");
	if (a->lfd != -1) {
		close(a->lfd);
		a->lfd = -1;
	}
	if (a->ctx.loop)
		conn_ctx_fini(&a->ctx);
	OPENSSL_cleanse(&a->key, sizeof(a->key));
}
