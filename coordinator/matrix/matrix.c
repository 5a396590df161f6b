/* matrix: schedule and run the cells of an all-pairs test, see matrix.h. */
#include "matrix/matrix.h"
#include "matrix/matrix_int.h"
#include "verdict/verdict.h"
#include "log.h"
#include "probes/probes.h"
#include "core/core.h"
#include "json.h"
#include "mtusearch.h"
#include "store/store.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <ev.h>

/* Indexes: 0 bw, 1 lat, 2 mtu, 3 ports; 4 and 5 the loads (matrix.h); 6
 * the latency mesh again during a load; 7 every host's facts (one job);
 * 8 Ceph's heartbeat matrix (one job). */
const char *const matrix_test_names[] = { "bw", "lat", "mtu", "ports", "a2a",
    "fanout", "lat_load", "facts", "heartbeats" };

static void job_start(struct mrun *m, struct job *j);
static void pump(struct mrun *m);
static void mesh_done(struct mrun *m, struct job *j, const cJSON *data);

/* mtu_learn reads the stored MTU cells once the probes are done: a
 * throughput test across a black hole only stalls, so it is skipped. */
static void
mtu_learn(struct mrun *m)
{
	cJSON *cells = store_cells(&m->st, m->run), *c, *r;
	char err[CF_ERRLEN];
	int n = m->n;

	m->mtu_known = true;
	m->mtu_bad = calloc((size_t)(2 * n * n), 1);
	if (m->mtu_bad == NULL) {
		cJSON_Delete(cells);
		return;
	}
	cJSON_ArrayForEach(c, cells) {
		const char *t, *net;
		const cJSON *data;

		if (json_get_str(c, "test", 0, 16, &t, err) == -1 ||
		    strcmp(t, "mtu") != 0 ||
		    json_get_str(c, "network", 0, 16, &net, err) == -1 ||
		    json_get_obj(c, "data", &data, err) == -1)
			continue;
		cJSON_ArrayForEach(r, cJSON_GetObjectItem(data, "results")) {
			const char *from, *to;
			double conf, path;
			int a, b;

			if (json_get_str(r, "from", 0, 64, &from, err) == -1 ||
			    json_get_str(r, "to", 0, 64, &to, err) == -1 ||
			    json_get_double(r, "configured", 0, 1e6, &conf,
			    err) == -1 || json_get_double(r, "path", 0, 1e6,
			    &path, err) == -1 || path >= mtu_ceiling(conf))
				continue;
			for (a = 0; a < n && strcmp(m->h[a]->name, from); a++)
				;
			for (b = 0; b < n && strcmp(m->h[b]->name, to); b++)
				;
			if (a < n && b < n) {
				int k = strcmp(net, "cluster") == 0;

				m->mtu_bad[k * n * n + a * n + b] = 1;
				m->mtu_bad[k * n * n + b * n + a] = 1;
			}
		}
	}
	cJSON_Delete(cells);
}

static bool
mtu_blocked(struct mrun *m, int net, int a, int b)
{
	if (!m->mtu_known)
		mtu_learn(m);
	return m->mtu_bad && m->mtu_bad[net * m->n * m->n + a * m->n + b];
}

/* pump_cb runs pump once the callbacks of this loop iteration are done:
 * a job that ends inside pump (a skipped cell, a failed fork) or inside
 * a child's callback never re-enters it. */
static void
pump_cb(struct ev_loop *loop, ev_idle *w, int revents)
{
	struct mrun *m = w->data;

	(void)revents;
	ev_idle_stop(loop, w);
	pump(m);
}

static void
pump_soon(struct mrun *m)
{
	ev_idle_start(m->loop, &m->pump_w);
}

/* job_done: a job's output is consumed and its cell counted. */
static void
job_done(struct mrun *m, struct job *j)
{
	if (j->t_start > 0)
		matrix_eta_learn(m, j, ev_now(m->loop) - j->t_start);
	j->finished = true;
	free(j->out);
	j->out = NULL;
	m->running--;
	m->done++;
	pump_soon(m);
}

static void job_start(struct mrun *m, struct job *j);

