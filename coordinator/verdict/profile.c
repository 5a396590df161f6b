/* profile: acceptance profiles (configs/profiles/NAME.conf): parsed from
 * a file, stored with a run as JSON and read back, see verdict.h. */
#include "verdict/verdict.h"
#include "ini.h"
#include "json.h"
#include "units.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void
profile_defaults(struct profile *p)
{
	memset(p, 0, sizeof(*p));
	snprintf(p->name, sizeof(p->name), "default");
	p->line_gbps = 10;
	p->min_pct = 70;
	p->max_rpg = 100;
	p->max_p99_us = 2000;
	p->latency_k = 5;
	p->asym_pct = 30;
	p->imbalance_pct = 50;
	p->required_mtu = 0;
}

bool
profile_rtt_high(const struct profile *p, double q, double med, int nmed)
{
	return q > p->max_p99_us || (isfinite(med) && nmed >= 4 &&
	    q > p->latency_k * med && q > med + 200);
}

int
profile_rtt_suspects(const struct profile *p, const double *q, int n,
    unsigned char *pick)
{
	double *x = malloc((size_t)(n + 1) * sizeof(*x)), med;
	int i, nx = 0, nhigh = 0;

	if (x == NULL)
		return 0;
	for (i = 0; i < n; i++)
		if (isfinite(q[i]))
			x[nx++] = q[i];
	med = finding_median(x, nx);
	free(x);
	for (i = 0; i < n; i++)
		nhigh += pick[i] = isfinite(q[i]) &&
		    profile_rtt_high(p, q[i], med, nx);
	/* As findings.c judges a fabric-wide latency: one finding, no pair
	 * is a suspect of its own. */
	if (nhigh > 16 && nhigh > n / 4) {
		memset(pick, 0, (size_t)n);
		nhigh = 0;
	}
	return nhigh;
}

static int
profile_section(void *u, const char *kind, const char *name, int line, char *err)
{
	(void)u, (void)name;
	(void)line;
	if (strcmp(kind, "profile") != 0) {
		snprintf(err, CF_ERRLEN, "unknown section [%s] (only "
		    "[profile])", kind);
		return -1;
	}
	return 0;
}

static int
profile_num(const char *key, const char *val, double min, double max,
    double *out, char *err)
{
	if (units_number(val, min, max, out) == -1) {
		snprintf(err, CF_ERRLEN, "%s: '%s' is not a number in [%g, %g]",
		    key, val, min, max);
		return -1;
	}
	return 0;
}

/* The profile's numeric keys: their range and their field. */
static const struct profile_key {
	const char *key;
	double min, max;
	size_t off;
} profile_nums[] = {
	{ "line_rate_gbps", 0.001, 10000, offsetof(struct profile, line_gbps) },
	{ "min_bandwidth_pct", 1, 100, offsetof(struct profile, min_pct) },
	{ "max_imbalance_pct", 1, 100, offsetof(struct profile,
	    imbalance_pct) },
	{ "min_load_pct", 1, 100, offsetof(struct profile, load_pct) },
	{ "max_retransmits_per_gb", 0, 1e9, offsetof(struct profile, max_rpg) },
	{ "max_rtt_p99_us", 1, 1e9, offsetof(struct profile, max_p99_us) },
	{ "latency_factor", 1, 1000, offsetof(struct profile, latency_k) },
	{ "max_asymmetry_pct", 1, 100, offsetof(struct profile, asym_pct) },
	{ NULL, 0, 0, 0 }
};

