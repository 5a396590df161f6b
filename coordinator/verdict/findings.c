/*
 * findings: classify one network's measured matrix, see verdict.h. The
 * checks run in a fixed order, each the finding kinds it names: the
 * network-wide ones first (they mark the cells they explain as done, so
 * that a pair finding is left only for what nothing wider explains),
 * then the per-pair and per-direction ones.
 */
#include "verdict/verdict.h"
#include "verdict/verdict_int.h"
#include "text.h"
#include "json.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

cJSON *
findings_add(cJSON *out, const char *kind, const char *sev, const struct mview *v,
    int a, int b, const char *hint, const char *fmt, ...)
{
	va_list ap;
	cJSON *f;

	va_start(ap, fmt);
	f = finding_vnew(out, kind, sev, v->net, hint, fmt, ap);
	va_end(ap);
	if (a >= 0 && b >= 0 && strcmp(v->names[b], v->names[a]) < 0) {
		int t = a;

		a = b;
		b = t;
	}
	if (a >= 0)
		finding_host(f, v->names[a]);
	if (b >= 0)
		finding_host(f, v->names[b]);
	finding_location(f, a >= 0 && b >= 0 ? "pair" : a >= 0 ? "host" :
	    "fabric");
	return f;
}

void
findings_evidence_pair(cJSON *f, const struct mview *v, int i, int j)
{
	char p[2 * 64 + 4];

	snprintf(p, sizeof(p), "%s->%s", v->names[i], v->names[j]);
	finding_pair(f, p);
}

/* pair_p99: the worse direction's RTT p99 of a pair, 0 if unmeasured. */
double
findings_pair_p99(const struct mview *v, int i, int j)
{
	return fmax(isfinite(AT(v->p99, i, j)) ? AT(v->p99, i, j) : 0,
	    isfinite(AT(v->p99, j, i)) ? AT(v->p99, j, i) : 0);
}


typedef void net_check(struct fctx *c);
typedef void pair_check(struct fctx *c, int i, int j);

/* dead: nothing of any size crossed i -> j, the MTU search's smallest
 * packet included: the path passes nothing. */
static bool
dead(const struct fctx *c, int i, int j)
{
	const struct mview *v = c->v;

	return v->mtu_path && isfinite(AT(v->mtu_path, i, j)) &&
	    AT(v->mtu_path, i, j) <= 0;
}

/* mtu_explains: an MTU black hole stalls every large-packet test on its
 * path: it is the finding for that pair, not 'unreachable' or 'slow'. */
static void
mtu_explains(struct fctx *c)
{
	const struct mview *v = c->v;
	int i, j;

	for (i = 0; i < c->n; i++)
		for (j = 0; j < c->n; j++)
			if (i != j && v->mtu_path &&
			    isfinite(AT(v->mtu_path, i, j)) && !dead(c, i, j) &&
			    (AT(v->mtu_path, i, j) < AT(v->mtu_conf, i, j) ||
			    AT(v->mtu_path, i, j) < c->p->required_mtu))
				AT(c->done, i, j) = AT(c->done, j, i) = 1;
}

/* unreachable: lost cells first, nothing else can be said about them. */
static void
check_unreachable(struct fctx *c)
{
	const struct mview *v = c->v;
	int i, j;
	cJSON *f;

	for (i = 0; i < c->n; i++) {
		for (j = i + 1; j < c->n; j++) {
			bool lost = v->lost && (AT(v->lost, i, j) ||
			    AT(v->lost, j, i));

			if ((!lost && !dead(c, i, j) && !dead(c, j, i)) ||
			    AT(c->done, i, j))
				continue;
			if (lost)
				f = findings_add(c->out, "unreachable", "error",
				    v, i, j, "check the agents, the links and "
				    "the firewall on both hosts", "%s and %s "
				    "could not be measured on the %s network: %s",
				    v->names[i], v->names[j], v->net,
				    v->lost_why && AT(v->lost_why, i, j) ?
				    AT(v->lost_why, i, j) : v->lost_why &&
				    AT(v->lost_why, j, i) ? AT(v->lost_why, j,
				    i) : "no answer");
			else
				f = findings_add(c->out, "unreachable", "error",
				    v, i, j, "check the routes and the firewall "
				    "on both hosts and the path between them",
				    "%s and %s do not reach each other on the %s "
				    "network: no probe of any size crossed %s",
				    v->names[i], v->names[j], v->net,
				    dead(c, i, j) && dead(c, j, i) ? "either way" :
				    dead(c, i, j) ? "from the first to the second"
				    : "from the second to the first");
			findings_evidence_pair(f, v, i, j);
			findings_evidence_pair(f, v, j, i);
			c->errors++;
			/* A path that passes nothing has no MTU or port of
			 * its own to blame: one finding. */
			AT(c->done, i, j) = AT(c->done, j, i) = 1;
			AT(c->expl, i, j) = AT(c->expl, j, i) = 1;
		}
	}
}

