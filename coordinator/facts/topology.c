/* topology: findings from the hosts' facts, see topology.h. */
#include "facts/topology.h"
#include "facts/topology_int.h"
#include "text.h"
#include "json.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


int
topology_frr(const cJSON *frr, struct frr_sum *s, char *err)
{
	const cJSON *o, *n, *arr, *p;
	const char *st;
	bool b;

	memset(s, 0, sizeof(*s));
	if (frr == NULL)
		return 0;
	if (json_opt_bool(frr, "available", false, &b, err) == -1)
		return -1;
	s->available = b;
	/* OSPF: {"neighbors": {"RID": [{"nbrState": "Full/DR"}, ...]}} */
	if ((o = cJSON_GetObjectItem(frr, "ospf_neighbors")) != NULL) {
		if (json_get_obj(o, "neighbors", &n, err) == -1)
			return -1;
		cJSON_ArrayForEach(arr, n) {
			if (!cJSON_IsArray(arr)) {
				snprintf(err, CF_ERRLEN, "field 'neighbors.%s': "
				    "not an array", arr->string ? arr->string :
				    "?");
				return -1;
			}
			cJSON_ArrayForEach(p, arr) {
				if (json_get_str(p, "nbrState", 1, 64, &st,
				    err) == -1)
					return -1;
				s->ospf_total++;
				s->ospf_full += strncmp(st, "Full", 4) == 0;
			}
		}
	}
	/* BGP: {"ipv4Unicast": {"peers": {"ADDR": {"state": ...}}}} */
	if ((o = cJSON_GetObjectItem(frr, "bgp_summary")) != NULL) {
		const cJSON *af;

		cJSON_ArrayForEach(af, o) {
			if (!cJSON_IsObject(af))
				continue;
			if ((n = cJSON_GetObjectItem(af, "peers")) == NULL)
				continue;
			if (!cJSON_IsObject(n)) {
				snprintf(err, CF_ERRLEN, "field '%s.peers': not "
				    "an object", af->string ? af->string : "?");
				return -1;
			}
			cJSON_ArrayForEach(p, n) {
				if (json_get_str(p, "state", 1, 64, &st,
				    err) == -1)
					return -1;
				s->bgp_total++;
				s->bgp_established += strcmp(st,
				    "Established") == 0;
			}
		}
	}
	/* BFD: [{"peer": ..., "status": "up"}, ...] */
	if ((o = cJSON_GetObjectItem(frr, "bfd_peers")) != NULL) {
		if (!cJSON_IsArray(o)) {
			snprintf(err, CF_ERRLEN, "field 'bfd_peers': not an "
			    "array");
			return -1;
		}
		cJSON_ArrayForEach(p, o) {
			if (json_get_str(p, "status", 1, 32, &st, err) == -1)
				return -1;
			s->bfd_total++;
			s->bfd_up += strcmp(st, "up") == 0;
		}
	}
	return 0;
}

/* --- helpers over one host's facts ---------------------------------------- */

static const struct inv_host *
inv_find(const struct inventory *inv, const char *name)
{
	const struct inv_host *h;

	TAILQ_FOREACH(h, &inv->hosts, entry)
		if (strcmp(h->name, name) == 0)
			return h;
	return NULL;
}


/* link_with_addr: the link whose addresses hold a ("A.B.C.D"), else
 * the one whose subnet holds it: loopback answers for all of 127.0.0.0/8
 * with one address, 127.0.0.1/8 (a one-machine try-out's hosts are
 * 127.x.y.z), as a local route can make any port's subnet local. */
static const cJSON *
link_with_addr(const cJSON *facts, const char *a)
{
	const cJSON *l, *ad, *sub = NULL;
	size_t n = strlen(a);
	struct netaddr x;
	struct netcidr c;
	bool parsed = netaddr_parse(a, &x) == 0;

	cJSON_ArrayForEach(l, cJSON_GetObjectItem(facts, "links"))
		cJSON_ArrayForEach(ad, cJSON_GetObjectItem(l, "addresses")) {
			if (!cJSON_IsString(ad))
				continue;
			if (strncmp(ad->valuestring, a, n) == 0 &&
			    ad->valuestring[n] == '/')
				return l;
			if (sub == NULL && parsed && netcidr_parse(
			    ad->valuestring, &c) == 0 && netcidr_contains(&c,
			    &x))
				sub = l;
		}
	return sub;
}

