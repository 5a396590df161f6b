/* child_run: exit status, output, the output cap and the deadline. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
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

CF_UNIT_MAIN(NULL, NULL,
    cmocka_unit_test(test_small_cap),
    cmocka_unit_test(test_status_and_deadline))
