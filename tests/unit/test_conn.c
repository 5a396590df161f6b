/*
 * Unit tests for proto/conn.c: the handshake and the frame checks, over a
 * socketpair driven by a real libev loop. "Raw" tests play a hostile or
 * broken peer by hand on one end with frame_encode().
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <cmocka.h>

#include "cf_unit.h"

#include "auth.h"
#include "conn.h"
#include "log.h"
#include "msg.h"

struct side {
	int established;
	int closed;
	enum conn_reason reason;
	char detail[CF_ERRLEN];
	int replies;
	int requests;
	const char *refuse;	/* admit() answer */
	int admits;		/* admit() calls so far */
	int refuse_from;	/* refuse from this call on (0: always) */
};

static struct auth_key key_a, key_b;
static struct ev_loop *loop;

static const char *
t_admit(struct conn *c, char *msg)
{
	struct side *s = c->udata;

	if (s->refuse && ++s->admits >= s->refuse_from) {
		snprintf(msg, CF_ERRLEN, "test refuses");
		return s->refuse;
	}
	return NULL;
}

static void
t_established(struct conn *c)
{
	((struct side *)c->udata)->established++;
}

static void
t_message(struct conn *c, const struct frame_hdr *h, const cJSON *body)
{
	struct side *s = c->udata;

	(void)body;
	if (h->type == MSG_STATUS && !(h->flags & MSG_F_REPLY)) {
		cJSON *r = cJSON_CreateObject();

		s->requests++;
		cJSON_AddBoolToObject(r, "ok", 1);
		conn_send(c, MSG_STATUS, MSG_F_REPLY, r);
		cJSON_Delete(r);
	} else if (h->type == MSG_STATUS) {
		s->replies++;
	}
}

static void
t_closed(struct conn *c, enum conn_reason r, const char *detail)
{
	struct side *s = c->udata;

	s->closed++;
	s->reason = r;
	snprintf(s->detail, sizeof(s->detail), "%s", detail);
}

static const struct conn_ops t_ops = {
	.admit = t_admit,
	.established = t_established,
	.message = t_message,
	.closed = t_closed,
};

static void
make_key(struct auth_key *k, uint8_t fill)
{
	memset(k, 0, sizeof(*k));
	memset(k->key, fill, 32);
	k->len = 32;
}

static int
setup(void **state)
{
	(void)state;
	log_init("test_conn", 1, 0);
	make_key(&key_a, 0xaa);
	make_key(&key_b, 0xbb);
	loop = ev_loop_new(EVFLAG_AUTO);
	return loop ? 0 : -1;
}

static int
teardown(void **state)
{
	(void)state;
	ev_loop_destroy(loop);
	return 0;
}

/* spin runs the loop until *flag is non-zero or secs pass. */
static void
spin(int *flag, double secs)
{
	ev_tstamp end = ev_time() + secs;

	while (!*flag && ev_time() < end)
		ev_run(loop, EVRUN_ONCE | EVRUN_NOWAIT), usleep(1000);
}

static void
pair(int sv[2])
{
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
}

/* Both ends real conns: client on ctx c, server on ctx s. */
static void
run_pair(struct conn_ctx *cc, struct conn_ctx *sc, struct side *cs,
    struct side *ss, struct conn **cl, struct conn **sv)
{
	int fds[2];

	pair(fds);
	*sv = conn_accept(sc, fds[0], "server-end", &t_ops, ss);
	*cl = conn_attach(cc, fds[1], "client-end", &t_ops, cs);
	assert_non_null(*sv);
	assert_non_null(*cl);
}

