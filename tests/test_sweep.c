/* test_sweep.c: `hybridsim sweep` (sim/sweep.h) run in-process against the built hybridsim.
 *
 * The sweep execs the executable given by --exe (the hybridsim beside this test's build
 * folder), so these tests check real runs: the rows a small sweep produces and their values
 * against the analytic model computed here, the batch rules, failures recorded as rows, a
 * sweep file equal to its flags, and the input errors that name the sweep file's line or the
 * flag. Resuming a CSV: test_sweep_resume.c; GNU parallel, Slurm and signals:
 * tests/e2e_sweep.sh. */
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

/* ---- tests ---- */

/* Every batch rule resolves B as documented, per-group through the strategy's p1; a shape that
 * does not fit p becomes an error row; ok rows carry the analytic model's own numbers. */
static void test_batch_rules_and_analytic_values(void **state)
{
    (void)state;
    char err[HS_ERR_LEN];
    const char *out = in_scratch("rules.csv");
    assert_int_equal(sweep(err, "-m", "analytic", "-w", "resnet50", "-p", "abci", "-s",
                           "data,data+filter:2x4", "-g", "2,8", "-b", "256,32/gpu,32/node",
                           "--batch-per-group", "32", "--compute", "measured", "-o", out, "-j",
                           "2", NULL),
                     HS_OK);
    csv c;
    csv_read(out, &c);
    assert_int_equal(c.n_rows, 2 * 2 * 4);
    /* configuration order: strategy, then GPUs, then rules as given */
    static const struct {
        const char *strategy;
        int p;
        const char *rule;
        long long batch; /* 0: an error row */
    } want[] = {
        {"data", 2, "256", 256}, {"data", 2, "32/gpu", 64}, {"data", 2, "32/node", 32},
        {"data", 2, "32/group", 64}, {"data", 8, "256", 256}, {"data", 8, "32/gpu", 256},
        {"data", 8, "32/node", 64}, {"data", 8, "32/group", 256},
        {"data+filter:2x4", 2, "256", 0}, {"data+filter:2x4", 2, "32/gpu", 0},
        {"data+filter:2x4", 2, "32/node", 0}, {"data+filter:2x4", 2, "32/group", 0},
        {"data+filter:2x4", 8, "256", 256}, {"data+filter:2x4", 8, "32/gpu", 256},
        {"data+filter:2x4", 8, "32/node", 64}, {"data+filter:2x4", 8, "32/group", 64},
    };
    for (int i = 0; i < c.n_rows; i++) {
        char key[128];
        snprintf(key, sizeof key, "analytic|resnet50|abci|%s|%d|%s|||||compute=measured",
                 want[i].strategy, want[i].p, want[i].rule);
        assert_string_equal(c.cell[i][0], key);
        assert_string_equal(get(&c, i, "mode"), "analytic");
        assert_string_equal(get(&c, i, "placement"), ""); /* the closed form has none */
        if (want[i].batch == 0) {
            assert_string_equal(get(&c, i, "status"), "error");
            assert_non_null(strstr(get(&c, i, "message"), "8 GPUs, but -g is 2"));
            assert_string_equal(get(&c, i, "an_iter_total_s"), "");
            continue;
        }
        assert_string_equal(get(&c, i, "status"), "ok");
        assert_string_equal(get(&c, i, "message"), "");
        assert_int_equal(atoll(get(&c, i, "batch")), want[i].batch);
        double total = strtod(get(&c, i, "an_iter_total_s"), NULL);
        double expect = analytic_total_s(want[i].strategy, want[i].p, want[i].batch, false);
        assert_true(fabs(total - expect) <= 1e-12 * expect);
        assert_string_equal(get(&c, i, "sim_iter_total_s"), "");
        /* epoch exposed = iteration exposed x iterations (estimate.h) */
        double it = strtod(get(&c, i, "an_iter_exposed_comm_s"), NULL);
        double ep = strtod(get(&c, i, "an_epoch_exposed_comm_s"), NULL);
        assert_true(fabs(ep - it * atof(get(&c, i, "iterations_per_epoch"))) <= 1e-9 * ep);
    }
    assert_string_equal(get(&c, 12, "p1"), "2");
    assert_string_equal(get(&c, 12, "p2"), "4");
    csv_free(&c);
    /* resumed with another --compute, the rows are not taken for its own: all run again */
    assert_int_equal(sweep(err, "-m", "analytic", "-w", "resnet50", "-p", "abci", "-s",
                           "data,data+filter:2x4", "-g", "2,8", "-b", "256,32/gpu,32/node",
                           "--batch-per-group", "32", "--compute", "model", "-o", out, "-j",
                           "2", NULL),
                     HS_OK);
    csv_read(out, &c);
    assert_int_equal(c.n_rows, 2 * 2 * 2 * 4);
    int model_rows = 0;
    for (int i = 0; i < c.n_rows; i++)
        model_rows += strstr(c.cell[i][0], "|compute=model") != NULL;
    assert_int_equal(model_rows, 2 * 2 * 4);
    csv_free(&c);
}

