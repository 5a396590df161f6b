/* Unit tests for util/json.c: every typed getter at and beyond its limits. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "cf_unit.h"

#include "json.h"

static cJSON *
J(const char *s)
{
	cJSON *j = cJSON_Parse(s);

	assert_non_null(j);
	return j;
}

static void
test_u32(void **state)
{
	cJSON *j = J("{\"a\":5,\"b\":-1,\"c\":1.5,\"d\":\"5\",\"e\":4294967295,"
	    "\"f\":4294967296,\"g\":1e300,\"h\":null}");
	char err[CF_ERRLEN];
	uint32_t v = 0;

	(void)state;
	assert_int_equal(json_get_u32(j, "a", 1, 128, &v, err), 0);
	assert_int_equal(v, 5);
	assert_int_equal(json_get_u32(j, "a", 1, 5, &v, err), 0);
	assert_int_equal(json_get_u32(j, "a", 5, 5, &v, err), 0);
	assert_int_equal(json_get_u32(j, "a", 6, 128, &v, err), -1);
	assert_non_null(strstr(err, "'a'"));
	assert_non_null(strstr(err, "out of range"));
	assert_int_equal(json_get_u32(j, "a", 1, 4, &v, err), -1);
	assert_int_equal(json_get_u32(j, "b", 0, 10, &v, err), -1);
	assert_int_equal(json_get_u32(j, "c", 0, 10, &v, err), -1);
	assert_non_null(strstr(err, "expected integer"));
	assert_int_equal(json_get_u32(j, "d", 0, 10, &v, err), -1);
	assert_non_null(strstr(err, "got string"));
	assert_int_equal(json_get_u32(j, "e", 0, UINT32_MAX, &v, err), 0);
	assert_true(v == UINT32_MAX);
	assert_int_equal(json_get_u32(j, "f", 0, UINT32_MAX, &v, err), -1);
	assert_int_equal(json_get_u32(j, "g", 0, UINT32_MAX, &v, err), -1);
	assert_int_equal(json_get_u32(j, "h", 0, 10, &v, err), -1);
	assert_non_null(strstr(err, "got null"));
	assert_int_equal(json_get_u32(j, "missing", 0, 10, &v, err), -1);
	assert_non_null(strstr(err, "'missing': missing"));
	v = 99;
	assert_int_equal(json_opt_u32(j, "missing", 0, 10, 7, &v, err), 0);
	assert_int_equal(v, 7);
	assert_int_equal(json_opt_u32(j, "d", 0, 10, 7, &v, err), -1);
	assert_int_equal(json_opt_u32(j, "a", 0, 4, 7, &v, err), -1);
	/* Not an object at all. */
	assert_int_equal(json_get_u32(NULL, "a", 0, 10, &v, err), -1);
	cJSON_Delete(j);
}

static void
test_u64_i64_double(void **state)
{
	cJSON *j = J("{\"a\":9007199254740992,\"b\":9007199254740994,"
	    "\"c\":-5,\"d\":2.5,\"e\":true}");
	char err[CF_ERRLEN];
	uint64_t u;
	int64_t i;
	double d;

	(void)state;
	assert_int_equal(json_get_u64(j, "a", 0, UINT64_MAX, &u, err), 0);
	assert_true(u == 9007199254740992ull);
	assert_int_equal(json_get_u64(j, "b", 0, UINT64_MAX, &u, err), -1);
	assert_non_null(strstr(err, "exact range"));
	assert_int_equal(json_get_u64(j, "c", 0, 100, &u, err), -1);
	assert_int_equal(json_opt_u64(j, "zz", 0, 100, 42, &u, err), 0);
	assert_true(u == 42);
	assert_int_equal(json_get_i64(j, "c", -10, 10, &i, err), 0);
	assert_true(i == -5);
	assert_int_equal(json_get_i64(j, "c", -4, 10, &i, err), -1);
	assert_int_equal(json_get_double(j, "d", 0, 3, &d, err), 0);
	assert_true(d == 2.5);
	assert_int_equal(json_get_double(j, "d", 0, 2, &d, err), -1);
	assert_int_equal(json_get_double(j, "e", 0, 2, &d, err), -1);
	assert_non_null(strstr(err, "got boolean"));
	assert_int_equal(json_opt_double(j, "zz", 0, 2, 1.5, &d, err), 0);
	assert_true(d == 1.5);
	cJSON_Delete(j);
}

