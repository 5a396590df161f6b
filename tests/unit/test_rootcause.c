/* Unit tests for coordinator/verdict/rootcause.c on synthetic matrices:
 * each fault wider than a pair is one finding where it is (a host's port,
 * a host's filter, a dead host, a lossy host, the fabric's rate), several
 * faults at once are each found once, and what only a pair shows stays a
 * pair finding. */
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
static const char *const names[N] = { "h1", "h2", "h3", "h4", "h5", "h6" };
static double bw[N * N], rpg[N * N], mc[N * N], mp[N * N], p99[N * N];
static double late[N], drops[N];
static int lost[N * N], pbad[N * N];
static const char *pwhat[N * N], *why[N * N];
static struct profile prof;

static void
healthy(void)
{
	int i;

	profile_defaults(&prof);
	for (i = 0; i < N; i++) {
		late[i] = 40;
		drops[i] = 0;
	}
	prof.line_gbps = 1;
	prof.min_pct = 70;
	prof.max_rpg = 100;
	for (i = 0; i < N * N; i++) {
		int self = i / N == i % N;

		bw[i] = self ? NAN : 0.93 + 0.01 * (i % 5);
		rpg[i] = self ? NAN : (i % 3);
		mc[i] = mp[i] = self ? NAN : 9000;
		p99[i] = self ? NAN : 150 + 10 * (i % 4);
		lost[i] = pbad[i] = 0;
		pwhat[i] = why[i] = NULL;
	}
}

/* run: the findings as "kind|hosts" lines, sorted, space-separated (the
 * caller frees); *errors their error count. */
static char *
run(int *errors, cJSON **keep)
{
	struct mview v = { .net = "cluster", .n = N, .names = names,
	    .gbps = bw, .rpg = rpg, .mtu_conf = mc, .mtu_path = mp,
	    .lost = lost, .lost_why = why, .ports_bad = pbad,
	    .ports_what = pwhat, .p99 = p99, .host_late_us = late,
	    .host_drops = drops };
	cJSON *out = cJSON_CreateArray(), *f, *h;
	char lines[32][128], *s = calloc(1, 4096);
	int n = 0, i, k;

	*errors = findings_compute(&v, &prof, out);
	cJSON_ArrayForEach(f, out) {
		size_t off;

		assert_true(n < 32);
		off = (size_t)snprintf(lines[n], 128, "%s|",
		    cJSON_GetObjectItem(f, "kind")->valuestring);
		k = 0;
		cJSON_ArrayForEach(h, cJSON_GetObjectItem(f, "hosts"))
			off += (size_t)snprintf(lines[n] + off, 128 - off,
			    "%s%s", k++ ? "," : "", h->valuestring);
		n++;
	}
	qsort(lines, (size_t)n, sizeof(lines[0]),
	    (int (*)(const void *, const void *))strcmp);
	for (i = 0; i < n; i++)
		snprintf(s + strlen(s), 4096 - strlen(s), "%s%s", i ? " " : "",
		    lines[i]);
	if (keep)
		*keep = out;
	else
		cJSON_Delete(out);
	return s;
}

static void
expect(const char *want, int want_errors)
{
	int e;
	char *got = run(&e, NULL);

	if (strcmp(got, want) != 0)
		fail_msg("want '%s', got '%s'", want, got);
	assert_int_equal(e, want_errors);
	free(got);
}

/* A 1500-byte port on h6: ten short directions, one finding at h6 with
 * the ten as evidence and the port as its location. */
static void
test_mtu_host(void **state)
{
	cJSON *out, *f;
	int j, e;
	char *got;

	(void)state;
	healthy();
	for (j = 0; j < N - 1; j++) {
		mp[5 * N + j] = 1504;
		mp[j * N + 5] = 1500;
	}
	got = run(&e, &out);
	assert_string_equal(got, "mtu_blackhole|h6");
	f = cJSON_GetArrayItem(out, 0);
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(
	    cJSON_GetObjectItem(f, "evidence"), "pairs")), 10);
	assert_string_equal(cJSON_GetObjectItem(cJSON_GetObjectItem(f,
	    "location"), "scope")->valuestring, "host");
	assert_non_null(strstr(cJSON_GetObjectItem(f, "summary")->valuestring,
	    "only 1500-1504 cross"));
	free(got);
	cJSON_Delete(out);
}

