/*
 * log: a small logging module in the style of OpenBSD's log.c.
 *
 * Foreground processes log to stderr; daemons log to syslog. log_warn()
 * appends strerror(errno), log_warnx() does not; log_debug() prints only when
 * verbose logging was asked for with -v.
 */
#ifndef CF_LOG_H
#define CF_LOG_H

#include <stdarg.h>

/* log_init sets the program name, whether to log to stderr (1) or syslog (0)
 * and the verbosity (0 normal, 1 debug). It may be called again to change
 * any of them, e.g. after daemonising. */
void log_init(const char *progname, int to_stderr, int verbose);
int log_verbose(void);

void log_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_warnx(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* fatal/fatalx are only for the process's own broken state (out of memory,
 * unusable config at start-up); never for anything a peer sent. */
void fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
void fatalx(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

#endif
