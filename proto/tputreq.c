/* tputreq: throughput test requests on the wire, see include/tputreq.h. */
#include "tputreq.h"
#include "frame.h"
#include "json.h"

#include <stdio.h>
#include <string.h>

#include <openssl/crypto.h>

uint32_t
tputreq_total(const struct test_spec *s)
{
	return s->streams * ((s->connector_sends ? 1u : 0u) +
	    (s->listener_sends ? 1u : 0u));
}

bool
tputreq_connector_sends(const struct test_spec *s, uint32_t idx)
{
	if (s->connector_sends && s->listener_sends)
		return idx < s->streams;
	return s->connector_sends;
}

static void
hex(const uint8_t *p, size_t n, char *out)
{
	size_t i;

	for (i = 0; i < n; i++)
		snprintf(out + 2 * i, 3, "%02x", p[i]);
}

cJSON *
tputreq_encode(const struct test_spec *s, bool connect)
{
	char buf[2 * TPUTREQ_TOKEN_LEN + 1], a[NETADDR_STRLEN];
	cJSON *o = cJSON_CreateObject();

	if (o == NULL)
		return NULL;
	cJSON_AddStringToObject(o, "test", s->id);
	cJSON_AddStringToObject(o, "proto", s->proto == TP_UDP ? "udp" : "tcp");
	cJSON_AddNumberToObject(o, "streams", s->streams);
	cJSON_AddNumberToObject(o, "duration", s->duration);
	cJSON_AddNumberToObject(o, "len", s->len);
	cJSON_AddNumberToObject(o, "rate", (double)s->rate);
	cJSON_AddNumberToObject(o, "interval", s->interval);
	cJSON_AddNumberToObject(o, "window", s->window);
	cJSON_AddBoolToObject(o, "zerocopy", s->zerocopy);
	cJSON_AddBoolToObject(o, "skip_rx_copy", s->skip_rx_copy);
	cJSON_AddBoolToObject(o, "connector_sends", s->connector_sends);
	cJSON_AddBoolToObject(o, "listener_sends", s->listener_sends);
	hex(s->token, TPUTREQ_TOKEN_LEN, buf);
	cJSON_AddStringToObject(o, "token", buf);
	cJSON_AddStringToObject(o, "local", netaddr_str(&s->local, a,
	    sizeof(a)));
	cJSON_AddStringToObject(o, "coordinator", s->coordinator);
	if (s->shared)
		cJSON_AddBoolToObject(o, "shared", true);
	if (s->trace)
		cJSON_AddBoolToObject(o, "trace", true);
	if (connect) {
		cJSON_AddStringToObject(o, "dst", netaddr_str(&s->dst, a,
		    sizeof(a)));
		cJSON_AddNumberToObject(o, "port", s->port);
		cJSON_AddStringToObject(o, "bind_dev", s->bind_dev);
		cJSON_AddNumberToObject(o, "sport_base", s->sport_base);
		cJSON_AddNumberToObject(o, "sport_stride", s->sport_stride);
	}
	return o;
}

static int
tputreq_addr(const cJSON *b, const char *name, struct netaddr *a, char *err)
{
	const char *s;

	if (json_get_str(b, name, 2, NETADDR_STRLEN - 1, &s, err) == -1)
		return -1;
	if (netaddr_parse(s, a) == -1) {
		snprintf(err, CF_ERRLEN, "field '%s': '%s' is not an address",
		    name, s);
		return -1;
	}
	return 0;
}

