/*
 * links: the fabric links that explain the lossy flows, see verdict_int.h.
 *
 * Every stream of a bandwidth cell is a flow whose path its sender traced
 * (agent/probes/trace.h): its own port, then the routers that answered,
 * then the destination. Each step of a path is a link, named by what the
 * traces can see of it:
 *   - a host's port, one way: "P host/if" what the host sends out of
 *     it (the sender's egress interface), "Q host/if" what it receives
 *     (the interface, or the address, a peer reached it on). A port that
 *     drops only what it receives loses a sender's data, not the ACKs
 *     the host sends back: the flows out of it are clean and, were the
 *     two ways one link, would refute it; a spine's link into its leaf,
 *     crossed by the same bad flows, would be named instead. The two
 *     ways are joined into one finding when both are named, as a
 *     router link's are, so that a lossy cable counts once;
 *   - a link between two routers ("R A B", one way, A and B routers as
 *     routers.c groups their addresses): whatever address each router
 *     answered from (the one the probe arrived on, the one towards the
 *     sender, its loopback), the link is the routers around it, and
 *     "R B A" is its other way.
 * localize.c then names the links the lossy flows share and no clean
 * flow crossed.
 */
#include "verdict/links_int.h"
#include "text.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int
ltab_id(struct ltab *t, const char *k)
{
	int i;

	for (i = 0; i < t->n; i++)
		if (strcmp(t->key[i], k) == 0)
			return i;
	if (t->n == t->cap) {
		int cap = t->cap ? t->cap * 2 : 64;
		char (*nk)[KEYLEN] = realloc(t->key, (size_t)cap * KEYLEN);

		if (nk == NULL)
			return -1;
		t->key = nk;
		t->cap = cap;
	}
	snprintf(t->key[t->n], KEYLEN, "%s", k);
	return t->n++;
}

static void
port_key(const struct mview *v, int h, const char *port, bool rx, char *k)
{
	snprintf(k, KEYLEN, "%c %s/%s", rx ? 'Q' : 'P', v->names[h], port);
}

/* is_port: key k is a host's port, either way. */
static bool
is_port(const char *k)
{
	return k[0] == 'P' || k[0] == 'Q';
}

/* flow_links: flow f's path as link ids into t (-1 on no memory). The
 * step from a host to its first router is the host's port; a hole in the
 * trace leaves the link after it unknown. */
static int
flow_links(const struct lpass *ps, const struct mflow *f, struct ltab *t,
    struct lflow *lf)
{
	const struct mview *v = ps->c->v;
	const char *seq[MFLOW_HOPS + 3], *dev, *x;
	char k[KEYLEN];
	int ns = 0, i, last = f->src, h, g, prev = -1;

	lf->n = 0;
	if (f->dev) {
		port_key(v, f->src, f->dev, false, k);
		if ((lf->link[lf->n++] = ltab_id(t, k)) < 0)
			return -1;
	}
	/* The first router is the gateway, when it did not answer. */
	for (i = 0; i < f->nhops; i++)
		seq[ns++] = i == 0 && f->hop[0] == NULL ? f->gw : f->hop[i];
	if (f->nhops == 0 && f->gw)
		seq[ns++] = f->gw;
	/* Cut short before the destination's leaf: it went on there. */
	if ((x = routers_tail(ps->r, v, f)) != NULL) {
		while (ns > 0 && seq[ns - 1] == NULL)
			ns--;
		seq[ns++] = x;
	}
	seq[ns++] = f->dst_addr;
	for (i = 0; i < ns; i++) {
		if (seq[i] == NULL) {
			prev = -1;
			continue;
		}
		if ((h = routers_host_of(v, seq[i], &dev)) >= 0) {
			if (h == last)
				continue;	/* the same host, deeper */
			port_key(v, h, dev ? dev : seq[i], true, k);
			last = h;
			prev = -1;
		} else {
			g = routers_group(ps->r, routers_find(ps->r, seq[i]));
			if (prev < 0 || g < 0 || prev == g) {
				prev = g;
				continue;
			}
			snprintf(k, KEYLEN, "R %d %d", prev, g);
			prev = g;
		}
		if ((lf->link[lf->n++] = ltab_id(t, k)) < 0)
			return -1;
	}
	return 0;
}

/* judge_loss: 1 when the flow lost packets (its retransmits per GB over
 * the profile's limit), 0 when it is clean and moved enough data that a
 * loss at the limit would have shown (three retransmits or more), -1 in
 * between. */
