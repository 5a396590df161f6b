/* plan_checks: the planner's host-to-host checks, see migrate.h. */
#include "migrate/migrate.h"
#include "text.h"
#include "child.h"
#include "core/core.h"
#include "json.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void
plan_host_addrs(const char *inventory, const char *key, struct plan_state *ps)
{
	const char *a[8] = { "-i", inventory, "hosts", "--facts",
	    "--json", NULL, NULL, NULL };
	cJSON *doc, *h, *l, *ad;

	if (key) {
		a[5] = "-k";
		a[6] = key;
	}
	/* The key after the command word: the CLI takes both orders. */
	self_run(a, 120, &doc);
	cJSON_ArrayForEach(h, cJSON_GetObjectItem(doc, "hosts")) {
		const cJSON *nm = cJSON_GetObjectItem(h, "name");

		if (!cJSON_IsString(nm) || ps->nhosts >= CEPH_MAX_OSDS)
			continue;
		snprintf(ps->hosts[ps->nhosts].host, CEPH_NAME_MAX, "%s",
		    nm->valuestring);
		ps->hosts[ps->nhosts].known = cJSON_GetObjectItem(h,
		    "facts") != NULL;
		cJSON_ArrayForEach(l, cJSON_GetObjectItem(cJSON_GetObjectItem(h,
		    "facts"), "links"))
			cJSON_ArrayForEach(ad, cJSON_GetObjectItem(l,
			    "addresses")) {
				struct netcidr c;
				int j = ps->hosts[ps->nhosts].naddr;

				if (j < 16 && cJSON_IsString(ad) &&
				    netcidr_parse(ad->valuestring, &c) == 0) {
					ps->hosts[ps->nhosts].addr[j] = c.addr;
					ps->hosts[ps->nhosts].naddr++;
				}
			}
		ps->nhosts++;
	}
	cJSON_Delete(doc);
}

struct nhost {
	const char *name;
	const struct inv_host *ih;
	struct netaddr old, new;
};

static void
add_host(cJSON *f, const char *h)
{
	cJSON *hs = cJSON_GetObjectItem(f, "hosts"), *x;

	cJSON_ArrayForEach(x, hs)
		if (strcmp(x->valuestring, h) == 0)
			return;
	cJSON_AddItemToArray(hs, cJSON_CreateString(h));
}

/* write_inv: the OSD hosts with their agents, the old cluster address as
 * "public" and the new one as "cluster". */
static int
write_inv(const char *path, const struct inventory *inv, const char *key,
    const struct ceph_map *m, const struct netcidr *nn, struct nhost *nh,
    int n)
{
	/* Never through a symbolic link someone left at the path. */
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW |
	    O_CLOEXEC, 0644);
	FILE *f = fd == -1 ? NULL : fdopen(fd, "w");
	char a[NETADDR_STRLEN + 8];
	int i;

	if (f == NULL) {
		if (fd != -1)
			close(fd);
		return -1;
	}
	fprintf(f, "# cephfab plan: the old (public) and new (cluster) "
	    "cluster networks\n[global]\nkey = %s\nport = %u\n", key,
	    inv->port);
	if (m->cluster_network[0])
		fprintf(f, "public_network = %s\n", m->cluster_network);
	fprintf(f, "cluster_network = %s\n", netcidr_str(nn, a, sizeof(a)));
	for (i = 0; i < n; i++) {
		fprintf(f, "\n[host %s]\nagent = %s", nh[i].name,
		    netaddr_str(&nh[i].ih->agent, a, sizeof(a)));
		if (nh[i].ih->port)
			fprintf(f, ":%u", nh[i].ih->port);
		fprintf(f, "\npublic = %s\n", netaddr_str(&nh[i].old, a,
		    sizeof(a)));
		fprintf(f, "cluster = %s\n", netaddr_str(&nh[i].new, a,
		    sizeof(a)));
	}
	return fclose(f) == 0 ? 0 : -1;
}

