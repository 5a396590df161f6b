/*
 * probes: tests between two hosts at a time (throughput, latency, MTU, ports, reach), the RTT mesh and the source-port sweep.
 * The one header other folders include (docs/architecture.md).
 */
#ifndef CF_PROBES_PROBES_H
#define CF_PROBES_PROBES_H

#include <stdbool.h>
#include <stdint.h>
#include <cjson/cJSON.h>

#include "auth.h"
#include "core/core.h"
#include "json.h"
#include "tputreq.h"
#include "tputstat.h"
#include "queue_compat.h"

/*
 * tput: 'cephfab pair': one coordinated throughput test between two agents
 * (pair.c runs it; pair_result.c turns what the agents reported into the
 * result tree and the human report).
 */
enum tnet { NET_PUBLIC, NET_CLUSTER };

struct pair_opts {
	const char *a, *b;
	enum tnet net;
	uint32_t streams;
	double duration;
	bool reverse, bidir, udp;
	uint32_t len;
	uint64_t rate;
	uint16_t sport_base, sport_stride;
	double interval;
	uint32_t window;
	bool zerocopy, skip_rx_copy;
	char bind_dev[16];
	bool json;
	double timeout;
	/* The matrix's load modes: a shared test may run beside others on
	 * the same agents, and START waits for this wall-clock time so that
	 * every test of a load starts together. */
	bool shared;
	double start_at;
	bool no_trace;		/* do not trace the streams' paths */
};

/* One side's final word on one stream. */
struct sres {
	bool have;
	double bytes, seconds, bps;
	bool has_tcp;
	struct tcp_sample tcp;
	bool has_udp;
	double packets, expected, lost, dups, reordered, jitter_ms, sent;
	char limited[16];
	char error[128];
	/* The sender's traced path, checked and rebuilt from its report:
	 * {"egress_if", "gateway", "hops": [ADDR|null...]} or {"error"};
	 * NULL when not traced. The result owns it. */
	cJSON *path;
};

struct tstream {
	uint32_t id;
	bool a_sends;		/* direction: A -> B */
	struct sres snd, rcv;
};

struct tcpu {
	bool have;
	double user, sys, wall;
};

/* Everything one run gathered; tput_out renders it. */
struct tresult {
	const struct pair_opts *o;
	struct test_spec spec;
	const struct inv_host *ha, *hb;
	bool a_connects;
	char addr_a[NETADDR_STRLEN], addr_b[NETADDR_STRLEN];
	uint16_t port;
	char version_a[32], version_b[32];
	double started;		/* wall clock, for the JSON */
	struct tstream *st;
	uint32_t n;
	cJSON *intervals;	/* array, built as they come */
	struct tcpu cpu_a, cpu_b;
	cJSON *spread_a, *spread_b;	/* each agent's path counters */
	/* Seconds in a row with nothing received, per direction: the
	 * current run and the longest. */
	double zero_run[2], zero_max[2];
	char error[CF_ERRLEN];
};

/* pair_result_stalls fails a TCP test whose data stopped for 3 s or more. */
void pair_result_stalls(struct tresult *r);
/* pair_run runs the test; returns an exit code (EXIT_*). */
int pair_run(struct inventory *inv, const struct auth_key *key,
    const struct pair_opts *o);

/* pair_result.c */
/* pair_result_interval merges one interval from each side into r->intervals and,
 * unless JSON was asked for, prints its line. Bodies are the agents'
 * TEST_INTERVAL messages (already matched by index). */
void pair_result_interval(struct tresult *r, const cJSON *ca, const cJSON *cb);
/* pair_result_end reads a TEST_END body from one side into r; -1 with err on a
 * malformed body. */
int pair_result_end(struct tresult *r, bool side_a, const cJSON *body, char *err);
/* pair_result_report prints the final report (human or JSON). */
void pair_result_report(struct tresult *r);
void pair_result_header(const struct tresult *r);
/* pair_path.c: a sender's traced path as reported (a new, checked copy,
 * or NULL with err), freed with the result; printed as "dev > hop > *". */
#define PAIR_PATH_MAX_HOPS 16
cJSON *pair_path_decode(const cJSON *p, char *err);
void pair_result_free_paths(struct tresult *r);
const char *pair_path_str(const cJSON *path, char *buf, size_t sz);
void pair_path_lines(const struct tresult *r, bool a_sends, const char *dn);

/* pair_result_loss_rpg: the retransmits per GB of a direction's end sum that
 * count as loss: without the ones the receiver reported as spurious
 * (DSACK), when the agents report that; NAN if the sum has neither. A
 * reordering path retransmits in vain; it does not lose packets. */
double pair_result_loss_rpg(const cJSON *sum);

/* probe_size_rtt: a latency result's size entry's "rtt" when a reply
 * came back (count > 0, or no count: the mesh's), else NULL: a size no
 * reply crossed (every 2000-byte probe lost in an MTU black hole) has no
 * RTT, and its zeros
 * must not read as 0 us. In probe_result.c, with the readers below. */
const cJSON *probe_size_rtt(const cJSON *size);
/* probe_size_at: a latency cell's data's entry for that probe size
 * (results[0].sizes[]), NULL when not there. */