/* --filter-backward and --halo reach the runs they apply to (a data run takes neither and
 * still runs) and end every key; the data+filter rows are ParaDL's allreduce then. */
static void test_paradl_collectives(void **state)
{
    (void)state;
    char err[HS_ERR_LEN];
    const char *out = in_scratch("paradl.csv");
    assert_int_equal(sweep(err, "-m", "analytic", "-w", "resnet50", "-p", "abci", "-s",
                           "data,data+filter:2x4", "-g", "8", "-b", "256", "--compute",
                           "measured", "--filter-backward", "allreduce", "--halo", "sendrecv",
                           "-o", out, NULL),
                     HS_OK);
    csv c;
    csv_read(out, &c);
    assert_int_equal(c.n_rows, 2);
    for (int i = 0; i < 2; i++) {
        assert_string_equal(get(&c, i, "status"), "ok");
        const char *key = c.cell[i][0];
        const char *tail = "|compute=measured|halo=sendrecv|filter-backward=allreduce";
        assert_string_equal(key + strlen(key) - strlen(tail), tail);
    }
    double total = strtod(get(&c, 1, "an_iter_total_s"), NULL);
    double paradl = analytic_total_s("data+filter:2x4", 8, 256, true);
    assert_true(fabs(total - paradl) <= 1e-12 * total);
    assert_true(total > analytic_total_s("data+filter:2x4", 8, 256, false)); /* r-s: less */
    csv_free(&c);
}

/* compare fills both sides and the agreement; simulate alone gives the same simulated numbers. */
static void test_compare_and_simulate_rows(void **state)
{
    (void)state;
    char err[HS_ERR_LEN];
    const char *cmp = in_scratch("compare.csv"), *sim = in_scratch("simulate.csv");
    assert_int_equal(sweep(err, "-w", "resnet50", "-p", "abci", "-s", "data,filter", "-g", "4,8",
                           "--batch-per-gpu", "64", "--compute", "measured", "-o", cmp, NULL),
                     HS_OK);
    assert_int_equal(sweep(err, "-m", "simulate", "-w", "resnet50", "-p", "abci", "-s",
                           "data,filter", "-g", "4,8", "--batch-per-gpu", "64", "--compute",
                           "measured", "-o", sim, NULL),
                     HS_OK);
    csv c, s;
    csv_read(cmp, &c);
    csv_read(sim, &s);
    assert_int_equal(c.n_rows, 4);
    assert_int_equal(s.n_rows, 4);
    static const char *names[] = {"data", "data", "filter", "filter"};
    for (int i = 0; i < 4; i++) {
        assert_string_equal(get(&c, i, "status"), "ok");
        assert_string_equal(get(&c, i, "strategy"), names[i]);
        assert_string_equal(get(&c, i, "placement"), "packed");
        assert_string_equal(get(&c, i, "collectives"), "flow");
        double an = strtod(get(&c, i, "an_iter_total_s"), NULL);
        double sm = strtod(get(&c, i, "sim_iter_total_s"), NULL);
        assert_true(an > 0 && sm > 0);
        assert_true(fabs(an - analytic_total_s(names[i], atoi(get(&c, i, "gpus")),
                                               atoll(get(&c, i, "batch")), false)) <=
                    1e-12 * an);
        assert_true(fabs(strtod(get(&c, i, "agreement"), NULL) - (1 - fabs(sm - an) / sm)) <
                    1e-12);
        assert_string_equal(get(&s, i, "an_iter_total_s"), "");
        assert_string_equal(get(&s, i, "agreement"), "");
        assert_string_equal(get(&s, i, "sim_iter_total_s"), get(&c, i, "sim_iter_total_s"));
        assert_string_equal(get(&s, i, "sim_epoch_total_s"), get(&c, i, "sim_epoch_total_s"));
        assert_string_equal(get(&s, i, "memory_per_gpu_bytes"), get(&c, i, "memory_per_gpu_bytes"));
        /* the links: a node's NVLink ring at 4 GPUs, the NICs between two nodes at 8 */
        assert_string_equal(get(&c, i, "sim_top_link_kind"), i % 2 ? "nic" : "nvlink");
        assert_string_equal(get(&s, i, "sim_top_link_kind"), get(&c, i, "sim_top_link_kind"));
        assert_string_equal(get(&s, i, "sim_congestion_share"), "0"); /* one job, packed */
        assert_true(strtod(get(&s, i, "sim_top_link_mean_utilisation"), NULL) > 0);
    }
    csv_free(&c);
    csv_free(&s);
}

