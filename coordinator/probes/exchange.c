/* exchange: probe exchanges, see probes.h. */
#include "probes/probes.h"
#include "auth.h"
#include "msg.h"
#include "json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void
exchange_finish(struct pex *x, const char *fmt, const char *detail)
{
	if (x->done)
		return;
	x->done = true;
	if (fmt)
		snprintf(x->error, sizeof(x->error), fmt, detail);
	if (x->open_reply && x->resp && x->resp->up) {
		cJSON *b = cJSON_CreateObject();

		cJSON_AddStringToObject(b, "probe", x->id);
		session_send(x->resp, MSG_PROBE_CLOSE, b);
		cJSON_Delete(b);
	}
	if (x->cb)
		x->cb(x, x->arg);
}

struct pex *
exchange_new(struct exchange_list *l, struct sess *resp, cJSON *open, struct sess *run,
    cJSON *runb, exchange_done_fn cb, void *arg)
{
	struct pex *x = calloc(1, sizeof(*x));
	uint8_t rnd[AUTH_NONCE_LEN], tok[AUTH_NONCE_LEN];
	char hex[2 * AUTH_NONCE_LEN + 1];
	int i;

	if (x == NULL || auth_nonce(rnd) == -1 || auth_nonce(tok) == -1) {
		free(x);
		cJSON_Delete(open);
		cJSON_Delete(runb);
		return NULL;
	}
	for (i = 0; i < 8; i++)
		snprintf(x->id + 2 * i, 3, "%02x", rnd[i]);
	for (i = 0; i < AUTH_NONCE_LEN; i++)
		snprintf(hex + 2 * i, 3, "%02x", tok[i]);
	x->resp = resp, x->run = run, x->cb = cb, x->arg = arg;
	x->open = open, x->runb = runb;
	if (open) {
		cJSON_AddStringToObject(open, "probe", x->id);
		cJSON_AddStringToObject(open, "token", hex);
	}
	cJSON_AddStringToObject(runb, "probe", x->id);
	cJSON_AddStringToObject(runb, "token", hex);
	TAILQ_INSERT_TAIL(l, x, entry);
	return x;
}

void
exchange_start(struct pex *x)
{
	if (x->open)
		session_send(x->resp, MSG_PROBE_OPEN, x->open);
	else
		session_send(x->run, MSG_PROBE_RUN, x->runb);
}

int
exchange_message(struct exchange_list *l, struct sess *s, const struct frame_hdr *h,
    const cJSON *body)
{
	char err[CF_ERRLEN];
	const char *id, *msg;
	struct pex *x;
	uint32_t port;

	if ((h->type != MSG_PROBE_OPEN && h->type != MSG_PROBE_RUN) ||
	    !(h->flags & MSG_F_REPLY) ||
	    json_get_str(body, "probe", 0, 16, &id, err) == -1)
		return 0;
	TAILQ_FOREACH(x, l, entry)
		if (strcmp(x->id, id) == 0)
			break;
	if (x == NULL || x->done)
		return x != NULL;
	/* A refusal carries only "error"; a runner that measured something
	 * and then failed sends its partial result, left to the caller. */
	if (json_opt_str(body, "error", 0, 512, NULL, &msg, err) == 0 && msg &&
	    cJSON_GetObjectItem(body, "route") == NULL &&
	    cJSON_GetObjectItem(body, "route_error") == NULL) {
		char d[300];

		snprintf(d, sizeof(d), "%s refused: %s", (h->type ==
		    MSG_PROBE_OPEN ? x->resp : x->run)->host->name, msg);
		exchange_finish(x, "%s", d);
		return 1;
	}
	if (h->type == MSG_PROBE_OPEN && s == x->resp) {
		x->open_reply = cJSON_Duplicate(body, 1);
		if (json_opt_u32(body, "port", 0, 65535, 0, &port, err) == -1) {
			exchange_finish(x, "responder reply: %s", err);
			return 1;
		}
		if (port)
			cJSON_AddNumberToObject(x->runb, "port", port);
		session_send(x->run, MSG_PROBE_RUN, x->runb);
		return 1;
	}
	if (h->type == MSG_PROBE_RUN && s == x->run) {
		x->result = cJSON_Duplicate(body, 1);
		exchange_finish(x, NULL, NULL);
		return 1;
	}
	return 1;
}

void
exchange_sess_closed(struct exchange_list *l, struct sess *s,
    enum conn_reason r, const char *detail)
{
	struct pex *x, *tmp;
	char d[300];

	TAILQ_FOREACH_SAFE(x, l, entry, tmp) {
		if (!x->done && (x->resp == s || x->run == s)) {
			session_blame(d, sizeof(d), s->host->name, NULL, r,
			    detail);
			exchange_finish(x, "%s", d);
		}
	}
}

void
exchange_free(struct exchange_list *l, struct pex *x)
{
	TAILQ_REMOVE(l, x, entry);
	cJSON_Delete(x->open);
	cJSON_Delete(x->runb);
	cJSON_Delete(x->open_reply);
	cJSON_Delete(x->result);
	free(x);
}
