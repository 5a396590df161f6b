/* Unit tests for coordinator/verdict/links.c on a synthetic traced
 * leaf-spine (3 racks of 2 hosts, 2 spines, /31 fabric links, routers
 * answering from their ingress address, or their loopback, or the address
 * towards the sender): a lossy link is one lossy_link
 * with its two ends, whichever way it loses; two lossy links are two; a
 * hole in a trace does not leave a pair finding behind; without traces
 * the loss stays where the older checks put it. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "cf_unit.h"

#include "verdict/verdict.h"

#define N 6
#define STREAMS 4
#define NF (N * (N - 1) * STREAMS)
static const char *const names[N] = { "h1", "h2", "h3", "h4", "h5", "h6" };
static const int rack[N] = { 0, 0, 1, 1, 2, 2 };
static double bw[N * N], rpg[N * N], bytes_dir[N * N];
static struct mflow flows[NF];
static int nflows;
static char strs[64][32];
static int nstrs;
static struct profile prof;
/* MTU: per direction, what the MTU probe found and where its large
 * datagrams died (mtu_on: the view has them); lost cells and their
 * flows. */
static double mconf[N * N], mpath[N * N], mnext[N * N];
static const char *cut_near[N * N], *cut_far[N * N];
static int mtu_on, lostc[N * N];
static struct mflow stalled[NF];
static int nstalled;

static const char *
str(const char *fmt, ...)
{
	char b[32];
	va_list ap;
	int i;

	va_start(ap, fmt);
	vsnprintf(b, sizeof(b), fmt, ap);
	va_end(ap);
	for (i = 0; i < nstrs; i++)
		if (strcmp(strs[i], b) == 0)
			return strs[i];
	snprintf(strs[nstrs], sizeof(strs[0]), "%s", b);
	return strs[nstrs++];
}

/* The /31 of leaf l and spine s: the spine holds .2k, the leaf .2k+1. */
static const char *
spine_end(int l, int s)
{
	return str("10.0.200.%d", 2 * (l * 2 + s));
}

static const char *
leaf_end(int l, int s)
{
	return str("10.0.200.%d", 2 * (l * 2 + s) + 1);
}

/* lossy: which directed links lose: [leaf][spine][0] leaf->spine,
 * [1] spine->leaf. */
static int lossy[3][2][2];
/* slow: the same for links that carry their flows at a fifth of the rate
 * (a port negotiated down, a policer). */
static int slow[3][2][2];
/* rx_loss: a host whose port drops what it receives (every flow into
 * it loses, whatever path it took). */
static int rx_loss[N];
/* pin: flows into a host hashed onto spine pin[b] - 1 (0: the hash),
 * but for one flow that takes the other spine. */
static int pin[N];
/* The links the run's other network named (mview.other_links). */
static const char *const *others;
static int nothers;
/* shaped: a host's port shaped to a fifth: its flows, both ways, slow. */
static int shaped[N];
/* thin: flows into host b are a retest's many streams, each at an eighth
 * of the port: through a slow link they fit and are not slowed. */
static int thin[N];
/* pinx: into host b, one more flow takes the other spine: host
 * pinx[b] - 1's first (0: none). lost: what a bad flow loses. */
static int pinx[N], lost_bad;
/* How the routers answer a probe whose TTL ran out: from the address it
 * arrived on, from the one towards the sender (a leaf's way back is
 * hashed apart from the way the probe came), from their loopback (the
 * first router answers its own rack from the gateway: a connected
 * route's source). */
enum { ANS_INGRESS, ANS_EGRESS, ANS_LOOPBACK };
static int answer;

/* build: every ordered pair's STREAMS flows, spread over the spines by a
 * fixed hash, each losing 1000 retransmits per GB if its path crosses a
 * lossy link. */