/* link_bond: the bond carrying link l: its own (a Linux bond), or the OVS
 * bond its bridge goes out by ("ovs_uplink", an internal port). */
static const cJSON *
link_bond(const cJSON *facts, const cJSON *l, const char **ovs_name)
{
	const cJSON *b, *x;
	const char *up = jstr(l, "ovs_uplink");

	*ovs_name = NULL;
	if ((b = cJSON_GetObjectItem(l, "bond")) != NULL || up[0] == '\0')
		return b;
	cJSON_ArrayForEach(x, cJSON_GetObjectItem(facts, "links"))
		if (strcmp(jstr(x, "kind"), "ovs-bond") == 0 &&
		    strcmp(jstr(x, "name"), up) == 0) {
			*ovs_name = up;
			return cJSON_GetObjectItem(x, "bond");
		}
	return NULL;
}

static const cJSON *
route_to(const cJSON *facts, const char *peer)
{
	const cJSON *r;

	cJSON_ArrayForEach(r, cJSON_GetObjectItem(facts, "routes"))
		if (strcmp(jstr(r, "peer"), peer) == 0)
			return r;
	return NULL;
}

/* gatewayed: a route through a router (not on-link), where a fabric can
 * offer several paths. */
static bool
gatewayed(const cJSON *r)
{
	const cJSON *nh;

	cJSON_ArrayForEach(nh, cJSON_GetObjectItem(r, "nexthops"))
		if (cJSON_GetObjectItem(nh, "gateway"))
			return true;
	return false;
}

/* --- across hosts ----------------------------------------------------------- */

/* host_link_value: key (mtu, speed) of the interface holding host h's
 * address on network net (its link in *l, its inventory entry in *ih);
 * -1 when the host, its address or its link is unknown. */
static double
host_link_value(const struct inventory *inv, const cJSON *h, int net,
    const char *key, const struct inv_host **ih, const cJSON **l)
{
	char a[NETADDR_STRLEN];

	*ih = inv_find(inv, jstr(h, "name"));
	*l = NULL;
	if (*ih == NULL || (net ? (*ih)->clus.family : (*ih)->pub.family) == 0)
		return -1;
	*l = link_with_addr(cJSON_GetObjectItem(h, "facts"), netaddr_str(net ?
	    &(*ih)->clus : &(*ih)->pub, a, sizeof(a)));
	return *l ? jnum(*l, key, -1) : -1;
}

/* inconsistent: per network, a value of each host's interface (MTU,
 * speed) against the most common one. */
static void
inconsistent(const struct inventory *inv, const cJSON *hosts, int net,
    const char *key, const char *kind, cJSON *out)
{
	const char *nn = net ? "cluster" : "public";
	double vals[64];
	int counts[64], nv = 0, i, best = 0;
	const cJSON *h;
	char list[384];
	size_t off = 0;
	cJSON *f = NULL;

	cJSON_ArrayForEach(h, hosts) {
		const struct inv_host *ih;
		const cJSON *l;
		double v = host_link_value(inv, h, net, key, &ih, &l);

		if (v <= 0)
			continue;
		for (i = 0; i < nv && vals[i] != v; i++)
			;
		if (i == nv && nv < 64) {
			vals[nv] = v;
			counts[nv++] = 0;
		}
		if (i < 64)
			counts[i]++;
	}
	if (nv < 2)
		return;
	for (i = 1; i < nv; i++)
		if (counts[i] > counts[best])
			best = i;
	list[0] = '\0';
	cJSON_ArrayForEach(h, hosts) {
		const struct inv_host *ih;
		const cJSON *l;
		double v = host_link_value(inv, h, net, key, &ih, &l);

		if (v <= 0 || v == vals[best])
			continue;
		if (f == NULL)
			f = finding_new(out, kind, "warn", nn, strcmp(key, "mtu") ==
			    0 ? "set one MTU on every host port of this "
			    "network (and the switches above it)" : "check "
			    "the port speeds negotiated on these hosts' NICs "
			    "and switch ports", "placeholder");
		finding_host(f, ih->name);
		if (off < sizeof(list) - 64)
			off = text_appendf(list, sizeof(list), off,
			    "%s%s %s %.0f", off ? ", " : "", ih->name,
			    jstr(l, "name"), v);
	}
	if (f) {
		char msg[512];

		snprintf(msg, sizeof(msg), "%s on the %s network differs "
		    "from the %.0f most hosts have: %s", strcmp(key, "mtu") ==
		    0 ? "interface MTU" : "link speed (Mb/s)", nn, vals[best],
		    list);
		cJSON_ReplaceItemInObject(f, "summary",
		    cJSON_CreateString(msg));
		cJSON_AddNumberToObject(cJSON_GetObjectItem(f, "evidence"),
		    "common", vals[best]);
	}
}

