/* probe: probe requests on the agent's loop, see probe.h. */
#include "probes/probe_int.h"
#include "log.h"
#include "msg.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sys/socket.h>

void
probes_init(struct probes *ps, struct ev_loop *loop,
    const struct agent_config *cfg)
{
	*ps = (struct probes){ .loop = loop, .cfg = cfg };
	TAILQ_INIT(&ps->list);
}

static void
probe_reply(struct conn *c, unsigned type, const char *id, cJSON *b)
{
	cJSON_AddStringToObject(b, "probe", id);
	conn_send(c, type, MSG_F_REPLY, b);
	cJSON_Delete(b);
}

static void
probe_refuse(struct conn *c, unsigned type, const char *id, const char *fmt,
    ...) __attribute__((format(printf, 4, 5)));

static void
probe_refuse(struct conn *c, unsigned type, const char *id, const char *fmt,
    ...)
{
	va_list ap;
	cJSON *b;

	va_start(ap, fmt);
	b = conn_vrefusal(c, type, fmt, ap);
	va_end(ap);
	probe_reply(c, type, id ? id : "", b);
}

/* probe_free: the thread (if any) has returned or is told to and joined
 * here; its sockets close; the probe leaves the table. */
static void
probe_free(struct probe *p)
{
	struct probes *ps = p->ps;
	int i;

	atomic_store(&p->stop, 1);
	if (p->th_started)
		pthread_join(p->th, NULL);
	if (p->fd != -1)
		close(p->fd);
	for (i = 0; i < p->nports; i++)
		if (p->pfd[i] != -1)
			close(p->pfd[i]);
	ev_async_stop(ps->loop, &p->done);
	ev_timer_stop(ps->loop, &p->deadline);
	cJSON_Delete(p->result);
	free(p->mt);
	TAILQ_REMOVE(&ps->list, p, entry);
	ps->n--;
	free(p);
}

static void
probe_done_cb(struct ev_loop *loop, ev_async *w, int revents)
{
	struct probe *p = w->data;

	(void)loop, (void)revents;
	/* Runners answer with their result; responders just end. */
	if (p->result != NULL && p->owner != NULL) {
		probe_reply(p->owner, MSG_PROBE_RUN, p->id, p->result);
		p->result = NULL;
	}
	if (p->kind >= PK_LATENCY || atomic_load(&p->stop) ||
	    p->owner == NULL)
		probe_free(p);
}

static void
probe_deadline_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct probe *p = w->data;

	(void)loop, (void)revents;
	/* Responders end by themselves; this catches the ones without a
	 * thread (port listeners) and anything stuck. */
	probe_free(p);
}

/* mesh_parse: a mesh runner's targets, [{"dst", "port"}], all of the
 * family of 'local'. */
static int
mesh_parse(struct probe *p, const cJSON *b, char *err)
{
	const cJSON *arr, *e;
	const char *s;
	uint32_t v;
	int n, i = 0;

	if (json_get_arr(b, "targets", 1, PROBE_MESH_MAX, &arr, &n, err) == -1)
		return -1;
	p->mt = calloc((size_t)n, sizeof(*p->mt));
	if (p->mt == NULL) {
		snprintf(err, CF_ERRLEN, "out of memory");
		return -1;
	}
	cJSON_ArrayForEach(e, arr) {
		if (json_get_str(e, "dst", 2, NETADDR_STRLEN - 1, &s, err) == -1 ||
		    json_get_u32(e, "port", 1, 65535, &v, err) == -1) {
			char m[CF_ERRLEN];

			snprintf(m, sizeof(m), "targets[%d]: %s", i, err);
			snprintf(err, CF_ERRLEN, "%s", m);
			return -1;
		}
		if (netaddr_parse(s, &p->mt[i].dst) == -1 ||
		    p->mt[i].dst.family != p->local.family) {
			snprintf(err, CF_ERRLEN, "field 'targets[%d].dst': not "
			    "an address of the family of 'local'", i);
			return -1;
		}
		p->mt[i++].port = (uint16_t)v;
	}
	p->nmt = i;
	p->dst = p->mt[0].dst;
	return 0;
}

