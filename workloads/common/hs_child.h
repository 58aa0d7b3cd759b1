/* hs_child.h: the one way hybridsim runs a child process. SimGrid runs one simulation per
 * process and cannot be reset, so whatever simulates more than once, or must survive
 * SimGrid's dying, does it in a child:
 *
 *   hybridsim -> hybridsim-sim   (sim/cli/cli_child.c) exec; its stderr line by line to a
 *                                filter that holds back what SimGrid prints when it dies;
 *                                SIGINT, SIGTERM and SIGHUP forwarded; killed with this process
 *   suggest, strategy --search,  (sim/cli/cli_sim.c, sim/fabric/fabric_run.c) a function run
 *   fabric's --baseline          after fork on the machine loaded before it; its answer, a
 *                                fixed-size struct of plain values, back whole through a pipe
 *   a sweep's runs               (sim/sweep/sweep_run.c) exec of hybridsim with stdout and
 *                                stderr into files, --jobs at a time (hs_child_pause, then
 *                                hs_child_poll), each with --timeout; killed with this process
 *
 * A child is started from a spec, then waited for (hs_child_wait; hs_child_run does both) or
 * polled (hs_child_poll); how it ended (exit status, signal, timeout, an exec that failed)
 * comes back as plain values and the caller words its own message.
 *
 * Folder: workloads/common/ (prefix hs_child). */
#ifndef HS_CHILD_H
#define HS_CHILD_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* What a forked child computes: fills `answer` (answer_bytes, zeroed) from `arg`. */
typedef void (*hs_child_work)(void *arg, void *answer);

/* One line of the child's stderr, its '\n' included (the last may lack one). */
typedef void (*hs_child_line)(void *ctx, const char *line, size_t len);

/* How to start a child. Zeroed fields mean: no, none, this process's. */
typedef struct {
    const char *exe;       /* exec this executable (a path) with argv; NULL: call work */
    char *const *argv;     /* its arguments, argv[0] the name it is called by */
    hs_child_work work;    /* without exe: work(arg, answer) in the forked child */
    void *arg;             /* work's argument (the child's copy of this process's memory) */
    size_t answer_bytes;   /* > 0: the size of work's answer, sent back whole */
    int std_fd[3];         /* > 0: the child's stdin, stdout, stderr; else this process's */
    hs_child_line on_line; /* non-NULL: the child's stderr through a pipe, a line at a time */
    void *line_ctx;        /* on_line's first argument */
    double timeout_s;      /* > 0: killed (SIGKILL) once it has run this long */
    bool forward_signals;  /* SIGINT, SIGTERM, SIGHUP sent to this process go to the child
                            * (one such child at a time; a signal ignored stays ignored) */
    bool die_with_parent;  /* the kernel kills it (SIGKILL) if this process dies */
    const char *what;      /* names it when it cannot start: "--baseline" */
} hs_child_spec;

/* A child in flight. */
typedef struct {
    pid_t pid;             /* 0: none in flight */
    int err_fd;            /* the read end of its stderr pipe (on_line), else -1 */
    int answer_fd;         /* the read end of its answer pipe, else -1 */
    int exec_fd;           /* exec: where a failed exec's errno arrives, else -1 */
    int pid_fd;            /* a pidfd that polls readable when it ends (hs_child_pause), or -1 */
    size_t answer_bytes;   /* the answer expected */
    hs_child_line on_line; /* where its stderr lines go */
    void *line_ctx;        /* on_line's first argument */
    double deadline_s;     /* when it is killed (CLOCK_MONOTONIC seconds); 0: never */
    bool timed_out;        /* it was killed at its deadline */
    bool forwarded;        /* the signals of this process go to it */
} hs_child;

/* How a child ended. */
typedef struct {
    int exit_status; /* its exit status; -1 when a signal stopped it */
    int signal;      /* the signal that stopped it; 0 when it exited */
    bool timed_out;  /* it ran past timeout_s and was killed */
    int exec_errno;  /* > 0: exec (or setting up its streams) failed with it (exit status 127) */
    bool answered;   /* the whole answer arrived */
} hs_child_end;

/* Start a child as `spec` says. Buffered output is flushed first, so the child repeats none.
 * HS_EINTERNAL ("WHAT: cannot fork: ...") if no pipe or no fork; then c->pid is 0. */
int hs_child_start(hs_child *c, const hs_child_spec *spec, char *err);

/* Read the child's stderr (to on_line) and its answer (into `answer`, NULL: dropped) to their
 * end, wait for it (killing it at its deadline) and say how it ended. HS_EINTERNAL only if it
 * cannot be waited for ("waitpid: ..."). */
int hs_child_wait(hs_child *c, void *answer, hs_child_end *end, char *err);

/* hs_child_start, then hs_child_wait: a child run to its end, for a caller that waits for it
 * alone. HS_EINTERNAL as they say; `end` zeroed when it could not start. */
int hs_child_run(const hs_child_spec *spec, void *answer, hs_child_end *end, char *err);

/* Without blocking: *ended and `end` if it has ended; else kill it if past its deadline. For
 * children without pipes (a pool polls several). HS_EINTERNAL as hs_child_wait. */
int hs_child_poll(hs_child *c, bool *ended, hs_child_end *end, char *err);

/* Sleep until one of the n children in flight among kids[] (pid 0: a free place) may have
 * ended, the first deadline among them, a signal, or max_s: a pool's pause between its
 * hs_child_poll rounds. Where the kernel gives no pidfd, it sleeps 20 ms at the most. */
void hs_child_pause(hs_child *const *kids, int n, double max_s);

/* Send it a signal (if in flight). */
void hs_child_kill(hs_child *c, int sig);

/* A child whose end is no longer wanted (an error elsewhere, a pool stopping): its pipes
 * closed, waited for, no zombie left. */
void hs_child_abandon(hs_child *c);

#endif
