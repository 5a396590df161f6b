/* findings: classify a measured matrix, see findings.h. */
#include "verdict/verdict.h"
#include "ini.h"
#include "json.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define AT(a, i, j) ((a)[(i) * v->n + (j)])

static int
dcmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double
median(double *x, int n)
{
	if (n == 0)
		return NAN;
	qsort(x, (size_t)n, sizeof(*x), dcmp);
	return n % 2 ? x[n / 2] : (x[n / 2 - 1] + x[n / 2]) / 2;
}

static cJSON *
add(cJSON *out, const char *kind, const char *sev, const struct mview *v,
    int a, int b, const char *hint, const char *fmt, ...)
    __attribute__((format(printf, 8, 9)));

static cJSON *
add(cJSON *out, const char *kind, const char *sev, const struct mview *v,
    int a, int b, const char *hint, const char *fmt, ...)
{
	cJSON *f = cJSON_CreateObject(), *hosts;
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	cJSON_AddStringToObject(f, "kind", kind);
	cJSON_AddStringToObject(f, "severity", sev);
	cJSON_AddStringToObject(f, "network", v->net);
	hosts = cJSON_AddArrayToObject(f, "hosts");
	if (a >= 0 && b >= 0 && strcmp(v->names[b], v->names[a]) < 0) {
		int t = a;

		a = b;
		b = t;
	}
	if (a >= 0)
		cJSON_AddItemToArray(hosts, cJSON_CreateString(v->names[a]));
	if (b >= 0)
		cJSON_AddItemToArray(hosts, cJSON_CreateString(v->names[b]));
	cJSON_AddStringToObject(f, "summary", msg);
	cJSON_AddObjectToObject(f, "evidence");
	cJSON_AddStringToObject(f, "hint", hint);
	cJSON_AddItemToArray(out, f);
	return f;
}

static void
ev_num(cJSON *f, const char *k, double x)
{
	cJSON *e = cJSON_GetObjectItem(f, "evidence");

	if (isfinite(x))
		cJSON_AddNumberToObject(e, k, x);
}

/* pair_p99: the worse direction's RTT p99 of a pair, 0 if unmeasured. */
static double
pair_p99(const struct mview *v, int i, int j)
{
	return fmax(isfinite(AT(v->p99, i, j)) ? AT(v->p99, i, j) : 0,
	    isfinite(AT(v->p99, j, i)) ? AT(v->p99, j, i) : 0);
}

/* rtt_high: over the profile's limit, or k times the fabric's median and
 * clearly above noise. */
static bool
rtt_high(double q, const struct profile *p, double med, int nmed)
{
	return q > p->max_p99_us || (isfinite(med) && nmed >= 4 &&
	    q > p->latency_k * med && q > med + 200);
}

