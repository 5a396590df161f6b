/* inventory: parse and validate inventory files, see core.h. */
#include "core/core.h"
#include "ini.h"
#include "json.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

enum inv_section { INV_SEC_NONE, INV_SEC_GLOBAL, INV_SEC_HOST };

struct inv_parse {
	struct inventory *inv;
	const char *name;
	enum inv_section sec;
	struct inv_host *cur;
	unsigned seen;		/* bit per key in the current section */
	int global_seen;
};

static const char *inv_global_keys[] = {
	"key", "public_network", "cluster_network", "port", "timeout", NULL
};
static const char *inv_host_keys[] = {
	"agent", "public", "cluster", "rack", NULL
};

static int
inv_key_index(const char **keys, const char *key)
{
	int i;

	for (i = 0; keys[i]; i++)
		if (strcmp(keys[i], key) == 0)
			return i;
	return -1;
}

static int
inv_valid_name(const char *s)
{
	size_t i, n = strlen(s);

	if (n == 0 || n >= INV_NAME_MAX)
		return 0;
	for (i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '-' &&
		    s[i] != '_' && s[i] != '.')
			return 0;
	return 1;
}

static int
inv_section_cb(void *udata, const char *kind, const char *name, int line,
    char *err)
{
	struct inv_parse *p = udata;
	struct inv_host *h;

	p->seen = 0;
	if (strcmp(kind, "global") == 0) {
		if (*name) {
			snprintf(err, CF_ERRLEN, "[global] takes no name");
			return -1;
		}
		if (p->global_seen) {
			snprintf(err, CF_ERRLEN, "second [global] section");
			return -1;
		}
		p->global_seen = 1;
		p->sec = INV_SEC_GLOBAL;
		p->cur = NULL;
		return 0;
	}
	if (strcmp(kind, "host") != 0) {
		snprintf(err, CF_ERRLEN, "unknown section [%s] (expected "
		    "[global] or [host NAME])", kind);
		return -1;
	}
	if (!inv_valid_name(name)) {
		snprintf(err, CF_ERRLEN, "host name '%s' is empty, too long or "
		    "has characters other than letters, digits, '.', '-', '_'",
		    name);
		return -1;
	}
	if ((h = inventory_find(p->inv, name)) != NULL) {
		snprintf(err, CF_ERRLEN, "duplicate host '%s' (first defined "
		    "at line %d)", name, h->line);
		return -1;
	}
	if (p->inv->nhosts >= INV_HOSTS_MAX) {
		snprintf(err, CF_ERRLEN, "more than %d hosts", INV_HOSTS_MAX);
		return -1;
	}
	h = calloc(1, sizeof(*h));
	if (h == NULL) {
		snprintf(err, CF_ERRLEN, "out of memory");
		return -1;
	}
	snprintf(h->name, sizeof(h->name), "%s", name);
	h->line = line;
	TAILQ_INSERT_TAIL(&p->inv->hosts, h, entry);
	p->inv->nhosts++;
	p->sec = INV_SEC_HOST;
	p->cur = h;
	return 0;
}

static int
inv_addr(const char *key, const char *val, struct netaddr *a, char *err)
{
	if (netaddr_parse(val, a) == -1) {
		snprintf(err, CF_ERRLEN, "%s: '%s' is not an IPv4 or IPv6 "
		    "address", key, val);
		return -1;
	}
	return 0;
}