static void
job_retry_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct job *j = w->data;
	struct mrun *m = j->m;

	(void)loop, (void)revents;
	m->waiting--;
	if (m->interrupted) {
		j->finished = true;
		m->done++;
		pump_soon(m);
		return;
	}
	job_start(m, j);
}

/* busy_retry: a throughput cell refused because another coordinator's
 * test holds one of its agents runs again once that is over (its round
 * waits for it), for at most --wait seconds of the run in all: the other
 * operator's run is not the network's fault, and is not ours to report
 * as missing while it can still be waited for. */
static bool
busy_retry(struct mrun *m, struct job *j, const char *why)
{
	const char *left;
	double secs = 3, l;

	if (!is_tput(j->test) || m->o->no_wait || m->interrupted ||
	    lost_cause_of(why, NULL, 0, NULL, 0) != LOST_BUSY ||
	    ev_now(m->loop) - m->t0 > m->o->wait_max)
		return false;
	/* "about N s left": wait that long, within bounds. */
	if ((left = strstr(why, "about ")) != NULL &&
	    sscanf(left, "about %lf s left", &l) == 1 && l + 1 > secs)
		secs = l + 1 < 60 ? l + 1 : 60;
	if (m->busy_said++ == 0)
		log_warnx("%s -> %s: %s: measured again when it is free "
		    "(--no-wait: not waited for)", m->h[j->a]->name,
		    m->h[j->b]->name, why);
	free(j->out);
	j->out = NULL;
	j->len = j->cap = 0;
	j->eof = j->exited = false;
	j->status = 0;
	m->running--;
	m->waiting++;
	ev_timer_init(&j->retry_w, job_retry_cb, secs, 0);
	j->retry_w.data = j;
	ev_timer_start(m->loop, &j->retry_w);
	return true;
}

static void
job_finish(struct job *j)
{
	struct mrun *m = j->m;
	char err[CF_ERRLEN];
	const char *state = "ok", *why = NULL;
	cJSON *data = NULL;
	bool keep_first;
	int code = WIFEXITED(j->status) ? WEXITSTATUS(j->status) : 3;

	if (j->out)
		data = cJSON_ParseWithLength(j->out, j->len);
	if (j->test == T_CEPHHB) {
		/* One cell for the cluster: the report joins it to the
		 * pairs. */
		if (data == NULL) {
			data = cJSON_CreateObject();
			cJSON_AddStringToObject(data, "error", "ceph-heartbeats "
			    "gave no result");
		}
		if (!m->interrupted && store_put_cell(&m->st, m->run, "ceph",
		    "ceph", "ceph", "heartbeats", cJSON_GetObjectItem(data,
		    "error") ? "lost" : "ok", data, err) == -1)
			log_warnx("%s", err);
		cJSON_Delete(data);
		job_done(m, j);
		return;
	}
	if (j->test == T_FACTS) {
		/* The child stored what it got; a host without facts
		 * is simply without topology findings. */
		if (data == NULL && !m->interrupted)
			log_warnx("facts: the hosts command failed");
		cJSON_Delete(data);
		job_done(m, j);
		return;
	}
	if (j->mesh) {
		mesh_done(m, j, data);
		cJSON_Delete(data);
		job_done(m, j);
		return;
	}
	if (data == NULL) {
		data = cJSON_CreateObject();
		cJSON_AddStringToObject(data, "error", code == 2 ?
		    "the test command refused its arguments" :
		    "no result (the test was killed)");
	}
	if (code == 3 || cJSON_GetObjectItem(data, "error")) {
		state = "lost";
		if (json_opt_str(data, "error", 0, 512, "error", &why, err) == -1)
			why = "error";
	} else if (code == 1) {
		state = "findings";
	}
	/* A retest replaces the first measurement, and says so: the report
	 * shows which cells were measured twice. A retest that failed
	 * replaces nothing: a measured result is never lost (a per-pair
	 * latency run across a very lossy path can fail where the mesh's
	 * measurement stood). */
	if (why && strcmp(state, "lost") == 0 && busy_retry(m, j, why)) {
		cJSON_Delete(data);
		return;
	}
	keep_first = j->retest && strcmp(state, "lost") == 0;
	cJSON_DeleteItemFromObject(data, "retested");
	/* The pace the cell ran at: the verdict judges a paced cell by it,
	 * not by the profile's floor alone. */
	cJSON_DeleteItemFromObject(data, "paced_bps");
	if (j->pace)
		cJSON_AddNumberToObject(data, "paced_bps", (double)j->pace);
	if (j->retest)
		cJSON_AddTrueToObject(data, "retested");
	if (!m->interrupted && !keep_first) {
		if (store_put_cell(&m->st, m->run, net_name(j->net),
		    m->h[j->a]->name, m->h[j->b]->name, matrix_test_names[j->test],
		    state, data, err) == -1)
			log_warnx("%s", err);
	}
	if (why && !m->interrupted)
		log_warnx("%s%s %s -> %s on %s: %s%s", keep_first ? "retest of " :
		    "", matrix_test_names[j->test], m->h[j->a]->name,
		    m->h[j->b]->name, net_name(j->net), why, keep_first ?
		    " (the first measurement stands)" : "");
	cJSON_Delete(data);
	job_done(m, j);
}

