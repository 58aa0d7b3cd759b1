/* test_job_keys.c: the table of job keys (sim/run/job_keys.h) and the commands that read it.
 *
 * Every key takes each of its values and refuses a bad one by name; a key given twice is
 * refused; --help lists every key; getopt's table and the --job lookup cover every key; and
 * the run commands, suggest and strategy --search read their flags through it (a repeated
 * flag refused, --precision taken by suggest and --search, a key they choose refused). */
#define _GNU_SOURCE /* open_memstream */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_int.h"
#include "job_keys.h"
#include "precision.h"

/* Key k's field in s, read as its type. */
static int64_t field_value(const js_settings *s, int k)
{
    const char *f = (const char *)s + js_keys[k].offset;
    switch (js_keys[k].type) {
    case JS_COUNT:
    case JS_CHOICE: return *(const int *)f;
    case JS_BATCH: return *(const int64_t *)f;
    case JS_SWITCH: return *(const bool *)f;
    case JS_TEXT: return *(const char *const *)f != NULL;
    }
    return -1;
}

/* Each word of a choice key, in order, is first + its index, and reads back as itself. */
static void check_choice(int k)
{
    char copy[256], buf[40], err[HS_ERR_LEN];
    snprintf(copy, sizeof copy, "%s", js_keys[k].values);
    int i = 0;
    for (char *w = strtok(copy, ", "); w; w = strtok(NULL, ", "), i++) {
        js_settings s = {0};
        assert_int_equal(js_set(&s, k, w, "--x", err), HS_OK);
        assert_int_equal(field_value(&s, k), js_keys[k].first + i);
        assert_string_equal(js_value_text(&s, k, buf), w);
        assert_int_equal(js_check(k, w, "--x", err), HS_OK);
    }
    assert_true(i >= 2);
}

static void test_every_key_takes_its_values(void **state)
{
    (void)state;
    char err[HS_ERR_LEN], buf[40];
    assert_true(js_n_keys <= JS_MAX_KEYS);
    for (int k = 0; k < js_n_keys; k++) {
        js_settings s = {0};
        assert_null(js_value_text(&s, k, buf)); /* not given */
        switch (js_keys[k].type) {
        case JS_TEXT:
            assert_int_equal(js_set(&s, k, "resnet50", "-x", err), HS_OK);
            assert_string_equal(js_value_text(&s, k, buf), "resnet50");
            break;
        case JS_COUNT:
        case JS_BATCH:
            assert_int_equal(js_set(&s, k, "64", "-x", err), HS_OK);
            assert_int_equal(field_value(&s, k), 64);
            assert_string_equal(js_value_text(&s, k, buf), "64");
            break;
        case JS_CHOICE: check_choice(k); break;
        case JS_SWITCH:
            assert_int_equal(js_set(&s, k, NULL, "--x", err), HS_OK);
            assert_int_equal(field_value(&s, k), 1);
            break;
        }
        assert_true(js_given(&s, js_keys[k].name) || js_keys[k].type == JS_CHOICE);
        assert_non_null(js_keys[k].help);
        assert_int_equal(js_find(js_keys[k].name), k);
        assert_int_equal(js_find_job_key(js_keys[k].name), k);
        if (js_keys[k].short_flag) {
            char key[2] = {js_keys[k].short_flag, 0};
            assert_int_equal(js_find_short(js_keys[k].short_flag), k);
            assert_int_equal(js_find_job_key(key), k);
        }
    }
}

/* The message of js_set(key, value), which must fail. */
static const char *refused(const char *key, const char *value)
{
    static char err[HS_ERR_LEN];
    js_settings s = {0};
    assert_int_equal(js_set(&s, js_find(key), value, "-g", err), HS_EINPUT);
    return err;
}