/* slow_cells marks the cells below the profile's floor. */
static void
slow_cells(struct fctx *c)
{
	const struct mview *v = c->v;
	int i, j;

	for (i = 0; i < c->n; i++)
		for (j = 0; j < c->n; j++) {
			double g = v->gbps ? AT(v->gbps, i, j) : NAN;
			double pace = v->pace_gbps ? AT(v->pace_gbps, i, j) :
			    NAN;

			/* A paced cell within 10 % of its pace ran as fast
			 * as it was allowed to: not slow, whatever the
			 * floor. */
			if (i != j && isfinite(g) && g < c->thr &&
			    !(isfinite(pace) && g >= 0.9 * pace) &&
			    !AT(c->done, i, j))
				AT(c->slow, i, j) = 1;
		}
}

/* is_slow_host: most of host i's cells, both ways, are slow while the
 * rest of the fabric is not. */
static bool
is_slow_host(const struct fctx *c, int i)
{
	const struct mview *v = c->v;
	int mine = 0, mine_slow = 0, other = 0, other_slow = 0, j, k;

	for (j = 0; j < c->n; j++) {
		if (i == j)
			continue;
		for (k = 0; k < 2; k++) {
			int a = k ? j : i, b = k ? i : j;

			if (!isfinite(AT(v->gbps, a, b)) || AT(c->done, a, b))
				continue;
			mine++;
			mine_slow += AT(c->slow, a, b);
		}
	}
	for (j = 0; j < c->n; j++)
		for (k = 0; k < c->n; k++)
			if (j != k && j != i && k != i &&
			    isfinite(AT(v->gbps, j, k))) {
				other++;
				other_slow += AT(c->slow, j, k);
			}
	return mine >= 4 && mine_slow * 4 >= mine * 3 &&
	    (other == 0 || other_slow * 2 < other);
}

static void
check_slow_host(struct fctx *c)
{
	const struct mview *v = c->v;
	cJSON *f;
	int i, j, m;

	for (i = 0; i < c->n && v->gbps; i++)
		c->slow_host[i] = is_slow_host(c, i);
	for (i = 0; i < c->n; i++) {
		if (!c->slow_host[i])
			continue;
		for (j = 0, m = 0; j < c->n; j++) {
			if (j == i)
				continue;
			if (isfinite(AT(v->gbps, i, j)))
				c->tmp[m++] = AT(v->gbps, i, j);
			if (isfinite(AT(v->gbps, j, i)))
				c->tmp[m++] = AT(v->gbps, j, i);
			AT(c->done, i, j) = AT(c->done, j, i) = 1;
		}
		f = findings_add(c->out, "slow_host", "error", v, i, -1, "check this "
		    "host's NIC, driver, cable and switch port",
		    "%s is slow with every peer on the %s network: median "
		    "%.2f Gbit/s against a floor of %.2f", v->names[i], v->net,
		    finding_median(c->tmp, m), c->thr);
		finding_num(f, "median_gbps", finding_median(c->tmp, m));
		finding_num(f, "floor_gbps", c->thr);
		c->errors++;
	}
}

static bool
between(const struct mview *v, int i, int j, int ra, int rb)
{
	return (v->rack[i] == ra && v->rack[j] == rb) ||
	    (v->rack[i] == rb && v->rack[j] == ra);
}

/* rack_pair: a rack uplink when pairs between racks ra and rb are slow
 * and pairs inside both are fine. */
