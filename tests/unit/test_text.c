/* Unit tests for util/text.c: text_appendf never writes past its buffer,
 * keeps it NUL-terminated, and returns a length inside it however long
 * the pieces are (the 'off += snprintf' overflow the review found). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "cf_unit.h"

#include "text.h"

static void
test_fits(void **state)
{
	char b[16];
	size_t off = 0;

	(void)state;
	off = text_appendf(b, sizeof(b), off, "%s", "abc");
	off = text_appendf(b, sizeof(b), off, "%s%d", off ? "," : "", 42);
	assert_int_equal(off, 6);
	assert_string_equal(b, "abc,42");
}

/* Pieces longer than the buffer, again and again: the canary after the
 * buffer stays, the text is cut at size - 1, the length stays there. */
static void
test_overflow(void **state)
{
	struct {
		char b[32];
		char canary[32];
	} s;
	char piece[300];
	size_t off = 0;
	int i;

	(void)state;
	memset(&s, 'X', sizeof(s));
	memset(piece, 'A', sizeof(piece) - 1);
	piece[sizeof(piece) - 1] = '\0';
	for (i = 0; i < 5; i++) {
		off = text_appendf(s.b, sizeof(s.b), off, "%s; ", piece);
		assert_true(off < sizeof(s.b));
	}
	assert_int_equal(off, sizeof(s.b) - 1);
	assert_int_equal(strlen(s.b), sizeof(s.b) - 1);
	for (i = 0; i < (int)sizeof(s.canary); i++)
		assert_int_equal(s.canary[i], 'X');
}

/* An offset already past the end (a caller's own arithmetic) writes
 * nothing and comes back inside. */
static void
test_offset_past_end(void **state)
{
	char b[8] = "1234567";

	(void)state;
	assert_int_equal(text_appendf(b, sizeof(b), 100, "%s", "zz"), 7);
	assert_string_equal(b, "1234567");
	assert_int_equal(text_appendf(b, 0, 0, "%s", "zz"), 0);
}

CF_UNIT_MAIN(NULL, NULL,
    cmocka_unit_test(test_fits), cmocka_unit_test(test_overflow),
    cmocka_unit_test(test_offset_past_end))