static int
judge_loss(const struct fctx *c, const struct mflow *f)
{
	double gb = f->bytes / 1e9, lim = c->p->max_rpg;

	/* A load's flows congest its links on purpose: their losses are
	 * the load's (the oversubscription findings judge them). */
	if (f->load || f->bytes <= 0 || c->expl[f->src * c->n + f->dst])
		return -1;
	if (f->lost / gb > lim && f->lost >= 3)
		return 1;
	return f->lost / gb <= lim / 2 && gb * lim >= 3 ? 0 : -1;
}

/* flow_rate: a flow's rate as its direction's: times its flows. */
static double
flow_rate(const struct mflow *f)
{
	return f->bps * (f->dir_flows > 0 ? f->dir_flows : 1);
}

/* judge_rate: 1 when the flow ran at under half the fabric's yardstick,
 * 0 at 80 % of it or more, -1 in between or not comparable (a load's
 * flows share their hosts with others). A clean flow speaks for the
 * links it crossed only up to its own rate: one of a retest's eight
 * streams, at an eighth of its host's port, fits through a link shaped
 * to a fifth of it and shows nothing of that link (in the lab, such
 * flows refuted a shaped link on one network while it was named on the
 * other); so it must have carried a quarter of the yardstick itself. */
static int
judge_rate(const struct lpass *ps, const struct mflow *f)
{
	const struct fctx *c = ps->c;
	double r = flow_rate(f);

	if (f->load || f->bps <= 0 || c->expl[f->src * c->n + f->dst] ||
	    !(ps->ref > 0))
		return -1;
	if (r < ps->ref / 2)
		return 1;
	return r >= ps->ref * 0.8 && f->bps >= ps->ref / 4 ? 0 : -1;
}

static int
judge(const struct lpass *ps, const struct mflow *f)
{
	return ps->rate ? judge_rate(ps, f) : judge_loss(ps->c, f);
}

/* rate_ref: the upper quartile of the flow rates (flow_rate) of the
 * network's pairwise flows, 0 when there are none. Not the median: two
 * faults in a small fabric (a host's port and a link shaped, on six
 * hosts) slow more than half its flows, and the median was then the
 * slow rate, against which nothing was slow. A quarter of the flows
 * running free is enough. */
static double
rate_ref(const struct mview *v)
{
	double *x = malloc(sizeof(double) * ((size_t)v->nflows + 1)), m;
	int i, n = 0;

	for (i = 0; x && i < v->nflows; i++)
		if (!v->flows[i].load && v->flows[i].bps > 0)
			x[n++] = flow_rate(&v->flows[i]);
	m = n ? finding_quantile(x, n, 0.75) : 0;
	free(x);
	return m;
}

/* mate_key: the key of link l's other way ("R B A" for "R A B", a port's
 * "Q" for its "P"), or -1. */
static int
mate_key(const struct ltab *t, int l)
{
	char m[KEYLEN];
	int ga, gb, j;

	if (is_port(t->key[l]))
		snprintf(m, sizeof(m), "%c%s", t->key[l][0] == 'P' ? 'Q' : 'P',
		    t->key[l] + 1);
	else if (sscanf(t->key[l], "R %d %d", &ga, &gb) != 2)
		return -1;
	else
		snprintf(m, sizeof(m), "R %d %d", gb, ga);
	for (j = 0; j < t->n; j++)
		if (strcmp(t->key[j], m) == 0)
			return j;
	return -1;
}

static void
lname_of(const struct lpass *ps, const struct ltab *t, int l,
    struct lname *n)
{
	const char *k = t->key[l], *p, *a = "*", *b = "*";
	int ga, gb;

	n->kind = k[0];
	n->way = 0;
	if (is_port(k)) {
		n->kind = 'P';
		n->way = k[0];
		p = strchr(k, '/');
		snprintf(n->a, KEYLEN, "%.*s", (int)(p - k - 2), k + 2);
		snprintf(n->b, KEYLEN, "%s", p + 1);
		snprintf(n->text, sizeof(n->text), "%s's port %s", n->a, n->b);
		return;
	}
	if (sscanf(k, "R %d %d", &ga, &gb) == 2)
		routers_link_ends(ps->r, ps->c->v, ga, gb, &a, &b);
	snprintf(n->a, KEYLEN, "%s", a);
	snprintf(n->b, KEYLEN, "%s", b);
	snprintf(n->text, sizeof(n->text), "%s -> %s", n->a, n->b);
}

