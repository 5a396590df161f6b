/*
 * rootcause: faults wider than a pair, each reported once where it is,
 * with the directions it explains as evidence, see verdict_int.h.
 *
 * A fault on a host's port (or its switch port) touches every pair with
 * that host and no pair without it: one finding at the host then, not one
 * per pair. The rule for each kind is the same: a host is the root cause
 * when at least three peers were measured with it (with two, a fault on
 * the one fabric link both paths share looks the same: the demo's lossy
 * spine link with h2's cells not measured did), at least three quarters
 * of what was measured with it is bad, and it explains more bad cells than
 * any other candidate; the cells it explains are taken and the next host
 * is looked for, so that several faulty hosts are each found. What no
 * host explains stays a pair finding (findings.c).
 */
#include "verdict/verdict_int.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A kind of cell the host search looks at: measured and bad, per
 * direction. 'taken' marks the cells an earlier host explained. */
typedef bool cell_test(const struct fctx *c, int i, int j);

struct host_tally {
	int bad, measured, peers;
};

static void
tally(const struct fctx *c, int h, cell_test *measured, cell_test *bad,
    const unsigned char *taken, struct host_tally *t)
{
	const struct mview *v = c->v;
	int j, k;

	memset(t, 0, sizeof(*t));
	for (j = 0; j < c->n; j++) {
		int seen = 0;

		if (j == h)
			continue;
		for (k = 0; k < 2; k++) {
			int a = k ? j : h, b = k ? h : j;

			if (!measured(c, a, b))
				continue;
			seen = 1;
			t->measured++;
			t->bad += bad(c, a, b) && !AT(taken, a, b);
		}
		t->peers += seen;
	}
}

/* next_host: the host that explains the most bad cells not yet taken,
 * -1 when none qualifies. */
static int
next_host(const struct fctx *c, cell_test *measured, cell_test *bad,
    const unsigned char *taken, const unsigned char *picked)
{
	struct host_tally t;
	int h, best = -1, most = 0;

	for (h = 0; h < c->n; h++) {
		if (picked[h])
			continue;
		tally(c, h, measured, bad, taken, &t);
		if (t.peers < 3 || t.bad * 4 < t.measured * 3 || t.bad <= most)
			continue;
		best = h;
		most = t.bad;
	}
	return best;
}

/* take: every bad direction with host h joins finding f's evidence and is
 * marked taken (and explained, for the per-direction checks). Returns how
 * many. */
static int
take(struct fctx *c, int h, cell_test *bad, unsigned char *taken, cJSON *f)
{
	const struct mview *v = c->v;
	int j, k, n = 0;

	for (j = 0; j < c->n; j++)
		for (k = 0; j != h && k < 2; k++) {
			int a = k ? j : h, b = k ? h : j;

			if (!bad(c, a, b) || AT(taken, a, b))
				continue;
			AT(taken, a, b) = 1;
			AT(c->expl, a, b) = 1;
			findings_evidence_pair(f, v, a, b);
			n++;
		}
	return n;
}

/* host_locate: finding f is at host h ("port", "filter", "host", "agent":
 * what of it is at fault). */
static void
host_locate(const struct fctx *c, cJSON *f, int h, const char *where)
{
	cJSON *l;

	finding_location(f, "host");
	l = cJSON_GetObjectItem(f, "location");
	cJSON_AddStringToObject(l, "host", c->v->names[h]);
	cJSON_AddStringToObject(l, "network", c->v->net);
	cJSON_AddStringToObject(l, "where", where);
}

/* host_finding: an error finding located at host h ("port", "filter",
 * "host": what of it is at fault), counted in the verdict. */
static cJSON *
host_finding(struct fctx *c, const char *kind, int h, const char *where,
    const char *hint, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));

static cJSON *
host_finding(struct fctx *c, const char *kind, int h, const char *where,
    const char *hint, const char *fmt, ...)
{
	const struct mview *v = c->v;
	char s[512];
	va_list ap;
	cJSON *f;

	va_start(ap, fmt);
	vsnprintf(s, sizeof(s), fmt, ap);
	va_end(ap);
	f = findings_add(c->out, kind, "error", v, h, -1, hint, "%s", s);
	host_locate(c, f, h, where);
	c->errors++;
	return f;
}

