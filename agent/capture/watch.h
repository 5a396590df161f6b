/*
 * watch: live capture of real traffic on the Ceph networks. At start the
 * agent opens a pcap handle on each interface holding an address in the
 * configured public/cluster networks (this needs CAP_NET_RAW; the agent
 * may drop privileges afterwards). A WATCH request starts a capture
 * thread on one network's handle with a BPF filter (default: Ceph's
 * ports); every interval the thread sums the analyzer's flows per peer
 * and the agent sends WATCH_INTERVAL with the deltas, until the duration
 * ends or the coordinator goes away. Headers only (snaplen 128), a ring
 * buffer sized for the link, a capped flow table.
 */
#ifndef CF_WATCH_H
#define CF_WATCH_H

#include <ev.h>

#include "config.h"
#include "conn.h"

#define WATCH_DEFAULT_FILTER \
	"tcp and (port 3300 or port 6789 or portrange 6800-7300)"

struct watch;

struct watches {
	struct ev_loop *loop;
	const struct agent_config *cfg;
	struct wnet {
		char ifname[16];
		struct netaddr addr;	/* ours on that network */
		void *pcap;		/* pcap_t, opened at start */
		struct watch *busy;	/* the watch using it */
		char error[128];	/* why it could not be opened */
	} net[2];			/* 0 public, 1 cluster */
};

/* watches_init opens the capture handles (as root, before any privilege
 * drop); a network without one gets the reason in net[i].error. */
void watches_init(struct watches *ws, struct ev_loop *loop,
    const struct agent_config *cfg);
/* watches_message handles WATCH; 0 if the message is not one. */
int watches_message(struct watches *ws, struct conn *c,
    const struct frame_hdr *h, const cJSON *body);
void watches_conn_closed(struct watches *ws, struct conn *c);
void watches_fini(struct watches *ws);

#endif
