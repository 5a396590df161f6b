/* log: stderr or syslog logging, see include/log.h. */
#include "log.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>

static const char *log_progname = "cephfab";
static int log_to_stderr = 1;
static int log_debug_on;

void
log_init(const char *progname, int to_stderr, int verbose)
{
	log_progname = progname;
	log_to_stderr = to_stderr;
	log_debug_on = verbose;
	if (!to_stderr)
		openlog(progname, LOG_PID | LOG_NDELAY, LOG_DAEMON);
}

int
log_verbose(void)
{
	return log_debug_on;
}

static void
log_vwrite(int pri, const char *fmt, va_list ap, const char *suffix)
{
	char msg[1024];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	if (log_to_stderr) {
		struct timespec ts;
		struct tm tm;
		char tbuf[32];

		clock_gettime(CLOCK_REALTIME, &ts);
		localtime_r(&ts.tv_sec, &tm);
		strftime(tbuf, sizeof(tbuf), "%H:%M:%S", &tm);
		fprintf(stderr, "%s.%03ld %s: %s%s%s\n", tbuf,
		    ts.tv_nsec / 1000000, log_progname, msg,
		    suffix ? ": " : "", suffix ? suffix : "");
		fflush(stderr);
	} else {
		if (suffix)
			syslog(pri, "%s: %s", msg, suffix);
		else
			syslog(pri, "%s", msg);
	}
}

void
log_warn(const char *fmt, ...)
{
	va_list ap;
	/* errno is saved first: formatting may clobber it. */
	const char *e = strerror(errno);

	va_start(ap, fmt);
	log_vwrite(LOG_WARNING, fmt, ap, e);
	va_end(ap);
}

void
log_warnx(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vwrite(LOG_WARNING, fmt, ap, NULL);
	va_end(ap);
}

void
log_info(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vwrite(LOG_INFO, fmt, ap, NULL);
	va_end(ap);
}

void
log_debug(const char *fmt, ...)
{
	va_list ap;

	if (!log_debug_on)
		return;
	va_start(ap, fmt);
	log_vwrite(LOG_DEBUG, fmt, ap, NULL);
	va_end(ap);
}

void
fatal(const char *fmt, ...)
{
	va_list ap;
	const char *e = strerror(errno);

	va_start(ap, fmt);
	log_vwrite(LOG_CRIT, fmt, ap, e);
	va_end(ap);
	exit(3);
}

void
fatalx(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vwrite(LOG_CRIT, fmt, ap, NULL);
	va_end(ap);
	exit(3);
}
