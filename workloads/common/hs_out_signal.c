/* hs_out_signal.c: what SIGINT, SIGTERM and SIGHUP do (hs_out.h): remove the temp files of the
 * outputs not yet committed, say which outputs were written and which were not, and end the
 * process by the same signal.
 *
 * The handler may only make async-signal-safe calls (unlink, write, sigaction, raise), so
 * everything it needs is ready before it can run: the list of outputs (paths by pointer,
 * fixed-size entries) and the message, rebuilt whenever the list changes, with the signals
 * blocked meanwhile so that the handler never sees half a change. It ends the process by
 * re-raising the signal with the default action rather than exiting: a calling shell or make
 * then knows the child died of it and stops too (exit() from a handler, as SimGrid's does,
 * also runs atexit handlers in the middle of whatever was interrupted). Only the process that
 * listed the outputs cleans them: a forked child (fabric's --baseline) just dies.
 * hs_out_write_all, the handler's write to the end, is here and serves every other writer
 * that must be async-signal-safe. */
#define _GNU_SOURCE
#include "hs_out.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "hs_out_int.h"

#define HS_OUT_SLOTS 16
#define HS_OUT_SHOWN 160   /* a path as the message shows it (longer ones are cut) */
#define HS_OUT_MESSAGE (HS_OUT_SLOTS * (HS_OUT_SHOWN + 40))

static const int trapped[3] = {SIGINT, SIGTERM, SIGHUP};

/* One output, as the handler sees it. */
typedef struct {
    hs_out_state state;
    const char *tmp;             /* the temp to remove, or NULL (owned by the hs_out) */
    char shown[HS_OUT_SHOWN];    /* the path as the user gave it */
} out_entry;

/* The module's global state, forced by signals: a handler reaches nothing else. */
static out_entry entries[HS_OUT_SLOTS];
static char message[HS_OUT_MESSAGE]; /* "; a.json written; b.csv left as it was\n" */
static size_t message_len;
static pid_t owner;                  /* the process the entries belong to */
static bool dispositions_read;       /* the first hs_out_trap_signals read what was inherited */
static bool ignored_at_start[3];

void hs_out__hold(sigset_t *saved)
{
    sigset_t block;
    sigemptyset(&block);
    for (int i = 0; i < 3; i++)
        sigaddset(&block, trapped[i]);
    sigprocmask(SIG_BLOCK, &block, saved);
}

void hs_out__release(const sigset_t *saved)
{
    sigprocmask(SIG_SETMASK, saved, NULL);
}

static const char *state_words(hs_out_state state)
{
    switch (state) {
    case HS_OUT_CREATING: return "not written";
    case HS_OUT_REPLACING: return "not written (left as it was)";
    case HS_OUT_IN_PLACE: return "written in part";
    case HS_OUT_WRITTEN: return "written";
    case HS_OUT_PLANNED: return "not written";
    default: return "";
    }
}

/* The message's tail, from the entries: "; PATH written; PATH not written ...". */
static void rebuild_message(void)
{
    size_t n = 0;
    for (int i = 0; i < HS_OUT_SLOTS; i++) {
        if (entries[i].state == HS_OUT_FREE)
            continue;
        int k = snprintf(message + n, sizeof message - n, "; %s %s", entries[i].shown,
                         state_words(entries[i].state));
        if (k > 0 && (size_t)k < sizeof message - n)
            n += (size_t)k;
    }
    if (n == 0)
        n = (size_t)snprintf(message, sizeof message, "; no file written");
    message_len = n;
}

int hs_out__track(const char *shown, const char *tmp, hs_out_state state)
{
    if (owner != getpid()) { /* a forked child starts its own list */
        memset(entries, 0, sizeof entries);
        owner = getpid();
    }
    int slot = -1;
    for (int i = 0; i < HS_OUT_SLOTS && slot < 0; i++) /* planned: its entry taken over */
        if (entries[i].state == HS_OUT_PLANNED && strncmp(entries[i].shown, shown,
                                                          sizeof entries[i].shown - 1) == 0)
            slot = i;
    for (int i = 0; i < HS_OUT_SLOTS && slot < 0; i++)
        if (entries[i].state == HS_OUT_FREE)
            slot = i;
    for (int i = 0; i < HS_OUT_SLOTS && slot < 0; i++) /* full: forget an old written one */
        if (entries[i].state == HS_OUT_WRITTEN)
            slot = i;
    if (slot < 0)
        return -1;
    entries[slot].state = state;
    entries[slot].tmp = tmp;
    snprintf(entries[slot].shown, sizeof entries[slot].shown, "%s", shown);
    rebuild_message();
    return slot;
}

