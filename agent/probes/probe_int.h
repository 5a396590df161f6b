/* probe_int: what probe.c (control) and probe_io.c (threads) share. */
#ifndef CF_PROBE_INT_H
#define CF_PROBE_INT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "probes/probe.h"
#include "probes/route.h"

#define PROBE_ID_LEN 16
#define PROBE_TOKEN_LEN 32
#define PROBE_MAX_PORTS 128
#define PROBE_MAX_SIZES 16
#define PROBE_UDP_HDR 24	/* magic 4, flags 4, seq 8, cookie 8 */
#define PROBE_F_ACK 1u		/* answer with the header only */

enum probe_kind {
	PK_UDP_ECHO, PK_TCP_ECHO, PK_PORTS,	/* responders */
	PK_LATENCY, PK_MTU, PK_PORTSCAN,	/* runners */
	PK_MESH,				/* runner, many targets */
};

#define PROBE_MESH_MAX 4096	/* targets of one mesh runner */

struct mesh_target {
	struct netaddr dst;
	uint16_t port;
};

struct probe {
	TAILQ_ENTRY(probe) entry;
	struct probes *ps;
	struct conn *owner;
	char id[PROBE_ID_LEN + 1];
	uint8_t token[PROBE_TOKEN_LEN];
	enum probe_kind kind;
	bool udp;			/* runner: latency over UDP */
	struct netaddr local, dst, other;
	uint16_t port;
	uint16_t ports[PROBE_MAX_PORTS];
	int pfd[PROBE_MAX_PORTS];	/* PK_PORTS listeners */
	int nports;
	uint32_t sizes[PROBE_MAX_SIZES];
	int nsizes;
	uint32_t count;
	uint32_t rate;			/* messages per second, 0 = back to back */
	uint32_t window;		/* latency: probes in flight at most,
					   0 = as many as the rate sends */
	double duration;
	uint32_t timeout_ms;
	uint32_t max_size;		/* MTU: upper bound to search */
	int fd;				/* responder socket */
	pthread_t th;
	bool th_started;
	_Atomic int stop;
	ev_async done;
	ev_timer deadline;
	struct mesh_target *mt;		/* PK_MESH: its targets */
	int nmt;
	cJSON *result;			/* runner: built by the thread */
	char error[CF_ERRLEN];
};

/* probe_parse reads a PROBE_OPEN (run false) or PROBE_RUN body into p
 * (p->ps->cfg gives the limits); -1 with err naming the field. p->mt is
 * allocated for a mesh: the caller frees it. */
int probe_parse(struct probe *p, const cJSON *b, bool run, char *err);

void *probe_udp_echo(void *);
void *probe_tcp_echo(void *);
void *probe_run_latency(void *);
void *probe_run_mtu(void *);
void *probe_run_ports(void *);
void *probe_run_mesh(void *);
double probe_now(void);
uint64_t probe_now_ns(void);
/* The UDP probe header (PROBE_UDP_HDR bytes): magic, flags, sequence and
 * the first 8 bytes of the token; get fails on a stranger's datagram. */
void probe_hdr_put(uint8_t *b, const struct probe *p, uint32_t flags,
    uint64_t seq);
int probe_hdr_get(const uint8_t *b, size_t n, const struct probe *p,
    uint32_t *flags, uint64_t *seq);
/* probe_runner_socket: a socket of type bound to the probe's local
 * address; -1 with err. */
int probe_runner_socket(struct probe *p, int type, char *err);
/* What every runner does (probe_io.c): connect to the peer's port (-1
 * with err), set a socket's receive and send timeouts, record the
 * kernel's route to the peer in res (and out, may be NULL), and finish:
 * the result (with err when not NULL) goes to the loop, fd is closed. */
int probe_runner_connect(struct probe *p, int fd, uint16_t port, char *err);
void probe_timeo(int fd, int ms);
/* probe_latency_udp (probe_lat.c): p->count probes of size bytes over the
 * connected UDP socket fd, sent at p->rate whatever is lost (one at a
 * time when the rate is 0), each lost after its own timeout, until the
 * count or end (probe_now's clock); *seq numbers them. The size's result
 * ({size, sent, lost, rtt, ...}), NULL without memory. */
cJSON *probe_latency_udp(struct probe *p, int fd, uint32_t size, double end,
    uint64_t *seq);
void probe_add_route(struct probe *p, cJSON *res, struct route_info *out);
void *probe_runner_done(struct probe *p, cJSON *res, int fd,
    const char *err);
void probe_finished(struct probe *p);
/* probe_own_load: the host's own share in a measurement into o (a
 * result's "load"): rx_drops (socket fd's buffer overflows), runq, cpus. */
void probe_own_load(cJSON *o, int fd);

#endif
