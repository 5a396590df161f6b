/* ovs: Open vSwitch bonds for the facts and the spread, see ovs.h. */
#include "facts/ovs.h"
#include "child.h"
#include "json.h"
#include "log.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define OVS_SECS 5			/* one ovs-appctl call */
#define OVS_MAX_OUT (1 << 20)
#define OVS_LINE 512

/* --- parsing ------------------------------------------------------------ */

/* next_line copies the line at *p into buf (cut at OVS_LINE - 1, the rest
 * skipped) and moves *p past it; false at the end. */
static bool
next_line(const char **p, char *buf)
{
	const char *s = *p, *e;
	size_t n;

	if (*s == '\0')
		return false;
	e = strchr(s, '\n');
	n = e ? (size_t)(e - s) : strlen(s);
	*p = e ? e + 1 : s + n;
	if (n > OVS_LINE - 1)
		n = OVS_LINE - 1;
	memcpy(buf, s, n);
	buf[n] = '\0';
	while (n > 0 && (buf[n - 1] == '\r' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	return true;
}

/* copy_name: the token at s up to a character in stop, into dst (false
 * when empty or too long to keep). */
static bool
copy_name(char *dst, size_t sz, const char *s, const char *stop)
{
	size_t n = strcspn(s, stop);

	if (n == 0 || n >= sz)
		return false;
	memcpy(dst, s, n);
	dst[n] = '\0';
	return true;
}

/* header: "---- NAME ----" gives NAME. */
static bool
header(const char *line, char *name)
{
	size_t n = strlen(line);

	if (strncmp(line, "---- ", 5) != 0 || n < 11 ||
	    strcmp(line + n - 5, " ----") != 0 || n - 10 >= OVS_NAMELEN)
		return false;
	memcpy(name, line + 5, n - 10);
	name[n - 10] = '\0';
	return name[0] != '\0';
}

static struct ovs_bond *
bond_get(struct ovs_state *st, const char *name, bool add)
{
	int i;

	for (i = 0; i < st->nbonds; i++)
		if (strcmp(st->bonds[i].name, name) == 0)
			return &st->bonds[i];
	if (!add || st->nbonds == OVS_MAX_BONDS)
		return NULL;
	memset(&st->bonds[st->nbonds], 0, sizeof(st->bonds[0]));
	snprintf(st->bonds[st->nbonds].name, OVS_NAMELEN, "%s", name);
	return &st->bonds[st->nbonds++];
}

static struct ovs_member *
member_get(struct ovs_bond *b, const char *name)
{
	int i;

	for (i = 0; i < b->nmem; i++)
		if (strcmp(b->mem[i].name, name) == 0)
			return &b->mem[i];
	if (b->nmem == OVS_MAX_MEMBERS)
		return NULL;
	memset(&b->mem[b->nmem], 0, sizeof(b->mem[0]));
	snprintf(b->mem[b->nmem].name, OVS_NAMELEN, "%s", name);
	return &b->mem[b->nmem++];
}

/* member_word: "member NAME: REST" (or "slave"), with sep ": " after the
 * word ("member: NAME: REST" in lacp/show); NAME into name, REST out. */
static const char *
member_word(const char *line, bool colon, char *name)
{
	const char *s;

	if (strncmp(line, "member", 6) == 0)
		s = line + 6;
	else if (strncmp(line, "slave", 5) == 0)
		s = line + 5;
	else
		return NULL;
	if (colon && *s++ != ':')
		return NULL;
	if (*s++ != ' ' || !copy_name(name, OVS_NAMELEN, s, ": "))
		return NULL;
	s += strlen(name);
	if (*s++ != ':')
		return NULL;
	while (*s == ' ')
		s++;
	return s;
}

int
ovs_parse_bond_show(const char *text, struct ovs_state *st, char *err)
{
	char line[OVS_LINE], name[OVS_NAMELEN];
	struct ovs_bond *b = NULL;
	struct ovs_member *m = NULL;
	bool seen = false;		/* a header, the bond kept or not */
	const char *v;
	int no = 0;

	while (next_line(&text, line)) {
		no++;
		if (header(line, name)) {
			b = bond_get(st, name, true);
			m = NULL;
			seen = true;
			continue;
		}
		if ((v = member_word(line, false, name)) != NULL) {
			if (!seen) {
				snprintf(err, CF_ERRLEN, "bond/show line %d: a "
				    "member before any bond", no);
				return -1;
			}
			if (b && (m = member_get(b, name)) != NULL)
				m->enabled = strcmp(v, "enabled") == 0;
			continue;
		}
		if (b == NULL)
			continue;
		if (strncmp(line, "bond_mode: ", 11) == 0)
			snprintf(b->mode, sizeof(b->mode), "%s", line + 11);
		else if (strncmp(line, "lacp_status: ", 13) == 0)
			snprintf(b->lacp, sizeof(b->lacp), "%s", line + 13);
		else if (m && strcmp(line, "  may_enable: true") == 0)
			m->may_enable = true;
	}
	return 0;
}

int
ovs_parse_lacp_show(const char *text, struct ovs_state *st, char *err)
{
	char line[OVS_LINE], name[OVS_NAMELEN];
	struct ovs_bond *b = NULL;
	struct ovs_member *m;
	const char *v;
	int no = 0;

	while (next_line(&text, line)) {
		no++;
		if (header(line, name)) {
			/* Only bonds bond/show knew: lacp/show also lists
			 * single ports that run LACP. */
			b = bond_get(st, name, false);
			continue;
		}
		if ((v = member_word(line, true, name)) == NULL)
			continue;
		if (b == NULL)
			continue;
		if ((m = member_get(b, name)) == NULL)
			continue;
		snprintf(m->lacp, sizeof(m->lacp), "%s", v);
	}
	(void)err;
	return 0;
}

int
ovs_parse_dpif_show(const char *text, struct ovs_state *st, char *err)
{
	char line[OVS_LINE], bridge[OVS_NAMELEN] = "";
	int no = 0;

	while (next_line(&text, line)) {
		size_t ind = strspn(line, " ");
		struct ovs_port *p;
		const char *t;

		no++;
		if (ind == 2 && line[strlen(line) - 1] == ':') {
			if (!copy_name(bridge, sizeof(bridge), line + 2, ":"))
				bridge[0] = '\0';
			continue;
		}
		if (ind != 4)
			continue;
		if (bridge[0] == '\0') {
			snprintf(err, CF_ERRLEN, "dpif/show line %d: a port "
			    "before any bridge", no);
			return -1;
		}
		if (st->nports == OVS_MAX_PORTS)
			break;
		p = &st->ports[st->nports];
		memset(p, 0, sizeof(*p));
		if (!copy_name(p->name, sizeof(p->name), line + 4, " "))
			continue;
		snprintf(p->bridge, sizeof(p->bridge), "%s", bridge);
		if ((t = strchr(line, '(')) != NULL)
			copy_name(p->type, sizeof(p->type), t + 1, ":)");
		st->nports++;
	}
	return 0;
}

const char *
ovs_bridge_of(const struct ovs_state *st, const char *name)
{
	int i;

	for (i = 0; i < st->nports; i++)
		if (strcmp(st->ports[i].name, name) == 0)
			return st->ports[i].bridge;
	return NULL;
}

/* bond_bridge: the bridge of a bond's first member that has one. */
static const char *
bond_bridge(const struct ovs_state *st, const struct ovs_bond *b)
{
	const char *br;
	int i;

	for (i = 0; i < b->nmem; i++)
		if ((br = ovs_bridge_of(st, b->mem[i].name)) != NULL)
			return br;
	return NULL;
}

/* --- collecting --------------------------------------------------------- */

static int
appctl(const struct agent_config *cfg, const char *ctl, const char *cmd,
    char **out, char *err)
{
	const char *argv[] = { cfg->ovs_appctl, "-t", ctl, "--timeout=5", cmd,
	    NULL };
	size_t len = 0;
	int rc;

	*out = NULL;
	rc = child_run(argv, OVS_SECS, 0, out, &len, OVS_MAX_OUT, err);
	if (rc == 0 && *out)
		return 0;
	if (rc != -1)
		snprintf(err, CF_ERRLEN, "ovs-appctl %s: exit status %d", cmd,
		    rc);
	else if (strstr(err, "no answer"))
		snprintf(err, CF_ERRLEN, "ovs-appctl %s: no answer in %d s",
		    cmd, OVS_SECS);
	free(*out);
	*out = NULL;
	return -1;
}

/* control_socket: RUNDIR/ovs-vswitchd.PID.ctl from the pid file; 0 when
 * there is none (no OVS here). */
static int
control_socket(const struct agent_config *cfg, char *ctl, size_t sz)
{
	char path[PATH_MAX + 32], b[24];
	ssize_t n;
	long pid;
	char *end;
	int fd;

	if (cfg->ovs_rundir[0] == '\0' || cfg->ovs_appctl[0] == '\0')
		return 0;
	snprintf(path, sizeof(path), "%s/ovs-vswitchd.pid", cfg->ovs_rundir);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return 0;
	n = read(fd, b, sizeof(b) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	b[n] = '\0';
	errno = 0;
	pid = strtol(b, &end, 10);
	if (errno || pid <= 0 || (*end && *end != '\n'))
		return 0;
	snprintf(ctl, sz, "%s/ovs-vswitchd.%ld.ctl", cfg->ovs_rundir, pid);
	return access(ctl, F_OK) == 0;
}

int
ovs_collect(const struct agent_config *cfg, struct ovs_state *st, char *err)
{
	static const char *const cmds[] = { "bond/show", "lacp/show",
	    "dpif/show" };
	int (*const parse[])(const char *, struct ovs_state *, char *) = {
	    ovs_parse_bond_show, ovs_parse_lacp_show, ovs_parse_dpif_show };
	char ctl[PATH_MAX + 48];
	char *out;
	int i;

	memset(st, 0, sizeof(*st));
	if (!control_socket(cfg, ctl, sizeof(ctl)))
		return 0;
	if (access(cfg->ovs_appctl, X_OK) != 0) {
		snprintf(err, CF_ERRLEN, "no %s", cfg->ovs_appctl);
		return -1;
	}
	for (i = 0; i < 3; i++) {
		if (appctl(cfg, ctl, cmds[i], &out, err) == -1)
			return -1;
		if (parse[i](out, st, err) == -1) {
			free(out);
			return -1;
		}
		free(out);
	}
	return 1;
}

/* --- facts ---------------------------------------------------------------- */

static const struct link_fact *
kernel_link(const struct link_fact *l, int n, const char *name)
{
	int i;

	for (i = 0; i < n; i++)
		if (strcmp(l[i].name, name) == 0)
			return &l[i];
	return NULL;
}

/* hash_policy: balance-tcp hashes L3 and L4 (a Linux bond's layer3+4);
 * balance-slb the source MAC and VLAN (every flow between two hosts on
 * one member, as layer2); active-backup does not hash. */
static const char *
hash_policy(const char *mode)
{
	if (strcmp(mode, "balance-tcp") == 0)
		return "layer3+4";
	if (strcmp(mode, "balance-slb") == 0)
		return "layer2";
	return "none";
}

static cJSON *
bond_json(const struct ovs_state *st, const struct ovs_bond *b,
    const struct link_fact *l, int n)
{
	cJSON *o = cJSON_CreateObject(), *bo, *mem;
	const char *br = bond_bridge(st, b);
	bool any = false;
	int i;

	cJSON_AddStringToObject(o, "name", b->name);
	cJSON_AddStringToObject(o, "kind", "ovs-bond");
	if (br)
		cJSON_AddStringToObject(o, "bridge", br);
	bo = cJSON_AddObjectToObject(o, "bond");
	cJSON_AddStringToObject(bo, "source", "ovs");
	cJSON_AddStringToObject(bo, "mode", b->mode[0] ? b->mode : "unknown");
	cJSON_AddStringToObject(bo, "xmit_hash_policy", hash_policy(b->mode));
	cJSON_AddStringToObject(bo, "lacp", b->lacp[0] ? b->lacp : "unknown");
	mem = cJSON_AddArrayToObject(bo, "members");
	for (i = 0; i < b->nmem; i++) {
		const struct ovs_member *m = &b->mem[i];
		const struct link_fact *k = kernel_link(l, n, m->name);
		cJSON *x = cJSON_CreateObject();

		any |= m->enabled;
		cJSON_AddStringToObject(x, "name", m->name);
		cJSON_AddStringToObject(x, "state", m->enabled ? "enabled" :
		    "disabled");
		cJSON_AddBoolToObject(x, "may_enable", m->may_enable);
		/* The member's carrier, from the kernel's own link. */
		cJSON_AddStringToObject(x, "mii", k == NULL ? "unknown" :
		    k->carrier_up && strcmp(k->state, "down") != 0 ? "up" :
		    "down");
		if (m->lacp[0])
			cJSON_AddStringToObject(x, "lacp", m->lacp);
		if (k && k->speed_mbps > 0)
			cJSON_AddNumberToObject(x, "speed_mbps", k->speed_mbps);
		cJSON_AddItemToArray(mem, x);
	}
	cJSON_AddStringToObject(o, "state", any ? "up" : "down");
	return o;
}

static bool
is_member(const struct ovs_state *st, const char *name)
{
	int i, j;

	for (i = 0; i < st->nbonds; i++)
		for (j = 0; j < st->bonds[i].nmem; j++)
			if (strcmp(st->bonds[i].mem[j].name, name) == 0)
				return true;
	return false;
}

void
ovs_facts(const struct ovs_state *st, const struct link_fact *l, int n,
    cJSON *links)
{
	cJSON *x;
	int i;

	/* Kernel links that are OVS ports: their bridge, and for an internal
	 * port the bond that carries it out of the host. */
	cJSON_ArrayForEach(x, links) {
		const cJSON *nm = cJSON_GetObjectItem(x, "name");
		const char *br;

		if (!cJSON_IsString(nm) || (br = ovs_bridge_of(st,
		    nm->valuestring)) == NULL)
			continue;
		cJSON_AddStringToObject(x, "ovs_bridge", br);
		for (i = 0; i < st->nbonds && !is_member(st,
		    nm->valuestring); i++) {
			const char *bb = bond_bridge(st, &st->bonds[i]);

			if (bb && strcmp(bb, br) == 0) {
				cJSON_AddStringToObject(x, "ovs_uplink",
				    st->bonds[i].name);
				break;
			}
		}
	}
	for (i = 0; i < st->nbonds; i++)
		cJSON_AddItemToArray(links, bond_json(st, &st->bonds[i], l, n));
}

/* --- the spread's map ------------------------------------------------------ */

static pthread_mutex_t map_mu = PTHREAD_MUTEX_INITIALIZER;
static struct ovs_state map;

void
ovs_map_store(const struct ovs_state *st)
{
	pthread_mutex_lock(&map_mu);
	map = *st;
	pthread_mutex_unlock(&map_mu);
}

int
ovs_map_members(const char *ifname, char out[][IF_NAMESIZE], int max)
{
	const char *br;
	int i, j, k = 0;

	pthread_mutex_lock(&map_mu);
	if ((br = ovs_bridge_of(&map, ifname)) != NULL)
		for (i = 0; i < map.nbonds; i++) {
			const struct ovs_bond *b = &map.bonds[i];
			const char *bb = bond_bridge(&map, b);

			if (bb == NULL || strcmp(bb, br) != 0)
				continue;
			for (j = 0; j < b->nmem && k < max; j++)
				if (strlen(b->mem[j].name) < IF_NAMESIZE)
					snprintf(out[k++], IF_NAMESIZE, "%s",
					    b->mem[j].name);
		}
	pthread_mutex_unlock(&map_mu);
	return k;
}

static void *
refresh_thread(void *arg)
{
	const struct agent_config *cfg = arg;
	struct ovs_state *st = malloc(sizeof(*st));
	char err[CF_ERRLEN];
	int rc;

	if (st == NULL)
		return NULL;
	if ((rc = ovs_collect(cfg, st, err)) == 1)
		ovs_map_store(st);
	else if (rc == -1)
		log_warnx("open vswitch: %s", err);
	free(st);
	return NULL;
}

void
ovs_map_refresh_async(const struct agent_config *cfg)
{
	pthread_attr_t a;
	pthread_t th;

	if (cfg->ovs_rundir[0] == '\0')
		return;
	pthread_attr_init(&a);
	pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
	if (pthread_create(&th, &a, refresh_thread, (void *)cfg) != 0)
		log_warnx("open vswitch: cannot start a thread");
	pthread_attr_destroy(&a);
}
