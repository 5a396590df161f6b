/*
 * conn_int: what the three files of a connection share, in layers:
 * conn.c (sockets, reading frames, dispatch, connect and accept) calls
 * conn_handshake.c (HELLO and AUTH), and both call conn_io.c (state
 * changes, queuing, timer, closing); never the other way round. Not
 * for other modules: include/conn.h is the door.
 */
#ifndef CF_CONN_INT_H
#define CF_CONN_INT_H

#include "conn.h"
#include "frame.h"

/* conn_io.c */
void conn_change_state(struct conn *c, enum conn_state s);
void conn_set_timer(struct conn *c, double after);
int conn_queue(struct conn *c, unsigned type, uint16_t flags,
    const cJSON *body);

/* conn_handshake.c: the client's HELLO, the peer's HELLO and AUTH, and
 * the step into ESTABLISHED. */
void conn_send_hello(struct conn *c);
void conn_on_hello(struct conn *c, const struct frame_hdr *h,
    const cJSON *body);
void conn_on_auth(struct conn *c, const cJSON *body);
void conn_established(struct conn *c);

#endif
