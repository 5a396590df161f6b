/* probe_wire: what every probe thread shares: the probes' header on the
 * wire (magic, flags, sequence, the token's first bytes) and the clocks
 * they are timed by, see probe_int.h. Apart from probe_io.c, so that the
 * runners (probe_io.c, probe_lat.c, probe_mesh.c) call down to it and not
 * into each other. */
#include "probes/probe_int.h"
#include "clock.h"

#include <arpa/inet.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>

#include <openssl/crypto.h>

#define PROBE_MAGIC 0x43465031u	/* "CFP1" */

double
probe_now(void)
{
	return clock_mono();
}

uint64_t
probe_now_ns(void)
{
	return clock_mono_ns();
}

void
probe_timeo(int fd, int ms)
{
	struct timeval tv = { ms / 1000, (ms % 1000) * 1000 };

	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
}

void
probe_hdr_put(uint8_t *b, const struct probe *p, uint32_t flags,
    uint64_t seq)
{
	uint32_t m = htonl(PROBE_MAGIC), f = htonl(flags);
	uint32_t hi = htonl((uint32_t)(seq >> 32)), lo = htonl((uint32_t)seq);

	memcpy(b, &m, 4);
	memcpy(b + 4, &f, 4);
	memcpy(b + 8, &hi, 4);
	memcpy(b + 12, &lo, 4);
	memcpy(b + 16, p->token, 8);
}

int
probe_hdr_get(const uint8_t *b, size_t n, const struct probe *p,
    uint32_t *flags, uint64_t *seq)
{
	uint32_t m, f, hi, lo;

	if (n < PROBE_UDP_HDR)
		return -1;
	memcpy(&m, b, 4);
	memcpy(&f, b + 4, 4);
	memcpy(&hi, b + 8, 4);
	memcpy(&lo, b + 12, 4);
	if (ntohl(m) != PROBE_MAGIC || CRYPTO_memcmp(b + 16, p->token, 8) != 0)
		return -1;
	*flags = ntohl(f);
	*seq = (uint64_t)ntohl(hi) << 32 | ntohl(lo);
	return 0;
}
