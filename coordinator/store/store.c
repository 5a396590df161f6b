/* store: SQLite results, see store.h. */
#include "store/store.h"
#include "json.h"

#include <stdio.h>
#include <stdlib.h>
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

static const char *store_schema =
    "PRAGMA journal_mode=WAL;"
    "CREATE TABLE IF NOT EXISTS runs (id INTEGER PRIMARY KEY, "
    "started TEXT, inventory TEXT, options TEXT, verdict TEXT, "
    "finished TEXT);"
    "CREATE TABLE IF NOT EXISTS cells (run INTEGER, network TEXT, "
    "src TEXT, dst TEXT, test TEXT, state TEXT, data TEXT, "
    "PRIMARY KEY (run, network, src, dst, test));"
    "CREATE TABLE IF NOT EXISTS findings (run INTEGER PRIMARY KEY, "
    "data TEXT);"
    "CREATE TABLE IF NOT EXISTS plans (run INTEGER PRIMARY KEY, "
    "cells INTEGER);";

/* db_result: rc, with SQLite's last error (and the file) in err when it
 * is -1. */
static int
db_result(struct store *s, int rc, char *err)
{
	if (rc == -1)
		snprintf(err, CF_ERRLEN, "%s: %s", s->path,
		    sqlite3_errmsg(s->db));
	return rc;
}

int
store_open(struct store *s, const char *path, char *err)
{
	char *msg = NULL;

	memset(s, 0, sizeof(*s));
	snprintf(s->path, sizeof(s->path), "%s", path);
	if (sqlite3_open(path, &s->db) != SQLITE_OK) {
		snprintf(err, CF_ERRLEN, "%s: %s", path, s->db ?
		    sqlite3_errmsg(s->db) : "cannot open");
		sqlite3_close(s->db);
		s->db = NULL;
		return -1;
	}
	sqlite3_busy_timeout(s->db, 5000);
	if (sqlite3_exec(s->db, store_schema, NULL, NULL, &msg) != SQLITE_OK) {
		snprintf(err, CF_ERRLEN, "%s: %s", path, msg ? msg : "schema");
		sqlite3_free(msg);
		sqlite3_close(s->db);
		s->db = NULL;
		return -1;
	}
	return 0;
}

int
store_open_ro(struct store *s, const char *path, char *err)
{
	memset(s, 0, sizeof(*s));
	snprintf(s->path, sizeof(s->path), "%s", path);
	if (access(path, F_OK) == -1) {
		snprintf(err, CF_ERRLEN, "%s: no results database there (%s)",
		    path, strerror(errno));
		return -1;
	}
	if (sqlite3_open_v2(path, &s->db, SQLITE_OPEN_READONLY, NULL) !=
	    SQLITE_OK || sqlite3_exec(s->db, "SELECT count(*) FROM runs",
	    NULL, NULL, NULL) != SQLITE_OK) {
		snprintf(err, CF_ERRLEN, "%s: not a results database (%s)",
		    path, s->db ? sqlite3_errmsg(s->db) : "cannot open");
		sqlite3_close(s->db);
		s->db = NULL;
		return -1;
	}
	sqlite3_busy_timeout(s->db, 5000);
	return 0;
}

int
store_begin(struct store *s)
{
	return sqlite3_exec(s->db, "BEGIN IMMEDIATE", NULL, NULL, NULL) ==
	    SQLITE_OK ? 0 : -1;
}

int
store_commit(struct store *s, char *err)
{
	if (sqlite3_exec(s->db, "COMMIT", NULL, NULL, NULL) == SQLITE_OK)
		return 0;
	snprintf(err, CF_ERRLEN, "%s: %s", s->path, sqlite3_errmsg(s->db));
	sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
	return -1;
}

/* cached: the statement in *slot, prepared on first use; NULL on error. */
static sqlite3_stmt *
cached(struct store *s, sqlite3_stmt **slot, const char *sql)
{
	if (*slot == NULL && sqlite3_prepare_v2(s->db, sql, -1, slot, NULL) !=
	    SQLITE_OK)
		*slot = NULL;
	return *slot;
}

/* done: a cached statement back to its unbound, unstarted state. */
static void
done(sqlite3_stmt *st)
{
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
}

void
store_close(struct store *s)
{
	sqlite3_finalize(s->put);
	sqlite3_finalize(s->add);
	sqlite3_finalize(s->each);
	s->put = s->add = s->each = NULL;
	if (s->db)
		sqlite3_close(s->db);
	s->db = NULL;
}

