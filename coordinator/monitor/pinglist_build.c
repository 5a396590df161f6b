/* pinglist_build: each agent's pinglist from the inventory, see
 * monitor_cmd.h (the agent reads it in agent/monitor/pinglist.c). */
#include "monitor/monitor_cmd.h"

#include <stdio.h>
#include <string.h>

static void
add_addrs(cJSON *o, const struct inv_host *h, int nets)
{
	char a[NETADDR_STRLEN];

	if ((nets & 1) && h->pub.family)
		cJSON_AddStringToObject(o, "public", netaddr_str(&h->pub, a,
		    sizeof(a)));
	if ((nets & 2) && h->clus.family)
		cJSON_AddStringToObject(o, "cluster", netaddr_str(&h->clus, a,
		    sizeof(a)));
}

cJSON *
pinglist_build(const struct inventory *inv, const struct inv_host *h,
    const struct monitor_opts *o, const uint8_t *token)
{
	const struct inv_host *p;
	cJSON *j, *nets, *arr;
	char hex[2 * 16 + 1];
	int i, k = o->peers;

	if (!((o->nets & 1) && h->pub.family) &&
	    !((o->nets & 2) && h->clus.family))
		return NULL;
	if (k < 0)
		k = inv->nhosts > MONITOR_ALL_MAX ? MONITOR_K_DEFAULT : 0;
	for (i = 0; i < 16; i++)
		snprintf(hex + 2 * i, 3, "%02x", token[i]);
	j = cJSON_CreateObject();
	cJSON_AddStringToObject(j, "self", h->name);
	cJSON_AddStringToObject(j, "rack", h->rack);
	cJSON_AddNumberToObject(j, "port", o->port ? o->port : inv->port);
	cJSON_AddNumberToObject(j, "rate", o->rate);
	cJSON_AddNumberToObject(j, "mtu_every", o->mtu_every);
	cJSON_AddNumberToObject(j, "timeout_ms", o->timeout_ms);
	cJSON_AddStringToObject(j, "token", hex);
	cJSON_AddStringToObject(j, "mode", k > 0 ? "rack" : "all");
	if (k > 0) {
		cJSON_AddNumberToObject(j, "k", k);
		cJSON_AddNumberToObject(j, "rotate", o->rotate);
	}
	nets = cJSON_AddObjectToObject(j, "networks");
	add_addrs(nets, h, o->nets);
	arr = cJSON_AddArrayToObject(j, "peers");
	TAILQ_FOREACH(p, &inv->hosts, entry) {
		cJSON *e;

		if (p == h)
			continue;
		e = cJSON_CreateObject();
		cJSON_AddStringToObject(e, "name", p->name);
		if (p->rack[0])
			cJSON_AddStringToObject(e, "rack", p->rack);
		add_addrs(e, p, o->nets);
		cJSON_AddItemToArray(arr, e);
	}
	return j;
}