static void
build(void)
{
	int a, b, k, i;

	nflows = 0;
	memset(rpg, 0, sizeof(rpg));
	memset(bytes_dir, 0, sizeof(bytes_dir));
	for (a = 0; a < N; a++)
		for (b = 0; b < N; b++)
			for (k = 0; a != b && k < STREAMS; k++) {
				struct mflow *f = &flows[nflows++];
				int s = (a * 7 + b * 3 + k) & 1;

				if (pin[b])
					s = (pin[b] - 1) ^ ((a == 0 && k == 0) ||
					    (pinx[b] && a == pinx[b] - 1 && k == 0));
				int la = rack[a], lb = rack[b], bad = 0, sl = 0;

				memset(f, 0, sizeof(*f));
				f->src = a;
				f->dst = b;
				f->bytes = 1e8;
				f->dev = "clu";
				f->src_addr = f->egress_addr = str("10.0.%d.%d",
				    la, 10 + a);
				f->dst_addr = str("10.0.%d.%d", lb, 10 + b);
				if (la != lb) {
					f->gw = str("10.0.%d.1", la);
					f->hop[0] = f->gw;
					f->hop[1] = answer == ANS_LOOPBACK ?
					    str("10.0.251.%d", s) : spine_end(la, s);
					f->hop[2] = answer == ANS_LOOPBACK ?
					    str("10.0.250.%d", lb) :
					    answer == ANS_EGRESS ? leaf_end(lb,
					    (a * 5 + b * 3 + k * 11 + 1) % 3 & 1) :
					    leaf_end(lb, s);
					f->nhops = 3;
					bad = lossy[la][s][0] || lossy[lb][s][1];
					sl = slow[la][s][0] || slow[lb][s][1];
				}
				bad |= rx_loss[b];
				f->dir_flows = thin[b] ? 8 : STREAMS;
				sl |= shaped[a] || shaped[b];
				f->bps = thin[b] ? 1.25e8 : sl ? 5e7 : 2.5e8;
				f->lost = bad ? lost_bad : 0;
				rpg[a * N + b] += f->lost;
				bytes_dir[a * N + b] += f->bytes;
			}
	for (i = 0; i < N * N; i++) {
		rpg[i] = i / N == i % N ? NAN : rpg[i] / (bytes_dir[i] / 1e9);
		bw[i] = i / N == i % N ? NAN : 0.95;
	}
}

static void
healthy(void)
{
	mtu_on = 0;
	nstalled = 0;
	memset(lostc, 0, sizeof(lostc));
	profile_defaults(&prof);
	prof.line_gbps = 1;
	prof.min_pct = 70;
	prof.max_rpg = 300;
	memset(lossy, 0, sizeof(lossy));
	memset(slow, 0, sizeof(slow));
	memset(rx_loss, 0, sizeof(rx_loss));
	memset(pin, 0, sizeof(pin));
	memset(pinx, 0, sizeof(pinx));
	memset(thin, 0, sizeof(thin));
	memset(shaped, 0, sizeof(shaped));
	others = NULL;
	nothers = 0;
	lost_bad = 100;
	answer = ANS_INGRESS;
}

/* run: the error findings as "kind|ends|direction" lines, sorted. */
static char *
run(bool traced, int *errors)
{
	struct mview v = { .net = "cluster", .n = N, .names = names,
	    .rack = rack, .gbps = bw, .rpg = rpg, .flows = traced ? flows :
	    NULL, .nflows = traced ? nflows : 0, .other_links = others,
	    .nother = nothers };

	if (mtu_on) {
		v.mtu_conf = mconf;
		v.mtu_path = mpath;
		v.mtu_next = mnext;
		v.mtu_cut_near = cut_near;
		v.mtu_cut_far = cut_far;
		v.lost = lostc;
		v.stalled = stalled;
		v.nstalled = nstalled;
	}
	cJSON *out = cJSON_CreateArray(), *f, *e;
	char lines[32][128], *s = calloc(1, 4096);
	int n = 0, i, k;

	*errors = findings_compute(&v, &prof, out);
	cJSON_ArrayForEach(f, out) {
		const cJSON *l = cJSON_GetObjectItem(f, "location");
		size_t off;

		if (strcmp(cJSON_GetObjectItem(f, "severity")->valuestring,
		    "error") != 0 || n == 32)
			continue;
		off = (size_t)snprintf(lines[n], 128, "%s|",
		    cJSON_GetObjectItem(f, "kind")->valuestring);
		cJSON_ArrayForEach(e, cJSON_GetObjectItem(l, "ends"))
			off += (size_t)snprintf(lines[n] + off, 128 - off,
			    "%s,", e->valuestring);
		if (cJSON_GetObjectItem(l, "direction"))
			snprintf(lines[n] + off, 128 - off, "|%s",
			    cJSON_GetObjectItem(l, "direction")->valuestring);
		n++;
	}
	for (i = 0; i < n; i++)
		for (k = i + 1; k < n; k++)
			if (strcmp(lines[k], lines[i]) < 0) {
				char t[128];

				memcpy(t, lines[i], 128);
				memcpy(lines[i], lines[k], 128);
				memcpy(lines[k], t, 128);
			}
	for (i = 0; i < n; i++)
		snprintf(s + strlen(s), 4096 - strlen(s), "%s%s", i ? " " :
		    "", lines[i]);
	cJSON_Delete(out);
	return s;
}