int
probe_parse(struct probe *p, const cJSON *b, bool run, char *err)
{
	const struct agent_config *cfg = p->ps->cfg;
	const cJSON *arr, *e;
	const char *kind, *s;
	uint32_t v;
	int n, i;

	if (json_get_str(b, "kind", 3, 16, &kind, err) == -1 ||
	    json_get_hex(b, "token", p->token, PROBE_TOKEN_LEN, err) == -1 ||
	    json_get_str(b, "local", 2, NETADDR_STRLEN - 1, &s, err) == -1)
		return -1;
	if (netaddr_parse(s, &p->local) == -1) {
		snprintf(err, CF_ERRLEN, "field 'local': not an address");
		return -1;
	}
	if (json_get_double(b, "duration", 0.1, cfg->max_duration, &p->duration,
	    err) == -1) {
		snprintf(err + strlen(err), CF_ERRLEN - strlen(err),
		    " (limit max_duration = %.0f s)", cfg->max_duration);
		return -1;
	}
	if (!run) {
		static const char *const w[] = { "udp", "tcp", "ports" };
		static const enum probe_kind k[] = { PK_UDP_ECHO, PK_TCP_ECHO,
		    PK_PORTS };

		if ((i = json_word("kind", kind, w, 3, err)) == -1)
			return -1;
		p->kind = k[i];
	} else {
		static const char *const w[] = { "latency", "mtu", "ports",
		    "mesh" };
		static const enum probe_kind k[] = { PK_LATENCY, PK_MTU,
		    PK_PORTSCAN, PK_MESH };

		if ((i = json_word("kind", kind, w, 4, err)) == -1)
			return -1;
		p->kind = k[i];
		if (p->kind == PK_MESH) {
			if (mesh_parse(p, b, err) == -1)
				return -1;
			s = NULL;
		} else if (json_get_str(b, "dst", 2, NETADDR_STRLEN - 1, &s,
		    err) == -1)
			return -1;
		/* A mesh's targets are its destinations (checked there). */
		if (s != NULL && (netaddr_parse(s, &p->dst) == -1 ||
		    p->dst.family != p->local.family)) {
			snprintf(err, CF_ERRLEN, "field 'dst': not an address "
			    "of the family of 'local'");
			return -1;
		}
		if (json_opt_str(b, "other", 0, NETADDR_STRLEN - 1, "", &s,
		    err) == -1)
			return -1;
		if (*s && netaddr_parse(s, &p->other) == -1) {
			snprintf(err, CF_ERRLEN, "field 'other': not an "
			    "address");
			return -1;
		}
		if (json_opt_u32(b, "port", 0, 65535, 0, &v, err) == -1)
			return -1;
		p->port = (uint16_t)v;
		if (json_opt_u32(b, "count", 1, 1000000, 1000, &p->count,
		    err) == -1 ||
		    json_opt_u32(b, "rate", 0, 100000, 0, &p->rate, err) == -1 ||
		    json_opt_u32(b, "window", 0, 1024, 0, &p->window,
		    err) == -1 ||
		    json_opt_u32(b, "timeout_ms", 10, 10000, 1000,
		    &p->timeout_ms, err) == -1 ||
		    json_opt_u32(b, "max_size", 0, 65535, 0, &p->max_size,
		    err) == -1)
			return -1;
		if (json_opt_str(b, "proto", 3, 3, "udp", &s, err) == -1)
			return -1;
		p->udp = strcmp(s, "tcp") != 0;
		/* The mesh's datagrams carry the 24-byte probe header; a
		 * TCP mesh does not exist (its minimum size was 16). */
		if (p->kind == PK_MESH && !p->udp) {
			snprintf(err, CF_ERRLEN, "field 'proto': the mesh "
			    "probes over UDP only");
			return -1;
		}
		if (json_opt_arr(b, "sizes", PROBE_MAX_SIZES, &arr, &n,
		    err) == -1)
			return -1;
		i = 0;
		cJSON_ArrayForEach(e, arr) {
			if (!cJSON_IsNumber(e) || e->valuedouble <
			    (p->udp ? 32 : 16) || e->valuedouble > (p->udp ?
			    65507 : 65536)) {
				snprintf(err, CF_ERRLEN, "field 'sizes[%d]': "
				    "not a message size in [%d, %d]", i,
				    p->udp ? 32 : 16, p->udp ? 65507 : 65536);
				return -1;
			}
			p->sizes[i++] = (uint32_t)e->valuedouble;
		}
		p->nsizes = i;
		if (p->kind == PK_MESH &&
		    (uint64_t)p->count * (uint64_t)p->nmt > 1000000) {
			snprintf(err, CF_ERRLEN, "field 'count': %u probes to "
			    "each of %d targets is over a million", p->count,
			    p->nmt);
			return -1;
		}
		if ((p->kind == PK_LATENCY || p->kind == PK_MESH) &&
		    p->nsizes == 0) {
			p->sizes[0] = 64;
			p->nsizes = 1;
		}
	}
	if (json_opt_arr(b, "ports", PROBE_MAX_PORTS, &arr, &n, err) == -1)
		return -1;
	i = 0;
	cJSON_ArrayForEach(e, arr) {
		if (!cJSON_IsNumber(e) || e->valuedouble < 1 ||
		    e->valuedouble > 65535) {
			snprintf(err, CF_ERRLEN, "field 'ports[%d]': not a "
			    "port", i);
			return -1;
		}
		p->ports[i++] = (uint16_t)e->valuedouble;
	}
	p->nports = i;
	if ((p->kind == PK_PORTS || p->kind == PK_PORTSCAN) && p->nports == 0) {
		snprintf(err, CF_ERRLEN, "field 'ports': empty");
		return -1;
	}
	return 0;
}

