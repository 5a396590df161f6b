/* libFuzzer harness: traced paths, both ends. The agent's matching of an
 * ICMP or ICMPv6 answer (any bytes a router, or anyone, can send it)
 * against the probes of two flows, and the coordinator's decoder of the
 * path an agent reports for a stream (any JSON an agent can send). */
#include "fuzz.h"
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "probes/trace.h"
#include "probes/probes.h"
#include "json.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint32_t nonce[2] = { 0xabcd1200u, 0x00000000u };
	struct trace_flow f[2];
	struct netaddr from;
	char err[CF_ERRLEN], buf[256];
	cJSON *j, *p;
	int k;

	memset(f, 0, sizeof(f));
	netaddr_parse("10.1.1.11", &f[0].src);
	netaddr_parse("10.1.2.11", &f[0].dst);
	netaddr_parse("10.0.200.1", &from);
	f[0].sport = 40000;
	f[0].dport = 5201;
	f[1] = f[0];
	f[1].sport = 0;
	for (k = 0; k < 2; k++) {
		int i = trace_icmp_match(f, 2, nonce, k ? AF_INET6 : AF_INET,
		    data, size, &from);

		if (i >= 0 && (f[i].nhops < 1 || f[i].nhops > TRACE_MAX_HOPS))
			__builtin_trap();
	}
	if ((j = cJSON_ParseWithLength((const char *)data, size)) == NULL)
		return 0;
	if ((p = pair_path_decode(j, err)) != NULL) {
		pair_path_str(p, buf, sizeof(buf));
		if (strlen(buf) >= sizeof(buf))
			__builtin_trap();
		cJSON_Delete(p);
	}
	cJSON_Delete(j);
	return 0;
}
