/* frame: encode and incrementally decode control frames, see frame.h. */
#include "frame.h"
#include "msg.h"
#include "json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

void
frame_put16(uint8_t *p, uint16_t v)
{
	p[0] = v >> 8;
	p[1] = v & 0xff;
}

void
frame_put32(uint8_t *p, uint32_t v)
{
	p[0] = v >> 24;
	p[1] = (v >> 16) & 0xff;
	p[2] = (v >> 8) & 0xff;
	p[3] = v & 0xff;
}

uint32_t
frame_get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	    (uint32_t)p[2] << 8 | p[3];
}

void
frame_hdr_pack(const struct frame_hdr *h, uint8_t out[FRAME_HDR_LEN])
{
	frame_put32(out, FRAME_MAGIC);
	out[4] = h->version;
	out[5] = h->type;
	frame_put16(out + 6, h->flags);
	frame_put32(out + 8, h->len);
	frame_put32(out + 12, (uint32_t)(h->seq >> 32));
	frame_put32(out + 16, (uint32_t)h->seq);
}

int
frame_hdr_unpack(const uint8_t in[FRAME_HDR_LEN], struct frame_hdr *h,
    char *err)
{
	size_t limit;

	if (frame_get32(in) != FRAME_MAGIC) {
		snprintf(err, CF_ERRLEN, "bad magic 0x%08x (not a cephfab "
		    "peer?)", frame_get32(in));
		return -1;
	}
	h->version = in[4];
	h->type = in[5];
	h->flags = (uint16_t)(in[6] << 8 | in[7]);
	h->len = frame_get32(in + 8);
	h->seq = (uint64_t)frame_get32(in + 12) << 32 | frame_get32(in + 16);
	limit = msg_limit(h->type);
	if (limit == 0) {
		snprintf(err, CF_ERRLEN, "unknown message type %u", h->type);
		return -1;
	}
	if (h->len > limit) {
		snprintf(err, CF_ERRLEN, "%s body of %u bytes exceeds the "
		    "limit of %zu", msg_name(h->type), h->len, limit);
		return -1;
	}
	return 0;
}

void
frame_mac(const uint8_t key[FRAME_KEY_LEN], const uint8_t *hdr,
    const uint8_t *body, size_t len, uint8_t tag[FRAME_TAG_LEN])
{
	HMAC_CTX *ctx;
	unsigned int tlen = FRAME_TAG_LEN;

	/* The HMAC_CTX API is deprecated in OpenSSL 3 but is the one that
	 * works unchanged on 1.1 and 3.0; silence only that warning. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
	ctx = HMAC_CTX_new();
	if (ctx == NULL ||
	    HMAC_Init_ex(ctx, key, FRAME_KEY_LEN, EVP_sha256(), NULL) != 1 ||
	    HMAC_Update(ctx, hdr, FRAME_HDR_LEN) != 1 ||
	    (len > 0 && HMAC_Update(ctx, body, len) != 1) ||
	    HMAC_Final(ctx, tag, &tlen) != 1) {
		/* Fail closed: a tag of zeros never verifies against a real
		 * one, so a broken libcrypto cannot authenticate anything. */
		memset(tag, 0, FRAME_TAG_LEN);
	}
	HMAC_CTX_free(ctx);
#pragma GCC diagnostic pop
}

uint8_t *
frame_encode(const struct frame_hdr *h, const void *body,
    const uint8_t key[FRAME_KEY_LEN], size_t *outlen, char *err)
{
	uint8_t *buf;
	size_t limit = msg_limit(h->type);

	if (limit == 0) {
		snprintf(err, CF_ERRLEN, "unknown message type %u", h->type);
		return NULL;
	}
	if (h->len > limit) {
		snprintf(err, CF_ERRLEN, "%s body of %u bytes exceeds the "
		    "limit of %zu", msg_name(h->type), h->len, limit);
		return NULL;
	}
	buf = malloc(FRAME_HDR_LEN + h->len + FRAME_TAG_LEN);
	if (buf == NULL) {
		snprintf(err, CF_ERRLEN, "out of memory");
		return NULL;
	}
	frame_hdr_pack(h, buf);
	if (h->len)
		memcpy(buf + FRAME_HDR_LEN, body, h->len);
	frame_mac(key, buf, buf + FRAME_HDR_LEN, h->len,
	    buf + FRAME_HDR_LEN + h->len);
	*outlen = FRAME_HDR_LEN + h->len + FRAME_TAG_LEN;
	return buf;
}

void
frame_rx_init(struct frame_rx *rx)
{
	memset(rx, 0, sizeof(*rx));
}

void
frame_rx_reset(struct frame_rx *rx)
{
	bool pre = rx->preauth;

	free(rx->body);
	frame_rx_init(rx);
	rx->preauth = pre;
}

void
frame_rx_free(struct frame_rx *rx)
{
	frame_rx_reset(rx);
}

/* rx_fill copies what data[*off..len) has of the part being read (dst,
 * size bytes, rx->have of them already there); 1 while it is incomplete. */
static int
rx_fill(struct frame_rx *rx, uint8_t *dst, size_t size, const uint8_t *data,
    size_t len, size_t *off)
{
	size_t want = size - rx->have;
	size_t n = len - *off < want ? len - *off : want;

	if (n)
		memcpy(dst + rx->have, data + *off, n);
	rx->have += n;
	*off += n;
	return rx->have < size;
}

int
frame_rx_feed(struct frame_rx *rx, const uint8_t *data, size_t len,
    size_t *used, char *err)
{
	size_t off = 0;

	while (rx->stage != 3) {
		if (rx->stage == 0) {
			if (rx_fill(rx, rx->hdr, FRAME_HDR_LEN, data, len, &off))
				break;
			/* Limits are checked here, before any allocation. */
			if (frame_hdr_unpack(rx->hdr, &rx->h, err) == -1) {
				*used = off;
				return FRAME_ERR;
			}
			if (rx->preauth && (!msg_preauth(rx->h.type) ||
			    rx->h.len > FRAME_PREAUTH_MAX)) {
				snprintf(err, CF_ERRLEN, "%s of %u bytes before "
				    "authentication (only the handshake's, of "
				    "%d at most)", msg_name(rx->h.type),
				    rx->h.len, FRAME_PREAUTH_MAX);
				*used = off;
				return FRAME_ERR;
			}
			rx->body = malloc((size_t)rx->h.len + 1);
			if (rx->body == NULL) {
				snprintf(err, CF_ERRLEN, "out of memory");
				*used = off;
				return FRAME_ERR;
			}
			rx->body[rx->h.len] = '\0';
			rx->have = 0;
			rx->stage = 1;
		} else if (rx->stage == 1) {
			if (rx_fill(rx, rx->body, rx->h.len, data, len, &off))
				break;
			rx->have = 0;
			rx->stage = 2;
		} else {
			if (rx_fill(rx, rx->tag, FRAME_TAG_LEN, data, len, &off))
				break;
			rx->stage = 3;
		}
		if (off == len && rx->stage != 3)
			break;
	}
	*used = off;
	return rx->stage == 3 ? FRAME_READY : FRAME_NEED_MORE;
}

int
frame_rx_verify(const struct frame_rx *rx, const uint8_t key[FRAME_KEY_LEN])
{
	uint8_t tag[FRAME_TAG_LEN];

	if (rx->stage != 3)
		return -1;
	frame_mac(key, rx->hdr, rx->body, rx->h.len, tag);
	return CRYPTO_memcmp(tag, rx->tag, FRAME_TAG_LEN) == 0 ? 0 : -1;
}
