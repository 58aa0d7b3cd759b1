/* hs_child.c: the one way hybridsim runs a child process (hs_child.h): fork, then exec or a
 * function; its stderr split into lines; its answer read whole; signals forwarded; its end. */
#define _GNU_SOURCE
#include "hs_child.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include "hs_error.h"
#include "hs_grow.h"
#include "hs_out.h"

#define CHILD_NO_START 127                    /* a child that could not exec: the shell's */
#define CHILD_POLL_NS (20 * 1000 * 1000)      /* without a pidfd, a pause is this at most */

/* The signals forwarded to a child (spec.forward_signals). */
static const int forward_sigs[3] = {SIGINT, SIGTERM, SIGHUP};

/* The forwarded child, for the signal handler: the one piece of state a handler can reach,
 * and the handlers it replaced. */
static volatile pid_t forward_pid;
static struct sigaction forward_saved[3];

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void forward(int sig)
{
    if (forward_pid > 0)
        kill(forward_pid, sig);
}

/* Pass SIGINT, SIGTERM and SIGHUP on to pid (those this process does not ignore). */
static void forward_start(pid_t pid)
{
    forward_pid = pid;
    hs_out_catch(forward, forward_saved);
}

static void forward_stop(void)
{
    hs_out_uncatch(forward_saved);
    forward_pid = 0;
}

static void close_fd(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

/* fd as the child's stream `to` (an fd already there stays, made to survive exec). */
static int child_stream(int fd, int to)
{
    if (fd == to)
        return fcntl(fd, F_SETFD, 0);
    return dup2(fd, to) < 0 ? -1 : 0;
}

/* The child's side: never returns. p: the pipes ([0] stderr, [1] answer, [2] exec's errno;
 * -1 where none); the child writes to them only. */
static void child_run(const hs_child_spec *s, int p[3][2], pid_t parent, const sigset_t *mask)
{
    int pipes[3] = {p[0][1], p[1][1], p[2][1]};
    for (int i = 0; i < 3; i++) /* a reader of its own would keep a pipe open: no EPIPE */
        close_fd(&p[i][0]);
#ifdef __linux__
    if (s->die_with_parent) { /* until exec, only async-signal-safe calls */
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent)
            _exit(CHILD_NO_START);
    }
#endif
    (void)parent;
    if (mask)
        sigprocmask(SIG_SETMASK, mask, NULL);
    int fail = 0;
    for (int i = 0; i < 3 && !fail; i++)
        if (s->std_fd[i] > 0 && child_stream(s->std_fd[i], i) != 0)
            fail = errno;
    if (!fail && pipes[0] >= 0 && dup2(pipes[0], STDERR_FILENO) < 0)
        fail = errno;
    if (!fail && s->exe) {
        execv(s->exe, s->argv);
        fail = errno;
    }
    if (fail) {
        if (pipes[2] >= 0)
            hs_out_write_all(pipes[2], &fail, sizeof fail);
        _exit(CHILD_NO_START);
    }
    void *answer = calloc(1, s->answer_bytes ? s->answer_bytes : 1);
    if (!answer)
        _exit(HS_EINTERNAL);
    s->work(s->arg, answer);
    _exit(s->answer_bytes == 0 || hs_out_write_all(pipes[1], answer, s->answer_bytes) ? 0 : 3);
}

/* The pipes the spec asks for: [i][0] read end, [i][1] write end, -1 where none. */
static int make_pipes(const hs_child_spec *s, int p[3][2])
{
    bool want[3] = {s->on_line != NULL, !s->exe && s->answer_bytes > 0, s->exe != NULL};
    for (int i = 0; i < 3; i++)
        p[i][0] = p[i][1] = -1;
    for (int i = 0; i < 3; i++)
        if (want[i] && pipe2(p[i], O_CLOEXEC) != 0)
            return -1;
    return 0;
}

int hs_child_start(hs_child *c, const hs_child_spec *s, char *err)
{
    *c = (hs_child){0, -1, -1, -1, -1, s->answer_bytes, s->on_line, s->line_ctx, 0, false,
                    false};
    int p[3][2];
    const char *what = s->what ? s->what : "a child process";
    if (make_pipes(s, p) != 0) {
        int saved = errno;
        for (int i = 0; i < 3; i++)
            close_fd(&p[i][0]), close_fd(&p[i][1]);
        return hs_fail(err, HS_EINTERNAL, "%s: cannot create a pipe: %s", what,
                       strerror(saved));
    }
    sigset_t block, saved_mask;
    if (s->forward_signals) { /* blocked until forward_pid is set, so that none is lost */
        sigemptyset(&block);
        for (int i = 0; i < 3; i++)
            sigaddset(&block, forward_sigs[i]);
        sigprocmask(SIG_BLOCK, &block, &saved_mask);
    }
    fflush(NULL); /* the child must not repeat buffered output */
    pid_t parent = getpid(), pid = fork();
    if (pid == 0)
        child_run(s, p, parent, s->forward_signals ? &saved_mask : NULL);
    int fork_errno = errno;
    for (int i = 0; i < 3; i++)
        close_fd(&p[i][1]);
    if (pid > 0 && s->forward_signals)
        forward_start(pid);
    if (s->forward_signals)
        sigprocmask(SIG_SETMASK, &saved_mask, NULL);
    if (pid < 0) {
        for (int i = 0; i < 3; i++)
            close_fd(&p[i][0]);
        return hs_fail(err, HS_EINTERNAL, "%s: cannot fork: %s", what, strerror(fork_errno));
    }
    *c = (hs_child){pid, p[0][0], p[1][0], p[2][0], -1, s->answer_bytes, s->on_line,
                    s->line_ctx, s->timeout_s > 0 ? now_s() + s->timeout_s : 0, false,
                    s->forward_signals};
    return HS_OK;
}

