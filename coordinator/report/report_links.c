/*
 * report_links: the links a run's findings named on each network, so
 * that the other network is judged knowing them (mview.other_links).
 *
 * Ceph's public and cluster networks often share the fabric's links. A
 * link that drops packets does so for both, but ECMP may have hashed only
 * one flow of the public network onto it: one bad flow names no link (it
 * could be anywhere on its path), and the public network was left with a
 * lossy_pair beside the cluster's lossy_link. Knowing that the cluster
 * network named that link, one flow is enough.
 */
#include "report/report_int.h"
#include "json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int
add(struct report_links *rl, const char *a, const char *b)
{
	char *s;
	size_t len = strlen(a) + strlen(b) + 2;

	if (rl->n == rl->cap) {
		int cap = rl->cap ? rl->cap * 2 : 8;
		char **ns = realloc(rl->s, (size_t)cap * sizeof(*ns));

		if (ns == NULL)
			return -1;
		rl->s = ns;
		rl->cap = cap;
	}
	if ((s = malloc(len)) == NULL)
		return -1;
	snprintf(s, len, "%s %s", a, b);
	rl->s[rl->n++] = s;
	return 0;
}

int
report_links_collect(struct report_links *rl, const cJSON *fs,
    const char *net)
{
	char err[CF_ERRLEN];
	const cJSON *f, *loc, *ends;
	const char *kind, *fnet, *dir, *a, *b;

	cJSON_ArrayForEach(f, fs) {
		if (json_get_str(f, "kind", 1, 64, &kind, err) == -1 ||
		    (strcmp(kind, "lossy_link") && strcmp(kind, "slow_link")) ||
		    json_get_str(f, "network", 1, 16, &fnet, err) == -1 ||
		    strcmp(fnet, net) != 0 ||
		    json_get_obj(f, "location", &loc, err) == -1 ||
		    json_get_arr(loc, "ends", 2, 2, &ends, NULL, err) == -1 ||
		    !cJSON_IsString(cJSON_GetArrayItem(ends, 0)) ||
		    !cJSON_IsString(cJSON_GetArrayItem(ends, 1)))
			continue;
		a = cJSON_GetArrayItem(ends, 0)->valuestring;
		b = cJSON_GetArrayItem(ends, 1)->valuestring;
		if (json_get_str(loc, "direction", 1, 16, &dir, err) == -1)
			dir = "both";
		if (add(rl, a, b) == -1 ||
		    (strcmp(dir, "both") == 0 && add(rl, b, a) == -1))
			return -1;
	}
	return 0;
}

void
report_links_free(struct report_links *rl)
{
	int i;

	for (i = 0; i < rl->n; i++)
		free(rl->s[i]);
	free(rl->s);
	memset(rl, 0, sizeof(*rl));
}