/* --- unreachable ----------------------------------------------------- */

static bool
pair_measured(const struct fctx *c, int i, int j)
{
	(void)c, (void)i, (void)j;
	return true;
}

static bool
pair_lost(const struct fctx *c, int i, int j)
{
	const struct mview *v = c->v;

	/* Lost, or measured passing nothing: the MTU search's smallest
	 * packet never crossed. */
	return ((v->lost && (AT(v->lost, i, j) || AT(v->lost, j, i))) ||
	    (v->mtu_path && ((isfinite(AT(v->mtu_path, i, j)) &&
	    AT(v->mtu_path, i, j) <= 0) || (isfinite(AT(v->mtu_path, j, i)) &&
	    AT(v->mtu_path, j, i) <= 0)))) && !AT(c->done, i, j);
}

/* rootcause_unreachable: a host no peer could measure (its link cut): one
 * finding, and its pairs are not each unreachable. Not when nothing at
 * all was measured: that is the coordinator's own view. An agent that
 * does not answer is not here: the report puts its tests among those the
 * tool did not measure (unmeasured.c), a warning at the agent. */
void
rootcause_unreachable(struct fctx *c)
{
	const struct mview *v = c->v;
	unsigned char *taken = calloc((size_t)(c->n * c->n), 1);
	unsigned char *picked = calloc((size_t)c->n, 1);
	int h, i, j, other = 0;
	cJSON *f;

	for (i = 0; i < c->n; i++)
		for (j = 0; j < c->n; j++)
			other += i != j && !pair_lost(c, i, j);
	while (taken && picked && other > 0 &&
	    (h = next_host(c, pair_measured, pair_lost, taken, picked)) >= 0) {
		const char *why = "no answer";

		picked[h] = 1;
		for (j = 0; j < c->n; j++)
			if (j != h && v->lost_why && AT(v->lost_why, h, j))
				why = AT(v->lost_why, h, j);
		f = host_finding(c, "unreachable", h, "host", "check the "
		    "agent on this host (cephfab hosts), its link and its "
		    "firewall", "%s could not be measured with any peer on the "
		    "%s network: %s", v->names[h], v->net, why);
		finding_num(f, "directions", take(c, h, pair_lost, taken, f));
		for (j = 0; j < c->n; j++)
			if (j != h)
				AT(c->done, h, j) = AT(c->done, j, h) = 1;
	}
	free(taken);
	free(picked);
}

/* --- MTU ------------------------------------------------------------- */

static bool
mtu_measured(const struct fctx *c, int i, int j)
{
	const struct mview *v = c->v;

	/* A direction that passes nothing has no MTU of its own. */
	return v->mtu_path && isfinite(AT(v->mtu_path, i, j)) &&
	    AT(v->mtu_path, i, j) > 0;
}

static bool
mtu_bad(const struct fctx *c, int i, int j)
{
	const struct mview *v = c->v;

	/* What a fabric link explains (links_mtu.c) is not the host's. */
	return mtu_measured(c, i, j) && !AT(c->mtu_expl, i, j) &&
	    (AT(v->mtu_path, i, j) <
	    AT(v->mtu_conf, i, j) || AT(v->mtu_path, i, j) <
	    c->p->required_mtu);
}

/* mtu_range: the lowest and highest path MTU and the configured MTU of
 * the directions f explains with host h. */
static void
mtu_range(const struct fctx *c, int h, const unsigned char *mine,
    double *lo, double *hi, double *conf)
{
	const struct mview *v = c->v;
	int j, k;

	*lo = INFINITY;
	*hi = *conf = 0;
	for (j = 0; j < c->n; j++)
		for (k = 0; j != h && k < 2; k++) {
			int a = k ? j : h, b = k ? h : j;

			if (!AT(mine, a, b))
				continue;
			*lo = fmin(*lo, AT(v->mtu_path, a, b));
			*hi = fmax(*hi, AT(v->mtu_path, a, b));
			*conf = fmax(*conf, AT(v->mtu_conf, a, b));
		}
}

