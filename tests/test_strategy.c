/* test_strategy.c: the "-s" vocabulary: parsing, the limits on p, batch checks, and the
 * pipeline's layer partition, on the four-layer workload of tiny_workload.h. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "strategy.h"
#include "tiny_workload.h"

static wl_layer tiny_layers[4];
static wl_workload tiny;

static int setup_tiny(void **state)
{
    (void)state;
    tiny_workload(&tiny, tiny_layers);
    return 0;
}

static void expect_error(int status, const char *err, const char *needle)
{
    assert_int_equal(status, HS_EINPUT);
    if (!strstr(err, needle))
        fail_msg("message \"%s\" does not mention \"%s\"", err, needle);
}

/* ------------------------------------------------------------------ parsing */

static void test_parse_plain_kinds(void **state)
{
    (void)state;
    st_strategy st;
    char err[HS_ERR_LEN];
    assert_int_equal(st_parse("data", 8, 4, 0, &st, err), HS_OK);
    assert_int_equal(st.kind, ST_DATA);
    assert_int_equal(st.p1, 8);
    assert_int_equal(st.p2, 1);
    assert_int_equal(st.segments, 1);
    assert_int_equal(st_parse("filter", 8, 4, 0, &st, err), HS_OK);
    assert_int_equal(st.kind, ST_FILTER);
    assert_int_equal(st.p1, 1);
    assert_int_equal(st.p2, 8);
    assert_int_equal(st_parse("serial", 1, 4, 0, &st, err), HS_OK);
    assert_int_equal(st.kind, ST_SERIAL);
    assert_int_equal(st_parse("channel", 2, 4, 0, &st, err), HS_OK);
    assert_int_equal(st.kind, ST_CHANNEL);
    assert_int_equal(st_parse("spatial", 4, 4, 0, &st, err), HS_OK);
    assert_int_equal(st.kind, ST_SPATIAL);
    for (int k = 0; k < ST_LAYERWISE; k++) {
        int p = k == ST_SERIAL ? 1 : 4;
        assert_int_equal(st_parse(st_kind_name((st_kind)k), p, 4, 0, &st, err), HS_OK);
        assert_int_equal(st.kind, k);
        assert_int_equal(st.p1 * st.p2, p);
    }
    /* a per-layer strategy is a file (-s FILE.xml), not a name */
    assert_int_equal(st_parse("layerwise", 4, 4, 0, &st, err), HS_EINPUT);
}

static void test_parse_hybrid_shapes(void **state)
{
    (void)state;
    st_strategy st;
    char err[HS_ERR_LEN];
    assert_int_equal(st_parse("data+filter:8x4", 32, 4, 0, &st, err), HS_OK);
    assert_int_equal(st.kind, ST_DATA_FILTER);
    assert_int_equal(st.p1, 8);
    assert_int_equal(st.p2, 4);
    /* Default: one group per node. */
    assert_int_equal(st_parse("data+spatial", 32, 4, 0, &st, err), HS_OK);
    assert_int_equal(st.kind, ST_DATA_SPATIAL);
    assert_int_equal(st.p1, 8);
    assert_int_equal(st.p2, 4);
    assert_int_equal(st_parse("data+filter:16x2", 32, 4, 0, &st, err), HS_OK);
    assert_int_equal(st.p1, 16);
    assert_int_equal(st.p2, 2);
}

static void test_parse_pipeline_segments(void **state)
{
    (void)state;
    st_strategy st;
    char err[HS_ERR_LEN];
    assert_int_equal(st_parse("pipeline", 4, 4, 0, &st, err), HS_OK);
    assert_int_equal(st.segments, 4); /* default S = p */
    assert_int_equal(st_parse("pipeline", 4, 4, 16, &st, err), HS_OK);
    assert_int_equal(st.segments, 16);
    expect_error(st_parse("data", 4, 4, 2, &st, err), err, "--micro-batches 2");
}

