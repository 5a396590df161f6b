/*
 * migrate_probe: what a client sees during the cutover. With --probe-pool,
 * migrate forks a child that writes a small object of fresh random bytes
 * and reads it back, twice a second, with the rados CLI (each operation
 * bounded by a timeout), and logs one line per operation. At the end the
 * longest operation is the client-visible stall, and a read that returned
 * other bytes than were written is an error of its own. Health and PG
 * states say what Ceph thinks; this says what an application felt.
 */
#include "migrate/migrate_int.h"
#include "child.h"
#include "log.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#define PROBE_OBJ_LEN 4096
#define PROBE_OBJS 4
#define PROBE_OP_TIMEOUT 60.0	/* s: an op that long is a stall to report */
#define PROBE_BOUND (24 * 3600.0)	/* s: the child ends by itself */
#define PROBE_GAP_NS 500000000L

static volatile sig_atomic_t probe_stop;

static void
probe_term(int sig)
{
	(void)sig;
	probe_stop = 1;
}

/* rados: 'rados [conn] -p POOL OP OBJ [FILE]'; 0 when it succeeded. */
static int
rados(const struct migrate_opts *o, const char *op, const char *obj,
    const char *file, double timeout)
{
	const char *argv[16];
	char err[CF_ERRLEN], *out = NULL;
	size_t len;
	int k = 0, rc;

	argv[k++] = "rados";
	if (o->co.conf) {
		argv[k++] = "--conf";
		argv[k++] = o->co.conf;
	}
	if (o->co.name) {
		argv[k++] = "--name";
		argv[k++] = o->co.name;
	}
	if (o->co.keyring) {
		argv[k++] = "--keyring";
		argv[k++] = o->co.keyring;
	}
	argv[k++] = "-p";
	argv[k++] = o->probe_pool;
	argv[k++] = op;
	argv[k++] = obj;
	if (file)
		argv[k++] = file;
	argv[k] = NULL;
	rc = child_run(argv, timeout, 0, &out, &len, 4096, err);
	free(out);
	return rc == 0 ? 0 : -1;
}

static int
write_all(const char *path, const unsigned char *b, size_t n)
{
	int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	ssize_t w;

	if (fd == -1)
		return -1;
	w = write(fd, b, n);
	close(fd);
	return w == (ssize_t)n ? 0 : -1;
}

static int
same_as(const char *path, const unsigned char *b, size_t n)
{
	unsigned char r[PROBE_OBJ_LEN + 1];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t got;

	if (fd == -1)
		return 0;
	got = read(fd, r, sizeof(r));
	close(fd);
	return got == (ssize_t)n && memcmp(r, b, n) == 0;
}

/* probe_child: the loop, in the forked child; never returns. */
static void
probe_child(const struct migrate_opts *o, const char *log)
{
	char wpath[] = "/tmp/cephfab-probe-w-XXXXXX";
	char rpath[] = "/tmp/cephfab-probe-r-XXXXXX";
	char obj[PROBE_OBJS][64];
	unsigned char data[PROBE_OBJ_LEN];
	struct sigaction sa;
	double end = migrate_mono() + PROBE_BOUND;
	pid_t parent = getppid();
	FILE *f;
	int fw, fr, k;
	unsigned i;

	/* Nothing of migrate's: its journal's lock belongs to its open
	 * file, and a child holding that open would keep the lock. */
	closefrom(3);
	if ((fw = open("/dev/null", O_RDWR)) != -1) {
		dup2(fw, 0);
		dup2(fw, 1);
		dup2(fw, 2);
		if (fw > 2)
			close(fw);
	}
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (getppid() != parent)
		_exit(0);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = probe_term;
	sigaction(SIGTERM, &sa, NULL);
	if ((f = fopen(log, "ae")) == NULL)
		_exit(1);
	setvbuf(f, NULL, _IOLBF, 0);
	if ((fw = mkstemp(wpath)) == -1 || (fr = mkstemp(rpath)) == -1)
		_exit(1);
	close(fw);
	close(fr);
	for (k = 0; k < PROBE_OBJS; k++)
		snprintf(obj[k], sizeof(obj[k]), "cephfab-probe-%d-%d",
		    (int)parent, k);
	for (i = 0; !probe_stop && migrate_mono() < end; i++) {
		const char *name = obj[i % PROBE_OBJS];
		struct timespec gap = { 0, PROBE_GAP_NS };
		double t0;
		int ok;

		if (getrandom(data, sizeof(data), 0) != (ssize_t)sizeof(data) ||
		    write_all(wpath, data, sizeof(data)) == -1)
			break;
		t0 = migrate_mono();
		ok = rados(o, "put", name, wpath, PROBE_OP_TIMEOUT) == 0;
		fprintf(f, "put %s %.1f\n", ok ? "ok" : "err",
		    (migrate_mono() - t0) * 1000);
		if (ok) {
			t0 = migrate_mono();
			ok = rados(o, "get", name, rpath, PROBE_OP_TIMEOUT) ==
			    0;
			fprintf(f, "get %s %.1f\n", !ok ? "err" :
			    same_as(rpath, data, sizeof(data)) ? "ok" : "bad",
			    (migrate_mono() - t0) * 1000);
		}
		nanosleep(&gap, NULL);
	}
	/* Its objects go with it (a cluster that stalls here keeps them:
	 * cephfab-probe-PID-N in the pool). */
	for (k = 0; k < PROBE_OBJS; k++)
		rados(o, "rm", obj[k], NULL, 10);
	unlink(wpath);
	unlink(rpath);
	fclose(f);
	_exit(0);
}