/* paths: per network, every host's gatewayed routes to its peers against
 * the most next hops any host has: fewer is a lost path. */
static int
paths(const struct inventory *inv, const cJSON *hosts, int net, cJSON *out)
{
	const char *nn = net ? "cluster" : "public";
	const cJSON *h, *facts, *r;
	const struct inv_host *q;
	int expect = 0, errors = 0;
	char a[NETADDR_STRLEN];

	cJSON_ArrayForEach(h, hosts) {
		facts = cJSON_GetObjectItem(h, "facts");
		TAILQ_FOREACH(q, &inv->hosts, entry) {
			int k;

			if (strcmp(q->name, jstr(h, "name")) == 0 ||
			    (net ? q->clus.family : q->pub.family) == 0)
				continue;
			r = route_to(facts, netaddr_str(net ? &q->clus :
			    &q->pub, a, sizeof(a)));
			k = cJSON_GetArraySize(cJSON_GetObjectItem(r,
			    "nexthops"));
			if (r && gatewayed(r) && k > expect)
				expect = k;
		}
	}
	if (expect < 2)
		return 0;	/* one path by design, or L2 */
	cJSON_ArrayForEach(h, hosts) {
		const char *hn = jstr(h, "name");
		char list[256];
		size_t off = 0;
		int fewer = 0, total = 0, least = expect;

		facts = cJSON_GetObjectItem(h, "facts");
		list[0] = '\0';
		TAILQ_FOREACH(q, &inv->hosts, entry) {
			int k;

			if (strcmp(q->name, hn) == 0 ||
			    (net ? q->clus.family : q->pub.family) == 0)
				continue;
			r = route_to(facts, netaddr_str(net ? &q->clus :
			    &q->pub, a, sizeof(a)));
			if (r == NULL || !gatewayed(r))
				continue;
			total++;
			k = cJSON_GetArraySize(cJSON_GetObjectItem(r,
			    "nexthops"));
			if (k >= expect)
				continue;
			fewer++;
			if (k < least)
				least = k;
			if (off < sizeof(list) - 24)
				off = text_appendf(list, sizeof(list), off,
				    "%s%s", off ? ", " : "",
				    q->name);
		}
		if (fewer) {
			cJSON *f = finding_new(out, "ecmp_single_path", "error", nn,
			    "a fabric link or routing session is down: check "
			    "the host's uplinks and its OSPF/BGP neighbours",
			    "%s reaches %d of %d peers on the %s network over "
			    "%d path%s where the fabric gives %d: %s", hn,
			    fewer, total, nn, least, least == 1 ? "" : "s",
			    expect, list);

			finding_host(f, hn);
			cJSON_AddNumberToObject(cJSON_GetObjectItem(f,
			    "evidence"), "paths", least);
			cJSON_AddNumberToObject(cJSON_GetObjectItem(f,
			    "evidence"), "expected_paths", expect);
			errors++;
		}
	}
	return errors;
}

