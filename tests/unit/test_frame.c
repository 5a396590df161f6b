/* Unit tests for proto/frame.c: encoding, incremental decoding, limits and
 * tags. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "cf_unit.h"

#include "frame.h"
#include "msg.h"
#include "json.h"

static const uint8_t key1[FRAME_KEY_LEN] = { 1, 2, 3 };
static const uint8_t key2[FRAME_KEY_LEN] = { 9, 9, 9 };

static uint8_t *
make(unsigned type, uint16_t flags, uint64_t seq, const char *body,
    const uint8_t *key, size_t *len)
{
	struct frame_hdr h = { CF_PROTO_VERSION, (uint8_t)type, flags,
	    (uint32_t)strlen(body), seq };
	char err[CF_ERRLEN];
	uint8_t *f = frame_encode(&h, body, key, len, err);

	assert_non_null(f);
	return f;
}

static void
test_round_trip(void **state)
{
	const char *body = "{\"proto\":1,\"nonce\":\"ab\"}";
	struct frame_rx rx;
	char err[CF_ERRLEN];
	size_t len, used;
	uint8_t *f;

	(void)state;
	f = make(MSG_HELLO, MSG_F_REPLY, 0x0102030405060708ull, body, key1,
	    &len);
	assert_int_equal(len, FRAME_HDR_LEN + strlen(body) + FRAME_TAG_LEN);
	frame_rx_init(&rx);
	assert_int_equal(frame_rx_feed(&rx, f, len, &used, err), FRAME_READY);
	assert_int_equal(used, len);
	assert_int_equal(rx.h.version, CF_PROTO_VERSION);
	assert_int_equal(rx.h.type, MSG_HELLO);
	assert_int_equal(rx.h.flags, MSG_F_REPLY);
	assert_true(rx.h.seq == 0x0102030405060708ull);
	assert_int_equal(rx.h.len, strlen(body));
	assert_memory_equal(rx.body, body, strlen(body));
	assert_int_equal(rx.body[rx.h.len], '\0');
	assert_int_equal(frame_rx_verify(&rx, key1), 0);
	frame_rx_free(&rx);
	free(f);
}

static void
test_empty_body(void **state)
{
	struct frame_rx rx;
	char err[CF_ERRLEN];
	size_t len, used;
	uint8_t *f = make(MSG_BYE, 0, 7, "", key1, &len);

	(void)state;
	assert_int_equal(len, FRAME_HDR_LEN + FRAME_TAG_LEN);
	frame_rx_init(&rx);
	assert_int_equal(frame_rx_feed(&rx, f, len, &used, err), FRAME_READY);
	assert_int_equal(rx.h.len, 0);
	assert_int_equal(frame_rx_verify(&rx, key1), 0);
	frame_rx_free(&rx);
	free(f);
}

/* Every prefix of a frame must be "need more", never an error or a READY,
 * and the rest must complete it exactly. */
static void
test_truncation_every_offset(void **state)
{
	const char *body = "{\"code\":\"x\",\"message\":\"hello there\"}";
	size_t len, used, k, used2;
	char err[CF_ERRLEN];
	uint8_t *f = make(MSG_ERROR, 0, 3, body, key1, &len);

	(void)state;
	for (k = 0; k < len; k++) {
		struct frame_rx rx;

		frame_rx_init(&rx);
		assert_int_equal(frame_rx_feed(&rx, f, k, &used, err),
		    FRAME_NEED_MORE);
		assert_int_equal(used, k);
		assert_int_equal(frame_rx_feed(&rx, f + k, len - k, &used2,
		    err), FRAME_READY);
		assert_int_equal(used2, len - k);
		assert_int_equal(frame_rx_verify(&rx, key1), 0);
		frame_rx_free(&rx);
	}
	free(f);
}

