/* cli_setup: what every command shares: the inventory, the key and the
 * connect timeout (struct cli_env), and the parsers of numbers, lists and
 * network names, see cli.h. */
#include "cli/cli.h"
#include "json.h"
#include "units.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>

int
load_inventory(const struct gopts *g, struct inventory *inv)
{
	char err[CF_ERRLEN];

	if (g->inventory == NULL) {
		fprintf(stderr, "cephfab: no inventory: give -i FILE, set "
		    "CEPHFAB_INVENTORY or write " CF_DEFAULT_INVENTORY "\n");
		return -1;
	}
	if (inventory_load(g->inventory, inv, err) == -1) {
		size_t n = strlen(g->inventory);

		/* "PATH: why" (not "PATH:LINE: why") is the file itself:
		 * say which file it is meant to be. */
		fprintf(stderr, "cephfab: %s%s\n", strncmp(err, g->inventory,
		    n) == 0 && err[n] == ':' && err[n + 1] == ' ' ?
		    "inventory " : "", err);
		return -1;
	}
	return 0;
}

const char *
key_path(const struct gopts *g, const struct inventory *inv)
{
	return inventory_key_path(inv, g->key);
}

int
cli_env_open(const struct gopts *g, struct cli_env *e)
{
	memset(e, 0, sizeof(*e));
	if (load_inventory(g, &e->inv) == -1)
		return -1;
	e->timeout = g->timeout > 0 ? g->timeout : e->inv.timeout;
	return 0;
}

int
cli_env_key(const struct gopts *g, struct cli_env *e)
{
	char err[CF_ERRLEN];

	if (auth_key_load(key_path(g, &e->inv), &e->key, err) == -1) {
		fprintf(stderr, "cephfab: %s\n", err);
		cli_env_close(e);
		return -1;
	}
	e->have_key = true;
	return 0;
}

void
cli_env_close(struct cli_env *e)
{
	if (e->have_key)
		OPENSSL_cleanse(&e->key, sizeof(e->key));
	e->have_key = false;
	inventory_free(&e->inv);
}

int
cli_env_cluster_pair(struct cli_env *e, const char *a, const char *b)
{
	struct inv_host *ha = inventory_find(&e->inv, a);
	struct inv_host *hb = inventory_find(&e->inv, b);

	return ha && hb && ha->clus.family && hb->clus.family;
}

int
cli_env_cluster_all(const struct cli_env *e)
{
	struct inv_host *h;
	int clu = 1;

	TAILQ_FOREACH(h, &e->inv.hosts, entry)
		clu &= h->clus.family != 0;
	return clu;
}

/* The command being run, for its error lines (main sets it). */
const char *cli_command = "cephfab";

int
parse_num(const char *opt, const char *v, double min, double max,
    double *out)
{
	if (units_number(v, min, max, out) == -1) {
		fprintf(stderr, "cephfab: %s: %s: '%s' is not a number in "
		    "[%g, %g]\n", cli_command, opt, v, min, max);
		return -1;
	}
	return 0;
}

int
parse_list(const char *opt, const char *v, uint32_t min, uint32_t max,
    uint32_t *out, int cap, bool ranges)
{
	char buf[1024], *tok, *save = NULL, *dash, *end;
	unsigned long a, b, x;
	int n = 0;

	snprintf(buf, sizeof(buf), "%s", v);
	for (tok = strtok_r(buf, ",", &save); tok;
	    tok = strtok_r(NULL, ",", &save)) {
		dash = ranges ? strchr(tok, '-') : NULL;
		a = strtoul(tok, &end, 10);
		if (end == tok || (dash ? end != dash : *end != '\0'))
			goto bad;
		b = a;
		if (dash) {
			b = strtoul(dash + 1, &end, 10);
			if (end == dash + 1 || *end != '\0' || b < a)
				goto bad;
		}
		if (a < min || b > max)
			goto bad;
		for (x = a; x <= b; x++) {
			if (n == cap) {
				fprintf(stderr, "cephfab: %s: more than %d "
				    "values\n", opt, cap);
				return -1;
			}
			out[n++] = (uint32_t)x;
		}
	}
	if (n == 0)
		goto bad;
	return n;
bad:
	fprintf(stderr, "cephfab: %s: '%s' is not a list of numbers in "
	    "[%u, %u]\n", opt, v, min, max);
	return -1;
}

int
parse_net(const char *opt, const char *v, int *out)
{
	if (strcmp(v, "public") == 0)
		*out = 0;
	else if (strcmp(v, "cluster") == 0)
		*out = 1;
	else {
		fprintf(stderr, "cephfab: %s: '%s' is not public or cluster\n",
		    opt, v);
		return -1;
	}
	return 0;
}

int
parse_words(const char *opt, const char *v, const struct word *w, int *out)
{
	char buf[256], *tok, *save = NULL;
	int k;

	*out = 0;
	snprintf(buf, sizeof(buf), "%s", v);
	for (tok = strtok_r(buf, ",", &save); tok;
	    tok = strtok_r(NULL, ",", &save)) {
		for (k = 0; w[k].name && strcmp(w[k].name, tok); k++)
			;
		if (w[k].name == NULL) {
			fprintf(stderr, "cephfab: %s: '%s' is not %s\n", opt,
			    tok, w[k].expect);
			return -1;
		}
		*out |= w[k].bit;
	}
	return 0;
}

/* num_set stores d in the field of base that n names. */
static void
num_set(const struct num_opt *n, void *base, double d)
{
	char *f = (char *)base + n->off;

	switch (n->type) {
	case NUM_DOUBLE: *(double *)(void *)f = d; break;
	case NUM_U32: *(uint32_t *)(void *)f = (uint32_t)d; break;
	case NUM_U16: *(uint16_t *)(void *)f = (uint16_t)d; break;
	case NUM_INT: *(int *)(void *)f = (int)d; break;
	case NUM_I64: *(int64_t *)(void *)f = (int64_t)d; break;
	}
}

int
cli_getopt(int argc, char **argv, const char *sopts,
    const struct option *lopts, const struct num_opt *nums, void *base)
{
	const struct num_opt *n;
	double d;
	int ch;

	while ((ch = getopt_long(argc, argv, sopts, lopts, NULL)) != -1) {
		for (n = nums; n && n->ch != 0 && n->ch != ch; n++)
			;
		if (n == NULL || n->ch == 0)
			return ch;
		if (parse_num(n->name, optarg, n->min, n->max, &d))
			return CLI_BAD_NUMBER;
		num_set(n, base, d);
	}
	return -1;
}
