/* auth: key files and handshake proofs, see include/auth.h. */
#include "auth.h"
#include "json.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

const uint8_t auth_preauth_key[FRAME_KEY_LEN] = { 0 };

static const char *auth_labels[] = {
	[AUTH_PROOF_CLIENT] = "cephfab-v1 client",
	[AUTH_PROOF_SERVER] = "cephfab-v1 server",
	[AUTH_KEY_C2S] = "cephfab-v1 c2s",
	[AUTH_KEY_S2C] = "cephfab-v1 s2c",
};

static int
auth_hexval(int c)
{
	if (c >= '0' && c <= '9') return c - '0';
	if (c >= 'a' && c <= 'f') return c - 'a' + 10;
	if (c >= 'A' && c <= 'F') return c - 'A' + 10;
	return -1;
}

int
auth_key_parse(const char *text, size_t len, struct auth_key *k, char *err)
{
	size_t i = 0, end = len, n = 0;

	while (i < end && (text[i] == ' ' || text[i] == '\t' ||
	    text[i] == '\n' || text[i] == '\r'))
		i++;
	while (end > i && (text[end - 1] == ' ' || text[end - 1] == '\t' ||
	    text[end - 1] == '\n' || text[end - 1] == '\r'))
		end--;
	if ((end - i) % 2 != 0) {
		snprintf(err, CF_ERRLEN, "key is not whole hex bytes");
		return -1;
	}
	if ((end - i) / 2 > AUTH_KEY_MAX) {
		snprintf(err, CF_ERRLEN, "key longer than %d bytes",
		    AUTH_KEY_MAX);
		return -1;
	}
	for (; i < end; i += 2) {
		int hi = auth_hexval((unsigned char)text[i]);
		int lo = auth_hexval((unsigned char)text[i + 1]);

		if (hi < 0 || lo < 0) {
			snprintf(err, CF_ERRLEN, "key is not hexadecimal "
			    "(make one with 'cephfab keygen')");
			return -1;
		}
		k->key[n++] = (uint8_t)(hi << 4 | lo);
	}
	if (n < AUTH_KEY_MIN) {
		snprintf(err, CF_ERRLEN, "key has %zu bytes, at least %d "
		    "needed (make one with 'cephfab keygen')", n, AUTH_KEY_MIN);
		return -1;
	}
	k->len = n;
	return 0;
}

int
auth_key_load(const char *path, struct auth_key *k, char *err)
{
	char buf[2 * AUTH_KEY_MAX + 64], e2[CF_ERRLEN];
	struct stat st;
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd == -1) {
		/* Say that it is the key: a bare path and ENOENT leave a new
		 * user guessing which file is meant. */
		snprintf(err, CF_ERRLEN, "%s: cannot read the key file: %s%s",
		    path, strerror(errno), errno == ENOENT ? " (make one with "
		    "'cephfab keygen -o FILE')" : errno == EACCES ? " (run as "
		    "root or the key's owner, or join its group: chgrp cephfab, "
		    "chmod 640)" : "");
		return -1;
	}
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode)) {
		snprintf(err, CF_ERRLEN, "%s: key file is not a regular file",
		    path);
		close(fd);
		return -1;
	}
	/* A key another user owns is a key that user can replace (and
	 * with it every agent's trust): only ours or root's. */
	if (st.st_uid != geteuid() && st.st_uid != 0) {
		snprintf(err, CF_ERRLEN, "%s: key file is owned by uid %u, not "
		    "by this user (uid %u) or root; chown it", path,
		    (unsigned)st.st_uid, (unsigned)geteuid());
		close(fd);
		return -1;
	}
	/* A key others can read is a key others have. Its group may read
	 * it: the coordinator's copy is root:cephfab 0640, so that the
	 * operators in that group run cephfab without root. */
	if (st.st_mode & (S_IWGRP | S_IXGRP | S_IRWXO)) {
		snprintf(err, CF_ERRLEN, "%s: key file is accessible by others "
		    "or writable by its group (mode %03o); chmod 600 it (640 "
		    "to let its group read it)", path,
		    (unsigned)(st.st_mode & 0777));
		close(fd);
		return -1;
	}
	n = read(fd, buf, sizeof(buf));
	close(fd);
	if (n < 0) {
		snprintf(err, CF_ERRLEN, "%s: %s", path, strerror(errno));
		return -1;
	}
	if ((size_t)n == sizeof(buf)) {
		snprintf(err, CF_ERRLEN, "%s: file too large for a key", path);
		return -1;
	}
	if (auth_key_parse(buf, (size_t)n, k, e2) == -1) {
		snprintf(err, CF_ERRLEN, "%s: %s", path, e2);
		return -1;
	}
	return 0;
}

int
auth_keygen(char *out, size_t outsz)
{
	uint8_t raw[AUTH_KEY_MIN];
	size_t i;

	if (outsz < 2 * AUTH_KEY_MIN + 1 || RAND_bytes(raw, sizeof(raw)) != 1)
		return -1;
	for (i = 0; i < sizeof(raw); i++)
		snprintf(out + 2 * i, 3, "%02x", raw[i]);
	OPENSSL_cleanse(raw, sizeof(raw));
	return 0;
}

int
auth_nonce(uint8_t n[AUTH_NONCE_LEN])
{
	return RAND_bytes(n, AUTH_NONCE_LEN) == 1 ? 0 : -1;
}

void
auth_derive(const struct auth_key *k, enum auth_label label,
    const uint8_t nc[AUTH_NONCE_LEN], const uint8_t ns[AUTH_NONCE_LEN],
    uint8_t out[FRAME_KEY_LEN])
{
	uint8_t msg[64 + 2 * AUTH_NONCE_LEN];
	size_t ll = strlen(auth_labels[label]);
	unsigned int olen = FRAME_KEY_LEN;

	memcpy(msg, auth_labels[label], ll);
	memcpy(msg + ll, nc, AUTH_NONCE_LEN);
	memcpy(msg + ll + AUTH_NONCE_LEN, ns, AUTH_NONCE_LEN);
	if (HMAC(EVP_sha256(), k->key, (int)k->len, msg,
	    ll + 2 * AUTH_NONCE_LEN, out, &olen) == NULL) {
		/* Fail closed: random bytes match no peer's proof. */
		if (RAND_bytes(out, FRAME_KEY_LEN) != 1)
			memset(out, 0xa5, FRAME_KEY_LEN);
	}
}

int
auth_equal(const uint8_t *a, const uint8_t *b, size_t len)
{
	return CRYPTO_memcmp(a, b, len) == 0;
}
