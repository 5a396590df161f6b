/*
 * migrate_settle: the settle gate's look at the real Ceph traffic. While a
 * batch settles, 'cephfab watch --net cluster --json' runs as a child
 * (its own event loop and sessions; its output in a file read at each
 * poll), and a peer retransmitting more than the limit pauses the
 * migration: heartbeats and PG states can look fine while replication
 * traffic to a moved OSD is being retransmitted.
 */
#include "migrate/migrate_int.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int
migrate_watch_judge(const char *line, double limit, double min_segments,
    double *max_pct, char *why, size_t wl)
{
	cJSON *j = cJSON_Parse(line), *p;
	const char *host = "?";
	char err[CF_ERRLEN];
	int spike = 0;

	if (j == NULL || json_get_str(j, "host", 1, 255, &host, err) == -1 ||
	    !cJSON_IsArray(cJSON_GetObjectItem(j, "peers"))) {
		cJSON_Delete(j);
		return -1;
	}
	cJSON_ArrayForEach(p, cJSON_GetObjectItem(j, "peers")) {
		const cJSON *tx = cJSON_GetObjectItem(p, "tx");
		const char *peer = "?";
		double seg = 0, pct = 0;

		json_opt_str(p, "host", 1, 255, "?", &peer, err);
		if (json_opt_double(tx, "segments", 0, 1e15, 0, &seg, err) == -1 ||
		    json_opt_double(tx, "retrans_pct", 0, 100, 0, &pct, err) ==
		    -1)
			continue;
		if (seg < min_segments)
			continue;
		if (pct > *max_pct) {
			*max_pct = pct;
			snprintf(why, wl, "%s -> %s %.2f %% of %.0f segments",
			    host, peer, pct, seg);
		}
		if (pct > limit)
			spike = 1;
	}
	cJSON_Delete(j);
	return spike;
}

const char *
migrate_watch_silent(bool wanted, bool no_gate, bool started, int lines)
{
	if (!wanted || no_gate || (started && lines > 0))
		return NULL;
	return started ? "no agent reported a sample" : "it did not start";
}

void
migrate_watch_start(struct mig *g, double secs)
{
	char self[4096], dur[32], ival[32];
	const char *argv[16];
	ssize_t sl;
	int k = 0, fd;
	pid_t pid;

	g->watch_lines = 0;
	g->watch_max_pct = 0;
	g->watch_max_pair[0] = '\0';
	g->watch_off = 0;
	if (g->o->inventory == NULL || g->watch_pid > 0)
		return;
	if ((sl = readlink("/proc/self/exe", self, sizeof(self) - 1)) <= 0)
		return;
	self[sl] = '\0';
	snprintf(g->watch_path, sizeof(g->watch_path),
	    "/tmp/cephfab-watch-XXXXXX");
	if ((fd = mkstemp(g->watch_path)) == -1)
		return;
	/* As long as the settle, and a little: it ends by itself. */
	snprintf(dur, sizeof(dur), "%.0f", secs + 10);
	argv[k++] = self;
	argv[k++] = "-i";
	argv[k++] = g->o->inventory;
	if (g->o->key) {
		argv[k++] = "-k";
		argv[k++] = g->o->key;
	}
	argv[k++] = "watch";
	argv[k++] = "--net";
	argv[k++] = "cluster";
	argv[k++] = "-t";
	argv[k++] = dur;
	/* A few samples even in a short settle: its end must have one. */
	snprintf(ival, sizeof(ival), "%.1f", secs >= 15 ? 5 : secs / 3 < 1 ?
	    1 : secs / 3);
	argv[k++] = "--interval";
	argv[k++] = ival;
	argv[k++] = "--json";
	argv[k] = NULL;
	pid = fork();
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);

		dup2(fd, STDOUT_FILENO);
		if (null != -1) {
			dup2(null, STDIN_FILENO);
			dup2(null, STDERR_FILENO);
		}
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	close(fd);
	if (pid == -1) {
		unlink(g->watch_path);
		return;
	}
	g->watch_pid = pid;
}

int
migrate_watch_poll(struct mig *g, char *spike, size_t len)
{
	FILE *f;
	char *line = NULL, pair[160] = "";
	size_t cap = 0;
	ssize_t n;
	int rc = 0;

	if (g->watch_pid <= 0 || (f = fopen(g->watch_path, "r")) == NULL)
		return 0;
	if (fseek(f, g->watch_off, SEEK_SET) == -1) {
		fclose(f);
		return 0;
	}
	while ((n = getline(&line, &cap, f)) > 0) {
		double before = g->watch_max_pct;
		int r;

		if (line[n - 1] != '\n')
			break;	/* half a line: read it whole next time */
		g->watch_off += (long)n;
		r = migrate_watch_judge(line, g->o->retrans_limit,
		    g->o->retrans_min, &g->watch_max_pct, pair, sizeof(pair));
		if (r < 0)
			continue;
		g->watch_lines++;
		if (g->watch_max_pct > before)
			snprintf(g->watch_max_pair, sizeof(g->watch_max_pair),
			    "(%s)", pair);
		if (r == 1 && rc == 0) {
			rc = 1;
			snprintf(spike, len, "%s", pair);
		}
	}
	free(line);
	fclose(f);
	return rc;
}

void
migrate_reap(int pid, double grace)
{
	int st, i, n = (int)(grace * 10);

	/* Ours, by PID: TERM, then KILL if it lingers. */
	kill(pid, SIGTERM);
	for (i = 0; i < n; i++) {
		if (waitpid(pid, &st, WNOHANG) != 0)
			return;
		usleep(100000);
	}
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
}

void
migrate_watch_stop(struct mig *g)
{
	char spike[160];

	if (g->watch_pid <= 0)
		return;
	/* The last lines count in the figures, not in the verdict, which
	 * was made (and may have been another pause). */
	migrate_watch_poll(g, spike, sizeof(spike));
	migrate_reap(g->watch_pid, 5);
	g->watch_pid = 0;
	unlink(g->watch_path);
}