/* mesh_done: the mesh child stored its cells itself (the parent never
 * holds a large mesh's tree); pairs it could not store, because it
 * failed or was killed, become 'lost' here. */
static void
mesh_done(struct mrun *m, struct job *j, const cJSON *data)
{
	char err[CF_ERRLEN], why[300];
	const char *e = NULL;
	int a, b;

	if (m->interrupted)
		return;
	if (data == NULL)
		snprintf(why, sizeof(why), "the mesh command ended without a "
		    "result (exit status %d)", WIFEXITED(j->status) ?
		    WEXITSTATUS(j->status) : -1);
	else if (json_opt_str(data, "error", 0, 512, NULL, &e, err) == 0 && e)
		snprintf(why, sizeof(why), "mesh: %s", e);
	else
		return;
	log_warnx("latency on %s: %s", net_name(j->net), why);
	store_begin(&m->st);
	for (a = 0; a < m->n; a++)
		for (b = a + 1; b < m->n; b++) {
			cJSON *d = cJSON_CreateObject();

			cJSON_AddStringToObject(d, "error", why);
			if (store_add_cell(&m->st, m->run, net_name(j->net),
			    m->h[a]->name, m->h[b]->name, matrix_test_names[j->test],
			    "lost", d,
			    err) == -1)
				log_warnx("%s", err);
			cJSON_Delete(d);
		}
	if (store_commit(&m->st, err) == -1)
		log_warnx("%s", err);
}

static void
job_read_cb(struct ev_loop *loop, ev_io *w, int revents)
{
	struct job *j = w->data;
	char buf[16384];
	ssize_t n;

	(void)revents;
	n = read(j->fd, buf, sizeof(buf));
	if (n > 0) {
		/* A cell's JSON is bounded: 8 MiB is far above any. */
		if (j->len + (size_t)n > 8 * 1024 * 1024)
			return;
		if (j->len + (size_t)n + 1 > j->cap) {
			size_t cap = (j->len + (size_t)n + 1) * 2;
			char *o = realloc(j->out, cap);

			/* Out of memory: the cell's output is cut, and
			 * fails to parse as the error it is. */
			if (o == NULL)
				return;
			j->out = o;
			j->cap = cap;
		}
		memcpy(j->out + j->len, buf, (size_t)n);
		j->len += (size_t)n;
		return;
	}
	if (n == -1 && (errno == EAGAIN || errno == EINTR))
		return;
	ev_io_stop(loop, &j->rw);
	close(j->fd);
	j->fd = -1;
	j->eof = true;
	if (j->exited)
		job_finish(j);
}

static void
job_child_cb(struct ev_loop *loop, ev_child *w, int revents)
{
	struct job *j = w->data;

	(void)revents;
	ev_child_stop(loop, w);
	j->status = w->rstatus;
	j->exited = true;
	j->pid = 0;
	if (j->eof)
		job_finish(j);
}

