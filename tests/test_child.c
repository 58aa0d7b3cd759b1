/* test_child.c: workloads/common/hs_child, the one way hybridsim runs a child: a function's
 * answer back whole (and none when the child dies), an executable's stderr line by line (a
 * line longer than one read whole, an unfinished last line), its streams into files, an exec
 * that fails (its errno, exit 127), a deadline (killed, said), polling, and SIGTERM sent to
 * this process forwarded to the child, the handler given back afterwards. */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "hs_child.h"
#include "hs_error.h"

#define OUT_PATH HS_TEST_TMP "/test_child.out"

/* A work function's answer: the square of its argument, and a word. */
typedef struct {
    int64_t square; /* the argument squared */
    char word[8];   /* "done" */
} answer;

static void square(void *arg, void *ans)
{
    const int64_t *x = arg;
    answer *a = ans;
    a->square = *x * *x;
    memcpy(a->word, "done", 5);
}

static void dies(void *arg, void *ans)
{
    (void)arg, (void)ans;
    abort();
}

/* The lines on_line was given, joined with '|' between them. */
typedef struct {
    char text[16384]; /* the lines so far, '|' between them */
    int n_lines;      /* how many */
} lines;

static void keep_line(void *ctx, const char *line, size_t len)
{
    lines *l = ctx;
    size_t at = strlen(l->text);
    if (l->n_lines++)
        l->text[at++] = '|';
    assert_true(at + len < sizeof l->text);
    memcpy(l->text + at, line, len);
    l->text[at + len] = '\0';
}

static void work_answer(void **state)
{
    (void)state;
    int64_t x = 12345;
    char err[HS_ERR_LEN];
    hs_child c;
    hs_child_end end;
    hs_child_spec spec = {.work = square, .arg = &x, .answer_bytes = sizeof(answer),
                          .what = "a square"};
    assert_int_equal(hs_child_start(&c, &spec, err), HS_OK);
    assert_true(c.pid > 0);
    answer a = {0};
    assert_int_equal(hs_child_wait(&c, &a, &end, err), HS_OK);
    assert_int_equal(c.pid, 0);
    assert_true(end.answered);
    assert_int_equal(end.exit_status, 0);
    assert_int_equal(end.signal, 0);
    assert_true(a.square == 12345LL * 12345);
    assert_string_equal(a.word, "done");

    spec.work = dies; /* no answer, and it says how it ended (started and waited for at once) */
    assert_int_equal(hs_child_run(&spec, &a, &end, err), HS_OK);
    assert_false(end.answered);
    assert_int_equal(end.exit_status, -1);
    assert_int_equal(end.signal, SIGABRT);
}

static void exec_lines(void **state)
{
    (void)state;
    char *argv[] = {"sh", "-c",
                    "printf 'one\\ntwo\\n' >&2; head -c 10000 /dev/zero | tr '\\0' x >&2;"
                    " printf '\\nlast' >&2; exit 3", NULL};
    static lines l;
    char err[HS_ERR_LEN];
    hs_child c;
    hs_child_end end;
    hs_child_spec spec = {.exe = "/bin/sh", .argv = argv, .on_line = keep_line, .line_ctx = &l};
    assert_int_equal(hs_child_start(&c, &spec, err), HS_OK);
    assert_int_equal(hs_child_wait(&c, NULL, &end, err), HS_OK);
    assert_int_equal(end.exit_status, 3);
    assert_int_equal(end.exec_errno, 0);
    assert_int_equal(l.n_lines, 4);
    assert_int_equal(strncmp(l.text, "one\n|two\n|xxx", 13), 0);
    size_t len = strlen(l.text);
    assert_int_equal(len, 4 + 1 + 4 + 1 + 10001 + 1 + 4);
    assert_string_equal(l.text + len - 8, "xx\n|last");
}