/* plan_hosts: the OSD hosts with an agent, an old and a new address. */
static int
plan_hosts(const struct ceph_map *m, const struct plan_state *ps,
    const struct plan_opts *o, struct inventory *inv, struct nhost *nh,
    int cap)
{
	int n = 0, i, k, j;

	for (i = 0; i < m->nosds && n < cap; i++) {
		const struct ceph_osd *d = &m->osds[i];
		const struct inv_host *ih;

		for (k = 0; k < n && strcmp(nh[k].name, d->host); k++)
			;
		if (k < n || d->host[0] == '\0' || d->clus.family == 0 ||
		    (ih = inventory_find(inv, d->host)) == NULL)
			continue;
		nh[n].name = d->host;
		nh[n].ih = ih;
		nh[n].old = d->clus;
		memset(&nh[n].new, 0, sizeof(nh[n].new));
		for (k = 0; k < ps->nhosts; k++) {
			if (strcmp(ps->hosts[k].host, d->host) != 0)
				continue;
			for (j = 0; j < ps->hosts[k].naddr; j++)
				if (netcidr_contains(&o->new_net,
				    &ps->hosts[k].addr[j]))
					nh[n].new = ps->hosts[k].addr[j];
		}
		if (nh[n].new.family)
			n++;
	}
	return n;
}

/* read_json: a whole JSON file, or NULL. */
static cJSON *
read_json(const char *path)
{
	FILE *jf = fopen(path, "r");
	char *buf = NULL;
	size_t cap = 0;
	ssize_t len = jf ? getdelim(&buf, &cap, '\0', jf) : -1;
	cJSON *doc = len > 0 ? cJSON_ParseWithLength(buf, (size_t)len) : NULL;

	free(buf);
	if (jf)
		fclose(jf);
	return doc;
}

/* new_net_matrix: the new network as any network (reach, DF path MTU,
 * ports) by this program's own matrix; its findings become blocking
 * preflight findings. Returns how many. */
static int
new_net_matrix(const char *ipath, const char *db, const char *js, cJSON *fs)
{
	const char *a[] = { "-i", ipath, "matrix", "--net", "cluster",
	    "--tests", "lat,mtu,ports", "--db", db, "--json", js, NULL };
	cJSON *doc, *x, *f;
	int rc, blocks = 0;

	rc = self_run(a, 600, &doc);
	cJSON_Delete(doc);
	if (rc == 0)
		return 0;
	doc = read_json(js);
	cJSON_ArrayForEach(x, cJSON_GetObjectItem(doc, "findings")) {
		const cJSON *sm = cJSON_GetObjectItem(x, "summary");
		const cJSON *kd = cJSON_GetObjectItem(x, "kind"), *h;
		const cJSON *sv = cJSON_GetObjectItem(x, "severity");
		char kind[80], sum[400];

		/* A warning (an RTT over the limit on a busy host, say) is
		 * no reason to refuse a cutover. */
		if (!cJSON_IsString(sv) || strcmp(sv->valuestring, "error"))
			continue;

		snprintf(kind, sizeof(kind), "new_network_%s",
		    cJSON_IsString(kd) ? kd->valuestring : "?");
		snprintf(sum, sizeof(sum), "on the new network: %s",
		    cJSON_IsString(sm) ? sm->valuestring : "(no summary)");
		f = plan_finding(fs, kind, "fix the new network first: OSDs "
		    "moved onto it would not reach each other", "%s", sum);
		cJSON_ArrayForEach(h, cJSON_GetObjectItem(x, "hosts"))
			if (cJSON_IsString(h))
				add_host(f, h->valuestring);
		blocks++;
	}
	cJSON_Delete(doc);
	if (rc != 1) {
		plan_finding(fs, "new_network_untested", "run 'cephfab matrix' "
		    "on it by hand", "the new network could not be tested (the "
		    "matrix did not run: are the agents up?)");
		blocks++;
	}
	return blocks;
}

/* What the old -> new reach checks gather. */
struct oldnew {
	cJSON *fs;
	cJSON *f, *pairs;	/* the one old_new_unreachable finding */
	int refused, blocks;
};

/* new_net_covers: a finding of the new network's own already blocks on a
 * or b (a pair finding naming both, or a host finding naming either):
 * the same fault, said once. */
