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

const char *
units_fmt_rate(double bps, char *buf, size_t sz)
{
	if (bps >= 1e9)
		snprintf(buf, sz, "%.2f Gbits/sec", bps / 1e9);
	else if (bps >= 1e6)
		snprintf(buf, sz, "%.0f Mbits/sec", bps / 1e6);
	else if (bps >= 1e3)
		snprintf(buf, sz, "%.0f Kbits/sec", bps / 1e3);
	else
		snprintf(buf, sz, "%.0f bits/sec", bps);
	return buf;
}

const char *
units_fmt_bytes(double b, char *buf, size_t sz)
{
	if (b >= 1073741824.0)
		snprintf(buf, sz, "%.2f GBytes", b / 1073741824.0);
	else if (b >= 1048576.0)
		snprintf(buf, sz, "%.1f MBytes", b / 1048576.0);
	else if (b >= 1024.0)
		snprintf(buf, sz, "%.1f KBytes", b / 1024.0);
	else
		snprintf(buf, sz, "%.0f Bytes", b);
	return buf;
}