static int
inv_global_pair(struct inv_parse *p, const char *key, const char *val,
    char *err)
{
	struct inventory *inv = p->inv;
	char *end;

	if (strcmp(key, "key") == 0) {
		const char *slash = strrchr(p->name, '/');

		if (*val == '\0') {
			snprintf(err, CF_ERRLEN, "key: empty path");
			return -1;
		}
		/* A relative key path is relative to the inventory file, so
		 * the inventory works from any directory. */
		if (val[0] != '/' && slash != NULL)
			snprintf(inv->key_path, sizeof(inv->key_path),
			    "%.*s/%s", (int)(slash - p->name), p->name, val);
		else
			snprintf(inv->key_path, sizeof(inv->key_path), "%s",
			    val);
	} else if (strcmp(key, "public_network") == 0 ||
	    strcmp(key, "cluster_network") == 0) {
		struct netcidr *c = key[0] == 'p' ? &inv->pubnet :
		    &inv->clusnet;

		/* ceph.conf allows a list; cephfab checks one subnet. */
		if (strchr(val, ',') != NULL) {
			snprintf(err, CF_ERRLEN, "%s: give one subnet (lists "
			    "are not supported)", key);
			return -1;
		}
		if (netcidr_parse(val, c) == -1) {
			snprintf(err, CF_ERRLEN, "%s: '%s' is not a subnet "
			    "like 192.0.2.0/24", key, val);
			return -1;
		}
		if (key[0] == 'p')
			inv->has_pubnet = true;
		else
			inv->has_clusnet = true;
	} else if (strcmp(key, "port") == 0) {
		unsigned long v = strtoul(val, &end, 10);

		if (*val == '\0' || *end != '\0' || v == 0 || v > 65535) {
			snprintf(err, CF_ERRLEN, "port: '%s' is not a port "
			    "number", val);
			return -1;
		}
		inv->port = (uint16_t)v;
	} else if (strcmp(key, "timeout") == 0) {
		double v = strtod(val, &end);

		if (*val == '\0' || *end != '\0' || !(v >= 0.1 && v <= 600)) {
			snprintf(err, CF_ERRLEN, "timeout: '%s' is not a number "
			    "of seconds in [0.1, 600]", val);
			return -1;
		}
		inv->timeout = v;
	}
	return 0;
}

/* inv_looks_named: v has a letter no address has (g-z), or hex letters
 * without the colons of IPv6: a host name. */
static bool
inv_looks_named(const char *v)
{
	bool hex = false;
	size_t i;

	for (i = 0; v[i]; i++) {
		char c = (char)(v[i] | 0x20);

		if (c >= 'g' && c <= 'z')
			return true;
		hex |= c >= 'a' && c <= 'f';
	}
	return hex && strchr(v, ':') == NULL;
}

static int
inv_host_pair(struct inv_parse *p, const char *key, const char *val,
    int line, char *err)
{
	struct inv_host *h = p->cur;

	if (strcmp(key, "agent") == 0) {
		uint16_t port = 0;

		if (netaddr_parse_endpoint(val, &h->agent, &port) == -1) {
			/* Names are not resolved on purpose (a test must go
			 * where the inventory says, not where DNS says today):
			 * say so to a user who wrote one. */
			snprintf(err, CF_ERRLEN, "agent: '%s' is not ADDR or "
			    "ADDR:PORT%s", val, inv_looks_named(val) ?
			    " (host names are not resolved: give the address)" :
			    "");
			return -1;
		}
		h->port = port;
		h->agent_line = line;
	} else if (strcmp(key, "public") == 0) {
		h->pub_line = line;
		return inv_addr(key, val, &h->pub, err);
	} else if (strcmp(key, "cluster") == 0) {
		h->clus_line = line;
		return inv_addr(key, val, &h->clus, err);
	} else if (strcmp(key, "rack") == 0) {
		if (!inv_valid_name(val)) {
			snprintf(err, CF_ERRLEN, "rack: '%s' is empty, too "
			    "long or has characters other than letters, "
			    "digits, '.', '-', '_'", val);
			return -1;
		}
		snprintf(h->rack, sizeof(h->rack), "%s", val);
	}
	return 0;
}

