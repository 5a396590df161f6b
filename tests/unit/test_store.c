/* Unit tests for store/store.c: cells written and read back through the
 * statements the store keeps prepared, a pass nested in another's callback
 * (which cannot share the outer pass's statement), and a close that leaves
 * no statement open (sqlite3_close refuses, and leaks, otherwise: the
 * unit tests' ASan run catches that leak). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include <sqlite3.h>

#include "cf_unit.h"

#include "store/store.h"
#include "json.h"

struct pass {
	struct store *st;
	int64_t run;
	int outer, inner;
};

static void
inner_cb(const cJSON *cell, void *arg)
{
	struct pass *p = arg;

	(void)cell;
	p->inner++;
}

static void
outer_cb(const cJSON *cell, void *arg)
{
	struct pass *p = arg;

	assert_string_equal(cJSON_GetObjectItem(cell, "test")->valuestring,
	    "bw");
	p->outer++;
	/* A pass inside a pass: every cell of the run, each time. */
	assert_int_equal(store_each(p->st, p->run, NULL, NULL, inner_cb, p),
	    3);
}

static void
test_cells(void **state)
{
	struct store st;
	struct pass p;
	char err[CF_ERRLEN];
	cJSON *d = cJSON_Parse("{\"v\":1}");
	int64_t run;

	(void)state;
	assert_int_equal(store_open(&st, ":memory:", err), 0);
	assert_true((run = store_new_run(&st, "x.inv", NULL, err)) > 0);
	assert_int_equal(store_put_cell(&st, run, "public", "a", "b", "bw",
	    "ok", d, err), 0);
	assert_int_equal(store_put_cell(&st, run, "public", "a", "b", "bw",
	    "ok", d, err), 0);		/* replaced, not added */
	assert_int_equal(store_put_cell(&st, run, "cluster", "a", "b", "bw",
	    "ok", d, err), 0);
	/* add keeps what is there: 0, then 1 for a new cell. */
	assert_int_equal(store_add_cell(&st, run, "public", "a", "b", "bw",
	    "lost", d, err), 0);
	assert_int_equal(store_add_cell(&st, run, "public", "a", "b", "lat",
	    "ok", d, err), 1);
	assert_int_equal(store_count(&st, run), 3);

	memset(&p, 0, sizeof(p));
	p.st = &st;
	p.run = run;
	assert_int_equal(store_each(&st, run, NULL, "bw", outer_cb, &p), 2);
	assert_int_equal(p.outer, 2);
	assert_int_equal(p.inner, 6);
	/* The kept statement serves the next pass with new bindings. */
	p.inner = 0;
	assert_int_equal(store_each(&st, run, "public", NULL, inner_cb, &p),
	    2);
	assert_int_equal(store_each(&st, run + 1, NULL, NULL, inner_cb, &p),
	    0);
	assert_int_equal(p.inner, 2);
	/* A pass inside a transaction, rolled back: the cell is gone. */
	assert_int_equal(store_begin(&st), 0);
	assert_int_equal(store_put_cell(&st, run, "public", "b", "a", "bw",
	    "ok", d, err), 0);
	assert_int_equal(store_count(&st, run), 4);
	store_rollback(&st);
	assert_int_equal(store_count(&st, run), 3);

	/* Close finalizes what it kept: a statement left open keeps the
	 * database from closing, which the ASan run reports as a leak. */
	assert_non_null(sqlite3_next_stmt(st.db, NULL));
	store_close(&st);
	assert_null(st.db);
	cJSON_Delete(d);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cells),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
