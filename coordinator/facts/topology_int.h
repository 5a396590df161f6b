/*
 * topology_int: what topology.c and topology_bonds.c share. The facts an
 * agent reported were decoded with typed getters where they arrived
 * (facts are untrusted input); these read members of that already
 * checked tree for messages, with a default for a member that is absent.
 */
#ifndef CF_FACTS_TOPOLOGY_INT_H
#define CF_FACTS_TOPOLOGY_INT_H

#include <cjson/cJSON.h>

/* jstr: member k as a string, "" when it is none. */
static inline const char *
jstr(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItem(o, k);

	return cJSON_IsString(v) ? v->valuestring : "";
}

/* jnum: member k as a number, def when it is none. */
static inline double
jnum(const cJSON *o, const char *k, double def)
{
	const cJSON *v = cJSON_GetObjectItem(o, k);

	return cJSON_IsNumber(v) ? v->valuedouble : def;
}

#endif
