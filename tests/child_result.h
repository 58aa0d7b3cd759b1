/* child_result.h: shared by the tests that run each SimGrid case in a forked child (SimGrid
 * allows one engine per process). The child writes its fixed-size result struct into a pipe and
 * exits 0; the parent reads it back here and asserts the child ended cleanly and sent it whole.
 * Header-only; include after <cmocka.h>. */
#ifndef CHILD_RESULT_H
#define CHILD_RESULT_H

#include <stddef.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

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

#endif
