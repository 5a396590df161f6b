/* monitor: MONITOR requests, the kept pinglist and status, see monitor.h. */
#include "monitor/monitor_int.h"
#include "log.h"
#include "msg.h"
#include "json.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MON_FILE "monitor.json"
#define MON_FILE_MAX (2 * 1024 * 1024)

/* --- keeping the pinglist --------------------------------------------- */

/* Saves run in a thread each (an fsync can take long on a busy disk, and
 * the loop answers other agents' probes); a save that is no longer the
 * newest when it gets the lock does nothing, so they never reorder. */
static pthread_mutex_t save_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t save_cv = PTHREAD_COND_INITIALIZER;
static uint64_t save_newest;
static int save_running;

struct save_job {
	uint64_t gen;
	char dir[PATH_MAX];
	char *text;			/* NULL: remove the file */
};

static void
save_write(const struct save_job *j)
{
	char path[PATH_MAX + 32], tmp[PATH_MAX + 48];
	size_t len = strlen(j->text), off = 0;
	int fd, dfd;

	snprintf(path, sizeof(path), "%s/%s", j->dir, MON_FILE);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC,
	    0600);
	if (fd == -1) {
		log_warn("monitor: cannot keep the pinglist: %s", tmp);
		return;
	}
	while (off < len) {
		ssize_t n = write(fd, j->text + off, len - off);

		if (n <= 0) {
			log_warn("monitor: cannot keep the pinglist: %s", tmp);
			close(fd);
			unlink(tmp);
			return;
		}
		off += (size_t)n;
	}
	if (fsync(fd) == -1 || close(fd) == -1 || rename(tmp, path) == -1) {
		log_warn("monitor: cannot keep the pinglist: %s", path);
		unlink(tmp);
		return;
	}
	if ((dfd = open(j->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) != -1) {
		fsync(dfd);
		close(dfd);
	}
}

static void *
save_thread(void *arg)
{
	struct save_job *j = arg;
	char path[PATH_MAX + 32];

	pthread_mutex_lock(&save_mu);
	if (j->gen == save_newest) {
		if (j->text != NULL) {
			save_write(j);
		} else {
			snprintf(path, sizeof(path), "%s/%s", j->dir,
			    MON_FILE);
			if (unlink(path) == -1 && errno != ENOENT)
				log_warn("monitor: %s", path);
		}
	}
	save_running--;
	pthread_cond_broadcast(&save_cv);
	pthread_mutex_unlock(&save_mu);
	free(j->text);
	free(j);
	return NULL;
}

static void
save(struct monitor *m, const char *text)
{
	struct save_job *j = calloc(1, sizeof(*j));
	pthread_attr_t at;
	pthread_t th;

	if (j == NULL)
		return;
	snprintf(j->dir, sizeof(j->dir), "%s", m->cfg->state_dir);
	j->text = text ? strdup(text) : NULL;
	pthread_mutex_lock(&save_mu);
	j->gen = ++save_newest;
	save_running++;
	pthread_mutex_unlock(&save_mu);
	pthread_attr_init(&at);
	pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
	if (pthread_create(&th, &at, save_thread, j) != 0) {
		pthread_mutex_lock(&save_mu);
		save_running--;
		pthread_mutex_unlock(&save_mu);
		mon_error(m, "cannot keep the pinglist: no thread");
		free(j->text);
		free(j);
	}
	pthread_attr_destroy(&at);
}

/* --- start, stop, status ---------------------------------------------- */

/* start: a pinglist (text: its JSON, kept) becomes the run. */
static int
start(struct monitor *m, const cJSON *plj, char *err)
{
	struct pinglist pl;
	char *text;

	if (pinglist_parse(plj, &pl, err) == -1)
		return -1;
	if (strcmp(pl.self, m->hostname) != 0)
		log_info("monitor: probing as '%s' (hostname %s)", pl.self,
		    m->hostname);
	if ((text = cJSON_PrintUnformatted(plj)) == NULL) {
		pinglist_free(&pl);
		snprintf(err, CF_ERRLEN, "out of memory");
		return -1;
	}
	/* The old run's sockets hold the port: closed first. */
	mon_run_stop(m->run);
	m->run = mon_run_start(m, &pl, text, err);
	if (m->run == NULL)
		return -1;
	m->last_error[0] = '\0';
	m->last_error_at = 0;
	log_info("monitor: probing %d peers at %g/s", m->run->nmp,
	    m->run->pl.rate);
	return 0;
}