/* peer_on_net: is a an address some host has on network net? */
static bool
peer_on_net(const struct inventory *inv, const char *a, int net)
{
	const struct inv_host *h;
	char b[NETADDR_STRLEN];

	TAILQ_FOREACH(h, &inv->hosts, entry)
		if ((net ? h->clus.family : h->pub.family) && strcmp(
		    netaddr_str(net ? &h->clus : &h->pub, b, sizeof(b)), a) ==
		    0)
			return true;
	return false;
}

/* rp_filter: strict reverse-path filtering on a host whose traffic on a
 * network may leave or arrive on another interface than the one holding
 * its address (several paths, or a route out of another interface). */
static void
rp_filter(const struct inventory *inv, const cJSON *h, int net, cJSON *out)
{
	const struct inv_host *ih = inv_find(inv, jstr(h, "name"));
	const cJSON *facts = cJSON_GetObjectItem(h, "facts"), *r, *nh, *rp;
	const char *nn = net ? "cluster" : "public";
	char a[NETADDR_STRLEN];
	const cJSON *l;
	double strict;
	bool multi = false;

	if (ih == NULL || (net ? ih->clus.family : ih->pub.family) == 0)
		return;
	l = link_with_addr(facts, netaddr_str(net ? &ih->clus : &ih->pub, a,
	    sizeof(a)));
	rp = cJSON_GetObjectItem(cJSON_GetObjectItem(facts, "sysctl"),
	    "rp_filter");
	if (l == NULL || rp == NULL)
		return;
	cJSON_ArrayForEach(r, cJSON_GetObjectItem(facts, "routes")) {
		/* Only the routes to this network's peers count. */
		if (!peer_on_net(inv, jstr(r, "peer"), net))
			continue;
		if (cJSON_GetArraySize(cJSON_GetObjectItem(r, "nexthops")) > 1)
			multi = true;
		cJSON_ArrayForEach(nh, cJSON_GetObjectItem(r, "nexthops")) {
			/* The kernel checks the interface a packet came in
			 * on: strict mode drops what arrives elsewhere. */
			const char *dev = jstr(nh, "dev");

			if (strcmp(dev, jstr(l, "name")) != 0 &&
			    strcmp(dev, "lo") != 0 && gatewayed(r) &&
			    strcmp(jstr(l, "name"), "lo") != 0)
				multi = true;
		}
	}
	/* The effective value is the larger of 'all' and the interface's;
	 * for a loopback-sourced host, the uplinks' matter. */
	strict = jnum(rp, "all", 0);
	if (strcmp(jstr(l, "name"), "lo") == 0) {
		cJSON_ArrayForEach(r, cJSON_GetObjectItem(facts, "routes")) {
			if (!peer_on_net(inv, jstr(r, "peer"), net))
				continue;
			cJSON_ArrayForEach(nh, cJSON_GetObjectItem(r,
			    "nexthops"))
				if (jnum(rp, jstr(nh, "dev"), 0) > strict)
					strict = jnum(rp, jstr(nh, "dev"), 0);
		}
	} else if (jnum(rp, jstr(l, "name"), 0) > strict) {
		strict = jnum(rp, jstr(l, "name"), 0);
	}
	if (strict == 1 && multi) {
		cJSON *f = finding_new(out, "rp_filter_strict", "warn", nn, "set "
		    "net.ipv4.conf.*.rp_filter = 2 (loose) on multi-homed "
		    "hosts: strict mode drops replies that come back over "
		    "another path", "%s filters reverse paths strictly "
		    "(rp_filter = 1) while its %s traffic has several paths "
		    "or interfaces", ih->name, nn);

		finding_host(f, ih->name);
	}
}

