/*
 * engine_limits: what an agent refuses whatever a coordinator asks: more streams,
 * a longer test or a higher rate than agent.conf allows, and targets
 * outside allow_targets. Each refusal names the limit.
 */
#include "engine/engine.h"
#include "probes/probe.h"

#include <ifaddrs.h>
#include <stdio.h>
#include <string.h>

#include <sys/socket.h>

/* engine_target_allowed_cfg: may this agent send test traffic to addr? */
int
engine_target_allowed_cfg(const struct agent_config *cfg,
    const struct netaddr *addr, char *why)
{
	struct ifaddrs *ifa, *i;
	int k, ok = 0;

	if (cfg->nallow > 0) {
		for (k = 0; k < cfg->nallow; k++)
			if (netcidr_contains(&cfg->allow[k], addr))
				return 1;
		snprintf(why, CF_ERRLEN, "allow_targets");
		return 0;
	}
	if (cfg->has_pubnet || cfg->has_clusnet) {
		if ((cfg->has_pubnet && netcidr_contains(&cfg->pubnet, addr)) ||
		    (cfg->has_clusnet && netcidr_contains(&cfg->clusnet, addr)))
			return 1;
		snprintf(why, CF_ERRLEN, "allow_targets (default: the "
		    "configured public_network and cluster_network)");
		return 0;
	}
	/* Nothing configured: the subnets this host is on. */
	if (getifaddrs(&ifa) == -1) {
		snprintf(why, CF_ERRLEN, "allow_targets (interfaces "
		    "unreadable)");
		return 0;
	}
	for (i = ifa; i && !ok; i = i->ifa_next) {
		struct netcidr c;
		struct netaddr m;

		if (i->ifa_addr == NULL || i->ifa_netmask == NULL ||
		    netaddr_from_sockaddr(i->ifa_addr, &c.addr, NULL) == -1 ||
		    netaddr_from_sockaddr(i->ifa_netmask, &m, NULL) == -1)
			continue;
		c.prefix = netaddr_mask_bits(&m);
		ok = netcidr_contains(&c, addr);
	}
	freeifaddrs(ifa);
	if (!ok)
		snprintf(why, CF_ERRLEN, "allow_targets (default: this host's "
		    "own subnets)");
	return ok;
}

/* engine_check_limits: the agent's own limits, whatever was asked. */
int
engine_check_limits(const struct engine *e, const struct test_spec *sp,
    bool connector, char *msg)
{
	const struct agent_config *cfg = e->cfg;
	uint32_t total = tputreq_total(sp), senders = 0, i;
	char a[NETADDR_STRLEN], why[CF_ERRLEN];

	if (total > cfg->max_streams) {
		snprintf(msg, CF_ERRLEN, "limit max_streams = %u: %u streams "
		    "asked", cfg->max_streams, total);
		return -1;
	}
	if (sp->duration > cfg->max_duration) {
		snprintf(msg, CF_ERRLEN, "limit max_duration = %.0f s: %.1f s "
		    "asked", cfg->max_duration, sp->duration);
		return -1;
	}
	for (i = 0; i < total; i++)
		if (tputreq_connector_sends(sp, i) == connector)
			senders++;
	if (cfg->max_rate && senders > 0 &&
	    (sp->rate == 0 || sp->rate * senders > cfg->max_rate)) {
		snprintf(msg, CF_ERRLEN, "limit max_rate = %.0f Mbit/s: %s "
		    "asked", (double)cfg->max_rate / 1e6, sp->rate == 0 ?
		    "an unpaced test" : "more");
		return -1;
	}
	if (connector && !engine_target_allowed_cfg(cfg, &sp->dst, why)) {
		snprintf(msg, CF_ERRLEN, "limit %s: target %s not allowed", why,
		    netaddr_str(&sp->dst, a, sizeof(a)));
		return -1;
	}
	return 0;
}


bool
engine_holder(const struct engine *e, char *who, size_t sz, double *left)
{
	const struct test *o = TAILQ_FIRST(&e->tests), *t;
	double now;

	if (o == NULL)
		return false;
	TAILQ_FOREACH(t, &e->tests, entry)
		if (!t->spec.shared) {
			o = t;
			break;
		}
	now = stream_now();
	*left = o->started ? o->spec.duration - (now - o->t0) :
	    o->spec.duration;
	if (*left < 0)
		*left = 0;
	snprintf(who, sz, "%s", o->spec.coordinator[0] ? o->spec.coordinator :
	    o->owner ? o->owner->peer : "a coordinator that left");
	return true;
}

int
engine_check_room(const struct engine *e, const struct test_spec *sp,
    char *msg)
{
	const struct test *o = TAILQ_FIRST(&e->tests), *t;
	double now, age, left;

	if (o == NULL)
		return 0;
	/* Shared tests make room for each other; anything else waits. */
	TAILQ_FOREACH(t, &e->tests, entry)
		if (!t->spec.shared) {
			o = t;
			break;
		}
	if (sp->shared && o->spec.shared) {
		if (e->ntests >= e->cfg->max_tests) {
			snprintf(msg, CF_ERRLEN, "limit max_tests = %u: agent "
			    "%s runs %u tests at once", e->cfg->max_tests,
			    e->hostname, e->ntests);
			return -1;
		}
		if (e->nstreams + tputreq_total(sp) > e->cfg->max_streams) {
			snprintf(msg, CF_ERRLEN, "limit max_streams = %u: agent "
			    "%s runs %u streams, %u more asked",
			    e->cfg->max_streams, e->hostname, e->nstreams,
			    tputreq_total(sp));
			return -1;
		}
		return 0;
	}
	now = stream_now();
	age = now - o->t_created;
	left = o->started ? o->spec.duration - (now - o->t0) :
	    o->spec.duration;
	snprintf(msg, CF_ERRLEN, "agent %s is running %stest %s for %s "
	    "(started %.0f s ago, about %.0f s left)", e->hostname,
	    e->ntests > 1 ? "shared tests, e.g. " : "", o->spec.id, o->spec.coordinator[0] ? o->spec.coordinator :
	    o->owner ? o->owner->peer : "a coordinator that left", age,
	    left > 0 ? left : 0);
	return -1;
}
