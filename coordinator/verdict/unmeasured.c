/* unmeasured: why a test was not measured, and the tool's own causes as
 * one warning each where they are (an agent's limit, another coordinator
 * that holds the agents, an agent that does not answer, an interrupted
 * run), never as a finding about the network. See verdict.h. */
#include "verdict/verdict_int.h"
#include "text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const lost_cause_names[LOST_NCAUSES] = {
	[LOST_NETWORK] = "network", [LOST_LIMIT] = "limit",
	[LOST_BUSY] = "busy", [LOST_AGENT] = "agent_down",
	[LOST_INTERRUPTED] = "interrupted", [LOST_TIMEOUT] = "timeout",
};

/* copy_until: s up to the first of the stop strings (or its end). */
static void
copy_until(char *dst, size_t sz, const char *s, const char *stop1,
    const char *stop2)
{
	const char *e1 = stop1 ? strstr(s, stop1) : NULL;
	const char *e2 = stop2 ? strstr(s, stop2) : NULL;
	const char *e = e1 && (!e2 || e1 < e2) ? e1 : e2;
	size_t n = e ? (size_t)(e - s) : strlen(s);

	if (sz == 0)
		return;
	if (n >= sz)
		n = sz - 1;
	memcpy(dst, s, n);
	dst[n] = '\0';
}

/* agent_failed: the reason has the form core/session.c's session_blame
 * gives a failed session with an agent ("agent on H (role) unreachable:
 * ...") or says the agent left mid-test. */
static bool
agent_failed(const char *why)
{
	static const char *const what[] = {
		" unreachable: ", " refused our key: ",
		" speaks another protocol version: ", " timed out: ",
		" broke the protocol: ", " closed the connection: ",
		" (it went away mid-test)", "(before the run)",
	};
	size_t k;

	for (k = 0; k < sizeof(what) / sizeof(what[0]); k++)
		if (strstr(why, what[k]) != NULL)
			return true;
	return false;
}

/* The reasons are the coordinator's own words: session_blame's for a
 * session with an agent (core/session.c), the preflight's "agent on H:
 * ... (before the run)" (matrix/matrix_preflight.c), a refusal wrapped as
 * "agent on H (role) refused: " + the agent's own words ("limit max_rate
 * = ...", "agent H is running test T for C (started ...)":
 * agent/engine/engine_limits.c), "interrupted (signal N)", and the
 * matrix's "no result (the test was killed)". A reason none of these
 * name is the network's. */
/* cause_of: lost_cause_of with its own buffers, always there. */
static enum lost_cause
cause_of(const char *why, char *agent, size_t asz, char *holder, size_t hsz)
{
	const char *r;

	agent[0] = holder[0] = '\0';
	if (why == NULL)
		return LOST_NETWORK;
	if (strncmp(why, "agent on ", 9) == 0)
		copy_until(agent, asz, why + 9, " ", ":");
	if (strncmp(why, "interrupted", 11) == 0 ||
	    strstr(why, ": interrupted (signal") != NULL)
		return LOST_INTERRUPTED;
	if (strstr(why, "the test was killed") != NULL)
		return LOST_TIMEOUT;
	if ((r = strstr(why, " refused: ")) != NULL) {
		r += 10;
		if (strncmp(r, "limit ", 6) == 0)
			return LOST_LIMIT;
		if (strncmp(r, "agent ", 6) == 0 && strstr(r, " is running ")) {
			const char *f = strstr(r, " for ");

			if (f)
				copy_until(holder, hsz, f + 5, " (started",
				    NULL);
			return LOST_BUSY;
		}
	}
	if (agent[0] && strstr(why, " is busy: ") != NULL)
		return LOST_BUSY;
	if (agent[0] && agent_failed(why))
		return LOST_AGENT;
	return LOST_NETWORK;
}

enum lost_cause
lost_cause_of(const char *why, char *agent, size_t asz, char *holder,
    size_t hsz)
{
	char a[64], h[128];
	enum lost_cause c = cause_of(why, a, sizeof(a), h, sizeof(h));

	if (agent && asz)
		snprintf(agent, asz, "%s", a);
	if (holder && hsz)
		snprintf(holder, hsz, "%s", h);
	return c;
}