static int
frr_findings(const cJSON *h, cJSON *out)
{
	const cJSON *facts = cJSON_GetObjectItem(h, "facts");
	struct frr_sum s;
	char err[CF_ERRLEN];
	cJSON *f;

	if (topology_frr(cJSON_GetObjectItem(facts, "frr"), &s, err) == -1) {
		f = finding_new(out, "ecmp_single_path", "warn", "", "check the "
		    "FRR version on this host", "%s: FRR's JSON is not in the "
		    "expected shape: %s", jstr(h, "name"), err);
		finding_host(f, jstr(h, "name"));
		return 0;
	}
	if (!s.available || (s.ospf_full == s.ospf_total &&
	    s.bgp_established == s.bgp_total && s.bfd_up == s.bfd_total))
		return 0;
	f = finding_new(out, "ecmp_single_path", "error", "", "a routing session "
	    "is down: its paths are gone from the ECMP set",
	    "%s: OSPF %d of %d neighbours Full, BGP %d of %d sessions "
	    "Established, BFD %d of %d up", jstr(h, "name"), s.ospf_full,
	    s.ospf_total, s.bgp_established, s.bgp_total, s.bfd_up,
	    s.bfd_total);
	finding_host(f, jstr(h, "name"));
	return 1;
}

int
topology_findings(const struct inventory *inv, const cJSON *hosts,
    const struct profile *prof, cJSON *out)
{
	const cJSON *h;
	int errors = 0, net;

	(void)prof;
	cJSON_ArrayForEach(h, hosts) {
		const cJSON *facts = cJSON_GetObjectItem(h, "facts");

		if (facts == NULL)
			continue;
		errors += topology_bonds(jstr(h, "name"), facts, out);
		errors += frr_findings(h, out);
		for (net = 0; net < 2; net++)
			rp_filter(inv, h, net, out);
	}
	for (net = 0; net < 2; net++) {
		errors += paths(inv, hosts, net, out);
		inconsistent(inv, hosts, net, "mtu", "mtu_inconsistent", out);
		inconsistent(inv, hosts, net, "speed_mbps",
		    "speed_inconsistent", out);
	}
	return errors;
}

/* --- summaries and printing ----------------------------------------------- */

/* net_summary: one host's network as data (its link, its bond, the paths
 * its routes give to its peers) with the line the terminal prints as
 * "text"; NULL when the host has no address there. */
static cJSON *
net_summary(const struct inventory *inv, const struct inv_host *ih,
    const cJSON *facts, int net)
{
	const struct inv_host *q;
	const cJSON *l, *b;
	const char *ovs;
	char a[NETADDR_STRLEN], line[256];
	int maxp = 0, minp = 99;
	size_t off = 0;
	cJSON *o, *bo;

	if ((net ? ih->clus.family : ih->pub.family) == 0)
		return NULL;
	o = cJSON_CreateObject();
	l = link_with_addr(facts, netaddr_str(net ? &ih->clus : &ih->pub, a,
	    sizeof(a)));
	line[0] = '\0';
	if (l) {
		cJSON_AddStringToObject(o, "link", jstr(l, "name"));
		cJSON_AddNumberToObject(o, "speed_mbps", jnum(l, "speed_mbps",
		    0));
		cJSON_AddNumberToObject(o, "mtu", jnum(l, "mtu", 0));
		off = text_appendf(line, sizeof(line), off, "%s",
		    jstr(l, "name"));
		if (jnum(l, "speed_mbps", 0) > 0)
			off = text_appendf(line, sizeof(line), off, " %.0fM",
			    jnum(l, "speed_mbps", 0));
		off = text_appendf(line, sizeof(line), off, " mtu %.0f",
		    jnum(l, "mtu", 0));
		if ((b = link_bond(facts, l, &ovs)) != NULL) {
			int nm = cJSON_GetArraySize(cJSON_GetObjectItem(b,
			    "members"));

			bo = cJSON_AddObjectToObject(o, "bond");
			cJSON_AddStringToObject(bo, "kind", ovs ? "ovs" :
			    "linux");
			if (ovs)
				cJSON_AddStringToObject(bo, "name", ovs);
			cJSON_AddStringToObject(bo, "mode", jstr(b, "mode"));
			cJSON_AddNumberToObject(bo, "members", nm);
			if (ovs == NULL) {
				cJSON_AddStringToObject(bo, "hash", jstr(b,
				    "xmit_hash_policy"));
				off = text_appendf(line, sizeof(line), off,
				    ", bond %s %s x%d", jstr(b, "mode"),
				    jstr(b, "xmit_hash_policy"), nm);
			} else {
				cJSON_AddStringToObject(bo, "lacp", jstr(b,
				    "lacp"));
				off = text_appendf(line, sizeof(line), off,
				    ", OVS bond %.32s %s x%d, LACP %s", ovs,
				    jstr(b, "mode"), nm, jstr(b, "lacp"));
			}
		}
	}
	TAILQ_FOREACH(q, &inv->hosts, entry) {
		const cJSON *r;
		int k;

		if (q == ih || (net ? q->clus.family : q->pub.family) == 0)
			continue;
		r = route_to(facts, netaddr_str(net ? &q->clus : &q->pub, a,
		    sizeof(a)));
		k = cJSON_GetArraySize(cJSON_GetObjectItem(r, "nexthops"));
		if (r == NULL)
			continue;
		maxp = k > maxp ? k : maxp;
		minp = k < minp ? k : minp;
	}
	if (maxp) {
		cJSON_AddNumberToObject(o, "paths_min", minp);
		cJSON_AddNumberToObject(o, "paths_max", maxp);
	}
	if (maxp == minp && maxp)
		snprintf(line + off, sizeof(line) - off, ", %d path%s to every "
		    "peer", maxp, maxp > 1 ? "s" : "");
	else if (maxp)
		snprintf(line + off, sizeof(line) - off, ", %d to %d paths to "
		    "peers", minp, maxp);
	cJSON_AddStringToObject(o, "text", line);
	return o;
}