void
migrate_probe_start(struct mig *g)
{
	int fd;
	pid_t pid;

	g->probe_pid = 0;
	if (g->o->probe_pool == NULL || !g->o->execute)
		return;
	snprintf(g->probe_path, sizeof(g->probe_path),
	    "/tmp/cephfab-probe-XXXXXX");
	if ((fd = mkstemp(g->probe_path)) == -1) {
		log_warnx("migrate: no client probe: %s: %s", g->probe_path,
		    strerror(errno));
		return;
	}
	close(fd);
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid == 0)
		probe_child(g->o, g->probe_path);
	if (pid == -1) {
		log_warnx("migrate: no client probe: fork: %s",
		    strerror(errno));
		unlink(g->probe_path);
		return;
	}
	g->probe_pid = pid;
}

int
migrate_probe_summary(FILE *f, struct migrate_probe *p)
{
	char op[8], st[8];
	double ms;

	memset(p, 0, sizeof(*p));
	while (fscanf(f, "%7s %7s %lf", op, st, &ms) == 3) {
		p->ops++;
		if (strcmp(st, "ok") != 0)
			p->errors++;
		if (strcmp(st, "bad") == 0)
			p->mismatches++;
		if (ms > p->longest_ms)
			p->longest_ms = ms;
	}
	return ferror(f) || !feof(f) ? -1 : 0;
}

void
migrate_probe_stop(struct mig *g, cJSON *doc)
{
	struct migrate_probe p;
	FILE *f;

	if (g->probe_pid <= 0)
		return;
	/* It finishes the operation in flight and removes its objects;
	 * a cluster that does not answer gets 15 s. */
	migrate_reap(g->probe_pid, 15);
	g->probe_pid = 0;
	f = fopen(g->probe_path, "re");
	if (f == NULL || migrate_probe_summary(f, &p) == -1) {
		log_warnx("migrate: the client probe's log is unreadable");
		if (f)
			fclose(f);
		unlink(g->probe_path);
		return;
	}
	fclose(f);
	unlink(g->probe_path);
	if (doc) {
		cJSON *c = cJSON_AddObjectToObject(doc, "client");

		cJSON_AddStringToObject(c, "pool", g->o->probe_pool);
		cJSON_AddNumberToObject(c, "ops", p.ops);
		cJSON_AddNumberToObject(c, "errors", p.errors);
		cJSON_AddNumberToObject(c, "mismatches", p.mismatches);
		cJSON_AddNumberToObject(c, "longest_stall_s",
		    round(p.longest_ms / 100) / 10);
	}
	if (!g->o->json)
		printf("client probe on pool %s: %d operations, %d errors "
		    "(%d reads with other bytes than written), longest "
		    "stall %.1f s\n", g->o->probe_pool, p.ops, p.errors,
		    p.mismatches, p.longest_ms / 1000);
}