/* Two short ports: two findings. One short pair: two directions, no
 * host. */
static void
test_mtu_two_hosts_and_a_pair(void **state)
{
	int j;

	(void)state;
	healthy();
	for (j = 0; j < N; j++)
		if (j != 4 && j != 5)
			mp[4 * N + j] = mp[j * N + 4] = mp[5 * N + j] =
			    mp[j * N + 5] = 1500;
	mp[4 * N + 5] = mp[5 * N + 4] = 1500;
	expect("mtu_blackhole|h5 mtu_blackhole|h6", 2);
	healthy();
	mp[0 * N + 1] = mp[1 * N + 0] = 1500;
	expect("mtu_blackhole|h1,h2 mtu_blackhole|h1,h2", 2);
}

/* h5's own filter: every peer sees the same ports refused. A filter only
 * one peer meets is on a path. */
static void
test_host_filter(void **state)
{
	int i;

	(void)state;
	healthy();
	for (i = 0; i < N - 2; i++) {
		pbad[i * N + 4] = 11;
		pwhat[i * N + 4] = "6800-6810 refused";
	}
	pbad[5 * N + 4] = 11;
	pwhat[5 * N + 4] = "6800-6810 refused";
	expect("port_blocked|h5", 1);
	healthy();
	pbad[0 * N + 4] = 1;
	pwhat[0 * N + 4] = "6800 filtered";
	expect("port_blocked|h1,h5", 1);
}

/* A dead agent: one finding at the host, not five. */
static void
test_dead_host(void **state)
{
	int j;

	(void)state;
	healthy();
	for (j = 0; j < N; j++)
		if (j != 3) {
			lost[3 * N + j] = lost[j * N + 3] = 1;
			bw[3 * N + j] = bw[j * N + 3] = NAN;
			why[3 * N + j] = why[j * N + 3] = "connection refused";
		}
	expect("unreachable|h4", 1);
}

/* A dead agent among three hosts: its tests are the tool's own gap, not
 * the network's: one warning at the agent (not_measured, agent_down),
 * no error, so the run is incomplete, not failed. A dead path (lost
 * cells whose reasons name no agent) stays two pair findings. */
static void
test_dead_agent_three_hosts(void **state)
{
	static const char *const n3[3] = { "a", "b", "c" };
	double b3[9], r3[9], c3[9], p3[9], q3[9], l3[3] = { 40, 40, 40 };
	double d3[3] = { 0, 0, 0 };
	int lo3[9] = { 0 }, pb3[9] = { 0 };
	const char *pw3[9] = { NULL }, *w3[9] = { NULL };
	struct munmeasured um[4];
	struct mview v = { .net = "public", .n = 3, .names = n3,
	    .gbps = b3, .rpg = r3, .mtu_conf = c3, .mtu_path = p3,
	    .lost = lo3, .lost_why = w3, .ports_bad = pb3,
	    .ports_what = pw3, .p99 = q3, .host_late_us = l3,
	    .host_drops = d3 };
	const char *refused = "agent on c unreachable: connect to "
	    "10.0.0.3:7470: Connection refused";
	cJSON *out, *f;
	int i, k, nu;

	(void)state;
	healthy();
	for (k = 0; k < 2; k++) {
		nu = 0;
		for (i = 0; i < 9; i++) {
			int self = i / 3 == i % 3, dead = !self &&
			    (i / 3 == 2 || i % 3 == 2);

			b3[i] = self || dead ? NAN : 0.95;
			r3[i] = self || dead ? NAN : 1;
			c3[i] = p3[i] = self || dead ? NAN : 9000;
			q3[i] = self || dead ? NAN : 150;
			/* The report: the agent's failure is not measured,
			 * the path's is lost. */
			lo3[i] = dead && k;
			w3[i] = dead && k ? "no route to host" : NULL;
			if (dead && !k && i / 3 < i % 3)
				um[nu++] = (struct munmeasured){ i / 3, i % 3,
				    "bw", refused };
		}
		v.um = k ? NULL : um;
		v.num = k ? 0 : nu;
		out = cJSON_CreateArray();
		assert_int_equal(findings_compute(&v, &prof, out), k ? 2 : 0);
		if (k == 0) {
			assert_int_equal(cJSON_GetArraySize(out), 1);
			f = cJSON_GetArrayItem(out, 0);
			assert_string_equal(cJSON_GetObjectItem(f,
			    "kind")->valuestring, "not_measured");
			assert_string_equal(cJSON_GetObjectItem(f,
			    "severity")->valuestring, "warn");
			assert_string_equal(cJSON_GetObjectItem(
			    cJSON_GetObjectItem(f, "location"),
			    "scope")->valuestring, "agent");
			assert_string_equal(cJSON_GetObjectItem(
			    cJSON_GetObjectItem(f, "location"),
			    "host")->valuestring, "c");
			assert_string_equal(cJSON_GetObjectItem(
			    cJSON_GetObjectItem(f, "evidence"),
			    "cause")->valuestring, "agent_down");
		}
		cJSON_Delete(out);
	}
}