/* lname_both: the two directions of one link, as one. */
static void
lname_both(struct lname *n)
{
	char x[KEYLEN];

	if (n->kind == 'P') {
		n->way = 0;
		return;
	}
	n->kind = 'L';
	if (strcmp(n->a, n->b) > 0) {
		memcpy(x, n->a, KEYLEN);
		memcpy(n->a, n->b, KEYLEN);
		memcpy(n->b, x, KEYLEN);
	}
	snprintf(n->text, sizeof(n->text), "%s <-> %s", n->a, n->b);
}

/* link_location: where the finding is: a link's two ends as traced (and
 * its twin, when the flows cannot tell the two apart), or a host's port. */
static void
link_location(cJSON *f, const struct mview *v, const struct lname *n,
    const struct lname *twin)
{
	finding_link(f, v, n->kind, n->a, n->b, n->text,
	    twin ? twin->text : NULL);
}

/* crosses_any: flow lf crosses one of the links l[0..nl). */
static bool
crosses_any(const struct lflow *lf, const int *l, int nl)
{
	int k, j;

	for (k = 0; k < lf->n; k++)
		for (j = 0; j < nl; j++)
			if (lf->link[k] == l[j])
				return true;
	return false;
}

/* link_measure: what the judged flows through the links show together:
 * their loss retransmits per GB, or their mean rate (flow_rate). */
static double
link_measure(const struct lpass *ps, const struct lflow *lf, const int *l,
    int nl)
{
	const struct mview *v = ps->c->v;
	double lost = 0, bytes = 0, rate = 0;
	int i, n = 0;

	for (i = 0; i < v->nflows; i++)
		if (lf[i].state >= 0 && crosses_any(&lf[i], l, nl)) {
			lost += v->flows[i].lost;
			bytes += v->flows[i].bytes;
			rate += flow_rate(&v->flows[i]);
			n++;
		}
	if (ps->rate)
		return n ? rate / n : 0;
	return bytes > 0 ? lost / (bytes / 1e9) : 0;
}

/* link_rate_of: the mean rate (flow_rate) of the judged flows through the
 * links when it is under half the fabric's yardstick (or of the profile's
 * floor, when the fabric's flows ran under it: a machine short of CPU),
 * else NAN. */
static double
link_rate_of(const struct lpass *ps, const struct lflow *lf, const int *l,
    int nl, double *yardp)
{
	const struct mview *v = ps->c->v;
	double rate = 0, yard;
	int i, n = 0;

	for (i = 0; i < v->nflows; i++)
		if (lf[i].state >= 0 && crosses_any(&lf[i], l, nl) &&
		    !v->flows[i].load && v->flows[i].bps > 0) {
			rate += flow_rate(&v->flows[i]);
			n++;
		}
	yard = *yardp = fmax(ps->ref, ps->c->thr * 1e9);
	return n && yard > 0 && rate / n < yard / 2 ? rate / n : NAN;
}

/* link_bad: the link's flows together are bad too, not a few unlucky
 * ones: over the loss limit, or under half the yardstick. */
static bool
link_bad(const struct lpass *ps, double x)
{
	return ps->rate ? x < ps->ref / 2 : x > ps->c->p->max_rpg;
}

/* link_summary: the finding's sentence: where, what, how sure. For the
 * loss pass, sx is the lossy link's flows' mean rate when they also ran
 * at under half the fabric's yardstick yard (a port shaped or negotiated
 * down drops what it cannot carry), else NAN. */
static void
link_summary(const struct lpass *ps, const struct lname *n,
    const struct lname *tw, int bad, int good, double x, double sx,
    double yard, char *s, size_t sz)
{
	char where[3 * KEYLEN], slow[160] = "";
	const char *oneway;

	snprintf(where, sizeof(where), "%s%s%s%s%s%s", n->kind == 'P' ? "" :
	    "the link ", n->text, n->kind == 'P' ? " (its link to the switch)" :
	    "", tw ? " (or " : "", tw ? tw->text : "", tw ? ": these flows "
	    "cannot tell the two apart)" : "");
	oneway = n->kind == 'R' ? " one way" : n->way == 'P' ?
	    " one way, out of the host," : n->way == 'Q' ?
	    " one way, into the host," : "";
	if (!isnan(sx))
		snprintf(slow, sizeof(slow), " and ran at %.0f Mbit/s a "
		    "direction on average against the fabric's %.0f", sx / 1e6,
		    yard / 1e6);
	if (ps->rate)
		snprintf(s, sz, "%s is slow%s on the %s network: %d of the "
		    "flows through it ran at under half the fabric's rate "
		    "(%.0f Mbit/s a direction on average against %.0f), %d "
		    "crossed it at full rate", where, oneway,
		    ps->c->v->net, bad, x / 1e6,
		    ps->ref / 1e6, good);
	else
		snprintf(s, sz, "%s %s%s on the %s network: %d of the flows "
		    "through it lost packets (%.0f retransmits per GB, limit "
		    "%.0f)%s, %d crossed it cleanly", where, isnan(sx) ?
		    "loses packets" : "is slow and drops", oneway,
		    ps->c->v->net, bad, x, ps->c->p->max_rpg,
		    slow, good);
}

