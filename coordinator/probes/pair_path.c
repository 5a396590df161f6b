/* pair_path: the paths the senders traced for their streams (the agent's
 * probes/trace.h): checked as untrusted input, rebuilt, printed. */
#include "probes/probes.h"
#include "json.h"
#include "text.h"

#include <stdio.h>
#include <string.h>

/* pair_path_decode returns a new path object rebuilt from what an agent
 * sent (never the agent's own tree), or NULL with err naming the field. */
cJSON *
pair_path_decode(const cJSON *p, char *err)
{
	const char *e, *dev, *gw, *ea;
	const cJSON *hops, *h;
	struct netaddr a;
	cJSON *o, *arr;
	int i = 0;

	if (json_opt_str(p, "error", 1, 120, NULL, &e, err) == -1)
		return NULL;
	o = cJSON_CreateObject();
	if (e != NULL) {
		cJSON_AddStringToObject(o, "error", e);
		return o;
	}
	if (json_opt_str(p, "egress_if", 0, 15, "", &dev, err) == -1 ||
	    json_opt_str(p, "gateway", 2, NETADDR_STRLEN - 1, "", &gw,
	    err) == -1 ||
	    json_opt_str(p, "egress_addr", 2, NETADDR_STRLEN - 1, "", &ea,
	    err) == -1 ||
	    json_get_arr(p, "hops", 0, PAIR_PATH_MAX_HOPS, &hops, NULL,
	    err) == -1) {
		cJSON_Delete(o);
		return NULL;
	}
	if ((gw[0] && netaddr_parse(gw, &a) == -1) ||
	    (ea[0] && netaddr_parse(ea, &a) == -1)) {
		snprintf(err, CF_ERRLEN, "field '%s': not an address",
		    gw[0] && netaddr_parse(gw, &a) == -1 ? "gateway" :
		    "egress_addr");
		cJSON_Delete(o);
		return NULL;
	}
	if (ea[0])
		cJSON_AddStringToObject(o, "egress_addr", ea);
	if (dev[0])
		cJSON_AddStringToObject(o, "egress_if", dev);
	if (gw[0])
		cJSON_AddStringToObject(o, "gateway", gw);
	arr = cJSON_AddArrayToObject(o, "hops");
	cJSON_ArrayForEach(h, hops) {
		if (cJSON_IsNull(h)) {
			cJSON_AddItemToArray(arr, cJSON_CreateNull());
		} else if (!cJSON_IsString(h) ||
		    strlen(h->valuestring) >= NETADDR_STRLEN ||
		    netaddr_parse(h->valuestring, &a) == -1) {
			snprintf(err, CF_ERRLEN, "field 'hops[%d]': not an "
			    "address or null", i);
			cJSON_Delete(o);
			return NULL;
		} else {
			cJSON_AddItemToArray(arr, cJSON_CreateString(
			    h->valuestring));
		}
		i++;
	}
	return o;
}

void
pair_result_free_paths(struct tresult *r)
{
	uint32_t i;

	for (i = 0; r->st && i < r->n; i++) {
		cJSON_Delete(r->st[i].snd.path);
		r->st[i].snd.path = NULL;
	}
}

/* pair_path_str writes a path as "dev > hop > * > ..." into buf. */
const char *
pair_path_str(const cJSON *path, char *buf, size_t sz)
{
	const cJSON *h, *e = cJSON_GetObjectItem(path, "error");
	const cJSON *dev = cJSON_GetObjectItem(path, "egress_if");
	size_t off = 0;

	buf[0] = '\0';
	if (cJSON_IsString(e))
		return text_appendf(buf, sz, 0, "not traced: %s",
		    e->valuestring), buf;
	if (cJSON_IsString(dev))
		off = text_appendf(buf, sz, off, "%s", dev->valuestring);
	cJSON_ArrayForEach(h, cJSON_GetObjectItem(path, "hops"))
		off = text_appendf(buf, sz, off, "%s%s", off ? " > " : "",
		    cJSON_IsString(h) ? h->valuestring : "*");
	if (cJSON_GetArraySize(cJSON_GetObjectItem(path, "hops")) == 0)
		text_appendf(buf, sz, off, "%sdirect", off ? " > " : "");
	return buf;
}

/* pair_path_lines prints every distinct path the streams of one direction
 * took, with how many streams took it: ECMP's spread as traced. */
void
pair_path_lines(const struct tresult *r, bool a_sends, const char *dn)
{
	char seen[16][256], cur[256];
	int count[16], n = 0, k;
	uint32_t i;

	for (i = 0; i < r->n; i++) {
		const struct tstream *t = &r->st[i];

		if (t->a_sends != a_sends || t->snd.path == NULL)
			continue;
		pair_path_str(t->snd.path, cur, sizeof(cur));
		for (k = 0; k < n && strcmp(seen[k], cur); k++)
			;
		if (k == n && n < 16) {
			memcpy(seen[n], cur, sizeof(cur));
			count[n++] = 0;
		}
		if (k < 16)
			count[k]++;
	}
	for (k = 0; k < n; k++)
		printf("      path %s: %s (%d stream%s)\n", dn, seen[k],
		    count[k], count[k] == 1 ? "" : "s");
}