const cJSON *probe_size_at(const cJSON *data, double size);
/* probe_p99_at: a latency cell's data's RTT p99 (us) at that probe size,
 * NAN when that size got no reply or is not there. */
double probe_p99_at(const cJSON *data, double size);
/* probe_loss_at: the share of that size's probes that got no reply (0 to
 * 1), NAN when not there. */
double probe_loss_at(const cJSON *data, double size);

/*
 * pex: one probe exchange between two agents, on the caller's loop: a
 * responder opened on one agent (PROBE_OPEN), a runner started on the
 * other (PROBE_RUN, with the responder's port filled in), the result, and
 * PROBE_CLOSE. Many can run at once over the same sessions; the session
 * owner hands every message to exchange_message().
 */
struct pex;
typedef void (*exchange_done_fn)(struct pex *, void *arg);

struct pex {
	TAILQ_ENTRY(pex) entry;
	char id[17];
	struct sess *resp, *run;
	cJSON *open;		/* responder request, NULL for none */
	cJSON *runb;		/* runner request */
	cJSON *open_reply;	/* owned */
	cJSON *result;		/* owned: the runner's answer */
	char error[256];
	bool done;
	exchange_done_fn cb;
	void *arg;
};

TAILQ_HEAD(exchange_list, pex);

/* exchange_new makes an exchange; it takes ownership of open and runb (the
 * "probe" id and "token" are added here). */
struct pex *exchange_new(struct exchange_list *l, struct sess *resp, cJSON *open,
    struct sess *run, cJSON *runb, exchange_done_fn cb, void *arg);
/* exchange_start sends the first request; both sessions must be up. */
void exchange_start(struct pex *x);
/* exchange_message: 1 if the message belonged to an exchange of l. */
int exchange_message(struct exchange_list *l, struct sess *s, const struct frame_hdr *h,
    const cJSON *body);
/* exchange_sess_closed fails every unfinished exchange using s. */
void exchange_sess_closed(struct exchange_list *l, struct sess *s,
    enum conn_reason r, const char *detail);
void exchange_free(struct exchange_list *l, struct pex *x);

/*
 * probecmd: 'cephfab latency', 'mtu', 'ports' and 'reach': probes between
 * two hosts, each a pex (probes.h) over sessions to both agents, reported
 * with findings (mtu_blackhole, filtered/refused ports, unreachable,
 * wrong_egress).
 */
enum probe_cmd_kind { PC_LATENCY, PC_MTU, PC_PORTS, PC_REACH };

struct probe_cmd_opts {
	enum probe_cmd_kind kind;
	const char *a, *b;
	int net, to_net;	/* 0 public, 1 cluster; to_net for reach */
	bool tcp;
	uint32_t sizes[16];
	int nsizes;
	uint32_t count;
	double duration;
	uint32_t rate;
	uint32_t window;		/* latency: probes in flight at most
					   (0: as the rate sends them) */
	bool loaded;
	uint16_t ports[128];
	int nports;
	bool json;
	double timeout;
	const char *inventory_path, *key_path;	/* for --loaded's child */
};

int probe_cmd_run(struct inventory *inv, const struct auth_key *key,
    const struct probe_cmd_opts *o);

/*
 * mesh: 'cephfab mesh', the RTT of every ordered pair of hosts at once.
 * Every agent opens one UDP echo responder and runs one mesh runner that
 * probes all the others (agent/probe_mesh.c), so n hosts cost n sessions
 * and 2n probes instead of n(n-1) exchanges: the matrix's latency phase
 * for large clusters (hundreds of hosts in seconds).
 */
struct mesh_opts {
	int net;		/* 0 public, 1 cluster */
	uint32_t count;		/* probes per ordered pair */
	uint32_t rate;		/* probes per second per agent */
	uint32_t size;		/* UDP payload bytes */
	bool json;
	double timeout;
	/* The matrix: store the pairs' latency cells into run of db (a
	 * cell already there is kept) and print only a summary. */
	const char *db;
	int64_t run;
	const char *test;	/* the cells' test name, default "lat" */
};

/* mesh_run measures and prints (JSON or a summary); returns EXIT_*: 0
 * every pair answered, 1 some pairs lost probes or could not be
 * measured, 3 nothing could be measured. */
int mesh_run(struct inventory *inv, const struct auth_key *key,
    const struct mesh_opts *o);

/*
 * sweep: 'pair A B --sport-sweep K': K short single-stream tests one after
 * another, each from its own source port, each mapped to the path (ECMP
 * next hop or bond member) whose counters it moved, so that every hash
 * bucket is seen (fbtracert-style coverage for LACP and ECMP). Each test
 * is a child 'cephfab pair --json' (bounded, killable), run in turn.
 */
struct sweep_opts {
	const char *inventory, *key;	/* passed to the children */
	const char *a, *b, *net;
	int count;			/* K */
	uint16_t sport_base;		/* the first source port */
	double seconds;			/* per stream */
	double timeout;
	bool json;
};

/* sweep_run: 0 every path carried some stream, 1 a path none did (or a
 * stream failed), 3 nothing measured. */
int sweep_run(const struct sweep_opts *o);

#endif
