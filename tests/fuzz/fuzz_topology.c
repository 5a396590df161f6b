/* libFuzzer harness: the FRR and facts parsers (topology.c) on arbitrary
 * JSON: as FRR's output, as a host's facts, as an agent's spread. */
#include "fuzz.h"
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "json.h"
#include "facts/topology.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct inventory inv;
	struct frr_sum s;
	char err[CF_ERRLEN];
	cJSON *j = cJSON_ParseWithLength((const char *)data, size), *hosts, *h;
	cJSON *out, *x;

	if (j == NULL)
		return 0;
	topology_frr(j, &s, err);
	x = topology_spread(j, true, err);
	cJSON_Delete(x);
	memset(&inv, 0, sizeof(inv));
	TAILQ_INIT(&inv.hosts);
	hosts = cJSON_CreateArray();
	h = cJSON_CreateObject();
	cJSON_AddStringToObject(h, "name", "h1");
	cJSON_AddItemToObject(h, "facts", j);
	cJSON_AddItemToArray(hosts, h);
	out = cJSON_CreateArray();
	topology_findings(&inv, hosts, NULL, out);
	x = topology_summary(&inv, hosts);
	cJSON_Delete(x);
	cJSON_Delete(out);
	cJSON_Delete(hosts);
	return 0;
}
