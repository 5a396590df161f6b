/*
 * links_frag: one link between a leaf and a router that answers each rack
 * from its own side (egress answers), seen from each rack as another
 * router: one piece per rack, joined here into the one link it is, see
 * links.c.
 */
#include "verdict/links_int.h"

#include <stdio.h>
#include <string.h>

/* frag_of: the leaf of router link l when its other end is a router seen
 * from one rack only (*lab, its group; *up: the leaf sends), else -1. */
static int
frag_of(const struct lpass *ps, const struct ltab *t, int l, int *lab,
    bool *up)
{
	int ga, gb, ra, rb;

	if (sscanf(t->key[l], "R %d %d", &ga, &gb) != 2)
		return -1;
	ra = routers_rack(ps->r, ga);
	rb = routers_rack(ps->r, gb);
	*up = ra < 0;
	*lab = ra < 0 ? gb : ga;
	return (ra < 0) != (rb < 0) ? (ra < 0 ? ga : gb) : -1;
}

/* links_frag_text: the finding's link says how the other racks see the router
 * it names. */
void
links_frag_text(const struct lpass *ps, const struct ltab *t,
    const struct named *nm, struct lname *n)
{
	char more[KEYLEN] = "";
	size_t off = 0;
	bool up;
	int i, lab, first;

	frag_of(ps, t, nm->link[0], &first, &up);
	for (i = 1; i < nm->nb; i++) {
		frag_of(ps, t, nm->link[i], &lab, &up);
		if (lab != first && off < sizeof(more))
			off += (size_t)snprintf(more + off, sizeof(more) - off,
			    "%s%s", off ? ", " : "", routers_name(ps->r,
			    ps->c->v, lab));
	}
	if (off)
		snprintf(n->text + strlen(n->text), sizeof(n->text) -
		    strlen(n->text), " (%s, as other racks see it: %s)",
		    routers_name(ps->r, ps->c->v, first), more);
}

/* frag_piece: link l's bad and clean flows, and whether it is a piece to
 * join: a bad flow crossed it and no more clean ones than localize.c's
 * noise allows. */
static bool
frag_piece(const struct lflow *lf, int nf, int l, struct loc_blame *b)
{
	int i, k;

	memset(b, 0, sizeof(*b));
	b->link = l;
	b->twin = -1;
	for (i = 0; i < nf; i++)
		for (k = 0; lf[i].state >= 0 && lf[i].state < 2 &&
		    k < lf[i].n; k++)
			if (lf[i].link[k] == l) {
				if (lf[i].state == 1)
					b->bad++;
				else
					b->good++;
				break;
			}
	b->explained = b->bad;
	return b->bad > 0 && b->good * 10 <= b->bad + b->good;
}

/* links_frag_join: blame i is a piece of a leaf's link (frag_of); the other
 * pieces of that leaf's link join it, one per rack, as one link: seen
 * from each rack by one router, a single fault. The named pieces first,
 * then those too small for localize.c to name (one bad flow), in extra.
 * Two pieces from one rack are two links: nothing joins. */
void
links_frag_join(const struct lpass *ps, const struct ltab *t, struct loc_blame *bl,
    int nb, int i, bool *used, struct named *nm, const struct lflow *lf,
    struct loc_blame *extra)
{
	const struct loc_blame *pick[LINKS_NAMED];
	int leaf, lab, j, k, l, rk[LINKS_NAMED], pj[LINKS_NAMED], np = 0;
	int nx = 0;
	bool up, u;

	if ((leaf = frag_of(ps, t, bl[i].link, &lab, &up)) < 0)
		return;
	rk[0] = routers_rack(ps->r, lab);
	nm->up = up;
	nm->down = !up;
	for (j = i + 1; j < nb && np + 1 < LINKS_NAMED; j++) {
		if (used[j] || bl[j].explained < 1 ||
		    frag_of(ps, t, bl[j].link, &lab, &u) != leaf)
			continue;
		for (k = 0; k <= np && rk[k] != routers_rack(ps->r, lab); k++)
			;
		if (k <= np)
			return;
		rk[++np] = routers_rack(ps->r, lab);
		pick[np - 1] = &bl[j];
		pj[np - 1] = j;
	}
	for (l = 0; l < t->n && np + 1 < LINKS_NAMED; l++) {
		for (j = 0; j < nb && bl[j].link != l; j++)
			;
		if (j < nb || frag_of(ps, t, l, &lab, &u) != leaf ||
		    !frag_piece(lf, ps->c->v->nflows, l, &extra[nx]))
			continue;
		for (k = 0; k <= np && rk[k] != routers_rack(ps->r, lab); k++)
			;
		if (k <= np)
			continue;
		rk[++np] = routers_rack(ps->r, lab);
		pick[np - 1] = &extra[nx++];
		pj[np - 1] = -1;
	}
	for (k = 0; k < np; k++) {
		if (pj[k] >= 0)
			used[pj[k]] = true;
		frag_of(ps, t, pick[k]->link, &lab, &up);
		nm->b[nm->nb] = pick[k];
		nm->link[nm->nb++] = pick[k]->link;
		nm->up |= up;
		nm->down |= !up;
	}
	nm->frag = np > 0;
}
