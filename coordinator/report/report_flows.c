/* report_flows: every traced stream of a network's bandwidth cells, as the
 * flows the verdict's link localizer reads (struct mflow), see
 * report_int.h. */
#include "report/report_int.h"
#include "json.h"
#include "store/store.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* intern: one copy of each string (addresses and interfaces repeat in
 * every flow), so that a flow holds pointers only. */
static const char *
intern(struct rflows *F, const char *s)
{
	int i;

	if (s == NULL || s[0] == '\0')
		return NULL;
	for (i = 0; i < F->nstr; i++)
		if (strcmp(F->str[i], s) == 0)
			return F->str[i];
	if (F->nstr == F->capstr) {
		int cap = F->capstr ? F->capstr * 2 : 64;
		char **ns = realloc(F->str, (size_t)cap * sizeof(*ns));

		if (ns == NULL)
			return NULL;
		F->str = ns;
		F->capstr = cap;
	}
	if ((F->str[F->nstr] = strdup(s)) == NULL)
		return NULL;
	return F->str[F->nstr++];
}

static int
host_of(struct inv_host **h, int n, const char *name, size_t len)
{
	int i;

	for (i = 0; i < n; i++)
		if (strlen(h[i]->name) == len &&
		    strncmp(h[i]->name, name, len) == 0)
			return i;
	return -1;
}

/* one_flow: a stream's sender figures and path into a new flow. */
static void
one_flow(struct rflows *F, const cJSON *s, const char *addr[2],
    const char *names[2])
{
	char err[CF_ERRLEN];
	const cJSON *snd, *path, *hops, *hp;
	const char *dir, *arrow, *x;
	struct mflow *f;
	double retr = 0, spur = 0;

	if (json_get_str(s, "direction", 3, 200, &dir, err) == -1 ||
	    (arrow = strstr(dir, "->")) == NULL ||
	    json_get_obj(s, "sender", &snd, err) == -1 ||
	    json_get_obj(snd, "path", &path, err) == -1 ||
	    cJSON_GetObjectItem(path, "error") != NULL)
		return;
	if (F->n == F->cap) {
		int cap = F->cap ? F->cap * 2 : 256;
		struct mflow *nf = realloc(F->f, (size_t)cap * sizeof(*nf));

		if (nf == NULL)
			return;
		F->f = nf;
		F->cap = cap;
	}
	f = &F->f[F->n];
	memset(f, 0, sizeof(*f));
	f->src = host_of(F->h, F->nh, dir, (size_t)(arrow - dir));
	f->dst = host_of(F->h, F->nh, arrow + 2, strlen(arrow + 2));
	if (f->src < 0 || f->dst < 0 ||
	    json_get_double(snd, "bytes", 0, 1e18, &f->bytes, err) == -1)
		return;
	json_get_double(snd, "bits_per_second", 0, 1e15, &f->bps, err);
	json_get_double(snd, "retransmits", 0, 1e15, &retr, err);
	json_get_double(snd, "spurious_retransmits", 0, 1e15, &spur, err);
	f->lost = retr > spur ? retr - spur : 0;
	/* The cell's own a and b: which end is the sender. */
	f->src_addr = intern(F, strcmp(F->h[f->src]->name, names[0]) == 0 ?
	    addr[0] : addr[1]);
	f->dst_addr = intern(F, strcmp(F->h[f->dst]->name, names[0]) == 0 ?
	    addr[0] : addr[1]);
	if (json_opt_str(path, "egress_if", 0, 15, NULL, &x, err) == 0)
		f->dev = intern(F, x);
	if (json_opt_str(path, "egress_addr", 0, 63, NULL, &x, err) == 0)
		f->egress_addr = intern(F, x);
	if (json_opt_str(path, "gateway", 0, 63, NULL, &x, err) == 0)
		f->gw = intern(F, x);
	if (json_get_arr(path, "hops", 0, MFLOW_HOPS, &hops, NULL, err) == -1)
		return;
	cJSON_ArrayForEach(hp, hops)
		f->hop[f->nhops++] = cJSON_IsString(hp) ? intern(F,
		    hp->valuestring) : NULL;
	F->n++;
}