/* The stored reasons, as the coordinator words them, and the cause each
 * names: only what the network did is the network's. */
static void
test_lost_causes(void **state)
{
	static const struct { const char *why, *agent, *holder; int cause; }
	    cases[] = {
		{ "agent on h3 (B) refused: limit max_rate = 2000 Mbit/s: an "
		    "unpaced test asked", "h3", "", LOST_LIMIT },
		{ "agent on h2 (A) refused: limit max_streams = 4: 8 streams "
		    "asked", "h2", "", LOST_LIMIT },
		{ "agent on h1 (A) refused: agent h1 is running test ab12 for "
		    "coordinator ops1 (started 3 s ago, about 2 s left)", "h1",
		    "coordinator ops1", LOST_BUSY },
		{ "agent on h4 (B) unreachable: connect: Connection refused",
		    "h4", "", LOST_AGENT },
		{ "agent on h4 unreachable: connect: Connection refused", "h4",
		    "", LOST_AGENT },
		{ "agent on h5: no answer (before the run)", "h5", "",
		    LOST_AGENT },
		{ "agent on h2 did not report the end of the test (it went "
		    "away mid-test)", "h2", "", LOST_AGENT },
		{ "agent on h2 (A) closed the connection: EOF", "h2", "",
		    LOST_AGENT },
		{ "interrupted (signal 2)", "", "", LOST_INTERRUPTED },
		{ "no result (the test was killed)", "", "", LOST_TIMEOUT },
		/* The network's: the agent measured and the path failed. */
		{ "agent on h2: connect to 10.0.0.3:5201: No route to host",
		    "h2", "", LOST_NETWORK },
		{ "no reply to any probe either way", "", "", LOST_NETWORK },
		{ "setting up the test took longer than 15 s", "", "",
		    LOST_NETWORK },
		{ NULL, "", "", LOST_NETWORK },
	};
	char agent[64], holder[128];
	size_t k;

	(void)state;
	for (k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		assert_int_equal(lost_cause_of(cases[k].why, agent,
		    sizeof(agent), holder, sizeof(holder)), cases[k].cause);
		assert_string_equal(agent, cases[k].agent);
		assert_string_equal(holder, cases[k].holder);
		/* Without buffers: the same cause. */
		assert_int_equal(lost_cause_of(cases[k].why, NULL, 0, NULL, 0),
		    cases[k].cause);
	}
}

/* Every bandwidth test refused by three agents' max_rate, the latency
 * measured: one warning per agent and limit, no network finding, and the
 * RTTs still judged (a high one is still found). */