/* expect: the view as it stands (built and edited) gives want. */
static void
expect(const char *want, int nerr)
{
	int errors;
	char *got = run(true, &errors);

	assert_string_equal(got, want);
	assert_int_equal(errors, nerr);
	free(got);
}

/* cells_across: the cells between rack rk and the other racks, but
 * host skip's, ran at g Gbit/s (a shaped link's pairs). */
static void
cells_across(int rk, int skip, double g)
{
	int i;

	for (i = 0; i < N * N; i++)
		if (i / N != i % N && rack[i / N] != rack[i % N] &&
		    (rack[i / N] == rk || rack[i % N] == rk) &&
		    i / N != skip && i % N != skip)
			bw[i] = g;
}

static void
check(bool traced, const char *want, int nerr)
{
	int errors;
	char *got;

	build();
	got = run(traced, &errors);
	assert_string_equal(got, want);
	assert_int_equal(errors, nerr);
	free(got);
}

static void
test_link_both_ways(void **state)
{
	(void)state;
	healthy();
	lossy[0][0][0] = lossy[0][0][1] = 1;	/* l1-s1 */
	check(true, "lossy_link|10.0.200.0,10.0.200.1,|both", 1);
}

static void
test_link_one_way(void **state)
{
	(void)state;
	healthy();
	lossy[1][0][1] = 1;			/* s1 -> l2 only */
	check(true, "lossy_link|10.0.200.4,10.0.200.5,|one way", 1);
}

static void
test_two_links(void **state)
{
	(void)state;
	healthy();
	lossy[0][0][0] = lossy[0][0][1] = 1;	/* l1-s1 */
	lossy[2][1][0] = lossy[2][1][1] = 1;	/* l3-s2 */
	check(true, "lossy_link|10.0.200.0,10.0.200.1,|both "
	    "lossy_link|10.0.200.10,10.0.200.11,|both", 2);
}

/* Routers that answer from their loopback: every address names a
 * router, and a link is the two routers around it, both ways or one;
 * two leaves' loopbacks that happen to be mates of one /31 are not a
 * link. */
static void
test_loopback_routers(void **state)
{
	(void)state;
	healthy();
	answer = ANS_LOOPBACK;
	lossy[0][0][0] = lossy[0][0][1] = 1;	/* l1-s1 */
	check(true, "lossy_link|10.0.250.0,10.0.251.0,|both", 1);
	healthy();
	answer = ANS_LOOPBACK;
	lossy[1][0][1] = 1;			/* s1 -> l2 only */
	check(true, "lossy_link|10.0.251.0,10.0.250.1,|one way", 1);
	healthy();
	answer = ANS_LOOPBACK;
	lossy[0][0][0] = lossy[0][0][1] = 1;	/* l1-s1 */
	lossy[2][1][0] = lossy[2][1][1] = 1;	/* l3-s2 */
	check(true, "lossy_link|10.0.250.0,10.0.251.0,|both "
	    "lossy_link|10.0.250.2,10.0.251.1,|both", 2);
}

/* Routers that answer from the address towards the sender: a leaf's
 * answer says nothing of the spine the probe came from, yet a leaf's
 * link up to a spine is still named by its two addresses (the spine's
 * answer is its end of that link, and the leaf's end was seen as an
 * answer of the leaf), and the leaf's answers join no two spines. A
 * spine answers each rack from its own side, so a spine's link down to
 * a leaf is one piece per rack that sent through it: one finding, one
 * way or (with the leaf's link up) both. */
