/* libFuzzer harness: the agent's request body decoders on arbitrary
 * JSON: PROBE_OPEN and PROBE_RUN (every probe kind, the mesh's targets)
 * and TEST_LISTEN / TEST_CONNECT, and a MONITOR start's pinglist (with
 * the rotation it gives: never more active peers than peers). */
#include "fuzz.h"
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "probes/probe_int.h"
#include "tputreq.h"
#include "monitor/pinglist.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct agent_config cfg;
	static struct probes ps;
	struct probe p;
	struct test_spec sp;
	char err[CF_ERRLEN];
	cJSON *j = cJSON_ParseWithLength((const char *)data, size);
	int run;

	if (j == NULL)
		return 0;
	config_defaults(&cfg);
	ps.cfg = &cfg;
	for (run = 0; run < 2; run++) {
		memset(&p, 0, sizeof(p));
		p.ps = &ps;
		p.fd = -1;
		if (probe_parse(&p, j, run, err) == 0 && p.kind == PK_MESH &&
		    (p.nmt < 1 || p.nmt > PROBE_MESH_MAX))
			__builtin_trap();
		free(p.mt);
	}
	tputreq_decode(j, false, &sp, err);
	tputreq_decode(j, true, &sp, err);
	{
		struct pinglist pl;

		if (pinglist_parse(j, &pl, err) == 0) {
			bool *act = calloc((size_t)pl.npeers + 1, 1);
			int n, i;

			if (act == NULL)
				abort();
			n = pinglist_active(&pl, (double)size * 1000, act);
			for (i = 0; i < pl.npeers; i++)
				n -= act[i];
			if (n != 0 || pl.npeers > PL_PEERS_MAX ||
			    pl.self_index > pl.npeers)
				__builtin_trap();
			free(act);
			pinglist_free(&pl);
		}
	}
	cJSON_Delete(j);
	return 0;
}
