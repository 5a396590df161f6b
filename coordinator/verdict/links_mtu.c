/*
 * links_mtu: the fabric link where large packets die (mtu_link), see
 * verdict_int.h.
 *
 * Every MTU probe that found its path narrower than its port traced where
 * (agent/probes/trace_mtu.h): the routers that still saw its large
 * datagrams and the one after, whose link ate them. That is evidence
 * about one link, not a vote to be weighed against others: the same
 * datagram sizes crossed every link before it. So the directions are
 * grouped by the link they name: the two routers around it (routers.c),
 * or, where the traces did not see those routers, the far end's address;
 * a link named from both ends (the same two routers the other way, or two
 * far ends that are mates of one /31 or /30) is one finding. What names no fabric link (the sender's own port, the
 * receiver's) is left to rootcause_mtu and the per-direction check.
 *
 * The bandwidth flows through such a link stall or crawl there (TCP's
 * full-size segments die on it): their directions are explained, and do
 * not vote in the loss and rate passes after this one; a cell that
 * failed because its flows stalled there is explained both ways.
 */
#include "verdict/verdict_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MTU_LINKS_NAMED 8	/* links named per network at most */

/* One link: the directions whose large datagrams died on it, by the
 * link's far end (and, when the other way was named too, its mate). */
struct mlink {
	const char *far, *near;
	const char *far2;		/* the other direction's far end */
	int ga, gb;			/* the routers before and after it,
					   -1 when unknown */
	bool both;			/* named (gb, ga) too */
	double lo, hi, conf, next;
	int ndirs;
};

static bool
cut_dir(const struct fctx *c, int i, int j)
{
	const struct mview *v = c->v;

	return i != j && v->mtu_cut_far && AT(v->mtu_cut_far, i, j) &&
	    isfinite(AT(v->mtu_path, i, j)) && AT(v->mtu_path, i, j) > 0 &&
	    (AT(v->mtu_path, i, j) < AT(v->mtu_conf, i, j) ||
	    AT(v->mtu_path, i, j) < c->p->required_mtu) &&
	    !AT(c->expl, i, j);
}

/* cut_routers: the routers before and after where direction i -> j's
 * large datagrams died, -1 both when the traces did not see both, or when
 * the far end's address names the link itself (its point-to-point
 * address: the probes that died there may not have been seen by the
 * flows' traces, which stalled on it). */
static void
cut_routers(const struct fctx *c, int i, int j, int *ga, int *gb)
{
	const struct mview *v = c->v;

	if (routers_p2p(&c->r, v, AT(v->mtu_cut_far, i, j))) {
		*ga = *gb = -1;
		return;
	}
	*ga = routers_group(&c->r, routers_find(&c->r,
	    AT(v->mtu_cut_near, i, j)));
	*gb = routers_group(&c->r, routers_find(&c->r,
	    AT(v->mtu_cut_far, i, j)));
	if (*ga < 0 || *gb < 0 || *ga == *gb)
		*ga = *gb = -1;
}

/* names: direction i -> j's cut is on link m, one way or the other. */
static bool
names(const struct fctx *c, const struct mlink *m, int i, int j)
{
	const struct mview *v = c->v;
	const char *far = AT(v->mtu_cut_far, i, j);
	int ga, gb;

	cut_routers(c, i, j, &ga, &gb);
	if (m->ga >= 0 && ga >= 0)
		return (ga == m->ga && gb == m->gb) ||
		    (m->both && ga == m->gb && gb == m->ga);
	return m->ga < 0 && ga < 0 && (strcmp(m->far, far) == 0 ||
	    (m->far2 && strcmp(m->far2, far) == 0));
}

