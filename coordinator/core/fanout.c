/* fanout: one request to every agent, see fanout.h. */
#include "core/fanout.h"
#include "log.h"
#include "msg.h"
#include "json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ev.h>

struct fan {
	struct ev_loop *loop;
	struct conn_ctx ctx;
	struct fanout_reply *r;
	struct conn **conns;
	cJSON **bodies;
	int n, done;
	unsigned type;
	ev_timer deadline;
};

struct fan_slot {
	struct fan *f;
	int i;
};

static void
fan_established(struct conn *c)
{
	struct fan_slot *s = c->udata;

	if (conn_send(c, s->f->type, 0, s->f->bodies[s->i]) == -1 &&
	    !conn_closed(c))
		conn_close(c, CONN_R_PROTO, "cannot send the request");
}

static void
fan_message(struct conn *c, const struct frame_hdr *h, const cJSON *body)
{
	struct fan_slot *s = c->udata;
	struct fanout_reply *r = &s->f->r[s->i];
	const char *e;
	char err[CF_ERRLEN];

	if (h->type != s->f->type || !(h->flags & MSG_F_REPLY) ||
	    r->body != NULL) {
		conn_fail(c, CONN_R_PROTO, MSG_ERR_PROTO, "unexpected %s",
		    msg_name(h->type));
		return;
	}
	if (json_opt_str(body, "error", 0, 512, NULL, &e, err) == -1) {
		conn_fail(c, CONN_R_PROTO, MSG_ERR_PROTO, "%s: %s",
		    msg_name(h->type), err);
		return;
	}
	r->body = cJSON_Duplicate(body, 1);
	if (e != NULL)
		snprintf(r->error, sizeof(r->error), "%s", e);
	conn_bye(c);
}

static void
fan_closed(struct conn *c, enum conn_reason why, const char *detail)
{
	struct fan_slot *s = c->udata;
	struct fan *f = s->f;

	(void)why;
	f->conns[s->i] = NULL;
	if (f->r[s->i].body == NULL && f->r[s->i].error[0] == '\0')
		snprintf(f->r[s->i].error, sizeof(f->r[s->i].error), "%s",
		    detail && *detail ? detail : "closed without a reply");
	if (++f->done == f->n)
		ev_break(f->loop, EVBREAK_ALL);
	out_progress("%d/%d agents answered", f->done, f->n);
	free(s);
}

static void
deadline_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct fan *f = w->data;
	int i;

	(void)revents;
	for (i = 0; i < f->n; i++)
		if (f->conns[i] != NULL)
			conn_close(f->conns[i], CONN_R_UNREACHABLE,
			    "no answer before the deadline");
	ev_break(loop, EVBREAK_ALL);
}

int
fanout_run(struct inventory *inv, const struct auth_key *key,
    double timeout, double wait, unsigned type,
    cJSON *(*body)(struct inv_host *h, void *udata), void *udata,
    struct fanout_reply **out)
{
	static const struct conn_ops ops = { .established = fan_established,
	    .message = fan_message, .closed = fan_closed };
	struct fan f;
	struct inv_host *h;
	char err[CF_ERRLEN];
	int i = 0, ok = 0;

	memset(&f, 0, sizeof(f));
	f.n = inv->nhosts;
	f.type = type;
	f.loop = ev_loop_new(EVFLAG_AUTO);
	f.r = calloc((size_t)f.n + 1, sizeof(*f.r));
	f.conns = calloc((size_t)f.n + 1, sizeof(*f.conns));
	f.bodies = calloc((size_t)f.n + 1, sizeof(*f.bodies));
	*out = f.r;
	if (f.loop == NULL || f.r == NULL || f.conns == NULL ||
	    f.bodies == NULL) {
		free(f.conns);
		free(f.bodies);
		if (f.loop)
			ev_loop_destroy(f.loop);
		return -1;
	}
	conn_ctx_init(&f.ctx, f.loop, key, CF_VERSION);
	f.ctx.hostname = session_host_name();
	f.ctx.idle_timeout = timeout + wait;
	TAILQ_FOREACH(h, &inv->hosts, entry) {
		struct fan_slot *s;

		f.r[i].host = h;
		f.bodies[i] = body(h, udata);
		if (f.bodies[i] == NULL) {
			snprintf(f.r[i].error, sizeof(f.r[i].error),
			    "skipped: nothing to send");
			f.done++;
		} else if ((s = calloc(1, sizeof(*s))) == NULL) {
			snprintf(f.r[i].error, sizeof(f.r[i].error),
			    "out of memory");
			f.done++;
		} else {
			s->f = &f;
			s->i = i;
			f.conns[i] = conn_connect(&f.ctx, &h->agent, h->port,
			    timeout, &ops, s, err);
			if (f.conns[i] == NULL) {
				snprintf(f.r[i].error, sizeof(f.r[i].error),
				    "%s", err);
				free(s);
				f.done++;
			}
		}
		i++;
	}
	if (f.done < f.n) {
		ev_timer_init(&f.deadline, deadline_cb, timeout + wait, 0.);
		f.deadline.data = &f;
		ev_timer_start(f.loop, &f.deadline);
		ev_run(f.loop, 0);
		ev_timer_stop(f.loop, &f.deadline);
	}
	out_progress_done();
	conn_ctx_fini(&f.ctx);
	ev_loop_destroy(f.loop);
	for (i = 0; i < f.n; i++) {
		cJSON_Delete(f.bodies[i]);
		ok += f.r[i].body != NULL && f.r[i].error[0] == '\0';
	}
	free(f.bodies);
	free(f.conns);
	return ok;
}

void
fanout_free(struct fanout_reply *r, int n)
{
	int i;

	if (r == NULL)
		return;
	for (i = 0; i < n; i++)
		cJSON_Delete(r[i].body);
	free(r);
}
