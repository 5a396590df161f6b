/*
 * fanout: one request to every agent of an inventory at once, and each
 * agent's reply (or why there is none): the shape of the commands that
 * set or read something on every agent and are done (monitor).
 */
#ifndef CF_CORE_FANOUT_H
#define CF_CORE_FANOUT_H

#include "auth.h"
#include "core/core.h"

struct fanout_reply {
	struct inv_host *host;
	cJSON *body;			/* the reply, NULL when none */
	char error[CF_ERRLEN];		/* why there is none, or the reply's */
};

/* fanout_run sends type with body(h, udata) (NULL: skip the host, and
 * out[i].error says so) to every host, connecting within timeout, and
 * waits at most timeout + wait seconds for the replies. *out holds one
 * entry per host in inventory order (caller frees with fanout_free).
 * Returns how many replied without an "error". */
int fanout_run(struct inventory *inv, const struct auth_key *key,
    double timeout, double wait, unsigned type,
    cJSON *(*body)(struct inv_host *h, void *udata), void *udata,
    struct fanout_reply **out);
void fanout_free(struct fanout_reply *r, int n);

#endif