/* group: the links the cut directions name, mates merged. */
static int
group(const struct fctx *c, struct mlink *ml, int max)
{
	const struct mview *v = c->v;
	char mate[48];
	int i, j, k, w, n = 0;

	for (i = 0; i < c->n; i++)
		for (j = 0; j < c->n; j++) {
			const char *far;
			double p;

			if (!cut_dir(c, i, j))
				continue;
			far = AT(v->mtu_cut_far, i, j);
			for (k = 0; k < n && !names(c, &ml[k], i, j); k++)
				;
			if (k == n && n == max)
				continue;
			if (k == n) {
				memset(&ml[n], 0, sizeof(ml[n]));
				ml[n].far = far;
				ml[n].near = AT(v->mtu_cut_near, i, j);
				cut_routers(c, i, j, &ml[n].ga, &ml[n].gb);
				ml[n].lo = INFINITY;
				ml[n].next = NAN;
				n++;
			}
			p = AT(v->mtu_path, i, j);
			ml[k].lo = fmin(ml[k].lo, p);
			ml[k].hi = fmax(ml[k].hi, p);
			ml[k].conf = fmax(ml[k].conf, AT(v->mtu_conf, i, j));
			if (v->mtu_next && isfinite(AT(v->mtu_next, i, j)))
				ml[k].next = AT(v->mtu_next, i, j);
			ml[k].ndirs++;
		}
	/* Two directions of one link: the same routers the other way, or
	 * (routers unknown) the far end of each is the other's mate. */
	for (k = 0; k < n; k++)
		for (w = 0; w < 2 && ml[k].far2 == NULL; w++) {
			if (ml[k].ga < 0 && routers_mate(ml[k].far, w, mate) == -1)
				continue;
			for (j = k + 1; j < n; j++)
				if (ml[j].far2 == NULL && (ml[k].ga >= 0 ?
				    ml[j].ga == ml[k].gb && ml[j].gb == ml[k].ga :
				    ml[j].ga < 0 && strcmp(ml[j].far, mate) == 0))
					break;
			if (j == n)
				continue;
			ml[k].both = true;
			ml[k].far2 = ml[j].far;
			ml[k].lo = fmin(ml[k].lo, ml[j].lo);
			ml[k].hi = fmax(ml[k].hi, ml[j].hi);
			ml[k].conf = fmax(ml[k].conf, ml[j].conf);
			if (!isfinite(ml[k].next))
				ml[k].next = ml[j].next;
			ml[k].ndirs += ml[j].ndirs;
			ml[j] = ml[--n];
		}
	return n;
}

/* crosses: flow f's traced path went from m's router before to its router
 * after (or back, named both ways), or, routers unknown, entered a router
 * by one of m's ends. */
static bool
crosses(const struct fctx *c, const struct mflow *f, const struct mlink *m)
{
	int k, x, y;

	for (k = 0; k < f->nhops; k++) {
		if (f->hop[k] == NULL)
			continue;
		if (m->ga < 0) {
			if (strcmp(m->far, f->hop[k]) == 0 ||
			    (m->far2 && strcmp(m->far2, f->hop[k]) == 0))
				return true;
			continue;
		}
		if (k == 0 || f->hop[k - 1] == NULL)
			continue;
		x = routers_group(&c->r, routers_find(&c->r, f->hop[k - 1]));
		y = routers_group(&c->r, routers_find(&c->r, f->hop[k]));
		if ((x == m->ga && y == m->gb) ||
		    (m->both && x == m->gb && y == m->ga))
			return true;
	}
	return false;
}

