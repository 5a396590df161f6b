/*
 * http: the one request the metrics endpoint understands, parsed from the
 * bytes read so far. Only the request line matters (method and path);
 * headers are skipped up to the blank line, a body is never read. Pure
 * logic: unit-tested and fuzzed like the frame decoder.
 */
#ifndef CF_HTTP_H
#define CF_HTTP_H

#include <stddef.h>

#define HTTP_REQ_MAX 4096	/* request line and headers, in all */

enum http_parse {
	HTTP_MORE,		/* no blank line yet: read on */
	HTTP_METRICS,		/* GET /metrics (a query string is ignored) */
	HTTP_HEAD_METRICS,	/* HEAD /metrics */
	HTTP_NOT_FOUND,		/* GET or HEAD of another path: 404 */
	HTTP_BAD_METHOD,	/* another method: 405 */
	HTTP_BAD,		/* not HTTP/1.x, or too long: 400 */
};

/* http_parse: what the request in buf[0..len) asks; HTTP_BAD when len
 * reaches HTTP_REQ_MAX without the end of the headers. */
enum http_parse http_parse(const char *buf, size_t len);
/* http_status_line: "200 OK", "404 Not Found", ... for a parse result. */
const char *http_status(enum http_parse r);

#endif