static void
test_refused_by_limit(void **state)
{
	struct munmeasured um[N * N];
	struct mview v = { .net = "cluster", .n = N, .names = names,
	    .gbps = bw, .rpg = rpg, .mtu_conf = mc, .mtu_path = mp,
	    .lost = lost, .lost_why = why, .ports_bad = pbad,
	    .ports_what = pwhat, .p99 = p99, .host_late_us = late,
	    .host_drops = drops };
	static char rwhy[N][128];
	cJSON *out, *f;
	int i, j, nu = 0, nw = 0, lat = 0;

	(void)state;
	healthy();
	for (i = 0; i < N; i++)
		snprintf(rwhy[i], sizeof(rwhy[i]), "agent on h%d (B) refused: "
		    "limit max_rate = 2000 Mbit/s: an unpaced test asked",
		    i + 1);
	for (i = 0; i < N; i++)
		for (j = i + 1; j < N; j++) {
			bw[i * N + j] = bw[j * N + i] = NAN;
			rpg[i * N + j] = rpg[j * N + i] = NAN;
			um[nu++] = (struct munmeasured){ i, j, "bw", rwhy[j] };
		}
	/* A high RTT on one pair is still found beside them. */
	p99[1 * N + 2] = p99[2 * N + 1] = 9000;
	v.um = um;
	v.num = nu;
	out = cJSON_CreateArray();
	assert_int_equal(findings_compute(&v, &prof, out), 0);
	cJSON_ArrayForEach(f, out) {
		if (strcmp(cJSON_GetObjectItem(f, "kind")->valuestring,
		    "high_latency") == 0) {
			lat++;
			continue;
		}
		assert_string_equal(cJSON_GetObjectItem(f, "kind")->valuestring,
		    "not_measured");
		assert_string_equal(cJSON_GetObjectItem(cJSON_GetObjectItem(f,
		    "evidence"), "limit")->valuestring, "max_rate");
		nw++;
	}
	/* h1 refuses none (it is never the B side here): N - 1 agents. */
	assert_int_equal(nw, N - 1);
	assert_int_equal(lat, 1);
	cJSON_Delete(out);
}

/* Loss on h2's port: every pair with h2; a lossy pair alone stays one. */
static void
test_lossy_host_and_pair(void **state)
{
	int j;

	(void)state;
	healthy();
	for (j = 0; j < N; j++)
		if (j != 1)
			rpg[1 * N + j] = 900 + j;
	expect("lossy_host|h2", 1);
	healthy();
	rpg[2 * N + 4] = 900;
	expect("lossy_pair|h3,h5", 1);
}

/* h1 measured with two peers only (the rest not measured), both lossy:
 * a link both paths share looks the same, so no host is named (the demo's
 * spine link did this once). */
static void
test_two_peers_no_host(void **state)
{
	int j;

	(void)state;
	healthy();
	for (j = N - 1; j > 0; j--)
		rpg[0 * N + j] = rpg[j * N + 0] = j == 2 || j == 3 ? rpg[j] :
		    NAN;
	rpg[0 * N + 2] = rpg[0 * N + 3] = 900;
	expect("lossy_pair|h1,h3 lossy_pair|h1,h4", 2);
}

/* Every link shaped below the NICs' speed: one fabric-wide finding; with
 * the profile's line rate at the shaped rate, none. */
static void
test_fabric_rate(void **state)
{
	int i;

	(void)state;
	healthy();
	for (i = 0; i < N * N; i++)
		if (isfinite(bw[i]))
			bw[i] = 0.19 + 0.001 * (i % 7);
	expect("fabric_rate|", 1);
	prof.line_gbps = 0.2;
	expect("", 0);
}

/* Four faults at once on a flat fabric, each on its own host or pair:
 * exactly four error findings, each where its fault is. */
static void
test_four_faults(void **state)
{
	int j;

	(void)state;
	healthy();
	for (j = 0; j < N; j++) {
		if (j != 2)
			bw[2 * N + j] = bw[j * N + 2] = 0.3;	/* h3 slow */
		if (j != 5) {					/* h6 port */
			mp[5 * N + j] = 1504;
			mp[j * N + 5] = 1500;
		}
		if (j != 4) {					/* h5 filter */
			pbad[j * N + 4] = 11;
			pwhat[j * N + 4] = "6800-6810 refused";
		}
	}
	rpg[0 * N + 1] = 5000;					/* h1-h2 */
	expect("lossy_pair|h1,h2 mtu_blackhole|h6 port_blocked|h5 "
	    "slow_host|h3", 4);
}

/* A pair that passes nothing (the MTU search's smallest probe never
 * crossed, every port filtered) is one unreachable pair: no MTU black
 * hole, no port_blocked for it. */