/* explain: the directions and flows m explains join finding f. */
static int
explain(struct fctx *c, const struct mlink *m, cJSON *f, unsigned char *seen)
{
	const struct mview *v = c->v;
	int i, j, flows = 0;

	for (i = 0; i < c->n; i++)
		for (j = 0; j < c->n; j++)
			if (cut_dir(c, i, j) && names(c, m, i, j)) {
				AT(c->expl, i, j) = AT(c->mtu_expl, i, j) = 1;
				AT(seen, i, j) = 1;
			}
	for (i = 0; i < v->nflows; i++) {
		const struct mflow *fl = &v->flows[i];

		if (!crosses(c, fl, m))
			continue;
		flows++;
		AT(c->done, fl->src, fl->dst) = 1;
		AT(c->expl, fl->src, fl->dst) = 1;
		AT(seen, fl->src, fl->dst) = 1;
	}
	/* A failed cell whose flows crossed the link stalled on it: its
	 * pair is explained both ways (check_unreachable would call it
	 * unreachable). */
	for (i = 0; i < v->nstalled; i++) {
		const struct mflow *fl = &v->stalled[i];

		if (!crosses(c, fl, m))
			continue;
		flows++;
		AT(c->done, fl->src, fl->dst) = AT(c->done, fl->dst, fl->src) = 1;
		AT(c->expl, fl->src, fl->dst) = AT(c->expl, fl->dst, fl->src) = 1;
		AT(seen, fl->src, fl->dst) = 1;
	}
	for (i = 0; i < c->n; i++)
		for (j = 0; j < c->n; j++)
			if (AT(seen, i, j)) {
				findings_evidence_pair(f, v, i, j);
				AT(seen, i, j) = 0;
			}
	return flows;
}

static void
mtu_link_finding(struct fctx *c, const struct mlink *m, unsigned char *seen)
{
	const struct mview *v = c->v;
	char text[160], range[48], said[96] = "";
	const char *a, *b;
	cJSON *f;

	if (m->ga >= 0) {
		routers_link_ends(&c->r, v, m->ga, m->gb, &a, &b);
		if (m->both && strcmp(a, b) > 0) {
			const char *x = a;

			a = b;
			b = x;
		}
		snprintf(text, sizeof(text), "%s %s %s", a, m->both ? "<->" :
		    "->", b);
	} else if (m->far2) {
		a = strcmp(m->far, m->far2) < 0 ? m->far : m->far2;
		b = a == m->far ? m->far2 : m->far;
		snprintf(text, sizeof(text), "%s <-> %s", a, b);
	} else {
		a = m->near ? m->near : "*";
		b = m->far;
		snprintf(text, sizeof(text), "%s -> %s", a, b);
	}
	if (m->hi > m->lo)
		snprintf(range, sizeof(range), "%.0f-%.0f", m->lo, m->hi);
	else
		snprintf(range, sizeof(range), "%.0f", m->lo);
	if (isfinite(m->next))
		snprintf(said, sizeof(said), "; a router on it says it "
		    "forwards %.0f", m->next);
	f = findings_add(c->out, "mtu_link", "error", v, -1, -1, "check the "
	    "MTU of both ends of this link (a router or switch port left "
	    "at a smaller MTU)", "link %s on the %s network: %.0f-byte "
	    "packets die on it, only %s cross (traced by %d direction%s' "
	    "MTU probes)%s", text, v->net, m->conf, range, m->ndirs,
	    m->ndirs == 1 ? "" : "s", said);
	finding_link(f, v, m->far2 ? 'L' : 'R', a, b, text, NULL);
	finding_num(f, "directions", m->ndirs);
	finding_num(f, "configured", m->conf);
	finding_num(f, "path_min", m->lo);
	finding_num(f, "path_max", m->hi);
	finding_num(f, "next_mtu", m->next);
	finding_num(f, "explained_flows", explain(c, m, f, seen));
	c->errors++;
}

void
rootcause_mtu_links(struct fctx *c)
{
	struct mlink ml[MTU_LINKS_NAMED];
	unsigned char *seen;
	int n, k;

	if (c->v->mtu_cut_far == NULL ||
	    (n = group(c, ml, MTU_LINKS_NAMED)) == 0 ||
	    (seen = calloc((size_t)(c->n * c->n), 1)) == NULL)
		return;
	for (k = 0; k < n; k++)
		mtu_link_finding(c, &ml[k], seen);
	free(seen);
}
