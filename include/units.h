/*
 * units: numbers with SI / binary suffixes as users type them.
 *   rates: "500M", "10G", "1.5g", "200000" (bits per second, K = 1000)
 *   sizes: "128K", "1M", "9000" (bytes, K = 1024)
 */
#ifndef CF_UNITS_H
#define CF_UNITS_H

#include <stddef.h>
#include <stdint.h>

/* Each returns 0 and fills *out, or -1 for anything else (empty, junk after
 * the suffix, negative, overflow). */
int units_rate(const char *s, uint64_t *out);
int units_size(const char *s, uint64_t *out);
/* units_fmt_rate writes "941 Mbits/sec"-style text. */
const char *units_fmt_rate(double bps, char *buf, size_t sz);
/* units_fmt_bytes writes "1.10 GBytes"-style text (binary units). */
const char *units_fmt_bytes(double bytes, char *buf, size_t sz);

/* units_number: s as a whole decimal number in [min, max] into *out; -1
 * (nothing written) for anything else. The callers word the error: a
 * config key, a command-line option. */
int units_number(const char *s, double min, double max, double *out);

#endif