static void
test_egress_routers(void **state)
{
	(void)state;
	healthy();
	answer = ANS_EGRESS;
	lossy[1][1][0] = 1;			/* l2 -> s2 only */
	check(true, "lossy_link|10.0.200.7,10.0.200.6,|one way", 1);
	healthy();
	answer = ANS_EGRESS;
	lossy[1][1][1] = 1;			/* s2 -> l2 only */
	check(true, "lossy_link|10.0.200.2,10.0.1.1,|one way", 1);
	healthy();
	answer = ANS_EGRESS;
	lossy[1][1][0] = lossy[1][1][1] = 1;	/* l2-s2 */
	check(true, "lossy_link|10.0.200.6,10.0.200.7,|both", 1);
	/* Into rack 2, s2 carries h1's first flows and one flow of h5's:
	 * rack 3's piece of s2 -> l2 has one bad flow, too few to name on
	 * its own, and it joins rack 1's: no pair is left to h5 -> h3. */
	healthy();
	answer = ANS_EGRESS;
	lost_bad = 400;
	lossy[1][1][1] = 1;			/* s2 -> l2 only */
	pin[2] = pin[3] = 1;
	pinx[2] = 5;
	check(true, "lossy_link|10.0.200.2,10.0.1.1,|one way", 1);
}

/* A shaped link drops what it cannot carry: its flows are lossy and slow.
 * It is one slow_link (slow first), not a lossy_link; a host's port
 * shaped so is a slow_host. */
static void
test_shaper_drops(void **state)
{
	(void)state;
	healthy();
	lossy[0][0][0] = lossy[0][0][1] = 1;	/* l1-s1 */
	slow[0][0][0] = slow[0][0][1] = 1;
	check(true, "slow_link|10.0.200.0,10.0.200.1,|both", 1);
}

/* A lost probe leaves a hole in one bad flow's trace, another one's path
 * cut short: the link is still named once and no pair is left over. */
static void
test_holes(void **state)
{
	int i, holes = 0;

	(void)state;
	healthy();
	lossy[0][0][0] = lossy[0][0][1] = 1;
	build();
	for (i = 0; i < nflows && holes < 2; i++)
		if (flows[i].lost > 0) {
			if (holes++ == 0)
				flows[i].hop[1] = NULL;
			else
				flows[i].nhops = 2;
		}
	expect("lossy_link|10.0.200.0,10.0.200.1,|both", 1);
}

/* A direction most of whose loss the link explains keeps no pair
 * finding for a flow elsewhere that lost a little: what the link does not
 * explain is within the limit over the direction's bytes. */
static void
test_residual(void **state)
{
	int i, k, d = -1;

	(void)state;
	healthy();
	lossy[0][0][0] = lossy[0][0][1] = 1;
	build();
	for (i = 0; i < nflows && d < 0; i++)
		for (k = 0; flows[i].lost > 0 && k < nflows; k++)
			if (flows[k].src == flows[i].src && flows[k].dst ==
			    flows[i].dst && flows[k].lost == 0) {
				d = k;
				break;
			}
	assert_true(d >= 0);
	flows[d].lost = 60;	/* 600 per GB alone, 150 over its way */
	rpg[flows[d].src * N + flows[d].dst] += 60 /
	    (bytes_dir[flows[d].src * N + flows[d].dst] / 1e9);
	expect("lossy_link|10.0.200.0,10.0.200.1,|both", 1);
}

/* Without traces nothing names a link: the loss stays pair (or host)
 * findings, as before. */
static void
test_untraced(void **state)
{
	int errors;
	char *got;

	(void)state;
	healthy();
	lossy[0][0][0] = lossy[0][0][1] = 1;
	build();
	got = run(false, &errors);
	assert_null(strstr(got, "lossy_link"));
	assert_true(errors >= 1);
	free(got);
}

/* One unlucky flow on a good link names nothing: a link needs two bad
 * flows, and its flows together over the limit. */
static void
test_one_flow_noise(void **state)
{
	int i;

	(void)state;
	healthy();
	build();
	for (i = 0; i < nflows && flows[i].nhops == 0; i++)
		;
	flows[i].lost = 100;
	rpg[flows[i].src * N + flows[i].dst] = 250;
	expect("", 0);
}

/* A lossy link that ECMP gave one flow of this network: alone, one bad
 * flow names no link (a pair finding); when the run's other network
 * named that link, the flow names it here too (the lab's case: the
 * cluster network's lossy_link s1 -> l3, and on the public network one
 * flow through it and a lossy_pair). */