static void
test_byte_at_a_time(void **state)
{
	size_t len, used, i;
	char err[CF_ERRLEN];
	struct frame_rx rx;
	uint8_t *f = make(MSG_STATUS, 0, 1, "{\"a\":[1,2,3]}", key1, &len);

	(void)state;
	frame_rx_init(&rx);
	for (i = 0; i + 1 < len; i++) {
		assert_int_equal(frame_rx_feed(&rx, f + i, 1, &used, err),
		    FRAME_NEED_MORE);
		assert_int_equal(used, 1);
	}
	assert_int_equal(frame_rx_feed(&rx, f + i, 1, &used, err),
	    FRAME_READY);
	assert_int_equal(frame_rx_verify(&rx, key1), 0);
	frame_rx_free(&rx);
	free(f);
}

/* Two frames back to back: the decoder stops after the first. */
static void
test_two_frames(void **state)
{
	size_t l1, l2, used;
	char err[CF_ERRLEN];
	struct frame_rx rx;
	uint8_t *a = make(MSG_STATUS, 0, 1, "{}", key1, &l1);
	uint8_t *b = make(MSG_BYE, 0, 2, "{\"x\":1}", key1, &l2);
	uint8_t *both = malloc(l1 + l2);

	(void)state;
	memcpy(both, a, l1);
	memcpy(both + l1, b, l2);
	frame_rx_init(&rx);
	assert_int_equal(frame_rx_feed(&rx, both, l1 + l2, &used, err),
	    FRAME_READY);
	assert_int_equal(used, l1);
	assert_int_equal(rx.h.type, MSG_STATUS);
	frame_rx_reset(&rx);
	assert_int_equal(frame_rx_feed(&rx, both + l1, l2, &used, err),
	    FRAME_READY);
	assert_int_equal(rx.h.type, MSG_BYE);
	assert_int_equal(rx.h.seq, 2);
	frame_rx_free(&rx);
	free(a);
	free(b);
	free(both);
}

/* A header announcing more than the type allows is refused after the 20
 * header bytes, before any body byte is read or allocated. */
static void
test_oversize_length(void **state)
{
	struct frame_hdr h = { CF_PROTO_VERSION, MSG_HELLO, 0, 0, 0 };
	uint8_t hdr[FRAME_HDR_LEN + 8] = { 0 };
	char err[CF_ERRLEN];
	struct frame_rx rx;
	size_t used;

	(void)state;
	h.len = (uint32_t)msg_limit(MSG_HELLO) + 1;
	frame_hdr_pack(&h, hdr);
	frame_rx_init(&rx);
	assert_int_equal(frame_rx_feed(&rx, hdr, sizeof(hdr), &used, err),
	    FRAME_ERR);
	assert_int_equal(used, FRAME_HDR_LEN);
	assert_null(rx.body);
	assert_non_null(strstr(err, "exceeds the limit"));
	frame_rx_free(&rx);

	/* The largest length a u32 can say, on the largest type. */
	h.type = MSG_STATUS;
	h.len = 0xffffffffu;
	frame_hdr_pack(&h, hdr);
	frame_rx_init(&rx);
	assert_int_equal(frame_rx_feed(&rx, hdr, FRAME_HDR_LEN, &used, err),
	    FRAME_ERR);
	assert_null(rx.body);
	frame_rx_free(&rx);

	/* And the encoder refuses to build one. */
	h.type = MSG_HELLO;
	h.len = (uint32_t)msg_limit(MSG_HELLO) + 1;
	{
		char *big = calloc(1, h.len);
		size_t olen;

		assert_null(frame_encode(&h, big, key1, &olen, err));
		free(big);
	}
	/* No type may exceed the 1 MiB hard cap. */
	for (unsigned t = 0; t < 256; t++)
		assert_true(msg_limit(t) <= MSG_MAX_BODY);
}

