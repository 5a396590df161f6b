/*
 * routers: which of the addresses the traces saw are one router's, so that
 * a link is named by the two routers around it whatever address each
 * answered from (see verdict_int.h).
 *
 * A router answers a probe whose TTL ran out from the address the probe
 * arrived on (most vendors), from the address towards the sender (Linux's
 * default), or from its loopback (unnumbered fabrics). Only the first
 * makes an address name a link; the others name a router, or a router as
 * one sender sees it. What is sure whatever the router does:
 *   - the first router of a host's path is its gateway: the first hop's
 *     answer is an address of the router that owns the gateway address;
 *   - the last router of a path that reached its destination is the
 *     destination's own gateway's router (a host with one gateway on the
 *     network: its own flows say which), when that address is never a
 *     router within a path (a trace cut short would end on one).
 * And what holds only of routers that answer from the ingress: the probe
 * that a router's address a received came over the link whose other end
 * is a's /31 (or /30) mate, so the router before it owns the mate. That
 * is used only for a router whose answers differ by the router before and
 * are always the same after one router: the mark of ingress answers (an
 * egress answer varies with the way back, a loopback never varies). Two
 * addresses joined must not bring two gateways together.
 *
 * What is left is how the traces can see each router: a spine that
 * answers each rack from its link to that rack stays one group per rack
 * (routers_rack says which rack sees it; links.c joins the pieces of one
 * link), and an address names a link only when its mate was seen and it
 * answered probes that came from one router only (a loopback, or an
 * answer towards the sender, follows several).
 */
#include "verdict/verdict_int.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The traced flows: the measured ones, then the stalled ones. */
static const struct mflow *
flow_at(const struct mview *v, int i)
{
	return i < v->nflows ? &v->flows[i] : &v->stalled[i - v->nflows];
}

static bool p2p(const struct routers *r, const struct mview *v, int i);
static void befores(struct routers *r, const struct mview *v);

/* routers_mate: the other end of the point-to-point link that a is on, if a
 * /31 (or /127) holds it (wide30 0), or a /30 (wide30 1). */
