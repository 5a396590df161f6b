/* pinglist: parsing and peer rotation, see pinglist.h. */
#include "monitor/pinglist.h"
#include "json.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const pl_net_names[PL_NETS] = { "public", "cluster" };

/* A name is a label value in the metrics and a word in logs: letters,
 * digits and '.', '_', '-' only, so that nothing needs escaping. */
static int
pl_name(const cJSON *o, const char *field, bool opt, char *buf,
    char *err)
{
	const char *v;
	size_t i;

	if ((opt ? json_opt_str(o, field, 0, PL_NAME_MAX - 1, "", &v, err) :
	    json_get_str(o, field, 1, PL_NAME_MAX - 1, &v, err)) == -1)
		return -1;
	for (i = 0; v[i]; i++)
		if (!((v[i] >= 'a' && v[i] <= 'z') || (v[i] >= 'A' &&
		    v[i] <= 'Z') || (v[i] >= '0' && v[i] <= '9') ||
		    v[i] == '.' || v[i] == '_' || v[i] == '-')) {
			snprintf(err, CF_ERRLEN, "field '%s': '%s' has a "
			    "character other than letters, digits, '.', '_', "
			    "'-'", field, v);
			return -1;
		}
	snprintf(buf, PL_NAME_MAX, "%s", v);
	return 0;
}

/* pl_addrs reads {"public": ADDR, "cluster": ADDR} (either may be absent)
 * from o's fields of those names. */
static int
pl_addrs(const cJSON *o, struct netaddr *addr, const char *who, char *err)
{
	const char *v;
	int n;

	for (n = 0; n < PL_NETS; n++) {
		memset(&addr[n], 0, sizeof(addr[n]));
		if (json_opt_str(o, pl_net_names[n], 0, 64, NULL, &v, err) ==
		    -1)
			return -1;
		if (v != NULL && netaddr_parse(v, &addr[n]) == -1) {
			snprintf(err, CF_ERRLEN, "%s: field '%s': '%s' is not "
			    "an address", who, pl_net_names[n], v);
			return -1;
		}
	}
	return 0;
}

static const struct pinglist *sort_pl;

static int
by_name(const void *a, const void *b)
{
	return strcmp(sort_pl->peers[*(const int *)a].name,
	    sort_pl->peers[*(const int *)b].name);
}

static int
by_rack_name(const void *a, const void *b)
{
	const struct pl_peer *x = &sort_pl->peers[*(const int *)a],
	    *y = &sort_pl->peers[*(const int *)b];
	int c = strcmp(x->rack, y->rack);

	return c ? c : strcmp(x->name, y->name);
}

/* pl_racks numbers the racks (in name order) and finds the agent's own
 * place among its rack's hosts by name. */
static int
pl_racks(struct pinglist *pl, char *err)
{
	int *ix = malloc(sizeof(int) * (size_t)(pl->npeers + 1)), i, id = -1,
	    first = 0;
	const char *last = NULL;

	if (ix == NULL) {
		snprintf(err, CF_ERRLEN, "out of memory");
		return -1;
	}
	for (i = 0; i < pl->npeers; i++)
		ix[i] = i;
	sort_pl = pl;
	qsort(ix, (size_t)pl->npeers, sizeof(int), by_name);
	for (i = 1; i < pl->npeers; i++)
		if (strcmp(pl->peers[ix[i]].name, pl->peers[ix[i - 1]].name) ==
		    0) {
			snprintf(err, CF_ERRLEN, "peers: '%s' twice",
			    pl->peers[ix[i]].name);
			free(ix);
			return -1;
		}
	qsort(ix, (size_t)pl->npeers, sizeof(int), by_rack_name);
	pl->self_rack_id = -1;
	pl->self_index = 0;
	for (i = 0; i <= pl->npeers; i++) {
		struct pl_peer *p = i < pl->npeers ? &pl->peers[ix[i]] : NULL;
		int j;

		if (p == NULL || last == NULL || strcmp(last, p->rack) != 0) {
			/* The rack that ends here: its size to each. */
			for (j = first; j < i; j++)
				pl->peers[ix[j]].rack_size = i - first;
			first = i;
			if (p == NULL)
				break;
			id++;
		}
		last = p->rack;
		p->rack_id = id;
		p->rack_pos = i - first;
		if (strcmp(p->rack, pl->rack) == 0) {
			pl->self_rack_id = id;
			if (strcmp(p->name, pl->self) < 0)
				pl->self_index++;
		}
	}
	pl->nracks = id + 1;
	free(ix);
	return 0;
}