static void
rack_pair(struct fctx *c, int ra, int rb)
{
	const struct mview *v = c->v;
	int cross = 0, cslow = 0, in = 0, islow = 0, m = 0;
	int ha = -1, hb = -1, i, j;
	cJSON *f;

	for (i = 0; i < c->n; i++) {
		for (j = 0; j < c->n; j++) {
			if (i == j || c->slow_host[i] || c->slow_host[j] ||
			    !isfinite(AT(v->gbps, i, j)))
				continue;
			if (between(v, i, j, ra, rb)) {
				cross++;
				cslow += AT(c->slow, i, j);
				c->tmp[m++] = AT(v->gbps, i, j);
				if (ha < 0 && v->rack[i] == ra)
					ha = i;
				if (hb < 0 && v->rack[j] == rb)
					hb = j;
			} else if (v->rack[i] == v->rack[j] &&
			    (v->rack[i] == ra || v->rack[i] == rb)) {
				in++;
				islow += AT(c->slow, i, j);
			}
		}
	}
	if (cross < 4 || cslow * 4 < cross * 3 || in == 0 || islow * 4 >= in)
		return;
	for (i = 0; i < c->n; i++)
		for (j = 0; j < c->n; j++)
			if (between(v, i, j, ra, rb))
				AT(c->done, i, j) = 1;
	f = findings_add(c->out, "rack_uplink", "error", v, ha, hb, "check the "
	    "uplinks and spine ports between these racks", "pairs between "
	    "the racks of %s and %s are slow on the %s network (median %.2f "
	    "Gbit/s, floor %.2f) while pairs inside each rack are not",
	    v->names[ha], v->names[hb], v->net, finding_median(c->tmp, m), c->thr);
	finding_location(f, "rack");
	finding_num(f, "median_gbps", finding_median(c->tmp, m));
	c->errors++;
}

static void
check_rack_uplink(struct fctx *c)
{
	const struct mview *v = c->v;
	int ra, rb, i, maxr = 0;

	if (!v->rack || !v->gbps)
		return;
	for (i = 0; i < c->n; i++)
		if (v->rack[i] > maxr)
			maxr = v->rack[i];
	for (ra = 0; ra <= maxr; ra++)
		for (rb = ra + 1; rb <= maxr; rb++)
			rack_pair(c, ra, rb);
}

/* The pairs over a latency limit: how many, of how many measured, and
 * the worst. */
struct pair_scan {
	int nhigh, npairs, wi, wj;
	double worst;
};

static double
loaded_p99(const struct mview *v, int i, int j)
{
	return fmax(isfinite(AT(v->p99_loaded, i, j)) ?
	    AT(v->p99_loaded, i, j) : 0, isfinite(AT(v->p99_loaded, j, i)) ?
	    AT(v->p99_loaded, j, i) : 0);
}

/* over_limit: idle RTT against the profile's limit or the fabric's
 * median (profile_rtt_high); under load against the profile's limit only: TCP
 * fills queues, so some growth over the idle RTT is normal. */
static bool
over_limit(const struct fctx *c, double q, bool loaded)
{
	return loaded ? q > c->p->max_p99_us : profile_rtt_high(c->p, q, c->med,
	    c->nmed);
}

static void
scan_pairs(const struct fctx *c, bool loaded, struct pair_scan *s)
{
	int i, j;
	double q;

	memset(s, 0, sizeof(*s));
	for (i = 0; i < c->n; i++)
		for (j = i + 1; j < c->n; j++) {
			if (c->busy[i] || c->busy[j])
				continue;
			q = loaded ? loaded_p99(c->v, i, j) : findings_pair_p99(c->v, i,
			    j);
			s->npairs += q > 0;
			if (!over_limit(c, q, loaded))
				continue;
			s->nhigh++;
			if (q > s->worst) {
				s->worst = q;
				s->wi = i;
				s->wj = j;
			}
		}
}

/* busy_late, busy_drops: host h's own probe thread ran later than lim
 * (the mesh's send schedule, or the wake-up after the kernel had a
 * reply), or its socket dropped replies it did not read in time. */
static bool
busy_late(const struct mview *v, int h, double lim)
{
	return v->host_late_us && isfinite(v->host_late_us[h]) &&
	    v->host_late_us[h] > lim;
}

static bool
busy_drops(const struct mview *v, int h)
{
	return v->host_drops && isfinite(v->host_drops[h]) &&
	    v->host_drops[h] > 0;
}

