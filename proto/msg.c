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
