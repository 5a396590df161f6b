/*
 * Unit tests for coordinator/inventory.c: golden files under
 * tests/golden/inventory (NAME.in parsed, compared to NAME.ok: the canonical
 * dump of a good inventory or the one-line error of a bad one), plus
 * targeted checks. CF_GOLDEN_UPDATE=1 rewrites the .ok files (review the
 * diff before committing).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "cf_unit.h"

#include "core/core.h"
#include "json.h"

#define GOLDEN_DIR "tests/golden/inventory"

static char *
slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "r");
	char *buf;

	if (f == NULL)
		return NULL;
	buf = malloc(1 << 20);
	assert_non_null(buf);
	*len = fread(buf, 1, (1 << 20) - 1, f);
	buf[*len] = '\0';
	fclose(f);
	return buf;
}

static void
render(const char *name, const char *text, size_t len, char *out,
    size_t outsz)
{
	struct inventory inv;
	char err[CF_ERRLEN];
	FILE *m;

	if (inventory_parse_buf(name, text, len, &inv, err) == -1) {
		snprintf(out, outsz, "error: %s\n", err);
		return;
	}
	m = fmemopen(out, outsz, "w");
	assert_non_null(m);
	inventory_dump(&inv, m);
	fclose(m);
	inventory_free(&inv);
}

static void
test_golden(void **state)
{
	DIR *d = opendir(GOLDEN_DIR);
	struct dirent *e;
	int n = 0, good = 0, bad = 0;

	(void)state;
	assert_non_null(d);
	while ((e = readdir(d)) != NULL) {
		char path[512], okpath[512], got[8192];
		size_t len, oklen, nl = strlen(e->d_name);
		char *text, *want;

		if (nl < 4 || strcmp(e->d_name + nl - 3, ".in") != 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", GOLDEN_DIR, e->d_name);
		snprintf(okpath, sizeof(okpath), "%s/%.*s.ok", GOLDEN_DIR,
		    (int)(nl - 3), e->d_name);
		text = slurp(path, &len);
		assert_non_null(text);
		render(e->d_name, text, len, got, sizeof(got));
		if (getenv("CF_GOLDEN_UPDATE")) {
			FILE *f = fopen(okpath, "w");

			assert_non_null(f);
			fputs(got, f);
			fclose(f);
		}
		want = slurp(okpath, &oklen);
		if (want == NULL)
			fail_msg("%s: no .ok file", okpath);
		if (strcmp(got, want) != 0)
			fail_msg("%s:\n--- want\n%s--- got\n%s", e->d_name,
			    want, got);
		/* The name says which kind of case it is. */
		if (strncmp(e->d_name, "bad_", 4) == 0) {
			assert_true(strncmp(got, "error: ", 7) == 0);
			bad++;
		} else {
			assert_true(strncmp(got, "error: ", 7) != 0);
			good++;
		}
		free(text);
		free(want);
		n++;
	}
	closedir(d);
	assert_true(good >= 2);
	assert_true(bad >= 10);
	print_message("%d golden inventories (%d good, %d bad)\n", n, good,
	    bad);
}

/* Truncating a good inventory at every byte never crashes, and either
 * parses or names file and line. */
static void
test_truncation(void **state)
{
	size_t len, k;
	char *text = slurp(GOLDEN_DIR "/good_mixed.in", &len);

	(void)state;
	assert_non_null(text);
	for (k = 0; k <= len; k++) {
		struct inventory inv;
		char err[CF_ERRLEN];

		if (inventory_parse_buf("t.inv", text, k, &inv, err) == 0)
			inventory_free(&inv);
		else
			assert_true(strncmp(err, "t.inv", 5) == 0);
	}
	free(text);
}

static void
test_relative_key_and_find(void **state)
{
	const char *t = "[global]\nkey = k\n[host a]\nagent = 192.0.2.1\n";
	struct inventory inv;
	char err[CF_ERRLEN];

	(void)state;
	assert_int_equal(inventory_parse_buf("/etc/cephfab/lab.inv", t,
	    strlen(t), &inv, err), 0);
	assert_string_equal(inv.key_path, "/etc/cephfab/k");
	assert_non_null(inventory_find(&inv, "a"));
	assert_null(inventory_find(&inv, "b"));
	assert_int_equal(inventory_find(&inv, "a")->port, 7470);
	inventory_free(&inv);
	assert_int_equal(inventory_load("/nonexistent/x.inv", &inv, err), -1);
	assert_non_null(strstr(err, "/nonexistent/x.inv: No such file"));
}

static void
test_long_line_and_nul(void **state)
{
	char big[2048];
	struct inventory inv;
	char err[CF_ERRLEN];
	const char nul[] = "[host a]\nagent = 192.0.2.1\0\n";

	(void)state;
	memset(big, 'a', sizeof(big));
	big[sizeof(big) - 1] = '\n';
	assert_int_equal(inventory_parse_buf("x", big, sizeof(big), &inv, err),
	    -1);
	assert_string_equal(err, "x:1: line longer than 1024 bytes");
	assert_int_equal(inventory_parse_buf("x", nul, sizeof(nul) - 1, &inv,
	    err), -1);
	assert_string_equal(err, "x:2: NUL byte in line");
}

/* inventory --ansible: names YAML would read as something else stay
 * strings, an IPv6 control address keeps its brackets in the listen
 * address and not in ansible_host, and the file is whole (written
 * beside, then renamed) or not there. */
static void
test_ansible(void **state)
{
	const char *t = "[global]\nkey = /k\ncluster_network = 198.51.100.0/24\n"
	    "[host no]\nagent = 192.0.2.1\ncluster = 198.51.100.1\n"
	    "[host 1e3]\nagent = [2001:db8::1]:7471\n";
	char path[] = "/tmp/cf-ansible-XXXXXX", out[64], err[CF_ERRLEN];
	struct inventory inv;
	size_t len;
	char *y;
	int fd;

	(void)state;
	assert_int_equal(inventory_parse_buf("/etc/x.inv", t, strlen(t), &inv,
	    err), 0);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	snprintf(out, sizeof(out), "%s.yml", path);
	assert_int_equal(inventory_write_ansible(&inv, "/k", out, err), 0);
	y = slurp(out, &len);
	assert_non_null(y);
	assert_non_null(strstr(y, "\n        \"no\":\n"));
	assert_non_null(strstr(y, "\n        \"1e3\":\n"));
	assert_non_null(strstr(y, "ansible_host: \"2001:db8::1\"\n"));
	assert_non_null(strstr(y, "cephfab_listen: \"[2001:db8::1]:7471\"\n"));
	assert_non_null(strstr(y, "cephfab_listen: \"192.0.2.1:7470\"\n"));
	assert_non_null(strstr(y, "cephfab_cluster_network: \"198.51.100.0/24\"\n"));
	assert_non_null(strstr(y, "cephfab_key_file: \"/k\"\n"));
	assert_null(strstr(y, "cephfab_public_network"));
	free(y);
	unlink(out);
	unlink(path);
	/* A directory that cannot be written: an error naming the file,
	 * nothing left. */
	assert_int_equal(inventory_write_ansible(&inv, "/k",
	    "/nonexistent/dir/hosts.yml", err), -1);
	assert_non_null(strstr(err, "/nonexistent/dir/hosts.yml: "));
	inventory_free(&inv);
}

CF_UNIT_MAIN(NULL, NULL,
    cmocka_unit_test(test_ansible),
    cmocka_unit_test(test_golden), cmocka_unit_test(test_truncation),
    cmocka_unit_test(test_relative_key_and_find),
    cmocka_unit_test(test_long_line_and_nul))
