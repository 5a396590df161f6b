/* text: bounded text building, see include/text.h. */
#include "text.h"

#include <stdarg.h>
#include <stdio.h>

size_t
text_appendf(char *buf, size_t size, size_t off, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (size == 0)
		return 0;
	if (off >= size)
		return size - 1;
	va_start(ap, fmt);
	n = vsnprintf(buf + off, size - off, fmt, ap);
	va_end(ap);
	if (n < 0) {
		buf[off] = '\0';
		return off;
	}
	/* Truncated: the offset stays on the final NUL, never past it. */
	return off + (size_t)n >= size ? size - 1 : off + (size_t)n;
}