static cJSON *
status(const struct monitor *m)
{
	cJSON *r = cJSON_CreateObject(), *o;
	const struct mon_run *x = m->run;
	double now = mon_mono();
	uint64_t lost = 0;
	int i, n, answering = 0;

	cJSON_AddStringToObject(r, "state", x ? "running" : "stopped");
	cJSON_AddBoolToObject(r, "kept", access(m->cfg->state_dir, W_OK) ==
	    0);
	if (m->last_error[0]) {
		cJSON_AddStringToObject(r, "last_error", m->last_error);
		cJSON_AddNumberToObject(r, "last_error_at", m->last_error_at);
	}
	cJSON_AddNumberToObject(r, "scrapes", (double)m->scrapes);
	if (x == NULL)
		return r;
	cJSON_AddStringToObject(r, "self", x->pl.self);
	cJSON_AddNumberToObject(r, "since", x->since);
	cJSON_AddStringToObject(r, "mode", x->pl.rack_mode ? "rack" : "all");
	cJSON_AddNumberToObject(r, "rate", x->pl.rate);
	o = cJSON_AddObjectToObject(r, "peers");
	for (n = 0; n < PL_NETS; n++)
		if (x->fd[n] != -1)
			cJSON_AddNumberToObject(o, pl_net_names[n],
			    x->nactive[n]);
	for (i = 0; i < x->nmp; i++) {
		lost += x->mp[i].lost;
		answering += x->mp[i].last_reply > 0 &&
		    now - x->mp[i].last_reply < 10 + 2 / x->pl.rate;
	}
	cJSON_AddNumberToObject(r, "answering", answering);
	cJSON_AddNumberToObject(r, "pps", x->pl.rate * (x->nactive[0] +
	    x->nactive[1]));
	cJSON_AddNumberToObject(r, "sent", (double)x->sent_total);
	cJSON_AddNumberToObject(r, "lost", (double)lost);
	cJSON_AddNumberToObject(r, "echoed", (double)x->echoed);
	cJSON_AddNumberToObject(r, "strangers", (double)x->strangers);
	return r;
}

void
monitor_message(struct monitor *m, struct conn *c, const struct frame_hdr *h,
    const cJSON *body)
{
	static const char *const ops[] = { "start", "stop", "status" };
	char err[CF_ERRLEN];
	const cJSON *plj;
	const char *op;
	cJSON *r;
	int k;

	(void)h;
	if (json_get_str(body, "op", 1, 16, &op, err) == -1 ||
	    (k = json_word("op", op, ops, 3, err)) == -1 ||
	    (k == 0 && json_get_obj(body, "pinglist", &plj, err) == -1)) {
		conn_fail(c, CONN_R_PROTO, MSG_ERR_PROTO, "MONITOR: %s", err);
		return;
	}
	if (k == 0 && start(m, plj, err) == -1) {
		r = cJSON_CreateObject();
		cJSON_AddStringToObject(r, "error", err);
		cJSON_AddStringToObject(r, "code", MSG_ERR_REFUSED);
		log_warnx("%s: monitor start refused: %s", c->peer, err);
		conn_send(c, MSG_MONITOR, MSG_F_REPLY, r);
		cJSON_Delete(r);
		return;
	}
	if (k == 0)
		save(m, m->run->text);
	if (k == 1 && m->run != NULL) {
		mon_run_stop(m->run);
		m->run = NULL;
		log_info("%s: monitor stopped", c->peer);
	}
	if (k == 1)
		save(m, NULL);
	r = status(m);
	conn_send(c, MSG_MONITOR, MSG_F_REPLY, r);
	cJSON_Delete(r);
}

/* resume: the kept pinglist, if any, taken up at start. */
static void
resume(struct monitor *m)
{
	char path[PATH_MAX + 32], err[CF_ERRLEN], *buf;
	struct stat st;
	cJSON *j;
	int fd;
	ssize_t n;

	snprintf(path, sizeof(path), "%s/%s", m->cfg->state_dir, MON_FILE);
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd == -1) {
		if (errno != ENOENT)
			mon_error(m, "%s: %s", path, strerror(errno));
		return;
	}
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode) || st.st_size <= 0 ||
	    st.st_size > MON_FILE_MAX ||
	    (buf = malloc((size_t)st.st_size)) == NULL) {
		mon_error(m, "%s: not a pinglist this agent keeps", path);
		close(fd);
		return;
	}
	n = read(fd, buf, (size_t)st.st_size);
	close(fd);
	j = n == st.st_size ? cJSON_ParseWithLength(buf, (size_t)n) : NULL;
	free(buf);
	if (j == NULL) {
		mon_error(m, "%s: not JSON (the monitor stays stopped)", path);
		return;
	}
	if (start(m, j, err) == -1)
		mon_error(m, "%s: %s (the monitor stays stopped)", path, err);
	else
		log_info("monitor: resumed from %s", path);
	cJSON_Delete(j);
}

int
monitor_init(struct monitor *m, struct ev_loop *loop,
    const struct agent_config *cfg, const char *hostname, char *err)
{
	memset(m, 0, sizeof(*m));
	m->loop = loop;
	m->cfg = cfg;
	m->hostname = hostname;
	m->mfd = -1;
	if (metrics_open(m, err) == -1)
		return -1;
	resume(m);
	return 0;
}

void
monitor_fini(struct monitor *m)
{
	struct timespec until;

	if (m->loop == NULL)
		return;
	mon_run_stop(m->run);
	m->run = NULL;
	metrics_close(m);
	/* A save in flight finishes (bounded) before the process ends, so
	 * a stop just answered is not undone by a missing unlink. */
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += 5;
	pthread_mutex_lock(&save_mu);
	while (save_running > 0 &&
	    pthread_cond_timedwait(&save_cv, &save_mu, &until) == 0)
		;
	pthread_mutex_unlock(&save_mu);
	m->loop = NULL;
}