static int
inv_pair_cb(void *udata, const char *key, const char *val, int line,
    char *err)
{
	struct inv_parse *p = udata;
	const char **keys;
	int idx;

	if (p->sec == INV_SEC_NONE) {
		snprintf(err, CF_ERRLEN, "'%s' outside any section (start "
		    "with [global] or [host NAME])", key);
		return -1;
	}
	keys = p->sec == INV_SEC_GLOBAL ? inv_global_keys : inv_host_keys;
	idx = inv_key_index(keys, key);
	if (idx < 0) {
		snprintf(err, CF_ERRLEN, "unknown key '%s' in [%s]", key,
		    p->sec == INV_SEC_GLOBAL ? "global" : "host");
		return -1;
	}
	if (p->seen & (1u << idx)) {
		snprintf(err, CF_ERRLEN, "duplicate key '%s'", key);
		return -1;
	}
	p->seen |= 1u << idx;
	if (p->sec == INV_SEC_GLOBAL)
		return inv_global_pair(p, key, val, err);
	return inv_host_pair(p, key, val, line, err);
}

/* outside: host h's address on network net (line: where it was set) is
 * outside the inventory's net (NULL: none declared); true with err. */
static bool
outside(const char *name, const struct inv_host *h, const char *net,
    int line, const struct netaddr *addr, const struct netcidr *cidr,
    char *err)
{
	char a[NETADDR_STRLEN], c[NETADDR_STRLEN + 4];

	if (cidr == NULL || addr->family == 0 || netcidr_contains(cidr, addr))
		return false;
	snprintf(err, CF_ERRLEN, "%s:%d: host '%s': %s address %s is outside "
	    "%s_network %s", name, line, h->name, net, netaddr_str(addr, a,
	    sizeof(a)), net, netcidr_str(cidr, c, sizeof(c)));
	return true;
}

/* inv_validate runs the checks that need the whole file. */
static int
inv_validate(struct inventory *inv, const char *name, char *err)
{
	struct inv_host *h, *o;
	char a[NETADDR_STRLEN];

	if (inv->nhosts == 0) {
		snprintf(err, CF_ERRLEN, "%s: no [host NAME] sections", name);
		return -1;
	}
	TAILQ_FOREACH(h, &inv->hosts, entry) {
		if (h->agent.family == 0) {
			snprintf(err, CF_ERRLEN, "%s:%d: host '%s': missing "
			    "'agent' (the agent's control address)", name,
			    h->line, h->name);
			return -1;
		}
		if (h->port == 0)
			h->port = inv->port;
		if (outside(name, h, "public", h->pub_line, &h->pub,
		    inv->has_pubnet ? &inv->pubnet : NULL, err) ||
		    outside(name, h, "cluster", h->clus_line, &h->clus,
		    inv->has_clusnet ? &inv->clusnet : NULL, err))
			return -1;
		/* Two hosts with one address is a copy-paste slip that
		 * would make a pair test talk to itself. */
		TAILQ_FOREACH(o, &inv->hosts, entry) {
			if (o == h)
				break;
			if (netaddr_equal(&o->agent, &h->agent) &&
			    o->port == h->port) {
				snprintf(err, CF_ERRLEN, "%s:%d: host '%s': "
				    "agent %s is already used by host '%s'", name,
				    h->agent_line, h->name,
				    netaddr_endpoint_str(&h->agent, h->port, a,
				    sizeof(a)), o->name);
				return -1;
			}
			if (h->pub.family && netaddr_equal(&o->pub, &h->pub)) {
				snprintf(err, CF_ERRLEN, "%s:%d: host '%s': "
				    "public address %s is already used by host '%s'",
				    name, h->pub_line, h->name,
				    netaddr_str(&h->pub, a, sizeof(a)),
				    o->name);
				return -1;
			}
			if (h->clus.family &&
			    netaddr_equal(&o->clus, &h->clus)) {
				snprintf(err, CF_ERRLEN, "%s:%d: host '%s': "
				    "cluster address %s is already used by host '%s'",
				    name, h->clus_line, h->name,
				    netaddr_str(&h->clus, a, sizeof(a)),
				    o->name);
				return -1;
			}
		}
	}
	return 0;
}

