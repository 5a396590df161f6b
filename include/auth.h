/*
 * auth: the pre-shared key and the mutual challenge-response handshake.
 *
 *   coordinator -> agent   HELLO {proto, version, role, nonce_c}
 *   agent -> coordinator   HELLO {proto, version, role, nonce_s, ...}
 *   coordinator -> agent   AUTH  {proof = HMAC(psk, "cephfab-v1 client" | nc | ns)}
 *   agent -> coordinator   AUTH  {proof = HMAC(psk, "cephfab-v1 server" | nc | ns)}
 *
 * Both proofs are compared in constant time. After them each direction uses
 * its own session key, HMAC(psk, "cephfab-v1 c2s" | nc | ns) and "s2c", so a
 * frame can be neither replayed into another session nor reflected back to
 * its sender. Frames before that carry a tag under a fixed public key: it
 * catches corruption only, authenticity comes from the proofs.
 */
#ifndef CF_AUTH_H
#define CF_AUTH_H

#include <stddef.h>
#include <stdint.h>

#include "frame.h"

#define AUTH_NONCE_LEN 32
#define AUTH_KEY_MIN 32		/* bytes of key material */
#define AUTH_KEY_MAX 128

struct auth_key {
	uint8_t key[AUTH_KEY_MAX];
	size_t len;
};

/* auth_key_load reads a hex key file. It refuses a file that is not a regular
 * file, that group or others may read or write, or that holds fewer than
 * AUTH_KEY_MIN bytes of key. Returns 0, or -1 with err naming the file. */
int auth_key_load(const char *path, struct auth_key *k, char *err);
/* auth_key_parse decodes hex text (surrounding white space allowed). */
int auth_key_parse(const char *text, size_t len, struct auth_key *k,
    char *err);
/* auth_keygen writes 2 * AUTH_KEY_MIN hex digits and a NUL into out
 * (at least 2 * AUTH_KEY_MIN + 1 bytes). Returns -1 if the RNG fails. */
int auth_keygen(char *out, size_t outsz);
/* auth_nonce fills n with random bytes; -1 if the RNG fails. */
int auth_nonce(uint8_t n[AUTH_NONCE_LEN]);

enum auth_label {
	AUTH_PROOF_CLIENT,
	AUTH_PROOF_SERVER,
	AUTH_KEY_C2S,
	AUTH_KEY_S2C,
};
/* auth_derive computes HMAC(psk, label | nc | ns) for one of the labels. */
void auth_derive(const struct auth_key *k, enum auth_label label,
    const uint8_t nc[AUTH_NONCE_LEN], const uint8_t ns[AUTH_NONCE_LEN],
    uint8_t out[FRAME_KEY_LEN]);
/* auth_equal compares two proofs in constant time: 1 when equal. */
int auth_equal(const uint8_t *a, const uint8_t *b, size_t len);

/* The public key that tags frames before authentication. */
extern const uint8_t auth_preauth_key[FRAME_KEY_LEN];

#endif
