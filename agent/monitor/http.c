/* http: the metrics endpoint's request parser, see http.h. */
#include "monitor/http.h"

#include <string.h>

/* find: the first occurrence of the n bytes of s in buf[0..len), or
 * NULL (memmem, spelled out: buf is not a C string). */
static const char *
find(const char *buf, size_t len, const char *s, size_t n)
{
	size_t i;

	for (i = 0; i + n <= len; i++)
		if (memcmp(buf + i, s, n) == 0)
			return buf + i;
	return NULL;
}

enum http_parse
http_parse(const char *buf, size_t len)
{
	const char *end, *eol, *sp1, *sp2, *path, *q;
	size_t mlen, plen;
	int head;

	end = find(buf, len, "\r\n\r\n", 4);
	if (end == NULL) {
		/* A client that ends lines with a bare LF is still HTTP. */
		end = find(buf, len, "\n\n", 2);
		if (end == NULL)
			return len >= HTTP_REQ_MAX ? HTTP_BAD : HTTP_MORE;
	}
	/* The request line ends at the first LF, at the latest the
	 * blank line's. */
	eol = memchr(buf, '\n', len);
	if (eol == NULL)
		return HTTP_BAD;
	if (eol > buf && eol[-1] == '\r')
		eol--;
	sp1 = memchr(buf, ' ', (size_t)(eol - buf));
	if (sp1 == NULL || sp1 == buf)
		return HTTP_BAD;
	path = sp1 + 1;
	sp2 = memchr(path, ' ', (size_t)(eol - path));
	if (sp2 == NULL || sp2 == path)
		return HTTP_BAD;
	if ((size_t)(eol - (sp2 + 1)) != 8 ||
	    memcmp(sp2 + 1, "HTTP/1.", 7) != 0 ||
	    (sp2[8] != '0' && sp2[8] != '1'))
		return HTTP_BAD;
	mlen = (size_t)(sp1 - buf);
	head = mlen == 4 && memcmp(buf, "HEAD", 4) == 0;
	if (!head && !(mlen == 3 && memcmp(buf, "GET", 3) == 0))
		return HTTP_BAD_METHOD;
	q = memchr(path, '?', (size_t)(sp2 - path));
	plen = (size_t)((q ? q : sp2) - path);
	if (plen != 8 || memcmp(path, "/metrics", 8) != 0)
		return HTTP_NOT_FOUND;
	return head ? HTTP_HEAD_METRICS : HTTP_METRICS;
}

const char *
http_status(enum http_parse r)
{
	switch (r) {
	case HTTP_METRICS:
	case HTTP_HEAD_METRICS:
		return "200 OK";
	case HTTP_NOT_FOUND:
		return "404 Not Found";
	case HTTP_BAD_METHOD:
		return "405 Method Not Allowed";
	default:
		return "400 Bad Request";
	}
}
