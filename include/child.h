/*
 * child: run a program with a deadline and collect what it prints: the
 * coordinator's ceph CLI and OSD restart commands, the agent's vtysh.
 * It blocks: never call it from an event loop callback (the agent calls
 * it from its facts thread).
 */
#ifndef CF_CHILD_H
#define CF_CHILD_H

#include <stddef.h>

#define CHILD_STDERR	0x1	/* stderr into the output too */
/* stderr kept apart; when the child exits non-zero, its last line (the
 * CLI's own "Error ...: why") is in err, "" when it said nothing */
#define CHILD_ERRLINE	0x2

/* child_run runs argv[0] (PATH searched) with stdin from /dev/null.
 * It gets no descriptor of ours but stdin, stdout and stderr, and the
 * deadline holds until it exits (not only until it closes its output).
 * Its stdout (and stderr with CHILD_STDERR; else discarded) goes to *out,
 * NUL-terminated, at most max bytes (caller frees; NULL when it printed
 * nothing). Returns the exit status (128 + N for signal N), or -1 with
 * err: not started, not installed (127), or killed at the deadline. */
int child_run(const char *const *argv, double timeout, int flags,
    char **out, size_t *len, size_t max, char *err);
/* child_kill_all kills every child child_run is waiting for (their
 * callers return at once: "no answer") and refuses new ones: for a
 * shutdown. */
void child_kill_all(void);

#endif
