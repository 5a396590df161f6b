/* child: a program with a deadline, see child.h. */
#include "child.h"
#include "clock.h"
#include "json.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/mman.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* The children running now, so that a shutdown can end them at once
 * instead of waiting for their deadlines (the agent's facts thread may be
 * in a vtysh that hangs). */
#define LIVE_MAX 64
static pthread_mutex_t live_mu = PTHREAD_MUTEX_INITIALIZER;
static pid_t live[LIVE_MAX];
static int stopping;

static void
live_add(pid_t pid)
{
	int i;

	for (i = 0; i < LIVE_MAX; i++)
		if (live[i] == 0) {
			live[i] = pid;
			return;
		}
}

static void
live_del(pid_t pid)
{
	int i;

	for (i = 0; i < LIVE_MAX; i++)
		if (live[i] == pid)
			live[i] = 0;
}

void
child_kill_all(void)
{
	int i;

	pthread_mutex_lock(&live_mu);
	stopping = 1;
	for (i = 0; i < LIVE_MAX; i++)
		if (live[i] > 0) {
			kill(-live[i], SIGKILL);
			kill(live[i], SIGKILL);
		}
	pthread_mutex_unlock(&live_mu);
}

/* reap waits for pid until end (monotonic seconds): 1 when it exited
 * (status in *st), 0 when the deadline came first. */
static int
reap(pid_t pid, double end, int *st)
{
	struct timespec ts = { 0, 10 * 1000 * 1000 };
	pid_t r;

	for (;;) {
		r = waitpid(pid, st, WNOHANG);
		if (r == pid)
			return 1;
		if (r == -1 && errno != EINTR)
			return 1;	/* not ours to wait for any more */
		if (clock_mono() >= end)
			return 0;
		nanosleep(&ts, NULL);
	}
}

/* last_line: the last non-empty line of what fd holds (its last 4 KiB),
 * printable, into err. */
static void
last_line(int fd, char *err)
{
	char b[4097], *e, *l;
	off_t end = lseek(fd, 0, SEEK_END);
	ssize_t r;

	err[0] = '\0';
	if (end <= 0)
		return;
	r = pread(fd, b, sizeof(b) - 1, end > 4096 ? end - 4096 : 0);
	if (r <= 0)
		return;
	b[r] = '\0';
	for (e = b + r; e > b && (e[-1] == '\n' || e[-1] == '\r' ||
	    e[-1] == ' '); e--)
		*(e - 1) = '\0';
	l = strrchr(b, '\n');
	l = l ? l + 1 : b;
	for (e = l; *e; e++)
		if ((unsigned char)*e < 0x20 || (unsigned char)*e == 0x7f)
			*e = ' ';
	snprintf(err, CF_ERRLEN, "%.200s", l);
}

int
child_run(const char *const *argv, double timeout, int flags, char **out,
    size_t *len, size_t max, char *err)
{
	double end = clock_mono() + timeout;
	char *buf = NULL;
	size_t n = 0, cap = 0;
	int p[2], st = 0, timed_out = 0, full = 0, efd = -1;
	pid_t pid;

	*out = NULL;
	if (len)
		*len = 0;
	if (pipe2(p, O_CLOEXEC) == -1) {
		snprintf(err, CF_ERRLEN, "pipe: %s", strerror(errno));
		return -1;
	}
	/* Its stderr apart, in memory: read once it has exited. */
	if ((flags & CHILD_ERRLINE) &&
	    (efd = memfd_create("child-stderr", MFD_CLOEXEC)) == -1) {
		snprintf(err, CF_ERRLEN, "memfd: %s", strerror(errno));
		close(p[0]);
		close(p[1]);
		return -1;
	}
	pthread_mutex_lock(&live_mu);
	pid = stopping ? -2 : fork();
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);

		dup2(p[1], STDOUT_FILENO);
		if (null != -1) {
			dup2(null, STDIN_FILENO);
			dup2(flags & CHILD_STDERR ? p[1] : null, STDERR_FILENO);
		}
		if (efd != -1)
			dup2(efd, STDERR_FILENO);
		/* Nothing of ours but stdio: a capture socket, a listener or
		 * a session opened without O_CLOEXEC is not the child's. */
		if (close_range(3, ~0u, 0) == -1) {
			int fd;

			for (fd = 3; fd < 65536; fd++)
				close(fd);
		}
		/* Its own process group: a deadline kills its children. */
		setpgid(0, 0);
		execvp(argv[0], (char *const *)argv);
		_exit(127);
	}
	if (pid > 0)
		live_add(pid);
	pthread_mutex_unlock(&live_mu);
	close(p[1]);
	if (pid < 0) {
		close(p[0]);
		if (efd != -1)
			close(efd);
		snprintf(err, CF_ERRLEN, "%s%s", pid == -2 ? "shutting down" :
		    "fork: ", pid == -2 ? "" : strerror(errno));
		return -1;
	}
	for (;;) {
		struct pollfd pf = { p[0], POLLIN, 0 };
		double left = end - clock_mono();
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
	/* Closing its output is not the end: the deadline holds until it
	 * has exited. */
	if (!timed_out && !full && reap(pid, end, &st) == 0)
		timed_out = 1;
	if (timed_out || full)
		kill(-pid, SIGKILL), kill(pid, SIGKILL);
	if (timed_out || full)
		while (waitpid(pid, &st, 0) == -1 && errno == EINTR)
			;
	pthread_mutex_lock(&live_mu);
	live_del(pid);
	pthread_mutex_unlock(&live_mu);
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
		if (efd != -1)
			close(efd);
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
	if (efd != -1) {
		if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
			last_line(efd, err);
		close(efd);
	}
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}
