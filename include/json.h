/*
 * json: typed, range-checked getters for cJSON objects.
 *
 * Every field read from a wire message, a ceph JSON document or a vtysh JSON
 * document goes through these (house style rule 2). Each getter returns 0 and
 * fills *out, or returns -1 and writes a one-line message naming the field and
 * the problem into err (CF_ERRLEN bytes). The json_opt_* variants return 0 with
 * the default when the field is absent, but still fail on a wrong type or an
 * out-of-range value. Unknown fields are never an error: newer peers may add
 * them.
 */
#ifndef CF_PJ_H
#define CF_PJ_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include <cjson/cJSON.h>

#define CF_ERRLEN 256

int json_get_u32(const cJSON *obj, const char *name, uint32_t min, uint32_t max,
    uint32_t *out, char *err);
int json_opt_u32(const cJSON *obj, const char *name, uint32_t min, uint32_t max,
    uint32_t def, uint32_t *out, char *err);
/* u64 values above 2^53 cannot be represented exactly by cJSON and are
 * refused. */
int json_get_u64(const cJSON *obj, const char *name, uint64_t min, uint64_t max,
    uint64_t *out, char *err);
int json_opt_u64(const cJSON *obj, const char *name, uint64_t min, uint64_t max,
    uint64_t def, uint64_t *out, char *err);
int json_get_i64(const cJSON *obj, const char *name, int64_t min, int64_t max,
    int64_t *out, char *err);
int json_get_double(const cJSON *obj, const char *name, double min, double max,
    double *out, char *err);
int json_opt_double(const cJSON *obj, const char *name, double min, double max,
    double def, double *out, char *err);
int json_get_bool(const cJSON *obj, const char *name, bool *out, char *err);
int json_opt_bool(const cJSON *obj, const char *name, bool def, bool *out,
    char *err);
/* json_get_str returns a pointer into obj (valid while obj lives); the string
 * must be between minlen and maxlen bytes and contain no NUL or control
 * characters. */
int json_get_str(const cJSON *obj, const char *name, size_t minlen,
    size_t maxlen, const char **out, char *err);
int json_opt_str(const cJSON *obj, const char *name, size_t minlen,
    size_t maxlen, const char *def, const char **out, char *err);
/* json_get_strcpy copies into a caller buffer of size bufsz (maxlen is
 * bufsz - 1). */
int json_get_strcpy(const cJSON *obj, const char *name, size_t minlen,
    char *buf, size_t bufsz, char *err);
int json_get_obj(const cJSON *obj, const char *name, const cJSON **out,
    char *err);
int json_opt_obj(const cJSON *obj, const char *name, const cJSON **out,
    char *err);
/* json_get_arr checks the element count is within [minn, maxn]. */
int json_get_arr(const cJSON *obj, const char *name, int minn, int maxn,
    const cJSON **out, int *count, char *err);
int json_opt_arr(const cJSON *obj, const char *name, int maxn,
    const cJSON **out, int *count, char *err);
/* json_get_hex decodes a hex string of exactly len bytes into buf. */
int json_get_hex(const cJSON *obj, const char *name, uint8_t *buf, size_t len,
    char *err);

/* json_elem_* check one array element (index used in the message). */
int json_elem_obj(const cJSON *arr_item, const char *arrname, int idx,
    char *err);

/* json_word: the index of v (the value of field key) among n words, or -1
 * with "field 'KEY': 'V' is not A, B or C" in err. */
int json_word(const char *key, const char *v, const char *const *words,
    int n, char *err);

/* json_is_array: 0 when j is an array, else -1 with "WHAT: not an array"
 * (a whole document that must be one). */
int json_is_array(const cJSON *j, const char *what, char *err);

#endif