/* link_finding: lossy_link or slow_link (lossy_host for a host's port)
 * for one named link, with the directions of the bad flows it explains;
 * marks those flows explained (state 2). */
static void
link_finding(const struct lpass *ps, const struct ltab *t, struct lflow *lf,
    const struct named *nm, double x)
{
	struct fctx *c = ps->c;
	const struct mview *v = c->v;
	struct lname n, tw;
	unsigned char *seen = calloc((size_t)(c->n * c->n), 1);
	int i, bad = 0, good = 0, expl = 0;
	bool twin = nm->b[0]->twin >= 0 && !nm->frag, slow;
	double sx, yard = 0;
	char sum[1024];
	cJSON *f;

	lname_of(ps, t, nm->link[0], &n);
	if (nm->frag ? nm->up && nm->down : nm->nb == 2)
		lname_both(&n);
	if (nm->frag)
		links_frag_text(ps, t, nm, &n);
	/* The twin of a link named both ways is the twins' link, both ways
	 * too, when they are two ends of one. */
	if (twin)
		lname_of(ps, t, nm->b[0]->twin, &tw);
	if (twin && nm->nb == 2 && nm->b[1]->twin >= 0 &&
	    mate_key(t, nm->b[0]->twin) == nm->b[1]->twin)
		lname_both(&tw);
	for (i = 0; i < nm->nb; i++) {
		bad += nm->b[i]->bad;
		good += nm->b[i]->good;
		expl += nm->b[i]->explained;
	}
	/* Lossy and slow: a shaper or a port negotiated down, which drops
	 * what it cannot carry, is slow first. */
	sx = ps->rate ? NAN : link_rate_of(ps, lf, nm->link, nm->nb, &yard);
	slow = !isnan(sx);
	link_summary(ps, &n, twin ? &tw : NULL, bad, good, x, sx, yard, sum,
	    sizeof(sum));
	if (expl < 2)
		snprintf(sum + strlen(sum), sizeof(sum) - strlen(sum), " (the "
		    "run's other network named this link: one flow is enough "
		    "here)");
	f = findings_add(c->out, ps->rate || slow ? (n.kind == 'P' ?
	    "slow_host" : "slow_link") : n.kind == 'P' ? "lossy_host" :
	    "lossy_link", "error", v, -1, -1, ps->rate || slow ?
	    "check this link's speed, shaping and policing on both ends (a "
	    "port negotiated down, an optic, a QoS policy)" : "look for drops "
	    "and CRC errors on both ends of this link (interface counters, "
	    "optics)", "%s", sum);
	link_location(f, v, &n, twin ? &tw : NULL);
	finding_num(f, "bad_flows", bad);
	finding_num(f, "explained_flows", expl);
	finding_num(f, "clean_flows", good);
	if (ps->rate) {
		finding_num(f, "direction_mbps", x / 1e6);
		finding_num(f, "fabric_direction_mbps", ps->ref / 1e6);
	} else {
		finding_num(f, "retransmits_per_gb", x);
		if (slow) {
			finding_num(f, "direction_mbps", sx / 1e6);
			finding_num(f, "fabric_direction_mbps", yard / 1e6);
		}
	}
	for (i = 0; i < v->nflows; i++) {
		const struct mflow *m = &v->flows[i];

		if (lf[i].state < 1 || !crosses_any(&lf[i], nm->link, nm->nb))
			continue;
		lf[i].state = 2;
		if (seen && !seen[m->src * c->n + m->dst]) {
			seen[m->src * c->n + m->dst] = 1;
			findings_evidence_pair(f, v, m->src, m->dst);
		}
	}
	free(seen);
	c->errors++;
}

