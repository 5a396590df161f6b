/* child_run: exit status, output, the output cap and the deadline. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <string.h>
#include <cmocka.h>

#include "cf_unit.h"

#include "child.h"
#include "json.h"

static void
test_small_cap(void **state)
{
	const char *ok[] = { "true", NULL };
	const char *echo[] = { "echo", "hello", NULL };
	const char *big[] = { "head", "-c", "100", "/dev/zero", NULL };
	char err[CF_ERRLEN], *out;
	size_t len;

	(void)state;
	/* A cap below the first buffer's size used to refuse any child,
	 * even one that printed nothing. */
	assert_int_equal(child_run(ok, 5, 0, &out, &len, 16, err), 0);
	assert_null(out);
	assert_int_equal(child_run(echo, 5, 0, &out, &len, 16, err), 0);
	assert_non_null(out);
	assert_string_equal(out, "hello\n");
	assert_int_equal(len, 6);
	free(out);
	/* Over the cap: refused, named. */
	assert_int_equal(child_run(big, 5, 0, &out, &len, 16, err), -1);
	assert_non_null(strstr(err, "more than 16 bytes"));
	assert_null(out);
}

static void
test_status_and_deadline(void **state)
{
	const char *fail[] = { "sh", "-c", "echo why >&2; exit 3", NULL };
	const char *slow[] = { "sleep", "5", NULL };
	const char *none[] = { "cephfab-no-such-program", NULL };
	char err[CF_ERRLEN], *out;

	(void)state;
	assert_int_equal(child_run(fail, 5, CHILD_STDERR, &out, NULL, 1024,
	    err), 3);
	assert_string_equal(out, "why\n");
	free(out);
	assert_int_equal(child_run(slow, 0.2, 0, &out, NULL, 1024, err), -1);
	assert_non_null(strstr(err, "no answer"));
	assert_int_equal(child_run(none, 5, 0, &out, NULL, 1024, err), -1);
	assert_non_null(strstr(err, "not installed"));
}

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A child that closes its output and goes on running is still held to
 * its deadline; and it inherits no descriptor of ours but stdio. */
static void
test_closed_output_and_fds(void **state)
{
	const char *quiet[] = { "sh", "-c", "exec >&-; sleep 5", NULL };
	const char *fds[] = { "sh", "-c", "ls /proc/self/fd", NULL };
	char err[CF_ERRLEN], *out, *l;
	double t0;
	int leak = open("/dev/null", O_RDONLY), n = 0;	/* no O_CLOEXEC */

	(void)state;
	t0 = now();
	assert_int_equal(child_run(quiet, 0.3, 0, &out, NULL, 1024, err), -1);
	assert_true(now() - t0 < 2);
	assert_non_null(strstr(err, "no answer"));
	assert_true(leak > 2);
	assert_int_equal(child_run(fds, 5, 0, &out, NULL, 1024, err), 0);
	/* 0, 1, 2 and the one ls reads the directory with. */
	for (l = strtok(out, "\n"); l; l = strtok(NULL, "\n"))
		n++;
	assert_int_equal(n, 4);
	free(out);
	close(leak);
}

static void *
long_child(void *arg)
{
	const char *slow[] = { "sleep", "10", NULL };
	char err[CF_ERRLEN], *out;

	*(int *)arg = child_run(slow, 30, 0, &out, NULL, 1024, err);
	return NULL;
}

/* A shutdown ends the children being waited for at once, and starts no
 * more. */
/* CHILD_ERRLINE: stdout alone is the output (a CLI's JSON is not mixed
 * with its warnings), and a child that failed leaves its last line of
 * stderr in err (what "exit status 1 and no JSON" never said). */
static void
test_errline(void **state)
{
	const char *bad[] = { "sh", "-c", "echo '{}'; echo warning >&2; "
	    "printf 'Error EINVAL: no such\\tpool\\n\\n' >&2; exit 2", NULL };
	const char *good[] = { "sh", "-c", "echo '{}'; echo chatter >&2",
	    NULL };
	char err[CF_ERRLEN], *out;
	size_t len;

	(void)state;
	assert_int_equal(child_run(bad, 5, CHILD_ERRLINE, &out, &len, 1024,
	    err), 2);
	assert_string_equal(out, "{}\n");
	assert_string_equal(err, "Error EINVAL: no such pool");
	free(out);
	strcpy(err, "untouched");
	assert_int_equal(child_run(good, 5, CHILD_ERRLINE, &out, &len, 1024,
	    err), 0);
	assert_string_equal(out, "{}\n");
	assert_string_equal(err, "untouched");
	free(out);
}

static void
test_kill_all(void **state)
{
	const char *ok[] = { "true", NULL };
	char err[CF_ERRLEN], *out;
	pthread_t th;
	int rc = 0;
	double t0 = now();

	(void)state;
	assert_int_equal(pthread_create(&th, NULL, long_child, &rc), 0);
	usleep(200000);
	child_kill_all();
	pthread_join(th, NULL);
	assert_true(now() - t0 < 2);
	assert_int_not_equal(rc, 0);
	assert_int_equal(child_run(ok, 5, 0, &out, NULL, 1024, err), -1);
	assert_non_null(strstr(err, "shutting down"));
}

CF_UNIT_MAIN(NULL, NULL,
    cmocka_unit_test(test_closed_output_and_fds),
    cmocka_unit_test(test_small_cap),
    cmocka_unit_test(test_status_and_deadline),
    cmocka_unit_test(test_errline),
    /* Last: child_kill_all refuses every child after it. */
    cmocka_unit_test(test_kill_all))
