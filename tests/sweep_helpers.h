/* sweep_helpers.h: what the sweep tests (test_sweep.c, test_sweep_resume.c) share: a scratch
 * folder per test, sw_main run in-process against the built hybridsim, a small CSV reader
 * independent of sweep.c's, and the analytic total computed in the test's process.
 * Header-only; include after <cmocka.h>. */
#ifndef SWEEP_HELPERS_H
#define SWEEP_HELPERS_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>


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

static inline int setup(void **state)
{
    (void)state;
    snprintf(scratch, sizeof scratch, "%s/sweep-XXXXXX", HS_TEST_TMP);
    assert_non_null(mkdtemp(scratch));
    return 0;
}

static inline int teardown(void **state)
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
static inline int sweep(char *err, ...)
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

static inline int split(char *s, char **out)
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

static inline void csv_read(const char *path, csv *c)
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
static inline void csv_free(csv *c)
{
    if (c->n_cols)
        free(c->header[0]);
    for (int i = 0; i < c->n_rows; i++) {
        free(c->line[i]);
        free(c->cell[i][0]);
    }
    memset(c, 0, sizeof *c);
}

static inline int col(const csv *c, const char *name)
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

static inline int find_row(const csv *c, const char *key)
{
    for (int i = 0; i < c->n_rows; i++)
        if (strcmp(c->cell[i][0], key) == 0)
            return i;
    return -1;
}

/* The row without its wall_s column (which differs between runs of the same configuration). */
static inline void without_wall(const csv *c, int row, char *out, size_t len)
{
    out[0] = '\0';
    int wall = col(c, "wall_s");
    for (int k = 0; k < c->n_cols; k++)
        if (k != wall)
            snprintf(out + strlen(out), len - strlen(out), "%s|", c->cell[row][k]);
}

static inline int count_lines(const char *path)
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

static inline void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* The analytic iteration total computed in this process (the measured times: the sweeps
 * below say --compute measured), to check the children's values. */
/* paradl: ParaDL's halos and filter backward (--halo sendrecv --filter-backward allreduce). */
static inline double analytic_total_s(const char *strategy, int p, int64_t batch, bool paradl)
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

#endif