/* A run that refuses its input (exit 2) is an error row with its message; one that crashes or
 * times out is a failed row, which the next run of the sweep retries. */
static void test_failures_become_rows(void **state)
{
    (void)state;
    char err[HS_ERR_LEN];
    const char *out = in_scratch("fail.csv"), *log = in_scratch("fail.log");
    assert_int_equal(sweep(err, "-m", "analytic", "-w", "resnet50", "-p", "abci", "-s",
                           "filter,data+filter:8x4", "-g", "4,128", "-b", "128", "-o", out,
                           "--log", log, NULL),
                     HS_OK);
    csv c;
    csv_read(out, &c);
    assert_int_equal(c.n_rows, 4);
    assert_string_equal(get(&c, 0, "status"), "ok");
    assert_string_equal(get(&c, 1, "status"), "error");
    assert_non_null(strstr(get(&c, 1, "message"), "-g 128"));
    /* the message has a comma: the field is quoted in the file and read back whole */
    assert_string_equal(get(&c, 2, "status"), "error");
    assert_non_null(strstr(get(&c, 2, "message"), "32 GPUs, but -g is 4"));
    assert_non_null(strstr(c.line[2], "\"-s data+filter:8x4: 8 x 4 = 32 GPUs, but -g is 4\""));
    assert_int_equal(count_lines(log), 4);
    /* error rows are answers: a second run redoes nothing */
    assert_int_equal(sweep(err, "-m", "analytic", "-w", "resnet50", "-p", "abci", "-s",
                           "filter,data+filter:8x4", "-g", "4,128", "-b", "128", "-o", out,
                           "--log", log, NULL),
                     HS_OK);
    assert_int_equal(count_lines(log), 4);

    /* a crashing executable, then one that hangs past --timeout: failed rows */
    const char *crash = in_scratch("crash.sh"), *hang = in_scratch("hang.sh");
    write_text(crash, "#!/bin/sh\necho 'hybridsim: boom' >&2\nexit 1\n");
    write_text(hang, "#!/bin/sh\nexec sleep 30\n");
    chmod(crash, 0755);
    chmod(hang, 0755);
    const char *out2 = in_scratch("fail2.csv");
    assert_int_equal(sweep(err, "-m", "analytic", "-w", "resnet50", "-p", "abci", "-s", "data",
                           "-g", "4", "-b", "128", "-o", out2, "--exe", crash, NULL),
                     HS_OK);
    csv_free(&c);
    csv_read(out2, &c);
    assert_int_equal(c.n_rows, 1);
    assert_string_equal(get(&c, 0, "status"), "failed");
    assert_string_equal(get(&c, 0, "message"), "exit status 1: boom");
    assert_int_equal(sweep(err, "-m", "analytic", "-w", "resnet50", "-p", "abci", "-s", "data",
                           "-g", "4,8", "-b", "128", "-o", out2, "--exe", hang, "--timeout",
                           "0.3", NULL),
                     HS_OK);
    csv_free(&c);
    csv_read(out2, &c);
    assert_int_equal(c.n_rows, 2);
    for (int i = 0; i < 2; i++) {
        assert_string_equal(get(&c, i, "status"), "failed");
        assert_string_equal(get(&c, i, "message"), "timed out after 0.3 s (--timeout)");
        assert_true(atof(get(&c, i, "wall_s")) < 10);
    }
    /* the real executable replaces both failed rows */
    assert_int_equal(sweep(err, "-m", "analytic", "-w", "resnet50", "-p", "abci", "-s", "data",
                           "-g", "4,8", "-b", "128", "-o", out2, NULL),
                     HS_OK);
    csv_free(&c);
    csv_read(out2, &c);
    assert_int_equal(c.n_rows, 2);
    assert_string_equal(get(&c, 0, "status"), "ok");
    assert_string_equal(get(&c, 1, "status"), "ok");
    csv_free(&c);
}

