/*
 * out: what the coordinator prints. Results go to stdout (a table or JSON);
 * progress goes to stderr and only when stderr is a terminal, so pipes and
 * --json output stay clean (house style rule 9).
 */
#ifndef CF_OUT_H
#define CF_OUT_H

#include <stdio.h>

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
/* out_duration formats seconds as "3d4h", "5h12m", "7m3s" or "42s". */
const char *out_duration(double secs, char *buf, size_t sz);

#endif
