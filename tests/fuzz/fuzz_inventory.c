/* libFuzzer harness: the inventory parser on arbitrary text. */
#include "fuzz.h"
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "core/core.h"
#include "json.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct inventory inv;
	char err[CF_ERRLEN];

	if (inventory_parse_buf("fuzz.inv", (const char *)data, size, &inv,
	    err) == 0) {
		if (inv.nhosts < 1)
			__builtin_trap();
		inventory_free(&inv);
	} else if (strncmp(err, "fuzz.inv", 8) != 0) {
		/* Every error names the file. */
		__builtin_trap();
	}
	return 0;
}