static void
test_handshake_ok(void **state)
{
	struct conn_ctx cc, sc;
	struct side cs = { 0 }, ss = { 0 };
	struct conn *cl, *sv;

	(void)state;
	conn_ctx_init(&cc, loop, &key_a, "1.0-client");
	conn_ctx_init(&sc, loop, &key_a, "1.0-server");
	sc.hostname = "agent-host";
	run_pair(&cc, &sc, &cs, &ss, &cl, &sv);
	spin(&cs.established, 2);
	assert_int_equal(cs.established, 1);
	spin(&ss.established, 2);
	assert_int_equal(ss.established, 1);
	assert_string_equal(cl->peer_version, "1.0-server");
	assert_string_equal(cl->peer_host, "agent-host");
	assert_string_equal(sv->peer_version, "1.0-client");
	assert_int_equal(cl->peer_proto, CF_PROTO_VERSION);
	/* Session keys differ per direction and from the pre-auth key. */
	assert_memory_equal(cl->tx_key, sv->rx_key, FRAME_KEY_LEN);
	assert_memory_equal(cl->rx_key, sv->tx_key, FRAME_KEY_LEN);
	assert_memory_not_equal(cl->tx_key, cl->rx_key, FRAME_KEY_LEN);
	assert_memory_not_equal(cl->tx_key, auth_preauth_key, FRAME_KEY_LEN);
	/* A request and its reply cross under the session keys. */
	assert_int_equal(conn_send(cl, MSG_STATUS, 0, NULL), 0);
	spin(&cs.replies, 2);
	assert_int_equal(ss.requests, 1);
	assert_int_equal(cs.replies, 1);
	assert_int_equal(conn_send(cl, MSG_STATUS, 0, NULL), 0);
	assert_int_equal(conn_send(cl, MSG_STATUS, 0, NULL), 0);
	{
		int two = 0;
		ev_tstamp end = ev_time() + 2;

		while (cs.replies < 3 && ev_time() < end)
			ev_run(loop, EVRUN_ONCE | EVRUN_NOWAIT);
		two = cs.replies;
		assert_int_equal(two, 3);
	}
	conn_bye(cl);
	spin(&ss.closed, 2);
	assert_int_equal(ss.closed, 1);
	assert_int_equal(ss.reason, CONN_R_OK);
	spin(&cs.closed, 2);
	assert_int_equal(cs.closed, 1);
	assert_int_equal(cs.reason, CONN_R_OK);
	conn_ctx_fini(&cc);
	conn_ctx_fini(&sc);
	/* Teardown proves nothing leaked: every conn was freed. */
	assert_int_equal(cc.live, 0);
	assert_int_equal(sc.live, 0);
}

static void
test_wrong_key(void **state)
{
	struct conn_ctx cc, sc;
	struct side cs = { 0 }, ss = { 0 };
	struct conn *cl, *sv;

	(void)state;
	conn_ctx_init(&cc, loop, &key_b, "c");
	conn_ctx_init(&sc, loop, &key_a, "s");
	run_pair(&cc, &sc, &cs, &ss, &cl, &sv);
	spin(&cs.closed, 2);
	spin(&ss.closed, 2);
	assert_int_equal(cs.established + ss.established, 0);
	assert_int_equal(cs.reason, CONN_R_AUTH_FAILED);
	assert_int_equal(ss.reason, CONN_R_AUTH_FAILED);
	assert_non_null(strstr(cs.detail, "auth_failed"));
	conn_ctx_fini(&cc);
	conn_ctx_fini(&sc);
	assert_int_equal(cc.live + sc.live, 0);
}

static void
version_case(unsigned cproto, unsigned sproto)
{
	struct conn_ctx cc, sc;
	struct side cs = { 0 }, ss = { 0 };
	struct conn *cl, *sv;

	conn_ctx_init(&cc, loop, &key_a, "c");
	conn_ctx_init(&sc, loop, &key_a, "s");
	cc.proto = cproto;
	sc.proto = sproto;
	run_pair(&cc, &sc, &cs, &ss, &cl, &sv);
	spin(&cs.closed, 2);
	spin(&ss.closed, 2);
	assert_int_equal(cs.reason, CONN_R_VERSION);
	assert_int_equal(ss.reason, CONN_R_VERSION);
	/* Both sides say it in plain words with both numbers. */
	assert_non_null(strstr(cs.detail, "version mismatch"));
	assert_non_null(strstr(ss.detail, "version mismatch"));
	conn_ctx_fini(&cc);
	conn_ctx_fini(&sc);
	assert_int_equal(cc.live + sc.live, 0);
}

static void
test_version_mismatch(void **state)
{
	(void)state;
	version_case(CF_PROTO_VERSION + 1, CF_PROTO_VERSION);
	version_case(CF_PROTO_VERSION, CF_PROTO_VERSION + 1);
}

