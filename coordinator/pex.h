/*
 * pex: one probe exchange between two agents, on the caller's loop: a
 * responder opened on one agent (PROBE_OPEN), a runner started on the
 * other (PROBE_RUN, with the responder's port filled in), the result, and
 * PROBE_CLOSE. Many can run at once over the same sessions; the session
 * owner hands every message to pex_message().
 */
#ifndef CF_PEX_H
#define CF_PEX_H

#include <stdbool.h>

#include "queue_compat.h"
#include "sess.h"

struct pex;
typedef void (*pex_done_fn)(struct pex *, void *arg);

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
	pex_done_fn cb;
	void *arg;
};

TAILQ_HEAD(pex_list, pex);

/* pex_new makes an exchange; it takes ownership of open and runb (the
 * "probe" id and "token" are added here). */
struct pex *pex_new(struct pex_list *l, struct sess *resp, cJSON *open,
    struct sess *run, cJSON *runb, pex_done_fn cb, void *arg);
/* pex_start sends the first request; both sessions must be up. */
void pex_start(struct pex *x);
/* pex_message: 1 if the message belonged to an exchange of l. */
int pex_message(struct pex_list *l, struct sess *s, const struct frame_hdr *h,
    const cJSON *body);
/* pex_sess_closed fails every unfinished exchange using s. */
void pex_sess_closed(struct pex_list *l, struct sess *s, const char *detail);
void pex_free(struct pex_list *l, struct pex *x);

#endif