static int
pl_peers(const cJSON *arr, struct pinglist *pl, char *err)
{
	const cJSON *e;
	int i = 0;

	pl->peers = calloc((size_t)(pl->npeers ? pl->npeers : 1),
	    sizeof(*pl->peers));
	if (pl->peers == NULL) {
		snprintf(err, CF_ERRLEN, "out of memory");
		return -1;
	}
	cJSON_ArrayForEach(e, arr) {
		struct pl_peer *p = &pl->peers[i];
		char who[PL_NAME_MAX + 16], e2[CF_ERRLEN];

		if (json_elem_obj(e, "peers", i, err) == -1)
			return -1;
		if (pl_name(e, "name", false, p->name, e2) == -1 ||
		    pl_name(e, "rack", true, p->rack, e2) == -1) {
			snprintf(err, CF_ERRLEN, "peers[%d]: %s", i, e2);
			return -1;
		}
		snprintf(who, sizeof(who), "peer %s", p->name);
		if (pl_addrs(e, p->addr, who, err) == -1)
			return -1;
		if (strcmp(p->name, pl->self) == 0) {
			snprintf(err, CF_ERRLEN, "peers: '%s' is the agent "
			    "itself", p->name);
			return -1;
		}
		i++;
	}
	return pl_racks(pl, err);
}

int
pinglist_parse(const cJSON *j, struct pinglist *pl, char *err)
{
	static const char *const modes[] = { "all", "rack" };
	const cJSON *arr, *nets;
	const char *mode;
	uint32_t port;
	int m, n;

	memset(pl, 0, sizeof(*pl));
	if (!cJSON_IsObject(j)) {
		snprintf(err, CF_ERRLEN, "pinglist: not an object");
		return -1;
	}
	if (pl_name(j, "self", false, pl->self, err) == -1 ||
	    pl_name(j, "rack", true, pl->rack, err) == -1 ||
	    json_get_u32(j, "port", 1, 65535, &port, err) == -1 ||
	    json_get_double(j, "rate", 0.01, PL_RATE_MAX, &pl->rate, err) ==
	    -1 ||
	    json_get_double(j, "mtu_every", 0, 86400, &pl->mtu_every, err) ==
	    -1 ||
	    json_get_u32(j, "timeout_ms", 10, 10000, &pl->timeout_ms, err) ==
	    -1 ||
	    json_get_hex(j, "token", pl->token, PL_TOKEN_LEN, err) == -1 ||
	    json_get_str(j, "mode", 1, 8, &mode, err) == -1 ||
	    (m = json_word("mode", mode, modes, 2, err)) == -1 ||
	    json_get_obj(j, "networks", &nets, err) == -1 ||
	    pl_addrs(nets, pl->addr, "networks", err) == -1 ||
	    json_get_arr(j, "peers", 0, PL_PEERS_MAX, &arr, &pl->npeers,
	    err) == -1)
		return -1;
	pl->port = (uint16_t)port;
	pl->rack_mode = m == 1;
	if (pl->rack_mode && (json_get_u32(j, "k", 1, PL_PEERS_MAX, &pl->k,
	    err) == -1 || json_get_double(j, "rotate", 1, 86400 * 7,
	    &pl->rotate, err) == -1))
		return -1;
	if (pl->mtu_every > 0 && pl->mtu_every < 1) {
		snprintf(err, CF_ERRLEN, "field 'mtu_every': %g s is more "
		    "often than once a second", pl->mtu_every);
		return -1;
	}
	for (n = 0; n < PL_NETS && pl->addr[n].family == 0; n++)
		;
	if (n == PL_NETS) {
		snprintf(err, CF_ERRLEN, "networks: no address of the agent's "
		    "own on public or cluster");
		return -1;
	}
	if (pl_peers(arr, pl, err) == -1) {
		pinglist_free(pl);
		return -1;
	}
	return 0;
}

void
pinglist_free(struct pinglist *pl)
{
	free(pl->peers);
	pl->peers = NULL;
	pl->npeers = 0;
}

int
pinglist_active(const struct pinglist *pl, double now, bool *active)
{
	uint64_t r = now > 0 && pl->rotate > 0 ?
	    (uint64_t)floor(now / pl->rotate) : 0;
	int i, n = 0;

	for (i = 0; i < pl->npeers; i++) {
		const struct pl_peer *p = &pl->peers[i];
		uint64_t sz = (uint64_t)p->rack_size, start;

		if (!pl->rack_mode || p->rack_id == pl->self_rack_id ||
		    sz <= pl->k) {
			active[i] = true;
		} else {
			/* Host i of a rack starts its window at i * K, moved
			 * K further each rotation: ceil(size / K) rotations
			 * cover the rack whatever i is. */
			start = (((uint64_t)pl->self_index + r) % sz) *
			    pl->k % sz;
			active[i] = ((uint64_t)p->rack_pos + sz - start) % sz <
			    pl->k;
		}
		n += active[i];
	}
	return n;
}