/* A sweep file gives the same configurations as the same flags; a flag replaces its key. */
static void test_file_equals_flags(void **state)
{
    (void)state;
    char err[HS_ERR_LEN];
    const char *file = in_scratch("s.sweep"), *a = in_scratch("a.csv"), *b = in_scratch("b.csv");
    char text[1024];
    snprintf(text, sizeof text,
             "# a test sweep\n"
             "workloads = resnet50   # the only one\n"
             "platforms = abci\n"
             "strategies = data,\n"
             "             filter\n"
             "gpus = 2..4\n"
             "batch = 256\n"
             "batch-per-node = 16\n"
             "mode = analytic\n"
             "output = %s\n"
             "jobs = 2\n",
             b);
    write_text(file, text);
    assert_int_equal(sweep(err, file, "-o", a, NULL), HS_OK); /* -o replaces output */
    assert_int_equal(access(b, F_OK), -1);
    assert_int_equal(sweep(err, "-m", "analytic", "-w", "resnet50", "-p", "abci", "-s",
                           "data,filter", "-g", "2,4", "-b", "256,16/node", "-o", b, NULL),
                     HS_OK);
    csv ca, cb;
    csv_read(a, &ca);
    csv_read(b, &cb);
    assert_int_equal(ca.n_rows, 2 * 2 * 2);
    assert_int_equal(cb.n_rows, ca.n_rows);
    for (int i = 0; i < ca.n_rows; i++) {
        char x[8192], y[8192];
        without_wall(&ca, i, x, sizeof x);
        without_wall(&cb, i, y, sizeof y);
        assert_string_equal(x, y);
    }
    csv_free(&ca);
    csv_free(&cb);
}

