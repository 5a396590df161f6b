/* spread: per-link byte deltas of a test, see spread.h. */
#include "engine/spread.h"
#include "facts/netlink.h"
#include "facts/ovs.h"
#include "json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int
find(const struct link_fact *l, int n, const char *name)
{
	int i;

	for (i = 0; i < n; i++)
		if (strcmp(l[i].name, name) == 0)
			return i;
	return -1;
}

static void
add(struct spread *sp, const struct link_fact *lf, const char *role)
{
	int i;

	for (i = 0; i < sp->n; i++)
		if (strcmp(sp->l[i].name, lf->name) == 0)
			return;
	if (sp->n == SPREAD_MAX)
		return;
	snprintf(sp->l[sp->n].name, IF_NAMESIZE, "%s", lf->name);
	sp->l[sp->n].role = role;
	sp->l[sp->n].tx0 = lf->tx_bytes;
	sp->l[sp->n].rx0 = lf->rx_bytes;
	sp->n++;
}

/* add_with_members: a link, or a bond's members instead of the bond. */
static void
add_with_members(struct spread *sp, const struct link_fact *l, int n, int k,
    const char *role)
{
	int i, members = 0;

	for (i = 0; l[k].is_bond && i < n; i++)
		if (l[i].master == l[k].index) {
			add(sp, &l[i], "member");
			members++;
		}
	/* An Open vSwitch internal port: the members of the bond on its
	 * bridge carry its traffic (facts/ovs.h keeps the map). */
	if (members == 0 && !l[k].is_bond) {
		char names[SPREAD_MAX][IF_NAMESIZE];
		int m = ovs_map_members(l[k].name, names, SPREAD_MAX), j;

		for (j = 0; j < m; j++)
			if ((i = find(l, n, names[j])) >= 0) {
				add(sp, &l[i], "member");
				members++;
			}
	}
	if (members == 0)
		add(sp, &l[k], role);
}

void
spread_start(struct spread *sp, const struct netaddr *local,
    const struct netaddr *peer)
{
	struct link_fact *l = NULL;
	struct route_fact rf;
	char err[CF_ERRLEN];
	int n = 0, i, k;

	memset(sp, 0, sizeof(*sp));
	if (netlink_counters(&l, &n, err) == -1) {
		snprintf(sp->error, sizeof(sp->error), "%s", err);
		return;
	}
	if (peer->family && netlink_route(peer, &rf, err) == 0)
		for (i = 0; i < rf.nnh; i++)
			if ((k = find(l, n, rf.nh[i].oif)) >= 0)
				add_with_members(sp, l, n, k, "nexthop");
	/* The link holding the local address (a loopback-sourced host's
	 * traffic leaves by the next hops above). */
	if (local->family && (k = netlink_link_of_addr(l, n, local)) >= 0 &&
	    strcmp(l[k].name, "lo") != 0)
		add_with_members(sp, l, n, k, "local");
	free(l);
}

cJSON *
spread_end(const struct spread *sp)
{
	struct link_fact *l = NULL;
	char err[CF_ERRLEN];
	cJSON *o, *arr;
	int n = 0, i, k;

	if (sp->n == 0)
		return NULL;
	o = cJSON_CreateObject();
	if (netlink_counters(&l, &n, err) == -1) {
		cJSON_AddStringToObject(o, "error", err);
		return o;
	}
	arr = cJSON_AddArrayToObject(o, "links");
	for (i = 0; i < sp->n; i++) {
		cJSON *x = cJSON_CreateObject();

		k = find(l, n, sp->l[i].name);
		cJSON_AddStringToObject(x, "name", sp->l[i].name);
		cJSON_AddStringToObject(x, "role", sp->l[i].role);
		/* Counters only grow; a link that vanished reads 0. */
		cJSON_AddNumberToObject(x, "tx_bytes", k < 0 ||
		    l[k].tx_bytes < sp->l[i].tx0 ? 0 :
		    (double)(l[k].tx_bytes - sp->l[i].tx0));
		cJSON_AddNumberToObject(x, "rx_bytes", k < 0 ||
		    l[k].rx_bytes < sp->l[i].rx0 ? 0 :
		    (double)(l[k].rx_bytes - sp->l[i].rx0));
		cJSON_AddItemToArray(arr, x);
	}
	free(l);
	return o;
}
