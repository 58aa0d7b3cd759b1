/* hs_child.c: a computation in a forked child, its answer back through a pipe (hs_child.h). */
#include "hs_child.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hs_error.h"

int hs_child_start(hs_child *c, hs_child_work work, void *arg, void *answer,
                   size_t answer_bytes, const char *what, char *err)
{
    int fd[2];
    c->pid = 0;
    if (pipe(fd) != 0)
        return hs_fail(err, HS_EINTERNAL, "%s: cannot create a pipe: %s", what, strerror(errno));
    fflush(NULL); /* the child must not repeat buffered output */
    pid_t pid = fork();
    if (pid < 0) {
        close(fd[0]);
        close(fd[1]);
        return hs_fail(err, HS_EINTERNAL, "%s: cannot fork: %s", what, strerror(errno));
    }
    if (pid == 0) {
        close(fd[0]);
        work(arg, answer);
        ssize_t w = write(fd[1], answer, answer_bytes);
        _exit(w == (ssize_t)answer_bytes ? 0 : 3);
    }
    close(fd[1]);
    c->pid = pid;
    c->fd = fd[0];
    return HS_OK;
}

int hs_child_finish(hs_child *c, void *answer, size_t answer_bytes)
{
    size_t got = 0;
    while (got < answer_bytes) { /* a pipe may deliver it in pieces */
        ssize_t n = read(c->fd, (char *)answer + got, answer_bytes - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    close(c->fd);
    int wstatus = 0;
    while (waitpid(c->pid, &wstatus, 0) < 0 && errno == EINTR) /* a signal is no answer */
        continue;
    c->pid = 0;
    bool whole = got == answer_bytes && WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 0;
    return whole ? HS_OK : HS_EINTERNAL;
}

void hs_child_abandon(hs_child *c)
{
    if (!c->pid)
        return;
    close(c->fd);
    while (waitpid(c->pid, NULL, 0) < 0 && errno == EINTR)
        continue;
    c->pid = 0;
}
