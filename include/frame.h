/*
 * frame: the one framing used on every control socket.
 *
 *   0      4        5     6       8        12       20        20+len
 *   +------+--------+-----+-------+--------+--------+---------+----------+
 *   |magic |version |type |flags  |length  |seq     | body    | HMAC tag |
 *   |"CFAB"|u8      |u8   |u16 BE |u32 BE  |u64 BE  | JSON    | 32 bytes |
 *   +------+--------+-----+-------+--------+--------+---------+----------+
 *
 * The tag is HMAC-SHA256 over header and body. The header layout is frozen
 * for all protocol versions, so a peer of another version can always be told
 * so in plain words. The length is checked against the type's limit
 * (msg_limit) before the body is allocated.
 */
#ifndef CF_FRAME_H
#define CF_FRAME_H

#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>

#define FRAME_MAGIC 0x43464142u	/* "CFAB" */
#define FRAME_HDR_LEN 20
#define FRAME_TAG_LEN 32
#define FRAME_KEY_LEN 32
/* Before authentication a peer may send only the handshake's types
 * (HELLO, AUTH, ERROR, BYE), each of at most this many body bytes: a
 * stranger cannot make us allocate a large body. */
#define FRAME_PREAUTH_MAX 4096

struct frame_hdr {
	uint8_t version;
	uint8_t type;
	uint16_t flags;
	uint32_t len;
	uint64_t seq;
};

enum frame_rc {
	FRAME_NEED_MORE = 0,
	FRAME_READY = 1,
	FRAME_ERR = -1,
};

/* Incremental decoder state for one socket. Zero it (or call frame_rx_init)
 * before use; call frame_rx_reset after consuming each READY frame and
 * frame_rx_free when done. */
struct frame_rx {
	uint8_t hdr[FRAME_HDR_LEN];
	size_t have;		/* bytes of the current stage received */
	int stage;		/* 0 header, 1 body, 2 tag, 3 ready */
	struct frame_hdr h;
	uint8_t *body;		/* h.len + 1 bytes, NUL-terminated */
	uint8_t tag[FRAME_TAG_LEN];
	bool preauth;		/* the peer has not proven the key yet:
				   FRAME_PREAUTH_MAX applies (kept across
				   frame_rx_reset) */
};

void frame_hdr_pack(const struct frame_hdr *h, uint8_t out[FRAME_HDR_LEN]);
/* frame_hdr_unpack checks the magic, that the type is known and that the
 * length is within the type's limit. Returns 0 or -1 with err set. */
int frame_hdr_unpack(const uint8_t in[FRAME_HDR_LEN], struct frame_hdr *h,
    char *err);

/* frame_encode builds a complete frame (header, body, tag) in a new buffer
 * owned by the caller (free()). Returns NULL when the body is over its
 * type's limit or memory is short; err says which. */
uint8_t *frame_encode(const struct frame_hdr *h, const void *body,
    const uint8_t key[FRAME_KEY_LEN], size_t *outlen, char *err);

void frame_rx_init(struct frame_rx *rx);
/* frame_rx_feed consumes bytes from data until one frame is complete
 * (FRAME_READY), data runs out (FRAME_NEED_MORE) or the stream is invalid
 * (FRAME_ERR, err set; the connection must be closed). *used is the number
 * of bytes consumed. */
int frame_rx_feed(struct frame_rx *rx, const uint8_t *data, size_t len,
    size_t *used, char *err);
/* frame_rx_verify checks the tag of a READY frame with key, in constant
 * time. Returns 0 or -1. */
int frame_rx_verify(const struct frame_rx *rx,
    const uint8_t key[FRAME_KEY_LEN]);
void frame_rx_reset(struct frame_rx *rx);
void frame_rx_free(struct frame_rx *rx);

/* frame_mac computes the tag over a header and body. */
void frame_mac(const uint8_t key[FRAME_KEY_LEN], const uint8_t *hdr,
    const uint8_t *body, size_t len, uint8_t tag[FRAME_TAG_LEN]);

/* Big-endian fields, as every fixed header here is written. */
void frame_put16(uint8_t *p, uint16_t v);
void frame_put32(uint8_t *p, uint32_t v);
uint32_t frame_get32(const uint8_t *p);

#endif
