/* cli_child.c: hybridsim-sim run as a child of hybridsim (cli_int.h's cli_child_run), so that
 * nothing of SimGrid's dying reaches the user.
 *
 * The up-front memory check (sim/engine/engine_fit.c) refuses what will not fit, but a
 * simulation can still die inside SimGrid (a limit changed meanwhile, an estimate short, a
 * bug): SimGrid then prints "Failed to allocate stack" or "Memory callocation failed" and a
 * backtrace, and aborts (exit 134). So the child's standard error comes through a pipe: a line
 * of hybridsim's own (it starts with the name of a command: "hybridsim: ", "suggest: ",
 * "strategy ...") is relayed at once, with whatever came before it; any other line is held
 * until one of ours follows or the child ends well. A child that ends well (exit 0, or 1 or 2
 * after saying why; or stopped by SIGINT, SIGTERM, SIGHUP or SIGPIPE) gives all it wrote, in
 * order, and this process ends the same way. A child that dies otherwise (SIGABRT, SIGSEGV,
 * SIGKILL, an exit status of SimGrid's or of the loader) has its held lines dropped and is
 * reported in one message, exit status 1. Standard output goes straight through.
 *
 * SIGINT, SIGTERM and SIGHUP sent to this process are passed on to the child, which cleans up
 * and dies by them; if this process is killed outright, the kernel kills the child
 * (PR_SET_PDEATHSIG), as a sweep's --timeout expects. */
#define _GNU_SOURCE
#include "cli_int.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hs_mem.h"
#include "hs_out.h"

#define CHILD_HELD_MAX (1 << 20) /* held lines beyond this are relayed: not a dying burst */

/* The lines read and not yet relayed. */
typedef struct {
    char *text;         /* malloc'ed; NULL when nothing is held */
    size_t len, cap;    /* bytes held, bytes allocated */
    size_t scanned;     /* bytes already sorted into complete lines (all held) */
    bool said;          /* a "hybridsim: " line was relayed: the child said why it failed */
    bool out_of_memory; /* a dropped line said an allocation failed */
} child_err;

/* The child, for the signal handler: the one piece of state a handler can reach. */
static volatile pid_t child_pid;

static void forward(int sig)
{
    if (child_pid > 0)
        kill(child_pid, sig);
}

static void relay(const char *text, size_t len)
{
    while (len > 0) {
        ssize_t w = write(STDERR_FILENO, text, len);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return;
        text += w;
        len -= (size_t)w;
    }
}

/* A line of hybridsim's own: the name of a command that prints on stderr, then a colon. A
 * sanitized build relays every line at once: its reports ("ERROR: AddressSanitizer ...", then
 * exit 1) are what it is built for. */
static bool ours(const char *line, size_t len)
{
#ifdef HS_SANITIZE
    return true;
#endif
    static const char *const starts[] = {"hybridsim: ", "suggest: ", "strategy --"};
    for (size_t i = 0; i < sizeof starts / sizeof *starts; i++)
        if (len >= strlen(starts[i]) && memcmp(line, starts[i], strlen(starts[i])) == 0)
            return true;
    return false;
}

/* Sort the complete lines not yet scanned: relay up to and including each line of ours. */
static void sort_lines(child_err *e)
{
    char *nl;
    while ((nl = memchr(e->text + e->scanned, '\n', e->len - e->scanned)) != NULL) {
        size_t start = e->scanned, end = (size_t)(nl - e->text) + 1;
        e->scanned = end;
        if (!ours(e->text + start, end - start))
            continue;
        e->said |= strncmp(e->text + start, "hybridsim: ", 11) == 0;
        relay(e->text, end);
        memmove(e->text, e->text + end, e->len - end);
        e->len -= end;
        e->scanned = 0;
    }
    if (e->scanned > CHILD_HELD_MAX) { /* a long stream of other lines: pass it on */
        relay(e->text, e->scanned);
        memmove(e->text, e->text + e->scanned, e->len - e->scanned);
        e->len -= e->scanned;
        e->scanned = 0;
    }
}

