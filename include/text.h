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

/* text_labels: a label of at most TEXT_LABEL - 1 characters for each of
 * n names, all different, for a table's rows and columns. The names as
 * they are when they fit; else without the prefix (up to a '-', '.' or
 * '_') and the suffix (from one) that all share, "ceph-osd-01" and
 * "ceph-osd-02" being "01" and "02"; else "#1", "#2"... Returns 0 when
 * the labels are the names, 1 when a shared prefix and suffix were left
 * out (*pre and *suf say how long they are), 2 when they are numbers. */
#define TEXT_LABEL 8
int text_labels(const char *const *names, int n, char (*lab)[TEXT_LABEL],
    size_t *pre, size_t *suf);

#endif
