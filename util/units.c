/* units: parse and format rates and sizes, see include/units.h. */
#include "units.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static int
units_parse(const char *s, double k, uint64_t *out)
{
	char *end;
	double v, m = 1;

	if (s == NULL || *s == '\0' || isspace((unsigned char)*s) || *s == '-')
		return -1;
	v = strtod(s, &end);
	if (end == s || !isfinite(v) || v < 0)
		return -1;
	switch (*end) {
	case '\0': break;
	case 'k': case 'K': m = k; end++; break;
	case 'm': case 'M': m = k * k; end++; break;
	case 'g': case 'G': m = k * k * k; end++; break;
	case 't': case 'T': m = k * k * k * k; end++; break;
	default: return -1;
	}
	if (*end != '\0' || v * m > 1.8e19)
		return -1;
	*out = (uint64_t)llround(v * m);
	return 0;
}

int
units_rate(const char *s, uint64_t *out)
{
	return units_parse(s, 1000.0, out);
}

int
units_size(const char *s, uint64_t *out)
{
	return units_parse(s, 1024.0, out);
}

/* A scale of a unit: at or above min, value / div printed with fmt. */
struct scale {
	double min, div;
	const char *fmt;
};

static const char *
fmt_scaled(double v, const struct scale *s, char *buf, size_t sz)
{
	while (!(v >= s->min) && s->min != -INFINITY)
		s++;
	snprintf(buf, sz, s->fmt, v / s->div);
	return buf;
}

const char *
units_fmt_rate(double bps, char *buf, size_t sz)
{
	static const struct scale s[] = {
		{ 1e9, 1e9, "%.2f Gbits/sec" }, { 1e6, 1e6, "%.0f Mbits/sec" },
		{ 1e3, 1e3, "%.0f Kbits/sec" }, { -INFINITY, 1, "%.0f bits/sec" },
	};

	return fmt_scaled(bps, s, buf, sz);
}

const char *
units_fmt_bytes(double b, char *buf, size_t sz)
{
	static const struct scale s[] = {
		{ 1073741824.0, 1073741824.0, "%.2f GBytes" },
		{ 1048576.0, 1048576.0, "%.1f MBytes" },
		{ 1024.0, 1024.0, "%.1f KBytes" }, { -INFINITY, 1, "%.0f Bytes" },
	};

	return fmt_scaled(b, s, buf, sz);
}

int
units_number(const char *s, double min, double max, double *out)
{
	char *end;
	double d = strtod(s, &end);

	if (*s == '\0' || *end != '\0' || !(d >= min && d <= max))
		return -1;
	*out = d;
	return 0;
}
