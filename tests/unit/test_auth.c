/* Unit tests for proto/auth.c: key files, keygen and derivations. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "cf_unit.h"

#include "auth.h"
#include "json.h"

static char tmpdir[64];

static int
setup(void **state)
{
	(void)state;
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/cf-auth-XXXXXX");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int
teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

static void
write_file(const char *path, const char *text, mode_t mode)
{
	FILE *f;

	unlink(path);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	assert_int_equal(chmod(path, mode), 0);
}

static void
test_parse(void **state)
{
	struct auth_key k;
	char err[CF_ERRLEN];
	const char *good = "  00112233445566778899aabbccddeeff"
	    "00112233445566778899AABBCCDDEEFF\n";

	(void)state;
	assert_int_equal(auth_key_parse(good, strlen(good), &k, err), 0);
	assert_int_equal(k.len, 32);
	assert_int_equal(k.key[0], 0x00);
	assert_int_equal(k.key[31], 0xff);
	/* 31 bytes: too short. */
	assert_int_equal(auth_key_parse(good, 2 + 62, &k, err), -1);
	assert_non_null(strstr(err, "at least 32"));
	/* Odd number of digits. */
	assert_int_equal(auth_key_parse("abc", 3, &k, err), -1);
	assert_int_equal(auth_key_parse("zz", 2, &k, err), -1);
	assert_int_equal(auth_key_parse("", 0, &k, err), -1);
}

static void
test_load_permissions(void **state)
{
	char path[128], hex[2 * AUTH_KEY_MIN + 1], err[CF_ERRLEN];
	struct auth_key k;

	(void)state;
	assert_int_equal(auth_keygen(hex, sizeof(hex)), 0);
	assert_int_equal(strlen(hex), 64);
	snprintf(path, sizeof(path), "%s/key", tmpdir);
	write_file(path, hex, 0600);
	assert_int_equal(auth_key_load(path, &k, err), 0);
	assert_int_equal(k.len, 32);
	write_file(path, hex, 0644);
	assert_int_equal(auth_key_load(path, &k, err), -1);
	assert_non_null(strstr(err, "accessible by others"));
	assert_non_null(strstr(err, path));
	/* Its group may read it (the coordinator's copy, root:cephfab
	 * 0640), not write it. */
	write_file(path, hex, 0640);
	assert_int_equal(auth_key_load(path, &k, err), 0);
	write_file(path, hex, 0660);
	assert_int_equal(auth_key_load(path, &k, err), -1);
	assert_non_null(strstr(err, "writable by its group"));
	write_file(path, hex, 0602);
	assert_int_equal(auth_key_load(path, &k, err), -1);
	/* Owned by another user: refused, even at mode 600 (as root the
	 * test can give it away; as a user it cannot, and skips this). */
	write_file(path, hex, 0600);
	if (geteuid() == 0 && chown(path, 65534, 65534) == 0) {
		assert_int_equal(auth_key_load(path, &k, err), -1);
		assert_non_null(strstr(err, "owned by uid 65534"));
		assert_int_equal(chown(path, 0, 0), 0);
		assert_int_equal(auth_key_load(path, &k, err), 0);
	}
	write_file(path, "0011", 0600);
	assert_int_equal(auth_key_load(path, &k, err), -1);
	assert_non_null(strstr(err, "at least 32"));
	snprintf(path, sizeof(path), "%s/nope", tmpdir);
	assert_int_equal(auth_key_load(path, &k, err), -1);
	assert_non_null(strstr(err, "No such file"));
	assert_int_equal(auth_key_load(tmpdir, &k, err), -1);
}

static void
test_keygen_random(void **state)
{
	char a[2 * AUTH_KEY_MIN + 1], b[2 * AUTH_KEY_MIN + 1];
	uint8_t n1[AUTH_NONCE_LEN], n2[AUTH_NONCE_LEN];

	(void)state;
	assert_int_equal(auth_keygen(a, sizeof(a)), 0);
	assert_int_equal(auth_keygen(b, sizeof(b)), 0);
	assert_string_not_equal(a, b);
	assert_int_equal(auth_keygen(a, 10), -1);
	assert_int_equal(auth_nonce(n1), 0);
	assert_int_equal(auth_nonce(n2), 0);
	assert_memory_not_equal(n1, n2, AUTH_NONCE_LEN);
}

/* Each label, each nonce and each key gives a different value: proofs
 * cannot be swapped between roles, directions or sessions. */
static void
test_derive(void **state)
{
	struct auth_key k1 = { { 1 }, 32 }, k2 = { { 2 }, 32 };
	uint8_t nc[AUTH_NONCE_LEN] = { 1 }, ns[AUTH_NONCE_LEN] = { 2 };
	uint8_t out[4][FRAME_KEY_LEN], x[FRAME_KEY_LEN];
	int i, j;

	(void)state;
	for (i = 0; i < 4; i++)
		auth_derive(&k1, (enum auth_label)i, nc, ns, out[i]);
	for (i = 0; i < 4; i++)
		for (j = i + 1; j < 4; j++)
			assert_memory_not_equal(out[i], out[j], FRAME_KEY_LEN);
	auth_derive(&k1, AUTH_PROOF_CLIENT, ns, nc, x);
	assert_memory_not_equal(out[0], x, FRAME_KEY_LEN);
	auth_derive(&k2, AUTH_PROOF_CLIENT, nc, ns, x);
	assert_memory_not_equal(out[0], x, FRAME_KEY_LEN);
	auth_derive(&k1, AUTH_PROOF_CLIENT, nc, ns, x);
	assert_memory_equal(out[0], x, FRAME_KEY_LEN);
	assert_true(auth_equal(out[0], x, FRAME_KEY_LEN));
	x[31] ^= 1;
	assert_false(auth_equal(out[0], x, FRAME_KEY_LEN));
}

CF_UNIT_MAIN(setup, teardown,
    cmocka_unit_test(test_parse), cmocka_unit_test(test_load_permissions),
    cmocka_unit_test(test_keygen_random), cmocka_unit_test(test_derive))
