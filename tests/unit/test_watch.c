/* Unit tests for coordinator/watch/watch_decode.c: an agent's interval is
 * rebuilt from the fields a watch reports; what else an agent sends does
 * not pass, and a malformed field is named. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "cf_unit.h"

#include "watch/watch.h"
#include "json.h"

static void
test_rebuilt(void **state)
{
	char err[CF_ERRLEN], *t;
	cJSON *b = cJSON_Parse("{\"peers\": [{\"peer\": \"10.0.0.2\", "
	    "\"tx_mbps\": 800, \"evil\": {\"deep\": [1, 2, 3]}, \"tx\": "
	    "{\"segments\": 100, \"retrans_pct\": 1.5, \"x\": \"y\"}}]}");
	cJSON *p;

	(void)state;
	p = watch_peers_decode(b, err);
	assert_non_null(p);
	t = cJSON_PrintUnformatted(p);
	assert_string_equal(t, "[{\"tx\":{\"segments\":100,\"retrans_pct\":1.5},"
	    "\"peer\":\"10.0.0.2\",\"tx_mbps\":800,\"rx_mbps\":0}]");
	free(t);
	cJSON_Delete(p);
	cJSON_Delete(b);
}

static void
test_refused(void **state)
{
	static const char *const bad[][2] = {
		{ "{\"peers\": [{\"peer\": \"not-an-address\"}]}",
		    "peers[0]: field 'peer': not an address" },
		{ "{\"peers\": [{\"peer\": \"10.0.0.2\", \"tx\": "
		    "{\"retrans_pct\": 400}}]}", "peers[0]: tx: field "
		    "'retrans_pct'" },
		{ "{\"peers\": [{\"peer\": \"10.0.0.2\", \"rx_mbps\": \"x\"}]}",
		    "peers[0]: field 'rx_mbps'" },
		{ "{\"peers\": 7}", "field 'peers'" },
	};
	char err[CF_ERRLEN];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		cJSON *b = cJSON_Parse(bad[i][0]);

		assert_null(watch_peers_decode(b, err));
		if (strstr(err, bad[i][1]) == NULL)
			fail_msg("'%s' lacks '%s'", err, bad[i][1]);
		cJSON_Delete(b);
	}
}

CF_UNIT_MAIN(NULL, NULL,
    cmocka_unit_test(test_rebuilt), cmocka_unit_test(test_refused))