void
report_flows_cell(struct rflows *F, const cJSON *c)
{
	char err[CF_ERRLEN];
	const cJSON *data, *start, *ab[2], *end, *s;
	const char *t, *st, *addr[2], *names[2];
	int k, first;

	if (json_get_str(c, "test", 0, 16, &t, err) == -1 ||
	    (strcmp(t, "bw") && strcmp(t, "a2a") && strcmp(t, "fanout")) ||
	    json_get_str(c, "state", 0, 16, &st, err) == -1 ||
	    strcmp(st, F->lost_cells ? "lost" : "ok") != 0 ||
	    json_get_obj(c, "data", &data, err) == -1 ||
	    json_get_obj(data, "start", &start, err) == -1 ||
	    json_get_obj(start, "a", &ab[0], err) == -1 ||
	    json_get_obj(start, "b", &ab[1], err) == -1 ||
	    json_get_obj(data, "end", &end, err) == -1)
		return;
	for (k = 0; k < 2; k++)
		if (json_get_str(ab[k], "host", 1, 200, &names[k], err) == -1 ||
		    json_get_str(ab[k], "address", 1, 63, &addr[k], err) == -1)
			return;
	first = F->n;
	cJSON_ArrayForEach(s, cJSON_GetObjectItem(end, "streams"))
		one_flow(F, s, addr, names);
	/* How many flows each went with its way: a flow's rate times that
	 * is what its direction would carry if every flow ran as it did. */
	for (k = first; k < F->n; k++) {
		struct mflow *f = &F->f[k];
		int j;

		f->load = strcmp(t, "bw") != 0;
		for (j = first; j < F->n; j++)
			f->dir_flows += F->f[j].src == f->src &&
			    F->f[j].dst == f->dst;
	}
}

/* ports_cb: a host's facts cell: every address of its links, with the
 * link's name. */
static void
ports_cb(const cJSON *c, void *arg)
{
	struct rflows *F = arg;
	char err[CF_ERRLEN], a[NETADDR_STRLEN];
	const cJSON *data, *l, *x;
	const char *name, *dev;
	int h;

	if (json_get_str(c, "src", 1, 200, &name, err) == -1 ||
	    (h = host_of(F->h, F->nh, name, strlen(name))) < 0 ||
	    json_get_obj(c, "data", &data, err) == -1)
		return;
	cJSON_ArrayForEach(l, cJSON_GetObjectItem(data, "links")) {
		if (json_get_str(l, "name", 1, 15, &dev, err) == -1)
			continue;
		cJSON_ArrayForEach(x, cJSON_GetObjectItem(l, "addresses")) {
			struct mport *np;

			if (!cJSON_IsString(x) || sscanf(x->valuestring,
			    "%63[^/]", a) != 1)
				continue;
			if (F->nports == F->capports) {
				int cap = F->capports ? F->capports * 2 : 64;

				if ((np = realloc(F->ports, (size_t)cap *
				    sizeof(*np))) == NULL)
					return;
				F->ports = np;
				F->capports = cap;
			}
			F->ports[F->nports++] = (struct mport){ intern(F, a),
			    intern(F, dev), h };
			if (F->ports[F->nports - 1].addr == NULL ||
			    F->ports[F->nports - 1].dev == NULL)
				F->nports--;
		}
	}
}

void
report_flows_init(struct rflows *F, struct inv_host **h, int n, bool lost)
{
	memset(F, 0, sizeof(*F));
	F->h = h;
	F->nh = n;
	F->lost_cells = lost;
}

void
report_flows_ports(struct rflows *F, struct store *st, int64_t run)
{
	/* The hosts' facts, when the run has them, name their ports. */
	if (F->n > 0 && !F->lost_cells)
		store_each(st, run, "host", "facts", ports_cb, F);
}

void
report_flows_free(struct rflows *F)
{
	int i;

	for (i = 0; i < F->nstr; i++)
		free(F->str[i]);
	free(F->str);
	free(F->f);
	free(F->ports);
	memset(F, 0, sizeof(*F));
}

