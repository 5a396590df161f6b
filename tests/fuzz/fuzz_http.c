/* libFuzzer harness: the metrics endpoint's request parser (the only
 * code an unauthenticated scraper reaches) on every prefix of arbitrary
 * bytes, as a request arrives piece by piece: an answer, once given, never
 * changes as more bytes come, and a request at the cap is always
 * answered. */
#include "fuzz.h"
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "monitor/http.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	enum http_parse first = HTTP_MORE, r;
	char *buf;
	size_t n;

	if (size > HTTP_REQ_MAX)
		size = HTTP_REQ_MAX;
	/* Exactly size bytes: a read past them is ASan's to catch. */
	if ((buf = malloc(size ? size : 1)) == NULL)
		return 0;
	memcpy(buf, data, size);
	for (n = 0; n <= size; n++) {
		r = http_parse(buf, n);
		if (first != HTTP_MORE && r != first)
			__builtin_trap();
		if (first == HTTP_MORE)
			first = r;
	}
	if (size == HTTP_REQ_MAX && first == HTTP_MORE)
		__builtin_trap();
	http_status(first);
	free(buf);
	return 0;
}
