/* libFuzzer harness: the acceptance profile parser and the throughput
 * test request decoder (TEST_LISTEN / TEST_CONNECT bodies). */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "findings.h"
#include "pj.h"
#include "tmsg.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char path[64];

static void
cleanup(void)
{
	if (path[0])
		unlink(path);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct profile p;
	struct test_spec sp;
	char err[CF_ERRLEN];
	FILE *f;
	cJSON *j;

	if (path[0] == '\0') {
		snprintf(path, sizeof(path), "/tmp/cf-fuzz-profile.%d",
		    (int)getpid());
		atexit(cleanup);
	}
	if ((f = fopen(path, "w")) != NULL) {
		fwrite(data, 1, size, f);
		fclose(f);
		if (profile_load(path, &p, err) == -1 && strstr(err, path) ==
		    NULL)
			__builtin_trap();	/* errors name the file */
	}
	if ((j = cJSON_ParseWithLength((const char *)data, size)) != NULL) {
		tmsg_decode(j, false, &sp, err);
		tmsg_decode(j, true, &sp, err);
		cJSON_Delete(j);
	}
	return 0;
}
