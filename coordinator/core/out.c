/* out: results on stdout, progress on a TTY, see core.h. */
#include "core/core.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
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
static int json_write(FILE *f, const cJSON *it, int depth);

/* json_members writes an object's members from c on, those of skip
 * left out; *first says whether one was written yet. */
static int
json_members(FILE *f, const cJSON *c, const cJSON *skip, int depth,
    bool *first)
{
	int i;

	for (; c; c = c->next) {
		if (skip && c->string &&
		    cJSON_GetObjectItemCaseSensitive(skip, c->string))
			continue;
		if (!*first)
			fputc(',', f);
		*first = false;
		fputc('\n', f);
		for (i = 0; i <= depth; i++)
			fputc('\t', f);
		json_str(f, c->string ? c->string : "");
		fputs(": ", f);
		if (json_write(f, c, depth + 1) == -1)
			return -1;
	}
	return 0;
}

/* json_enveloped: the envelope's members first (those the document
 * does not set itself), then the document's. */
static int
json_enveloped(FILE *f, const cJSON *doc, const cJSON *env)
{
	bool first = true;

	if (env == NULL || !cJSON_IsObject(doc))
		return json_write(f, doc, 0);
	fputc('{', f);
	if (json_members(f, env->child, doc, 0, &first) == -1 ||
	    json_members(f, doc->child, NULL, 0, &first) == -1)
		return -1;
	fputs("\n}", f);
	return 0;
}

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
out_json_doc(FILE *f, const cJSON *doc)
{
	cJSON *env = envelope_json();
	int rc = json_enveloped(f, doc, env);

	cJSON_Delete(env);
	if (rc == -1)
		return -1;
	fputc('\n', f);
	return ferror(f) ? -1 : 0;
}

int
out_json(const cJSON *doc)
{
	int rc = out_json_doc(stdout, doc);

	envelope_printed();
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

/* o_umask: the process's umask (read by setting it back). */
static mode_t
o_umask(void)
{
	mode_t m = umask(022);

	umask(m);
	return m;
}

/* out_is_stdout: "-", or a name of standard output scripts use. Those
 * names are symbolic links (to /proc/self/fd/1): followed, a redirect to
 * a file would have the output written beside the link, in /dev, and
 * renamed over it, which as root replaces /dev/stdout for everyone. */
bool
out_is_stdout(const char *path)
{
	return strcmp(path, "-") == 0 || strcmp(path, "/dev/stdout") == 0 ||
	    strcmp(path, "/dev/fd/1") == 0 ||
	    strcmp(path, "/proc/self/fd/1") == 0;
}

int
out_file_open(struct out_file *o, const char *path, char *err)
{
	struct stat st;

	int fd;

	memset(o, 0, sizeof(*o));
	snprintf(o->path, sizeof(o->path), "%s", path);
	if (out_is_stdout(path)) {
		o->f = stdout;
		o->std = true;
		return 0;
	}
	/* A regular file (or none yet) is written beside itself under a
	 * name no one can guess or plant (mkstemp: O_EXCL, mode 0600) and
	 * renamed over it once whole; a device or FIFO is written as it
	 * is, never through a symbolic link. */
	if (stat(path, &st) == -1 || S_ISREG(st.st_mode)) {
		if (snprintf(o->tmp, sizeof(o->tmp), "%s.tmp.XXXXXX", path) >=
		    (int)sizeof(o->tmp)) {
			snprintf(err, CF_ERRLEN, "%s: path too long", path);
			return -1;
		}
		fd = mkostemp(o->tmp, O_CLOEXEC);
		if (fd != -1 && fchmod(fd, 0644 & ~o_umask()) == -1) {
			close(fd);
			unlink(o->tmp);
			fd = -1;
		}
	} else {
		fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC | O_NOFOLLOW);
	}
	if (fd == -1 || (o->f = fdopen(fd, "w")) == NULL) {
		snprintf(err, CF_ERRLEN, "%s: cannot write: %s", path,
		    strerror(errno));
		if (fd != -1)
			close(fd);
		if (o->tmp[0])
			unlink(o->tmp);
		o->tmp[0] = '\0';
		return -1;
	}
	return 0;
}

int
out_file_close(struct out_file *o, char *err)
{
	int bad, e = 0;

	/* A failed flush inside an earlier fputs only sets the stream's
	 * error flag: fclose alone would report success. */
	errno = 0;
	bad = fflush(o->f) != 0 || ferror(o->f);
	if (bad)
		e = errno ? errno : EIO;
	else
		errno = 0;
	if (!bad && o->tmp[0] && fsync(fileno(o->f)) == -1) {
		bad = 1;
		e = errno;
	}
	if (o->std) {
		o->f = NULL;
		if (bad)
			snprintf(err, CF_ERRLEN, "standard output: %s",
			    strerror(e));
		return bad ? -1 : 0;
	}
	if (fclose(o->f) != 0 && !bad) {
		bad = 1;
		e = errno;
	}
	o->f = NULL;
	if (!bad && o->tmp[0] && rename(o->tmp, o->path) == -1) {
		bad = 1;
		e = errno;
	}
	if (bad) {
		/* errno of a write inside an earlier fputs is gone by now. */
		snprintf(err, CF_ERRLEN, "%s: cannot write: %s", o->path,
		    e == EIO && errno == 0 ? "a write failed (disk full?)" :
		    strerror(e));
		if (o->tmp[0])
			unlink(o->tmp);
		return -1;
	}
	return 0;
}

int
out_path_check(const char *path, char *err)
{
	char dir[4096], *slash;
	struct stat st;

	if (out_is_stdout(path))
		return 0;
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
		snprintf(err, CF_ERRLEN, "%s: is a directory", path);
		return -1;
	}
	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (slash == NULL)
		snprintf(dir, sizeof(dir), ".");
	else if (slash == dir)
		dir[1] = '\0';
	else
		*slash = '\0';
	if (access(dir, W_OK | X_OK) == -1) {
		snprintf(err, CF_ERRLEN, "%s: cannot write in %s: %s", path,
		    dir, strerror(errno));
		return -1;
	}
	return 0;
}