static const char *
test_word(const char *t)
{
	static const struct { const char *t, *w; } words[] = {
		{ "bw", "bandwidth" }, { "lat", "latency" }, { "mtu", "MTU" },
		{ "ports", "ports" }, { "a2a", "all-to-all" },
		{ "fanout", "fanout" }, { "lat_load", "latency under load" },
	};
	size_t k;

	for (k = 0; t && k < sizeof(words) / sizeof(words[0]); k++)
		if (strcmp(words[k].t, t) == 0)
			return words[k].w;
	return t ? t : "test";
}

/* One group of unmeasured tests with one cause at one place. */
struct ugroup {
	enum lost_cause cause;
	char who[64];		/* the agent's host, or the holder */
	char what[160];		/* the limit, or the first reason */
	int n;
	int first;		/* index of its first test in um */
	unsigned char *hosts;	/* agents involved (busy) */
};

static const char *const hints[LOST_NCAUSES] = {
	[LOST_LIMIT] = "pace the matrix within the agents' limits (matrix "
	    "--rate; it takes the smaller max_rate of a pair by default) or "
	    "raise the limit in that agent's agent.conf, then matrix --resume",
	[LOST_BUSY] = "let the other coordinator's run end (the matrix waits "
	    "for busy agents unless --no-wait), then matrix --resume",
	[LOST_AGENT] = "start the agent on this host (systemctl status "
	    "cephfab-agent) or correct its address in the inventory, then "
	    "matrix --resume",
	[LOST_INTERRUPTED] = "complete the run with matrix --resume",
	[LOST_TIMEOUT] = "run the pair alone (cephfab pair, latency) to see "
	    "where it stalls, then matrix --resume",
};

/* group_key: test k's cause, its place (the agent's host, or the holder
 * of a busy agent), what (a limit's name) and the refusing agent's index
 * (-1 when the reason names none). */
static void
group_key(const struct fctx *c, int k, enum lost_cause *cause, char *who,
    size_t wsz, char *what, size_t tsz, int *agent_idx)
{
	const struct mview *v = c->v;
	const struct munmeasured *u = &v->um[k];
	char agent[64], holder[128];
	const char *r;
	int h;

	*cause = lost_cause_of(u->why, agent, sizeof(agent), holder,
	    sizeof(holder));
	snprintf(who, wsz, "%s", *cause == LOST_BUSY ? holder : agent);
	what[0] = '\0';
	if (*cause == LOST_LIMIT && (r = strstr(u->why, "refused: limit ")))
		/* The limit's name is the group: "max_rate". */
		copy_until(what, tsz, r + 15, " ", ":");
	*agent_idx = -1;
	for (h = 0; agent[0] && h < c->n; h++)
		if (strcmp(v->names[h], agent) == 0)
			*agent_idx = h;
}