static void test_parse_errors(void **state)
{
    (void)state;
    st_strategy st;
    char err[HS_ERR_LEN];
    expect_error(st_parse("dataa", 4, 4, 0, &st, err), err, "-s dataa: unknown strategy");
    /* The message lists the known strategies. */
    expect_error(st_parse("dataa", 4, 4, 0, &st, err), err, "data+spatial");
    expect_error(st_parse("data+filter:8x4", 16, 4, 0, &st, err), err,
                 "8 x 4 = 32 GPUs, but -g is 16");
    expect_error(st_parse("data+filter", 6, 4, 0, &st, err), err, "-g 6");
    expect_error(st_parse("data+filter", 2, 4, 0, &st, err), err, "4 does not divide 2");
    expect_error(st_parse("serial", 2, 4, 0, &st, err), err, "-g 2: serial");
    expect_error(st_parse("data", 0, 4, 0, &st, err), err, "-g 0");
    expect_error(st_parse("filter", -3, 4, 0, &st, err), err, "-g -3");
    expect_error(st_parse("data:2x2", 4, 4, 0, &st, err), err, "-s data:2x2");
    expect_error(st_parse("data+filter:8y4", 32, 4, 0, &st, err), err, "P1xP2");
    expect_error(st_parse("data+filter:0x4", 0 + 4, 4, 0, &st, err), err, "P1xP2");
    expect_error(st_parse("data+filter:x4", 4, 4, 0, &st, err), err, "P1xP2");
    expect_error(st_parse("data+filter:2x2x1", 4, 4, 0, &st, err), err, "P1xP2");
    expect_error(st_parse("", 4, 4, 0, &st, err), err, "-s");
}

static void test_names_and_split_bits(void **state)
{
    (void)state;
    assert_string_equal(st_kind_name(ST_DATA_FILTER), "data+filter");
    assert_string_equal(st_kind_name(ST_PIPELINE), "pipeline");
    assert_int_equal(st_split_bit(ST_FILTER), WL_SPLIT_FILTER);
    assert_int_equal(st_split_bit(ST_DATA_FILTER), WL_SPLIT_FILTER);
    assert_int_equal(st_split_bit(ST_CHANNEL), WL_SPLIT_CHANNEL);
    assert_int_equal(st_split_bit(ST_DATA_SPATIAL), WL_SPLIT_SPATIAL);
    assert_int_equal(st_split_bit(ST_DATA), 0);
    assert_int_equal(st_split_bit(ST_PIPELINE), 0);
}

/* ------------------------------------------------------------------ limits */

static st_strategy parsed(const char *text, int p)
{
    st_strategy st;
    char err[HS_ERR_LEN];
    if (st_parse(text, p, 2, 0, &st, err) != HS_OK)
        fail_msg("parse %s: %s", text, err);
    return st;
}

static void test_limits_on_p(void **state)
{
    (void)state;
    st_strategy st = parsed("filter", 2);
    assert_int_equal(st_limit_p(&st, &tiny, 64), 4);   /* min F of the split convs: 4, 8 */
    st = parsed("channel", 2);
    assert_int_equal(st_limit_p(&st, &tiny, 64), 4);   /* layer 0's C = 2 is exempt: C = 4 */
    st = parsed("spatial", 2);
    assert_int_equal(st_limit_p(&st, &tiny, 64), 4);   /* min W of x and y: 8, 8, 8, 4 */
    st = parsed("data", 2);
    assert_int_equal(st_limit_p(&st, &tiny, 64), 64);  /* p <= B */
    st = parsed("pipeline", 2);
    assert_int_equal(st_limit_p(&st, &tiny, 64), 4);   /* p <= G */
    st = parsed("data+filter", 4);
    assert_int_equal(st_limit_p(&st, &tiny, 64), 256); /* B * min F */
    st = parsed("data+spatial", 4);
    assert_int_equal(st_limit_p(&st, &tiny, 16), 64);  /* B * min W */
    st = parsed("serial", 1);
    assert_int_equal(st_limit_p(&st, &tiny, 64), 1);
}

static void test_check_accepts_the_limit_and_rejects_beyond(void **state)
{
    (void)state;
    char err[HS_ERR_LEN];
    st_strategy st = parsed("filter", 4);
    assert_int_equal(st_check(&st, &tiny, 8, err), HS_OK);
    st = parsed("filter", 8);
    expect_error(st_check(&st, &tiny, 8, err), err,
                 "-g 8: filter parallelism splits at most 4 filters (min F over split layers "
                 "of tiny)");
    st = parsed("channel", 8);
    expect_error(st_check(&st, &tiny, 8, err), err, "at most 4 channels");
    st = parsed("spatial", 8);
    expect_error(st_check(&st, &tiny, 8, err), err, "at most 4 columns");
    st = parsed("pipeline", 4);
    assert_int_equal(st_check(&st, &tiny, 8, err), HS_OK);
    st = parsed("pipeline", 6);
    expect_error(st_check(&st, &tiny, 12, err), err, "has 4 layers");
    st = parsed("data+filter:2x8", 16);
    expect_error(st_check(&st, &tiny, 8, err), err, "a group of 8 GPUs");
}

