/* matrix_plan: which cells a run measures and in what order: the probe
 * cells, the bandwidth rounds (sched.c), the loads, and the retests of
 * cells that look bad; cells already stored are skipped, see
 * matrix_int.h. */
#include "matrix/matrix.h"
#include "matrix/matrix_int.h"
#include "log.h"
#include "probes/probes.h"
#include "core/core.h"
#include "json.h"
#include "store/store.h"
#include "verdict/verdict.h"
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <ev.h>

/* stored: is this cell in the DB already (--resume)? */
static bool stored_scan(struct mrun *m, int net, int test, int a, int b);

static bool
stored(struct mrun *m, int net, int test, int a, int b)
{
	if (m->stored_idx != NULL)
		return m->stored_idx[((net * NTESTS + test) * m->n + a) *
		    m->n + b];
	return stored_scan(m, net, test, a, b);
}

static bool
stored_scan(struct mrun *m, int net, int test, int a, int b)
{
	const cJSON *c;
	char err[CF_ERRLEN];

	cJSON_ArrayForEach(c, m->stored) {
		const char *n, *s, *d, *t;

		if (json_get_str(c, "network", 0, 16, &n, err) == 0 &&
		    json_get_str(c, "src", 0, 64, &s, err) == 0 &&
		    json_get_str(c, "dst", 0, 64, &d, err) == 0 &&
		    json_get_str(c, "test", 0, 16, &t, err) == 0 &&
		    strcmp(n, net_name(net)) == 0 && strcmp(t,
		    matrix_test_names[test]) == 0 && strcmp(s, m->h[a]->name) == 0 &&
		    strcmp(d, m->h[b]->name) == 0)
			return true;
	}
	return false;
}

/* stored_index: one pass over the stored cells, so that a resumed run of
 * many hosts does not scan them for every cell it plans. */
void
matrix_stored_index(struct mrun *m)
{
	const cJSON *c;
	char err[CF_ERRLEN];
	int n = m->n, net, test, a, b;

	m->stored_idx = calloc((size_t)(2 * NTESTS * n * n), 1);
	if (m->stored_idx == NULL)
		return;
	cJSON_ArrayForEach(c, m->stored) {
		const char *nn, *s, *d, *t;

		if (json_get_str(c, "network", 0, 16, &nn, err) == -1 ||
		    json_get_str(c, "src", 0, 64, &s, err) == -1 ||
		    json_get_str(c, "dst", 0, 64, &d, err) == -1 ||
		    json_get_str(c, "test", 0, 16, &t, err) == -1)
			continue;
		net = strcmp(nn, "cluster") == 0;	/* "host": 0 */
		for (test = 0; test < NTESTS && strcmp(matrix_test_names[test], t);
		    test++)
			;
		for (a = 0; a < n && strcmp(m->h[a]->name, s); a++)
			;
		for (b = 0; b < n && strcmp(m->h[b]->name, d); b++)
			;
		if (test < NTESTS && a < n && b < n)
			m->stored_idx[((net * NTESTS + test) * n + a) * n +
			    b] = 1;
	}
}

static int
enqueue(struct mrun *m, int net, int test, int a, int b, bool retest)
{
	struct job *j, **q;

	/* What the complete run stores: a cell each (the facts, a cell
	 * per host, and the mesh, one per pair, are counted by their
	 * callers); a retest replaces one. */
	if (!retest)
		m->planned++;
	if (!retest && stored(m, net, test, a, b))
		return 0;	/* --resume: measured already */
	j = calloc(1, sizeof(*j));
	if (j == NULL) {
		m->oom = true;
		return -1;
	}
	*j = (struct job){ .m = m, .net = net, .test = test, .a = a, .b = b,
	    .retest = retest, .fd = -1 };
	q = realloc(m->queue, (size_t)(m->nq + 1) * sizeof(*m->queue));
	if (q == NULL) {
		free(j);
		m->oom = true;
		return -1;
	}
	m->queue = q;
	m->queue[m->nq++] = j;
	m->total++;
	return 0;
}

/* enqueue_mesh: one job for a network's latency, unless every pair of
 * it is stored already. */
static void
enqueue_mesh(struct mrun *m, int net, int test)
{
	int a, b;

	m->planned += m->n * (m->n - 1) / 2;
	for (a = 0; a < m->n; a++)
		for (b = a + 1; b < m->n; b++)
			if (!stored(m, net, test, a, b)) {
				if (enqueue(m, net, test, -1, -1, true) == 0)
					m->queue[m->nq - 1]->mesh =
					    m->queue[m->nq - 1]->whole = true;
				return;
			}
}

/* round_close ends the round being planned at the queue's end (and
 * keeps room for the sentinel). */
static void
round_close(struct mrun *m, int *nr)
{
	int *re = realloc(m->round_end, (size_t)(*nr + 2) * sizeof(int));

	if (re == NULL) {
		m->oom = true;
		return;
	}
	m->round_end = re;
	m->round_end[(*nr)++] = m->nq;
}