static void
test_one_flow_link_named_elsewhere(void **state)
{
	static const char *const named[] = { "10.0.200.1 10.0.200.0" };
	int i, k;

	(void)state;
	healthy();
	build();
	for (i = 0; i < nflows && !(flows[i].nhops == 3 &&
	    flows[i].hop[1] == spine_end(0, 0)); i++)
		;
	assert_true(i < nflows);	/* l1 -> s1, from rack 1 */
	/* ECMP put this network's other flows from rack 1 on s2. */
	for (k = i + 1; k < nflows; k++)
		if (flows[k].nhops == 3 && flows[k].hop[1] == spine_end(0, 0)) {
			flows[k].hop[1] = spine_end(0, 1);
			flows[k].hop[2] = leaf_end(rack[flows[k].dst], 1);
		}
	flows[i].lost = 100;
	rpg[flows[i].src * N + flows[i].dst] = 1000;
	expect("lossy_pair|", 1);
	others = named;
	nothers = 1;
	expect("lossy_link|10.0.200.1,10.0.200.0,|one way", 1);
}

/* A lossy link into a leaf silences the leaf's answers to the flows it
 * drops from (in the lab, under Linux's ICMP rate limit): h1 -> h3's bad
 * flows' traces end at s1, one hop before h3's leaf. Their one leaf is
 * where they went on to, so the link explains them too, and no pair is
 * left beside it. */
static void
test_tail_cut_short(void **state)
{
	int i, cut = 0;

	(void)state;
	healthy();
	lossy[1][0][1] = 1;			/* s1 -> l2 */
	build();
	for (i = 0; i < nflows; i++)
		if (flows[i].src == 0 && flows[i].dst == 2 && flows[i].lost) {
			flows[i].nhops = 2;
			cut++;
		}
	assert_true(cut >= 2);
	expect("lossy_link|10.0.200.4,10.0.200.5,|one way", 1);
}

/* Two racks only: every flow through l1-s1 goes on through s1-l2, so the
 * two links are twins: named once, both ways, with the other as "or". */
static void
test_two_racks_twins(void **state)
{
	struct mview v = { .net = "cluster", .n = 4, .names = names,
	    .rack = rack, .gbps = bw, .rpg = rpg, .flows = flows };
	double bw4[16], rpg4[16];
	cJSON *out = cJSON_CreateArray(), *f;
	int i, k = 0, errors;

	(void)state;
	healthy();
	lossy[0][0][0] = lossy[0][0][1] = 1;
	build();
	for (i = 0; i < nflows; i++)
		if (flows[i].src < 4 && flows[i].dst < 4)
			flows[k++] = flows[i];
	for (i = 0; i < 16; i++) {
		bw4[i] = bw[(i / 4) * N + i % 4];
		rpg4[i] = rpg[(i / 4) * N + i % 4];
	}
	v.nflows = k;
	v.gbps = bw4;
	v.rpg = rpg4;
	errors = findings_compute(&v, &prof, out);
	assert_int_equal(errors, 1);
	f = cJSON_GetArrayItem(out, 0);
	assert_string_equal(cJSON_GetObjectItem(f, "kind")->valuestring,
	    "lossy_link");
	f = cJSON_GetObjectItem(f, "location");
	assert_string_equal(cJSON_GetObjectItem(f, "link")->valuestring,
	    "10.0.200.0 <-> 10.0.200.1");
	assert_string_equal(cJSON_GetObjectItem(f, "or")->valuestring,
	    "10.0.200.4 <-> 10.0.200.5");
	cJSON_Delete(out);
}

/* A link at a fifth of the rate: one slow_link, both ways, and its
 * pairs are not each slow (their cells below the floor). */
static void
test_slow_link(void **state)
{
	(void)state;
	healthy();
	slow[0][0][0] = slow[0][0][1] = 1;	/* l1-s1 */
	build();
	cells_across(0, -1, 0.6);	/* half its flows slow: under 0.7 */
	expect("slow_link|10.0.200.0,10.0.200.1,|both", 1);
}

/* A link shaped to a fifth of a port, and a retest's eight streams into
 * h1 crossing it at an eighth each: they fit through and are not slowed,
 * which says nothing for the link; the link is still named (in the lab,
 * such flows refuted a shaped link on the public network while it was
 * named on the cluster's, and left a lossy pair). */
