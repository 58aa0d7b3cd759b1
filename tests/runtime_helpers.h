/* runtime_helpers.h: what the runtime files' tests share (test_runtime*.c): a shipped runtime
 * loaded or the test failed, and a small valid runtime file with lines added, parsed and
 * expected accepted or refused with a given message.
 * Header-only; include after <cmocka.h>. */
#ifndef RUNTIME_HELPERS_H
#define RUNTIME_HELPERS_H

#include <stdio.h>
#include <string.h>

#include "runtime.h"

/* The shipped runtime `name` (rt_load); fails the test on an error. */
static inline rt_runtime load_ok(const char *name)
{
    char err[HS_ERR_LEN] = "";
    rt_runtime rt;
    if (rt_load(name, &rt, err) != HS_OK)
        fail_msg("rt_load %s: %s", name, err);
    return rt;
}

/* A minimal valid file, 15 lines, with `extra` appended (each line under its own source
 * comment): a line of `extra` is line 16 onwards in the messages. */
static const char *const base_lines =
    "description = test\n"
    "# source: a\nlibrary = mpi\n"
    "# source: a\nallreduce = library\n"
    "# source: a\noverlap = off\n"
    "# source: a\ngradient_precision = storage\n"
    "# source: a\nhalo = chain\n"
    "# source: a\nfilter_backward = allreduce\n"
    "# source: a\noptimizer = sgd\n";

/* Write text to this test program's own file (HS_TEST_NAME.rt under HS_TEST_TMP, so that two
 * programs run at once do not share it), parse it into rt; returns the status, the message in
 * err. */
static inline int parse_into(const char *text, rt_runtime *rt, char *err)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s.rt", HS_TEST_TMP, HS_TEST_NAME);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    return rt_parse_file(path, rt, err);
}

/* parse_into, the runtime not kept. */
static inline int parse_text(const char *text, char *err)
{
    rt_runtime rt;
    return parse_into(text, &rt, err);
}

/* The base file with `extra` added, parsed; fails the test if refused. */
static inline rt_runtime accepted(const char *extra)
{
    char text[4096], err[HS_ERR_LEN] = "";
    snprintf(text, sizeof text, "%s%s", base_lines, extra);
    rt_runtime rt;
    if (parse_into(text, &rt, err) != HS_OK)
        fail_msg("refused: %s: %s", extra, err);
    return rt;
}

/* The base file with `extra` added, expected to fail with a message containing `want`. */
static inline void refused(const char *extra, const char *want)
{
    char text[4096], err[HS_ERR_LEN] = "";
    snprintf(text, sizeof text, "%s%s", base_lines, extra);
    if (parse_text(text, err) != HS_EINPUT)
        fail_msg("accepted: %s", extra);
    if (!strstr(err, want))
        fail_msg("'%s' for %s: no '%s'", err, extra, want);
}

#endif
