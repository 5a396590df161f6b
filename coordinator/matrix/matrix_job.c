/* matrix_job: the command line of one matrix cell, see matrix_int.h. Every
 * cell runs as a child 'cephfab ... --json' (its own event loop and
 * sessions); this is where the run's options become its arguments. */
#include "matrix/matrix_int.h"
#include "text.h"

#include <stdio.h>

/* fit: a bandwidth cell within its two agents' limits: streams (each way;
 * a --bidir test is twice as many on each agent), seconds, and the pace
 * each way (--rate, else the smaller max_rate of the pair: an agent with
 * max_rate refuses an unpaced test, which is the tool's limit, not the
 * network's). j->pace keeps the pace for the verdict. */
static void
fit(struct job *j, uint32_t *streams, double *secs)
{
	struct mrun *m = j->m;
	const struct matrix_opts *o = m->o;
	uint32_t per = j->test == 0 ? 2 : 1, cap;
	uint64_t lim = 0;
	int k, h;

	*streams = j->retest && o->streams < RETEST_STREAMS ? RETEST_STREAMS :
	    o->streams;
	*secs = o->secs;
	for (k = 0; k < 2; k++) {
		h = k ? j->b : j->a;
		if (m->lim_streams && m->lim_streams[h] > 0) {
			cap = m->lim_streams[h] / per;
			if (cap < 1)
				cap = 1;
			if (*streams > cap)
				*streams = cap;
		}
		if (m->lim_secs && m->lim_secs[h] > 0 && *secs > m->lim_secs[h])
			*secs = m->lim_secs[h];
		if (m->lim_rate && m->lim_rate[h] > 0 && (lim == 0 ||
		    m->lim_rate[h] < lim))
			lim = m->lim_rate[h];
	}
	j->pace = o->rate && (lim == 0 || o->rate < lim) ? o->rate : lim;
}

void
matrix_job_argv(struct job *j, char **argv, char bufs[8][32])
{
	const struct matrix_opts *o = j->m->o;
	uint32_t streams;
	double secs;
	int k;

	snprintf(bufs[0], 32, "%.1f", o->timeout);
	k = self_argv_begin(argv, o->inventory, o->key, bufs[0]);
	if (j->test == T_CEPHHB) {
		argv[k++] = "ceph-heartbeats";
		argv[k++] = "--ceph-conf";
		argv[k++] = (char *)o->ceph_conf;
		if (o->ceph_name) {
			argv[k++] = "--ceph-name";
			argv[k++] = (char *)o->ceph_name;
		}
		argv[k++] = "--json";
		argv[k] = NULL;
		return;
	}
	if (j->test == T_FACTS) {
		snprintf(bufs[3], 32, "%lld", (long long)j->m->run);
		argv[k++] = "hosts";
		argv[k++] = "--facts";
		argv[k++] = "--db";
		argv[k++] = (char *)o->db;
		argv[k++] = "--run";
		argv[k++] = bufs[3];
		argv[k] = NULL;
		return;
	}
	if (j->mesh) {
		int n = j->m->n;

		/* Many hosts: fewer probes to each, so that the mesh takes
		 * seconds (256 hosts at 1000/s: 2.6 s of probing). */
		snprintf(bufs[1], 32, "%d", n > 64 ? 10 : 20);
		snprintf(bufs[2], 32, "%u", o->lat_rate ? o->lat_rate : 1000);
		argv[k++] = "mesh";
		argv[k++] = "--net";
		argv[k++] = (char *)net_name(j->net);
		argv[k++] = "--json";
		argv[k++] = "--count";
		argv[k++] = bufs[1];
		argv[k++] = "--rate";
		argv[k++] = bufs[2];
		snprintf(bufs[3], 32, "%lld", (long long)j->m->run);
		argv[k++] = "--db";
		argv[k++] = (char *)o->db;
		argv[k++] = "--run";
		argv[k++] = bufs[3];
		if (j->test == T_LATLOAD) {
			/* Under the load: once its flows are running. */
			snprintf(bufs[4], 32, "%.3f", j->m->load_at + 1);
			argv[k++] = "--test";
			argv[k++] = "lat_load";
			argv[k++] = "--start-at";
			argv[k++] = bufs[4];
		}
		argv[k] = NULL;
		return;
	}
	argv[k++] = (char *)(is_tput(j->test) ? "pair" : j->test == 1 ?
	    "latency" : j->test == 2 ? "mtu" : "ports");
	argv[k++] = j->m->h[j->a]->name;
	argv[k++] = j->m->h[j->b]->name;
	argv[k++] = "--net";
	argv[k++] = (char *)net_name(j->net);
	argv[k++] = "--json";
	switch (j->test) {
	case 0:
		/* A retest spreads over more source ports, so that ECMP puts
		 * flows on every member: the link localizer needs bad flows
		 * through the faulty link and clean ones past it. */
		fit(j, &streams, &secs);
		snprintf(bufs[1], 32, "%u", streams);
		snprintf(bufs[2], 32, "%.1f", secs);
		if (j->pace) {
			/* pair paces each stream: the cell's pace each way
			 * split over its streams. */
			snprintf(bufs[5], 32, "%llu", (unsigned long long)
			    (j->pace / streams));
			argv[k++] = "--rate";
			argv[k++] = bufs[5];
		}
		argv[k++] = "--bidir";
		argv[k++] = "-P";
		argv[k++] = bufs[1];
		argv[k++] = "-t";
		argv[k++] = bufs[2];
		break;
	case T_A2A:
	case T_FANOUT:
		/* One direction per cell; every cell of the load shares the
		 * agents and starts at the same time. */
		fit(j, &streams, &secs);
		snprintf(bufs[1], 32, "%u", streams);
		snprintf(bufs[2], 32, "%.1f", secs);
		snprintf(bufs[4], 32, "%.3f", j->m->load_at);
		if (j->pace) {
			snprintf(bufs[5], 32, "%llu", (unsigned long long)
			    (j->pace / streams));
			argv[k++] = "--rate";
			argv[k++] = bufs[5];
		}
		argv[k++] = "-P";
		argv[k++] = bufs[1];
		argv[k++] = "-t";
		argv[k++] = bufs[2];
		argv[k++] = "--shared";
		argv[k++] = "--start-at";
		argv[k++] = bufs[4];
		break;
	case 1:
		/* Low rate: probes run while other cells do. */
		argv[k++] = "--size";
		argv[k++] = "64,2000";
		argv[k++] = "--count";
		argv[k++] = "200";
		argv[k++] = "--rate";
		argv[k++] = "500";
		/* One at a time: beside the bandwidth rounds, and across a
		 * slow port, the probes must not load what they measure. */
		argv[k++] = "--window";
		argv[k++] = "1";
		break;
	case 3:
		if (o->prof.nports) {
			char *p = bufs[3];
			size_t off = 0;
			int i;

			for (i = 0; i < o->prof.nports && off < 28; i++)
				off = text_appendf(p, 32, off,
				    "%s%u", i ? "," : "", o->prof.ports[i]);
			argv[k++] = "--ports";
			argv[k++] = p;
		}
		break;
	}
	argv[k] = NULL;
}