static bool
new_net_covers(const cJSON *fs, const char *a, const char *b)
{
	const cJSON *f, *h, *k;

	cJSON_ArrayForEach(f, fs) {
		int n = 0, in = 0;

		k = cJSON_GetObjectItem(f, "kind");
		if (!cJSON_IsString(k) || strncmp(k->valuestring,
		    "new_network_", 12) != 0)
			continue;
		cJSON_ArrayForEach(h, cJSON_GetObjectItem(f, "hosts")) {
			n++;
			in += cJSON_IsString(h) && (!strcmp(h->valuestring,
			    a) || !strcmp(h->valuestring, b));
		}
		if (n > 0 && in == n)
			return true;
	}
	return false;
}

/* old_new_pair: host a's old address to host b's new one; a pair that
 * gets no answer joins the old_new_unreachable finding, unless the new
 * network's own test already blocks on it. */
static void
old_new_pair(const char *ipath, const struct nhost *a, const struct nhost *b,
    struct oldnew *on)
{
	const char *av[] = { "-i", ipath, "--json", "reach", a->name, b->name,
	    "--from-net", "public", "--to-net", "cluster", NULL };
	char a1[NETADDR_STRLEN], a2[NETADDR_STRLEN], p[160], sum[400];
	const cJSON *er, *x;
	bool lost = false;
	cJSON *doc;
	int rc;

	rc = self_run(av, 60, &doc);
	/* An agent that refuses (allow_targets, say) has not measured
	 * anything: say why, once. */
	er = cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(doc,
	    "results"), 0), "error");
	if (cJSON_IsString(er)) {
		if (on->refused++ == 0) {
			snprintf(sum, sizeof(sum), "old->new not tested: %s",
			    er->valuestring);
			plan_finding(on->fs, "new_network_untested",
			    strstr(er->valuestring, "allow_targets") ? "add "
			    "the new network to allow_targets in agent.conf on "
			    "every host" : "check the agents", "%s", sum);
			on->blocks++;
		}
		cJSON_Delete(doc);
		return;
	}
	cJSON_ArrayForEach(x, cJSON_GetObjectItem(doc, "findings")) {
		const cJSON *kd = cJSON_GetObjectItem(x, "kind");

		lost |= cJSON_IsString(kd) && strcmp(kd->valuestring,
		    "unreachable") == 0;
	}
	lost |= rc == 3 || doc == NULL;
	cJSON_Delete(doc);
	if (!lost || new_net_covers(on->fs, a->name, b->name))
		return;
	if (on->pairs == NULL) {
		on->f = plan_finding(on->fs, "old_new_unreachable", "route (and "
		    "allow) the old cluster network to the new one and back on "
		    "every host: during the transition OSDs on both heartbeat "
		    "and replicate to each other", "placeholder");
		on->pairs = cJSON_AddArrayToObject(cJSON_GetObjectItem(on->f,
		    "evidence"), "pairs");
		on->blocks++;
	}
	snprintf(p, sizeof(p), "%s %s -> %s %s", a->name, netaddr_str(&a->old,
	    a1, sizeof(a1)), b->name, netaddr_str(&b->new, a2, sizeof(a2)));
	cJSON_AddItemToArray(on->pairs, cJSON_CreateString(p));
	add_host(on->f, a->name);
	add_host(on->f, b->name);
}

/* old_new_summary: the old_new_unreachable finding's summary, its pairs
 * listed. */
static void
old_new_summary(struct oldnew *on)
{
	char sum[512];
	size_t off;
	cJSON *x;

	off = (size_t)snprintf(sum, sizeof(sum), "%d old->new pair%s get no "
	    "answer:", cJSON_GetArraySize(on->pairs),
	    cJSON_GetArraySize(on->pairs) > 1 ? "s" : "");
	cJSON_ArrayForEach(x, on->pairs)
		if (off < sizeof(sum) - 2)
			off = text_appendf(sum, sizeof(sum), off,
			    " %s;", x->valuestring);
	if (off < sizeof(sum))
		sum[off - 1] = '\0';
	cJSON_ReplaceItemInObject(on->f, "summary", cJSON_CreateString(sum));
}