/* mtu_summary: "only 1500 cross" or "only 1500-1504 cross": a port
 * often takes a VLAN tag's 4 bytes more one way than the other. */
static void
mtu_summary(cJSON *f, const struct mview *v, int h, int n, double lo,
    double hi, double conf)
{
	char s[512], range[48];

	if (hi > lo)
		snprintf(range, sizeof(range), "%.0f-%.0f", lo, hi);
	else
		snprintf(range, sizeof(range), "%.0f", lo);
	snprintf(s, sizeof(s), "%s's port on the %s network (or the switch "
	    "port facing it): %.0f-byte packets configured, only %s cross, "
	    "on all %d directions with %s and none without it", v->names[h],
	    v->net, conf, range, n, v->names[h]);
	cJSON_ReplaceItemInObject(f, "summary", cJSON_CreateString(s));
}

/* rootcause_mtu: a host's port, or the switch port facing it, that passes
 * no full-size frame: every direction with the host is short, none
 * without it. */
void
rootcause_mtu(struct fctx *c)
{
	const struct mview *v = c->v;
	size_t nn = (size_t)(c->n * c->n);
	unsigned char *taken = calloc(nn, 1), *before = malloc(nn);
	unsigned char *picked = calloc((size_t)c->n, 1);
	double lo, hi, conf;
	int h, i, n;
	cJSON *f;

	while (taken && before && picked &&
	    (h = next_host(c, mtu_measured, mtu_bad, taken, picked)) >= 0) {
		picked[h] = 1;
		memcpy(before, taken, nn);
		f = host_finding(c, "mtu_blackhole", h, "port", "check the MTU "
		    "of this host's interface and of the switch port it is "
		    "cabled to", "placeholder");
		n = take(c, h, mtu_bad, taken, f);
		for (i = 0; i < (int)nn; i++)
			before[i] = taken[i] && !before[i];
		mtu_range(c, h, before, &lo, &hi, &conf);
		mtu_summary(f, v, h, n, lo, hi, conf);
		finding_num(f, "configured", conf);
		finding_num(f, "path_min", lo);
		finding_num(f, "path_max", hi);
	}
	free(taken);
	free(before);
	free(picked);
}

/* --- ports ----------------------------------------------------------- */

static bool
ports_measured(const struct fctx *c, int i, int j)
{
	const struct mview *v = c->v;

	/* A direction that passes nothing has no filter of its own to
	 * show: every port looks filtered there. */
	return v->ports_bad && AT(v->ports_bad, i, j) >= 0 &&
	    !(v->mtu_path && isfinite(AT(v->mtu_path, i, j)) &&
	    AT(v->mtu_path, i, j) <= 0);
}

static bool
ports_bad(const struct fctx *c, int i, int j)
{
	const struct mview *v = c->v;

	return ports_measured(c, i, j) && AT(v->ports_bad, i, j) > 0;
}

/* same_ports: every peer of d saw the same ports closed on d. */
static bool
same_ports(const struct fctx *c, int d)
{
	const struct mview *v = c->v;
	const char *first = NULL;
	int i, peers = 0;

	for (i = 0; i < c->n; i++) {
		const char *w;

		if (i == d || !ports_measured(c, i, d))
			continue;
		if (!ports_bad(c, i, d))
			return false;
		w = v->ports_what ? AT(v->ports_what, i, d) : NULL;
		if (w == NULL)
			return false;
		if (first == NULL)
			first = w;
		else if (strcmp(first, w) != 0)
			return false;
		peers++;
	}
	return peers >= 3;
}

/* rootcause_ports: a host's own filter: every peer sees the same of its
 * ports closed. A filter that only some peers see is on a path: those
 * stay per direction. */
