/* hs_child.h: one computation in a forked child process, its answer (a fixed-size struct of
 * plain values) sent back whole through a pipe. SimGrid runs one simulation per process, so
 * a command that simulates several configurations (suggest, strategy --search) or runs each
 * job of a fabric alone (--baseline) forks one child per simulation; the machine loaded before
 * the fork serves every child. The parent may start several and collect them later.
 *
 * Folder: workloads/common/ (prefix hs_child_). Two other children are other mechanisms and do
 * not come here: hybridsim handing a command to hybridsim-sim (sim/cli/cli_child.c) execs
 * another executable, relays its stderr line by line (holding what SimGrid prints when it
 * dies), forwards signals and ends this process as the child ended; a sweep's runs
 * (sim/sweep/sweep_run.c) are executables too, with a pool, timeouts and signals of its own.
 * What they would share with this (a pipe, a fork, a wait) is a few system calls, each used
 * differently. */
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