static int
probe_listen(struct probe *p, int type, uint16_t port, int *fdp, char *err)
{
	struct sockaddr_storage ss;
	socklen_t sl = netaddr_sockaddr(&p->local, port, &ss);
	int fd = socket(p->local.family, type | SOCK_CLOEXEC, 0), one = 1;

	if (fd == -1) {
		snprintf(err, CF_ERRLEN, "socket: %s", strerror(errno));
		return -1;
	}
	/* Never SO_REUSEPORT: it would join a live daemon's reuseport
	 * group (same user) and take some of its connections. A port
	 * another of our probes holds is shared by own_listener instead. */
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&ss, sl) == -1 ||
	    (type == SOCK_STREAM && listen(fd, 16) == -1)) {
		int e = errno;

		snprintf(err, CF_ERRLEN, "bind port %u: %s", port,
		    strerror(e));
		close(fd);
		errno = e;
		return -1;
	}
	*fdp = fd;
	return 0;
}

/* own_listener: the listener another ports probe of ours holds on this
 * probe's address and port (two coordinators probing one host at once),
 * as a descriptor of its own: the port stays open for us whichever probe
 * ends first. -1 when none does: a bind failing then means a daemon
 * listens, and its port is what gets tested. */
static int
own_listener(struct probes *ps, const struct probe *p, uint16_t port)
{
	struct probe *q;
	int i;

	TAILQ_FOREACH(q, &ps->list, entry) {
		if (q == p || q->kind != PK_PORTS ||
		    !netaddr_equal(&q->local, &p->local))
			continue;
		for (i = 0; i < q->nports; i++)
			if (q->ports[i] == port && q->pfd[i] != -1)
				return fcntl(q->pfd[i], F_DUPFD_CLOEXEC, 0);
	}
	return -1;
}

