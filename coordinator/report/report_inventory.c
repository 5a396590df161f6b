/*
 * report_inventory: the inventory a stored run is rendered with. A run
 * keeps the text of the inventory it was measured on (matrix.c), so a
 * report shows what was measured even when the file has changed since,
 * or is not at hand: today's inventory, when given, is compared with it
 * and a difference is a warning, never a rendering of other hosts.
 */
#include "report/report_int.h"
#include "store/store.h"
#include "json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* hosts_differ: "+a -b" for the hosts of b that a lacks and of a that b
 * lacks, "" when the names are the same. */
static void
hosts_differ(const struct inventory *a, const struct inventory *b,
    char *out, size_t sz)
{
	const struct inv_host *h;
	size_t off = 0;

	out[0] = '\0';
	TAILQ_FOREACH(h, &b->hosts, entry)
		if (inventory_find((struct inventory *)a, h->name) == NULL &&
		    off < sz)
			off += (size_t)snprintf(out + off, sz - off, "%s+%s",
			    off ? " " : "", h->name);
	TAILQ_FOREACH(h, &a->hosts, entry)
		if (inventory_find((struct inventory *)b, h->name) == NULL &&
		    off < sz)
			off += (size_t)snprintf(out + off, sz - off, "%s-%s",
			    off ? " " : "", h->name);
}

int
report_inventory(const char *db, int64_t run, const char *given,
    struct inventory *inv, char *err)
{
	struct inventory today;
	struct store st;
	char path[4096], diff[512];
	const char *text = NULL;
	cJSON *opts;
	int rc;

	if (store_open_ro(&st, db, err) == -1)
		return -1;
	opts = store_run_options(&st, run, path, sizeof(path));
	store_close(&st);
	if (opts == NULL) {
		snprintf(err, CF_ERRLEN, "no run %lld in %s", (long long)run,
		    db);
		cJSON_Delete(opts);
		return -1;
	}
	/* Multi-line text: not json_get_str's (no control characters);
	 * the parser below checks it as it checks any inventory file. */
	if (cJSON_IsString(cJSON_GetObjectItem(opts, "inventory_text")))
		text = cJSON_GetObjectItem(opts, "inventory_text")->valuestring;
	if (text == NULL || strlen(text) > 4 * 1024 * 1024) {
		/* A run stored before runs kept their inventory. */
		cJSON_Delete(opts);
		if (given == NULL) {
			snprintf(err, CF_ERRLEN, "run %lld was stored without "
			    "its inventory: give it with -i (it was %s)",
			    (long long)run, path);
			return -1;
		}
		return inventory_load(given, inv, err);
	}
	rc = inventory_parse_buf(path, text, strlen(text), inv, err);
	cJSON_Delete(opts);
	if (rc == -1)
		return -1;
	if (given != NULL) {
		if (inventory_load(given, &today, err) == -1) {
			inventory_free(inv);
			return -1;
		}
		hosts_differ(inv, &today, diff, sizeof(diff));
		if (diff[0])
			fprintf(stderr, "cephfab: report: warning: %s's hosts "
			    "are not run %lld's (%s): rendered with the run's "
			    "own inventory\n", given, (long long)run, diff);
		inventory_free(&today);
	}
	return 0;
}

int
report_host_index(struct inv_host **h, int n, const char *name)
{
	int i;

	for (i = 0; i < n; i++)
		if (strcmp(h[i]->name, name) == 0)
			return i;
	return -1;
}
