/*
 * clock: the monotonic clock every deadline and interval is measured on
 * (never the wall clock, which NTP steps).
 */
#ifndef CF_CLOCK_H
#define CF_CLOCK_H

#include <stdint.h>

/* clock_mono: seconds since an arbitrary start. */
double clock_mono(void);
/* clock_mono_ns: the same in nanoseconds. */
uint64_t clock_mono_ns(void);
/* clock_real_ns: the wall clock in nanoseconds, only to compare with the
 * kernel's packet timestamps, which are on it. */
uint64_t clock_real_ns(void);

#endif