int
tputreq_decode(const cJSON *b, bool connect, struct test_spec *s, char *err)
{
	const char *proto, *id, *coord;
	uint32_t v;
	uint64_t rate;
	size_t i;

	memset(s, 0, sizeof(*s));
	if (json_get_str(b, "test", TPUTREQ_ID_LEN, TPUTREQ_ID_LEN, &id, err) == -1 ||
	    json_get_str(b, "proto", 3, 3, &proto, err) == -1)
		return -1;
	for (i = 0; i < TPUTREQ_ID_LEN; i++) {
		if (!((id[i] >= '0' && id[i] <= '9') ||
		    (id[i] >= 'a' && id[i] <= 'f'))) {
			snprintf(err, CF_ERRLEN, "field 'test': not hex");
			return -1;
		}
	}
	memcpy(s->id, id, TPUTREQ_ID_LEN + 1);
	{
		static const char *const w[] = { "tcp", "udp" };
		int k = json_word("proto", proto, w, 2, err);

		if (k == -1)
			return -1;
		s->proto = k == 0 ? TP_TCP : TP_UDP;
	}
	if (json_get_u32(b, "streams", 1, TPUTREQ_MAX_STREAMS, &s->streams,
	    err) == -1 ||
	    json_get_double(b, "duration", 0.1, 86400, &s->duration, err) == -1 ||
	    json_get_u32(b, "len", s->proto == TP_UDP ? TPUTREQ_UDP_HDR : 1,
	    s->proto == TP_UDP ? 65507 : 16 * 1024 * 1024, &s->len,
	    err) == -1 ||
	    json_get_u64(b, "rate", 0, 1000000000000000ull, &rate, err) == -1 ||
	    json_get_double(b, "interval", 0.1, 60, &s->interval, err) == -1 ||
	    json_get_u32(b, "window", 0, 1u << 30, &s->window, err) == -1 ||
	    json_get_bool(b, "zerocopy", &s->zerocopy, err) == -1 ||
	    json_get_bool(b, "skip_rx_copy", &s->skip_rx_copy, err) == -1 ||
	    json_get_bool(b, "connector_sends", &s->connector_sends, err) == -1 ||
	    json_get_bool(b, "listener_sends", &s->listener_sends, err) == -1 ||
	    json_get_hex(b, "token", s->token, TPUTREQ_TOKEN_LEN, err) == -1 ||
	    tputreq_addr(b, "local", &s->local, err) == -1 ||
	    json_opt_str(b, "coordinator", 0, sizeof(s->coordinator) - 1, "",
	    &coord, err) == -1)
		return -1;
	if (json_opt_bool(b, "shared", false, &s->shared, err) == -1 ||
	    json_opt_bool(b, "trace", false, &s->trace, err) == -1)
		return -1;
	s->rate = rate;
	snprintf(s->coordinator, sizeof(s->coordinator), "%s", coord);
	if (!s->connector_sends && !s->listener_sends) {
		snprintf(err, CF_ERRLEN, "no direction sends");
		return -1;
	}
	if (s->proto == TP_UDP && s->rate == 0) {
		snprintf(err, CF_ERRLEN, "field 'rate': UDP needs a rate");
		return -1;
	}
	if (s->proto == TP_UDP && s->listener_sends) {
		snprintf(err, CF_ERRLEN, "UDP streams send from the connector "
		    "only");
		return -1;
	}
	if (!connect)
		return 0;
	if (json_get_u32(b, "port", 1, 65535, &v, err) == -1)
		return -1;
	s->port = (uint16_t)v;
	if (tputreq_addr(b, "dst", &s->dst, err) == -1 ||
	    json_get_strcpy(b, "bind_dev", 0, s->bind_dev, sizeof(s->bind_dev),
	    err) == -1)
		return -1;
	if (json_get_u32(b, "sport_base", 0, 65535, &v, err) == -1)
		return -1;
	s->sport_base = (uint16_t)v;
	if (json_get_u32(b, "sport_stride", 0, 1024, &v, err) == -1)
		return -1;
	s->sport_stride = (uint16_t)v;
	if (s->sport_base &&
	    s->sport_base + (uint64_t)s->sport_stride * (tputreq_total(s) - 1) >
	    65535) {
		snprintf(err, CF_ERRLEN, "source ports run past 65535");
		return -1;
	}
	if (s->dst.family != s->local.family) {
		snprintf(err, CF_ERRLEN, "'local' and 'dst' are of different "
		    "address families");
		return -1;
	}
	return 0;
}

void
tputreq_stream_hdr(const struct test_spec *s, uint32_t idx,
    uint8_t out[TPUTREQ_STREAM_HDR])
{
	memcpy(out, TPUTREQ_STREAM_MAGIC, 8);
	memcpy(out + 8, s->token, TPUTREQ_TOKEN_LEN);
	frame_put32(out + 40, idx);
	frame_put32(out + 44, 0);
}

int
tputreq_stream_check(const struct test_spec *s, const uint8_t in[TPUTREQ_STREAM_HDR],
    uint32_t *idx)
{
	uint32_t i = (uint32_t)in[40] << 24 | (uint32_t)in[41] << 16 |
	    (uint32_t)in[42] << 8 | in[43];

	if (memcmp(in, TPUTREQ_STREAM_MAGIC, 8) != 0 ||
	    CRYPTO_memcmp(in + 8, s->token, TPUTREQ_TOKEN_LEN) != 0 ||
	    i >= tputreq_total(s))
		return -1;
	*idx = i;
	return 0;
}
