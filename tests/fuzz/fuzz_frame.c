/*
 * libFuzzer harness: the frame decoder and the HELLO/AUTH/ERROR body
 * getters on arbitrary bytes. The first byte picks a chunk size so that
 * partial reads are exercised too.
 */
#include "fuzz.h"
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "auth.h"
#include "frame.h"
#include "msg.h"
#include "json.h"

static void
bodies(const struct frame_rx *rx)
{
	char err[CF_ERRLEN], buf[32];
	uint8_t nonce[AUTH_NONCE_LEN];
	const char *s;
	uint32_t u;
	cJSON *j = cJSON_ParseWithLength((const char *)rx->body, rx->h.len);

	if (j == NULL)
		return;
	(void)json_get_u32(j, "proto", 0, 255, &u, err);
	(void)json_get_str(j, "role", 1, 32, &s, err);
	(void)json_get_strcpy(j, "version", 1, buf, sizeof(buf), err);
	(void)json_get_hex(j, "nonce", nonce, sizeof(nonce), err);
	(void)json_get_hex(j, "proof", nonce, sizeof(nonce), err);
	(void)json_opt_str(j, "message", 0, 1024, "", &s, err);
	cJSON_Delete(j);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct frame_rx rx;
	char err[CF_ERRLEN];
	size_t off = 1, used, chunk;
	int rc;

	if (size < 1)
		return 0;
	chunk = (size_t)(data[0] % 64) + 1;
	frame_rx_init(&rx);
	while (off < size) {
		size_t n = size - off < chunk ? size - off : chunk;

		rc = frame_rx_feed(&rx, data + off, n, &used, err);
		if (used > n)
			__builtin_trap();
		off += used;
		if (rc == FRAME_ERR)
			break;
		if (rc == FRAME_READY) {
			if (rx.h.len > msg_limit(rx.h.type))
				__builtin_trap();
			(void)frame_rx_verify(&rx, auth_preauth_key);
			bodies(&rx);
			frame_rx_reset(&rx);
		}
	}
	frame_rx_free(&rx);
	return 0;
}