int
routers_mate(const char *a, int wide30, char *out)
{
	unsigned char b[16];

	if (inet_pton(AF_INET, a, b) == 1) {
		uint32_t x = (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 |
		    (uint32_t)b[2] << 8 | b[3], m;

		if (wide30 && (x & 3) != 1 && (x & 3) != 2)
			return -1;
		m = !wide30 ? x ^ 1 : (x & 3) == 1 ? x + 1 : x - 1;
		snprintf(out, 48, "%u.%u.%u.%u", m >> 24, (m >> 16) & 255,
		    (m >> 8) & 255, m & 255);
		return 0;
	}
	if (!wide30 && inet_pton(AF_INET6, a, b) == 1) {
		b[15] ^= 1;
		return inet_ntop(AF_INET6, b, out, 48) ? 0 : -1;
	}
	return -1;
}

int
routers_host_of(const struct mview *v, const char *a, const char **dev)
{
	int i, h = -1;

	*dev = NULL;
	for (i = 0; i < v->nports; i++)
		if (strcmp(v->ports[i].addr, a) == 0) {
			*dev = v->ports[i].dev;
			return v->ports[i].host;
		}
	for (i = 0; i < v->nflows; i++) {
		const struct mflow *f = &v->flows[i];

		if ((f->src_addr && strcmp(f->src_addr, a) == 0) ||
		    (f->egress_addr && strcmp(f->egress_addr, a) == 0)) {
			*dev = f->dev;
			return f->src;
		}
		if (h < 0 && f->dst_addr && strcmp(f->dst_addr, a) == 0)
			h = f->dst;
	}
	return h;
}

bool
routers_whole(const struct routers *r, const struct mview *v,
    const struct mflow *f)
{
	int k;

	for (k = 0; k < f->nhops; k++)
		if (f->hop[k] == NULL)
			return false;
	return r->longest == NULL || f->src < 0 || f->dst < 0 ||
	    f->src >= v->n || f->dst >= v->n ||
	    f->nhops == r->longest[f->src * v->n + f->dst];
}

static const char *dst_gateway(const struct mflow *fl, int nf, int d);

const char *
routers_tail(const struct routers *r, const struct mview *v,
    const struct mflow *f)
{
	const char *g;
	int k, last = -1, L;

	if (r->longest == NULL || f->src < 0 || f->dst < 0 ||
	    f->src >= v->n || f->dst >= v->n)
		return NULL;
	L = r->longest[f->src * v->n + f->dst];
	for (k = 0; k < f->nhops; k++)
		if (f->hop[k] || (k == 0 && f->gw))
			last = k;
	if (L < 2 || last != L - 2 ||
	    (g = dst_gateway(v->flows, v->nflows, f->dst)) == NULL ||
	    routers_find(r, g) < 0 ||
	    routers_group(r, routers_find(r, g)) == routers_group(r,
	    routers_find(r, f->hop[last] ? f->hop[last] : f->gw)))
		return NULL;
	return g;
}

/* longest: per direction, the most hops any of its traces has. */
static int
longest(struct routers *r, const struct mview *v)
{
	int i;

	r->longest = calloc((size_t)(v->n * v->n) + 1, sizeof(int));
	if (r->longest == NULL)
		return -1;
	for (i = 0; i < v->nflows + v->nstalled; i++) {
		const struct mflow *f = flow_at(v, i);

		if (f->src >= 0 && f->dst >= 0 && f->src < v->n &&
		    f->dst < v->n && f->nhops > r->longest[f->src * v->n +
		    f->dst])
			r->longest[f->src * v->n + f->dst] = f->nhops;
	}
	return 0;
}

int
routers_find(const struct routers *r, const char *a)
{
	int i;

	for (i = 0; a && i < r->n; i++)
		if (strcmp(r->a[i].addr, a) == 0)
			return i;
	return -1;
}

int
routers_group(const struct routers *r, int i)
{
	while (i >= 0 && r->a[i].parent != i)
		i = r->a[i].parent;
	return i;
}

static int
add(struct routers *r, const struct mview *v, const char *a, bool gw)
{
	const char *dev;
	int i = routers_find(r, a);

	if (i >= 0 || a == NULL || routers_host_of(v, a, &dev) >= 0) {
		if (i >= 0 && gw)
			r->a[i].gw = true;
		return i;
	}
	if (r->n == r->cap) {
		int cap = r->cap ? r->cap * 2 : 32;
		struct raddr *na = realloc(r->a, sizeof(*na) * (size_t)cap);

		if (na == NULL)
			return -2;
		r->a = na;
		r->cap = cap;
	}
	memset(&r->a[r->n], 0, sizeof(r->a[0]));
	r->a[r->n].rack = -2;
	r->a[r->n].addr = a;
	r->a[r->n].parent = r->n;
	r->a[r->n].gw = gw;
	return r->n++;
}

/* gateway_of: the group's gateway address index, -1 when it has none. */
static int
gateway_of(const struct routers *r, int g)
{
	int i;

	for (i = 0; i < r->n; i++)
		if (r->a[i].gw && routers_group(r, i) == g)
			return i;
	return -1;
}

/* mate_of: the index of the address at the other end of a's
 * point-to-point link: its /31 mate when a trace saw that, else its /30
 * mate (a /30's .1 and .2), -1 when neither was seen. */
static int
mate_of(const struct routers *r, const char *a)
{
	char m[48];
	int w, j;

	for (w = 0; w < 2; w++)
		if (routers_mate(a, w, m) == 0 && (j = routers_find(r, m)) >= 0)
			return j;
	return -1;
}

/* join: one router, unless that would make two gateways one. */
static void
join(struct routers *r, int x, int y)
{
	int gx = routers_group(r, x), gy = routers_group(r, y), a, b;

	if (x < 0 || y < 0 || gx == gy)
		return;
	a = gateway_of(r, gx);
	b = gateway_of(r, gy);
	if (a >= 0 && b >= 0)
		return;
	if (gx < gy)
		r->a[gy].parent = gx;
	else
		r->a[gx].parent = gy;
}

/* dst_gateway: host d's one gateway on this network, NULL when its flows
 * name none or more than one. */
static const char *
dst_gateway(const struct mflow *fl, int nf, int d)
{
	const char *g = NULL;
	int i;

	for (i = 0; i < nf; i++) {
		if (fl[i].src != d || fl[i].gw == NULL)
			continue;
		if (g && strcmp(g, fl[i].gw) != 0)
			return NULL;
		g = fl[i].gw;
	}
	return g;
}


/* ingress_steps: rule three for group g: every router before it saw one
 * address of it, and those differ; then join each before with the mate of
 * what it saw. */
static void
ingress_steps(struct routers *r, const struct mview *v, int g)
{
	const char *prev[64], *seen[64], *first = NULL;
	int np = 0, i, j, k, differ = 0;
	const struct mflow *f;

	for (i = 0; i < v->nflows + v->nstalled; i++) {
		f = flow_at(v, i);
		if (!routers_whole(r, v, f))
			continue;
		for (k = 1; k < f->nhops; k++) {
			int a = routers_find(r, f->hop[k]);

			if (a < 0 || routers_group(r, a) != g ||
			    routers_find(r, f->hop[k - 1]) < 0)
				continue;
			for (j = 0; j < np && strcmp(prev[j], f->hop[k - 1]);
			    j++)
				;
			if (j == np && np == 64)
				return;
			if (j == np) {
				prev[np] = f->hop[k - 1];
				seen[np++] = f->hop[k];
			} else if (strcmp(seen[j], f->hop[k]) != 0) {
				return;		/* not ingress answers */
			}
			if (first == NULL)
				first = f->hop[k];
			else if (strcmp(first, f->hop[k]) != 0)
				differ = 1;
		}
	}
	for (j = 0; differ && j < np; j++)
		join(r, routers_find(r, prev[j]), mate_of(r, seen[j]));
}

/* racks: each group's rack (struct raddr), from the whole traces. */
static void
racks(struct routers *r, const struct mview *v)
{
	int i, k, g, sg;

	for (i = 0; i < v->nflows; i++) {
		const struct mflow *f = &v->flows[i];

		if (f->gw == NULL || !routers_whole(r, v, f))
			continue;
		sg = routers_group(r, routers_find(r, f->gw));
		for (k = 1; sg >= 0 && k < f->nhops; k++) {
			if ((g = routers_group(r, routers_find(r,
			    f->hop[k]))) < 0 || g == sg)
				continue;
			if (r->a[g].rack == -2)
				r->a[g].rack = sg;
			else if (r->a[g].rack != sg)
				r->a[g].rack = -1;
		}
	}
	/* A router that is some host's gateway is a leaf, whoever sees it. */
	for (i = 0; i < r->n; i++)
		if (r->a[i].gw && (g = routers_group(r, i)) >= 0)
			r->a[g].rack = -1;
}

int
routers_build(struct routers *r, const struct mview *v)
{
	const struct mflow *f;
	int i, k, last, d, *roots;

	memset(r, 0, sizeof(*r));
	if (longest(r, v) == -1)
		return -1;
	for (i = 0; i < v->nflows + v->nstalled; i++) {
		f = flow_at(v, i);
		if (f->gw && add(r, v, f->gw, true) == -2)
			return -1;
		for (k = 0; k < f->nhops; k++)
			if (f->hop[k] && add(r, v, f->hop[k], false) == -2)
				return -1;
	}
	/* Where the MTU probes' large datagrams died: named by the same
	 * groups when the flows' traces saw those routers. */
	for (i = 0; v->mtu_cut_far && v->mtu_cut_near && i < v->n * v->n; i++)
		if (add(r, v, v->mtu_cut_near[i], false) == -2 ||
		    add(r, v, v->mtu_cut_far[i], false) == -2)
			return -1;
	/* Within a whole trace, every hop but the last is a router the
	 * path went on from. */
	for (i = 0; i < v->nflows + v->nstalled; i++) {
		f = flow_at(v, i);
		if (!routers_whole(r, v, f))
			continue;
		for (k = 0; k + 1 < f->nhops; k++)
			if ((last = routers_find(r, f->hop[k])) >= 0)
				r->a[last].mid = true;
	}
	for (i = 0; i < v->nflows + v->nstalled; i++) {
		const char *g;

		f = flow_at(v, i);
		if (f->nhops > 0 && f->hop[0] && f->gw)
			join(r, routers_find(r, f->hop[0]), routers_find(r, f->gw));
		if (f->nhops == 0 || !routers_whole(r, v, f))
			continue;
		d = f->dst;
		g = dst_gateway(v->flows, v->nflows, d);
		last = routers_find(r, f->hop[f->nhops - 1]);
		if (g && last >= 0 && !r->a[last].mid)
			join(r, last, routers_find(r, g));
	}
	roots = malloc(sizeof(int) * ((size_t)r->n + 1));
	if (roots == NULL)
		return -1;
	for (i = 0, k = 0; i < r->n; i++)
		if (routers_group(r, i) == i)
			roots[k++] = i;
	for (i = 0; i < k; i++)
		ingress_steps(r, v, roots[i]);
	free(roots);
	racks(r, v);
	befores(r, v);
	return 0;
}

int
routers_rack(const struct routers *r, int g)
{
	return g >= 0 && r->a[g].rack >= 0 ? r->a[g].rack : -1;
}

void
routers_free(struct routers *r)
{
	free(r->a);
	free(r->longest);
	memset(r, 0, sizeof(*r));
}

/* p2p: address i is one end of a point-to-point link: its mate was seen,
 * and it only ever answered probes that came from one router (an ingress
 * answer names the link the probe arrived by). A loopback, or an answer
 * towards the sender, comes after several: two routers' loopbacks may be
 * mates too. */
static bool
p2p(const struct routers *r, const struct mview *v, int i)
{
	(void)v;
	return !r->a[i].multi && mate_of(r, r->a[i].addr) >= 0;
}

/* loopish: address i names its router, not a link: not a link's end,
 * and its mate, if seen, answers as a router does (two loopbacks), not as
 * a link's end (a leaf answering from its link to another router than the
 * one it is named next to). */
static bool
loopish(const struct routers *r, const struct mview *v, int i)
{
	int m = mate_of(r, r->a[i].addr);

	return !p2p(r, v, i) && (m < 0 || r->a[m].multi);
}

bool
routers_p2p(const struct routers *r, const struct mview *v, const char *a)
{
	int i = routers_find(r, a);

	return i >= 0 && p2p(r, v, i);
}

/* befores: marks the addresses that answered after more than one router. */
static void
befores(struct routers *r, const struct mview *v)
{
	int i, k, a, g, *first = malloc(sizeof(int) * ((size_t)r->n + 1));

	if (first == NULL)
		return;
	for (i = 0; i < r->n; i++)
		first[i] = -1;
	for (i = 0; i < v->nflows + v->nstalled; i++) {
		const struct mflow *f = flow_at(v, i);

		for (k = 1; k < f->nhops; k++) {
			if (f->hop[k] == NULL || f->hop[k - 1] == NULL ||
			    (a = routers_find(r, f->hop[k])) < 0 ||
			    (g = routers_group(r, routers_find(r,
			    f->hop[k - 1]))) < 0)
				continue;
			if (first[a] == -1)
				first[a] = g;
			else if (first[a] != g)
				r->a[a].multi = true;
		}
	}
	free(first);
}

const char *
routers_name(const struct routers *r, const struct mview *v, int g)
{
	const char *best = NULL, *gw = NULL, *any = NULL;
	int i;

	for (i = 0; i < r->n; i++) {
		const char *a = r->a[i].addr;

		if (routers_group(r, i) != g)
			continue;
		if (any == NULL || strcmp(a, any) < 0)
			any = a;
		if (r->a[i].gw) {
			if (gw == NULL || strcmp(a, gw) < 0)
				gw = a;
		} else if (loopish(r, v, i) && (best == NULL ||
		    strcmp(a, best) < 0)) {
			best = a;
		}
	}
	return best ? best : gw ? gw : any;
}

void
routers_link_ends(const struct routers *r, const struct mview *v, int ga,
    int gb, const char **a, const char **b)
{
	int i, j;

	/* Both ends' addresses on the link itself, when both were seen. */
	for (i = 0; i < r->n; i++)
		if (routers_group(r, i) == gb &&
		    (j = mate_of(r, r->a[i].addr)) >= 0 &&
		    routers_group(r, j) == ga) {
			*a = r->a[j].addr;
			*b = r->a[i].addr;
			return;
		}
	*a = routers_name(r, v, ga);
	*b = routers_name(r, v, gb);
}