static void
inv_init(struct inventory *inv, const char *name)
{
	memset(inv, 0, sizeof(*inv));
	snprintf(inv->path, sizeof(inv->path), "%s", name);
	inv->port = INV_PORT_DEFAULT;
	inv->timeout = 3.0;
	TAILQ_INIT(&inv->hosts);
}

int
inventory_parse_buf(const char *name, const char *text, size_t len,
    struct inventory *inv, char *err)
{
	struct ini_handler h = { inv_section_cb, inv_pair_cb };
	struct inv_parse p = { .inv = inv, .name = name };

	inv_init(inv, name);
	if (ini_parse_buf(name, text, len, &h, &p, err) == -1 ||
	    inv_validate(inv, name, err) == -1) {
		inventory_free(inv);
		return -1;
	}
	return 0;
}

int
inventory_load(const char *path, struct inventory *inv, char *err)
{
	struct ini_handler h = { inv_section_cb, inv_pair_cb };
	struct inv_parse p = { .inv = inv, .name = path };

	inv_init(inv, path);
	if (ini_parse_file(path, &h, &p, err) == -1 ||
	    inv_validate(inv, path, err) == -1) {
		inventory_free(inv);
		return -1;
	}
	return 0;
}

void
inventory_free(struct inventory *inv)
{
	struct inv_host *h;

	while ((h = TAILQ_FIRST(&inv->hosts)) != NULL) {
		TAILQ_REMOVE(&inv->hosts, h, entry);
		free(h);
	}
	inv->nhosts = 0;
}

struct inv_host *
inventory_find(struct inventory *inv, const char *name)
{
	struct inv_host *h;

	TAILQ_FOREACH(h, &inv->hosts, entry)
		if (strcmp(h->name, name) == 0)
			return h;
	return NULL;
}

void
inventory_dump(const struct inventory *inv, FILE *f)
{
	const struct inv_host *h;
	char a[NETADDR_STRLEN], b[NETADDR_STRLEN], c[NETADDR_STRLEN];

	fprintf(f, "global key=%s public_network=%s cluster_network=%s "
	    "port=%u timeout=%.1f hosts=%d\n",
	    inv->key_path[0] ? inv->key_path : "-",
	    inv->has_pubnet ? netcidr_str(&inv->pubnet, a, sizeof(a)) : "-",
	    inv->has_clusnet ? netcidr_str(&inv->clusnet, b, sizeof(b)) : "-",
	    inv->port, inv->timeout, inv->nhosts);
	TAILQ_FOREACH(h, &inv->hosts, entry) {
		fprintf(f, "host %s line=%d agent=%s", h->name, h->line,
		    netaddr_endpoint_str(&h->agent, h->port, a, sizeof(a)));
		fprintf(f, " public=%s", netaddr_str(&h->pub, b, sizeof(b)));
		fprintf(f, " cluster=%s", netaddr_str(&h->clus, c, sizeof(c)));
		fprintf(f, " rack=%s\n", h->rack[0] ? h->rack : "-");
	}
}

const char *
inventory_key_path(const struct inventory *inv, const char *given)
{
	if (given)
		return given;
	if (inv->key_path[0])
		return inv->key_path;
	return KEY_DEFAULT;
}

char *
inventory_text(const char *path)
{
	FILE *f = fopen(path, "re");
	char *buf;
	size_t n;

	if (f == NULL)
		return NULL;
	buf = malloc(INI_FILE_MAX + 1);
	n = buf ? fread(buf, 1, INI_FILE_MAX + 1, f) : 0;
	fclose(f);
	if (buf == NULL || n > INI_FILE_MAX || memchr(buf, '\0', n)) {
		free(buf);
		return NULL;
	}
	buf[n] = '\0';
	return buf;
}
