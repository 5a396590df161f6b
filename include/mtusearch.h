/*
 * mtusearch: the path-MTU search, apart from the sockets so that it can be
 * tested on a fake prober. try(arg, size) says whether a datagram of size
 * IP bytes crossed.
 */
#ifndef CF_MTUSEARCH_H
#define CF_MTUSEARCH_H

#include <stdint.h>

typedef int (*mtu_try_fn)(void *arg, uint32_t size);

/* mtu_search returns the largest size in [lo, hi] that passes, assuming
 * lo passes and that sizes pass up to some limit and fail above it; it
 * tries hi first (the common case: everything passes), then bisects, then
 * asks the smallest size that failed once more: a probe lost on a lossy
 * path is not a size that cannot cross (up to MTU_CONFIRM_ROUNDS times).
 * *tries counts the probes made. */
#define MTU_CONFIRM_ROUNDS 3
uint32_t mtu_search(uint32_t lo, uint32_t hi, mtu_try_fn try, void *arg,
    unsigned *tries);

/* MTU_IP_MAX: no IP datagram is larger (IPv4's 16-bit total length; an
 * IPv6 payload likewise without jumbograms). mtu_ceiling is what a path
 * with a port of MTU conf can carry at most: loopback's 65536 is 65535,
 * never a black hole for the last byte. Every comparison of a path MTU
 * with its port's goes through it. */
#define MTU_IP_MAX 65535
static inline double
mtu_ceiling(double conf)
{
	return conf > MTU_IP_MAX ? MTU_IP_MAX : conf;
}

#endif