static void
test_slow_link_thin_flows(void **state)
{
	(void)state;
	healthy();
	slow[0][0][0] = slow[0][0][1] = 1;	/* l1-s1 */
	thin[0] = 1;
	build();
	cells_across(0, 0, 0.6);
	expect("slow_link|10.0.200.0,10.0.200.1,|both", 1);
}

/* One fault must not hide another: l2-s2 shaped and h1's port shaped in
 * one run (the case: the link was missed beside the host). The
 * host's flows are slow on every path; the link's flows from the other
 * hosts are slow only through it. */
static void
test_slow_link_beside_slow_host(void **state)
{
	int i;

	(void)state;
	healthy();
	slow[1][1][0] = slow[1][1][1] = 1;	/* l2-s2 */
	shaped[0] = 1;				/* h1 */
	build();
	cells_across(1, 0, 0.6);
	for (i = 0; i < N * N; i++)
		if (i / N != i % N && (i / N == 0 || i % N == 0))
			bw[i] = 0.2;
	expect("slow_host| slow_link|10.0.200.6,10.0.200.7,|both", 2);
}

/* mtu_fabric: s1's end of l1-s1 at 1500 while everything else takes
 * 9000. Each direction's MTU probe hashes onto a spine of its own; those
 * through l1 -> s1 die silently at s1 (the trace's large probes answered
 * by l1 only), those through s1 -> l1 are refused by s1 ("fragmentation
 * needed", answered by s1 too). TCP flows through l1 -> s1 stall. */
static void
mtu_fabric(void)
{
	int a, b, i;

	build();
	mtu_on = 1;
	for (i = 0; i < N * N; i++) {
		mconf[i] = mpath[i] = i / N == i % N ? NAN : 9000;
		mnext[i] = NAN;
		cut_near[i] = cut_far[i] = NULL;
	}
	for (a = 0; a < N; a++)
		for (b = 0; b < N; b++) {
			int la = rack[a], lb = rack[b], s = (a * 5 + b) & 1;

			if (la == lb || s != 0 || (la != 0 && lb != 0))
				continue;
			mpath[a * N + b] = la == 0 ? 1504 : 1500;
			cut_near[a * N + b] = la == 0 ? str("10.0.0.1") :
			    answer == ANS_LOOPBACK ? str("10.0.251.0") :
			    spine_end(la, 0);
			cut_far[a * N + b] = answer == ANS_LOOPBACK ? (la == 0 ?
			    str("10.0.251.0") : str("10.0.250.0")) : la == 0 ?
			    spine_end(0, 0) : leaf_end(0, 0);
			if (la != 0)
				mnext[a * N + b] = 1500;
		}
	for (i = 0; i < nflows; i++)
		if (flows[i].nhops == 3 && (flows[i].hop[1] == spine_end(0, 0) ||
		    (answer == ANS_LOOPBACK && rack[flows[i].src] == 0 &&
		    flows[i].hop[1] == str("10.0.251.0")))) {
			flows[i].bytes = 1e5;	/* stalled after a window */
			flows[i].lost = 40;
			flows[i].bps = 1e5;
		}
}

/* The link both ways is one mtu_link; its stalled flows are not also a
 * lossy or slow link, and no host or pair MTU finding is left. */
static void
test_mtu_link(void **state)
{

	(void)state;
	healthy();
	mtu_fabric();
	expect("mtu_link|10.0.200.0,10.0.200.1,|both", 1);
}

/* The same with routers that answer from their loopback: one mtu_link
 * between the two routers, both ways. */
static void
test_mtu_link_loopback(void **state)
{

	(void)state;
	healthy();
	answer = ANS_LOOPBACK;
	mtu_fabric();
	expect("mtu_link|10.0.250.0,10.0.251.0,|both", 1);
}

/* A cell whose every flow stalled on the link failed (lost): the link
 * explains it, not an 'unreachable' pair. A direction whose large probes
 * died at the sender's own port (no router saw them) names no fabric
 * link: it stays the MTU finding it was. */