static void
job_start(struct mrun *m, struct job *j)
{
	char *argv[32], bufs[8][32];

	if (is_tput(j->test) && mtu_blocked(m, j->net, j->a, j->b)) {
		cJSON *d = cJSON_CreateObject();
		char err[CF_ERRLEN];

		cJSON_AddStringToObject(d, "skipped", "mtu_blackhole");
		if (store_put_cell(&m->st, m->run, net_name(j->net),
		    m->h[j->a]->name, m->h[j->b]->name, matrix_test_names[j->test],
		    "skipped", d, err) == -1)
			log_warnx("%s", err);
		cJSON_Delete(d);
		j->finished = true;
		m->done++;
		pump_soon(m);
		return;
	}
	if (matrix_dead_cell(m, j)) {
		j->finished = true;
		m->done++;
		pump_soon(m);
		return;
	}
	matrix_job_argv(j, argv, bufs);
	j->t_start = ev_now(m->loop);
	m->running++;
	if ((j->pid = self_spawn(argv, &j->fd)) == -1) {
		j->pid = 0;
		j->status = 3 << 8;
		j->exited = j->eof = true;
		job_finish(j);
		return;
	}
	fcntl(j->fd, F_SETFL, fcntl(j->fd, F_GETFL) | O_NONBLOCK);
	ev_io_init(&j->rw, job_read_cb, j->fd, EV_READ);
	ev_child_init(&j->cw, job_child_cb, j->pid, 0);
	j->rw.data = j->cw.data = j;
	ev_io_start(m->loop, &j->rw);
	ev_child_start(m->loop, &j->cw);
}

static int
job_round(const struct mrun *m, int idx)
{
	int r = 0;

	while (m->round_end[r] <= idx)
		r++;
	return r;
}

/* pump starts what may start: within a round, up to the concurrency (all
 * of a bandwidth round at once); the next round only when this one is
 * done. */
static void
pump(struct mrun *m)
{
	double el = ev_now(m->loop) - m->t0;

	if (m->done > 0)
		out_progress("matrix: %d/%d cells, %.0f s elapsed, about %.0f s "
		    "left", m->done, m->total, el, matrix_eta(m,
		    ev_now(m->loop)));
	while (!m->interrupted && m->next < m->nq) {
		struct job *j = m->queue[m->next];
		int r = job_round(m, m->next);
		int first = r ? m->round_end[r - 1] : 0;

		/* Earlier rounds must have finished. */
		if (m->done < first)
			break;
		if (!is_tput(j->test) && j->test != T_LATLOAD &&
		    m->running >= m->o->concurrency)
			break;
		/* A load starts together: its START time leaves every cell
		 * time to connect and set up (fork, auth, listeners). */
		if (m->next == first && (j->test == T_A2A ||
		    j->test == T_FANOUT)) {
			int cnt = m->round_end[r] - first;

			m->load_at = ev_time() + fmin(30, 2 + 0.1 * cnt);
		}
		m->next++;
		job_start(m, j);
	}
	if (m->running == 0 && m->waiting == 0 && (m->next >= m->nq ||
	    m->interrupted))
		ev_break(m->loop, EVBREAK_ALL);
}

static void
signal_cb(struct ev_loop *loop, ev_signal *w, int revents)
{
	struct mrun *m = w->data;
	int i;

	(void)revents;
	m->interrupted = true;
	out_progress_done();
	log_warnx("interrupted: stopping the running cells");
	/* The children abort their tests within 2 s on SIGINT; a cell
	 * waiting for a busy agent waits no more. */
	for (i = 0; i < m->nq; i++) {
		if (m->queue[i]->pid > 0)
			kill(m->queue[i]->pid, SIGINT);
		if (ev_is_active(&m->queue[i]->retry_w)) {
			ev_timer_stop(loop, &m->queue[i]->retry_w);
			m->waiting--;
			m->queue[i]->finished = true;
			m->done++;
		}
	}
	pump_soon(m);
}

/* run_retests measures again, each alone in a round of its own, the
 * bandwidth cells matrix_retest_plan picks, once the run is through. */