/* dedupe: each link of a flow once (a path may come back to a link). */
static void
dedupe(struct lflow *lf)
{
	int k, j, n = 0;

	for (k = 0; k < lf->n; k++) {
		for (j = 0; j < n && lf->link[j] != lf->link[k]; j++)
			;
		if (j < n)
			continue;
		lf->link[n++] = lf->link[k];
	}
	lf->n = n;
}

/* residual_ok: what the flows of direction i -> j that no named link
 * explains lost, over all its flows' bytes, is within the loss limit: a
 * flow or two an untraced hiccup hit are not a pair fault beside the link
 * that explains the rest. */
static bool
residual_ok(const struct lpass *ps, const struct lflow *lf, int i, int j)
{
	const struct mview *v = ps->c->v;
	double lost = 0, bytes = 0;
	int k;

	if (ps->rate)
		return false;
	for (k = 0; k < v->nflows; k++)
		if (v->flows[k].src == i && v->flows[k].dst == j) {
			bytes += v->flows[k].bytes;
			if (lf[k].state != 2)
				lost += v->flows[k].lost;
		}
	return bytes > 0 && lost / (bytes / 1e9) <= ps->c->p->max_rpg;
}

/* mark_explained: a direction whose every bad flow a named link explains
 * (a flow with an incomplete trace, that a named link does not explain,
 * neither counts for nor against; nor, for loss, what stays within the
 * limit once the explained flows are taken out) is explained; a pair both
 * of whose directions are is done. */
static void
mark_explained(const struct lpass *ps, const struct lflow *lf, int nf)
{
	struct fctx *c = ps->c;
	const struct mview *v = c->v;
	int *cnt = calloc((size_t)(c->n * c->n) * 2, sizeof(int));
	int i, j, n = c->n;

	if (cnt == NULL)
		return;
	for (i = 0; i < nf; i++)
		if (lf[i].state == 2 || (lf[i].state == 1 &&
		    routers_whole(ps->r, v, &v->flows[i])))
			cnt[(lf[i].state == 2 ? 0 : n * n) + v->flows[i].src * n +
			    v->flows[i].dst]++;
	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++)
			if (cnt[i * n + j] && cnt[n * n + i * n + j] &&
			    residual_ok(ps, lf, i, j))
				cnt[n * n + i * n + j] = 0;
	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++)
			if (cnt[i * n + j] && !cnt[n * n + i * n + j]) {
				AT(c->expl, i, j) = 1;
				/* A slow link's pairs are not each slow. */
				AT(c->slow, i, j) = 0;
			}
	for (i = 0; i < n; i++)
		for (j = i + 1; j < n; j++)
			if ((cnt[i * n + j] || cnt[j * n + i]) &&
			    !cnt[n * n + i * n + j] && !cnt[n * n + j * n + i])
				AT(c->done, i, j) = AT(c->done, j, i) = 1;
	free(cnt);
}

/* cover: link l (and its other way) is named: the rate pass leaves it. */
static void
cover(struct lpass *ps, const struct ltab *t, int l)
{
	int m = mate_key(t, l), k;

	for (k = 0; k < 2; k++, l = m)
		if (l >= 0 && ps->ncov < LINKS_NAMED * 2)
			snprintf(ps->covered[ps->ncov++], KEYLEN, "%s",
			    t->key[l]);
}

/* covered_flow: flow lf crossed a link the loss pass named. */
static bool
covered_flow(const struct lpass *ps, const struct ltab *t,
    const struct lflow *lf)
{
	int k, j;

	for (k = 0; k < lf->n; k++)
		for (j = 0; j < ps->ncov; j++)
			if (strcmp(t->key[lf->link[k]], ps->covered[j]) == 0)
				return true;
	return false;
}

/* need: the bad flows link l must explain to be named: two, or one when
 * another network of the run named it. */
static int
need(const struct lpass *ps, int l)
{
	return ps->prior && ps->prior[l] ? 1 : 2;
}

static void
name_links(struct lpass *ps, const struct ltab *t, struct lflow *lf,
    struct loc_blame *bl, int nb)
{
	struct named nm;
	struct loc_blame extra[LINKS_NAMED];
	double x;
	bool used[LINKS_NAMED] = { false };
	int i, j, m;