void
matrix_plan(struct mrun *m)
{
	const struct matrix_opts *o = m->o;
	struct sched s;
	int net, a, b, r, k, nr = 0;
	int *rack = calloc((size_t)m->n, sizeof(int));
	bool mesh = o->lat_mesh || m->n > MATRIX_MESH_HOSTS;
	char names[64][INV_NAME_MAX];
	int nn = 0;

	/* Rack ids by name, for the rack cap. */
	for (a = 0; a < m->n; a++) {
		for (k = 0; k < nn; k++)
			if (strcmp(names[k], m->h[a]->rack) == 0)
				break;
		if (k == nn && nn < 64)
			snprintf(names[nn++], INV_NAME_MAX, "%s",
			    m->h[a]->rack);
		rack[a] = k;
	}
	m->round_end = NULL;
	/* Round 0: every probe of every pair, concurrently at low rate; on
	 * a large cluster the latency of a network is one mesh. */
	for (net = 0; net < 2; net++) {
		if (!(o->nets & (1 << net)))
			continue;
		if ((o->tests & MT_LAT) && mesh)
			enqueue_mesh(m, net, 1);
		if (o->ceph_conf && net == (o->nets & 1 ? 0 : 1) &&
		    ++m->planned && enqueue(m, 0, T_CEPHHB, -1, -1, true) == 0)
			m->queue[m->nq - 1]->whole = true;
		/* Once, with the first network: facts are per host. */
		if ((o->tests & MT_FACTS) && net == (o->nets & 1 ? 0 : 1)) {
			m->planned += m->n;
			for (a = 0; a < m->n && stored(m, 0, T_FACTS, a, a);
			    a++)
				;
			if (a < m->n && enqueue(m, 0, T_FACTS, -1, -1,
			    true) == 0)
				m->queue[m->nq - 1]->whole = true;
		}
		for (a = 0; a < m->n; a++) {
			for (b = 0; b < m->n; b++) {
				if (a == b)
					continue;
				if (a < b && (o->tests & MT_LAT) && !mesh)
					enqueue(m, net, 1, a, b, false);
				if (a < b && (o->tests & MT_MTU))
					enqueue(m, net, 2, a, b, false);
				if (o->tests & MT_PORTS)
					enqueue(m, net, 3, a, b, false);
			}
		}
	}
	round_close(m, &nr);
	/* Then the bandwidth tournament, per network. */
	if ((o->tests & MT_BW) && (o->modes & MM_PAIRWISE) &&
	    sched_build(&s, m->n, rack, o->max_per_rack) == 0) {
		for (net = 0; net < 2; net++) {
			if (!(o->nets & (1 << net)))
				continue;
			for (r = 0; r < s.nrounds; r++) {
				for (k = 0; k < s.count[r]; k++)
					enqueue(m, net, 0, s.round[r][k].a,
					    s.round[r][k].b, false);
				round_close(m, &nr);
			}
		}
		sched_free(&s);
	}
	/* The loads: one round each, every flow at once. */
	for (net = 0; net < 2 && (o->tests & MT_BW); net++) {
		int *dst;

		if (!(o->nets & (1 << net)))
			continue;
		dst = calloc((size_t)(2 * m->n), sizeof(int));
		if (o->modes & MM_A2A) {
			for (a = 0; a < m->n; a++)
				for (b = 0; b < m->n; b++)
					if (a != b)
						enqueue(m, net, T_A2A, a, b,
						    false);
			if (o->lat_loaded)
				enqueue_mesh(m, net, T_LATLOAD);
			round_close(m, &nr);
		}
		if ((o->modes & MM_FANOUT) && dst != NULL &&
		    matrix_load_fanout(m->n, rack, dst) == 0) {
			for (a = 0; a < m->n; a++)
				for (k = 0; k < 2; k++)
					enqueue(m, net, T_FANOUT, a,
					    dst[2 * a + k], false);
			/* Under one load only: the first that runs. */
			if (o->lat_loaded && !(o->modes & MM_A2A))
				enqueue_mesh(m, net, T_LATLOAD);
			round_close(m, &nr);
		}
		free(dst);
	}
	/* round_close kept room for the sentinel. */
	if (m->round_end != NULL)
		m->round_end[nr] = 1 << 30;
	m->nrounds = nr;
	free(rack);
}

/* retest_cell: cell c (src s, dst d, network n) measured again alone,
 * unless a --resume found it stored: no cell is measured twice across a
 * resume. 1 when queued. */
static int
retest_cell(struct mrun *m, int test, const char *s, const char *d,
    const char *n)
{
	int a, b, net = strcmp(n, "cluster") == 0;

	for (a = 0; a < m->n && strcmp(m->h[a]->name, s); a++)
		;
	for (b = 0; b < m->n && strcmp(m->h[b]->name, d); b++)
		;
	return a < m->n && b < m->n && !stored(m, net, test, a, b) &&
	    enqueue(m, net, test, a, b, true) == 0;
}

