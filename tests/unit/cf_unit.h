/*
 * cf_unit: what the unit tests share: the golden-file loader and the
 * cmocka main. Include after <cmocka.h>.
 */
#ifndef CF_UNIT_H
#define CF_UNIT_H

#include <stdio.h>

#include <cjson/cJSON.h>

/* cf_unit_load_json: a golden file (at most 1 MiB) parsed; fails the test
 * when the file cannot be opened. The caller owns the tree. */
static inline cJSON *
cf_unit_load_json(const char *path)
{
	static char buf[1 << 20];
	FILE *f = fopen(path, "r");
	size_t n;

	assert_non_null(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	return cJSON_Parse(buf);
}

/* CF_UNIT_MAIN: main() running the listed cmocka tests as one group. */
#define CF_UNIT_MAIN(setup, teardown, ...)				\
	int main(void)							\
	{								\
		const struct CMUnitTest cf_tests_[] = { __VA_ARGS__ };	\
		return cmocka_run_group_tests(cf_tests_, setup, teardown);\
	}

#endif
