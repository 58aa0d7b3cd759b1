/* test_sweep_resume.c: a sweep resumed on its CSV (sim/sweep.h), run in-process against the
 * built hybridsim as test_sweep.c runs it: after a stop without redoing finished rows, after a
 * truncated last line, and on a CSV written before columns were added. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analytic.h"
#include "platform.h"
#include "strategy.h"
#include "sweep.h"
#include "workload.h"
#include "sweep_helpers.h"

/* An interrupted sweep (--stop-after) resumes: finished rows stay byte for byte, only the
 * missing configurations run, and the finished file is in configuration order. */
static void test_resume_after_stop(void **state)
{
    (void)state;
    char err[HS_ERR_LEN];
    const char *out = in_scratch("resume.csv"), *log = in_scratch("resume.log");
#define RESUME_ARGS "-m", "analytic", "-w", "resnet50", "-p", "abci", "-s", "data,filter", \
                    "-g", "4,8", "-b", "64/gpu", "-o", out, "--log", log, "-j", "2"
    assert_int_equal(sweep(err, RESUME_ARGS, "--stop-after", "3", NULL), HS_OK);
    csv before;
    csv_read(out, &before);
    assert_int_equal(before.n_rows, 3);
    assert_int_equal(count_lines(log), 3);
    assert_int_equal(sweep(err, RESUME_ARGS, NULL), HS_OK);
    csv after;
    csv_read(out, &after);
    assert_int_equal(after.n_rows, 4);
    assert_int_equal(count_lines(log), 4); /* one more run, not four */
    for (int i = 0; i < before.n_rows; i++) {
        int j = find_row(&after, before.cell[i][0]);
        assert_true(j >= 0);
        assert_string_equal(after.line[j], before.line[i]);
    }
    static const char *order[] = {"data|4", "data|8", "filter|4", "filter|8"};
    for (int i = 0; i < 4; i++)
        assert_non_null(strstr(after.cell[i][0], order[i]));
    /* the one configuration that ran last is the one missing before */
    FILE *f = fopen(log, "r");
    char line[4096], last[4096] = "";
    while (fgets(line, sizeof line, f))
        strcpy(last, line);
    fclose(f);
    *strchr(last, '\t') = '\0';
    assert_int_equal(find_row(&before, last), -1);
    assert_true(find_row(&after, last) >= 0);
    /* complete: a third run does nothing */
    assert_int_equal(sweep(err, RESUME_ARGS, NULL), HS_OK);
    assert_int_equal(count_lines(log), 4);
#undef RESUME_ARGS
    csv_free(&before);
    csv_free(&after);
}

/* A write cut short by SIGKILL leaves a truncated last line: it is dropped and that
 * configuration runs again; the rest of the file is kept. */
static void test_truncated_last_line(void **state)
{
    (void)state;
    char err[HS_ERR_LEN];
    const char *out = in_scratch("trunc.csv"), *log = in_scratch("trunc.log");
#define TRUNC_ARGS "-m", "analytic", "-w", "resnet50", "-p", "abci", "-s", "data", "-g", \
                   "2,4,8", "-b", "256", "-o", out, "--log", log
    assert_int_equal(sweep(err, TRUNC_ARGS, NULL), HS_OK);
    csv full;
    csv_read(out, &full);
    assert_int_equal(full.n_rows, 3);
    FILE *f = fopen(out, "r");
    char text[16384];
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    /* cut the last row in the middle */
    char *last = text + n - 1;
    while (last > text && last[-1] != '\n')
        last--;
    last[strlen(last) / 2] = '\0';
    write_text(out, text);
    int runs = count_lines(log);
    assert_int_equal(sweep(err, TRUNC_ARGS, NULL), HS_OK);
    assert_int_equal(count_lines(log), runs + 1);
    csv again;
    csv_read(out, &again);
    assert_int_equal(again.n_rows, 3);
    for (int i = 0; i < 3; i++) {
        char a[8192], b[8192];
        without_wall(&full, i, a, sizeof a);
        without_wall(&again, i, b, sizeof b);
        assert_string_equal(a, b);
        if (i < 2)
            assert_string_equal(again.line[i], full.line[i]);
    }
#undef TRUNC_ARGS
    csv_free(&full);
    csv_free(&again);
}

/* Whether a column is one that sweeps of earlier versions lacked: the links' and the job
 * keys'. */
static bool added_column(const char *name)
{
    static const char *const added[] = {"sim_congestion_share", "sim_top_link_kind",
                                        "sim_top_link_mean_utilisation", "allreduce", "compute",
                                        "precision", "halo", "filter-backward", "runtime"};
    for (size_t i = 0; i < sizeof added / sizeof added[0]; i++)
        if (strcmp(name, added[i]) == 0)
            return true;
    return false;
}

/* A sweep written before the link columns and the job keys' columns resumes: its rows are kept
 * (wall times too), and the file is rewritten with the columns, the links empty where the old
 * runs had none, the job keys' values taken from the row's key (precision=mixed) and strategy
 * (--allreduce hier). */
static void test_reads_a_sweep_from_before_the_added_columns(void **state)
{
    (void)state;
    char err[HS_ERR_LEN], buf[8192];
    const char *now = in_scratch("now.csv"), *old = in_scratch("old.csv");
    assert_int_equal(sweep(err, "-m", "analytic", "-w", "resnet50", "-p", "abci", "-s", "data",
                           "-g", "4,8", "--batch-per-gpu", "64", "--precision", "mixed",
                           "--allreduce", "ring,hier", "-o", now, NULL), HS_OK);
    FILE *in = fopen(now, "r"), *out = fopen(old, "w");
    assert_true(in && out);
    bool drop[MAX_COLS] = {false};
    for (int line = 0; fgets(buf, sizeof buf, in); line++) { /* no quotes in these rows */
        char *f[MAX_COLS];
        int n = split(buf, f), written = 0;
        for (int k = 0; k < n; k++) {
            if (line == 0)
                drop[k] = added_column(f[k]);
            if (!drop[k])
                fprintf(out, "%s%s", written++ ? "," : "", f[k]);
        }
    }
    fclose(in);
    fclose(out);
    assert_int_equal(sweep(err, "-m", "analytic", "-w", "resnet50", "-p", "abci", "-s", "data",
                           "-g", "4,8", "--batch-per-gpu", "64", "--precision", "mixed",
                           "--allreduce", "ring,hier", "-o", old, NULL), HS_OK);
    csv a, b;
    csv_read(now, &a);
    csv_read(old, &b);
    assert_int_equal(b.n_cols, a.n_cols);
    assert_int_equal(b.n_rows, 4);
    for (int i = 0; i < a.n_rows; i++)
        assert_string_equal(b.line[i], a.line[i]);
    int hier = 0;
    for (int i = 0; i < b.n_rows; i++) {
        assert_string_equal(get(&b, i, "precision"), "mixed");
        hier += strcmp(get(&b, i, "allreduce"), "hier") == 0;
    }
    assert_int_equal(hier, 2);
    csv_free(&a);
    csv_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_resume_after_stop, setup, teardown),
        cmocka_unit_test_setup_teardown(test_truncated_last_line, setup, teardown),
        cmocka_unit_test_setup_teardown(test_reads_a_sweep_from_before_the_added_columns, setup,
                                        teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