/* cell_ids: a measured cell's test, ends and network; -1 for a cell lost
 * or skipped, or unreadable. */
static int
cell_ids(const cJSON *c, const char **t, const char **s, const char **d,
    const char **n)
{
	char err[CF_ERRLEN];
	const char *st;

	if (json_get_str(c, "test", 0, 16, t, err) == -1 ||
	    json_get_str(c, "state", 0, 16, &st, err) == -1 ||
	    strcmp(st, "lost") == 0 || strcmp(st, "skipped") == 0 ||
	    json_get_str(c, "src", 0, 64, s, err) == -1 ||
	    json_get_str(c, "dst", 0, 64, d, err) == -1 ||
	    json_get_str(c, "network", 0, 16, n, err) == -1)
		return -1;
	return 0;
}

/* Latency retests per network at most. */
#define LAT_RETESTS 16

/* retest_latency: a pair whose heartbeat-size RTT p99 the findings would
 * call high is measured again alone. Latency cells run beside the
 * bandwidth rounds, and one stalled probe run on a busy machine is a
 * pair's whole p99 (200 probes): a finding must hold on a second, quiet
 * measurement. */
static int
retest_latency(struct mrun *m, const cJSON *cells)
{
	int nc = cJSON_GetArraySize(cells), added = 0, net, k, nx, np;
	const cJSON **lat = malloc((size_t)(nc + 1) * sizeof(*lat));
	double *q = malloc((size_t)(nc + 1) * sizeof(*q));
	unsigned char *pick = malloc((size_t)nc + 1);
	const char *t, *s, *d, *n;
	const cJSON *c, *data;
	char err[CF_ERRLEN];

	for (net = 0; lat && q && pick && net < 2; net++) {
		nx = 0;
		cJSON_ArrayForEach(c, cells)
			if (cell_ids(c, &t, &s, &d, &n) == 0 &&
			    strcmp(t, "lat") == 0 &&
			    (strcmp(n, "cluster") == 0) == net &&
			    json_get_obj(c, "data", &data, err) == 0) {
				q[nx] = probe_p99_at(data, 2000);
				lat[nx++] = c;
			}
		if ((np = profile_rtt_suspects(&m->o->prof, q, nx, pick)) == 0)
			continue;
		/* Not a pair that lost probes: a per-pair run waits out each
		 * lost probe (1 s), and a lossy path shows in the bandwidth
		 * cells' retransmits. */
		for (k = 0; k < nx; k++)
			if (pick[k] &&
			    json_get_obj(lat[k], "data", &data, err) == 0 &&
			    probe_loss_at(data, 2000) > 0.02) {
				pick[k] = 0;
				np--;
			}
		/* At most LAT_RETESTS, the worst: each is a second or two
		 * alone, and a large run's mesh can call many pairs high. */
		for (; np > LAT_RETESTS; np--) {
			int lo = -1;

			for (k = 0; k < nx; k++)
				if (pick[k] && (lo < 0 || q[k] < q[lo]))
					lo = k;
			pick[lo] = 0;
		}
		for (k = 0; k < nx; k++)
			if (pick[k] && cell_ids(lat[k], &t, &s, &d, &n) == 0)
				added += retest_cell(m, 1, s, d, n);
	}
	free(lat);
	free(q);
	free(pick);
	return added;
}

/* retest: a bandwidth cell below the profile's floor, or over its
 * retransmit limit, is measured again alone before it may become a finding
 * (contention is not a fault); so is a pair of high latency
 * (retest_latency). */
int
matrix_retest_plan(struct mrun *m)
{
	cJSON *cells = store_cells(&m->st, m->run), *c;
	double floor = m->o->prof.line_gbps * m->o->prof.min_pct / 100.0;
	char err[CF_ERRLEN];
	int added = 0;

	cJSON_ArrayForEach(c, cells) {
		const char *t, *s, *d, *n;
		const cJSON *data, *end, *sum;
		double x = INFINITY, y;
		int k;

		if (cell_ids(c, &t, &s, &d, &n) == -1 || strcmp(t, "bw") != 0 ||
		    json_get_obj(c, "data", &data, err) == -1 ||
		    json_get_obj(data, "end", &end, err) == -1)
			continue;
		bool lossy = false;

		for (k = 0; k < 2; k++) {
			if (json_get_obj(end, k ? "sum_reverse" : "sum", &sum,
			    err) == -1)
				continue;
			if (json_get_double(sum, "bits_per_second", 0, 1e15, &y,
			    err) == 0 && y / 1e9 < x)
				x = y / 1e9;
			if (pair_result_loss_rpg(sum) > m->o->prof.max_rpg)
				lossy = true;
		}
		/* Slow or lossy: measured again alone. */
		if (!(x < floor) && !lossy)
			continue;
		added += retest_cell(m, T_BW, s, d, n);
	}
	added += retest_latency(m, cells);
	cJSON_Delete(cells);
	return added;
}
