/* out: results on stdout, progress on a TTY, see out.h. */
#include "out.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static int out_tty = -1;
static int out_dirty;

void
out_progress(const char *fmt, ...)
{
	va_list ap;

	if (out_tty == -1)
		out_tty = isatty(STDERR_FILENO);
	if (!out_tty)
		return;
	fputs("\r\033[K", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fflush(stderr);
	out_dirty = 1;
}

void
out_progress_done(void)
{
	if (out_dirty) {
		fputs("\r\033[K", stderr);
		fflush(stderr);
		out_dirty = 0;
	}
}

int
out_json(const cJSON *doc)
{
	char *s = cJSON_Print(doc);

	if (s == NULL)
		return -1;
	fputs(s, stdout);
	fputc('\n', stdout);
	fflush(stdout);
	free(s);
	return 0;
}

const char *
out_duration(double secs, char *buf, size_t sz)
{
	long s = (long)secs;

	if (s >= 86400)
		snprintf(buf, sz, "%ldd%ldh", s / 86400, (s % 86400) / 3600);
	else if (s >= 3600)
		snprintf(buf, sz, "%ldh%ldm", s / 3600, (s % 3600) / 60);
	else if (s >= 60)
		snprintf(buf, sz, "%ldm%lds", s / 60, s % 60);
	else
		snprintf(buf, sz, "%lds", s);
	return buf;
}