	for (i = 0; i < nb; i++)
		if (bl[i].twin >= 0 && strcmp(t->key[bl[i].twin],
		    t->key[bl[i].link]) < 0) {
			int tw = bl[i].twin;

			bl[i].twin = bl[i].link;
			bl[i].link = tw;
		}
	for (i = 0; i < nb; i++) {
		/* A slow host's port is check_slow_host's: it knows the
		 * host's every pair, not only the traced ones. */
		if (used[i] || bl[i].explained < need(ps, bl[i].link) ||
		    (ps->rate &&
		    is_port(t->key[bl[i].link])))
			continue;
		nm.b[0] = &bl[i];
		nm.link[0] = bl[i].link;
		nm.nb = 1;
		nm.frag = false;
		m = mate_key(t, bl[i].link);
		for (j = i + 1; m >= 0 && j < nb; j++)
			if (!used[j] && bl[j].link == m &&
			    bl[j].explained >= need(ps, m)) {
				used[j] = true;
				nm.b[1] = &bl[j];
				nm.link[1] = m;
				nm.nb = 2;
				break;
			}
		if (nm.nb == 1)
			links_frag_join(ps, t, bl, nb, i, used, &nm, lf, extra);
		/* A few unlucky flows are not a bad link: the link's flows
		 * together must be bad too. */
		x = link_measure(ps, lf, nm.link, nm.nb);
		if (!link_bad(ps, x))
			continue;
		link_finding(ps, t, lf, &nm, x);
		for (j = 0; !ps->rate && j < nm.nb; j++)
			cover(ps, t, nm.link[j]);
	}
}

/* priors: which links of t another network of the run named, by the ends
 * its finding printed. */
static unsigned char *
priors(const struct lpass *ps, const struct ltab *t)
{
	const struct mview *v = ps->c->v;
	unsigned char *p;
	struct lname n;
	char ab[2 * KEYLEN + 2];
	int l, k;

	if (v->nother == 0 || (p = calloc((size_t)t->n + 1, 1)) == NULL)
		return NULL;
	for (l = 0; l < t->n; l++) {
		if (t->key[l][0] != 'R')
			continue;
		lname_of(ps, t, l, &n);
		snprintf(ab, sizeof(ab), "%s %s", n.a, n.b);
		for (k = 0; k < v->nother && !p[l]; k++)
			p[l] = strcmp(v->other_links[k], ab) == 0;
	}
	return p;
}

static void
run_pass(struct lpass *ps)
{
	struct fctx *c = ps->c;
	const struct mview *v = c->v;
	struct ltab t = { NULL, 0, 0 };
	struct loc_blame named[LINKS_NAMED];
	struct lflow *lf = calloc((size_t)v->nflows + 1, sizeof(*lf));
	struct loc_flow *fl = calloc((size_t)v->nflows + 1, sizeof(*fl));
	int i, m = 0, nb, unexpl;

	if (lf == NULL || fl == NULL || v->nflows == 0)
		goto out;
	for (i = 0; i < v->nflows; i++) {
		if (flow_links(ps, &v->flows[i], &t, &lf[i]) == -1)
			goto out;
		lf[i].state = judge(ps, &v->flows[i]);
		dedupe(&lf[i]);
		/* Slow through a lossy link: the loss explains it. */
		if (ps->rate && lf[i].state == 1 && covered_flow(ps, &t, &lf[i]))
			lf[i].state = 2;
		if (lf[i].state < 0 || lf[i].n == 0)
			continue;
		fl[m].links = lf[i].link;
		fl[m].nlinks = lf[i].n;
		fl[m++].bad = lf[i].state == 1;
	}
	/* Links are directed here: a loss one way must not be refuted by
	 * the clean flows the other way; name_links joins the two ways. */
	ps->prior = priors(ps, &t);
	nb = localize_links(fl, m, t.n, ps->prior, named, LINKS_NAMED,
	    &unexpl);
	name_links(ps, &t, lf, named, nb);
	mark_explained(ps, lf, v->nflows);
out:
	free(ps->prior);
	ps->prior = NULL;
	free(t.key);
	free(lf);
	free(fl);
}

/* rootcause_links: the lossy links, then the slow ones among what loss
 * does not explain (a lossy link's flows are slow too). */
void
rootcause_links(struct fctx *c)
{
	char cov[LINKS_NAMED * 2][KEYLEN];
	struct lpass loss = { c, &c->r, false, 0, cov, 0, NULL };
	struct lpass rate = { c, &c->r, true, 0, cov, 0, NULL };

	if (c->v->nflows == 0)
		return;
	loss.ref = rate.ref = rate_ref(c->v);
	run_pass(&loss);
	rate.ncov = loss.ncov;
	run_pass(&rate);
}
