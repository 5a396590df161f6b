/* child: a program with a deadline, see child.h. */
#include "child.h"
#include "json.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double
mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int
child_run(const char *const *argv, double timeout, int flags, char **out,
    size_t *len, size_t max, char *err)
{
	double end = mono() + timeout;
	char *buf = NULL;
	size_t n = 0, cap = 0;
	int p[2], st = 0, timed_out = 0, full = 0;
	pid_t pid;

	*out = NULL;
	if (len)
		*len = 0;
	if (pipe2(p, O_CLOEXEC) == -1) {
		snprintf(err, CF_ERRLEN, "pipe: %s", strerror(errno));
		return -1;
	}
	pid = fork();
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);

		dup2(p[1], STDOUT_FILENO);
		if (null != -1) {
			dup2(null, STDIN_FILENO);
			dup2(flags & CHILD_STDERR ? p[1] : null, STDERR_FILENO);
		}
		/* Its own process group: a deadline kills its children. */
		setpgid(0, 0);
		execvp(argv[0], (char *const *)argv);
		_exit(127);
	}
	close(p[1]);
	if (pid == -1) {
		close(p[0]);
		snprintf(err, CF_ERRLEN, "fork: %s", strerror(errno));
		return -1;
	}
	for (;;) {
		struct pollfd pf = { p[0], POLLIN, 0 };
		double left = end - mono();
		ssize_t r;

		if (left <= 0) {
			timed_out = 1;
			break;
		}
		if (poll(&pf, 1, (int)(left * 1000) + 1) <= 0)
			continue;
		if (n + 65536 + 1 > cap) {
			/* Room for one more read past max: what tells a
			 * child that printed too much from one that did not. */
			size_t lim = max + 65536 + 1;
			size_t nc = cap ? cap * 2 : 131072;
			char *nb;

			if (nc > lim)
				nc = lim;
			if (nc <= cap || (nb = realloc(buf, nc)) == NULL) {
				full = 1;
				break;
			}
			buf = nb;
			cap = nc;
		}
		r = read(p[0], buf + n, cap - n - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		n += (size_t)r;
		if (n > max) {
			full = 1;
			break;
		}
	}
	close(p[0]);
	if (timed_out || full)
		kill(-pid, SIGKILL), kill(pid, SIGKILL);
	while (waitpid(pid, &st, 0) == -1 && errno == EINTR)
		;
	if (timed_out || full || (WIFEXITED(st) && WEXITSTATUS(st) == 127)) {
		if (timed_out)
			snprintf(err, CF_ERRLEN, "%s: no answer in %.0f s",
			    argv[0], timeout);
		else if (full)
			snprintf(err, CF_ERRLEN, "%s: more than %zu bytes of "
			    "output", argv[0], max);
		else
			snprintf(err, CF_ERRLEN, "%s: not installed (or not "
			    "executable)", argv[0]);
		free(buf);
		return -1;
	}
	if (n == 0) {
		free(buf);	/* nothing printed: NULL, as child.h says */
		buf = NULL;
	} else
		buf[n] = '\0';
	*out = buf;
	if (len)
		*len = n;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}