void
rootcause_ports(struct fctx *c)
{
	const struct mview *v = c->v;
	int d, i, n;
	cJSON *f;

	for (d = 0; d < c->n; d++) {
		const char *what = NULL;

		if (!same_ports(c, d))
			continue;
		for (i = 0; i < c->n && what == NULL; i++)
			if (i != d && ports_bad(c, i, d))
				what = AT(v->ports_what, i, d);
		f = host_finding(c, "port_blocked", d, "filter", "check the "
		    "firewall on this host (nft list ruleset, iptables -S)",
		    "%s's own filter on the %s network: every peer sees %s",
		    v->names[d], v->net, what);
		for (i = n = 0; i < c->n; i++)
			if (i != d && ports_bad(c, i, d)) {
				AT(c->expl, i, d) = 1;
				findings_evidence_pair(f, v, i, d);
				n++;
			}
		finding_num(f, "peers", n);
	}
}

/* --- loss ------------------------------------------------------------ */

static double
pair_loss(const struct mview *v, int i, int j)
{
	return fmax(isfinite(AT(v->rpg, i, j)) ? AT(v->rpg, i, j) : 0,
	    isfinite(AT(v->rpg, j, i)) ? AT(v->rpg, j, i) : 0);
}

/* A pair's loss counts once, as the cell (low index, high index). */
static bool
loss_measured(const struct fctx *c, int i, int j)
{
	const struct mview *v = c->v;

	return v->rpg && i < j && (isfinite(AT(v->rpg, i, j)) ||
	    isfinite(AT(v->rpg, j, i))) && !AT(c->done, i, j);
}

static bool
loss_bad(const struct fctx *c, int i, int j)
{
	return loss_measured(c, i, j) && pair_loss(c->v, i, j) >
	    c->p->max_rpg;
}

/* rootcause_lossy: a host every pair with which loses packets, while
 * pairs without it do not: its port, cable or switch port. */
void
rootcause_lossy(struct fctx *c)
{
	const struct mview *v = c->v;
	unsigned char *taken = calloc((size_t)(c->n * c->n), 1);
	unsigned char *picked = calloc((size_t)c->n, 1);
	double worst;
	int h, j, n;
	cJSON *f;

	while (taken && picked &&
	    (h = next_host(c, loss_measured, loss_bad, taken, picked)) >= 0) {
		picked[h] = 1;
		for (j = 0, worst = 0; j < c->n; j++)
			if (j != h && loss_bad(c, j < h ? j : h, j < h ? h : j))
				worst = fmax(worst, pair_loss(v, h, j));
		f = host_finding(c, "lossy_host", h, "port", "look for drops "
		    "and CRC errors on this host's NIC, cable and switch port",
		    "placeholder");
		n = take(c, h, loss_bad, taken, f);
		{
			char s[512];

			snprintf(s, sizeof(s), "%s loses packets with every "
			    "peer on the %s network (%d pairs, up to %.0f "
			    "retransmits per GB, spurious ones not counted, "
			    "limit %.0f) and pairs without it do not",
			    v->names[h], v->net, n, worst, c->p->max_rpg);
			cJSON_ReplaceItemInObject(f, "summary",
			    cJSON_CreateString(s));
		}
		finding_num(f, "retransmits_per_gb", worst);
		for (j = 0; j < c->n; j++)
			if (j != h && AT(taken, j < h ? j : h, j < h ? h : j))
				AT(c->done, h, j) = AT(c->done, j, h) = 1;
	}
	free(taken);
	free(picked);
}

/* --- latency -------------------------------------------------------- */

/* lat_state: -1 when pair i, j (i < j) is unmeasured or a host's own probe
 * thread ran late (busy), else whether its RTT p99 is high. */
static int
lat_state(const struct fctx *c, int i, int j)
{
	double q;

	if (c->busy[i] || c->busy[j] || (q = findings_pair_p99(c->v, i, j)) <= 0)
		return -1;
	return profile_rtt_high(c->p, q, c->med, c->nmed);
}

