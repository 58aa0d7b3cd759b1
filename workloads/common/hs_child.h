/* hs_child.h: one computation in a forked child process, its answer (a fixed-size struct of
 * plain values) sent back whole through a pipe. SimGrid runs one simulation per process, so
 * a command that simulates several configurations (suggest, strategy --search) or runs each
 * job of a fabric alone (--baseline) forks one child per simulation; the machine loaded before
 * the fork serves every child. The parent may start several and collect them later.
 *
 * Folder: workloads/common/ (prefix hs_child_). A sweep's runs are other executables, with a
 * pool, timeouts and signals of its own (sim/sweep/sweep_run.c); they do not come here. */
#ifndef HS_CHILD_H
#define HS_CHILD_H

#include <stddef.h>
#include <sys/types.h>

/* A child in flight. */
typedef struct {
    pid_t pid; /* 0: none in flight */
    int fd;    /* the read end of its pipe */
} hs_child;

/* What the child computes: fills `answer` (answer_bytes) from `arg`. */
typedef void (*hs_child_work)(void *arg, void *answer);

/* Fork a child that runs work(arg, answer) on its copy of `answer` and sends those
 * answer_bytes back. `what` names the computation in a failure ("--baseline"). Buffered output
 * is flushed first, so the child repeats none. HS_EINTERNAL if no pipe or fork. */
int hs_child_start(hs_child *c, hs_child_work work, void *arg, void *answer,
                   size_t answer_bytes, const char *what, char *err);

/* Wait for the child and read its answer into `answer`: HS_OK when the whole answer arrived
 * and the child exited 0; else HS_EINTERNAL, with no message (the caller names the run). */
int hs_child_finish(hs_child *c, void *answer, size_t answer_bytes);

/* A child whose answer is no longer wanted (an error elsewhere): wait for it, no zombie left. */
void hs_child_abandon(hs_child *c);

#endif
