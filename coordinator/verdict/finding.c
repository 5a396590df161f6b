/* finding: one finding as every report shows it (kind, severity, network,
 * hosts, summary, evidence, hint), built the same way by every check of
 * every room, see verdict.h. */
#include "verdict/verdict.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

cJSON *
finding_vnew(cJSON *out, const char *kind, const char *sev, const char *net,
    const char *hint, const char *fmt, va_list ap)
{
	cJSON *f = cJSON_CreateObject();
	char msg[512];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	cJSON_AddStringToObject(f, "kind", kind);
	cJSON_AddStringToObject(f, "severity", sev);
	cJSON_AddStringToObject(f, "network", net);
	cJSON_AddArrayToObject(f, "hosts");
	cJSON_AddStringToObject(f, "summary", msg);
	cJSON_AddObjectToObject(f, "evidence");
	cJSON_AddStringToObject(f, "hint", hint);
	cJSON_AddItemToArray(out, f);
	return f;
}

cJSON *
finding_new(cJSON *out, const char *kind, const char *sev, const char *net,
    const char *hint, const char *fmt, ...)
{
	va_list ap;
	cJSON *f;

	va_start(ap, fmt);
	f = finding_vnew(out, kind, sev, net, hint, fmt, ap);
	va_end(ap);
	return f;
}

void
finding_host(cJSON *f, const char *name)
{
	cJSON_AddItemToArray(cJSON_GetObjectItem(f, "hosts"),
	    cJSON_CreateString(name));
}

void
finding_num(cJSON *f, const char *key, double x)
{
	if (isfinite(x))
		cJSON_AddNumberToObject(cJSON_GetObjectItem(f, "evidence"), key,
		    x);
}

void
finding_location(cJSON *f, const char *scope)
{
	cJSON *l = cJSON_GetObjectItem(f, "location");

	if (l == NULL)
		l = cJSON_AddObjectToObject(f, "location");
	cJSON_DeleteItemFromObject(l, "scope");
	cJSON_AddStringToObject(l, "scope", scope);
}

void
finding_pair(cJSON *f, const char *pair)
{
	cJSON *e = cJSON_GetObjectItem(f, "evidence");
	cJSON *a = cJSON_GetObjectItem(e, "pairs");

	if (a == NULL)
		a = cJSON_AddArrayToObject(e, "pairs");
	cJSON_AddItemToArray(a, cJSON_CreateString(pair));
}

static int
dcmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

double
finding_median(double *x, int n)
{
	if (n == 0)
		return NAN;
	qsort(x, (size_t)n, sizeof(*x), dcmp);
	return n % 2 ? x[n / 2] : (x[n / 2 - 1] + x[n / 2]) / 2;
}

double
finding_quantile(double *x, int n, double q)
{
	int k;

	if (n == 0)
		return NAN;
	qsort(x, (size_t)n, sizeof(*x), dcmp);
	k = (int)ceil(q * n) - 1;
	return x[k < 0 ? 0 : k >= n ? n - 1 : k];
}

void
finding_link(cJSON *f, const struct mview *v, char kind, const char *a,
    const char *b, const char *text, const char *or_text)
{
	cJSON *l, *ends;

	finding_location(f, kind == 'P' ? "host" : "link");
	l = cJSON_GetObjectItem(f, "location");
	cJSON_AddStringToObject(l, "network", v->net);
	if (kind == 'P') {
		finding_host(f, a);
		cJSON_AddStringToObject(l, "host", a);
		cJSON_AddStringToObject(l, "where", "port");
		cJSON_AddStringToObject(l, "interface", b);
	} else {
		ends = cJSON_AddArrayToObject(l, "ends");
		cJSON_AddItemToArray(ends, cJSON_CreateString(a));
		cJSON_AddItemToArray(ends, cJSON_CreateString(b));
		cJSON_AddStringToObject(l, "direction", kind == 'L' ?
		    "both" : "one way");
	}
	cJSON_AddStringToObject(l, "link", text);
	if (or_text)
		cJSON_AddStringToObject(l, "or", or_text);
}
