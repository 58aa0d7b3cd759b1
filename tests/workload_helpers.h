/* workload_helpers.h: what the workload tests share: loading, comparing, temporary files,
 * expected failures, and reading the ParaDL oracle's logs.
 * Header-only; include after <cmocka.h>. */
#ifndef WORKLOAD_HELPERS_H
#define WORKLOAD_HELPERS_H

#define _POSIX_C_SOURCE 200809L /* setenv */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "work.h"
#include "workload.h"
#define MODEL_DIR HS_SHARED_DIR "/reference/paradl/model/"
#define LOG_DIR HS_SHARED_DIR "/reference/paradl/log/"
#define MAX_ROWS 600

/* ------------------------------------------------------------------ helpers */

static inline void load_ok(const char *spec, wl_workload *wl)
{
    char err[HS_ERR_LEN] = "";
    int rc = wl_load(spec, wl, err);
    if (rc != HS_OK)
        fail_msg("wl_load(%s): %s", spec, err);
}

static inline int rel_close(double a, double b, double tol)
{
    double scale = a > b ? a : b;
    if (scale < 0)
        scale = -scale;
    double d = a - b;
    if (d < 0)
        d = -d;
    return d <= tol * (scale > 0 ? scale : 1e-300);
}

/* The index of the layer named `name`; fails the test when there is none. */
static inline int layer_named(const wl_workload *wl, const char *name)
{
    for (int i = 0; i < wl->n_layers; i++)
        if (strcmp(wl->layers[i].name, name) == 0)
            return i;
    fail_msg("no layer %s", name);
    return -1;
}

/* Layer `index`'s kernel of one pass under split s, with `element_bytes` a value; fails the
 * test on an error. */
static inline lw_kernel kernel_ok(const wl_workload *wl, int index, const lw_split *s,
                                  lw_pass pass, double element_bytes)
{
    char err[HS_ERR_LEN] = "";
    lw_kernel kn;
    if (lw_kernel_of(wl, index, s, pass, element_bytes, &kn, err) != HS_OK)
        fail_msg("lw_kernel_of: %s", err);
    return kn;
}

/* Write a file under HS_TEST_TMP, in a folder of this test program's own (HS_TEST_NAME.d), and
 * return its path (a static buffer per call site is enough: each test uses its paths right
 * away). The folder keeps tests that ctest -j runs at once off each other's files:
 * test_compute and test_workload_xml both write a different wl_timed.xml. */
static inline const char *tmp_file(char *path, size_t len, const char *name, const char *text)
{
    snprintf(path, len, "%s/%s.d", HS_TEST_TMP, HS_TEST_NAME);
    assert_true(mkdir(path, 0777) == 0 || errno == EEXIST);
    snprintf(path, len, "%s/%s.d/wl_%s", HS_TEST_TMP, HS_TEST_NAME, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    return path;
}

/* Load `text` written to a temporary file and expect HS_EINPUT with every needle in err. */
static inline void expect_bad(const char *name, const char *text, const char *needle1,
                       const char *needle2)
{
    char path[1024], err[HS_ERR_LEN] = "";
    wl_workload wl;
    tmp_file(path, sizeof path, name, text);
    int rc = wl_load(path, &wl, err);
    if (rc != HS_EINPUT)
        fail_msg("%s: expected HS_EINPUT, got %d (%s)", name, rc, err);
    assert_null(wl.layers);
    assert_int_equal(wl.n_layers, 0);
    if (!strstr(err, needle1) || (needle2 && !strstr(err, needle2)))
        fail_msg("%s: message '%s' lacks '%s'%s%s", name, err, needle1, needle2 ? " or " : "",
                 needle2 ? needle2 : "");
}

/* The oracle's spread table: the second block headed "LAYER" in a log, one row per layer
 * ("NAME \t[x] \t[w] \t[y] \tseconds") until "****". Returns the row count. */
static inline int read_log_times(const char *log, char (*names)[WL_NAME_LEN], double *seconds)
{
    FILE *f = fopen(log, "r");
    if (!f)
        fail_msg("cannot open %s", log);
    char line[8192];
    int headers = 0, n = 0;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "LAYER", 5) == 0) {
            headers++;
            continue;
        }
        if (headers < 2)
            continue;
        if (strncmp(line, "****", 4) == 0 || n == MAX_ROWS)
            break;
        char *last_tab = strrchr(line, '\t');
        assert_non_null(last_tab);
        seconds[n] = strtod(last_tab + 1, NULL);
        sscanf(line, "%63s", names[n]);
        n++;
    }
    fclose(f);
    return n;
}

/* "Total |x|: 14971596 items": the first such line of a log. */
static inline int64_t read_log_total(const char *log, const char *key)
{
    FILE *f = fopen(log, "r");
    if (!f)
        fail_msg("cannot open %s", log);
    char line[8192];
    long long v = -1;
    while (v < 0 && fgets(line, sizeof line, f))
        if (strncmp(line, key, strlen(key)) == 0)
            v = atoll(line + strlen(key));
    fclose(f);
    return v;
}

/* "Layer config [1, 0, ...]": the first such line; returns how many values. */
static inline int read_log_layer_config(const char *log, int *config)
{
    FILE *f = fopen(log, "r");
    if (!f)
        fail_msg("cannot open %s", log);
    static char line[65536];
    int n = 0;
    while (fgets(line, sizeof line, f)) {
        char *p = strstr(line, "Layer config [");
        if (!p)
            continue;
        for (p += strlen("Layer config ["); *p && *p != ']' && n < MAX_ROWS; n++) {
            config[n] = (int)strtol(p, &p, 10);
            while (*p == ',' || *p == ' ')
                p++;
        }
        break;
    }
    fclose(f);
    return n;
}

#endif
