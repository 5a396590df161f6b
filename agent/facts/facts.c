/* facts: the FACTS request, see facts.h. */
#include "facts/facts.h"
#include "child.h"
#include "log.h"
#include "msg.h"
#include "facts/netlink.h"
#include "facts/ovs.h"
#include "json.h"

#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define FACTS_MAX_PEERS 4096
#define FACTS_MAX_JOBS 4
#define VTYSH_SECS 5		/* one vtysh call */
#define VTYSH_MAX_OUT (4 << 20)

struct facts_job {
	TAILQ_ENTRY(facts_job) entry;
	struct facts_ctx *fc;
	struct conn *owner;		/* NULL once it went away */
	cJSON *peers;			/* owned copy */
	bool frr;
	pthread_t th;
	ev_async done;
	cJSON *result;
};

/* vtysh_json runs vtysh with one command in a child (child.h), bounded
 * by VTYSH_SECS and VTYSH_MAX_OUT, and parses its JSON. NULL with err. */
static cJSON *
vtysh_json(const struct agent_config *cfg, const char *cmd, char *err)
{
	const char *argv[8];
	char *out = NULL;
	size_t len = 0;
	int k = 0, rc;
	cJSON *j;

	argv[k++] = cfg->vtysh;
	if (cfg->frr_pathspace[0]) {
		argv[k++] = "-N";
		argv[k++] = cfg->frr_pathspace;
	}
	argv[k++] = "-c";
	argv[k++] = cmd;
	argv[k] = NULL;
	rc = child_run(argv, VTYSH_SECS, 0, &out, &len, VTYSH_MAX_OUT, err);
	if (rc != 0 || out == NULL) {
		if (rc != -1)
			snprintf(err, CF_ERRLEN, "vtysh -c '%s': exit status %d",
			    cmd, rc);
		else if (strstr(err, "no answer"))
			snprintf(err, CF_ERRLEN, "vtysh -c '%s': no answer in "
			    "%d s", cmd, VTYSH_SECS);
		free(out);
		return NULL;
	}
	j = cJSON_ParseWithLength(out, len);
	free(out);
	if (j == NULL)
		snprintf(err, CF_ERRLEN, "vtysh -c '%s': not JSON", cmd);
	return j;
}

static void
sysctl_num(cJSON *o, const char *key, const char *path)
{
	char b[64];
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd == -1)
		return;
	n = read(fd, b, sizeof(b) - 1);
	close(fd);
	if (n <= 0)
		return;
	b[n] = '\0';
	b[strcspn(b, "\n")] = '\0';
	if (b[0] >= '0' && b[0] <= '9')
		cJSON_AddNumberToObject(o, key, strtod(b, NULL));
	else
		cJSON_AddStringToObject(o, key, b);
}

static cJSON *
sysctls(const struct link_fact *l, int n)
{
	cJSON *o = cJSON_CreateObject(), *rp;
	char path[160];
	int i;

	sysctl_num(o, "fib_multipath_hash_policy",
	    "/proc/sys/net/ipv4/fib_multipath_hash_policy");
	sysctl_num(o, "tcp_congestion_control",
	    "/proc/sys/net/ipv4/tcp_congestion_control");
	sysctl_num(o, "rmem_max", "/proc/sys/net/core/rmem_max");
	sysctl_num(o, "wmem_max", "/proc/sys/net/core/wmem_max");
	rp = cJSON_AddObjectToObject(o, "rp_filter");
	sysctl_num(rp, "all", "/proc/sys/net/ipv4/conf/all/rp_filter");
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "/proc/sys/net/ipv4/conf/%s/"
		    "rp_filter", l[i].name);
		sysctl_num(rp, l[i].name, path);
	}
	return o;
}

static void
addresses(cJSON *links)
{
	struct ifaddrs *ifa, *i;
	cJSON *l;

	if (getifaddrs(&ifa) == -1)
		return;
	for (i = ifa; i; i = i->ifa_next) {
		struct netaddr a, m;
		char b[NETADDR_STRLEN + 8], s[NETADDR_STRLEN];
		unsigned bits;

		if (i->ifa_addr == NULL || i->ifa_netmask == NULL ||
		    netaddr_from_sockaddr(i->ifa_addr, &a, NULL) == -1 ||
		    netaddr_from_sockaddr(i->ifa_netmask, &m, NULL) == -1)
			continue;
		bits = netaddr_mask_bits(&m);
		snprintf(b, sizeof(b), "%s/%u", netaddr_str(&a, s, sizeof(s)),
		    bits);
		cJSON_ArrayForEach(l, links) {
			const cJSON *nm = cJSON_GetObjectItem(l, "name");

			if (cJSON_IsString(nm) && strcmp(nm->valuestring,
			    i->ifa_name) == 0) {
				cJSON *arr = cJSON_GetObjectItem(l,
				    "addresses");

				if (arr == NULL)
					arr = cJSON_AddArrayToObject(l,
					    "addresses");
				cJSON_AddItemToArray(arr,
				    cJSON_CreateString(b));
			}
		}
	}
	freeifaddrs(ifa);
}

