/* trace_egress: which port each flow really leaves by, seen on the wire,
 * see trace.h. The kernel's answer to a route query with the flow's
 * ports is no witness: a connected socket's ECMP choice on its own host
 * is the socket's (measured on Linux 6.18 with two equal-cost next hops:
 * 5 of 8 flows left by the other one), so the tracer watches a few of
 * each flow's packets go out instead. */
#include "probes/trace.h"
#include "clock.h"

#include <arpa/inet.h>
#include <net/if.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <pcap/pcap.h>
#include <pcap/sll.h>

#define EGRESS_WAIT 0.05	/* seconds of packets: flows at full rate */
#define EGRESS_SNAP 128

struct egress_ctx {
	struct trace_flow *f;
	int n, found;
};

/* egress_packet: one captured packet (Linux cooked v2 header, then IP),
 * matched to a flow by its ports; the interface it left by recorded. */
static void
egress_packet(u_char *arg, const struct pcap_pkthdr *h, const u_char *p)
{
	struct egress_ctx *c = (struct egress_ctx *)arg;
	size_t len = h->caplen, ihl;
	uint32_t ifindex;
	uint16_t sp, dp;
	int i;

	/* type 2, reserved 2, ifindex 4, hatype 2, pkttype 1, ... */
	if (len < SLL2_HDR_LEN + 40 || p[10] != LINUX_SLL_OUTGOING)
		return;
	ifindex = (uint32_t)p[4] << 24 | (uint32_t)p[5] << 16 |
	    (uint32_t)p[6] << 8 | p[7];
	p += SLL2_HDR_LEN;
	len -= SLL2_HDR_LEN;
	if ((p[0] >> 4) == 4) {
		ihl = (size_t)(p[0] & 0x0f) * 4;
		if (ihl < 20 || len < ihl + 4 || p[9] != 6)
			return;
	} else if ((p[0] >> 4) == 6 && p[6] == 6) {
		ihl = 40;
	} else {
		return;
	}
	sp = (uint16_t)(p[ihl] << 8 | p[ihl + 1]);
	dp = (uint16_t)(p[ihl + 2] << 8 | p[ihl + 3]);
	for (i = 0; i < c->n; i++)
		if (c->f[i].sport == sp && c->f[i].dport == dp &&
		    c->f[i].egress[0] == '\0' &&
		    if_indextoname(ifindex, c->f[i].egress) != NULL)
			c->found++;
}

void
trace_egress(struct trace_flow *f, int n)
{
	char eb[PCAP_ERRBUF_SIZE], filt[256], a[NETADDR_STRLEN],
	    b[NETADDR_STRLEN];
	struct egress_ctx c = { f, n, 0 };
	struct bpf_program prog;
	struct pollfd pf;
	double until;
	pcap_t *p;

	if (n == 0 || (p = pcap_create("any", eb)) == NULL)
		return;
	/* One test, one pair of addresses: every flow in one filter. */
	snprintf(filt, sizeof(filt), "%s and tcp and src host %s and dst "
	    "host %s", f[0].src.family == AF_INET ? "ip" : "ip6",
	    netaddr_str(&f[0].src, a, sizeof(a)),
	    netaddr_str(&f[0].dst, b, sizeof(b)));
	if (pcap_set_snaplen(p, EGRESS_SNAP) != 0 ||
	    pcap_set_immediate_mode(p, 1) != 0 || pcap_activate(p) < 0 ||
	    pcap_set_datalink(p, DLT_LINUX_SLL2) == -1 ||
	    pcap_compile(p, &prog, filt, 1, PCAP_NETMASK_UNKNOWN) == -1) {
		pcap_close(p);
		return;
	}
	if (pcap_setfilter(p, &prog) == -1 || pcap_setnonblock(p, 1, eb) ==
	    -1 || (pf.fd = pcap_get_selectable_fd(p)) == -1) {
		pcap_freecode(&prog);
		pcap_close(p);
		return;
	}
	pcap_freecode(&prog);
	pf.events = POLLIN;
	until = clock_mono() + EGRESS_WAIT;
	while (c.found < n && clock_mono() < until)
		if (poll(&pf, 1, 10) > 0)
			pcap_dispatch(p, -1, egress_packet, (u_char *)&c);
	pcap_close(p);
}