static void
test_bool(void **state)
{
	cJSON *j = J("{\"t\":true,\"f\":false,\"n\":1}");
	char err[CF_ERRLEN];
	bool b;

	(void)state;
	assert_int_equal(json_get_bool(j, "t", &b, err), 0);
	assert_true(b);
	assert_int_equal(json_get_bool(j, "f", &b, err), 0);
	assert_false(b);
	assert_int_equal(json_get_bool(j, "n", &b, err), -1);
	assert_int_equal(json_get_bool(j, "x", &b, err), -1);
	assert_int_equal(json_opt_bool(j, "x", true, &b, err), 0);
	assert_true(b);
	cJSON_Delete(j);
}

static void
test_str(void **state)
{
	cJSON *j = J("{\"s\":\"abc\",\"e\":\"\",\"c\":\"a\\nb\",\"n\":3}");
	char err[CF_ERRLEN], buf[4], small[3];
	const char *s;

	(void)state;
	assert_int_equal(json_get_str(j, "s", 1, 3, &s, err), 0);
	assert_string_equal(s, "abc");
	assert_int_equal(json_get_str(j, "s", 1, 2, &s, err), -1);
	assert_non_null(strstr(err, "length 3"));
	assert_int_equal(json_get_str(j, "s", 4, 10, &s, err), -1);
	assert_int_equal(json_get_str(j, "e", 0, 10, &s, err), 0);
	assert_int_equal(json_get_str(j, "e", 1, 10, &s, err), -1);
	assert_int_equal(json_get_str(j, "c", 0, 10, &s, err), -1);
	assert_non_null(strstr(err, "control character"));
	assert_int_equal(json_get_str(j, "n", 0, 10, &s, err), -1);
	assert_int_equal(json_opt_str(j, "zz", 0, 10, "dflt", &s, err), 0);
	assert_string_equal(s, "dflt");
	assert_int_equal(json_get_strcpy(j, "s", 1, buf, sizeof(buf), err), 0);
	assert_string_equal(buf, "abc");
	assert_int_equal(json_get_strcpy(j, "s", 1, small, sizeof(small), err),
	    -1);
	cJSON_Delete(j);
}

static void
test_obj_arr_hex(void **state)
{
	cJSON *j = J("{\"o\":{},\"a\":[1,2,3],\"h\":\"00ff10\",\"x\":\"0g\","
	    "\"s\":\"0f\"}");
	char err[CF_ERRLEN];
	const cJSON *o;
	uint8_t buf[3];
	int n;

	(void)state;
	assert_int_equal(json_get_obj(j, "o", &o, err), 0);
	assert_int_equal(json_get_obj(j, "a", &o, err), -1);
	assert_non_null(strstr(err, "expected object, got array"));
	assert_int_equal(json_opt_obj(j, "zz", &o, err), 0);
	assert_null(o);
	assert_int_equal(json_get_arr(j, "a", 0, 3, &o, &n, err), 0);
	assert_int_equal(n, 3);
	assert_int_equal(json_get_arr(j, "a", 0, 2, &o, &n, err), -1);
	assert_non_null(strstr(err, "3 elements"));
	assert_int_equal(json_get_arr(j, "a", 4, 9, &o, &n, err), -1);
	assert_int_equal(json_get_arr(j, "o", 0, 9, &o, &n, err), -1);
	assert_int_equal(json_opt_arr(j, "zz", 9, &o, &n, err), 0);
	assert_int_equal(n, 0);
	assert_int_equal(json_get_hex(j, "h", buf, 3, err), 0);
	assert_int_equal(buf[0], 0);
	assert_int_equal(buf[1], 0xff);
	assert_int_equal(buf[2], 0x10);
	assert_int_equal(json_get_hex(j, "x", buf, 1, err), -1);
	assert_int_equal(json_get_hex(j, "s", buf, 3, err), -1);
	assert_int_equal(json_elem_obj(cJSON_GetArrayItem(
	    cJSON_GetObjectItem(j, "a"), 0), "a", 0, err), -1);
	assert_non_null(strstr(err, "'a[0]'"));
	cJSON_Delete(j);
}

/* Field names are case-sensitive: "Streams" is not "streams". */
static void
test_case_and_unknown(void **state)
{
	cJSON *j = J("{\"Streams\":4,\"unknown\":{\"deep\":[1]}}");
	char err[CF_ERRLEN];
	uint32_t v;

	(void)state;
	assert_int_equal(json_get_u32(j, "streams", 1, 128, &v, err), -1);
	assert_int_equal(json_opt_u32(j, "streams", 1, 128, 1, &v, err), 0);
	assert_int_equal(v, 1);
	cJSON_Delete(j);
}

CF_UNIT_MAIN(NULL, NULL,
    cmocka_unit_test(test_u32), cmocka_unit_test(test_u64_i64_double),
    cmocka_unit_test(test_bool), cmocka_unit_test(test_str),
    cmocka_unit_test(test_obj_arr_hex),
    cmocka_unit_test(test_case_and_unknown))