/* check_busy_hosts: a host whose own probe thread ran late by more than
 * the RTT limit, or whose socket dropped replies, is starved of CPU: the
 * RTTs (and losses) measured with it are its own, and a warning about the
 * host says so instead of a latency finding about its pairs. One finding
 * per host, or one for all when more than eight are. */
static void
check_busy_hosts(struct fctx *c)
{
	const struct mview *v = c->v;
	double lim = c->p->max_p99_us, worst = 0;
	int h, nb = 0, wh = -1;
	cJSON *f;

	for (h = 0; h < c->n; h++)
		if (busy_late(v, h, lim) || busy_drops(v, h)) {
			c->busy[h] = 1;
			nb++;
			if (wh < 0 || (busy_late(v, h, lim) &&
			    v->host_late_us[h] > worst)) {
				worst = busy_late(v, h, lim) ?
				    v->host_late_us[h] : worst;
				wh = h;
			}
		}
	if (nb > 8) {
		f = findings_add(c->out, "busy_host", "warn", v, -1, -1, "give "
		    "the agents CPU (or test fewer hosts per machine): these "
		    "RTTs are the hosts' own queueing", "%d of %d hosts' own "
		    "probe threads ran late or dropped replies on the %s "
		    "network (p99 over %.0f us, worst %s %.0f us): their CPUs "
		    "are starved, so the RTTs measured with them are the "
		    "hosts', not the network's", nb, c->n, v->net, lim,
		    v->names[wh], worst);
		finding_num(f, "hosts", nb);
		finding_num(f, "late_p99_us", worst);
		return;
	}
	for (h = 0; h < c->n; h++) {
		char what[160];
		size_t off = 0;

		if (!c->busy[h])
			continue;
		what[0] = '\0';
		if (busy_late(v, h, lim))
			off = text_appendf(what, sizeof(what), off, "ran %.0f "
			    "us late (p99, over %.0f)", v->host_late_us[h],
			    lim);
		if (busy_drops(v, h))
			text_appendf(what, sizeof(what), off, "%s%.0f replies "
			    "dropped in its own socket buffer", off ? ", " :
			    "let ", v->host_drops[h]);
		f = findings_add(c->out, "busy_host", "warn", v, h, -1, "look "
		    "at what else runs on this host (top, the run queue): its "
		    "RTTs are its own queueing", "%s's own probe thread %s on "
		    "the %s network: its CPU is starved, so the RTTs measured "
		    "with it are the host's, not the network's", v->names[h],
		    what, v->net);
		finding_num(f, "late_p99_us", v->host_late_us ?
		    v->host_late_us[h] : NAN);
		finding_num(f, "rx_drops", v->host_drops ? v->host_drops[h] :
		    NAN);
	}
}

/* check_fabric_latency: high latency on most pairs is the fabric's (or
 * the hosts' CPUs'), not each pair's: one finding then, not thousands. */
static void
check_fabric_latency(struct fctx *c)
{
	const struct mview *v = c->v;
	struct pair_scan s;
	cJSON *f;

	if (!v->p99)
		return;
	scan_pairs(c, false, &s);
	if (s.nhigh <= 16 || s.nhigh <= s.npairs / 4)
		return;
	c->rtt_wide = true;
	f = findings_add(c->out, "high_latency", "warn", v, -1, -1, "the whole fabric: "
	    "look for a shared congested link, policing, or hosts too busy to "
	    "answer in time", "RTT p99 over the limit on %d of %d pairs on the "
	    "%s network (limit %.0f us, fabric median %.0f us, worst %s <-> %s "
	    "%.0f us)", s.nhigh, s.npairs, v->net, c->p->max_p99_us, c->med,
	    v->names[s.wi], v->names[s.wj], s.worst);
	finding_num(f, "pairs", s.nhigh);
	finding_num(f, "rtt_p99_us", s.worst);
	finding_num(f, "median_p99_us", c->med);
}

