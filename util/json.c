/* json: typed JSON getters, see include/json.h. */
#include "json.h"
#include "text.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int
json_err(char *err, const char *fmt, ...)
{
	va_list ap;

	if (err) {
		va_start(ap, fmt);
		vsnprintf(err, CF_ERRLEN, fmt, ap);
		va_end(ap);
	}
	return -1;
}

static const cJSON *
json_field(const cJSON *obj, const char *name)
{
	if (obj == NULL || !cJSON_IsObject(obj))
		return NULL;
	return cJSON_GetObjectItemCaseSensitive(obj, name);
}

static const char *
json_type(const cJSON *v)
{
	if (cJSON_IsNumber(v)) return "number";
	if (cJSON_IsString(v)) return "string";
	if (cJSON_IsBool(v)) return "boolean";
	if (cJSON_IsNull(v)) return "null";
	if (cJSON_IsArray(v)) return "array";
	if (cJSON_IsObject(v)) return "object";
	return "invalid";
}

/* json_number fetches an integral number in [min, max] as a double; the
 * double's 53-bit mantissa bounds what is accepted. */
static int
json_integer(const cJSON *obj, const char *name, double min, double max,
    double *out, char *err)
{
	const cJSON *v = json_field(obj, name);
	double d;

	if (v == NULL)
		return json_err(err, "field '%s': missing", name);
	if (!cJSON_IsNumber(v))
		return json_err(err, "field '%s': expected integer, got %s",
		    name, json_type(v));
	d = v->valuedouble;
	if (!isfinite(d) || floor(d) != d)
		return json_err(err, "field '%s': expected integer, got %g",
		    name, d);
	if (d > 9007199254740992.0 || d < -9007199254740992.0)
		return json_err(err, "field '%s': %g is beyond exact range",
		    name, d);
	if (d < min || d > max)
		return json_err(err, "field '%s': %.0f out of range [%.0f, %.0f]",
		    name, d, min, max);
	*out = d;
	return 0;
}

int
json_get_u32(const cJSON *obj, const char *name, uint32_t min, uint32_t max,
    uint32_t *out, char *err)
{
	double d;

	if (json_integer(obj, name, min, max, &d, err) == -1)
		return -1;
	*out = (uint32_t)d;
	return 0;
}

int
json_opt_u32(const cJSON *obj, const char *name, uint32_t min, uint32_t max,
    uint32_t def, uint32_t *out, char *err)
{
	if (json_field(obj, name) == NULL) {
		*out = def;
		return 0;
	}
	return json_get_u32(obj, name, min, max, out, err);
}

int
json_get_u64(const cJSON *obj, const char *name, uint64_t min, uint64_t max,
    uint64_t *out, char *err)
{
	double d;

	if (json_integer(obj, name, (double)min, (double)max, &d, err) == -1)
		return -1;
	if (d < 0)
		return json_err(err, "field '%s': negative", name);
	*out = (uint64_t)d;
	return 0;
}

int
json_opt_u64(const cJSON *obj, const char *name, uint64_t min, uint64_t max,
    uint64_t def, uint64_t *out, char *err)
{
	if (json_field(obj, name) == NULL) {
		*out = def;
		return 0;
	}
	return json_get_u64(obj, name, min, max, out, err);
}

int
json_get_i64(const cJSON *obj, const char *name, int64_t min, int64_t max,
    int64_t *out, char *err)
{
	double d;

	if (json_integer(obj, name, (double)min, (double)max, &d, err) == -1)
		return -1;
	*out = (int64_t)d;
	return 0;
}

int
json_get_double(const cJSON *obj, const char *name, double min, double max,
    double *out, char *err)
{
	const cJSON *v = json_field(obj, name);

	if (v == NULL)
		return json_err(err, "field '%s': missing", name);
	if (!cJSON_IsNumber(v))
		return json_err(err, "field '%s': expected number, got %s",
		    name, json_type(v));
	if (!isfinite(v->valuedouble) || v->valuedouble < min ||
	    v->valuedouble > max)
		return json_err(err, "field '%s': %g out of range [%g, %g]",
		    name, v->valuedouble, min, max);
	*out = v->valuedouble;
	return 0;
}

int
json_opt_double(const cJSON *obj, const char *name, double min, double max,
    double def, double *out, char *err)
{
	if (json_field(obj, name) == NULL) {
		*out = def;
		return 0;
	}
	return json_get_double(obj, name, min, max, out, err);
}

int
json_get_bool(const cJSON *obj, const char *name, bool *out, char *err)
{
	const cJSON *v = json_field(obj, name);

	if (v == NULL)
		return json_err(err, "field '%s': missing", name);
	if (!cJSON_IsBool(v))
		return json_err(err, "field '%s': expected boolean, got %s",
		    name, json_type(v));
	*out = cJSON_IsTrue(v);
	return 0;
}

int
json_opt_bool(const cJSON *obj, const char *name, bool def, bool *out,
    char *err)
{
	if (json_field(obj, name) == NULL) {
		*out = def;
		return 0;
	}
	return json_get_bool(obj, name, out, err);
}

