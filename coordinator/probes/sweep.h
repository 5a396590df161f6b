/*
 * sweep: 'pair A B --sport-sweep K': K short single-stream tests one after
 * another, each from its own source port, each mapped to the path (ECMP
 * next hop or bond member) whose counters it moved, so that every hash
 * bucket is seen (fbtracert-style coverage for LACP and ECMP). Each test
 * is a child 'cephfab pair --json' (bounded, killable), run in turn.
 */
#ifndef CF_SWEEP_H
#define CF_SWEEP_H

#include <stdbool.h>
#include <stdint.h>

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