static void
probe_open(struct probes *ps, struct conn *c, const cJSON *b, unsigned type)
{
	char err[CF_ERRLEN];
	const char *id;
	struct probe *p;
	cJSON *r;
	int i;

	if (json_get_str(b, "probe", PROBE_ID_LEN, PROBE_ID_LEN, &id, err) == -1) {
		probe_refuse(c, type, NULL, "%s", err);
		return;
	}
	if (ps->n >= PROBE_MAX) {
		probe_refuse(c, type, id, "busy: %u probes running (at most "
		    "%d)", ps->n, PROBE_MAX);
		return;
	}
	p = calloc(1, sizeof(*p));
	if (p == NULL) {
		probe_refuse(c, type, id, "out of memory");
		return;
	}
	p->ps = ps;
	p->owner = c;
	p->fd = -1;
	memcpy(p->id, id, PROBE_ID_LEN + 1);
	for (i = 0; i < PROBE_MAX_PORTS; i++)
		p->pfd[i] = -1;
	TAILQ_INSERT_TAIL(&ps->list, p, entry);
	ps->n++;
	ev_async_init(&p->done, probe_done_cb);
	ev_timer_init(&p->deadline, probe_deadline_cb, 0., 0.);
	p->done.data = p->deadline.data = p;
	ev_async_start(ps->loop, &p->done);
	if (probe_parse(p, b, type == MSG_PROBE_RUN, err) == -1) {
		probe_refuse(c, type, id, "%s", err);
		probe_free(p);
		return;
	}
	for (i = 0; type == MSG_PROBE_RUN && i < (p->nmt ? p->nmt : 1); i++) {
		const struct netaddr *t = p->nmt ? &p->mt[i].dst : &p->dst;
		char why[CF_ERRLEN], a[NETADDR_STRLEN];

		if (engine_target_allowed_cfg(ps->cfg, t, err))
			continue;
		snprintf(why, sizeof(why), "%s", err);
		probe_refuse(c, type, id, "limit %s: target %s not allowed",
		    why, netaddr_str(t, a, sizeof(a)));
		probe_free(p);
		return;
	}
	/* Responders end at their deadline even if nobody closes them; a
	 * runner's thread is bounded by the same time plus its timeouts. */
	ev_timer_set(&p->deadline, p->duration + 5, 0.);
	ev_timer_start(ps->loop, &p->deadline);
	r = cJSON_CreateObject();
	switch (p->kind) {
	case PK_UDP_ECHO:
	case PK_TCP_ECHO:
		if (probe_listen(p, p->kind == PK_UDP_ECHO ? SOCK_DGRAM :
		    SOCK_STREAM, 0, &p->fd, err) == -1)
			goto fail;
		{
			struct sockaddr_storage ss;
			socklen_t sl = sizeof(ss);
			struct netaddr a;
			uint16_t port = 0;

			getsockname(p->fd, (struct sockaddr *)&ss, &sl);
			netaddr_from_sockaddr((struct sockaddr *)&ss, &a,
			    &port);
			cJSON_AddNumberToObject(r, "port", port);
		}
		if (pthread_create(&p->th, NULL, p->kind == PK_UDP_ECHO ?
		    probe_udp_echo : probe_tcp_echo, p) != 0) {
			snprintf(err, CF_ERRLEN, "cannot start a thread");
			goto fail;
		}
		p->th_started = true;
		break;
	case PK_PORTS: {
		cJSON *arr = cJSON_AddArrayToObject(r, "ports");

		for (i = 0; i < p->nports; i++) {
			cJSON *o = cJSON_CreateObject();

			cJSON_AddNumberToObject(o, "port", p->ports[i]);
			/* Where a daemon already listens, its port is what
			 * gets tested. */
			if ((p->pfd[i] = own_listener(ps, p, p->ports[i])) !=
			    -1 || probe_listen(p, SOCK_STREAM, p->ports[i],
			    &p->pfd[i], err) == 0)
				cJSON_AddStringToObject(o, "state",
				    "listening");
			else
				cJSON_AddStringToObject(o, "state",
				    errno == EADDRINUSE ? "in_use" : "error");
			cJSON_AddItemToArray(arr, o);
		}
		break;
	}
	default:
		if (pthread_create(&p->th, NULL, p->kind == PK_LATENCY ?
		    probe_run_latency : p->kind == PK_MTU ? probe_run_mtu :
		    p->kind == PK_MESH ? probe_run_mesh : probe_run_ports,
		    p) != 0) {
			snprintf(err, CF_ERRLEN, "cannot start a thread");
			goto fail;
		}
		p->th_started = true;
		cJSON_Delete(r);
		return;		/* the answer comes with the result */
	}
	probe_reply(c, type, id, r);
	return;
fail:
	cJSON_Delete(r);
	probe_refuse(c, type, id, "%s", err);
	probe_free(p);
}

int
probes_message(struct probes *ps, struct conn *c, const struct frame_hdr *h,
    const cJSON *body)
{
	struct probe *p, *tmp;
	char err[CF_ERRLEN];
	const char *id;

	if (h->flags & MSG_F_REPLY)
		return 0;
	switch (h->type) {
	case MSG_PROBE_OPEN:
	case MSG_PROBE_RUN:
		probe_open(ps, c, body, h->type);
		return 1;
	case MSG_PROBE_CLOSE:
		if (json_get_str(body, "probe", PROBE_ID_LEN, PROBE_ID_LEN, &id,
		    err) == -1)
			return 1;
		TAILQ_FOREACH_SAFE(p, &ps->list, entry, tmp)
			if (p->owner == c && strcmp(p->id, id) == 0)
				probe_free(p);
		return 1;
	}
	return 0;
}

void
probes_conn_closed(struct probes *ps, struct conn *c)
{
	struct probe *p, *tmp;

	TAILQ_FOREACH_SAFE(p, &ps->list, entry, tmp)
		if (p->owner == c)
			probe_free(p);
}

void
probes_fini(struct probes *ps)
{
	while (!TAILQ_EMPTY(&ps->list))
		probe_free(TAILQ_FIRST(&ps->list));
}
