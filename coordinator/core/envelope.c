/* envelope: what every JSON document on stdout says about the command
 * that made it, and the document a failed command prints with --json,
 * see core.h. */
#include "core/core.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#define ENV_OPTIONS_MAX 64	/* words kept of the command line */
#define ENV_LINE_MAX 1024	/* an error line longer is cut */

static struct {
	bool begun;
	const char *command;
	char started[40];
	cJSON *options;		/* copied: getopt permutes argv later */
	/* The stderr tap: the line being written, and the last line that
	 * was an error ("cephfab: ..." but not a warning or a notice). */
	char line[ENV_LINE_MAX];
	size_t len;
	char error[ENV_LINE_MAX];
	bool printed;
} env;

/* iso_now: local time as ISO 8601 with the zone as +HH:MM, the form
 * JSON readers (and jq's fromdateiso8601 after a zone strip) expect. */
static void
iso_now(char *buf, size_t sz)
{
	struct timeval tv;
	struct tm tm;
	char z[8];

	gettimeofday(&tv, NULL);
	localtime_r(&tv.tv_sec, &tm);
	strftime(z, sizeof(z), "%z", &tm);
	/* %z is +HHMM: the colon makes it RFC 3339. */
	snprintf(buf, sz, "%04d-%02d-%02dT%02d:%02d:%02d.%03ld%.3s:%.2s",
	    tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
	    tm.tm_min, tm.tm_sec, (long)(tv.tv_usec / 1000), z, z + 3);
}

void
envelope_begin(const char *command, int argc, char *const argv[])
{
	int i;

	env.begun = true;
	env.command = command;
	iso_now(env.started, sizeof(env.started));
	/* The words after the command word, as given: what a reader needs
	 * to run it again. */
	cJSON_Delete(env.options);
	env.options = cJSON_CreateArray();
	for (i = 1; env.options && i < argc && i <= ENV_OPTIONS_MAX; i++)
		cJSON_AddItemToArray(env.options, cJSON_CreateString(argv[i]));
}

cJSON *
envelope_json(void)
{
	cJSON *e;
	char now[40];

	if (!env.begun || (e = cJSON_CreateObject()) == NULL)
		return NULL;
	iso_now(now, sizeof(now));
	cJSON_AddStringToObject(e, "command", env.command);
	cJSON_AddStringToObject(e, "version", CF_VERSION);
	cJSON_AddStringToObject(e, "started", env.started);
	cJSON_AddStringToObject(e, "finished", now);
	cJSON_AddItemToObject(e, "options", env.options ?
	    cJSON_Duplicate(env.options, 1) : cJSON_CreateArray());
	return e;
}

/* tap_line: one whole line written to stderr. Errors are the lines
 * that start with the program's name and are not warnings, notices of a
 * run's id, or usage pages (which follow their error line). */
static void
tap_line(const char *s, size_t n)
{
	static const char pfx[] = "cephfab: ";

	/* getopt's complaints qualify too: main makes argv[0] "cephfab:
	 * COMMAND". */
	if (n < sizeof(pfx) - 1 || memcmp(s, pfx, sizeof(pfx) - 1) != 0)
		return;
	s += sizeof(pfx) - 1;
	n -= sizeof(pfx) - 1;
	if (memmem(s, n, "warning:", 8) != NULL ||
	    (n > 11 && memcmp(s, "matrix run ", 11) == 0))
		return;
	if (n >= sizeof(env.error))
		n = sizeof(env.error) - 1;
	memcpy(env.error, s, n);
	env.error[n] = '\0';
}

static ssize_t
tap_write(void *cookie, const char *buf, size_t size)
{
	size_t i, done = 0;
	ssize_t w;

	(void)cookie;
	/* Through to the real stderr first: the tap only looks. */
	while (done < size) {
		w = write(STDERR_FILENO, buf + done, size - done);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			break;
		done += (size_t)w;
	}
	for (i = 0; i < size; i++) {
		if (buf[i] == '\n' || buf[i] == '\r') {
			tap_line(env.line, env.len);
			env.len = 0;
		} else if (env.len < sizeof(env.line)) {
			env.line[env.len++] = buf[i];
		}
	}
	return (ssize_t)size;
}

void
envelope_tap_stderr(void)
{
	static const cookie_io_functions_t io = { .write = tap_write };
	FILE *f = fopencookie(NULL, "w", io);

	/* Unbuffered like stderr itself, so that its lines and those the
	 * children write to fd 2 keep their order. */
	if (f == NULL || setvbuf(f, NULL, _IONBF, 0) != 0) {
		if (f)
			fclose(f);
		return;
	}
	stderr = f;
}

void
envelope_printed(void)
{
	env.printed = true;
}

int
envelope_error(int rc)
{
	cJSON *e;
	char *s;

	/* A command that printed its document said what went wrong in it;
	 * only a silent one gets this. */
	if (env.printed || (rc != EXIT_USAGE && rc != EXIT_RUNTIME))
		return rc;
	e = envelope_json();
	if (e == NULL)
		return rc;
	cJSON_AddNumberToObject(e, "exit", rc);
	cJSON_AddStringToObject(e, "error", env.error[0] ? env.error :
	    rc == EXIT_USAGE ? "usage error (see the command's --help)" :
	    "failed");
	cJSON_AddStringToObject(e, "verdict", "error");
	/* One line: also a JSON-lines reader (watch --json) takes it. */
	s = cJSON_PrintUnformatted(e);
	if (s != NULL) {
		puts(s);
		free(s);
	}
	fflush(stdout);
	cJSON_Delete(e);
	return rc;
}