int
findings_compute(const struct mview *v, const struct profile *p, cJSON *out)
{
	int n = v->n, i, j, errors = 0, k;
	double thr = p->line_gbps * p->min_pct / 100.0;
	int *slow = calloc((size_t)(n * n), sizeof(int));
	int *done = calloc((size_t)(n * n), sizeof(int));
	int *slow_host = calloc((size_t)n, sizeof(int));
	double *tmp = malloc((size_t)(n * n + 1) * sizeof(double));
	double med = NAN;	/* the fabric's median RTT p99 */
	int nmed = 0;
	bool rtt_wide = false;	/* one finding for the whole fabric */
	cJSON *f;

	if (!slow || !done || !slow_host || !tmp)
		goto out;
	for (k = 0; v->p99 && k < n * n; k++)
		if (isfinite(v->p99[k]))
			tmp[nmed++] = v->p99[k];
	med = median(tmp, nmed);
	/* An MTU black hole stalls every large-packet test on its path:
	 * it is the finding for that pair, not 'unreachable' or 'slow'. */
	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++)
			if (i != j && v->mtu_path &&
			    isfinite(AT(v->mtu_path, i, j)) &&
			    (AT(v->mtu_path, i, j) < AT(v->mtu_conf, i, j) ||
			    AT(v->mtu_path, i, j) < p->required_mtu))
				AT(done, i, j) = AT(done, j, i) = 1;
	/* Lost cells first: nothing else can be said about them. */
	for (i = 0; i < n; i++) {
		for (j = i + 1; j < n; j++) {
			if (!(v->lost && (AT(v->lost, i, j) || AT(v->lost, j,
			    i))) || AT(done, i, j))
				continue;
			f = add(out, "unreachable", "error", v, i, j,
			    "check the agents, the links and the firewall on "
			    "both hosts", "%s and %s could not be measured on "
			    "the %s network: %s", v->names[i], v->names[j],
			    v->net, v->lost_why && AT(v->lost_why, i, j) ?
			    AT(v->lost_why, i, j) : v->lost_why &&
			    AT(v->lost_why, j, i) ? AT(v->lost_why, j, i) :
			    "no answer");
			(void)f;
			errors++;
			AT(done, i, j) = AT(done, j, i) = 1;
		}
	}
	/* Slow cells against the profile's floor. */
	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++)
			if (i != j && v->gbps && isfinite(AT(v->gbps, i, j)) &&
			    AT(v->gbps, i, j) < thr && !AT(done, i, j))
				AT(slow, i, j) = 1;
	/* A slow host: most of its cells, both ways, are slow while the
	 * rest of the fabric is not. */
	for (i = 0; i < n && v->gbps; i++) {
		int mine = 0, mine_slow = 0, other = 0, other_slow = 0;

		for (j = 0; j < n; j++) {
			if (i == j)
				continue;
			for (k = 0; k < 2; k++) {
				int a = k ? j : i, b = k ? i : j;

				if (!isfinite(AT(v->gbps, a, b)) ||
				    AT(done, a, b))
					continue;
				mine++;
				mine_slow += AT(slow, a, b);
			}
		}
		for (j = 0; j < n; j++)
			for (k = 0; k < n; k++)
				if (j != k && j != i && k != i &&
				    isfinite(AT(v->gbps, j, k))) {
					other++;
					other_slow += AT(slow, j, k);
				}
		if (mine >= 4 && mine_slow * 4 >= mine * 3 &&
		    (other == 0 || other_slow * 2 < other))
			slow_host[i] = 1;
	}
	for (i = 0; i < n; i++) {
		int m = 0;

		if (!slow_host[i])
			continue;
		for (j = 0; j < n; j++) {
			if (j == i)
				continue;
			if (isfinite(AT(v->gbps, i, j)))
				tmp[m++] = AT(v->gbps, i, j);
			if (isfinite(AT(v->gbps, j, i)))
				tmp[m++] = AT(v->gbps, j, i);
			AT(done, i, j) = AT(done, j, i) = 1;
		}
		f = add(out, "slow_host", "error", v, i, -1, "check this "
		    "host's NIC, driver, cable and switch port",
		    "%s is slow with every peer on the %s network: median "
		    "%.2f Gbit/s against a floor of %.2f", v->names[i], v->net,
		    median(tmp, m), thr);
		ev_num(f, "median_gbps", median(tmp, m));
		ev_num(f, "floor_gbps", thr);
		errors++;
	}
	/* A rack uplink: pairs between two racks slow, inside both fine. */
	if (v->rack && v->gbps) {
		int ra, rb, maxr = 0;

		for (i = 0; i < n; i++)
			if (v->rack[i] > maxr)
				maxr = v->rack[i];
		for (ra = 0; ra <= maxr; ra++) {
			for (rb = ra + 1; rb <= maxr; rb++) {
				int cross = 0, cslow = 0, in = 0, islow = 0, m = 0;
				int ha = -1, hb = -1;

				for (i = 0; i < n; i++) {
					for (j = 0; j < n; j++) {
						if (i == j || slow_host[i] ||
						    slow_host[j] ||
						    !isfinite(AT(v->gbps, i, j)))
							continue;
						if ((v->rack[i] == ra &&
						    v->rack[j] == rb) ||
						    (v->rack[i] == rb &&
						    v->rack[j] == ra)) {
							cross++;
							cslow += AT(slow, i, j);
							tmp[m++] = AT(v->gbps,
							    i, j);
							if (ha < 0 &&
							    v->rack[i] == ra)
								ha = i;
							if (hb < 0 &&
							    v->rack[j] == rb)
								hb = j;
						} else if (v->rack[i] ==
						    v->rack[j] &&
						    (v->rack[i] == ra ||
						    v->rack[i] == rb)) {
							in++;
							islow += AT(slow, i, j);
						}
					}
				}
				if (cross < 4 || cslow * 4 < cross * 3 ||
				    in == 0 || islow * 4 >= in)
					continue;
				for (i = 0; i < n; i++)
					for (j = 0; j < n; j++)
						if ((v->rack[i] == ra &&
						    v->rack[j] == rb) ||
						    (v->rack[i] == rb &&
						    v->rack[j] == ra))
							AT(done, i, j) = 1;
				f = add(out, "rack_uplink", "error", v, ha, hb,
				    "check the uplinks and spine ports between "
				    "these racks", "pairs between the racks of "
				    "%s and %s are slow on the %s network "
				    "(median %.2f Gbit/s, floor %.2f) while "
				    "pairs inside each rack are not",
				    v->names[ha], v->names[hb], v->net,
				    median(tmp, m), thr);
				ev_num(f, "median_gbps", median(tmp, m));
				errors++;
			}
		}
	}
	/* High latency on most pairs is the fabric's (or the hosts' CPUs'),
	 * not each pair's: one finding then, not thousands. */
	if (v->p99) {
		int nhigh = 0, npairs = 0, wi = 0, wj = 0;
		double worst = 0, q;

		for (i = 0; i < n; i++)
			for (j = i + 1; j < n; j++) {
				q = pair_p99(v, i, j);
				npairs += q > 0;
				if (!rtt_high(q, p, med, nmed))
					continue;
				nhigh++;
				if (q > worst) {
					worst = q;
					wi = i;
					wj = j;
				}
			}
		if (nhigh > 16 && nhigh > npairs / 4) {
			rtt_wide = true;
			f = add(out, "high_latency", "warn", v, -1, -1, "the "
			    "whole fabric: look for a shared congested link, "
			    "policing, or hosts too busy to answer in time",
			    "RTT p99 over the limit on %d of %d pairs on the "
			    "%s network (limit %.0f us, fabric median %.0f us, "
			    "worst %s <-> %s %.0f us)", nhigh, npairs, v->net,
			    p->max_p99_us, med, v->names[wi], v->names[wj],
			    worst);
			ev_num(f, "pairs", nhigh);
			ev_num(f, "rtt_p99_us", worst);
			ev_num(f, "median_p99_us", med);
		}
	}
	/* What is left, per pair. */
	for (i = 0; i < n; i++) {
		for (j = i + 1; j < n; j++) {
			double ab = v->gbps ? AT(v->gbps, i, j) : NAN;
			double ba = v->gbps ? AT(v->gbps, j, i) : NAN;
			double r = NAN, q;

			if (AT(done, i, j))
				continue;
			if (AT(slow, i, j) || AT(slow, j, i)) {
				f = add(out, "slow_pair", "error", v, i, j,
				    "check the path between these two hosts "
				    "(ECMP member, bond member, switch port)",
				    "%s -> %s %.2f Gbit/s, %s -> %s %.2f "
				    "Gbit/s on the %s network, below the "
				    "floor of %.2f", v->names[i], v->names[j],
				    ab, v->names[j], v->names[i], ba, v->net,
				    thr);
				ev_num(f, "gbps_ab", ab);
				ev_num(f, "gbps_ba", ba);
				errors++;
			} else if (isfinite(ab) && isfinite(ba) &&
			    fabs(ab - ba) > fmax(ab, ba) * p->asym_pct / 100) {
				f = add(out, "asymmetric", "warn", v, i, j,
				    "compare the two directions' paths and "
				    "port counters", "%s -> %s %.2f Gbit/s but "
				    "%s -> %s %.2f Gbit/s on the %s network",
				    v->names[i], v->names[j], ab, v->names[j],
				    v->names[i], ba, v->net);
				ev_num(f, "gbps_ab", ab);
				ev_num(f, "gbps_ba", ba);
			}
			if (v->rpg) {
				r = fmax(isfinite(AT(v->rpg, i, j)) ?
				    AT(v->rpg, i, j) : 0, isfinite(AT(v->rpg,
				    j, i)) ? AT(v->rpg, j, i) : 0);
				if (r > p->max_rpg) {
					f = add(out, "lossy_pair", "error", v,
					    i, j, "look for drops and CRC "
					    "errors on the ports of this path",
					    "%s <-> %s: %.0f retransmits per "
					    "GB on the %s network, spurious ones "
					    "not counted (limit %.0f)",
					    v->names[i], v->names[j], r,
					    v->net, p->max_rpg);
					ev_num(f, "retransmits_per_gb", r);
					errors++;
				}
			}
			if (v->p99 && !rtt_wide) {
				q = pair_p99(v, i, j);
				if (rtt_high(q, p, med, nmed)) {
					f = add(out, "high_latency", "warn", v,
					    i, j, "look for queueing (a busy or "
					    "oversubscribed port) on this path",
					    "%s <-> %s: RTT p99 %.0f us on the "
					    "%s network (limit %.0f us, fabric "
					    "median %.0f us)", v->names[i],
					    v->names[j], q, v->net,
					    p->max_p99_us, med);
					ev_num(f, "rtt_p99_us", q);
				}
			}
		}
	}
	/* Under load, against the profile's limit only: TCP fills queues,
	 * so some growth over the idle RTT is normal. */
	if (v->p99_loaded) {
		int nhigh = 0, npairs = 0, wi = 0, wj = 0;
		double worst = 0, q;

		for (i = 0; i < n; i++)
			for (j = i + 1; j < n; j++) {
				q = fmax(isfinite(AT(v->p99_loaded, i, j)) ?
				    AT(v->p99_loaded, i, j) : 0,
				    isfinite(AT(v->p99_loaded, j, i)) ?
				    AT(v->p99_loaded, j, i) : 0);
				npairs += q > 0;
				if (q <= p->max_p99_us)
					continue;
				if (q > worst) {
					worst = q;
					wi = i;
					wj = j;
				}
				if (nhigh++ >= 16)
					continue;
				f = add(out, "high_latency", "warn", v, i, j,
				    "queueing under load: look for deep "
				    "buffers or a congested link on this path",
				    "%s <-> %s: RTT p99 %.0f us under load on "
				    "the %s network (limit %.0f us, idle %.0f "
				    "us)", v->names[i], v->names[j], q, v->net,
				    p->max_p99_us, v->p99 ? pair_p99(v, i, j) :
				    NAN);
				ev_num(f, "rtt_loaded_p99_us", q);
				if (v->p99)
					ev_num(f, "rtt_p99_us", pair_p99(v, i,
					    j));
			}
		/* Beyond 16 pairs: one more finding that counts them. */
		if (nhigh > 16) {
			f = add(out, "high_latency", "warn", v, -1, -1, "queueing "
			    "under load across the fabric: deep buffers or "
			    "an oversubscribed spine",
			    "RTT p99 under load over the limit on %d of %d "
			    "pairs on the %s network (limit %.0f us, worst "
			    "%s <-> %s %.0f us)", nhigh, npairs, v->net,
			    p->max_p99_us, v->names[wi], v->names[wj], worst);
			ev_num(f, "pairs", nhigh);
			ev_num(f, "rtt_loaded_p99_us", worst);
		}
	}
	/* Spread: with enough streams for hashing to fill every path, a
	 * path that carried nothing, or far less than its share, is the
	 * hash (or a path) at fault. Few streams prove nothing: two
	 * streams on two paths share one half the time. */
	for (i = 0; v->spread_paths && i < n; i++) {
		for (j = 0; j < n; j++) {
			int pth = AT(v->spread_paths, i, j);
			int st = AT(v->streams, i, j);
			double mn = AT(v->spread_min, i, j);

			if (i == j || pth < 2 || st < 4 * pth)
				continue;
			if (AT(v->spread_unused, i, j) == 0 && !(mn < 1 -
			    p->imbalance_pct / 100))
				continue;
			f = add(out, "hash_imbalance", "warn", v, i, j, "check "
			    "the hash policy (fib_multipath_hash_policy, "
			    "xmit_hash_policy layer3+4) and that every path "
			    "is up", "%s -> %s on the %s network: %d streams "
			    "over %d paths, %d unused, the least used carried "
			    "%.0f %% of its fair share", v->names[i],
			    v->names[j], v->net, st, pth,
			    AT(v->spread_unused, i, j), isfinite(mn) ? mn *
			    100 : 0);
			ev_num(f, "paths", pth);
			ev_num(f, "streams", st);
			ev_num(f, "least_share_of_fair", mn);
		}
	}
	/* MTU, ports and egress, per direction. */
	for (i = 0; i < n; i++) {
		for (j = 0; j < n; j++) {
			if (i == j)
				continue;
			if (v->mtu_path && isfinite(AT(v->mtu_path, i, j)) &&
			    (AT(v->mtu_path, i, j) < AT(v->mtu_conf, i, j) ||
			    AT(v->mtu_path, i, j) < p->required_mtu)) {
				f = add(out, "mtu_blackhole", "error", v, i, j,
				    "check the MTU of every switch port and "
				    "interface on this path",
				    "%s -> %s on the %s network: %.0f-byte "
				    "packets configured, only %.0f cross",
				    v->names[i], v->names[j], v->net,
				    AT(v->mtu_conf, i, j), AT(v->mtu_path, i,
				    j));
				ev_num(f, "configured", AT(v->mtu_conf, i, j));
				ev_num(f, "path", AT(v->mtu_path, i, j));
				errors++;
			}
			if (v->ports_bad && AT(v->ports_bad, i, j) > 0) {
				add(out, "port_blocked", "error", v, i, j,
				    "check the firewall on the destination "
				    "host and on the path",
				    "%s -> %s on the %s network: %s",
				    v->names[i], v->names[j], v->net,
				    v->ports_what && AT(v->ports_what, i, j) ?
				    AT(v->ports_what, i, j) : "ports closed");
				errors++;
			}
			if (v->wrong_egress && AT(v->wrong_egress, i, j)) {
				add(out, "wrong_egress", "error", v, i, j,
				    "check the routes on the source host",
				    "%s -> %s on the %s network: %s",
				    v->names[i], v->names[j], v->net,
				    v->egress_what && AT(v->egress_what, i, j) ?
				    AT(v->egress_what, i, j) : "wrong NIC");
				errors++;
			}
		}
	}