/* ovs_add: the host's Open vSwitch bonds among the links, and whether
 * there is one ("ovs": {"available", "error"}); the spread's map with it. */
static void
ovs_add(const struct agent_config *cfg, cJSON *doc, cJSON *links,
    const struct link_fact *l, int n)
{
	struct ovs_state *st = malloc(sizeof(*st));
	cJSON *o = cJSON_AddObjectToObject(doc, "ovs");
	char err[CF_ERRLEN] = "out of memory";
	int rc = st ? ovs_collect(cfg, st, err) : -1;

	cJSON_AddBoolToObject(o, "available", rc == 1);
	if (rc == -1)
		cJSON_AddStringToObject(o, "error", err);
	if (rc == 1) {
		ovs_facts(st, l, n, links);
		ovs_map_store(st);
	}
	free(st);
}

cJSON *
facts_collect(const struct agent_config *cfg, const cJSON *peers, bool frr)
{
	cJSON *doc = cJSON_CreateObject(), *links, *routes, *f;
	struct link_fact *l = NULL;
	char err[CF_ERRLEN], host[256];
	const cJSON *p;
	int n = 0, i;

	if (gethostname(host, sizeof(host) - 1) == 0) {
		host[sizeof(host) - 1] = '\0';
		cJSON_AddStringToObject(doc, "hostname", host);
	}
	links = cJSON_AddArrayToObject(doc, "links");
	if (netlink_links(&l, &n, err) == -1)
		cJSON_AddStringToObject(doc, "links_error", err);
	for (i = 0; i < n; i++)
		cJSON_AddItemToArray(links, netlink_link_json(&l[i], l, n));
	addresses(links);
	ovs_add(cfg, doc, links, l, n);
	cJSON_AddItemToObject(doc, "sysctl", sysctls(l, n));
	free(l);
	routes = cJSON_AddArrayToObject(doc, "routes");
	cJSON_ArrayForEach(p, peers) {
		struct netaddr a;
		struct route_fact rf;
		cJSON *r;

		if (!cJSON_IsString(p) || netaddr_parse(p->valuestring,
		    &a) == -1)
			continue;
		if (netlink_route(&a, &rf, err) == -1) {
			r = cJSON_CreateObject();
			cJSON_AddStringToObject(r, "error", err);
		} else {
			r = netlink_route_json(&rf);
		}
		cJSON_AddStringToObject(r, "peer", p->valuestring);
		cJSON_AddItemToArray(routes, r);
	}
	if (!frr)
		return doc;
	f = cJSON_AddObjectToObject(doc, "frr");
	if (cfg->vtysh[0] == '\0' || access(cfg->vtysh, X_OK) != 0) {
		cJSON_AddBoolToObject(f, "available", false);
		cJSON_AddStringToObject(f, "error", "no vtysh");
		return doc;
	}
	{
		static const struct { const char *key, *cmd; } q[] = {
			{ "ospf_neighbors", "show ip ospf neighbor json" },
			{ "bgp_summary", "show bgp summary json" },
			{ "bfd_peers", "show bfd peers json" },
		};
		cJSON *errs = NULL, *rt;
		int ok = 0;

		for (i = 0; i < 3; i++) {
			cJSON *j = vtysh_json(cfg, q[i].cmd, err);

			if (j) {
				cJSON_AddItemToObject(f, q[i].key, j);
				ok++;
				continue;
			}
			if (errs == NULL)
				errs = cJSON_AddObjectToObject(f, "errors");
			cJSON_AddStringToObject(errs, q[i].key, err);
		}
		cJSON_AddBoolToObject(f, "available", ok > 0);
		if (!ok)
			return doc;
		/* FRR's route to each peer: installed, and its paths. */
		rt = cJSON_AddObjectToObject(f, "routes");
		cJSON_ArrayForEach(p, peers) {
			char cmd[96];
			cJSON *j;

			if (!cJSON_IsString(p) || strlen(p->valuestring) > 45 ||
			    cJSON_GetObjectItem(rt, p->valuestring))
				continue;
			snprintf(cmd, sizeof(cmd), "show %s route %s json",
			    strchr(p->valuestring, ':') ? "ipv6" : "ip",
			    p->valuestring);
			if ((j = vtysh_json(cfg, cmd, err)) != NULL)
				cJSON_AddItemToObject(rt, p->valuestring, j);
		}
	}
	return doc;
}