static void test_bad_values_named(void **state)
{
    (void)state;
    assert_string_equal(refused("gpus", "four"), "-g: 'four' is not a whole number");
    assert_string_equal(refused("gpus", "0"), "-g: 0 is out of range [1, 2147483647]");
    assert_string_equal(refused("gpus", "-3"), "-g: -3 is out of range [1, 2147483647]");
    assert_string_equal(refused("gpus", "2147483648"),
                        "-g: 2147483648 is too large (at most 2147483647)");
    assert_string_equal(refused("batch", "99999999999999999999"),
                        "-g: 99999999999999999999 is too large (at most 2305843009213693951)");
    assert_string_equal(refused("precision", "fp8"),
                        "-g: unknown precision 'fp8' (known: fp32, mixed, bf16, tf32)");
    assert_string_equal(refused("allreduce", "nccl"),
                        "-g: unknown algorithm 'nccl' (known: ring, hier, tree, rings, auto)");
    assert_string_equal(refused("halo", ""), "-g: unknown exchange '' (known: chain, sendrecv)");
    char err[HS_ERR_LEN];
    assert_int_equal(js_check(js_find("compute"), "fast", "FILE:3: compute", err), HS_EINPUT);
    assert_string_equal(err, "FILE:3: compute: unknown method 'fast' (known: measured, model, "
                             "kernels)");
}

static void test_repeated_key_refused(void **state)
{
    (void)state;
    char err[HS_ERR_LEN];
    for (int k = 0; k < js_n_keys; k++) {
        js_settings s = {0};
        const char *v = js_keys[k].type == JS_TEXT     ? "x"
                        : js_keys[k].type == JS_CHOICE ? js_keys[k].values
                        : js_keys[k].type == JS_SWITCH ? "on"
                                                       : "4";
        char first[64];
        snprintf(first, sizeof first, "%.*s", (int)strcspn(v, ","), v);
        assert_int_equal(js_set(&s, k, first, "--k", err), HS_OK);
        assert_int_equal(js_set(&s, k, first, "--k", err), HS_EINPUT);
        assert_string_equal(err, "--k is given twice");
    }
}

/* A switch: alone or "on" sets it, "off" clears it (said: a runtime's overlap does not win),
 * anything else is refused naming the value. */
static void test_switch_on_off(void **state)
{
    (void)state;
    char err[HS_ERR_LEN], buf[24];
    int k = js_find("overlap");
    js_settings a = {0}, b = {0}, c = {0}, d = {0};
    assert_int_equal(js_set(&a, k, NULL, "--overlap", err), HS_OK);
    assert_true(a.overlap);
    assert_int_equal(js_set(&b, k, "on", "--overlap", err), HS_OK);
    assert_true(b.overlap);
    assert_int_equal(js_set(&c, k, "off", "--overlap", err), HS_OK);
    assert_false(c.overlap);
    assert_true(js_given(&c, "overlap"));
    assert_string_equal(js_value_text(&c, k, buf), "off");
    assert_string_equal(js_value_text(&a, k, buf), "");
    assert_int_equal(js_set(&d, k, "yes", "--job 1: overlap", err), HS_EINPUT);
    assert_string_equal(err, "--job 1: overlap: 'yes' is not on or off");
}

static void test_help_lists_every_key(void **state)
{
    (void)state;
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    assert_non_null(f);
    js_print_help(f, 0);
    fclose(f);
    for (int k = 0; k < js_n_keys; k++) {
        char flag[64];
        snprintf(flag, sizeof flag, "--%s", js_keys[k].name);
        assert_non_null(strstr(text, flag));
    }
    for (char *line = text; *line; line += strcspn(line, "\n") + 1) /* within 88 columns */
        assert_true(strcspn(line, "\n") <= 88);
    free(text);
}

static void test_getopt_entries(void **state)
{
    (void)state;
    struct option opts[JS_MAX_KEYS + 1];
    char shortopts[64] = "";
    int n = js_getopt_entries(opts, 0, 3000, shortopts, sizeof shortopts);
    assert_int_equal(n, js_n_keys);
    for (int k = 0; k < js_n_keys; k++) {
        assert_string_equal(opts[k].name, js_keys[k].name);
        assert_int_equal(opts[k].val, 3000 + k);
        if (js_keys[k].short_flag)
            assert_non_null(strchr(shortopts, js_keys[k].short_flag));
    }
    n = js_getopt_entries(opts, JS_IN_PRICING, 3000, shortopts, sizeof shortopts);
    for (int i = 0; i < n; i++)
        assert_true(js_keys[opts[i].val - 3000].scope & JS_IN_PRICING);
}

