/* report_unmeasured: the stored tests the tool itself did not measure (an
 * agent's limit, another coordinator's run, an agent down, an interrupted
 * run), taken out of the grid's lost cells so that the verdict never
 * blames the network for them; and what a run lacks to be complete. See
 * report_int.h. */
#include "report/report_int.h"
#include "json.h"
#include "store/store.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

bool
report_unmeasured_take(struct umlist *l, struct inv_host **h, int n,
    const cJSON *c, int *a, int *b, cJSON **entry)
{
	char err[CF_ERRLEN], agent[64], holder[128];
	const char *t, *s, *d, *st, *why = NULL;
	const cJSON *data;
	enum lost_cause cause;
	struct munmeasured *u;

	if (json_get_str(c, "state", 0, 16, &st, err) == -1 ||
	    strcmp(st, "lost") != 0 ||
	    json_get_str(c, "test", 0, 16, &t, err) == -1 ||
	    json_get_str(c, "src", 0, 64, &s, err) == -1 ||
	    json_get_str(c, "dst", 0, 64, &d, err) == -1 ||
	    json_get_obj(c, "data", &data, err) == -1 ||
	    json_opt_str(data, "error", 0, 512, NULL, &why, err) == -1 ||
	    why == NULL)
		return false;
	cause = lost_cause_of(why, agent, sizeof(agent), holder,
	    sizeof(holder));
	if (cause == LOST_NETWORK)
		return false;
	*a = report_host_index(h, n, s);
	*b = report_host_index(h, n, d);
	if (*a < 0 || *b < 0)
		return false;
	if (l->n == l->cap) {
		int cap = l->cap ? 2 * l->cap : 16;
		struct munmeasured *x = realloc(l->u, (size_t)cap * sizeof(*x));

		if (x == NULL)
			return false;
		l->u = x;
		l->cap = cap;
	}
	u = &l->u[l->n];
	u->src = *a;
	u->dst = *b;
	u->test = strdup(t);
	u->why = strdup(why);
	if (u->test == NULL || u->why == NULL) {
		free((char *)u->test);
		free((char *)u->why);
		return false;
	}
	l->n++;
	*entry = cJSON_CreateObject();
	cJSON_AddStringToObject(*entry, "test", t);
	cJSON_AddStringToObject(*entry, "cause", lost_cause_names[cause]);
	cJSON_AddStringToObject(*entry, "reason", why);
	return true;
}

void
report_unmeasured_free(struct umlist *l)
{
	int k;

	for (k = 0; k < l->n; k++) {
		free((char *)l->u[k].test);
		free((char *)l->u[k].why);
	}
	free(l->u);
	memset(l, 0, sizeof(*l));
}

bool
report_completeness(cJSON *doc, cJSON *fs, struct store *st, int64_t run,
    bool measuring, int unmeasured)
{
	cJSON *c = cJSON_AddObjectToObject(doc, "completeness"), *f;
	bool finished = measuring || store_run_finished(st, run);
	int stored = store_count(st, run), planned = store_planned(st, run);
	int missing = planned >= 0 && stored >= 0 && planned > stored ?
	    planned - stored : 0;

	cJSON_AddBoolToObject(c, "finished", finished);
	cJSON_AddNumberToObject(c, "cells_stored", stored);
	if (planned >= 0)
		cJSON_AddNumberToObject(c, "cells_planned", planned);
	else
		cJSON_AddNullToObject(c, "cells_planned");
	if (finished || planned >= 0)
		cJSON_AddNumberToObject(c, "cells_missing", finished ? 0 :
		    missing);
	else
		cJSON_AddNullToObject(c, "cells_missing");
	cJSON_AddNumberToObject(c, "tests_not_measured", unmeasured);
	if (!finished) {
		char what[96];

		if (planned >= 0)
			snprintf(what, sizeof(what), "%d of its %d cells not "
			    "stored", missing, planned);
		else
			snprintf(what, sizeof(what), "%d cells stored, how many "
			    "were planned unknown", stored);
		f = finding_new(fs, "not_measured", "warn", "", "complete it "
		    "with matrix --resume (a run still measuring: wait for "
		    "its end)", "run %lld did not finish (interrupted, or "
		    "still running): %s", (long long)run, what);
		finding_location(f, "run");
		cJSON_AddStringToObject(cJSON_GetObjectItem(f, "evidence"),
		    "cause", "interrupted");
		finding_num(f, "cells_missing", planned >= 0 ? missing : NAN);
	}
	return !finished || unmeasured > 0;
}

const cJSON *
report_not_measured(const cJSON *cell, const char *test)
{
	const cJSON *e;

	cJSON_ArrayForEach(e, cJSON_GetObjectItem(cell, "not_measured")) {
		const char *t = cJSON_GetStringValue(cJSON_GetObjectItem(e,
		    "test"));

		if (t && strcmp(t, test) == 0)
			return e;
	}
	return NULL;
}