/* pair_rate: slow_pair below the floor, else asymmetric directions. */
static void
pair_rate(struct fctx *c, int i, int j)
{
	const struct mview *v = c->v;
	double ab = v->gbps ? AT(v->gbps, i, j) : NAN;
	double ba = v->gbps ? AT(v->gbps, j, i) : NAN;
	cJSON *f;

	if (AT(c->slow, i, j) || AT(c->slow, j, i)) {
		f = findings_add(c->out, "slow_pair", "error", v, i, j, "check the path "
		    "between these two hosts (ECMP member, bond member, switch "
		    "port)", "%s -> %s %.2f Gbit/s, %s -> %s %.2f Gbit/s on the "
		    "%s network, below the floor of %.2f", v->names[i],
		    v->names[j], ab, v->names[j], v->names[i], ba, v->net,
		    c->thr);
		finding_num(f, "gbps_ab", ab);
		finding_num(f, "gbps_ba", ba);
		c->errors++;
	} else if (isfinite(ab) && isfinite(ba) &&
	    fabs(ab - ba) > fmax(ab, ba) * c->p->asym_pct / 100) {
		f = findings_add(c->out, "asymmetric", "warn", v, i, j, "compare the two "
		    "directions' paths and port counters", "%s -> %s %.2f "
		    "Gbit/s but %s -> %s %.2f Gbit/s on the %s network",
		    v->names[i], v->names[j], ab, v->names[j], v->names[i], ba,
		    v->net);
		finding_num(f, "gbps_ab", ab);
		finding_num(f, "gbps_ba", ba);
	}
}

/* pair_loss: lossy_pair, the worse direction's loss retransmits. */
static void
pair_loss(struct fctx *c, int i, int j)
{
	const struct mview *v = c->v;
	double r;
	cJSON *f;

	if (!v->rpg)
		return;
	r = fmax(isfinite(AT(v->rpg, i, j)) ? AT(v->rpg, i, j) : 0,
	    isfinite(AT(v->rpg, j, i)) ? AT(v->rpg, j, i) : 0);
	if (r <= c->p->max_rpg)
		return;
	f = findings_add(c->out, "lossy_pair", "error", v, i, j, "look for drops and "
	    "CRC errors on the ports of this path", "%s <-> %s: %.0f "
	    "retransmits per GB on the %s network, spurious ones not counted "
	    "(limit %.0f)", v->names[i], v->names[j], r, v->net,
	    c->p->max_rpg);
	finding_num(f, "retransmits_per_gb", r);
	c->errors++;
}

/* pair_latency: high_latency on this pair, unless fabric-wide. */
static void
pair_latency(struct fctx *c, int i, int j)
{
	const struct mview *v = c->v;
	double q;
	cJSON *f;

	if (!v->p99 || c->rtt_wide || c->busy[i] || c->busy[j] ||
	    c->lat_host[i] || c->lat_host[j])
		return;
	q = findings_pair_p99(v, i, j);
	if (!profile_rtt_high(c->p, q, c->med, c->nmed))
		return;
	/* Against the fabric's median only, both directions must agree when
	 * each was measured: each direction's probes cross both legs of the
	 * path, so a queue on it lifts both, while a tail in one direction
	 * alone is that probe's run stalled. The matrix's latency cells fill
	 * both directions from one measurement: there a stall is caught by
	 * measuring the pair again alone (matrix_plan.c, retest_latency). */
	if (q <= c->p->max_p99_us && isfinite(AT(v->p99, i, j)) &&
	    isfinite(AT(v->p99, j, i)) && !profile_rtt_high(c->p,
	    fmin(AT(v->p99, i, j), AT(v->p99, j, i)), c->med, c->nmed))
		return;
	f = findings_add(c->out, "high_latency", "warn", v, i, j, "look for queueing "
	    "(a busy or oversubscribed port) on this path", "%s <-> %s: RTT "
	    "p99 %.0f us on the %s network (limit %.0f us, fabric median "
	    "%.0f us)", v->names[i], v->names[j], q, v->net,
	    c->p->max_p99_us, c->med);
	finding_num(f, "rtt_p99_us", q);
}

/* The pair checks, in the order their findings are listed for a pair. */
static pair_check *const pair_checks[] = {
	pair_rate, pair_loss, pair_latency,
};

static void
check_pairs(struct fctx *c)
{
	const struct mview *v = c->v;
	size_t k;
	int i, j;

	for (i = 0; i < c->n; i++)
		for (j = i + 1; j < c->n; j++) {
			if (AT(c->done, i, j))
				continue;
			for (k = 0; k < sizeof(pair_checks) /
			    sizeof(pair_checks[0]); k++)
				pair_checks[k](c, i, j);
		}
}