out:
	free(slow);
	free(done);
	free(slow_host);
	free(tmp);
	return errors;
}

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

static int
profile_section(void *u, const char *kind, const char *name, int line, char *err)
{
	(void)u;
	(void)name;
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
	char *end;
	double d = strtod(val, &end);

	if (*val == '\0' || *end != '\0' || !(d >= min && d <= max)) {
		snprintf(err, CF_ERRLEN, "%s: '%s' is not a number in [%g, %g]",
		    key, val, min, max);
		return -1;
	}
	*out = d;
	return 0;
}

static int
profile_pair(void *u, const char *key, const char *val, int line, char *err)
{
	struct profile *p = u;
	double d;

	(void)line;
	if (strcmp(key, "name") == 0) {
		snprintf(p->name, sizeof(p->name), "%s", val);
		return 0;
	}
	if (strcmp(key, "line_rate_gbps") == 0)
		return profile_num(key, val, 0.001, 10000, &p->line_gbps, err);
	if (strcmp(key, "min_bandwidth_pct") == 0)
		return profile_num(key, val, 1, 100, &p->min_pct, err);
	if (strcmp(key, "max_imbalance_pct") == 0)
		return profile_num(key, val, 1, 100, &p->imbalance_pct, err);
	if (strcmp(key, "min_load_pct") == 0)
		return profile_num(key, val, 1, 100, &p->load_pct, err);
	if (strcmp(key, "max_retransmits_per_gb") == 0)
		return profile_num(key, val, 0, 1e9, &p->max_rpg, err);
	if (strcmp(key, "max_rtt_p99_us") == 0)
		return profile_num(key, val, 1, 1e9, &p->max_p99_us, err);
	if (strcmp(key, "latency_factor") == 0)
		return profile_num(key, val, 1, 1000, &p->latency_k, err);
	if (strcmp(key, "max_asymmetry_pct") == 0)
		return profile_num(key, val, 1, 100, &p->asym_pct, err);
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
