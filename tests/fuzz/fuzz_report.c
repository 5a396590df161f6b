/* libFuzzer harness: a stored run rebuilt as a report, whatever its
 * agents sent. The input (any JSON an agent, hostile or broken, can have
 * sent) is stored as the data of every kind of cell (bandwidth, latency,
 * the mesh's, MTU, ports, the loads', a host's facts) between three hosts
 * on both networks, and the report is built from the store (in memory):
 * every decoder the report runs over agent data, the findings after.
 * The first byte picks the kind of cell the rest fills (one of six tests,
 * the facts, or all of them at once) and whether the cells read as lost:
 * storing every kind on every exec made the harness crawl (~600 exec/s)
 * with the decoders all visited anyway. The cells are rolled back after
 * each exec, so an input's report never depends on the input before it. */
#include "fuzz.h"
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/report.h"
#include "store/store.h"
#include "json.h"

static struct inventory inv;
static struct store st;
static int64_t run;

static void
setup(void)
{
	static const char text[] = "[global]\nkey = /dev/null\n"
	    "[host h1]\nagent = 10.0.0.1\npublic = 10.0.0.1\ncluster = 10.1.0.1\n"
	    "rack = r1\n[host h2]\nagent = 10.0.0.2\npublic = 10.0.0.2\n"
	    "cluster = 10.1.0.2\nrack = r1\n[host h3]\nagent = 10.0.0.3\n"
	    "public = 10.0.0.3\ncluster = 10.1.0.3\nrack = r2\n";
	char err[CF_ERRLEN];

	if (inventory_parse_buf("fuzz.inv", text, sizeof(text) - 1, &inv,
	    err) == -1 || store_open(&st, ":memory:", err) == -1 ||
	    (run = store_new_run(&st, "fuzz.inv", NULL, err)) <= 0)
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const tests[] = { "bw", "lat", "mtu", "ports",
	    "a2a", "fanout" };
	static const char *const nets[] = { "public", "cluster" };
	static const char *const pairs[][2] = { { "h1", "h2" }, { "h2", "h3" },
	    { "h3", "h1" } };
	struct matrix_opts o;
	char err[CF_ERRLEN];
	cJSON *j, *doc;
	size_t t, n, p;
	int errors = 0;

	const size_t ntests = sizeof(tests) / sizeof(tests[0]);
	unsigned sel, all;
	const char *state;

	if (run == 0)
		setup();
	if (size < 1)
		return 0;
	sel = data[0] % 8;
	all = sel == 7;
	state = data[0] & 0x80 ? "lost" : "ok";
	if ((j = cJSON_ParseWithLength((const char *)data + 1, size - 1)) ==
	    NULL)
		return 0;
	store_begin(&st);
	for (n = 0; n < 2; n++)
		for (t = 0; t < ntests; t++)
			for (p = 0; p < 3 && (all || sel == t); p++)
				store_put_cell(&st, run, nets[n], pairs[p][0],
				    pairs[p][1], tests[t], state, j, err);
	for (p = 0; p < 3 && (all || sel == 6); p++)
		store_put_cell(&st, run, "host", pairs[p][0], pairs[p][0],
		    "facts", "ok", j, err);
	memset(&o, 0, sizeof(o));
	profile_defaults(&o.prof);
	o.nets = 3;
	o.tests = ~0;
	o.modes = ~0;
	doc = report_build(&inv, &o, run, &st, true, &errors);
	store_rollback(&st);
	cJSON_Delete(doc);
	cJSON_Delete(j);
	return 0;
}
