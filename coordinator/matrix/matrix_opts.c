/* matrix_opts: a run's options as stored with it (the JSON in the
 * store's runs table) and put back for --resume and report, see
 * matrix.h. */
#include <stdio.h>

#include "matrix/matrix.h"
#include "json.h"

cJSON *
matrix_opts_json(const struct matrix_opts *o)
{
	cJSON *opts = cJSON_CreateObject();

	cJSON_AddNumberToObject(opts, "nets", o->nets);
	cJSON_AddNumberToObject(opts, "tests", o->tests);
	cJSON_AddNumberToObject(opts, "modes", o->modes);
	cJSON_AddNumberToObject(opts, "streams", o->streams);
	cJSON_AddNumberToObject(opts, "seconds", o->secs);
	cJSON_AddNumberToObject(opts, "rate", (double)o->rate);
	cJSON_AddStringToObject(opts, "profile", o->prof.name);
	cJSON_AddItemToObject(opts, "profile_full", profile_to_json(&o->prof));
	return opts;
}

void
matrix_restore(const cJSON *opts, struct matrix_opts *o, bool all)
{
	const cJSON *pf = cJSON_GetObjectItem(opts, "profile_full");
	char err[CF_ERRLEN];
	double v;

	if (all) {
		if (json_get_double(opts, "nets", 0, 3, &v, err) == 0)
			o->nets = (int)v;
		if (json_get_double(opts, "tests", 0, 1 << 16, &v, err) == 0)
			o->tests = (int)v;
		if (json_get_double(opts, "modes", 0, 1 << 16, &v, err) == 0)
			o->modes = (int)v;
		if (json_get_double(opts, "streams", 1, 128, &v, err) == 0)
			o->streams = (int)v;
		if (json_get_double(opts, "seconds", 0.1, 3600, &v, err) == 0)
			o->secs = v;
		if (json_get_double(opts, "rate", 0, 1e13, &v, err) == 0)
			o->rate = (uint64_t)v;
	}
	if (pf && o->prof_given && all)
		fprintf(stderr, "cephfab: --resume judges by the run's own "
		    "profile '%s', not by --profile\n", o->prof.name);
	if (pf && (!o->prof_given || all) &&
	    profile_from_json(pf, &o->prof, err) == -1)
		fprintf(stderr, "cephfab: the run's stored profile: %s; using "
		    "this command's\n", err);
}
