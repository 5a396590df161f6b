/* engine_trace: the paths of a test's streams, traced while they run (see
 * engine.h and probes/trace.h). */
#include "engine/engine.h"
#include "log.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

/* When to trace: halfway, once the flows have settled on their paths, but
 * never later than TRACE_LATEST seconds into a long test. */
#define TRACE_LATEST 5.0

static void *
trace_thread(void *arg)
{
	struct test *t = arg;
	double at = t->t0 + (t->spec.duration / 2 < TRACE_LATEST ?
	    t->spec.duration / 2 : TRACE_LATEST);
	char err[CF_ERRLEN];

	while (!atomic_load(&t->stop) && stream_now() < at) {
		struct timespec ts = { 0, 20 * 1000 * 1000 };

		nanosleep(&ts, NULL);
	}
	if (!atomic_load(&t->stop) && trace_flows(t->tr, t->ntr, err) == -1)
		log_warnx("test %s: no path traced: %s", t->spec.id, err);
	stream_finished(t);
	return NULL;
}

/* flow_of fills f with stream s's 5-tuple, as its socket was named at
 * set-up; -1 when the names do not parse. */
static int
flow_of(const struct test *t, const struct stream *s, struct trace_flow *f)
{
	memset(f, 0, sizeof(*f));
	if (netaddr_parse_endpoint(s->local, &f->src, &f->sport) == -1 ||
	    netaddr_parse_endpoint(s->remote, &f->dst, &f->dport) == -1 ||
	    f->src.family != f->dst.family || f->sport == 0 || f->dport == 0)
		return -1;
	memcpy(f->dev, t->spec.bind_dev, sizeof(f->dev));
	return 0;
}

int
engine_trace_start(struct test *t)
{
	uint32_t i;

	if (!t->spec.trace || t->spec.proto != TP_TCP)
		return 0;
	t->tr = calloc(TRACE_MAX_FLOWS, sizeof(*t->tr));
	if (t->tr == NULL)
		return -1;
	for (i = 0; i < t->n && t->ntr < TRACE_MAX_FLOWS; i++) {
		struct stream *s = &t->st[i];

		if (!s->sending || s->fd == -1 ||
		    flow_of(t, s, &t->tr[t->ntr]) == -1)
			continue;
		s->path = &t->tr[t->ntr++];
	}
	if (t->ntr == 0)
		return 0;
	if (pthread_create(&t->trth, NULL, trace_thread, t) != 0)
		return -1;
	t->trth_started = true;
	t->threads++;
	return 0;
}

void
engine_trace_free(struct test *t)
{
	uint32_t i;

	if (t->trth_started)
		pthread_join(t->trth, NULL);
	t->trth_started = false;
	for (i = 0; i < t->n; i++)
		t->st[i].path = NULL;
	free(t->tr);
	t->tr = NULL;
	t->ntr = 0;
}