static void
test_bad_magic_and_type(void **state)
{
	size_t len, used;
	char err[CF_ERRLEN];
	struct frame_rx rx;
	uint8_t *f = make(MSG_HELLO, 0, 0, "{}", key1, &len);

	(void)state;
	f[0] = 'X';
	frame_rx_init(&rx);
	assert_int_equal(frame_rx_feed(&rx, f, len, &used, err), FRAME_ERR);
	assert_non_null(strstr(err, "magic"));
	frame_rx_free(&rx);
	f[0] = 'C';
	f[5] = 200;	/* type */
	frame_rx_init(&rx);
	assert_int_equal(frame_rx_feed(&rx, f, len, &used, err), FRAME_ERR);
	assert_non_null(strstr(err, "unknown message type 200"));
	frame_rx_free(&rx);
	f[5] = 0;
	frame_rx_init(&rx);
	assert_int_equal(frame_rx_feed(&rx, f, len, &used, err), FRAME_ERR);
	frame_rx_free(&rx);
	free(f);
}

/* The header layout is frozen: a frame of another version still decodes,
 * so the connection can say "version mismatch" in plain words. */
static void
test_other_version_decodes(void **state)
{
	struct frame_hdr h = { 7, MSG_HELLO, 0, 2, 0 };
	char err[CF_ERRLEN];
	struct frame_rx rx;
	size_t len, used;
	uint8_t *f = frame_encode(&h, "{}", key1, &len, err);

	(void)state;
	assert_non_null(f);
	frame_rx_init(&rx);
	assert_int_equal(frame_rx_feed(&rx, f, len, &used, err), FRAME_READY);
	assert_int_equal(rx.h.version, 7);
	frame_rx_free(&rx);
	free(f);
}

/* Flipping any single bit of header, body or tag breaks the tag; a frame
 * under another key never verifies. */
static void
test_bad_mac(void **state)
{
	size_t len, used, i;
	char err[CF_ERRLEN];
	uint8_t *f = make(MSG_STATUS, 0, 5, "{\"streams\":4}", key1, &len);

	(void)state;
	for (i = 0; i < len; i++) {
		struct frame_rx rx;
		int rc;

		f[i] ^= 0x01;
		frame_rx_init(&rx);
		rc = frame_rx_feed(&rx, f, len, &used, err);
		/* A flipped header byte may make the header itself invalid
		 * (type, length): that is a refusal too. A changed length
		 * may leave the decoder waiting for more. */
		if (rc == FRAME_READY)
			assert_int_equal(frame_rx_verify(&rx, key1), -1);
		frame_rx_free(&rx);
		f[i] ^= 0x01;
	}
	{
		struct frame_rx rx;

		frame_rx_init(&rx);
		assert_int_equal(frame_rx_feed(&rx, f, len, &used, err),
		    FRAME_READY);
		assert_int_equal(frame_rx_verify(&rx, key2), -1);
		assert_int_equal(frame_rx_verify(&rx, key1), 0);
		frame_rx_free(&rx);
	}
	free(f);
}

static void
test_msg_table(void **state)
{
	(void)state;
	assert_string_equal(msg_name(MSG_HELLO), "HELLO");
	assert_string_equal(msg_name(MSG_BYE), "BYE");
	assert_string_equal(msg_name(0), "UNKNOWN");
	assert_string_equal(msg_name(250), "UNKNOWN");
	assert_int_equal(msg_limit(250), 0);
	assert_true(msg_preauth(MSG_HELLO));
	assert_true(msg_preauth(MSG_AUTH));
	assert_false(msg_preauth(MSG_STATUS));
}

CF_UNIT_MAIN(NULL, NULL,
    cmocka_unit_test(test_round_trip), cmocka_unit_test(test_empty_body),
    cmocka_unit_test(test_truncation_every_offset),
    cmocka_unit_test(test_byte_at_a_time),
    cmocka_unit_test(test_two_frames),
    cmocka_unit_test(test_oversize_length),
    cmocka_unit_test(test_bad_magic_and_type),
    cmocka_unit_test(test_other_version_decodes),
    cmocka_unit_test(test_bad_mac), cmocka_unit_test(test_msg_table))
