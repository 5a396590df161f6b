/*
 * conn_handshake: HELLO and AUTH, from a new connection to an
 * authenticated session: versions checked, a challenge-response proof
 * each way over the pre-shared key, session keys derived, see
 * include/conn.h.
 */
#include "conn.h"
#include "conn_int.h"
#include "log.h"
#include "msg.h"

#include <stdio.h>
#include <string.h>

#include <openssl/crypto.h>

void
conn_send_hello(struct conn *c)
{
	char hex[2 * AUTH_NONCE_LEN + 1];
	cJSON *b = cJSON_CreateObject();
	int i;

	if (b == NULL) {
		conn_close(c, CONN_R_PROTO, "out of memory");
		return;
	}
	for (i = 0; i < AUTH_NONCE_LEN; i++)
		snprintf(hex + 2 * i, 3, "%02x", c->nonce_local[i]);
	cJSON_AddNumberToObject(b, "proto", c->ctx->proto);
	cJSON_AddStringToObject(b, "role",
	    c->role == CONN_CLIENT ? "coordinator" : "agent");
	cJSON_AddStringToObject(b, "nonce", hex);
	/* An agent answers anyone who connects: its name and version wait
	 * for its AUTH reply, which only a peer holding the key gets. */
	if (c->role == CONN_CLIENT) {
		cJSON_AddStringToObject(b, "version", c->ctx->version);
		cJSON_AddStringToObject(b, "host", c->ctx->hostname);
	}
	conn_queue(c, MSG_HELLO, c->role == CONN_SERVER ? MSG_F_REPLY : 0, b);
	cJSON_Delete(b);
}

static void
conn_send_proof(struct conn *c, enum auth_label label)
{
	char hex[2 * FRAME_KEY_LEN + 1];
	uint8_t proof[FRAME_KEY_LEN];
	const uint8_t *nc, *ns;
	cJSON *b;
	int i;

	nc = c->role == CONN_CLIENT ? c->nonce_local : c->nonce_peer;
	ns = c->role == CONN_CLIENT ? c->nonce_peer : c->nonce_local;
	auth_derive(c->ctx->psk, label, nc, ns, proof);
	for (i = 0; i < FRAME_KEY_LEN; i++)
		snprintf(hex + 2 * i, 3, "%02x", proof[i]);
	b = cJSON_CreateObject();
	if (b == NULL) {
		conn_close(c, CONN_R_PROTO, "out of memory");
		return;
	}
	cJSON_AddStringToObject(b, "proof", hex);
	if (c->role == CONN_SERVER) {
		cJSON_AddStringToObject(b, "version", c->ctx->version);
		cJSON_AddStringToObject(b, "host", c->ctx->hostname);
		if (c->ops && c->ops->auth_fill)
			c->ops->auth_fill(c, b);
	}
	conn_queue(c, MSG_AUTH, c->role == CONN_SERVER ? MSG_F_REPLY : 0, b);
	cJSON_Delete(b);
}

/* conn_check_proof verifies the peer's AUTH proof in constant time. */
static int
conn_check_proof(struct conn *c, const cJSON *body, enum auth_label label,
    char *err)
{
	uint8_t got[FRAME_KEY_LEN], want[FRAME_KEY_LEN];
	const uint8_t *nc, *ns;

	if (json_get_hex(body, "proof", got, sizeof(got), err) == -1)
		return -1;
	nc = c->role == CONN_CLIENT ? c->nonce_local : c->nonce_peer;
	ns = c->role == CONN_CLIENT ? c->nonce_peer : c->nonce_local;
	auth_derive(c->ctx->psk, label, nc, ns, want);
	if (!auth_equal(got, want, sizeof(got))) {
		snprintf(err, CF_ERRLEN, "proof does not match the key");
		return -1;
	}
	return 0;
}

static void
conn_derive_keys(struct conn *c)
{
	const uint8_t *nc, *ns;
	uint8_t c2s[FRAME_KEY_LEN], s2c[FRAME_KEY_LEN];

	nc = c->role == CONN_CLIENT ? c->nonce_local : c->nonce_peer;
	ns = c->role == CONN_CLIENT ? c->nonce_peer : c->nonce_local;
	auth_derive(c->ctx->psk, AUTH_KEY_C2S, nc, ns, c2s);
	auth_derive(c->ctx->psk, AUTH_KEY_S2C, nc, ns, s2c);
	memcpy(c->tx_key, c->role == CONN_CLIENT ? c2s : s2c, FRAME_KEY_LEN);
	memcpy(c->rx_key, c->role == CONN_CLIENT ? s2c : c2s, FRAME_KEY_LEN);
	OPENSSL_cleanse(c2s, sizeof(c2s));
	OPENSSL_cleanse(s2c, sizeof(s2c));
}

