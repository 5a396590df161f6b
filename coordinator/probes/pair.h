/*
 * tput: 'cephfab pair': one coordinated throughput test between two agents
 * (pair.c runs it; tput_out.c turns what the agents reported into the
 * result tree and the human report).
 */
#ifndef CF_TPUT_H
#define CF_TPUT_H

#include <stdbool.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "auth.h"
#include "core/inventory.h"
#include "json.h"
#include "tputreq.h"
#include "tputstat.h"

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

/* tput_out.c */
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
/* pair_result_loss_rpg: the retransmits per GB of a direction's end sum that
 * count as loss: without the ones the receiver reported as spurious
 * (DSACK), when the agents report that; NAN if the sum has neither. A
 * reordering path retransmits in vain; it does not lose packets. */
double pair_result_loss_rpg(const cJSON *sum);

#endif
