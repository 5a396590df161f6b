/* libFuzzer harness: the agent's request body decoders on arbitrary
 * JSON: PROBE_OPEN and PROBE_RUN (every probe kind, the mesh's targets)
 * and TEST_LISTEN / TEST_CONNECT. */
#include "fuzz.h"
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "probes/probe_int.h"
#include "tputreq.h"

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
	cJSON_Delete(j);
	return 0;
}
