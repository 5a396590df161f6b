/* Unit tests for coordinator/verdict/localize.c on synthetic paths of a
 * leaf-spine fabric (3 leaves of 2 hosts, 2 spines, ECMP by source port):
 * one bad link, two bad links, a bad host port, noise on a good link
 * below the threshold, and a link no clean flow can refute. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "cf_unit.h"

#include "verdict/verdict.h"

#define HOSTS 6
#define LEAVES 3
#define SPINES 2
#define SPORTS 4

/* Directed link ids: host -> leaf, leaf -> host, leaf -> spine,
 * spine -> leaf. */
static int
up(int h)
{
	return h;
}

static int
down(int h)
{
	return HOSTS + h;
}

static int
l2s(int l, int s)
{
	return 2 * HOSTS + l * SPINES + s;
}

static int
s2l(int s, int l)
{
	return 2 * HOSTS + LEAVES * SPINES + s * LEAVES + l;
}

#define NLINKS (2 * HOSTS + 2 * LEAVES * SPINES)
#define MAXF (HOSTS * HOSTS * SPORTS)

static struct loc_flow flows[MAXF];
static int paths[MAXF][4];
static int nflows;

/* fabric: every ordered pair, SPORTS flows each; inter-leaf flows hash on
 * the source port to a spine. */
static void
fabric(void)
{
	int a, b, k;

	nflows = 0;
	for (a = 0; a < HOSTS; a++)
		for (b = 0; b < HOSTS; b++)
			for (k = 0; a != b && k < SPORTS; k++) {
				int la = a / 2, lb = b / 2, s = k % SPINES;
				int *p = paths[nflows], n = 0;

				p[n++] = up(a);
				if (la != lb) {
					p[n++] = l2s(la, s);
					p[n++] = s2l(s, lb);
				}
				p[n++] = down(b);
				flows[nflows].links = p;
				flows[nflows].nlinks = n;
				flows[nflows].bad = false;
				nflows++;
			}
}

/* lossy: every flow that crosses link l is bad. */
static void
lossy(int l)
{
	int i, k;

	for (i = 0; i < nflows; i++)
		for (k = 0; k < flows[i].nlinks; k++)
			if (flows[i].links[k] == l)
				flows[i].bad = true;
}

static int
run(struct loc_blame *out, int *unexplained)
{
	return localize_links(flows, nflows, NLINKS, NULL, out, 8, unexplained);
}

static void
test_one_bad_link(void **state)
{
	struct loc_blame b[8];
	int n, u;

	(void)state;
	fabric();
	lossy(l2s(0, 0));
	n = run(b, &u);
	assert_int_equal(n, 1);
	assert_int_equal(b[0].link, l2s(0, 0));
	/* 2 hosts x 4 remote hosts x 2 of the 4 ports on spine 1. */
	assert_int_equal(b[0].explained, 16);
	assert_int_equal(b[0].good, 0);
	assert_int_equal(b[0].twin, -1);
	assert_int_equal(u, 0);
}

static void
test_two_bad_links(void **state)
{
	struct loc_blame b[8];
	int n, u, got[2];

	(void)state;
	fabric();
	lossy(l2s(0, 0));
	lossy(s2l(1, 2));
	n = run(b, &u);
	assert_int_equal(n, 2);
	got[0] = b[0].link;
	got[1] = b[1].link;
	assert_true((got[0] == l2s(0, 0) && got[1] == s2l(1, 2)) ||
	    (got[1] == l2s(0, 0) && got[0] == s2l(1, 2)));
	assert_int_equal(u, 0);
}

/* h2's own uplink: every flow from h2 is bad; the leaf's uplinks carry
 * clean flows from h1 and are refuted. */
static void
test_bad_host_port(void **state)
{
	struct loc_blame b[8];
	int n, u;

	(void)state;
	fabric();
	lossy(up(1));
	n = run(b, &u);
	assert_int_equal(n, 1);
	assert_int_equal(b[0].link, up(1));
	assert_int_equal(b[0].explained, 5 * SPORTS);
	assert_int_equal(b[0].twin, -1);
}

/* One bad flow on a good path (noise below the threshold) besides a bad
 * link: only the bad link is named, the noise stays unexplained. */
static void
test_noise(void **state)
{
	struct loc_blame b[8];
	int n, u, i;

	(void)state;
	fabric();
	lossy(s2l(1, 1));
	for (i = 0; i < nflows; i++)
		if (!flows[i].bad && flows[i].nlinks == 4) {
			flows[i].bad = true;	/* one unlucky flow */
			break;
		}
	n = run(b, &u);
	assert_int_equal(n, 1);
	assert_int_equal(b[0].link, s2l(1, 1));
	assert_int_equal(u, 1);
}

/* Three unlucky flows that share a path (h5 to leaf 1 over spine 2)
 * among many clean flows on the same links: every link they share is
 * refuted by the clean flows, so nothing is named for them. */
static void
test_noise_refuted(void **state)
{
	struct loc_blame b[8];
	int n, u, i, m = 0;

	(void)state;
	fabric();
	for (i = 0; i < nflows && m < 3; i++)
		if (flows[i].links[0] == up(4) && flows[i].nlinks == 4 &&
		    flows[i].links[1] == l2s(2, 1) && flows[i].links[2] ==
		    s2l(1, 0)) {
			flows[i].bad = true;
			m++;
		}
	assert_int_equal(m, 3);
	n = run(b, &u);
	assert_int_equal(n, 0);
	assert_int_equal(u, 3);
}

/* Only h1 -> h3 measured: its flows on spine 1 are bad, those on spine 2
 * clean. l1 -> s1 and s1 -> l2 carry the same bad flows and no clean
 * one: the localizer names one with the other as its twin. */
static void
test_no_flow_refutes(void **state)
{
	struct loc_blame b[8];
	int n, u;

	(void)state;
	fabric();
	lossy(l2s(0, 0));
	/* Keep only h1 -> h3. */
	{
		int i, m = 0;

		for (i = 0; i < nflows; i++)
			if (flows[i].links[0] == up(0) && flows[i].nlinks == 4 &&
			    flows[i].links[3] == down(2)) {
				flows[m] = flows[i];
				m++;
			}
		nflows = m;
	}
	n = run(b, &u);
	assert_int_equal(n, 1);
	assert_int_equal(b[0].good, 0);
	assert_true((b[0].link == l2s(0, 0) && b[0].twin == s2l(0, 1)) ||
	    (b[0].link == s2l(0, 1) && b[0].twin == l2s(0, 0)));
	assert_int_equal(u, 0);
}

/* A healthy fabric names nothing. */
static void
test_healthy(void **state)
{
	struct loc_blame b[8];
	int u;

	(void)state;
	fabric();
	assert_int_equal(run(b, &u), 0);
	assert_int_equal(u, 0);
}

CF_UNIT_MAIN(NULL, NULL,
    cmocka_unit_test(test_one_bad_link), cmocka_unit_test(test_two_bad_links),
    cmocka_unit_test(test_bad_host_port), cmocka_unit_test(test_noise),
    cmocka_unit_test(test_noise_refuted),
    cmocka_unit_test(test_no_flow_refutes), cmocka_unit_test(test_healthy))