/* rootcause_latency: a host whose pairs are high in RTT (3 in 4, three
 * peers at least) while most pairs without it are not: its port queues
 * (a slow or congested link, a shaper). One finding, the pairs its
 * evidence, not one per pair; pair_latency skips them (lat_host). */
void
rootcause_latency(struct fctx *c)
{
	const struct mview *v = c->v;
	int h, i, j, s, mine, mine_high, other, other_high, m;
	cJSON *f;

	if (!v->p99 || c->rtt_wide)
		return;
	for (h = 0; h < c->n; h++) {
		mine = mine_high = other = other_high = m = 0;
		for (i = 0; i < c->n; i++)
			for (j = i + 1; j < c->n; j++) {
				if ((s = lat_state(c, i, j)) < 0)
					continue;
				if (i == h || j == h) {
					mine++;
					mine_high += s;
					if (s)
						c->tmp[m++] = findings_pair_p99(
						    v, i, j);
				} else {
					other++;
					other_high += s;
				}
			}
		if (mine < 3 || mine_high * 4 < mine * 3 ||
		    (other > 0 && other_high * 2 >= other))
			continue;
		c->lat_host[h] = 1;
		f = findings_add(c->out, "high_latency", "warn", v, h, -1,
		    "look at this host's port, cable and switch port: a slow "
		    "or congested link, or a shaper queueing its traffic",
		    "%s: RTT p99 high with %d of %d peers on the %s network "
		    "(median %.0f us; limit %.0f us, fabric median %.0f us) "
		    "and pairs without it are not", v->names[h], mine_high,
		    mine, v->net, finding_median(c->tmp, m), c->p->max_p99_us,
		    c->med);
		host_locate(c, f, h, "port");
		finding_num(f, "rtt_p99_us", finding_median(c->tmp, m));
		for (j = 0; j < c->n; j++)
			if (j != h && lat_state(c, j < h ? j : h, j < h ? h :
			    j) == 1)
				findings_evidence_pair(f, v, j < h ? j : h,
				    j < h ? h : j);
	}
}

/* --- the whole fabric's rate ----------------------------------------- */

/* rootcause_rate: every pair at about the same rate, below the floor: a
 * shaper, a policer or a negotiated speed the whole fabric shares, not a
 * pair's or a host's fault. One finding then, not one per pair. */
void
rootcause_rate(struct fctx *c)
{
	const struct mview *v = c->v;
	int i, j, m = 0, slow = 0;
	double med, lo = INFINITY, hi = 0;
	cJSON *f;

	if (!v->gbps)
		return;
	for (i = 0; i < c->n; i++)
		for (j = 0; j < c->n; j++) {
			if (i == j || !isfinite(AT(v->gbps, i, j)) ||
			    AT(c->done, i, j))
				continue;
			c->tmp[m++] = AT(v->gbps, i, j);
			slow += AT(c->slow, i, j);
			lo = fmin(lo, AT(v->gbps, i, j));
			hi = fmax(hi, AT(v->gbps, i, j));
		}
	/* Most of the fabric slow, and all within 15 % of the median. */
	if (m < 4 || slow * 10 < m * 9)
		return;
	med = finding_median(c->tmp, m);
	if (lo < med * 0.85 || hi > med * 1.15)
		return;
	f = findings_add(c->out, "fabric_rate", "error", v, -1, -1, "a "
	    "shaper, a policer or a negotiated link speed the whole fabric "
	    "shares: check the switch ports' speed and policies, and the "
	    "profile's line rate", "every pair runs at about %.2f Gbit/s on "
	    "the %s network (%d directions, %.2f to %.2f), below the floor "
	    "of %.2f", med, v->net, m, lo, hi, c->thr);
	finding_num(f, "median_gbps", med);
	finding_num(f, "floor_gbps", c->thr);
	finding_num(f, "directions", m);
	for (i = 0; i < c->n; i++)
		for (j = 0; j < c->n; j++)
			if (i != j && AT(c->slow, i, j)) {
				AT(c->slow, i, j) = 0;
				AT(c->done, i, j) = 1;
			}
	c->errors++;
}
