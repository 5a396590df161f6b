/* libFuzzer harness: the capture analyzer on crafted packets. The input
 * is a series of records (1 byte link type selector, 2 bytes length,
 * then the frame), fed through a 16-flow table so that eviction runs. */
#include "fuzz.h"
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "capture/analyzer.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const int dlts[] = { 1, 12, 101, 113, 276, 0, 147 };
	struct analyzer t;
	size_t off = 0;
	int64_t ts = 1000000000000;

	if (analyzer_init(&t, 16) == -1)
		return 0;
	while (off + 3 <= size) {
		int dlt = dlts[data[off] % 7];
		size_t len = (size_t)data[off + 1] << 8 | data[off + 2];

		off += 3;
		if (len > size - off)
			len = size - off;
		ts += (int64_t)(data[off - 3] & 0xf0) * 62500;
		if (dlt == 0 || dlt == 147)
			analyzer_packet(&t, ts, data + off, len);
		else
			analyzer_frame(&t, dlt, ts, data + off, len);
		off += len;
	}
	if (t.nflows > 16)
		__builtin_trap();	/* the cap is the cap */
	analyzer_free(&t);
	return 0;
}
