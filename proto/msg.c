/* msg: the message type table, see include/msg.h. */
#include "msg.h"

static const struct {
	const char *name;
	size_t limit;
	int preauth;
} msg_table[MSG_TYPE_MAX] = {
	[MSG_HELLO] = { "HELLO", 4096, 1 },
	[MSG_AUTH] = { "AUTH", 4096, 1 },
	/* STATUS replies list the host's addresses: a few hundred
	 * interfaces fit. */
	[MSG_STATUS] = { "STATUS", 256 * 1024, 0 },
	/* ERROR is allowed before auth so a refused peer learns why. */
	[MSG_ERROR] = { "ERROR", 4096, 1 },
	[MSG_BYE] = { "BYE", 1024, 1 },
	[MSG_TEST_LISTEN] = { "TEST_LISTEN", 8192, 0 },
	[MSG_TEST_CONNECT] = { "TEST_CONNECT", 8192, 0 },
	/* READY lists each stream's addresses: 1024 streams fit. */
	[MSG_TEST_READY] = { "TEST_READY", 256 * 1024, 0 },
	[MSG_TEST_START] = { "TEST_START", 1024, 0 },
	/* One interval or the totals carry TCP_INFO of every stream. */
	[MSG_TEST_INTERVAL] = { "TEST_INTERVAL", 1024 * 1024, 0 },
	[MSG_TEST_END] = { "TEST_END", 1024 * 1024, 0 },
	[MSG_TEST_ABORT] = { "TEST_ABORT", 4096, 0 },
	[MSG_PROBE_OPEN] = { "PROBE_OPEN", 16384, 0 },
	/* Results carry a histogram per message size. */
	[MSG_PROBE_RUN] = { "PROBE_RUN", 1024 * 1024, 0 },
	[MSG_PROBE_CLOSE] = { "PROBE_CLOSE", 1024, 0 },
	/* Requests list peers; replies carry every link and route. */
	[MSG_FACTS] = { "FACTS", 1024 * 1024, 0 },
	[MSG_WATCH] = { "WATCH", 8192, 0 },
	/* Up to 1,024 peers of counters. */
	[MSG_WATCH_INTERVAL] = { "WATCH_INTERVAL", 1024 * 1024, 0 },
	/* A pinglist of 4,096 peers with two addresses each. */
	[MSG_MONITOR] = { "MONITOR", 1024 * 1024, 0 },
};

const char *
msg_name(unsigned type)
{
	if (type >= MSG_TYPE_MAX || msg_table[type].name == NULL)
		return "UNKNOWN";
	return msg_table[type].name;
}

size_t
msg_limit(unsigned type)
{
	if (type >= MSG_TYPE_MAX || msg_table[type].name == NULL)
		return 0;
	return msg_table[type].limit < MSG_MAX_BODY ?
	    msg_table[type].limit : MSG_MAX_BODY;
}

int
msg_preauth(unsigned type)
{
	if (type >= MSG_TYPE_MAX || msg_table[type].name == NULL)
		return 0;
	return msg_table[type].preauth;
}
