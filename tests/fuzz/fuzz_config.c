/* libFuzzer harness: the agent config parser on arbitrary text. */
#include "fuzz.h"
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "config.h"
#include "json.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct agent_config cfg;
	char err[CF_ERRLEN];

	config_defaults(&cfg);
	if (config_parse_buf("fuzz.conf", (const char *)data, size, &cfg,
	    err) == -1 && strncmp(err, "fuzz.conf", 9) != 0)
		__builtin_trap();
	return 0;
}
