/*
 * ifaddrs: the addresses configured on this host, for STATUS replies.
 */
#ifndef CF_AGENT_IFADDRS_H
#define CF_AGENT_IFADDRS_H

#include <cjson/cJSON.h>

/* ifaddrs_json returns a new array of {"ifname", "addr", "prefix"} objects
 * (caller frees), or NULL when the host's addresses cannot be read. */
cJSON *ifaddrs_json(void);

#endif