/* ---- reading its pipes ------------------------------------------------------------------- */

/* The part of a stderr line read so far. */
typedef struct {
    char *text; /* malloc'ed, NULL when empty */
    int len;    /* bytes held */
    size_t cap; /* bytes allocated */
} child_line;

/* Pass the complete lines of chunk (n bytes) to on_line, holding the rest of the last. */
static void split_lines(hs_child *c, child_line *held, const char *chunk, size_t n)
{
    const char *end = chunk + n, *nl;
    while ((nl = memchr(chunk, '\n', (size_t)(end - chunk))) != NULL) {
        size_t len = (size_t)(nl - chunk) + 1;
        if (held->len == 0) {
            c->on_line(c->line_ctx, chunk, len);
        } else if (hs_grow((void **)&held->text, &held->cap, (size_t)held->len + len, 1)) {
            memcpy(held->text + held->len, chunk, len);
            c->on_line(c->line_ctx, held->text, (size_t)held->len + len);
        } else { /* no room to join them: the two parts as they are */
            c->on_line(c->line_ctx, held->text, (size_t)held->len);
            c->on_line(c->line_ctx, chunk, len);
        }
        held->len = 0;
        chunk = nl + 1;
    }
    size_t rest = (size_t)(end - chunk);
    if (rest == 0)
        return;
    if (held->len < 1 << 30 && /* a line this long is passed on in pieces */
        hs_grow((void **)&held->text, &held->cap, (size_t)held->len + rest, 1)) {
        memcpy(held->text + held->len, chunk, rest);
        held->len += (int)rest;
    } else { /* no room to hold it: passed on as it is */
        if (held->len)
            c->on_line(c->line_ctx, held->text, (size_t)held->len);
        c->on_line(c->line_ctx, chunk, rest);
        held->len = 0;
    }
}

/* Read what fd has: stderr (split into lines) or the answer (`*got` bytes so far). */
static void read_ready(hs_child *c, int *fd, child_line *held, void *answer, size_t *got)
{
    char chunk[4096];
    bool is_answer = *fd == c->answer_fd;
    char *into = chunk;
    size_t room = sizeof chunk;
    if (is_answer && answer && *got < c->answer_bytes)
        into = (char *)answer + *got, room = c->answer_bytes - *got;
    ssize_t n = read(*fd, into, room);
    if (n < 0 && errno == EINTR)
        return;
    if (n <= 0) {
        if (!is_answer && held->len)
            c->on_line(c->line_ctx, held->text, (size_t)held->len);
        held->len = 0;
        close_fd(fd);
    } else if (is_answer) {
        *got += into == chunk ? 0 : (size_t)n;
    } else {
        split_lines(c, held, chunk, (size_t)n);
    }
}

/* Kill the child if its deadline has passed; the milliseconds left for poll (-1: no limit). */
static int check_deadline(hs_child *c)
{
    if (c->deadline_s <= 0 || c->timed_out)
        return -1;
    double left_s = c->deadline_s - now_s();
    if (left_s > 0)
        return (int)(left_s * 1000) + 1;
    kill(c->pid, SIGKILL);
    c->timed_out = true;
    return -1;
}

/* Read its stderr and its answer to their end; the answer's bytes that arrived. */
static size_t drain(hs_child *c, void *answer)
{
    child_line held = {0};
    size_t got = 0;
    while (c->err_fd >= 0 || c->answer_fd >= 0) {
        struct pollfd p[2];
        int *fds[2], n = 0;
        if (c->err_fd >= 0)
            fds[n] = &c->err_fd, p[n++] = (struct pollfd){c->err_fd, POLLIN, 0};
        if (c->answer_fd >= 0)
            fds[n] = &c->answer_fd, p[n++] = (struct pollfd){c->answer_fd, POLLIN, 0};
        int ready = poll(p, (nfds_t)n, check_deadline(c));
        if (ready < 0 && errno != EINTR)
            break;
        for (int i = 0; ready > 0 && i < n; i++)
            if (p[i].revents)
                read_ready(c, fds[i], &held, answer, &got);
    }
    free(held.text);
    return got;
}

