/* libFuzzer harness: the coordinator's decoders of what an agent reports
 * for a throughput test (any JSON an agent, hostile or broken, can send):
 * TEST_END from either side (streams, TCP_INFO, paths, CPU, spread) and
 * TEST_INTERVAL pairs, then the report built from them (printed to
 * /dev/null); an MTU probe's trace (where its large datagrams died); and
 * a watch's interval (its peers, rebuilt). */
#include "fuzz.h"
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>

#include "probes/probes.h"
#include "report/report_int.h"
#include "watch/watch.h"
#include "json.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int quiet;
	static struct inv_host ha = { .name = "h1" }, hb = { .name = "h2" };
	struct pair_opts o;
	struct tresult r;
	char err[CF_ERRLEN];
	cJSON *j;
	uint32_t i;

	if (!quiet) {
		quiet = 1;
		if (freopen("/dev/null", "w", stdout) == NULL)
			abort();
	}
	if ((j = cJSON_ParseWithLength((const char *)data, size)) == NULL)
		return 0;
	{
		char *near = NULL, *far = NULL;
		double next = NAN;

		cJSON *w = watch_peers_decode(j, err);

		cJSON_Delete(w);
		report_mtu_cut(j, &near, &far, &next);
		if (far == NULL && near != NULL)
			__builtin_trap();	/* a near end alone is no cut */
		free(near);
		free(far);
	}
	memset(&o, 0, sizeof(o));
	memset(&r, 0, sizeof(r));
	o.streams = 2;
	o.duration = 2;
	o.interval = 1;
	o.bidir = size & 1;
	o.json = size & 2;
	r.o = &o;
	r.ha = &ha;
	r.hb = &hb;
	r.n = o.bidir ? 4 : 2;
	r.spec.connector_sends = true;
	r.spec.listener_sends = o.bidir;
	r.a_connects = true;
	r.st = calloc(r.n, sizeof(*r.st));
	r.intervals = cJSON_CreateArray();
	for (i = 0; r.st && i < r.n; i++) {
		r.st[i].id = i;
		r.st[i].a_sends = i < 2;
	}
	if (r.st) {
		pair_result_end(&r, true, j, err);
		pair_result_end(&r, false, j, err);
		pair_result_interval(&r, j, j);
		pair_result_stalls(&r);
		pair_result_report(&r);
		pair_result_free_paths(&r);
	}
	free(r.st);
	cJSON_Delete(r.spread_a);
	cJSON_Delete(r.spread_b);
	cJSON_Delete(r.intervals);
	cJSON_Delete(j);
	return 0;
}