/* frr_summary: FRR's sessions as counts, with their line as "text";
 * NULL when the host runs no FRR. */
static cJSON *
frr_summary(const cJSON *facts)
{
	struct frr_sum s;
	char err[CF_ERRLEN], fl[128];
	size_t off = 0;
	cJSON *o;

	if (topology_frr(cJSON_GetObjectItem(facts, "frr"), &s, err) == -1 ||
	    !s.available)
		return NULL;
	o = cJSON_CreateObject();
	/* Only what runs: a host without BGP has no BGP. */
	fl[0] = '\0';
	if (s.ospf_total) {
		cJSON_AddNumberToObject(o, "ospf_full", s.ospf_full);
		cJSON_AddNumberToObject(o, "ospf_total", s.ospf_total);
		off = text_appendf(fl, sizeof(fl), off, "OSPF %d/%d Full",
		    s.ospf_full, s.ospf_total);
	}
	if (s.bgp_total) {
		cJSON_AddNumberToObject(o, "bgp_established",
		    s.bgp_established);
		cJSON_AddNumberToObject(o, "bgp_total", s.bgp_total);
		off = text_appendf(fl, sizeof(fl), off, "%sBGP %d/%d "
		    "Established", off ? ", " : "", s.bgp_established,
		    s.bgp_total);
	}
	if (s.bfd_total) {
		cJSON_AddNumberToObject(o, "bfd_up", s.bfd_up);
		cJSON_AddNumberToObject(o, "bfd_total", s.bfd_total);
		snprintf(fl + off, sizeof(fl) - off, "%sBFD %d/%d up", off ?
		    ", " : "", s.bfd_up, s.bfd_total);
	}
	if (fl[0] == '\0')
		snprintf(fl, sizeof(fl), "no sessions");
	cJSON_AddStringToObject(o, "text", fl);
	return o;
}

cJSON *
topology_summary(const struct inventory *inv, const cJSON *hosts)
{
	cJSON *arr = cJSON_CreateArray(), *o, *x;
	const cJSON *h;
	int net;

	cJSON_ArrayForEach(h, hosts) {
		const struct inv_host *ih = inv_find(inv, jstr(h, "name"));
		const cJSON *facts = cJSON_GetObjectItem(h, "facts");

		if (ih == NULL || facts == NULL)
			continue;
		o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "host", ih->name);
		for (net = 0; net < 2; net++)
			if ((x = net_summary(inv, ih, facts, net)) != NULL)
				cJSON_AddItemToObject(o, net ? "cluster" :
				    "public", x);
		if ((x = frr_summary(facts)) != NULL)
			cJSON_AddItemToObject(o, "frr", x);
		cJSON_AddItemToArray(arr, o);
	}
	return arr;
}