void
conn_established(struct conn *c)
{
	conn_change_state(c, CONN_ESTABLISHED);
	c->rx.preauth = false;
	conn_set_timer(c, c->ctx->idle_timeout);
	if (c->ops && c->ops->established)
		c->ops->established(c);
}

/* conn_peer_identity: the peer's version and host name: a coordinator's
 * from its HELLO, an agent's from its AUTH reply. */
static int
conn_peer_identity(struct conn *c, const cJSON *body, char *err)
{
	if (json_get_strcpy(body, "version", 1, c->peer_version,
	    sizeof(c->peer_version), err) == -1 ||
	    json_get_strcpy(body, "host", 0, c->peer_host,
	    sizeof(c->peer_host), err) == -1)
		return -1;
	return 0;
}

void
conn_on_hello(struct conn *c, const struct frame_hdr *h, const cJSON *body)
{
	char err[CF_ERRLEN], msg[CF_ERRLEN];
	const char *role, *want_role, *code;
	uint32_t proto;

	if (json_get_u32(body, "proto", 0, 255, &proto, err) == -1) {
		conn_fail(c, CONN_R_PROTO, MSG_ERR_PROTO, "HELLO: %s", err);
		return;
	}
	c->peer_proto = proto;
	if (proto != c->ctx->proto || h->version != c->ctx->proto) {
		conn_fail(c, CONN_R_VERSION, MSG_ERR_VERSION,
		    "protocol version mismatch: %s speaks %u, %s speaks %u",
		    c->role == CONN_SERVER ? "agent" : "coordinator",
		    c->ctx->proto,
		    c->role == CONN_SERVER ? "coordinator" : "agent", proto);
		return;
	}
	want_role = c->role == CONN_SERVER ? "coordinator" : "agent";
	if (json_get_str(body, "role", 1, 32, &role, err) == -1 ||
	    (c->role == CONN_SERVER && conn_peer_identity(c, body, err) == -1) ||
	    json_get_hex(body, "nonce", c->nonce_peer, AUTH_NONCE_LEN,
	    err) == -1) {
		conn_fail(c, CONN_R_PROTO, MSG_ERR_PROTO, "HELLO: %s", err);
		return;
	}
	if (strcmp(role, want_role) != 0) {
		conn_fail(c, CONN_R_PROTO, MSG_ERR_PROTO, "HELLO: role '%s' "
		    "where '%s' was expected", role, want_role);
		return;
	}
	/* A reflected nonce would let a peer replay our own proof. */
	if (auth_equal(c->nonce_peer, c->nonce_local, AUTH_NONCE_LEN)) {
		conn_fail(c, CONN_R_PROTO, MSG_ERR_PROTO, "HELLO: nonce "
		    "reflected");
		return;
	}
	cJSON_Delete(c->peer_hello);
	c->peer_hello = cJSON_Duplicate(body, 1);
	if (c->role == CONN_SERVER) {
		if (c->ops && c->ops->admit &&
		    (code = c->ops->admit(c, msg)) != NULL) {
			conn_fail(c, strcmp(code, MSG_ERR_BUSY) == 0 ?
			    CONN_R_BUSY : CONN_R_PEER_ERROR, code, "%s", msg);
			return;
		}
		conn_send_hello(c);
	} else {
		conn_send_proof(c, AUTH_PROOF_CLIENT);
	}
	if (c->state != CONN_CLOSED)
		conn_change_state(c, CONN_AUTH);
}

void
conn_on_auth(struct conn *c, const cJSON *body)
{
	char err[CF_ERRLEN], msg[CF_ERRLEN];
	const char *code;

	if (c->role == CONN_SERVER) {
		if (conn_check_proof(c, body, AUTH_PROOF_CLIENT, err) == -1) {
			log_warnx("%s: authentication failed: %s", c->peer,
			    err);
			conn_fail(c, CONN_R_AUTH_FAILED, MSG_ERR_AUTH,
			    "authentication failed: the coordinator's key "
			    "does not match the agent's");
			return;
		}
		/* Asked again: handshakes that passed HELLO together may
		 * not all fit, and only an established session counts. */
		if (c->ops && c->ops->admit &&
		    (code = c->ops->admit(c, msg)) != NULL) {
			conn_fail(c, strcmp(code, MSG_ERR_BUSY) == 0 ?
			    CONN_R_BUSY : CONN_R_PEER_ERROR, code, "%s", msg);
			return;
		}
		conn_send_proof(c, AUTH_PROOF_SERVER);
		if (c->state == CONN_CLOSED)
			return;
		conn_derive_keys(c);
		conn_established(c);
	} else {
		if (conn_check_proof(c, body, AUTH_PROOF_SERVER, err) == -1) {
			conn_close(c, CONN_R_AUTH_FAILED, "the agent's proof "
			    "does not match our key");
			return;
		}
		if (conn_peer_identity(c, body, err) == -1) {
			conn_close(c, CONN_R_PROTO, err);
			return;
		}
		conn_derive_keys(c);
		conn_established(c);
	}
}