/* The fabric as traced, for the HTML drawing: every step of every traced
 * path (sender, the routers that answered, receiver) with how many flows
 * took it and how many of them lost packets. */
struct step {
	const char *from, *to;
	int depth, flows, bad;
};

static void
add_step(struct step *st, int *n, int cap, const char *a, const char *b,
    int depth, bool bad)
{
	int i;

	for (i = 0; i < *n; i++)
		if (st[i].from == a && st[i].to == b && st[i].depth == depth)
			break;
	if (i == *n) {
		if (*n == cap)
			return;
		st[(*n)++] = (struct step){ a, b, depth, 0, 0 };
	}
	st[i].flows++;
	st[i].bad += bad;
}

cJSON *
report_flows_fabric(const struct rflows *F, double max_rpg)
{
	enum { CAP = 4096 };
	struct step *st = calloc(CAP, sizeof(*st));
	cJSON *o = cJSON_CreateObject(), *arr;
	int i, k, n = 0;

	arr = cJSON_AddArrayToObject(o, "steps");
	for (i = 0; st && i < F->n; i++) {
		const struct mflow *f = &F->f[i];
		const char *prev = F->h[f->src]->name;
		bool bad = f->bytes > 0 && f->lost / (f->bytes / 1e9) > max_rpg;

		for (k = 0; k < f->nhops; k++) {
			const char *h = f->hop[k] ? f->hop[k] : "*";

			add_step(st, &n, CAP, prev, h, k + 1, bad);
			prev = h;
		}
		/* Into the receiver: its column is the last; the depth says
		 * where the step starts, negated. */
		add_step(st, &n, CAP, prev, F->h[f->dst]->name, -1 - f->nhops,
		    bad);
	}
	/* [from, to, depth of 'to' (-1 - d: the receiving host, from depth
	 * d), flows, bad] */
	for (i = 0; i < n; i++) {
		cJSON *s = cJSON_CreateArray();

		cJSON_AddItemToArray(s, cJSON_CreateString(st[i].from));
		cJSON_AddItemToArray(s, cJSON_CreateString(st[i].to));
		cJSON_AddItemToArray(s, cJSON_CreateNumber(st[i].depth));
		cJSON_AddItemToArray(s, cJSON_CreateNumber(st[i].flows));
		cJSON_AddItemToArray(s, cJSON_CreateNumber(st[i].bad));
		cJSON_AddItemToArray(arr, s);
	}
	free(st);
	return o;
}

/* hop_addr: hops[k] when it is an address, else NULL. */
static const char *
hop_addr(const cJSON *hops, int k)
{
	const cJSON *x = cJSON_GetArrayItem(hops, k);
	struct netaddr a;

	if (!cJSON_IsString(x) || strlen(x->valuestring) >= NETADDR_STRLEN ||
	    netaddr_parse(x->valuestring, &a) == -1)
		return NULL;
	return x->valuestring;
}

void
report_mtu_cut(const cJSON *r, char **near, char **far, double *next_mtu)
{
	char err[CF_ERRLEN];
	const cJSON *t, *hops;
	const char *a, *b;
	uint32_t reached;
	int nh;

	if (json_get_obj(r, "trace", &t, err) == -1 ||
	    json_get_arr(t, "hops", 0, MFLOW_HOPS, &hops, &nh, err) == -1 ||
	    json_get_u32(t, "reached", 0, (uint32_t)nh, &reached, err) == -1)
		return;
	/* Past no router (the sender's own port: the host's MTU finding),
	 * or past the last one (the receiver's port): not a fabric link. */
	if (reached < 1 || (int)reached >= nh ||
	    (b = hop_addr(hops, (int)reached)) == NULL)
		return;
	a = hop_addr(hops, (int)reached - 1);
	free(*near);
	free(*far);
	*near = a ? strdup(a) : NULL;
	*far = strdup(b);
	json_opt_double(t, "next_mtu", 68, 1e6, NAN, next_mtu, err);
}
