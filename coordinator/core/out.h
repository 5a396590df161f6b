/*
 * out: what the coordinator prints. Results go to stdout (a table or JSON);
 * progress goes to stderr and only when stderr is a terminal, so pipes and
 * --json output stay clean (house style rule 9).
 */
#ifndef CF_OUT_H
#define CF_OUT_H

#include <stdio.h>
#include "json.h"

#include <cjson/cJSON.h>

/* Exit codes shared by every cephfab command. */
#define EXIT_PASS 0
#define EXIT_PROBLEMS 1
#define EXIT_USAGE 2
#define EXIT_RUNTIME 3

/* out_progress rewrites one status line on a TTY; silent otherwise. */
void out_progress(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* out_progress_done clears the status line. */
void out_progress_done(void);
/* out_json prints a JSON document on stdout and a newline. Returns -1 when
 * it could not be printed (out of memory). */
int out_json(const cJSON *doc);
/* out_json_write writes doc to f as it walks it (no whole-document string:
 * a 256-host matrix is tens of MB); -1 on a write error. */
int out_json_write(FILE *f, const cJSON *doc);
/* out_file: a result file written whole or not at all. A regular file
 * (or a new one) is written as PATH.tmp.PID beside it, flushed, fsynced
 * and renamed into place by out_file_close; anything else (a pipe,
 * /dev/stdout, a device) is written directly. A full disk or a kill
 * never leaves half a report where the old one was. */
struct out_file {
	FILE *f;
	char path[4096];
	char tmp[4200];			/* "" when written directly */
};
/* out_file_open: -1 with err naming the file. */
int out_file_open(struct out_file *o, const char *path, char *err);
/* out_file_close: -1 with err ("PATH: cannot write: No space left on
 * device") when any write failed; the temporary is removed then. */
int out_file_close(struct out_file *o, char *err);

/* out_duration formats seconds as "3d4h", "5h12m", "7m3s" or "42s". */
const char *out_duration(double secs, char *buf, size_t sz);

#endif