int64_t
store_new_run(struct store *s, const char *inventory, const cJSON *options,
    char *err)
{
	sqlite3_stmt *st;
	char *o = cJSON_PrintUnformatted(options);
	int64_t id = -1;

	if (sqlite3_prepare_v2(s->db, "INSERT INTO runs (started, inventory, "
	    "options) VALUES (datetime('now'), ?, ?)", -1, &st, NULL) !=
	    SQLITE_OK) {
		snprintf(err, CF_ERRLEN, "%s: %s", s->path,
		    sqlite3_errmsg(s->db));
		free(o);
		return -1;
	}
	sqlite3_bind_text(st, 1, inventory, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 2, o ? o : "{}", -1, SQLITE_TRANSIENT);
	if (sqlite3_step(st) == SQLITE_DONE)
		id = sqlite3_last_insert_rowid(s->db);
	else
		snprintf(err, CF_ERRLEN, "%s: %s", s->path,
		    sqlite3_errmsg(s->db));
	sqlite3_finalize(st);
	free(o);
	return id;
}

cJSON *
store_run_options(struct store *s, int64_t run, char *inventory,
    size_t invsz)
{
	sqlite3_stmt *st;
	cJSON *o = NULL;

	if (sqlite3_prepare_v2(s->db, "SELECT options, inventory FROM runs "
	    "WHERE id = ?", -1, &st, NULL) != SQLITE_OK)
		return NULL;
	sqlite3_bind_int64(st, 1, run);
	if (sqlite3_step(st) == SQLITE_ROW) {
		const char *t = (const char *)sqlite3_column_text(st, 0);
		const char *inv = (const char *)sqlite3_column_text(st, 1);

		o = cJSON_Parse(t ? t : "{}");
		snprintf(inventory, invsz, "%s", inv ? inv : "");
	}
	sqlite3_finalize(st);
	return o;
}

static int
cell_insert(struct store *s, const char *verb, int64_t run, const char *net,
    const char *src, const char *dst, const char *test, const char *state,
    const cJSON *data, char *err)
{
	sqlite3_stmt *st;
	char *d = cJSON_PrintUnformatted(data), sql[96];
	int rc = -1, replace = strcmp(verb, "INSERT OR REPLACE") == 0;

	snprintf(sql, sizeof(sql), "%s INTO cells VALUES (?, ?, ?, ?, ?, ?, "
	    "?)", verb);
	if ((st = cached(s, replace ? &s->put : &s->add, sql)) != NULL) {
		sqlite3_bind_int64(st, 1, run);
		sqlite3_bind_text(st, 2, net, -1, SQLITE_TRANSIENT);
		sqlite3_bind_text(st, 3, src, -1, SQLITE_TRANSIENT);
		sqlite3_bind_text(st, 4, dst, -1, SQLITE_TRANSIENT);
		sqlite3_bind_text(st, 5, test, -1, SQLITE_TRANSIENT);
		sqlite3_bind_text(st, 6, state, -1, SQLITE_TRANSIENT);
		sqlite3_bind_text(st, 7, d ? d : "{}", -1, SQLITE_TRANSIENT);
		if (sqlite3_step(st) == SQLITE_DONE)
			rc = sqlite3_changes(s->db) > 0;
		done(st);
	}
	free(d);
	return db_result(s, rc, err);
}

int
store_put_cell(struct store *s, int64_t run, const char *net,
    const char *src, const char *dst, const char *test, const char *state,
    const cJSON *data, char *err)
{
	return cell_insert(s, "INSERT OR REPLACE", run, net, src, dst, test,
	    state, data, err) == -1 ? -1 : 0;
}

int
store_add_cell(struct store *s, int64_t run, const char *net,
    const char *src, const char *dst, const char *test, const char *state,
    const cJSON *data, char *err)
{
	return cell_insert(s, "INSERT OR IGNORE", run, net, src, dst, test,
	    state, data, err);
}

void
store_rollback(struct store *s)
{
	sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
}

/* run_int: one integer a query of run gives (its first column of its
 * first row), -1 when there is none or the query fails (a table an
 * older database lacks). */
