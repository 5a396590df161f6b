/* links_int: what links.c (the lossy and slow links) and links_frag.c
 * (one link seen as pieces, one per rack) share. */
#ifndef CF_LINKS_INT_H
#define CF_LINKS_INT_H

#include "verdict/verdict_int.h"

#define KEYLEN 160
#define LINKS_NAMED 8		/* links named per network at most */

struct ltab {
	char (*key)[KEYLEN];
	int n, cap;
};

/* What one pass localizes: lost packets (lossy_link), or a low rate
 * (slow_link). ref is the fabric's yardstick: the upper quartile over the
 * fabric's flows of a flow's rate times its direction's flows (what a
 * direction carries when its flows run alike), bits/s; the loss pass
 * calls a lossy link whose flows ran under half of it slow. */
struct lpass {
	struct fctx *c;
	const struct routers *r;
	bool rate;
	double ref;
	/* Links the loss pass named, both ways (keys): a lossy link is slow
	 * too, and said once. */
	char (*covered)[KEYLEN];
	int ncov;
	/* Per link of the pass's table: named on another network of the
	 * run (mview.other_links), so one bad flow names it here. */
	unsigned char *prior;
};

/* A flow's links, as ids into the table. */
struct lflow {
	int link[MFLOW_HOPS + 2];
	int n;
	int state;		/* 1 bad, 0 clean, -1 not judged */
};

/* A named link as a finding shows it: a host's port (host, interface),
 * one direction of a link (near end, far end) or both (sorted ends). */
struct lname {
	char kind;			/* 'P', 'R' or 'L' */
	char way;			/* a port's: 'P' sends, 'Q' receives,
					   0 both */
	char a[KEYLEN], b[KEYLEN];
	char text[2 * KEYLEN + 8];
};

/* A finding's links: one blame, a link's two directions' blames, or the
 * pieces (frag) of one link between a leaf and a router that answers each
 * rack from its own side: seen from each rack as another router, the
 * link is one piece per rack (links_frag_join). */
struct named {
	const struct loc_blame *b[LINKS_NAMED];
	int nb;
	int link[LINKS_NAMED];
	bool frag, up, down;	/* pieces; from the leaf, to the leaf */
};

void links_frag_text(const struct lpass *, const struct ltab *,
    const struct named *, struct lname *);
void links_frag_join(const struct lpass *, const struct ltab *,
    struct loc_blame *, int, int, bool *, struct named *,
    const struct lflow *, struct loc_blame *);

#endif