/* Read the child's stderr to its end, relaying and holding as above. */
static void read_err(int fd, child_err *e)
{
    for (;;) {
        if (e->cap - e->len < 4096) {
            size_t cap = e->cap ? 2 * e->cap : 65536;
            char *grown = realloc(e->text, cap);
            if (!grown) { /* no room to hold: relay what is held, keep reading */
                relay(e->text, e->len);
                e->len = e->scanned = 0;
                if (!e->text)
                    return;
                continue;
            }
            e->text = grown;
            e->cap = cap;
        }
        ssize_t n = read(fd, e->text + e->len, e->cap - e->len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return;
        e->len += (size_t)n;
        sort_lines(e);
    }
}

/* Did a held line say that memory ran out? SimGrid's words, C++'s, the C library's and the
 * loader's (a child that cannot map its libraries under ulimit -v). */
static bool said_out_of_memory(const child_err *e)
{
    static const char *const words[] = {"Failed to allocate", "allocation failed",
                                        "callocation failed", "Memory allocation",
                                        "bad_alloc", "Cannot allocate memory",
                                        "out of memory", "Failed to protect stack",
                                        "failed to map segment"};
    for (size_t i = 0; i < sizeof words / sizeof *words; i++)
        if (e->len && memmem(e->text, e->len, words[i], strlen(words[i])))
            return true;
    return false;
}

static const char *signal_name(int sig, char *buf, size_t len)
{
    switch (sig) {
    case SIGABRT: return "SIGABRT";
    case SIGSEGV: return "SIGSEGV";
    case SIGBUS: return "SIGBUS";
    case SIGKILL: return "SIGKILL";
    case SIGILL: return "SIGILL";
    case SIGFPE: return "SIGFPE";
    default: return hs_out_signal_name(sig, buf, len);
    }
}

/* A child that died without saying why: one message, its own output dropped. */
static int report_death(int wstatus, const child_err *e, char *err)
{
    char how[64], name[32], limits[512];
    hs_mem_describe(limits, sizeof limits);
    if (WIFSIGNALED(wstatus))
        snprintf(how, sizeof how, "stopped by %s",
                 signal_name(WTERMSIG(wstatus), name, sizeof name));
    else
        snprintf(how, sizeof how, "ended with exit status %d", WEXITSTATUS(wstatus));
    const char *sep = limits[0] ? "; in force: " : "";
    if (said_out_of_memory(e) || (WIFSIGNALED(wstatus) && WTERMSIG(wstatus) == SIGKILL))
        return hs_fail(err, HS_EINTERNAL,
                       "the simulation ran out of memory (hybridsim-sim %s%s%s): simulate fewer "
                       "GPUs, or raise the limit", how, sep, limits);
    return hs_fail(err, HS_EINTERNAL,
                   "the simulation failed (hybridsim-sim %s without saying why%s%s); what "
                   "SimGrid printed is not shown: please report the command", how, sep, limits);
}

/* Start the child with its stderr into fd[1]; the signals stay blocked in the parent until
 * child_pid is set, so that none is lost. */
static pid_t start(const char *full, char **argv, const int fd[2], const sigset_t *saved)
{
    char msg[HS_ERR_LEN + 128];
    int len = snprintf(msg, sizeof msg, "hybridsim: cannot run %s (simulations need it beside "
                       "hybridsim): ", full);
    pid_t parent = getpid(), pid = fork();
    if (pid != 0)
        return pid;
    prctl(PR_SET_PDEATHSIG, SIGKILL); /* the child dies with this process */
    if (getppid() != parent)
        _exit(HS_EINTERNAL);
    sigprocmask(SIG_SETMASK, saved, NULL);
    if (dup2(fd[1], STDERR_FILENO) < 0)
        _exit(HS_EINTERNAL);
    execv(full, argv);
    const char *why = strerror(errno);
    relay(msg, len > 0 && (size_t)len < sizeof msg ? (size_t)len : 0);
    relay(why, strlen(why));
    relay("\n", 1);
    _exit(HS_EINTERNAL);
}

/* Pass SIGINT, SIGTERM and SIGHUP on to the child (those this process does not ignore). */
static void forward_signals(void)
{
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = forward;
    sigemptyset(&sa.sa_mask);
    for (int i = 0; i < 3; i++)
        if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler != SIG_IGN)
            sigaction(sigs[i], &sa, NULL);
}

int cli_child_run(const char *full, char **argv, char *err)
{
    int fd[2];
    sigset_t block, saved;
    if (pipe2(fd, O_CLOEXEC) != 0)
        return hs_fail(err, HS_EINTERNAL, "cannot create a pipe for %s: %s", full,
                       strerror(errno));
    sigemptyset(&block);
    sigaddset(&block, SIGINT), sigaddset(&block, SIGTERM), sigaddset(&block, SIGHUP);
    sigprocmask(SIG_BLOCK, &block, &saved);
    fflush(NULL); /* the child must not repeat buffered output */
    pid_t pid = start(full, argv, fd, &saved);
    int fork_errno = errno;
    close(fd[1]);
    if (pid > 0) {
        child_pid = pid;
        forward_signals();
    }
    sigprocmask(SIG_SETMASK, &saved, NULL);
    if (pid < 0) {
        close(fd[0]);
        return hs_fail(err, HS_EINTERNAL, "cannot start %s: %s", full, strerror(fork_errno));
    }
    child_err e = {0};
    read_err(fd[0], &e);
    close(fd[0]);
    int wstatus = 0;
    while (waitpid(pid, &wstatus, 0) < 0 && errno == EINTR)
        continue;
    child_pid = 0;
    int code = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : -1;
    int sig = WIFSIGNALED(wstatus) ? WTERMSIG(wstatus) : 0;
    bool well = code == HS_OK || ((code == HS_EINTERNAL || code == HS_EINPUT) && e.said) ||
                sig == SIGINT || sig == SIGTERM || sig == SIGHUP || sig == SIGPIPE;
    if (!well) {
        int status = report_death(wstatus, &e, err);
        free(e.text);
        return status;
    }
    relay(e.text, e.len);
    free(e.text);
    if (sig) /* ended as the child did, as the exec this replaces would have */
        hs_out_die_by(sig);
    exit(sig ? 128 + sig : code);
}