const char *
topology_text(const cJSON *t, const char *key)
{
	const cJSON *x = cJSON_GetObjectItem(cJSON_GetObjectItem(t, key),
	    "text");

	return cJSON_IsString(x) ? x->valuestring : "";
}

void
topology_print(const struct inventory *inv, const cJSON *hosts,
    const cJSON *findings)
{
	cJSON *sum = topology_summary(inv, hosts);
	const cJSON *o, *f;

	printf("\npaths:\n");
	cJSON_ArrayForEach(o, sum) {
		printf("  %-16s public:  %s\n", jstr(o, "host"),
		    topology_text(o, "public"));
		printf("  %-16s cluster: %s\n", "", topology_text(o,
		    "cluster"));
		if (topology_text(o, "frr")[0])
			printf("  %-16s FRR:     %s\n", "", topology_text(o,
			    "frr"));
	}
	cJSON_Delete(sum);
	if (cJSON_GetArraySize(findings) == 0)
		printf("no topology findings\n");
	cJSON_ArrayForEach(f, findings)
		printf("%-5s %-18s %s\n", jstr(f, "severity"), jstr(f, "kind"),
		    jstr(f, "summary"));
}

cJSON *
topology_spread(const cJSON *sp, bool tx, char *err)
{
	const cJSON *arr, *l;
	double bytes[32], total = 0;
	const char *names[32], *roles[32];
	int n = 0, i, paths = 0, onlylocal = 1;
	cJSON *o, *la, *un;

	if (json_get_arr(sp, "links", 0, 32, &arr, NULL, err) == -1)
		return NULL;
	cJSON_ArrayForEach(l, arr) {
		if (json_get_str(l, "name", 1, 15, &names[n], err) == -1 ||
		    json_get_str(l, "role", 1, 16, &roles[n], err) == -1 ||
		    json_get_double(l, tx ? "tx_bytes" : "rx_bytes", 0, 1e18,
		    &bytes[n], err) == -1)
			return NULL;
		if (strcmp(roles[n], "local") != 0)
			onlylocal = 0;
		n++;
	}
	o = cJSON_CreateObject();
	la = cJSON_AddArrayToObject(o, "links");
	un = cJSON_AddArrayToObject(o, "unused");
	for (i = 0; i < n; i++)
		if (onlylocal || strcmp(roles[i], "local") != 0)
			total += bytes[i];
	for (i = 0; i < n; i++) {
		cJSON *x;

		if (!onlylocal && strcmp(roles[i], "local") == 0)
			continue;
		paths++;
		x = cJSON_CreateObject();
		cJSON_AddStringToObject(x, "name", names[i]);
		cJSON_AddStringToObject(x, "role", roles[i]);
		cJSON_AddNumberToObject(x, "bytes", bytes[i]);
		cJSON_AddNumberToObject(x, "share", total > 0 ?
		    round(bytes[i] / total * 1000) / 1000 : 0);
		cJSON_AddItemToArray(la, x);
		if (total > 1e6 && bytes[i] < total / 100)
			cJSON_AddItemToArray(un, cJSON_CreateString(names[i]));
	}
	cJSON_AddNumberToObject(o, "paths", paths);
	return o;
}

void
topology_cell_cb(const cJSON *c, void *arg)
{
	cJSON *h;
	char err[CF_ERRLEN];
	const char *name;
	const cJSON *data;

	if (json_get_str(c, "src", 1, 64, &name, err) == -1 ||
	    json_get_obj(c, "data", &data, err) == -1)
		return;
	h = cJSON_CreateObject();
	cJSON_AddStringToObject(h, "name", name);
	cJSON_AddItemToObject(h, "facts", cJSON_Duplicate(data, 1));
	cJSON_AddItemToArray(arg, h);
}
