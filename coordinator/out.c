/* out: results on stdout, progress on a TTY, see out.h. */
#include "out.h"

#include <stdarg.h>
#include <stdbool.h>
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

static void
json_str(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	fputc('"', f);
	for (; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if (*p == '\n')
			fputs("\\n", f);
		else if (*p == '\t')
			fputs("\\t", f);
		else if (*p < 0x20)
			fprintf(f, "\\u%04x", *p);
		else
			fputc(*p, f);
	}
	fputc('"', f);
}

/* json_write: containers are written as they are walked, leaves through
 * cJSON, so a large tree never becomes one large string. */
static int
json_write(FILE *f, const cJSON *it, int depth)
{
	const cJSON *c;
	bool obj = cJSON_IsObject(it);
	int i;

	if (!obj && !cJSON_IsArray(it)) {
		char *s = cJSON_PrintUnformatted(it);

		if (s == NULL)
			return -1;
		fputs(s, f);
		free(s);
		return 0;
	}
	if (it->child == NULL) {
		fputs(obj ? "{}" : "[]", f);
		return 0;
	}
	fputc(obj ? '{' : '[', f);
	for (c = it->child; c; c = c->next) {
		fputc('\n', f);
		for (i = 0; i <= depth; i++)
			fputc('\t', f);
		if (obj) {
			json_str(f, c->string ? c->string : "");
			fputs(": ", f);
		}
		if (json_write(f, c, depth + 1) == -1)
			return -1;
		if (c->next)
			fputc(',', f);
	}
	fputc('\n', f);
	for (i = 0; i < depth; i++)
		fputc('\t', f);
	fputc(obj ? '}' : ']', f);
	return 0;
}

int
out_json_write(FILE *f, const cJSON *doc)
{
	if (json_write(f, doc, 0) == -1)
		return -1;
	fputc('\n', f);
	return ferror(f) ? -1 : 0;
}

int
out_json(const cJSON *doc)
{
	int rc = out_json_write(stdout, doc);

	return fflush(stdout) == 0 ? rc : -1;
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
