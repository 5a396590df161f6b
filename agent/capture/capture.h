/*
 * capture: libpcap on the analyzer (analyzer.h). Offline here: the same
 * analysis of a saved capture ('cephfab-agent --analyze FILE').
 */
#ifndef CF_CAPTURE_H
#define CF_CAPTURE_H

#include <stdbool.h>

/* capture_analyze_file prints the analysis of path (a pcap or pcapng
 * file): totals, per flow, the flow table's evictions; JSON or a table.
 * flows caps the flow table (0: the default). Returns 0, or 2 when the
 * file cannot be read (the reason on stderr, one line). */
int capture_analyze_file(const char *path, bool json, unsigned flows);

#endif
