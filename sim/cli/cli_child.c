/* cli_child.c: hybridsim-sim run as a child of hybridsim (cli_int.h's cli_child_run, started
 * and waited for by hs_child.h), so that nothing of SimGrid's dying reaches the user.
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
 * (PR_SET_PDEATHSIG), as a sweep's --timeout expects. What is this file's own is the policy:
 * which lines are held, and which ends are relayed and which reported. */
#define _GNU_SOURCE
#include "cli_int.h"

#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hs_child.h"
#include "hs_grow.h"
#include "hs_mem.h"
#include "hs_out.h"

#define CHILD_HELD_MAX (1 << 20) /* held lines beyond this are relayed: not a dying burst */

/* The child's stderr lines read and not yet relayed. */
typedef struct {
    char *text;         /* malloc'ed; NULL when nothing is held */
    int len;            /* bytes held */
    size_t cap;         /* bytes allocated (hs_grow) */
    bool said;          /* a "hybridsim: " line was relayed: the child said why it failed */
} child_err;

static void relay(const char *text, size_t len)
{
    (void)hs_out_write_all(STDERR_FILENO, text, len);
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

/* One line of the child's stderr (hs_child_line): a line of ours is relayed at once with all
 * held before it; any other is held. */
static void on_line(void *ctx, const char *line, size_t len)
{
    child_err *e = ctx;
    if (line[len - 1] == '\n' && ours(line, len)) { /* an unfinished last line is held */
        e->said |= strncmp(line, "hybridsim: ", 11) == 0;
        relay(e->text, (size_t)e->len);
        relay(line, len);
        e->len = 0;
        return;
    }
    if (len > CHILD_HELD_MAX || !hs_grow((void **)&e->text, &e->cap, (size_t)e->len + len, 1)) {
        relay(e->text, (size_t)e->len); /* no room to hold: relay what is held, and it */
        relay(line, len);
        e->len = 0;
        return;
    }
    memcpy(e->text + e->len, line, len);
    e->len += (int)len;
    if (e->len > CHILD_HELD_MAX) { /* a long stream of other lines: pass it on */
        relay(e->text, (size_t)e->len);
        e->len = 0;
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
        if (e->len && memmem(e->text, (size_t)e->len, words[i], strlen(words[i])))
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
static int report_death(const hs_child_end *end, const child_err *e, char *err)
{
    char how[64], name[32], limits[512];
    hs_mem_describe(limits, sizeof limits);
    if (end->signal)
        snprintf(how, sizeof how, "stopped by %s", signal_name(end->signal, name, sizeof name));
    else
        snprintf(how, sizeof how, "ended with exit status %d", end->exit_status);
    const char *sep = limits[0] ? "; in force: " : "";
    if (said_out_of_memory(e) || end->signal == SIGKILL)
        return hs_fail(err, HS_EINTERNAL,
                       "the simulation ran out of memory (hybridsim-sim %s%s%s): simulate fewer "
                       "GPUs, or raise the limit", how, sep, limits);
    return hs_fail(err, HS_EINTERNAL,
                   "the simulation failed (hybridsim-sim %s without saying why%s%s); what "
                   "SimGrid printed is not shown: please report the command", how, sep, limits);
}

int cli_child_run(const char *full, char **argv, char *err)
{
    child_err e = {0};
    hs_child_spec spec = {.exe = full, .argv = argv, .on_line = on_line, .line_ctx = &e,
                          .forward_signals = true, .die_with_parent = true, .what = full};
    hs_child_end end;
    int status = hs_child_run(&spec, NULL, &end, err);
    if (status == HS_OK && end.exec_errno)
        status = hs_fail(err, HS_EINTERNAL, "cannot run %s (simulations need it beside "
                         "hybridsim): %s", full, strerror(end.exec_errno));
    int code = end.exit_status, sig = end.signal;
    bool well = code == HS_OK || ((code == HS_EINTERNAL || code == HS_EINPUT) && e.said) ||
                sig == SIGINT || sig == SIGTERM || sig == SIGHUP || sig == SIGPIPE;
    if (status == HS_OK && !well)
        status = report_death(&end, &e, err);
    if (status != HS_OK) {
        free(e.text);
        return status;
    }
    relay(e.text, (size_t)e.len);
    free(e.text);
    if (sig) /* ended as the child did, as the exec this replaces would have */
        hs_out_die_by(sig);
    exit(sig ? 128 + sig : code);
}