static void
group_finding(struct fctx *c, const struct ugroup *g)
{
	const struct mview *v = c->v;
	const struct munmeasured *u = &v->um[g->first];
	const char *reason = u->why ? u->why : "not measured";
	cJSON *f = NULL, *l;
	char hosts[256];
	size_t off = 0;
	int h, a = -1;

	for (h = 0; h < c->n; h++)
		if (strcmp(v->names[h], g->who) == 0)
			a = h;
	switch (g->cause) {
	case LOST_LIMIT:
		f = findings_add(c->out, "not_measured", "warn", v, a, -1,
		    hints[g->cause], "%d test%s on the %s network not measured: "
		    "the agent on %s refused %s by its own limit (%s)", g->n,
		    g->n == 1 ? "" : "s", v->net, g->who, g->n == 1 ? "it" :
		    "them", strstr(reason, "limit ") ? strstr(reason,
		    "limit ") : reason);
		break;
	case LOST_BUSY:
		hosts[0] = '\0';
		for (h = 0; h < c->n; h++)
			if (g->hosts && g->hosts[h])
				off = text_appendf(hosts, sizeof(hosts), off,
				    "%s%s", off ? ", " : "", v->names[h]);
		f = findings_add(c->out, "not_measured", "warn", v, -1, -1,
		    hints[g->cause], "%d test%s on the %s network not measured: "
		    "another coordinator (%s) was running tests on the agents "
		    "of %s", g->n, g->n == 1 ? "" : "s", v->net,
		    g->who[0] ? g->who : "unnamed", hosts);
		for (h = 0; h < c->n; h++)
			if (g->hosts && g->hosts[h])
				finding_host(f, v->names[h]);
		break;
	case LOST_AGENT:
		f = findings_add(c->out, "not_measured", "warn", v, a, -1,
		    hints[g->cause], "%d test%s on the %s network not measured: "
		    "the agent on %s does not answer (%s)", g->n, g->n == 1 ? "" :
		    "s", v->net, g->who, reason);
		break;
	case LOST_INTERRUPTED:
		f = findings_add(c->out, "not_measured", "warn", v, -1, -1,
		    hints[g->cause], "%d test%s on the %s network not measured: "
		    "the run was interrupted", g->n, g->n == 1 ? "" : "s",
		    v->net);
		break;
	case LOST_TIMEOUT:
		f = findings_add(c->out, "not_measured", "warn", v, -1, -1,
		    hints[g->cause], "%d test%s on the %s network not measured: "
		    "stopped at the run's deadline (the first: %s %s -> %s)",
		    g->n, g->n == 1 ? "" : "s", v->net, test_word(u->test),
		    v->names[u->src], v->names[u->dst]);
		break;
	default:
		return;
	}
	/* Where: the agent, the coordinator that held the agents, or the
	 * run itself, never the network. */
	finding_location(f, g->cause == LOST_LIMIT || g->cause == LOST_AGENT ?
	    "agent" : g->cause == LOST_BUSY ? "coordinator" : "run");
	l = cJSON_GetObjectItem(f, "location");
	if (g->cause == LOST_LIMIT || g->cause == LOST_AGENT)
		cJSON_AddStringToObject(l, "host", g->who);
	if (g->cause == LOST_BUSY)
		cJSON_AddStringToObject(l, "coordinator", g->who);
	cJSON_AddStringToObject(cJSON_GetObjectItem(f, "evidence"), "cause",
	    lost_cause_names[g->cause]);
	if (g->cause == LOST_LIMIT && g->what[0])
		cJSON_AddStringToObject(cJSON_GetObjectItem(f, "evidence"),
		    "limit", g->what);
	finding_num(f, "tests", g->n);
}

/* check_unmeasured: the tests the tool did not measure, grouped by cause
 * and place, one warning a group. First of the checks: the cells are
 * not lost (the view's lost says nothing of them), so no other check
 * blames the network for them. */
void
check_unmeasured(struct fctx *c)
{
	const struct mview *v = c->v;
	struct ugroup *g;
	int k, i, ng = 0;

	if (v->num <= 0 || v->um == NULL)
		return;
	g = calloc((size_t)v->num, sizeof(*g));
	if (g == NULL)
		return;
	for (k = 0; k < v->num; k++) {
		enum lost_cause cause;
		char who[64], what[160];
		int ai;

		group_key(c, k, &cause, who, sizeof(who), what, sizeof(what),
		    &ai);
		if (cause == LOST_NETWORK)
			continue;
		for (i = 0; i < ng; i++)
			if (g[i].cause == cause && strcmp(g[i].who, who) == 0 &&
			    strcmp(g[i].what, what) == 0)
				break;
		if (i == ng) {
			g[ng] = (struct ugroup){ .cause = cause, .first = k };
			snprintf(g[ng].who, sizeof(g[ng].who), "%s", who);
			snprintf(g[ng].what, sizeof(g[ng].what), "%s", what);
			if (cause == LOST_BUSY)
				g[ng].hosts = calloc((size_t)c->n, 1);
			ng++;
		}
		g[i].n++;
		if (g[i].hosts && ai >= 0)
			g[i].hosts[ai] = 1;
	}
	for (i = 0; i < ng; i++) {
		group_finding(c, &g[i]);
		free(g[i].hosts);
	}
	free(g);
}
