/* journal: the migration's append-only record, see migrate.h. */
#include "migrate/migrate.h"
#include "json.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

int
journal_read(const char *path, cJSON **events, char *err)
{
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	int lineno = 0;

	*events = NULL;
	if (f == NULL) {
		snprintf(err, CF_ERRLEN, "%s: %s", path, strerror(errno));
		return -1;
	}
	*events = cJSON_CreateArray();
	while ((n = getline(&line, &cap, f)) > 0) {
		cJSON *ev;

		lineno++;
		if (line[n - 1] != '\n') {
			/* The write a kill interrupted: never acted on, the
			 * action follows the fsync of its line. */
			break;
		}
		if (n > JOURNAL_LINE_MAX ||
		    (ev = cJSON_ParseWithLength(line, (size_t)n)) == NULL ||
		    !cJSON_IsObject(ev) ||
		    !cJSON_IsString(cJSON_GetObjectItem(ev, "event"))) {
			snprintf(err, CF_ERRLEN, "%s:%d: not a journal event",
			    path, lineno);
			free(line);
			fclose(f);
			cJSON_Delete(*events);
			*events = NULL;
			return -1;
		}
		cJSON_AddItemToArray(*events, ev);
	}
	free(line);
	fclose(f);
	return 0;
}

int
journal_open(struct journal *jn, const char *path, bool resume,
    cJSON **events, char *err)
{
	struct stat st;

	jn->fd = -1;
	if (events)
		*events = NULL;
	snprintf(jn->path, sizeof(jn->path), "%s", path);
	if (!resume && stat(path, &st) == 0 && st.st_size > 0) {
		snprintf(err, CF_ERRLEN, "%s: a journal of an earlier migrate "
		    "is there: continue it with --resume, undo it with "
		    "--rollback, or move it away", path);
		return -1;
	}
	if (resume) {
		if (journal_read(path, events, err) == -1)
			return -1;
	}
	jn->fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC |
	    O_NOFOLLOW, 0640);
	/* One migrate per journal: two would restart the same OSDs. The
	 * lock goes with the process, a kill -9 included. */
	if (jn->fd != -1 && flock(jn->fd, LOCK_EX | LOCK_NB) == -1) {
		snprintf(err, CF_ERRLEN, "%s: %s", path, errno == EWOULDBLOCK ?
		    "another migrate is running on this journal" :
		    strerror(errno));
		close(jn->fd);
		jn->fd = -1;
		if (events) {
			cJSON_Delete(*events);
			*events = NULL;
		}
		return -1;
	}
	if (jn->fd == -1) {
		snprintf(err, CF_ERRLEN, "%s: %s", path, strerror(errno));
		if (events) {
			cJSON_Delete(*events);
			*events = NULL;
		}
		return -1;
	}
	return 0;
}

int
journal_add(struct journal *jn, cJSON *ev, char *err)
{
	struct timeval tv;
	char *s;
	size_t len, off = 0;
	int rc = 0;

	gettimeofday(&tv, NULL);
	cJSON_AddNumberToObject(ev, "t", (double)tv.tv_sec +
	    tv.tv_usec / 1e6);
	s = cJSON_PrintUnformatted(ev);
	cJSON_Delete(ev);
	if (s == NULL || (len = strlen(s)) + 1 > JOURNAL_LINE_MAX) {
		snprintf(err, CF_ERRLEN, "%s: event too large", jn->path);
		free(s);
		return -1;
	}
	s[len++] = '\n';	/* over the terminator: s is not printed */
	while (off < len) {
		ssize_t n = write(jn->fd, s + off, len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			snprintf(err, CF_ERRLEN, "%s: %s", jn->path,
			    n < 0 ? strerror(errno) : "short write");
			rc = -1;
			break;
		}
		off += (size_t)n;
	}
	if (rc == 0 && fsync(jn->fd) == -1) {
		snprintf(err, CF_ERRLEN, "%s: fsync: %s", jn->path,
		    strerror(errno));
		rc = -1;
	}
	free(s);
	return rc;
}

void
journal_close(struct journal *jn)
{
	if (jn->fd != -1)
		close(jn->fd);
	jn->fd = -1;
}
