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
 * tries hi first (the common case: everything passes), then bisects.
 * *tries counts the probes made. */
uint32_t mtu_search(uint32_t lo, uint32_t hi, mtu_try_fn try, void *arg,
    unsigned *tries);

#endif