static int
run_int(struct store *s, const char *sql, int64_t run)
{
	sqlite3_stmt *st;
	int n = -1;

	if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_int64(st, 1, run);
	if (sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return n;
}

int
store_count(struct store *s, int64_t run)
{
	return run_int(s, "SELECT count(*) FROM cells WHERE run = ?", run);
}

/* row_cell: the row of a 'SELECT network, src, dst, test, state, data'
 * as a cell object (the caller owns it). */
static cJSON *
row_cell(sqlite3_stmt *st)
{
	static const char *k[] = { "network", "src", "dst", "test", "state" };
	const char *d = (const char *)sqlite3_column_text(st, 5);
	cJSON *c = cJSON_CreateObject();
	int i;

	for (i = 0; i < 5; i++) {
		const char *v = (const char *)sqlite3_column_text(st, i);

		cJSON_AddStringToObject(c, k[i], v ? v : "");
	}
	cJSON_AddItemToObject(c, "data", d ? cJSON_Parse(d) :
	    cJSON_CreateObject());
	return c;
}

int
store_each(struct store *s, int64_t run, const char *net, const char *test,
    void (*cb)(const cJSON *cell, void *arg), void *arg)
{
	static const char sql[] = "SELECT network, src, dst, test, state, "
	    "data FROM cells WHERE run = ?1 AND (?2 IS NULL OR network = ?2) "
	    "AND (?3 IS NULL OR test = ?3) ORDER BY rowid";
	sqlite3_stmt *st;
	int n = 0, own = s->each_busy;

	if (own ? sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK :
	    (st = cached(s, &s->each, sql)) == NULL)
		return -1;
	s->each_busy++;
	sqlite3_bind_int64(st, 1, run);
	if (net)
		sqlite3_bind_text(st, 2, net, -1, SQLITE_STATIC);
	if (test)
		sqlite3_bind_text(st, 3, test, -1, SQLITE_STATIC);
	while (sqlite3_step(st) == SQLITE_ROW) {
		cJSON *c = row_cell(st);

		cb(c, arg);
		cJSON_Delete(c);
		n++;
	}
	s->each_busy--;
	if (own)
		sqlite3_finalize(st);
	else
		done(st);
	return n;
}

cJSON *
store_cells(struct store *s, int64_t run)
{
	sqlite3_stmt *st;
	cJSON *arr = cJSON_CreateArray();

	if (sqlite3_prepare_v2(s->db, "SELECT network, src, dst, test, state, "
	    "data FROM cells WHERE run = ? ORDER BY rowid", -1, &st, NULL) !=
	    SQLITE_OK)
		return arr;
	sqlite3_bind_int64(st, 1, run);
	while (sqlite3_step(st) == SQLITE_ROW) {
		cJSON *c = row_cell(st);

		cJSON_AddItemToArray(arr, c);
	}
	sqlite3_finalize(st);
	return arr;
}

int
store_finish(struct store *s, int64_t run, const char *verdict,
    const cJSON *findings, char *err)
{
	sqlite3_stmt *st;
	char *f = cJSON_PrintUnformatted(findings);
	int rc = -1;

	if (sqlite3_prepare_v2(s->db, "UPDATE runs SET verdict = ?, "
	    "finished = datetime('now') WHERE id = ?", -1, &st, NULL) ==
	    SQLITE_OK) {
		sqlite3_bind_text(st, 1, verdict, -1, SQLITE_TRANSIENT);
		sqlite3_bind_int64(st, 2, run);
		rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -1;
		sqlite3_finalize(st);
	}
	if (rc == 0 && sqlite3_prepare_v2(s->db, "INSERT OR REPLACE INTO "
	    "findings VALUES (?, ?)", -1, &st, NULL) == SQLITE_OK) {
		sqlite3_bind_int64(st, 1, run);
		sqlite3_bind_text(st, 2, f ? f : "[]", -1, SQLITE_TRANSIENT);
		rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -1;
		sqlite3_finalize(st);
	}
	free(f);
	return db_result(s, rc, err);
}

int
store_delete_cell(struct store *s, int64_t run, const char *net,
    const char *src, const char *dst, const char *test, char *err)
{
	sqlite3_stmt *st;
	int rc = -1;

	if (sqlite3_prepare_v2(s->db, "DELETE FROM cells WHERE run = ? AND "
	    "network = ? AND src = ? AND dst = ? AND test = ?", -1, &st,
	    NULL) == SQLITE_OK) {
		sqlite3_bind_int64(st, 1, run);
		sqlite3_bind_text(st, 2, net, -1, SQLITE_TRANSIENT);
		sqlite3_bind_text(st, 3, src, -1, SQLITE_TRANSIENT);
		sqlite3_bind_text(st, 4, dst, -1, SQLITE_TRANSIENT);
		sqlite3_bind_text(st, 5, test, -1, SQLITE_TRANSIENT);
		rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -1;
		sqlite3_finalize(st);
	}
	return db_result(s, rc, err);
}

int
store_set_planned(struct store *s, int64_t run, int cells, char *err)
{
	sqlite3_stmt *st;
	int rc = -1;

	if (sqlite3_prepare_v2(s->db, "INSERT OR REPLACE INTO plans VALUES "
	    "(?, ?)", -1, &st, NULL) == SQLITE_OK) {
		sqlite3_bind_int64(st, 1, run);
		sqlite3_bind_int(st, 2, cells);
		rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -1;
		sqlite3_finalize(st);
	}
	return db_result(s, rc, err);
}

int
store_planned(struct store *s, int64_t run)
{
	/* A database of an older version has no plans table: -1. */
	return run_int(s, "SELECT cells FROM plans WHERE run = ?", run);
}

bool
store_run_finished(struct store *s, int64_t run)
{
	sqlite3_stmt *st;
	bool done = false;

	if (sqlite3_prepare_v2(s->db, "SELECT verdict FROM runs WHERE id = ?",
	    -1, &st, NULL) != SQLITE_OK)
		return false;
	sqlite3_bind_int64(st, 1, run);
	if (sqlite3_step(st) == SQLITE_ROW)
		done = sqlite3_column_type(st, 0) != SQLITE_NULL;
	sqlite3_finalize(st);
	return done;
}

const char *
store_run_verdict(struct store *s, int64_t run)
{
	static const char *const known[] = { "pass", "fail", "incomplete" };
	sqlite3_stmt *st;
	const char *v = "incomplete";
	size_t k;

	if (sqlite3_prepare_v2(s->db, "SELECT verdict FROM runs WHERE id = ?",
	    -1, &st, NULL) != SQLITE_OK)
		return v;
	sqlite3_bind_int64(st, 1, run);
	/* One of the words it stores, never the row's own text, which
	 * dies with the statement. */
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
		for (k = 0; k < sizeof(known) / sizeof(known[0]); k++)
			if (strcmp((const char *)sqlite3_column_text(st, 0),
			    known[k]) == 0)
				v = known[k];
	sqlite3_finalize(st);
	return v;
}

cJSON *
store_runs(struct store *s)
{
	sqlite3_stmt *st;
	cJSON *arr = cJSON_CreateArray();

	/* A database of an older version has no plans table. */
	if (sqlite3_prepare_v2(s->db, "SELECT id, started, inventory, verdict, "
	    "finished, (SELECT count(*) FROM cells WHERE run = runs.id), "
	    "(SELECT cells FROM plans WHERE run = runs.id) "
	    "FROM runs ORDER BY id", -1, &st, NULL) != SQLITE_OK &&
	    sqlite3_prepare_v2(s->db, "SELECT id, started, inventory, verdict, "
	    "finished, (SELECT count(*) FROM cells WHERE run = runs.id), NULL "
	    "FROM runs ORDER BY id", -1, &st, NULL) != SQLITE_OK)
		return arr;
	while (sqlite3_step(st) == SQLITE_ROW) {
		cJSON *r = cJSON_CreateObject();
		const char *v;

		cJSON_AddNumberToObject(r, "id",
		    (double)sqlite3_column_int64(st, 0));
		v = (const char *)sqlite3_column_text(st, 1);
		cJSON_AddStringToObject(r, "started", v ? v : "");
		v = (const char *)sqlite3_column_text(st, 2);
		cJSON_AddStringToObject(r, "inventory", v ? v : "");
		v = (const char *)sqlite3_column_text(st, 3);
		/* Never measured to its end: interrupted, or still running. */
		cJSON_AddStringToObject(r, "verdict", v ? v : "incomplete");
		v = (const char *)sqlite3_column_text(st, 4);
		cJSON_AddStringToObject(r, "finished", v ? v : "");
		cJSON_AddNumberToObject(r, "cells",
		    (double)sqlite3_column_int64(st, 5));
		if (sqlite3_column_type(st, 6) == SQLITE_NULL)
			cJSON_AddNullToObject(r, "planned");
		else
			cJSON_AddNumberToObject(r, "planned",
			    (double)sqlite3_column_int64(st, 6));
		cJSON_AddItemToArray(arr, r);
	}
	sqlite3_finalize(st);
	return arr;
}

cJSON *
store_findings(struct store *s, int64_t run)
{
	sqlite3_stmt *st;
	cJSON *f = NULL;

	if (sqlite3_prepare_v2(s->db, "SELECT data FROM findings WHERE run = ?",
	    -1, &st, NULL) == SQLITE_OK) {
		sqlite3_bind_int64(st, 1, run);
		if (sqlite3_step(st) == SQLITE_ROW) {
			const char *d = (const char *)sqlite3_column_text(st,
			    0);

			f = d ? cJSON_Parse(d) : NULL;
		}
		sqlite3_finalize(st);
	}
	if (f == NULL || !cJSON_IsArray(f)) {
		cJSON_Delete(f);
		f = cJSON_CreateArray();
	}
	return f;
}
