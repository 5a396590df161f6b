/*
 * watch_decode: an agent's WATCH_INTERVAL peers, checked and rebuilt from
 * the fields a watch reports (see agent/capture/analyzer.c), never the
 * agent's own tree: what a hostile or broken agent adds beside them does
 * not reach the output, the settle gate or the table.
 */
#include "watch/watch.h"
#include "json.h"
#include "netaddr.h"

#include <stdio.h>
#include <string.h>

/* The figures of one direction (tx, rx), all counts or rates. */
static const char *const dir_keys[] = { "segments", "bytes",
    "retransmissions", "fast_retransmissions", "spurious_retransmissions",
    "out_of_order", "zero_windows", "duplicate_acks", "rsts", "retrans_pct",
    "rtt_mean_us", "rtt_max_us", "rtt_samples" };

static int
dir_copy(const cJSON *p, const char *name, cJSON *to, char *err)
{
	const cJSON *d;
	cJSON *o;
	size_t k;
	double v;

	if (json_opt_obj(p, name, &d, err) == -1)
		return -1;
	if (d == NULL)
		return 0;
	o = cJSON_AddObjectToObject(to, name);
	for (k = 0; k < sizeof(dir_keys) / sizeof(dir_keys[0]); k++) {
		if (json_opt_double(d, dir_keys[k], 0, strcmp(dir_keys[k],
		    "retrans_pct") == 0 ? 100 : 1e18, -1, &v, err) == -1) {
			char m[CF_ERRLEN];

			snprintf(m, sizeof(m), "%s: %s", name, err);
			snprintf(err, CF_ERRLEN, "%s", m);
			return -1;
		}
		if (v >= 0)
			cJSON_AddNumberToObject(o, dir_keys[k], v);
	}
	return 0;
}

cJSON *
watch_peers_decode(const cJSON *body, char *err)
{
	const cJSON *peers, *p;
	cJSON *out;
	int i = 0;

	if (json_get_arr(body, "peers", 0, WATCH_MAX_PEERS_IN, &peers, NULL,
	    err) == -1)
		return NULL;
	out = cJSON_CreateArray();
	cJSON_ArrayForEach(p, peers) {
		cJSON *o = cJSON_CreateObject();
		const char *a;
		struct netaddr na;
		double tx = 0, rx = 0;
		char m[CF_ERRLEN];

		cJSON_AddItemToArray(out, o);
		err[0] = '\0';
		if (json_get_str(p, "peer", 2, NETADDR_STRLEN - 1, &a, err) == -1 ||
		    (netaddr_parse(a, &na) == -1 && snprintf(err, CF_ERRLEN,
		    "field 'peer': not an address") > 0) ||
		    json_opt_double(p, "tx_mbps", 0, 1e7, 0, &tx, err) == -1 ||
		    json_opt_double(p, "rx_mbps", 0, 1e7, 0, &rx, err) == -1 ||
		    dir_copy(p, "tx", o, err) == -1 ||
		    dir_copy(p, "rx", o, err) == -1) {
			snprintf(m, sizeof(m), "peers[%d]: %s", i, err);
			snprintf(err, CF_ERRLEN, "%s", m);
			cJSON_Delete(out);
			return NULL;
		}
		cJSON_AddStringToObject(o, "peer", a);
		cJSON_AddNumberToObject(o, "tx_mbps", tx);
		cJSON_AddNumberToObject(o, "rx_mbps", rx);
		i++;
	}
	return out;
}
