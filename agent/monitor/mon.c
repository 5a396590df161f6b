/* mon: what every file of the monitor uses: its clocks and its record of
 * the last error (for status and the log), see monitor_int.h. */
#include "monitor/monitor_int.h"
#include "log.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

double
mon_wall(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

double
mon_mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void
mon_error(struct monitor *m, const char *fmt, ...)
{
	char msg[CF_ERRLEN];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	/* The same error again (every probe to a dead route) is logged
	 * once; status shows when it last happened. */
	if (strcmp(msg, m->last_error) != 0)
		log_warnx("monitor: %s", msg);
	snprintf(m->last_error, sizeof(m->last_error), "%s", msg);
	m->last_error_at = mon_wall();
}