void hs_out__plan(const char *shown)
{
    if (owner != getpid()) {
        memset(entries, 0, sizeof entries);
        owner = getpid();
    }
    for (int i = 0; i < HS_OUT_SLOTS; i++)
        if (entries[i].state != HS_OUT_FREE && strncmp(entries[i].shown, shown,
                                                       sizeof entries[i].shown - 1) == 0)
            return; /* listed already */
    hs_out__track(shown, NULL, HS_OUT_PLANNED);
}

void hs_out__mark(int slot, hs_out_state state)
{
    if (slot < 0 || slot >= HS_OUT_SLOTS)
        return;
    entries[slot].state = state;
    entries[slot].tmp = NULL; /* written or forgotten: nothing left to remove */
    rebuild_message();
}

const char *hs_out_signal_name(int sig, char *buf, size_t len)
{
    switch (sig) {
    case SIGINT: return "SIGINT";
    case SIGTERM: return "SIGTERM";
    case SIGHUP: return "SIGHUP";
    default: snprintf(buf, len, "signal %d", sig); return buf;
    }
}

void hs_out_catch(void (*handler)(int), struct sigaction saved[3])
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = handler;
    sigemptyset(&sa.sa_mask);
    for (int i = 0; i < 3; i++)
        if (sigaction(trapped[i], NULL, &saved[i]) == 0 && saved[i].sa_handler != SIG_IGN)
            sigaction(trapped[i], &sa, NULL);
}

void hs_out_uncatch(const struct sigaction saved[3])
{
    for (int i = 0; i < 3; i++)
        if (saved[i].sa_handler != SIG_IGN)
            sigaction(trapped[i], &saved[i], NULL);
}

bool hs_out_write_all(int fd, const void *buf, size_t len)
{
    const char *p = buf;
    while (len > 0) {
        ssize_t w = write(fd, p, len);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return false;
        p += w;
        len -= (size_t)w;
    }
    return true;
}

static void say(const char *text, size_t len)
{
    (void)hs_out_write_all(STDERR_FILENO, text, len);
}

static void on_signal(int sig)
{
    if (owner == getpid()) {
        for (int i = 0; i < HS_OUT_SLOTS; i++)
            if (entries[i].tmp)
                unlink(entries[i].tmp);
        const char *name = sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : "SIGHUP";
        say("hybridsim: interrupted by ", 26);
        say(name, strlen(name));
        say(message_len ? message : "; no file written", message_len ? message_len : 17);
        say("\n", 1);
    }
    hs_out_die_by(sig);
}

void hs_out_die_by(int sig)
{
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    sigaction(sig, &dfl, NULL);
    sigset_t unblock;
    sigemptyset(&unblock);
    sigaddset(&unblock, sig);
    raise(sig); /* pending while the handler runs, delivered when it returns */
    sigprocmask(SIG_UNBLOCK, &unblock, NULL);
}

void hs_out_trap_signals(void)
{
    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigfillset(&sa.sa_mask); /* no second signal in the middle of the cleanup */
    if (owner != getpid()) {
        memset(entries, 0, sizeof entries);
        owner = getpid();
    }
    for (int i = 0; i < 3; i++) {
        if (!dispositions_read && sigaction(trapped[i], NULL, &old) == 0)
            ignored_at_start[i] = old.sa_handler == SIG_IGN;
        if (!ignored_at_start[i])
            sigaction(trapped[i], &sa, NULL);
        else /* SimGrid un-ignores SIGINT: ignore it again */
            signal(trapped[i], SIG_IGN);
    }
    dispositions_read = true;
}