/* ---- its end ----------------------------------------------------------------------------- */

/* A reaped child's end; its pipes closed, forwarding stopped. */
static void ended(hs_child *c, int wstatus, size_t got, hs_child_end *end)
{
    int exec_errno = 0;
    if (c->exec_fd >= 0 && read(c->exec_fd, &exec_errno, sizeof exec_errno) !=
                               (ssize_t)sizeof exec_errno)
        exec_errno = 0;
    *end = (hs_child_end){WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : -1,
                          WIFSIGNALED(wstatus) ? WTERMSIG(wstatus) : 0, c->timed_out,
                          exec_errno, c->answer_bytes > 0 && got == c->answer_bytes};
    close_fd(&c->err_fd);
    close_fd(&c->answer_fd);
    close_fd(&c->exec_fd);
    close_fd(&c->pid_fd);
    if (c->forwarded)
        forward_stop();
    c->pid = 0;
}

int hs_child_poll(hs_child *c, bool *is_over, hs_child_end *end, char *err)
{
    int wstatus = 0;
    pid_t got;
    *is_over = false;
    while ((got = waitpid(c->pid, &wstatus, WNOHANG)) < 0 && errno == EINTR)
        continue;
    if (got < 0)
        return hs_fail(err, HS_EINTERNAL, "waitpid: %s", strerror(errno));
    if (got == 0) {
        check_deadline(c);
        return HS_OK;
    }
    ended(c, wstatus, 0, end);
    *is_over = true;
    return HS_OK;
}

int hs_child_wait(hs_child *c, void *answer, hs_child_end *end, char *err)
{
    size_t got = drain(c, answer);
    int wstatus = 0;
    if (c->deadline_s > 0) { /* a blocking waitpid would miss the deadline */
        bool over = false;
        int status = hs_child_poll(c, &over, end, err);
        while (status == HS_OK && !over) {
            hs_child_pause(&c, 1, 1.0);
            status = hs_child_poll(c, &over, end, err);
        }
        if (over)
            end->answered = c->answer_bytes > 0 && got == c->answer_bytes;
        return status;
    }
    pid_t pid;
    while ((pid = waitpid(c->pid, &wstatus, 0)) < 0 && errno == EINTR)
        continue; /* a signal (forwarded, perhaps) is no end */
    if (pid < 0)
        return hs_fail(err, HS_EINTERNAL, "waitpid: %s", strerror(errno));
    ended(c, wstatus, got, end);
    return HS_OK;
}

int hs_child_run(const hs_child_spec *spec, void *answer, hs_child_end *end, char *err)
{
    hs_child c;
    *end = (hs_child_end){0};
    int status = hs_child_start(&c, spec, err);
    return status == HS_OK ? hs_child_wait(&c, answer, end, err) : status;
}

/* A pidfd of the child (opened once, while it is not yet reaped), or -1 where the kernel has
 * none. */
static int pid_fd(hs_child *c)
{
#ifdef SYS_pidfd_open
    if (c->pid_fd < 0)
        c->pid_fd = (int)syscall(SYS_pidfd_open, c->pid, 0); /* close-on-exec */
#endif
    return c->pid_fd;
}

void hs_child_pause(hs_child *const *kids, int n, double max_s)
{
    struct pollfd *p = n > 0 ? malloc((size_t)n * sizeof *p) : NULL;
    double now = now_s(), wait_s = max_s;
    int m = 0;
    for (int i = 0; i < n; i++) {
        hs_child *c = kids[i];
        if (c->pid <= 0)
            continue;
        if (c->deadline_s > 0 && !c->timed_out && c->deadline_s - now < wait_s)
            wait_s = c->deadline_s - now;
        int fd = p ? pid_fd(c) : -1;
        if (fd < 0 && wait_s > CHILD_POLL_NS * 1e-9) /* no pidfd: look again soon */
            wait_s = CHILD_POLL_NS * 1e-9;
        if (fd >= 0)
            p[m++] = (struct pollfd){fd, POLLIN, 0};
    }
    if (wait_s > 0)
        poll(p, (nfds_t)m, (int)(wait_s * 1000) + 1); /* a signal ends it early too */
    free(p);
}

void hs_child_kill(hs_child *c, int sig)
{
    if (c->pid > 0)
        kill(c->pid, sig);
}

void hs_child_abandon(hs_child *c)
{
    if (c->pid <= 0)
        return;
    close_fd(&c->err_fd);
    close_fd(&c->answer_fd);
    while (waitpid(c->pid, NULL, 0) < 0 && errno == EINTR)
        continue;
    hs_child_end end;
    ended(c, 0, 0, &end);
}