static int
profile_pair(void *u, const char *key, const char *val, int line, char *err)
{
	struct profile *p = u;
	const struct profile_key *n;
	double d;

	(void)line;
	if (strcmp(key, "name") == 0) {
		snprintf(p->name, sizeof(p->name), "%s", val);
		return 0;
	}
	for (n = profile_nums; n->key; n++)
		if (strcmp(key, n->key) == 0)
			return profile_num(key, val, n->min, n->max,
			    (double *)(void *)((char *)p + n->off), err);
	if (strcmp(key, "required_mtu") == 0) {
		if (profile_num(key, val, 0, 65535, &d, err) == -1)
			return -1;
		p->required_mtu = (uint32_t)d;
		return 0;
	}
	if (strcmp(key, "required_ports") == 0) {
		char buf[512], *t, *save = NULL;

		snprintf(buf, sizeof(buf), "%s", val);
		p->nports = 0;
		for (t = strtok_r(buf, ", ", &save); t;
		    t = strtok_r(NULL, ", ", &save)) {
			if (p->nports == 64 || profile_num(key, t, 1, 65535, &d,
			    err) == -1) {
				if (p->nports == 64)
					snprintf(err, CF_ERRLEN, "%s: more than "
					    "64 ports", key);
				return -1;
			}
			p->ports[p->nports++] = (uint16_t)d;
		}
		return 0;
	}
	snprintf(err, CF_ERRLEN, "unknown key '%s'", key);
	return -1;
}

int
profile_parse_buf(const char *name, const char *text, size_t len,
    struct profile *p, char *err)
{
	struct ini_handler h = { profile_section, profile_pair };

	profile_defaults(p);
	return ini_parse_buf(name, text, len, &h, p, err);
}

cJSON *
profile_to_json(const struct profile *p)
{
	cJSON *j = cJSON_CreateObject(), *a;
	int i;

	cJSON_AddStringToObject(j, "name", p->name);
	cJSON_AddNumberToObject(j, "line_gbps", p->line_gbps);
	cJSON_AddNumberToObject(j, "min_pct", p->min_pct);
	cJSON_AddNumberToObject(j, "max_rpg", p->max_rpg);
	cJSON_AddNumberToObject(j, "max_p99_us", p->max_p99_us);
	cJSON_AddNumberToObject(j, "latency_k", p->latency_k);
	cJSON_AddNumberToObject(j, "asym_pct", p->asym_pct);
	cJSON_AddNumberToObject(j, "imbalance_pct", p->imbalance_pct);
	cJSON_AddNumberToObject(j, "load_pct", p->load_pct);
	cJSON_AddNumberToObject(j, "required_mtu", p->required_mtu);
	a = cJSON_AddArrayToObject(j, "ports");
	for (i = 0; i < p->nports; i++)
		cJSON_AddItemToArray(a, cJSON_CreateNumber(p->ports[i]));
	return j;
}

int
profile_from_json(const cJSON *j, struct profile *p, char *err)
{
	const cJSON *a, *v;
	int n;

	profile_defaults(p);
	if (json_get_strcpy(j, "name", 0, p->name, sizeof(p->name), err) == -1 ||
	    json_get_double(j, "line_gbps", 0, 1e6, &p->line_gbps, err) == -1 ||
	    json_get_double(j, "min_pct", 0, 100, &p->min_pct, err) == -1 ||
	    json_get_double(j, "max_rpg", 0, 1e12, &p->max_rpg, err) == -1 ||
	    json_get_double(j, "max_p99_us", 0, 1e12, &p->max_p99_us, err) == -1 ||
	    json_get_double(j, "latency_k", 0, 1e6, &p->latency_k, err) == -1 ||
	    json_get_double(j, "asym_pct", 0, 1e6, &p->asym_pct, err) == -1 ||
	    json_get_double(j, "imbalance_pct", 0, 1e6, &p->imbalance_pct,
	    err) == -1 ||
	    json_get_double(j, "load_pct", 0, 100, &p->load_pct, err) == -1 ||
	    json_get_u32(j, "required_mtu", 0, 65535, &p->required_mtu,
	    err) == -1 ||
	    json_get_arr(j, "ports", 0, 64, &a, &n, err) == -1)
		return -1;
	p->nports = 0;
	cJSON_ArrayForEach(v, a) {
		if (!cJSON_IsNumber(v) || v->valuedouble < 1 ||
		    v->valuedouble > 65535) {
			snprintf(err, CF_ERRLEN, "ports[%d]: not a port",
			    p->nports);
			return -1;
		}
		p->ports[p->nports++] = (uint16_t)v->valuedouble;
	}
	return 0;
}

int
profile_load(const char *path, struct profile *p, char *err)
{
	struct ini_handler h = { profile_section, profile_pair };

	profile_defaults(p);
	return ini_parse_file(path, &h, p, err);
}
