/*
 * engine: the agent's throughput tests. One test at a time, or several
 * 'shared' ones at once (the matrix's all-to-all and fanout loads, up to
 * max_tests, their streams counted together against max_streams); their data
 * streams run in their own threads (stream.c), while this module, on the
 * agent's event loop, sets them up, samples them every interval and
 * reports to the coordinator that asked. Requests are refused with the
 * limit named (max_streams, max_duration, max_rate, allow_targets) or with
 * 'busy' naming who holds the agent.
 */
#ifndef CF_ENGINE_H
#define CF_ENGINE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/resource.h>

#include <ev.h>

#include "config.h"
#include "queue_compat.h"
#include "engine/spread.h"
#include "probes/trace.h"
#include "conn.h"
#include "tputreq.h"
#include "tputstat.h"

struct engine;
struct test;

struct stream {
	struct test *t;
	uint32_t idx;
	int fd;
	bool sending;		/* this agent sends on it */
	bool zerocopy;		/* SO_ZEROCOPY accepted by the kernel */
	pthread_t th;
	bool th_started;
	_Atomic uint64_t bytes;
	int err;		/* errno that ended it, 0 when it ended well */
	double t_end;		/* monotonic seconds when its thread ended */
	/* Interval state, owned by the event loop. */
	uint64_t last_bytes;
	struct tcp_sample last_tcp;
	/* UDP: sender's count; receiver's accounting under t->umu. */
	uint64_t seq;
	struct udp_rx rx, rx_last;
	uint64_t fin_total;	/* datagrams the sender says it sent */
	bool fin;
	char local[NETADDR_STRLEN], remote[NETADDR_STRLEN];
	/* Receiver's SO_RCVLOWAT tuning, owned by its data thread. */
	uint64_t lw_bytes;
	double lw_t;
	int lowat;
	/* Connector set-up. */
	ev_io cw;
	/* The traced path of a stream this side sends, or NULL. */
	struct trace_flow *path;
};

struct pending;

struct test {
	TAILQ_ENTRY(test) entry;
	struct engine *eng;
	struct test_spec spec;
	struct conn *owner;
	bool listener;
	int lfd;		/* TCP listener, until every stream is in */
	ev_io lw;
	int ufd;		/* UDP listener socket */
	pthread_t uth;
	bool uth_started;
	pthread_mutex_t umu;
	struct stream *st;
	uint32_t n, nready;
	unsigned npending;
	struct pending *pend;	/* list of accepted, unauthenticated */
	ev_timer setup_timer, ival_timer, guard_timer;
	ev_async done_async;
	_Atomic int stop;
	_Atomic unsigned threads_done;
	unsigned threads;
	bool started, ending;
	double t0, t_created;
	uint32_t ival_idx;
	double ival_t;
	struct rusage ru0;
	struct spread spread;	/* links' counters at the start */
	void *buf;		/* sender pattern, spec.len bytes */
	/* The path tracer (engine_trace.c): its thread, its flows. */
	pthread_t trth;
	bool trth_started;
	struct trace_flow *tr;
	int ntr;
	char error[CF_ERRLEN];
};

struct engine {
	struct ev_loop *loop;
	const struct agent_config *cfg;
	const char *hostname;
	TAILQ_HEAD(, test) tests;	/* set up or running */
	unsigned ntests;
	uint32_t nstreams;		/* of all of them */
};

void engine_init(struct engine *e, struct ev_loop *loop,
    const struct agent_config *cfg, const char *hostname);
/* engine_message handles TEST_* messages; returns 0 if the type is not the
 * engine's. */
int engine_message(struct engine *e, struct conn *c,
    const struct frame_hdr *h, const cJSON *body);
/* engine_conn_closed aborts a test whose coordinator went away. */
void engine_conn_closed(struct engine *e, struct conn *c);
bool engine_busy(const struct engine *e);
/* engine_holder: who runs the test that would make a new one wait (its
 * coordinator's name, as the busy refusal names it) and about how many
 * seconds it has left; false when nothing runs. */
bool engine_holder(const struct engine *e, char *who, size_t sz,
    double *left);
/* engine_fini aborts a running test and waits for its threads. */
void engine_fini(struct engine *e);

/* engine_limits.c: 0 when the test is within this agent's limits, else -1 with
 * the limit named in msg. */
int engine_check_limits(const struct engine *e, const struct test_spec *sp,
    bool connector, char *msg);
/* engine_check_room: 0 when a new test may run beside the ones already
 * here, else -1 with a 'busy' message naming who holds the agent. */
int engine_check_room(const struct engine *e, const struct test_spec *sp,
    char *msg);

/* engine_report.c: the JSON a test reports: its streams (at READY), one
 * interval's figures of stream s over secs (the deltas since the last
 * call), and the totals at the end into b (wall: the test's seconds).
 * The caller owns what is returned. */
cJSON *engine_report_streams(struct test *t);
cJSON *engine_report_interval(struct test *t, struct stream *s, double secs);
void engine_report_end(struct test *t, double wall, cJSON *b);

/* stream.c: sockets and thread bodies. */
double stream_now(void);
int stream_setup_socket(struct test *t, struct stream *s, int fd,
    char *err);
/* stream_start_threads starts the data plane of t: TCP streams spread
 * over min(streams, CPUs) threads per direction, one thread per UDP
 * sender. Returns -1 if a thread could not be made (those made run on and
 * are stopped with the test). */
int stream_start_threads(struct test *t);
int stream_start_udp_rx(struct test *t);
/* stream_udp_connector_socket makes a connected UDP socket for s. */
int stream_udp_socket(struct test *t, struct stream *s, char *err);
/* engine_trace.c: engine_trace_start starts the thread that traces the
 * streams this side sends, halfway through the test (spec.trace, TCP);
 * it counts as one of the test's threads. engine_trace_free after the
 * join. */
int engine_trace_start(struct test *t);
void engine_trace_free(struct test *t);
/* stream_finished: one of the test's threads is done (any thread). */
void stream_finished(struct test *t);

/* stream_wake unblocks every thread of t (stop flag and shutdown). */
void stream_wake(struct test *t);

#endif