/* --- the request ---------------------------------------------------------- */

static void *
facts_thread(void *arg)
{
	struct facts_job *j = arg;

	j->result = facts_collect(j->fc->cfg, j->peers, j->frr);
	ev_async_send(j->fc->loop, &j->done);
	return NULL;
}

static void
job_free(struct facts_job *j)
{
	struct facts_ctx *fc = j->fc;

	pthread_join(j->th, NULL);
	ev_async_stop(fc->loop, &j->done);
	TAILQ_REMOVE(&fc->jobs, j, entry);
	fc->running--;
	cJSON_Delete(j->peers);
	cJSON_Delete(j->result);
	free(j);
}

static void
facts_done_cb(struct ev_loop *loop, ev_async *w, int revents)
{
	struct facts_job *j = w->data;

	(void)loop, (void)revents;
	if (j->result == NULL)
		return;		/* a wake-up before the thread's */
	if (j->owner) {
		char *t = cJSON_PrintUnformatted(j->result);

		/* Many peers' FRR routes could pass the message limit: the
		 * kernel's routes are kept, FRR's per-peer routes go. */
		if (t && strlen(t) > msg_limit(MSG_FACTS) - 1024) {
			cJSON *f = cJSON_GetObjectItem(j->result, "frr");

			cJSON_DeleteItemFromObject(f, "routes");
			cJSON_AddStringToObject(f, "routes_dropped", "over the "
			    "FACTS message limit");
		}
		free(t);
		conn_send(j->owner, MSG_FACTS, MSG_F_REPLY, j->result);
	}
	job_free(j);
}

static void
facts_refuse(struct conn *c, const char *msg)
{
	cJSON *b = cJSON_CreateObject();

	log_warnx("%s: FACTS refused: %s", c->peer, msg);
	cJSON_AddStringToObject(b, "error", msg);
	conn_send(c, MSG_FACTS, MSG_F_REPLY, b);
	cJSON_Delete(b);
}

void
facts_init(struct facts_ctx *fc, struct ev_loop *loop,
    const struct agent_config *cfg)
{
	*fc = (struct facts_ctx){ .loop = loop, .cfg = cfg };
	TAILQ_INIT(&fc->jobs);
}

int
facts_message(struct facts_ctx *fc, struct conn *c, const struct frame_hdr *h,
    const cJSON *body)
{
	const cJSON *peers, *e;
	struct facts_job *j;
	char err[CF_ERRLEN];
	int n, i = 0;
	bool frr;

	if (h->type != MSG_FACTS || (h->flags & MSG_F_REPLY))
		return 0;
	if (json_opt_arr(body, "peers", FACTS_MAX_PEERS, &peers, &n, err) == -1 ||
	    json_opt_bool(body, "frr", true, &frr, err) == -1) {
		facts_refuse(c, err);
		return 1;
	}
	cJSON_ArrayForEach(e, peers) {
		struct netaddr a;

		if (!cJSON_IsString(e) || netaddr_parse(e->valuestring,
		    &a) == -1) {
			snprintf(err, sizeof(err), "field 'peers[%d]': not an "
			    "address", i);
			facts_refuse(c, err);
			return 1;
		}
		i++;
	}
	if (fc->running >= FACTS_MAX_JOBS) {
		facts_refuse(c, "busy: facts requests already running");
		return 1;
	}
	j = calloc(1, sizeof(*j));
	if (j == NULL) {
		facts_refuse(c, "out of memory");
		return 1;
	}
	j->fc = fc;
	j->owner = c;
	j->frr = frr;
	j->peers = peers ? cJSON_Duplicate(peers, 1) : cJSON_CreateArray();
	ev_async_init(&j->done, facts_done_cb);
	j->done.data = j;
	ev_async_start(fc->loop, &j->done);
	TAILQ_INSERT_TAIL(&fc->jobs, j, entry);
	fc->running++;
	if (pthread_create(&j->th, NULL, facts_thread, j) != 0) {
		ev_async_stop(fc->loop, &j->done);
		TAILQ_REMOVE(&fc->jobs, j, entry);
		fc->running--;
		cJSON_Delete(j->peers);
		free(j);
		facts_refuse(c, "cannot start a thread");
	}
	return 1;
}

void
facts_conn_closed(struct facts_ctx *fc, struct conn *c)
{
	struct facts_job *j;

	TAILQ_FOREACH(j, &fc->jobs, entry)
		if (j->owner == c)
			j->owner = NULL;
}

void
facts_fini(struct facts_ctx *fc)
{
	while (!TAILQ_EMPTY(&fc->jobs))
		job_free(TAILQ_FIRST(&fc->jobs));
}