static void
run_retests(struct mrun *m)
{
	int r0 = m->nq, k, nr;
	int *re;

	if (matrix_retest_plan(m) <= 0)
		return;
	/* Each retest alone: one round per cell. */
	nr = m->nrounds;
	re = realloc(m->round_end, (size_t)(nr + (m->nq - r0) + 2) *
	    sizeof(int));
	if (re == NULL) {
		log_warnx("out of memory: no retests");
		while (m->nq > r0)
			free(m->queue[--m->nq]);
		return;
	}
	m->round_end = re;
	for (k = r0; k < m->nq; k++)
		m->round_end[nr++] = k + 1;
	m->round_end[nr] = 1 << 30;
	m->nrounds = nr;
	pump(m);
	if (m->running || m->next < m->nq)
		ev_run(m->loop, 0);
}

/* resume_forget_unmeasured: the cells the tool did not measure (an
 * agent's limit, another coordinator's run, an agent down, the
 * interruption) are measured again by a resumed run: forgotten here, in
 * the store and in the stored list the plan skips. A cell the network
 * failed stands: it was measured. */
static void
resume_forget_unmeasured(struct mrun *m)
{
	char err[CF_ERRLEN];
	const char *st, *why, *n, *s, *d, *t;
	const cJSON *data;
	cJSON *c;
	int k, forgot = 0;

	for (k = cJSON_GetArraySize(m->stored) - 1; k >= 0; k--) {
		c = cJSON_GetArrayItem(m->stored, k);
		why = NULL;
		if (json_get_str(c, "state", 0, 16, &st, err) == -1 ||
		    strcmp(st, "lost") != 0 ||
		    json_get_obj(c, "data", &data, err) == -1 ||
		    json_opt_str(data, "error", 0, 512, NULL, &why, err) == -1 ||
		    lost_cause_of(why, NULL, 0, NULL, 0) == LOST_NETWORK ||
		    json_get_str(c, "network", 0, 16, &n, err) == -1 ||
		    json_get_str(c, "src", 0, 64, &s, err) == -1 ||
		    json_get_str(c, "dst", 0, 64, &d, err) == -1 ||
		    json_get_str(c, "test", 0, 16, &t, err) == -1)
			continue;
		if (store_delete_cell(&m->st, m->run, n, s, d, t, err) == -1) {
			log_warnx("%s", err);
			continue;
		}
		cJSON_DeleteItemFromArray(m->stored, k);
		forgot++;
	}
	if (forgot)
		log_info("resume: %d cells the tool did not measure are "
		    "measured again", forgot);
}