/* check_loaded_latency: under load, at most 16 pair findings, then one
 * that counts the rest. */
static void
check_loaded_latency(struct fctx *c)
{
	const struct mview *v = c->v;
	struct pair_scan s;
	int shown = 0, i, j;
	double q;
	cJSON *f;

	if (!v->p99_loaded)
		return;
	scan_pairs(c, true, &s);
	for (i = 0; i < c->n && shown < 16; i++)
		for (j = i + 1; j < c->n && shown < 16; j++) {
			q = loaded_p99(v, i, j);
			if (!over_limit(c, q, true) || c->busy[i] || c->busy[j])
				continue;
			shown++;
			f = findings_add(c->out, "high_latency", "warn", v, i, j,
			    "queueing under load: look for deep buffers or a "
			    "congested link on this path", "%s <-> %s: RTT p99 "
			    "%.0f us under load on the %s network (limit %.0f "
			    "us, idle %.0f us)", v->names[i], v->names[j], q,
			    v->net, c->p->max_p99_us, v->p99 ? findings_pair_p99(v, i,
			    j) : NAN);
			finding_num(f, "rtt_loaded_p99_us", q);
			if (v->p99)
				finding_num(f, "rtt_p99_us", findings_pair_p99(v, i, j));
		}
	if (s.nhigh <= 16)
		return;
	f = findings_add(c->out, "high_latency", "warn", v, -1, -1, "queueing under "
	    "load across the fabric: deep buffers or an oversubscribed spine",
	    "RTT p99 under load over the limit on %d of %d pairs on the %s "
	    "network (limit %.0f us, worst %s <-> %s %.0f us)", s.nhigh,
	    s.npairs, v->net, c->p->max_p99_us, v->names[s.wi], v->names[s.wj],
	    s.worst);
	finding_num(f, "pairs", s.nhigh);
	finding_num(f, "rtt_loaded_p99_us", s.worst);
}

/* check_spread: with enough streams for hashing to fill every path, a
 * path that carried nothing, or far less than its share, is the hash (or
 * a path) at fault. Few streams prove nothing: two streams on two paths
 * share one half the time. */
static void
check_spread(struct fctx *c)
{
	const struct mview *v = c->v;
	cJSON *f;
	int i, j;

	for (i = 0; v->spread_paths && i < c->n; i++) {
		for (j = 0; j < c->n; j++) {
			int pth = AT(v->spread_paths, i, j);
			int st = AT(v->streams, i, j);
			double mn = AT(v->spread_min, i, j);

			if (i == j || pth < 2 || st < 4 * pth)
				continue;
			if (AT(v->spread_unused, i, j) == 0 && !(mn < 1 -
			    c->p->imbalance_pct / 100))
				continue;
			f = findings_add(c->out, "hash_imbalance", "warn", v, i, j,
			    "check the hash policy (fib_multipath_hash_policy, "
			    "xmit_hash_policy layer3+4) and that every path "
			    "is up", "%s -> %s on the %s network: %d streams "
			    "over %d paths, %d unused, the least used carried "
			    "%.0f %% of its fair share", v->names[i],
			    v->names[j], v->net, st, pth,
			    AT(v->spread_unused, i, j), isfinite(mn) ? mn *
			    100 : 0);
			finding_num(f, "paths", pth);
			finding_num(f, "streams", st);
			finding_num(f, "least_share_of_fair", mn);
		}
	}
}

/* dir_mtu: mtu_blackhole, one direction. */
static void
dir_mtu(struct fctx *c, int i, int j)
{
	const struct mview *v = c->v;
	cJSON *f;

	if (!v->mtu_path || !isfinite(AT(v->mtu_path, i, j)) ||
	    !(AT(v->mtu_path, i, j) < AT(v->mtu_conf, i, j) ||
	    AT(v->mtu_path, i, j) < c->p->required_mtu))
		return;
	f = findings_add(c->out, "mtu_blackhole", "error", v, i, j, "check the MTU of "
	    "every switch port and interface on this path", "%s -> %s on the "
	    "%s network: %.0f-byte packets configured, only %.0f cross",
	    v->names[i], v->names[j], v->net, AT(v->mtu_conf, i, j),
	    AT(v->mtu_path, i, j));
	finding_num(f, "configured", AT(v->mtu_conf, i, j));
	finding_num(f, "path", AT(v->mtu_path, i, j));
	c->errors++;
}