/* Bad input: the message names the sweep file and line, or the flag; nothing is written. */
static void test_input_errors(void **state)
{
    (void)state;
    char err[HS_ERR_LEN];
    const char *file = in_scratch("bad.sweep"), *out = in_scratch("never.csv");
    static const struct {
        const char *text;
        const char *message;
    } cases[] = {
        {"workloads = resnet50\ngpu = 4\n", ":2: unknown key 'gpu'"},
        {"workloads = resnet50\nworkload = vgg16\n",
         ":2: 'workload' is given twice (first on line 1)"},
        {"workloads resnet50\n", ":1: expected 'key = value"},
        {"workloads = resnet50,,vgg16\n", ":1: workloads: empty value"},
        {"workloads = resnet50\nplatforms = abci\nstrategies = data\n\ngpus = 4, four\n"
         "batch = 64\n",
         ":5: gpus: 'four' is not a whole number"},
        {"workloads = resnet50\nplatforms = abci\nstrategies = data\ngpus = 4\nbatch = 64/rack\n",
         ":5: batch: '64/rack': a batch rule is"},
        {"workloads = resnet50\nplatforms = abci\nstrategies = datta\ngpus = 4\nbatch = 64\n",
         ":3: strategies: unknown strategy 'datta'"},
        {"workloads = resnet51\nplatforms = abci\nstrategies = data\ngpus = 4\nbatch = 64\n",
         ":1: workloads: "},
        {"workloads = resnet50\nplatforms = nowhere\nstrategies = data\ngpus = 4\nbatch = 64\n",
         ":2: platforms: platform 'nowhere': cannot read"},
        {"workloads = resnet50\nplatforms = abci\nstrategies = data\ngpus = 4\nbatch = 64\n"
         "collectives = exact\n", ":6: collectives: unknown value 'exact'"},
        {"workloads = resnet50\nplatforms = abci\nstrategies = data\ngpus = 4\nbatch = 64\n"
         "mode = analytic, simulate\n", ":6: mode: takes one value"},
        {"workloads = resnet50\nplatforms = abci\nstrategies = data\ngpus = 4\nbatch = 64\n"
         "jobs = 0\n", ":6: jobs: 0 is out of range"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        write_text(file, cases[i].text);
        assert_int_equal(sweep(err, file, "-o", out, NULL), HS_EINPUT);
        if (!strstr(err, cases[i].message) || !strstr(err, file))
            fail_msg("case %zu: '%s' lacks '%s'", i, err, cases[i].message);
    }
    assert_int_equal(sweep(err, "-w", "resnet50", "-p", "abci", "-s", "data", "-g", "4", "-b",
                           "64", NULL),
                     HS_EINPUT);
    assert_non_null(strstr(err, "-o OUT.csv is required"));
    assert_int_equal(sweep(err, "-w", "resnet50", "-p", "abci", "-s", "data", "-g", "4..2", "-b",
                           "64", "-o", out, NULL),
                     HS_EINPUT);
    assert_non_null(strstr(err, "-g:"));
    assert_int_equal(sweep(err, "-w", "resnet50", "-p", "abci", "-s", "data", "-g", "4", "-b",
                           "64", "-o", out, "--emit", "pdsh", "x", NULL),
                     HS_EINPUT);
    assert_non_null(strstr(err, "--emit: unknown kind 'pdsh'"));
    assert_int_equal(access(out, F_OK), -1);
    /* a CSV of something else is not overwritten */
    write_text(out, "a,b\n1,2\n");
    assert_int_equal(sweep(err, "-w", "resnet50", "-p", "abci", "-s", "data", "-g", "4", "-b",
                           "64", "-o", out, NULL),
                     HS_EINPUT);
    assert_non_null(strstr(err, ":1: not a hybridsim sweep CSV"));
    csv c;
    csv_read(out, &c);
    assert_string_equal(c.header[0], "a");
    csv_free(&c);
}

/* A workload that loaded is not loaded again by the next sweep of the same process while its
 * file is unchanged (sweep_workload.c); a file rewritten since is: a bad one is refused with its
 * own message, the good one back is accepted (--emit: plans only, nothing runs). */
static void test_rewritten_workload_is_loaded_again(void **state)
{
    (void)state;
    char err[HS_ERR_LEN], copy[3 * PATH_MAX];
    const char *wl = in_scratch("w.xml"), *jobs = in_scratch("jobs.txt");
    snprintf(copy, sizeof copy, "cp '%s/resnet50.xml' '%s'", wl_default_dir(), wl);
    for (int round = 0; round < 3; round++) {
        if (round == 1)
            write_text(wl, "<workload name=\"broken\">\n");
        else
            assert_int_equal(system(copy), 0);
        int status = sweep(err, "-w", wl, "-p", "abci", "-s", "data", "-g", "4", "-b", "64",
                           "--emit", "parallel", jobs, NULL);
        if (round == 1) {
            assert_int_equal(status, HS_EINPUT);
            assert_non_null(strstr(err, "-w: "));
            assert_non_null(strstr(err, wl));
        } else {
            assert_int_equal(status, HS_OK);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_batch_rules_and_analytic_values, setup, teardown),
        cmocka_unit_test_setup_teardown(test_paradl_collectives, setup, teardown),
        cmocka_unit_test_setup_teardown(test_compare_and_simulate_rows, setup, teardown),
        cmocka_unit_test_setup_teardown(test_failures_become_rows, setup, teardown),
        cmocka_unit_test_setup_teardown(test_file_equals_flags, setup, teardown),
        cmocka_unit_test_setup_teardown(test_input_errors, setup, teardown),
        cmocka_unit_test_setup_teardown(test_rewritten_workload_is_loaded_again, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