int
matrix_run(struct inventory *inv, struct matrix_opts *io, int64_t *run)
{
	const struct matrix_opts *o = io;
	struct mrun m;
	struct matrix_opts ro;
	struct inv_host *h;
	char err[CF_ERRLEN], invpath[4096];
	cJSON *opts;
	int i, rc;

	memset(&m, 0, sizeof(m));
	m.o = o;
	m.inv = inv;
	m.n = inv->nhosts;
	m.h = calloc((size_t)m.n, sizeof(*m.h));
	i = 0;
	TAILQ_FOREACH(h, &inv->hosts, entry)
		m.h[i++] = h;
	if (m.n < 2) {
		fprintf(stderr, "cephfab: matrix: the inventory needs at least "
		    "two hosts\n");
		free(m.h);
		return EXIT_USAGE;
	}
	/* Before a run is stored: agents another coordinator holds are
	 * waited for (Ctrl-C still just quits), or with --no-wait the run
	 * does not start and leaves nothing behind. */
	if (matrix_preflight(&m) == -1) {
		matrix_preflight_free(&m);
		free(m.h);
		return EXIT_USAGE;
	}
	if (store_open(&m.st, o->db, err) == -1) {
		fprintf(stderr, "cephfab: %s\n", err);
		matrix_preflight_free(&m);
		free(m.h);
		return EXIT_RUNTIME;
	}
	if (o->resume) {
		opts = store_run_options(&m.st, o->resume, invpath,
		    sizeof(invpath));
		if (opts == NULL) {
			fprintf(stderr, "cephfab: matrix: no run %lld in %s\n",
			    (long long)o->resume, o->db);
			store_close(&m.st);
			matrix_preflight_free(&m);
			free(m.h);
			return EXIT_USAGE;
		}
		/* The run's own options, not this command line's. */
		ro = *o;
		matrix_restore(opts, &ro, true);
		o = &ro;
		m.o = o;
		cJSON_Delete(opts);
		m.run = o->resume;
		m.stored = store_cells(&m.st, m.run);
		resume_forget_unmeasured(&m);
		matrix_stored_index(&m);
		log_info("resuming run %lld: %d cells stored", (long long)m.run,
		    cJSON_GetArraySize(m.stored));
	} else {
		opts = matrix_opts_json(o);
		/* The inventory's text goes with the run: 'report' renders
		 * it later as it was measured, whatever the file says then. */
		{
			char *text = inventory_text(inv->path);

			if (text != NULL)
				cJSON_AddStringToObject(opts, "inventory_text",
				    text);
			free(text);
		}
		m.run = store_new_run(&m.st, inv->path, opts, err);
		cJSON_Delete(opts);
		if (m.run < 0) {
			fprintf(stderr, "cephfab: %s\n", err);
			store_close(&m.st);
			matrix_preflight_free(&m);
			free(m.h);
			return EXIT_RUNTIME;
		}
		m.stored = cJSON_CreateArray();
	}
	/* In a pipe too: a script reports or resumes the run by this id. */
	fprintf(stderr, "cephfab: matrix run %lld, results in %s\n",
	    (long long)m.run, o->db);
	m.loop = ev_default_loop(EVFLAG_AUTO);
	ev_signal_init(&m.sigint_w, signal_cb, SIGINT);
	ev_signal_init(&m.sigterm_w, signal_cb, SIGTERM);
	m.sigint_w.data = m.sigterm_w.data = &m;
	ev_signal_start(m.loop, &m.sigint_w);
	ev_signal_start(m.loop, &m.sigterm_w);
	ev_idle_init(&m.pump_w, pump_cb);
	m.pump_w.data = &m;
	matrix_plan(&m);
	/* A fresh run's plan: a run stored with fewer cells was not
	 * completed (report says it is incomplete, not a pass). */
	if (!o->resume && !m.oom && store_set_planned(&m.st, m.run, m.planned,
	    err) == -1)
		log_warnx("%s", err);
	if (m.oom || m.round_end == NULL) {
		/* Nothing has run: the stored run resumes as it is. */
		fprintf(stderr, "cephfab: matrix run %lld: out of memory while "
		    "planning its cells\n", (long long)m.run);
		rc = EXIT_RUNTIME;
		goto out;
	}
	m.t0 = ev_now(m.loop);
	pump(&m);
	if (m.running || m.next < m.nq)
		ev_run(m.loop, 0);
	if (!m.interrupted && (o->tests & (MT_BW | MT_LAT)))
		run_retests(&m);
	out_progress_done();
	if (m.interrupted) {
		/* Counted as runs and report count them: cells in the
		 * store against the plan's. */
		fprintf(stderr, "cephfab: matrix run %lld interrupted; %d of %d "
		    "cells stored. Resume with: cephfab -i %s matrix --db %s "
		    "--resume %lld\n", (long long)m.run, store_count(&m.st,
		    m.run), store_planned(&m.st, m.run), inv->path, o->db,
		    (long long)m.run);
		rc = EXIT_INCOMPLETE;
	} else {
		/* Measured: the caller reports the stored run (report/). */
		rc = EXIT_PASS;
		*run = m.run;
		if (o == &ro)
			*io = ro;
	}
out:
	for (i = 0; i < m.nq; i++)
		free(m.queue[i]);
	free(m.queue);
	free(m.round_end);
	free(m.mtu_bad);
	free(m.stored_idx);
	matrix_preflight_free(&m);
	free(m.h);
	cJSON_Delete(m.stored);
	ev_idle_stop(m.loop, &m.pump_w);
	ev_signal_stop(m.loop, &m.sigint_w);
	ev_signal_stop(m.loop, &m.sigterm_w);
	store_close(&m.st);
	return rc;
}