/* dir_ports: port_blocked, one direction. */
static void
dir_ports(struct fctx *c, int i, int j)
{
	const struct mview *v = c->v;

	if (!v->ports_bad || AT(v->ports_bad, i, j) <= 0)
		return;
	findings_add(c->out, "port_blocked", "error", v, i, j, "check the firewall on "
	    "the destination host and on the path", "%s -> %s on the %s "
	    "network: %s", v->names[i], v->names[j], v->net, v->ports_what &&
	    AT(v->ports_what, i, j) ? AT(v->ports_what, i, j) :
	    "ports closed");
	c->errors++;
}

/* dir_egress: wrong_egress, one direction. */
static void
dir_egress(struct fctx *c, int i, int j)
{
	const struct mview *v = c->v;

	if (!v->wrong_egress || !AT(v->wrong_egress, i, j))
		return;
	findings_add(c->out, "wrong_egress", "error", v, i, j, "check the routes on "
	    "the source host", "%s -> %s on the %s network: %s", v->names[i],
	    v->names[j], v->net, v->egress_what && AT(v->egress_what, i, j) ?
	    AT(v->egress_what, i, j) : "wrong NIC");
	c->errors++;
}

/* The direction checks, in the order their findings are listed. */
static pair_check *const dir_checks[] = {
	dir_mtu, dir_ports, dir_egress,
};

static void
check_directions(struct fctx *c)
{
	const struct mview *v = c->v;
	size_t k;
	int i, j;

	for (i = 0; i < c->n; i++)
		for (j = 0; j < c->n; j++)
			for (k = 0; i != j && !AT(c->expl, i, j) &&
			    k < sizeof(dir_checks) / sizeof(dir_checks[0]); k++)
				dir_checks[k](c, i, j);
}

/* The network checks in order: what explains a cell marks it done before
 * the checks after it look. */
static net_check *const net_checks[] = {
	check_unmeasured, mtu_explains, rootcause_unreachable,
	rootcause_mtu_links,
	check_unreachable, slow_cells,
	rootcause_rate, rootcause_links, check_slow_host, check_rack_uplink,
	rootcause_lossy,
	check_busy_hosts, check_fabric_latency, rootcause_latency,
	check_pairs,
	check_loaded_latency, check_spread,
	rootcause_mtu, rootcause_ports, check_directions,
};

int
findings_compute(const struct mview *v, const struct profile *p, cJSON *out)
{
	struct fctx c;
	int n = v->n, k;
	size_t i;

	memset(&c, 0, sizeof(c));
	c.v = v;
	c.p = p;
	c.out = out;
	c.n = n;
	c.thr = p->line_gbps * p->min_pct / 100.0;
	c.med = NAN;
	c.slow = calloc((size_t)(n * n), sizeof(int));
	c.done = calloc((size_t)(n * n), sizeof(int));
	c.slow_host = calloc((size_t)n, sizeof(int));
	c.expl = calloc((size_t)(n * n), sizeof(int));
	c.tmp = malloc((size_t)(n * n + 1) * sizeof(double));
	c.busy = calloc((size_t)n + 1, 1);
	c.mtu_expl = calloc((size_t)(n * n), 1);
	c.lat_host = calloc((size_t)n + 1, 1);
	if (c.slow && c.done && c.slow_host && c.tmp && c.expl && c.busy &&
	    c.mtu_expl && c.lat_host && routers_build(&c.r, v) == 0) {
		for (k = 0; v->p99 && k < n * n; k++)
			if (isfinite(v->p99[k]))
				c.tmp[c.nmed++] = v->p99[k];
		c.med = finding_median(c.tmp, c.nmed);
		for (i = 0; i < sizeof(net_checks) / sizeof(net_checks[0]);
		    i++)
			net_checks[i](&c);
	}
	free(c.slow);
	free(c.done);
	free(c.slow_host);
	free(c.expl);
	free(c.tmp);
	free(c.busy);
	free(c.mtu_expl);
	free(c.lat_host);
	routers_free(&c.r);
	return c.errors;
}