static void
test_mtu_link_stalled_cell(void **state)
{
	int i, a = -1, b = -1, errors;
	char *got;

	(void)state;
	healthy();
	mtu_fabric();
	for (i = 0; i < nflows && a < 0; i++)
		if (flows[i].nhops == 3 && flows[i].hop[1] == spine_end(0, 0) &&
		    isfinite(mpath[flows[i].src * N + flows[i].dst]) &&
		    mpath[flows[i].src * N + flows[i].dst] == 9000) {
			a = flows[i].src;
			b = flows[i].dst;
		}
	assert_true(a >= 0);
	/* The whole cell a <-> b failed: its flows are the stalled ones. */
	for (i = 0; i < nflows; i++)
		if ((flows[i].src == a && flows[i].dst == b) ||
		    (flows[i].src == b && flows[i].dst == a)) {
			stalled[nstalled++] = flows[i];
			flows[i--] = flows[--nflows];
		}
	lostc[a * N + b] = lostc[b * N + a] = 1;
	bw[a * N + b] = bw[b * N + a] = NAN;
	rpg[a * N + b] = rpg[b * N + a] = NAN;
	expect("mtu_link|10.0.200.0,10.0.200.1,|both", 1);
	/* Without the stalled flows' paths the failed cell is unexplained. */
	nstalled = 0;
	got = run(true, &errors);
	assert_non_null(strstr(got, "unreachable"));
	free(got);
}

/* Large probes that no router saw (the sender's port, or the switch
 * port facing it): no cut, so no fabric link: h1's port. */
static void
test_mtu_host_port_not_a_link(void **state)
{
	int i;

	(void)state;
	healthy();
	build();
	mtu_on = 1;
	for (i = 0; i < N * N; i++) {
		mconf[i] = i / N == i % N ? NAN : 9000;
		mpath[i] = i / N == i % N ? NAN : (i / N == 0 || i % N == 0) ?
		    1500 : 9000;
		mnext[i] = NAN;
		cut_near[i] = cut_far[i] = NULL;
	}
	expect("mtu_blackhole|", 1);
}

/* A host port that drops what it receives: every flow into h3 loses,
 * from its own rack and across the fabric. One fault, one finding at the
 * host; not also a one-way link from a spine into h3's leaf, whose flows
 * the host explains (seen in the lab: "13 of the flows through it lost
 * packets, 1 crossed it cleanly"). */
static void
test_host_rx_loss_not_a_link(void **state)
{
	(void)state;
	healthy();
	rx_loss[2] = 1;
	check(true, "lossy_host|", 1);
	/* The lab's case: h4's flows (h3's rack-mate, clean) hashed onto
	 * the other spine but one, so that s1 -> l2 carries 13 bad flows
	 * into h3 and one clean one into h4. */
	pin[3] = 2;
	check(true, "lossy_host|", 1);
	/* Three spines' case (the lab's, egress answers): h3's flows on
	 * s1 but one, h4's on s2 but one: s1 -> l2 carries 15 bad flows and
	 * one clean, too few clean ones to refute it. The port's receiving
	 * way, that every flow into h3 crossed and none out of it, is the
	 * fault; the flows out of h3 (clean) say nothing against it. */
	pin[2] = 1;
	check(true, "lossy_host|", 1);
}

CF_UNIT_MAIN(NULL, NULL,
    cmocka_unit_test(test_host_rx_loss_not_a_link),
    cmocka_unit_test(test_slow_link_thin_flows),
    cmocka_unit_test(test_slow_link_beside_slow_host),
    cmocka_unit_test(test_one_flow_link_named_elsewhere),
    cmocka_unit_test(test_tail_cut_short),
    cmocka_unit_test(test_mtu_link),
    cmocka_unit_test(test_mtu_link_loopback),
    cmocka_unit_test(test_mtu_link_stalled_cell),
    cmocka_unit_test(test_mtu_host_port_not_a_link),
    cmocka_unit_test(test_slow_link),
    cmocka_unit_test(test_two_racks_twins),
    cmocka_unit_test(test_link_both_ways),
    cmocka_unit_test(test_link_one_way),
    cmocka_unit_test(test_two_links),
    cmocka_unit_test(test_loopback_routers),
    cmocka_unit_test(test_shaper_drops),
    cmocka_unit_test(test_egress_routers),
    cmocka_unit_test(test_holes),
    cmocka_unit_test(test_residual),
    cmocka_unit_test(test_untraced),
    cmocka_unit_test(test_one_flow_noise))