int
json_get_str(const cJSON *obj, const char *name, size_t minlen, size_t maxlen,
    const char **out, char *err)
{
	const cJSON *v = json_field(obj, name);
	size_t len, i;

	if (v == NULL)
		return json_err(err, "field '%s': missing", name);
	if (!cJSON_IsString(v) || v->valuestring == NULL)
		return json_err(err, "field '%s': expected string, got %s",
		    name, json_type(v));
	len = strlen(v->valuestring);
	if (len < minlen || len > maxlen)
		return json_err(err, "field '%s': length %zu out of range "
		    "[%zu, %zu]", name, len, minlen, maxlen);
	for (i = 0; i < len; i++) {
		/* Control characters would corrupt logs and tables. */
		if ((unsigned char)v->valuestring[i] < 0x20 ||
		    v->valuestring[i] == 0x7f)
			return json_err(err, "field '%s': control character at "
			    "offset %zu", name, i);
	}
	*out = v->valuestring;
	return 0;
}

int
json_opt_str(const cJSON *obj, const char *name, size_t minlen, size_t maxlen,
    const char *def, const char **out, char *err)
{
	if (json_field(obj, name) == NULL) {
		*out = def;
		return 0;
	}
	return json_get_str(obj, name, minlen, maxlen, out, err);
}

int
json_get_strcpy(const cJSON *obj, const char *name, size_t minlen, char *buf,
    size_t bufsz, char *err)
{
	const char *s;

	if (bufsz == 0)
		return json_err(err, "field '%s': no room", name);
	if (json_get_str(obj, name, minlen, bufsz - 1, &s, err) == -1)
		return -1;
	memcpy(buf, s, strlen(s) + 1);
	return 0;
}

int
json_get_obj(const cJSON *obj, const char *name, const cJSON **out, char *err)
{
	const cJSON *v = json_field(obj, name);

	if (v == NULL)
		return json_err(err, "field '%s': missing", name);
	if (!cJSON_IsObject(v))
		return json_err(err, "field '%s': expected object, got %s",
		    name, json_type(v));
	*out = v;
	return 0;
}

int
json_opt_obj(const cJSON *obj, const char *name, const cJSON **out, char *err)
{
	if (json_field(obj, name) == NULL) {
		*out = NULL;
		return 0;
	}
	return json_get_obj(obj, name, out, err);
}

int
json_get_arr(const cJSON *obj, const char *name, int minn, int maxn,
    const cJSON **out, int *count, char *err)
{
	const cJSON *v = json_field(obj, name);
	int n;

	if (v == NULL)
		return json_err(err, "field '%s': missing", name);
	if (!cJSON_IsArray(v))
		return json_err(err, "field '%s': expected array, got %s",
		    name, json_type(v));
	n = cJSON_GetArraySize(v);
	if (n < minn || n > maxn)
		return json_err(err, "field '%s': %d elements, allowed [%d, %d]",
		    name, n, minn, maxn);
	*out = v;
	if (count)
		*count = n;
	return 0;
}

int
json_opt_arr(const cJSON *obj, const char *name, int maxn, const cJSON **out,
    int *count, char *err)
{
	if (json_field(obj, name) == NULL) {
		*out = NULL;
		if (count)
			*count = 0;
		return 0;
	}
	return json_get_arr(obj, name, 0, maxn, out, count, err);
}

static int
json_hexval(char c)
{
	if (c >= '0' && c <= '9') return c - '0';
	if (c >= 'a' && c <= 'f') return c - 'a' + 10;
	if (c >= 'A' && c <= 'F') return c - 'A' + 10;
	return -1;
}

int
json_get_hex(const cJSON *obj, const char *name, uint8_t *buf, size_t len,
    char *err)
{
	const char *s;
	size_t i;

	if (json_get_str(obj, name, len * 2, len * 2, &s, err) == -1)
		return -1;
	for (i = 0; i < len; i++) {
		int hi = json_hexval(s[2 * i]), lo = json_hexval(s[2 * i + 1]);

		if (hi < 0 || lo < 0)
			return json_err(err, "field '%s': not hexadecimal", name);
		buf[i] = (uint8_t)(hi << 4 | lo);
	}
	return 0;
}

int
json_elem_obj(const cJSON *item, const char *arrname, int idx, char *err)
{
	if (!cJSON_IsObject(item))
		return json_err(err, "field '%s[%d]': expected object, got %s",
		    arrname, idx, json_type(item));
	return 0;
}

int
json_word(const char *key, const char *v, const char *const *words, int n,
    char *err)
{
	size_t off;
	int i;

	for (i = 0; i < n; i++)
		if (strcmp(v, words[i]) == 0)
			return i;
	off = (size_t)snprintf(err, CF_ERRLEN, "field '%s': '%s' is not ", key,
	    v);
	for (i = 0; i < n && off < CF_ERRLEN; i++)
		off = text_appendf(err, CF_ERRLEN, off, "%s%s",
		    i == 0 ? "" : i == n - 1 ? " or " : ", ", words[i]);
	return -1;
}

int
json_is_array(const cJSON *j, const char *what, char *err)
{
	if (cJSON_IsArray(j))
		return 0;
	snprintf(err, CF_ERRLEN, "%s: not an array", what);
	return -1;
}
