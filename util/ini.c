/* ini: tokenizer for inventories and agent configs, see include/ini.h. */
#include "ini.h"
#include "json.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *
ini_trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
		*--e = '\0';
	return s;
}

/* ini_strip_comment cuts a comment that starts the line or follows white
 * space; '#' inside a word (a path, say) is kept. */
static void
ini_strip_comment(char *s)
{
	char *p;

	for (p = s; *p; p++) {
		if ((*p == '#' || *p == ';') &&
		    (p == s || p[-1] == ' ' || p[-1] == '\t')) {
			*p = '\0';
			return;
		}
	}
}

static int
ini_line(const char *name, int lineno, char *line,
    const struct ini_handler *h, void *udata, char *err)
{
	char e2[CF_ERRLEN], *s, *eq, *key, *val, *p;
	size_t i;

	e2[0] = '\0';
	for (i = 0; line[i]; i++) {
		if ((unsigned char)line[i] < 0x20 && line[i] != '\t' &&
		    line[i] != '\r') {
			snprintf(err, CF_ERRLEN, "%s:%d: control character in "
			    "line", name, lineno);
			return -1;
		}
	}
	ini_strip_comment(line);
	s = ini_trim(line);
	if (*s == '\0')
		return 0;
	if (*s == '[') {
		char *close = strchr(s, ']'), *kind, *sname = (char *)"";

		if (close == NULL || *ini_trim(close + 1) != '\0') {
			snprintf(err, CF_ERRLEN, "%s:%d: malformed section "
			    "header", name, lineno);
			return -1;
		}
		*close = '\0';
		kind = ini_trim(s + 1);
		p = kind;
		while (*p && *p != ' ' && *p != '\t')
			p++;
		if (*p) {
			*p = '\0';
			sname = ini_trim(p + 1);
		}
		if (*kind == '\0') {
			snprintf(err, CF_ERRLEN, "%s:%d: empty section name",
			    name, lineno);
			return -1;
		}
		if (h->section(udata, kind, sname, lineno, e2) == -1) {
			snprintf(err, CF_ERRLEN, "%s:%d: %s", name, lineno, e2);
			return -1;
		}
		return 0;
	}
	eq = strchr(s, '=');
	if (eq == NULL) {
		snprintf(err, CF_ERRLEN, "%s:%d: expected 'key = value' or "
		    "'[section]'", name, lineno);
		return -1;
	}
	*eq = '\0';
	key = ini_trim(s);
	val = ini_trim(eq + 1);
	if (*key == '\0') {
		snprintf(err, CF_ERRLEN, "%s:%d: missing key before '='", name,
		    lineno);
		return -1;
	}
	for (p = key; *p; p++) {
		if (*p == ' ' || *p == '-' || *p == '\t')
			*p = '_';
		else
			*p = (char)tolower((unsigned char)*p);
	}
	if (h->pair(udata, key, val, lineno, e2) == -1) {
		snprintf(err, CF_ERRLEN, "%s:%d: %s", name, lineno, e2);
		return -1;
	}
	return 0;
}

int
ini_parse_buf(const char *name, const char *text, size_t len,
    const struct ini_handler *h, void *udata, char *err)
{
	char line[INI_LINE_MAX + 1];
	size_t off = 0, n;
	int lineno = 0;

	while (off < len) {
		const char *nl = memchr(text + off, '\n', len - off);

		n = nl ? (size_t)(nl - (text + off)) : len - off;
		lineno++;
		if (n > INI_LINE_MAX) {
			snprintf(err, CF_ERRLEN, "%s:%d: line longer than %d "
			    "bytes", name, lineno, INI_LINE_MAX);
			return -1;
		}
		if (memchr(text + off, '\0', n) != NULL) {
			snprintf(err, CF_ERRLEN, "%s:%d: NUL byte in line",
			    name, lineno);
			return -1;
		}
		memcpy(line, text + off, n);
		line[n] = '\0';
		if (ini_line(name, lineno, line, h, udata, err) == -1)
			return -1;
		off += n + (nl ? 1 : 0);
	}
	return 0;
}

int
ini_parse_file(const char *path, const struct ini_handler *h, void *udata,
    char *err)
{
	FILE *f = fopen(path, "re");
	char *buf;
	size_t n;
	int rc;

	if (f == NULL) {
		snprintf(err, CF_ERRLEN, "%s: %s", path, strerror(errno));
		return -1;
	}
	buf = malloc(INI_FILE_MAX + 1);
	if (buf == NULL) {
		fclose(f);
		snprintf(err, CF_ERRLEN, "%s: out of memory", path);
		return -1;
	}
	n = fread(buf, 1, INI_FILE_MAX + 1, f);
	if (ferror(f)) {
		/* A directory opens but does not read (EISDIR). */
		snprintf(err, CF_ERRLEN, "%s: %s", path, errno == EISDIR ?
		    "a directory, not a file" : strerror(errno));
		rc = -1;
	} else if (n > INI_FILE_MAX) {
		snprintf(err, CF_ERRLEN, "%s: larger than %d bytes", path,
		    INI_FILE_MAX);
		rc = -1;
	} else {
		rc = ini_parse_buf(path, buf, n, h, udata, err);
	}
	free(buf);
	fclose(f);
	return rc;
}
