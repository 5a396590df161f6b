/* libFuzzer harness: the acceptance profile parser and the throughput
 * test request decoder (TEST_LISTEN / TEST_CONNECT bodies). */
#include "fuzz.h"
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "verdict/verdict.h"
#include "json.h"
#include "tputreq.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct profile p;
	struct test_spec sp;
	char err[CF_ERRLEN];
	cJSON *j;

	if (profile_parse_buf("fuzz.conf", (const char *)data, size, &p,
	    err) == -1 && strncmp(err, "fuzz.conf", 9) != 0)
		__builtin_trap();	/* errors name the file */
	if ((j = cJSON_ParseWithLength((const char *)data, size)) != NULL) {
		tputreq_decode(j, false, &sp, err);
		tputreq_decode(j, true, &sp, err);
		cJSON_Delete(j);
	}
	return 0;
}