static void
test_dead_pair(void **state)
{
	(void)state;
	healthy();
	mp[1 * N + 2] = mp[2 * N + 1] = 0;
	pbad[1 * N + 2] = pbad[2 * N + 1] = 1;
	pwhat[1 * N + 2] = pwhat[2 * N + 1] = "6800 filtered";
	expect("unreachable|h2,h3", 1);
}

/* A host that passes nothing with any peer is one host finding. */
static void
test_dead_host_mtu(void **state)
{
	int j;

	(void)state;
	healthy();
	for (j = 0; j < N - 1; j++) {
		mp[5 * N + j] = mp[j * N + 5] = 0;
		pbad[5 * N + j] = pbad[j * N + 5] = 1;
		pwhat[5 * N + j] = pwhat[j * N + 5] = "6800 filtered";
	}
	expect("unreachable|h6", 1);
}

/* A pair's RTT over the limit is high_latency; when one of its hosts'
 * own probe thread ran later than the limit, the RTT is that host's: a
 * warning about the host, no latency finding about the pair. */
static void
test_busy_host(void **state)
{
	(void)state;
	healthy();
	p99[0 * N + 1] = p99[1 * N + 0] = 30000;
	expect("high_latency|h1,h2", 0);
	late[1] = 25000;
	expect("busy_host|h2", 0);
	/* On time, but its socket dropped replies it did not read in
	 * time: as busy. */
	late[1] = 40;
	drops[0] = 12;
	expect("busy_host|h1", 0);
}

/* Every pair of h5 high in RTT (its port queues) and no other: one
 * finding at h5's port with its five pairs as evidence, not five pair
 * findings; a sixth high pair elsewhere stays a pair finding. */
static void
test_latency_host(void **state)
{
	cJSON *out, *f;
	int e, j;
	char *got;

	(void)state;
	healthy();
	for (j = 0; j < N; j++)
		if (j != 4)
			p99[4 * N + j] = p99[j * N + 4] = 16000 + 100 * j;
	p99[0 * N + 1] = p99[1 * N + 0] = 9000;
	got = run(&e, &out);
	if (strcmp(got, "high_latency|h1,h2 high_latency|h5") != 0)
		fail_msg("got '%s'", got);
	free(got);
	assert_int_equal(e, 0);
	cJSON_ArrayForEach(f, out)
		if (cJSON_GetArraySize(cJSON_GetObjectItem(f, "hosts")) == 1)
			break;
	assert_non_null(f);
	assert_string_equal(cJSON_GetObjectItem(f, "severity")->valuestring,
	    "warn");
	assert_string_equal(cJSON_GetObjectItem(cJSON_GetObjectItem(f,
	    "location"), "where")->valuestring, "port");
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(
	    cJSON_GetObjectItem(f, "evidence"), "pairs")), 5);
	cJSON_Delete(out);
	/* Half the fabric high is not h5's port: pairs, one each. */
	for (j = 0; j < N * N; j++)
		if (j / N != j % N && (j / N + j % N) % 2)
			p99[j] = 12000;
	got = run(&e, NULL);
	assert_null(strstr(got, "high_latency|h5 "));
	assert_non_null(strstr(got, "high_latency|h1,h2"));
	free(got);
}

CF_UNIT_MAIN(NULL, NULL,
    cmocka_unit_test(test_mtu_host),
    cmocka_unit_test(test_mtu_two_hosts_and_a_pair),
    cmocka_unit_test(test_host_filter), cmocka_unit_test(test_dead_host),
    cmocka_unit_test(test_dead_agent_three_hosts),
    cmocka_unit_test(test_lost_causes), cmocka_unit_test(test_refused_by_limit),
    cmocka_unit_test(test_lossy_host_and_pair),
    cmocka_unit_test(test_two_peers_no_host),
    cmocka_unit_test(test_fabric_rate), cmocka_unit_test(test_four_faults),
    cmocka_unit_test(test_dead_pair), cmocka_unit_test(test_dead_host_mtu),
    cmocka_unit_test(test_busy_host), cmocka_unit_test(test_latency_host))
