/*
 * pex: one probe exchange between two agents, on the caller's loop: a
 * responder opened on one agent (PROBE_OPEN), a runner started on the
 * other (PROBE_RUN, with the responder's port filled in), the result, and
 * PROBE_CLOSE. Many can run at once over the same sessions; the session
 * owner hands every message to exchange_message().
 */
#ifndef CF_PEX_H
#define CF_PEX_H

#include <stdbool.h>

#include "queue_compat.h"
#include "core/session.h"

struct pex;
typedef void (*exchange_done_fn)(struct pex *, void *arg);

struct pex {
	TAILQ_ENTRY(pex) entry;
	char id[17];
	struct sess *resp, *run;
	cJSON *open;		/* responder request, NULL for none */
	cJSON *runb;		/* runner request */
	cJSON *open_reply;	/* owned */
	cJSON *result;		/* owned: the runner's answer */
	char error[256];
	bool done;
	exchange_done_fn cb;
	void *arg;
};

TAILQ_HEAD(exchange_list, pex);

/* exchange_new makes an exchange; it takes ownership of open and runb (the
 * "probe" id and "token" are added here). */
struct pex *exchange_new(struct exchange_list *l, struct sess *resp, cJSON *open,
    struct sess *run, cJSON *runb, exchange_done_fn cb, void *arg);
/* exchange_start sends the first request; both sessions must be up. */
void exchange_start(struct pex *x);
/* exchange_message: 1 if the message belonged to an exchange of l. */
int exchange_message(struct exchange_list *l, struct sess *s, const struct frame_hdr *h,
    const cJSON *body);
/* exchange_sess_closed fails every unfinished exchange using s. */
void exchange_sess_closed(struct exchange_list *l, struct sess *s, const char *detail);
void exchange_free(struct exchange_list *l, struct pex *x);

#endif