int
plan_net_checks(const char *inventory, const char *key_given,
    const struct ceph_map *m,
    const struct plan_state *ps, const struct plan_opts *o, cJSON *fs)
{
	struct inventory inv;
	struct nhost nh[64];
	struct oldnew on;
	char dir[] = "/tmp/cephfab-plan-XXXXXX", ipath[64], db[64], js[64];
	char err[CF_ERRLEN], w[80];
	int n, i, k;

	if (inventory == NULL || inventory_load(inventory, &inv, err))
		return 0;
	memset(&on, 0, sizeof(on));
	on.fs = fs;
	n = plan_hosts(m, ps, o, &inv, nh, 64);
	if (n < 2 || mkdtemp(dir) == NULL) {
		inventory_free(&inv);
		return 0;
	}
	snprintf(ipath, sizeof(ipath), "%s/inv", dir);
	snprintf(db, sizeof(db), "%s/m.db", dir);
	snprintf(js, sizeof(js), "%s/m.json", dir);
	if (write_inv(ipath, &inv, inventory_key_path(&inv, key_given), m,
	    &o->new_net, nh, n) == 0) {
		fprintf(stderr, "preflight: testing the new network between "
		    "%d OSD hosts\n", n);
		on.blocks += new_net_matrix(ipath, db, js, fs);
		/* Every old address to every new one, both ways round. */
		for (i = 0; i < n; i++)
			for (k = 0; k < n; k++)
				if (i != k)
					old_new_pair(ipath, &nh[i], &nh[k], &on);
		if (on.pairs)
			old_new_summary(&on);
	}
	unlink(ipath);
	unlink(js);
	unlink(db);
	snprintf(w, sizeof(w), "%s-wal", db);
	unlink(w);
	snprintf(w, sizeof(w), "%s-shm", db);
	unlink(w);
	rmdir(dir);
	inventory_free(&inv);
	return on.blocks;
}

/* The preflight's checks, each with the finding kinds that say it failed
 * (a prefix ending in '_' names a family). */
static const struct {
	const char *name, *what, *kinds[3];
} plan_check_table[] = {
	{ "cluster_clean", "every PG active+clean",
	    { "cluster_not_clean" } },
	{ "osds_up", "every OSD up and in", { "osd_down" } },
	{ "no_slow_ops", "no slow ops", { "slow_ops" } },
	{ "new_addresses", "every OSD host has an address in the new network",
	    { "no_new_address" } },
	{ "cluster_network_in_db", "cluster_network is the mon database's, not "
	    "a local ceph.conf's", { "cluster_network_in_file" } },
	{ "one_version", "one Ceph version runs", { "mixed_versions" } },
	{ "new_network", "the OSD hosts reach each other on the new network "
	    "(reach, path MTU, Ceph's ports)", { "new_network_" } },
	{ "old_to_new", "every old cluster address reaches every new one and "
	    "back", { "old_new_unreachable" } },
};

static bool
kind_in(const char *kind, const char *const *kinds)
{
	int k;

	for (k = 0; k < 3 && kinds[k]; k++) {
		size_t n = strlen(kinds[k]);

		if (kinds[k][n - 1] == '_' ? strncmp(kind, kinds[k], n) == 0 :
		    strcmp(kind, kinds[k]) == 0)
			return true;
	}
	return false;
}

cJSON *
plan_check_list(const cJSON *fs)
{
	cJSON *out = cJSON_CreateArray();
	size_t i;

	for (i = 0; i < sizeof(plan_check_table) /
	    sizeof(plan_check_table[0]); i++) {
		const char *result = "ok";
		const cJSON *f;
		cJSON *c;

		cJSON_ArrayForEach(f, fs) {
			const char *k = cJSON_GetStringValue(
			    cJSON_GetObjectItem(f, "kind"));
			const char *sv = cJSON_GetStringValue(
			    cJSON_GetObjectItem(f, "severity"));

			if (k == NULL || !kind_in(k, plan_check_table[i].kinds))
				continue;
			if (sv && strcmp(sv, "warn") == 0 &&
			    strcmp(result, "ok") == 0)
				result = "warn";
			else if (!sv || strcmp(sv, "warn") != 0)
				result = "blocked";
		}
		c = cJSON_CreateObject();
		cJSON_AddStringToObject(c, "check", plan_check_table[i].name);
		cJSON_AddStringToObject(c, "what", plan_check_table[i].what);
		cJSON_AddStringToObject(c, "result", result);
		cJSON_AddItemToArray(out, c);
	}
	return out;
}