static void exec_fails(void **state)
{
    (void)state;
    char *argv[] = {"nowhere", NULL};
    char err[HS_ERR_LEN];
    hs_child c;
    hs_child_end end;
    hs_child_spec spec = {.exe = HS_TEST_TMP "/no-such-program", .argv = argv};
    assert_int_equal(hs_child_start(&c, &spec, err), HS_OK);
    assert_int_equal(hs_child_wait(&c, NULL, &end, err), HS_OK);
    assert_int_equal(end.exec_errno, ENOENT);
    assert_int_equal(end.exit_status, 127);
}

/* Poll c every 10 ms, as a pool does, until it has ended; end says how. */
static void poll_to_end(hs_child *c, hs_child_end *end)
{
    char err[HS_ERR_LEN];
    bool over = false;
    struct timespec pause = {0, 10 * 1000 * 1000};
    while (hs_child_poll(c, &over, end, err) == HS_OK && !over)
        nanosleep(&pause, NULL);
    assert_true(over);
}

static void deadline(void **state)
{
    (void)state;
    char *argv[] = {"sleep", "30", NULL};
    char err[HS_ERR_LEN];
    hs_child c;
    hs_child_end end;
    hs_child_spec spec = {.exe = "/bin/sleep", .argv = argv, .timeout_s = 0.1};
    assert_int_equal(hs_child_start(&c, &spec, err), HS_OK);
    assert_int_equal(hs_child_wait(&c, NULL, &end, err), HS_OK);
    assert_true(end.timed_out);
    assert_int_equal(end.signal, SIGKILL);

    assert_int_equal(hs_child_start(&c, &spec, err), HS_OK); /* polled, as a pool does */
    poll_to_end(&c, &end);
    assert_true(end.timed_out);
    assert_int_equal(end.signal, SIGKILL);
}

static void streams_into_files(void **state)
{
    (void)state;
    char *argv[] = {"sh", "-c", "read w; echo \"out $w\"; exit 4", NULL};
    int in = open("/dev/null", O_RDONLY), out = open(OUT_PATH, O_WRONLY | O_CREAT | O_TRUNC,
                                                     0600);
    assert_true(in > 2 && out > 2);
    char err[HS_ERR_LEN];
    hs_child c;
    hs_child_end end;
    hs_child_spec spec = {.exe = "/bin/sh", .argv = argv, .std_fd = {in, out, 0}};
    assert_int_equal(hs_child_start(&c, &spec, err), HS_OK);
    close(in);
    close(out);
    poll_to_end(&c, &end);
    assert_int_equal(end.exit_status, 4);
    assert_false(end.timed_out);
    char text[64] = "";
    FILE *f = fopen(OUT_PATH, "r");
    assert_non_null(f);
    assert_non_null(fgets(text, sizeof text, f));
    fclose(f);
    unlink(OUT_PATH);
    assert_string_equal(text, "out \n"); /* read from /dev/null: nothing */
}

static void forwards_signals(void **state)
{
    (void)state;
    char *argv[] = {"sleep", "30", NULL};
    char err[HS_ERR_LEN];
    hs_child c;
    hs_child_end end;
    hs_child_spec spec = {.exe = "/bin/sleep", .argv = argv, .forward_signals = true};
    signal(SIGTERM, SIG_DFL);
    assert_int_equal(hs_child_start(&c, &spec, err), HS_OK);
    raise(SIGTERM); /* to this process: the child dies by it, this process does not */
    assert_int_equal(hs_child_wait(&c, NULL, &end, err), HS_OK);
    assert_int_equal(end.signal, SIGTERM);
    struct sigaction now;
    sigaction(SIGTERM, NULL, &now);
    assert_true(now.sa_handler == SIG_DFL); /* given back */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(work_answer),        cmocka_unit_test(exec_lines),
        cmocka_unit_test(exec_fails),         cmocka_unit_test(deadline),
        cmocka_unit_test(streams_into_files), cmocka_unit_test(forwards_signals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
