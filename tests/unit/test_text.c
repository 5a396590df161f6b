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

/* Table labels: real clusters' names (ceph-osd-01..04) were all printed
 * as "ceph-os"; they become 01..04 with the shared part said once, FQDNs
 * lose their shared domain, short names stay, and names that cannot be
 * told apart within 7 characters are numbered. */
static void
test_labels(void **state)
{
	const char *osd[] = { "ceph-osd-01", "ceph-osd-02", "ceph-osd-03",
	    "ceph-osd-04" };
	const char *fq[] = { "node1.dc1.example.com", "node2.dc1.example.com",
	    "node10.dc1.example.com" };
	const char *lab[] = { "h1", "h2", "storage3" };
	const char *hard[] = { "rack-a-node-1", "rack-b-node-2" };
	const char *one[] = { "a-very-long-host-name" };
	char l[4][TEXT_LABEL];
	size_t p, q;

	(void)state;
	assert_int_equal(text_labels(osd, 4, l, &p, &q), 1);
	assert_string_equal(l[0], "01");
	assert_string_equal(l[3], "04");
	assert_int_equal(p, strlen("ceph-osd-"));
	assert_int_equal(q, 0);
	assert_int_equal(text_labels(fq, 3, l, &p, &q), 1);
	assert_string_equal(l[0], "node1");
	assert_string_equal(l[2], "node10");
	assert_int_equal(q, strlen(".dc1.example.com"));
	assert_int_equal(text_labels(lab, 2, l, &p, &q), 0);
	assert_string_equal(l[1], "h2");
	assert_int_equal(text_labels(lab, 3, l, &p, &q), 2);
	assert_string_equal(l[2], "#3");
	assert_int_equal(text_labels(hard, 2, l, &p, &q), 2);
	assert_string_equal(l[0], "#1");
	assert_int_equal(text_labels(one, 1, l, &p, &q), 2);
}

CF_UNIT_MAIN(NULL, NULL,
    cmocka_unit_test(test_fits), cmocka_unit_test(test_overflow),
    cmocka_unit_test(test_offset_past_end), cmocka_unit_test(test_labels))