static void test_check_batch_division(void **state)
{
    (void)state;
    char err[HS_ERR_LEN];
    st_strategy st = parsed("data", 4);
    assert_int_equal(st_check(&st, &tiny, 8, err), HS_OK);
    expect_error(st_check(&st, &tiny, 6, err), err, "-b 6");
    expect_error(st_check(&st, &tiny, 2, err), err, "more than the 2 samples");
    expect_error(st_check(&st, &tiny, 0, err), err, "-b 0");
    st = parsed("data+filter:4x2", 8);
    assert_int_equal(st_check(&st, &tiny, 4, err), HS_OK);
    expect_error(st_check(&st, &tiny, 6, err), err, "4 data-parallel groups");
    /* Pipeline: B splits into S micro-batches. */
    st_parse("pipeline", 2, 2, 4, &st, err);
    assert_int_equal(st_check(&st, &tiny, 8, err), HS_OK);
    expect_error(st_check(&st, &tiny, 6, err), err, "4 micro-batches");
}

static void test_check_needs_split_layers(void **state)
{
    (void)state;
    char err[HS_ERR_LEN];
    wl_layer saved[4];
    memcpy(saved, tiny_layers, sizeof saved);
    tiny_layers[0].split_mask = tiny_layers[2].split_mask = WL_SPLIT_SPATIAL; /* only */
    st_strategy st = parsed("filter", 2);
    expect_error(st_check(&st, &tiny, 8, err), err, "no layer of tiny is marked for filter");
    st = parsed("spatial", 2);
    assert_int_equal(st_check(&st, &tiny, 8, err), HS_OK);
    memcpy(tiny_layers, saved, sizeof saved);
}

/* ------------------------------------------------------------------ pipeline partition */

static void test_partition_balances_compute(void **state)
{
    (void)state;
    char err[HS_ERR_LEN];
    int first[5];
    /* Layer times 3, 1, 6, 2 ms. Two stages: {3,1 | 6,2} = max 8 beats {3 | 1,6,2} = 9 and
     * {3,1,6 | 2} = 10. */
    assert_int_equal(st_pipeline_partition(&tiny, NULL, 0, 2, first, err), HS_OK);
    assert_int_equal(first[0], 0);
    assert_int_equal(first[1], 2);
    assert_int_equal(first[2], 4);
    /* Three: {3,1 | 6 | 2} = max 6, the heaviest layer alone. */
    assert_int_equal(st_pipeline_partition(&tiny, NULL, 0, 3, first, err), HS_OK);
    assert_int_equal(first[1], 2);
    assert_int_equal(first[2], 3);
    assert_int_equal(first[3], 4);
    /* Four: one layer each. */
    assert_int_equal(st_pipeline_partition(&tiny, NULL, 0, 4, first, err), HS_OK);
    for (int i = 0; i <= 4; i++)
        assert_int_equal(first[i], i);
    /* One: everything. */
    assert_int_equal(st_pipeline_partition(&tiny, NULL, 0, 1, first, err), HS_OK);
    assert_int_equal(first[0], 0);
    assert_int_equal(first[1], 4);
    expect_error(st_pipeline_partition(&tiny, NULL, 0, 5, first, err), err, "-g 5");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_plain_kinds),
        cmocka_unit_test(test_parse_hybrid_shapes),
        cmocka_unit_test(test_parse_pipeline_segments),
        cmocka_unit_test(test_parse_errors),
        cmocka_unit_test(test_names_and_split_bits),
        cmocka_unit_test(test_limits_on_p),
        cmocka_unit_test(test_check_accepts_the_limit_and_rejects_beyond),
        cmocka_unit_test(test_check_batch_division),
        cmocka_unit_test(test_check_needs_split_layers),
        cmocka_unit_test(test_partition_balances_compute),
    };
    return cmocka_run_group_tests(tests, setup_tiny, NULL);
}
