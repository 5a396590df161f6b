/* ifaddrs: list interface addresses, see ifaddrs.h. */
#include "facts/ifaddrs.h"
#include "netaddr.h"

#include <ifaddrs.h>
#include <net/if.h>
#include <string.h>

static unsigned
ifaddrs_prefix(const struct sockaddr *mask)
{
	const uint8_t *p;
	size_t n, i;
	unsigned bits = 0;

	if (mask == NULL)
		return 0;
	if (mask->sa_family == AF_INET) {
		p = (const uint8_t *)&((const struct sockaddr_in *)mask)->sin_addr;
		n = 4;
	} else if (mask->sa_family == AF_INET6) {
		p = (const uint8_t *)&((const struct sockaddr_in6 *)mask)->sin6_addr;
		n = 16;
	} else {
		return 0;
	}
	for (i = 0; i < n; i++)
		bits += (unsigned)__builtin_popcount(p[i]);
	return bits;
}

cJSON *
ifaddrs_json(void)
{
	struct ifaddrs *ifa, *i;
	cJSON *arr;

	if (getifaddrs(&ifa) == -1)
		return NULL;
	arr = cJSON_CreateArray();
	for (i = ifa; arr && i; i = i->ifa_next) {
		struct netaddr a;
		char buf[NETADDR_STRLEN];
		cJSON *o;

		if (i->ifa_addr == NULL ||
		    netaddr_from_sockaddr(i->ifa_addr, &a, NULL) == -1)
			continue;
		o = cJSON_CreateObject();
		if (o == NULL)
			break;
		cJSON_AddStringToObject(o, "ifname", i->ifa_name);
		cJSON_AddStringToObject(o, "addr",
		    netaddr_str(&a, buf, sizeof(buf)));
		cJSON_AddNumberToObject(o, "prefix",
		    ifaddrs_prefix(i->ifa_netmask));
		cJSON_AddBoolToObject(o, "up", (i->ifa_flags & IFF_UP) != 0);
		cJSON_AddItemToArray(arr, o);
	}
	freeifaddrs(ifa);
	return arr;
}
