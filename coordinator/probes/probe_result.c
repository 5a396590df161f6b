/*
 * probe_result: readers of a stored latency result (the per-pair probe's
 * or the mesh's): a size's RTT when a reply came, its p99, its loss. The
 * report, the matrix's retests and the fuzzers share them.
 */
#include "probes/probes.h"
#include "core/core.h"
#include "json.h"

#include <math.h>

const cJSON *
probe_size_rtt(const cJSON *size)
{
	const cJSON *r;
	char err[CF_ERRLEN];
	double n;

	/* The mesh's entries carry an "rtt" only when a reply came, and no
	 * count: an rtt without one is a measured one. */
	if (json_get_obj(size, "rtt", &r, err) == -1 ||
	    json_opt_double(r, "count", 0, 1e12, 1, &n, err) == -1 || n < 1)
		return NULL;
	return r;
}

const cJSON *
probe_size_at(const cJSON *data, double size)
{
	const cJSON *sz;
	char err[CF_ERRLEN];
	double v;

	cJSON_ArrayForEach(sz, cJSON_GetObjectItem(cJSON_GetArrayItem(
	    cJSON_GetObjectItem(data, "results"), 0), "sizes"))
		if (json_get_double(sz, "size", 0, 1e6, &v, err) == 0 &&
		    v == size)
			return sz;
	return NULL;
}

double
probe_loss_at(const cJSON *data, double size)
{
	const cJSON *sz = probe_size_at(data, size);
	char err[CF_ERRLEN];
	double sent, lost, recv;

	if (sz == NULL || json_get_double(sz, "sent", 1, 1e12, &sent,
	    err) == -1)
		return NAN;
	/* The per-pair probe counts what was lost, the mesh what came. */
	if (json_get_double(sz, "lost", 0, sent, &lost, err) == 0)
		return lost / sent;
	if (json_get_double(sz, "received", 0, sent, &recv, err) == 0)
		return (sent - recv) / sent;
	return NAN;
}

double
probe_p99_at(const cJSON *data, double size)
{
	const cJSON *sz = probe_size_at(data, size), *r;
	char err[CF_ERRLEN];
	double v;

	if (sz != NULL && (r = probe_size_rtt(sz)) != NULL &&
	    json_get_double(r, "p99_us", 0, 1e12, &v, err) == 0)
		return v;
	return NAN;
}
