/* child_result.h: shared by the tests that run each SimGrid case in a forked child (SimGrid
 * allows one engine per process). The child writes its fixed-size result struct into a pipe and
 * exits 0; the parent reads it back here and asserts the child ended cleanly and sent it whole.
 * child_result_run does the whole round trip. Header-only; include after <cmocka.h>. */
#ifndef CHILD_RESULT_H
#define CHILD_RESULT_H

#include <stddef.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "platform.h"

/* Read size bytes from fd (the pipe's read end, closed here) into out, wait for pid. */
static inline void child_result_collect(int fd, pid_t pid, void *out, size_t size)
{
    size_t got = 0;
    while (got < size) {
        ssize_t n = read(fd, (char *)out + got, size - got);
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    close(fd);
    int wstatus;
    assert_int_equal(waitpid(pid, &wstatus, 0), pid);
    assert_true(WIFEXITED(wstatus));
    assert_int_equal(WEXITSTATUS(wstatus), 0);
    assert_int_equal(got, size);
}

/* Fork; in the child load platform `spec`, call fn(plat, out) (or, when the load fails,
 * on_load_failed(out, message)), send the size-byte *out back and exit; in the parent collect it
 * into *out. The function both kinds of SimGrid test run their cases through. */
static inline void child_result_run(const char *spec, void (*fn)(const plat_platform *, void *),
                                    void (*on_load_failed)(void *, const char *), void *out,
                                    size_t size)
{
    int fd[2];
    assert_int_equal(pipe(fd), 0);
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(fd[0]);
        char err[HS_ERR_LEN];
        plat_platform plat;
        if (plat_load(spec, &plat, err) != HS_OK) {
            on_load_failed(out, err);
        } else {
            fn(&plat, out);
            plat_free(&plat);
        }
        ssize_t w = write(fd[1], out, size);
        _exit(w == (ssize_t)size ? 0 : 3);
    }
    close(fd[1]);
    child_result_collect(fd[0], pid, out, size);
}

#endif
