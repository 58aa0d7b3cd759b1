/* test_sweep.c: `hybridsim sweep` (sim/sweep.h) run in-process against the built hybridsim.
 *
 * The sweep execs the executable given by --exe (the hybridsim beside this test's build
 * folder), so these tests check real runs: the rows a small sweep produces and their values
 * against the analytic model computed here, the batch rules, failures recorded as rows, resuming
 * after a stop or a truncated last line without redoing finished rows, and the input errors
 * that name the sweep file's line or the flag. GNU parallel, Slurm and signals are in
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

#define HS_EXE HS_TEST_TMP "/../hybridsim"
#define MAX_ROWS 64
#define MAX_COLS 48

/* A scratch folder per test (short: paths inside it must fit PATH_MAX). */
static char scratch[PATH_MAX / 2];

static int setup(void **state)
{
    (void)state;
    snprintf(scratch, sizeof scratch, "%s/sweep-XXXXXX", HS_TEST_TMP);
    assert_non_null(mkdtemp(scratch));
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[PATH_MAX + 16];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", scratch);
    return system(cmd) == 0 ? 0 : -1;
}

static const char *in_scratch(const char *name)
{
    static char paths[8][PATH_MAX];
    static int next;
    char *p = paths[next++ % 8];
    snprintf(p, PATH_MAX, "%s/%s", scratch, name);
    return p;
}

/* sw_main("sweep", args..., "--exe", HS_EXE unless args name one, "--quiet"); args end with
 * NULL. */
static int sweep(char *err, ...)
{
    char *argv[64];
    int argc = 0, exe_given = 0;
    argv[argc++] = "sweep";
    va_list ap;
    va_start(ap, err);
    char *a;
    while ((a = va_arg(ap, char *)) != NULL && argc < 60) {
        exe_given |= strcmp(a, "--exe") == 0;
        argv[argc++] = a;
    }
    va_end(ap);
    if (!exe_given) {
        argv[argc++] = "--exe";
        argv[argc++] = HS_EXE;
    }
    argv[argc++] = "--quiet";
    argv[argc] = NULL;
    err[0] = '\0';
    return sw_main(argc, argv, err);
}

/* ---- a small CSV reader (RFC 4180 quotes), independent of the one in sweep.c ---- */

typedef struct {
    char *header[MAX_COLS];
    int n_cols;
    char *cell[MAX_ROWS][MAX_COLS];
    char *line[MAX_ROWS]; /* each row's text as written */
    int n_rows;
} csv;

static int split(char *s, char **out)
{
    int n = 0;
    for (;;) {
        char *w = s, *start = s;
        if (*s == '"') {
            for (s++;; s++) {
                if (*s == '"' && s[1] == '"')
                    *w++ = '"', s++;
                else if (*s == '"') {
                    s++;
                    break;
                } else
                    *w++ = *s;
            }
        } else {
            while (*s && *s != ',')
                *w++ = *s++;
        }
        char sep = *s;
        *w = '\0';
        out[n++] = start;
        if (sep != ',')
            return n;
        s++;
    }
}

static void csv_read(const char *path, csv *c)
{
    memset(c, 0, sizeof *c);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char buf[8192];
    int i = -1;
    while (fgets(buf, sizeof buf, f)) {
        size_t n = strlen(buf);
        assert_true(n > 0 && buf[n - 1] == '\n'); /* no truncated line is ever left */
        buf[n - 1] = '\0';
        if (i < 0) {
            c->n_cols = split(strdup(buf), c->header);
        } else {
            assert_true(i < MAX_ROWS);
            c->line[i] = strdup(buf);
            assert_int_equal(split(strdup(buf), c->cell[i]), c->n_cols);
        }
        i++;
    }
    fclose(f);
    c->n_rows = i < 0 ? 0 : i;
}

/* What csv_read allocated: the header's text, and each row's line and cells' text (a row's
 * first cell starts its text, split in place). */
static void csv_free(csv *c)
{
    if (c->n_cols)
        free(c->header[0]);
    for (int i = 0; i < c->n_rows; i++) {
        free(c->line[i]);
        free(c->cell[i][0]);
    }
    memset(c, 0, sizeof *c);
}

static int col(const csv *c, const char *name)
{
    for (int k = 0; k < c->n_cols; k++)
        if (strcmp(c->header[k], name) == 0)
            return k;
    fail_msg("no column %s", name);
    return -1;
}

static const char *get(const csv *c, int row, const char *name)
{
    return c->cell[row][col(c, name)];
}

static int find_row(const csv *c, const char *key)
{
    for (int i = 0; i < c->n_rows; i++)
        if (strcmp(c->cell[i][0], key) == 0)
            return i;
    return -1;
}

/* The row without its wall_s column (which differs between runs of the same configuration). */
static void without_wall(const csv *c, int row, char *out, size_t len)
{
    out[0] = '\0';
    int wall = col(c, "wall_s");
    for (int k = 0; k < c->n_cols; k++)
        if (k != wall)
            snprintf(out + strlen(out), len - strlen(out), "%s|", c->cell[row][k]);
}

static int count_lines(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    int n = 0, ch;
    while ((ch = fgetc(f)) != EOF)
        n += ch == '\n';
    fclose(f);
    return n;
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* The analytic iteration total computed in this process (the measured times: the sweeps
 * below say --compute measured), to check the children's values. */
/* paradl: ParaDL's halos and filter backward (--halo sendrecv --filter-backward allreduce). */
static double analytic_total_s(const char *strategy, int p, int64_t batch, bool paradl)
{
    static plat_platform plat;
    static wl_workload wl;
    static int loaded;
    char err[HS_ERR_LEN];
    if (!loaded) {
        assert_int_equal(plat_load("abci", &plat, err), HS_OK);
        assert_int_equal(wl_load("resnet50", &wl, err), HS_OK);
        loaded = 1;
    }
    st_strategy st;
    hs_estimate est;
    assert_int_equal(st_parse(strategy, p, plat.gpus_per_node, 0, &st, err), HS_OK);
    if (paradl)
        st.filter_rs = st.halo_chain = false;
    assert_int_equal(an_estimate(&wl, NULL, &plat, &st, batch, &est, err), HS_OK);
    return est.iteration.total_s;
}

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
                           "-o", in_scratch("w.csv"), "--emit", "parallel", jobs, NULL);
        if (round == 1) {
            assert_int_equal(status, HS_EINPUT);
            assert_non_null(strstr(err, "-w: "));
            assert_non_null(strstr(err, wl));
        } else {
            assert_int_equal(status, HS_OK);
        }
    }
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
        cmocka_unit_test_setup_teardown(test_batch_rules_and_analytic_values, setup, teardown),
        cmocka_unit_test_setup_teardown(test_paradl_collectives, setup, teardown),
        cmocka_unit_test_setup_teardown(test_compare_and_simulate_rows, setup, teardown),
        cmocka_unit_test_setup_teardown(test_failures_become_rows, setup, teardown),
        cmocka_unit_test_setup_teardown(test_resume_after_stop, setup, teardown),
        cmocka_unit_test_setup_teardown(test_truncated_last_line, setup, teardown),
        cmocka_unit_test_setup_teardown(test_file_equals_flags, setup, teardown),
        cmocka_unit_test_setup_teardown(test_input_errors, setup, teardown),
        cmocka_unit_test_setup_teardown(test_rewritten_workload_is_loaded_again, setup, teardown),
        cmocka_unit_test_setup_teardown(test_reads_a_sweep_from_before_the_added_columns, setup,
                                        teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
