/* self: this program's own commands run as children (a matrix cell, a
 * sweep's stream, the planner's checks): each has its own event loop and
 * sessions, is bounded and killable by PID, and prints JSON. See
 * core.h. */
#include "core/core.h"
#include "child.h"
#include "json.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <unistd.h>

int
self_argv_begin(char **argv, const char *inventory, const char *key,
    const char *timeout)
{
	int k = 0;

	argv[k++] = "cephfab";
	argv[k++] = "-i";
	argv[k++] = (char *)inventory;
	if (key) {
		argv[k++] = "-k";
		argv[k++] = (char *)key;
	}
	argv[k++] = "--connect-timeout";
	argv[k++] = (char *)timeout;
	return k;
}

int
self_usable(char *err)
{
	/* Without it every test child fails to start, and a matrix would
	 * read as every test timing out: say it before anything runs. */
	if (access("/proc/self/exe", X_OK) == 0)
		return 0;
	snprintf(err, CF_ERRLEN, "/proc/self/exe: %s: the tests run as "
	    "children of this program through it (is /proc mounted?)",
	    strerror(errno));
	return -1;
}

pid_t
self_spawn(char *const argv[], int *fd)
{
	int p[2];
	pid_t pid;

	if (pipe2(p, O_CLOEXEC) == -1)
		return -1;
	pid = fork();
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		dup2(p[1], STDOUT_FILENO);
		if (null != -1)
			dup2(null, STDERR_FILENO);
		/* Children stop by themselves at their deadlines; a Ctrl-C
		 * on the terminal reaches them too. */
		execv("/proc/self/exe", argv);
		_exit(127);
	}
	close(p[1]);
	if (pid == -1) {
		close(p[0]);
		return -1;
	}
	*fd = p[0];
	return pid;
}

int
self_run(const char *const *args, double timeout, cJSON **out)
{
	const char *argv[32];
	char self[4096], *buf = NULL, err[CF_ERRLEN];
	ssize_t sl;
	size_t len = 0;
	int i, rc;

	*out = NULL;
	if ((sl = readlink("/proc/self/exe", self, sizeof(self) - 1)) <= 0)
		return -1;
	self[sl] = '\0';
	argv[0] = self;
	for (i = 0; args[i] && i < 30; i++)
		argv[i + 1] = args[i];
	argv[i + 1] = NULL;
	rc = child_run(argv, timeout, 0, &buf, &len, 64u << 20, err);
	if (buf)
		*out = cJSON_ParseWithLength(buf, len);
	free(buf);
	return rc;
}
