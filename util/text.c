/* text: bounded text building, see include/text.h. */
#include "text.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

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

/* distinct: labels a..n all different and non-empty. */
static bool
distinct(char (*lab)[TEXT_LABEL], int n)
{
	int i, j;

	for (i = 0; i < n; i++) {
		if (lab[i][0] == '\0')
			return false;
		for (j = 0; j < i; j++)
			if (strcmp(lab[i], lab[j]) == 0)
				return false;
	}
	return true;
}

static bool
sep(char c)
{
	return c == '-' || c == '.' || c == '_';
}

int
text_labels(const char *const *names, int n, char (*lab)[TEXT_LABEL],
    size_t *pre, size_t *suf)
{
	size_t p = SIZE_MAX, q = SIZE_MAX, k;
	int i, fits = 1;

	*pre = *suf = 0;
	for (i = 0; i < n; i++) {
		fits &= strlen(names[i]) < TEXT_LABEL;
		snprintf(lab[i], TEXT_LABEL, "%s", names[i]);
	}
	if (fits && distinct(lab, n))
		return 0;
	/* The longest prefix and suffix all share, cut back to a
	 * separator so that "ceph-osd-0" of ceph-osd-01..09 stays "0x". */
	for (i = 1; i < n; i++) {
		size_t la = strlen(names[0]), lb = strlen(names[i]);

		for (k = 0; k < p && k < la && k < lb &&
		    names[0][k] == names[i][k]; k++)
			;
		p = k;
		for (k = 0; k < q && k < la && k < lb &&
		    names[0][la - 1 - k] == names[i][lb - 1 - k]; k++)
			;
		q = k;
	}
	if (n < 2)
		p = q = 0;
	while (p > 0 && !sep(names[0][p - 1]))
		p--;
	while (q > 0 && !sep(names[0][strlen(names[0]) - q]))
		q--;
	fits = 1;
	for (i = 0; i < n; i++) {
		size_t l = strlen(names[i]);
		size_t keep = l > p + q ? l - p - q : 0;

		fits &= keep < TEXT_LABEL;
		snprintf(lab[i], TEXT_LABEL, "%.*s", (int)keep, names[i] + p);
	}
	if (fits && distinct(lab, n)) {
		*pre = p;
		*suf = q;
		return 1;
	}
	for (i = 0; i < n; i++)
		snprintf(lab[i], TEXT_LABEL, "#%d", i + 1);
	return 2;
}
