/*
 * text: bounded text building. Every fixed buffer that grows piece by
 * piece is written through text_appendf, never through 'off +=
 * snprintf(...)', whose offset runs past the buffer once a piece is cut
 * and turns the next size into a huge number (house style rule 3).
 */
#ifndef CF_TEXT_H
#define CF_TEXT_H

#include <stddef.h>

/* text_appendf formats at buf + off (buf holds size bytes, NUL-terminated
 * text of length off) and returns the new length: at most size - 1,
 * whatever the pieces' lengths; a piece that does not fit is cut. */
size_t text_appendf(char *buf, size_t size, size_t off, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#endif
