/*
 * journal: the migration's append-only record. One JSON object per line
 * ({"t": unix seconds, "event": ..., ...}), each written with one write()
 * and fsync()ed before the action it announces is taken, so a migrate
 * killed at any point can be resumed from what the file says happened.
 * A torn last line (killed mid-write) is ignored on reading.
 */
#ifndef CF_JOURNAL_H
#define CF_JOURNAL_H

#include <stdbool.h>

#include <cjson/cJSON.h>

#define JOURNAL_LINE_MAX (64 * 1024)

struct journal {
	int fd;
	char path[4096];
};

/* journal_open opens path for appending. With resume false it must not
 * exist yet (or be empty); with resume true its events are returned in
 * *events (a JSON array, caller frees). The file stays locked (flock)
 * until closed: a second migrate on it is refused. -1 with err. */
int journal_open(struct journal *jn, const char *path, bool resume,
    cJSON **events, char *err);
/* journal_read reads a journal's events without opening it for writing. */
int journal_read(const char *path, cJSON **events, char *err);
/* journal_add stamps ev with "t", appends it and fsyncs; takes ev. */
int journal_add(struct journal *jn, cJSON *ev, char *err);
void journal_close(struct journal *jn);

#endif