static void test_take(void **state)
{
    (void)state;
    char err[HS_ERR_LEN];
    js_settings from = {0}, to = {0};
    int halo = js_find("halo"), batch = js_find("batch");
    assert_int_equal(js_set(&from, halo, "sendrecv", "--halo", err), HS_OK);
    js_take(&to, &from, halo);
    js_take(&to, &from, batch); /* not given: nothing */
    assert_int_equal(to.halo_chain, JS_OFF);
    assert_true(js_given(&to, "halo"));
    assert_false(js_given(&to, "batch"));
}

/* The run commands: every key as a flag, a repeated one refused. */
static int run_flags(const char *const *args, int n, cli_options *o, char *err)
{
    char *argv[32];
    for (int i = 0; i < n; i++)
        argv[i] = (char *)args[i];
    argv[n] = NULL;
    memset(o, 0, sizeof *o);
    o->command = CMD_ANALYTIC;
    o->layers_top = 10;
    return cli_parse_run_options(n, argv, o, err);
}

static void test_run_commands(void **state)
{
    (void)state;
    char err[HS_ERR_LEN];
    cli_options o;
    const char *ok[] = {"analytic", "-w", "resnet50", "-p", "abci", "-s", "data", "-g", "8",
                        "-b", "64", "--precision", "mixed", "--allreduce", "tree", "--halo",
                        "chain", "--compute", "model", "--overlap"};
    assert_int_equal(run_flags(ok, 20, &o, err), HS_OK);
    assert_int_equal(o.job.gpus, 8);
    assert_int_equal(o.job.precision, PR_MIXED);
    assert_int_equal(o.job.halo_chain, JS_ON);
    assert_true(o.job.overlap && o.sim.overlap);
    const char *twice[] = {"analytic", "-w", "resnet50", "-p", "abci", "-s", "data", "-g", "4",
                           "-b", "64", "--gpus", "8"};
    assert_int_equal(run_flags(twice, 13, &o, err), HS_EINPUT);
    assert_string_equal(err, "-g is given twice");
}

static void test_pricing_commands(void **state)
{
    (void)state;
    char err[HS_ERR_LEN];
    char *sg[] = {"suggest", "-w", "resnet50", "-g", "8", "-b", "64", "--precision", "bf16",
                  NULL};
    cli_suggest_options so = {.platform = "abci", .top = 5};
    assert_int_equal(cli_parse_suggest(9, sg, &so, err), HS_OK);
    assert_int_equal(so.job.precision, PR_BF16);
    char *sg_ar[] = {"suggest", "-w", "resnet50", "-g", "8", "-b", "64", "--allreduce", "tree",
                     NULL};
    so = (cli_suggest_options){.platform = "abci", .top = 5};
    assert_int_equal(cli_parse_suggest(9, sg_ar, &so, err), HS_EINPUT);
    assert_non_null(strstr(err, "--allreduce: suggest chooses it"));
    char *se[] = {"strategy", "--search", "-w", "resnet50", "-g", "8", "-b", "64", "-b", "32",
                  NULL};
    cli_search_options o = {.cost_model = "hybridsim", .platform = "abci"};
    assert_int_equal(cli_parse_search(10, se, &o, err), HS_EINPUT);
    assert_string_equal(err, "-b is given twice");
    se[8] = "--precision", se[9] = "mixed";
    o = (cli_search_options){.cost_model = "hybridsim", .platform = "abci"};
    assert_int_equal(cli_parse_search(10, se, &o, err), HS_OK);
    assert_int_equal(o.job.precision, PR_MIXED);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_key_takes_its_values),
        cmocka_unit_test(test_bad_values_named),
        cmocka_unit_test(test_repeated_key_refused),
        cmocka_unit_test(test_switch_on_off),
        cmocka_unit_test(test_help_lists_every_key),
        cmocka_unit_test(test_getopt_entries),
        cmocka_unit_test(test_take),
        cmocka_unit_test(test_run_commands),
        cmocka_unit_test(test_pricing_commands),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