static void
test_busy(void **state)
{
	struct conn_ctx cc, sc;
	struct side cs = { 0 }, ss = { 0 };
	struct conn *cl, *sv;

	(void)state;
	ss.refuse = MSG_ERR_BUSY;
	conn_ctx_init(&cc, loop, &key_a, "c");
	conn_ctx_init(&sc, loop, &key_a, "s");
	run_pair(&cc, &sc, &cs, &ss, &cl, &sv);
	spin(&cs.closed, 2);
	assert_int_equal(cs.reason, CONN_R_BUSY);
	assert_non_null(strstr(cs.detail, "test refuses"));
	spin(&ss.closed, 2);
	conn_ctx_fini(&cc);
	conn_ctx_fini(&sc);
}

/* Admitted at HELLO, then full by the time its proof checks out (another
 * handshake completed first): refused at AUTH, never a session. */
static void
test_busy_at_auth(void **state)
{
	struct conn_ctx cc, sc;
	struct side cs = { 0 }, ss = { 0 };
	struct conn *cl, *sv;

	(void)state;
	ss.refuse = MSG_ERR_BUSY;
	ss.refuse_from = 2;
	conn_ctx_init(&cc, loop, &key_a, "c");
	conn_ctx_init(&sc, loop, &key_a, "s");
	run_pair(&cc, &sc, &cs, &ss, &cl, &sv);
	spin(&cs.closed, 2);
	assert_int_equal(cs.reason, CONN_R_BUSY);
	assert_int_equal(ss.admits, 2);
	assert_int_equal(ss.established, 0);
	assert_int_equal(cs.established, 0);
	spin(&ss.closed, 2);
	conn_ctx_fini(&cc);
	conn_ctx_fini(&sc);
}

/* --- raw peers ------------------------------------------------------ */

static void
raw_send(int fd, unsigned version, unsigned type, uint16_t flags,
    uint64_t seq, const char *body, const uint8_t *key, uint8_t **keep,
    size_t *keeplen)
{
	struct frame_hdr h = { (uint8_t)version, (uint8_t)type, flags,
	    (uint32_t)strlen(body), seq };
	char err[CF_ERRLEN];
	size_t len;
	uint8_t *f = frame_encode(&h, body, key, &len, err);

	assert_non_null(f);
	assert_int_equal(write(fd, f, len), (ssize_t)len);
	if (keep) {
		*keep = f;
		*keeplen = len;
	} else {
		free(f);
	}
}

/* raw_recv runs the loop until one frame arrives on fd (returns 1), the
 * peer closes (0) or 2 s pass (-1). */
static int
raw_recv(int fd, struct frame_rx *rx)
{
	ev_tstamp end = ev_time() + 2;
	char err[CF_ERRLEN];
	uint8_t b;
	size_t used;

	frame_rx_init(rx);
	while (ev_time() < end) {
		ssize_t n;

		ev_run(loop, EVRUN_ONCE | EVRUN_NOWAIT);
		n = recv(fd, &b, 1, MSG_DONTWAIT);
		if (n == 0)
			return 0;
		if (n < 0) {
			usleep(500);
			continue;
		}
		if (frame_rx_feed(rx, &b, 1, &used, err) == FRAME_READY)
			return 1;
	}
	return -1;
}

static void
hexs(const uint8_t *p, size_t n, char *out)
{
	size_t i;

	for (i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", p[i]);
}

/* raw_handshake authenticates by hand as a coordinator; fills the
 * session keys. */
static void
raw_handshake(int fd, uint8_t c2s[FRAME_KEY_LEN], uint8_t s2c[FRAME_KEY_LEN])
{
	uint8_t nc[AUTH_NONCE_LEN], ns[AUTH_NONCE_LEN], proof[FRAME_KEY_LEN];
	char body[512], hex[2 * AUTH_NONCE_LEN + 1], err[CF_ERRLEN];
	struct frame_rx rx;
	cJSON *j;

	memset(nc, 0x11, sizeof(nc));
	hexs(nc, sizeof(nc), hex);
	snprintf(body, sizeof(body), "{\"proto\":%d,\"version\":\"raw\","
	    "\"role\":\"coordinator\",\"host\":\"raw\",\"nonce\":\"%s\"}",
	    CF_PROTO_VERSION, hex);
	raw_send(fd, CF_PROTO_VERSION, MSG_HELLO, 0, 0, body,
	    auth_preauth_key, NULL, NULL);
	assert_int_equal(raw_recv(fd, &rx), 1);
	assert_int_equal(rx.h.type, MSG_HELLO);
	j = cJSON_Parse((char *)rx.body);
	assert_int_equal(json_get_hex(j, "nonce", ns, sizeof(ns), err), 0);
	/* Nothing about the agent for a peer that has proven nothing. */
	assert_null(cJSON_GetObjectItem(j, "host"));
	assert_null(cJSON_GetObjectItem(j, "version"));
	assert_null(cJSON_GetObjectItem(j, "uptime"));
	cJSON_Delete(j);
	frame_rx_free(&rx);
	auth_derive(&key_a, AUTH_PROOF_CLIENT, nc, ns, proof);
	hexs(proof, sizeof(proof), hex);
	snprintf(body, sizeof(body), "{\"proof\":\"%s\"}", hex);
	raw_send(fd, CF_PROTO_VERSION, MSG_AUTH, 0, 1, body,
	    auth_preauth_key, NULL, NULL);
	assert_int_equal(raw_recv(fd, &rx), 1);
	assert_int_equal(rx.h.type, MSG_AUTH);
	/* Once proven, the agent says who it is. */
	j = cJSON_Parse((char *)rx.body);
	assert_non_null(cJSON_GetObjectItem(j, "host"));
	assert_non_null(cJSON_GetObjectItem(j, "version"));
	cJSON_Delete(j);
	frame_rx_free(&rx);
	auth_derive(&key_a, AUTH_KEY_C2S, nc, ns, c2s);
	auth_derive(&key_a, AUTH_KEY_S2C, nc, ns, s2c);
}

struct raw {
	struct conn_ctx sc;
	struct side ss;
	int fd;
};

static void
raw_open(struct raw *r, double auth_timeout)
{
	int fds[2];

	memset(r, 0, sizeof(*r));
	conn_ctx_init(&r->sc, loop, &key_a, "s");
	r->sc.auth_timeout = auth_timeout;
	pair(fds);
	assert_non_null(conn_accept(&r->sc, fds[0], "raw", &t_ops, &r->ss));
	r->fd = fds[1];
}

/* raw_expect_close: the server sends ERROR (protocol_error) and closes,
 * with a detail containing what. */
static void
raw_expect_close(struct raw *r, enum conn_reason reason, const char *what)
{
	struct frame_rx rx;
	int rc;

	/* Read whatever the server sends until it closes. */
	while ((rc = raw_recv(r->fd, &rx)) == 1)
		frame_rx_free(&rx);
	frame_rx_free(&rx);
	assert_int_equal(rc, 0);
	spin(&r->ss.closed, 2);
	assert_int_equal(r->ss.closed, 1);
	assert_int_equal(r->ss.reason, reason);
	if (what && strstr(r->ss.detail, what) == NULL)
		fail_msg("detail '%s' lacks '%s'", r->ss.detail, what);
	close(r->fd);
	conn_ctx_fini(&r->sc);
	assert_int_equal(r->sc.live, 0);
}

static void
test_replayed_frame(void **state)
{
	uint8_t c2s[FRAME_KEY_LEN], s2c[FRAME_KEY_LEN], *frame;
	struct frame_rx rx;
	struct raw r;
	size_t len;

	(void)state;
	raw_open(&r, 2);
	raw_handshake(r.fd, c2s, s2c);
	raw_send(r.fd, CF_PROTO_VERSION, MSG_STATUS, 0, 2, "{}", c2s, &frame,
	    &len);
	assert_int_equal(raw_recv(r.fd, &rx), 1);
	assert_int_equal(rx.h.type, MSG_STATUS);
	assert_int_equal(frame_rx_verify(&rx, s2c), 0);
	frame_rx_free(&rx);
	assert_int_equal(r.ss.requests, 1);
	/* The same bytes again: a valid tag, a stale sequence number. */
	assert_int_equal(write(r.fd, frame, len), (ssize_t)len);
	free(frame);
	raw_expect_close(&r, CONN_R_PROTO, "replayed");
	assert_int_equal(r.ss.requests, 1);
}

static void
test_bad_mac_after_auth(void **state)
{
	uint8_t c2s[FRAME_KEY_LEN], s2c[FRAME_KEY_LEN];
	struct raw r;

	(void)state;
	raw_open(&r, 2);
	raw_handshake(r.fd, c2s, s2c);
	/* Signed with the server's direction key: a reflected frame. */
	raw_send(r.fd, CF_PROTO_VERSION, MSG_STATUS, 0, 2, "{}", s2c, NULL,
	    NULL);
	raw_expect_close(&r, CONN_R_PROTO, "bad MAC");
	assert_int_equal(r.ss.requests, 0);
}

static void
test_request_before_auth(void **state)
{
	struct raw r;

	(void)state;
	raw_open(&r, 2);
	raw_send(r.fd, CF_PROTO_VERSION, MSG_STATUS, 0, 0, "{}",
	    auth_preauth_key, NULL, NULL);
	raw_expect_close(&r, CONN_R_PROTO, "before authentication");
	assert_int_equal(r.ss.requests, 0);
}

static void
test_garbage(void **state)
{
	const char *g = "GET / HTTP/1.1\r\nHost: x\r\n\r\n";
	struct raw r;

	(void)state;
	raw_open(&r, 2);
	assert_int_equal(write(r.fd, g, strlen(g)), (ssize_t)strlen(g));
	raw_expect_close(&r, CONN_R_PROTO, "bad magic");
}

static void
test_oversize_header(void **state)
{
	struct frame_hdr h = { CF_PROTO_VERSION, MSG_HELLO, 0, 0x7fffffff, 0 };
	uint8_t hdr[FRAME_HDR_LEN];
	struct raw r;

	(void)state;
	raw_open(&r, 2);
	frame_hdr_pack(&h, hdr);
	assert_int_equal(write(r.fd, hdr, sizeof(hdr)), (ssize_t)sizeof(hdr));
	raw_expect_close(&r, CONN_R_PROTO, "exceeds the limit");
}

/* Before authentication only the handshake's types, of 4 KiB at most:
 * a stranger's 200 kB STATUS (within STATUS's own limit) or 5 KiB HELLO
 * is refused at its header, before its body is allocated or read. */
static void
test_preauth_cap(void **state)
{
	struct frame_hdr st = { CF_PROTO_VERSION, MSG_STATUS, 0, 200000, 0 };
	struct frame_hdr he = { CF_PROTO_VERSION, MSG_HELLO, 0, 5000, 0 };
	uint8_t hdr[FRAME_HDR_LEN];
	struct raw r;

	(void)state;
	raw_open(&r, 2);
	frame_hdr_pack(&st, hdr);
	assert_int_equal(write(r.fd, hdr, sizeof(hdr)), (ssize_t)sizeof(hdr));
	raw_expect_close(&r, CONN_R_PROTO, "STATUS of 200000 bytes before "
	    "authentication");
	raw_open(&r, 2);
	frame_hdr_pack(&he, hdr);
	assert_int_equal(write(r.fd, hdr, sizeof(hdr)), (ssize_t)sizeof(hdr));
	raw_expect_close(&r, CONN_R_PROTO, "HELLO body of 5000 bytes exceeds");
}

static void
test_bad_hello(void **state)
{
	struct raw r;

	(void)state;
	raw_open(&r, 2);
	raw_send(r.fd, CF_PROTO_VERSION, MSG_HELLO, 0, 0,
	    "{\"proto\":2,\"version\":\"x\",\"role\":\"coordinator\","
	    "\"host\":\"h\",\"nonce\":17}", auth_preauth_key, NULL, NULL);
	raw_expect_close(&r, CONN_R_PROTO, "'nonce'");
	raw_open(&r, 2);
	raw_send(r.fd, CF_PROTO_VERSION, MSG_HELLO, 0, 0, "[1,2]",
	    auth_preauth_key, NULL, NULL);
	raw_expect_close(&r, CONN_R_PROTO, "not a JSON object");
	raw_open(&r, 2);
	raw_send(r.fd, CF_PROTO_VERSION, MSG_HELLO, 0, 0, "{\"proto\":",
	    auth_preauth_key, NULL, NULL);
	raw_expect_close(&r, CONN_R_PROTO, "not a JSON object");
}

/* A peer that connects and says nothing is dropped at the deadline. */
static void
test_auth_timeout(void **state)
{
	ev_tstamp t0 = ev_time();
	struct raw r;

	(void)state;
	raw_open(&r, 0.3);
	raw_expect_close(&r, CONN_R_TIMEOUT, "not completed");
	assert_true(ev_time() - t0 < 1.5);
}

/* Slowloris: a valid HELLO trickled too slowly still hits the 5 s-style
 * deadline, which covers the whole handshake, not each read. */
static void
test_slow_handshake(void **state)
{
	uint8_t nc[AUTH_NONCE_LEN];
	char body[256], hex[2 * AUTH_NONCE_LEN + 1], err[CF_ERRLEN];
	struct frame_hdr h;
	ev_tstamp t0 = ev_time();
	uint8_t *f;
	size_t len, i;
	struct raw r;

	(void)state;
	raw_open(&r, 0.4);
	memset(nc, 0x22, sizeof(nc));
	hexs(nc, sizeof(nc), hex);
	snprintf(body, sizeof(body), "{\"proto\":%d,\"version\":\"raw\","
	    "\"role\":\"coordinator\",\"host\":\"raw\",\"nonce\":\"%s\"}",
	    CF_PROTO_VERSION, hex);
	memset(&h, 0, sizeof(h));
	h.version = CF_PROTO_VERSION;
	h.type = MSG_HELLO;
	h.len = (uint32_t)strlen(body);
	f = frame_encode(&h, body, auth_preauth_key, &len, err);
	for (i = 0; i < len && !r.ss.closed; i++) {
		if (send(r.fd, f + i, 1, MSG_NOSIGNAL) != 1)
			break;
		spin(&r.ss.closed, 0.05);
	}
	free(f);
	raw_expect_close(&r, CONN_R_TIMEOUT, NULL);
	assert_true(ev_time() - t0 < 2.0);
}

static void
test_truncated_then_eof(void **state)
{
	struct raw r;
	struct frame_hdr h = { CF_PROTO_VERSION, MSG_HELLO, 0, 100, 0 };
	uint8_t hdr[FRAME_HDR_LEN + 10] = { 0 };

	(void)state;
	raw_open(&r, 2);
	frame_hdr_pack(&h, hdr);
	assert_int_equal(write(r.fd, hdr, sizeof(hdr)), (ssize_t)sizeof(hdr));
	shutdown(r.fd, SHUT_WR);
	spin(&r.ss.closed, 2);
	assert_int_equal(r.ss.reason, CONN_R_PEER_CLOSED);
	close(r.fd);
	conn_ctx_fini(&r.sc);
	assert_int_equal(r.sc.live, 0);
}

/* Connecting to a closed port is "unreachable", reported from the loop. */
static void
test_connect_refused(void **state)
{
	struct conn_ctx cc;
	struct side cs = { 0 };
	struct netaddr a;
	char err[CF_ERRLEN];
	int fd, one = 1;
	struct sockaddr_in sin;
	socklen_t sl = sizeof(sin);

	(void)state;
	/* Find a free port: bind, read it, close. */
	fd = socket(AF_INET, SOCK_STREAM, 0);
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(0x7f000001);
	assert_int_equal(bind(fd, (struct sockaddr *)&sin, sizeof(sin)), 0);
	getsockname(fd, (struct sockaddr *)&sin, &sl);
	close(fd);
	netaddr_parse("127.0.0.1", &a);
	conn_ctx_init(&cc, loop, &key_a, "c");
	assert_non_null(conn_connect(&cc, &a, ntohs(sin.sin_port), 1.0,
	    &t_ops, &cs, err));
	assert_int_equal(cs.closed, 0);
	spin(&cs.closed, 2);
	assert_int_equal(cs.reason, CONN_R_UNREACHABLE);
	assert_non_null(strstr(cs.detail, "refused"));
	conn_ctx_fini(&cc);
	assert_int_equal(cc.live, 0);
}

CF_UNIT_MAIN(setup, teardown,
    cmocka_unit_test(test_handshake_ok), cmocka_unit_test(test_wrong_key),
    cmocka_unit_test(test_version_mismatch), cmocka_unit_test(test_busy),
    cmocka_unit_test(test_replayed_frame),
    cmocka_unit_test(test_bad_mac_after_auth),
    cmocka_unit_test(test_request_before_auth),
    cmocka_unit_test(test_garbage), cmocka_unit_test(test_oversize_header),
    cmocka_unit_test(test_bad_hello), cmocka_unit_test(test_auth_timeout),
    cmocka_unit_test(test_preauth_cap), cmocka_unit_test(test_busy_at_auth),
    cmocka_unit_test(test_slow_handshake),
    cmocka_unit_test(test_truncated_then_eof),
    cmocka_unit_test(test_connect_refused))
