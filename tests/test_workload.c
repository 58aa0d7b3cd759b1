/* test_workload.c: the workloads module against the ParaDL oracle's own files and logs.
 *
 * The reference numbers (per-layer times, |x| |y| |w| totals, layer configurations) are read
 * from the oracle's logs at test time, never pasted here, so the tests check our reading of
 * the oracle rather than a copy of it. Bad inputs are written into HS_TEST_TMP at test time. */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "shared_helpers.h"

#include "workload.h"

#define MODEL_DIR HS_SHARED_DIR "/reference/paradl/model/"
#define LOG_DIR HS_SHARED_DIR "/reference/paradl/log/"
#define MAX_ROWS 600
#include "workload_helpers.h"

/* ------------------------------------------------------------------ the oracle's numbers */

/* Per-layer times equal the oracle's spread table, and the totals its "Total" lines. */
static void check_against_log(const char *model, const char *log)
{
    static char names[MAX_ROWS][WL_NAME_LEN];
    static double oracle_s[MAX_ROWS];
    wl_workload wl;
    load_ok(model, &wl);
    int rows = read_log_times(log, names, oracle_s);
    assert_int_equal(rows, wl.n_layers);
    for (int i = 0; i < rows; i++) {
        const wl_layer *l = &wl.layers[i];
        assert_string_equal(names[i], l->name);
        double ours = l->fw_s + l->bw_s;
        if (!rel_close(ours, oracle_s[i], 1e-6))
            fail_msg("%s layer %d %s: %.12g s, the oracle has %.12g s", model, i, l->name, ours,
                     oracle_s[i]);
    }
    assert_int_equal(wl.x_total, read_log_total(log, "Total |x|:"));
    assert_int_equal(wl.y_total, read_log_total(log, "Total |y|:"));
    assert_int_equal(wl.w_total, read_log_total(log, "Total |w|:"));
    wl_free(&wl);
}

static void test_spread_resnet50(void **state)
{
    (void)state;
    check_against_log(MODEL_DIR "RESNET50_ImageNet_profall.net_sc",
                      LOG_DIR "data_resnet_scaling_proj.log");
}

static void test_spread_vgg16(void **state)
{
    (void)state;
    check_against_log(MODEL_DIR "VGG_ImageNet_profall.net_sc", LOG_DIR "data_vgg_scaling_proj.log");
}

static void test_spread_alexnet(void **state)
{
    (void)state;
    check_against_log(MODEL_DIR "ALEXNET_ImageNet_profall.net_sc",
                      LOG_DIR "data_alexnet_scaling_proj.log");
}

static void test_spread_cosmoflow(void **state)
{
    (void)state;
    check_against_log(MODEL_DIR "COSMOFLOW.net", LOG_DIR "ranking_log/cosmoflow.log");
    check_against_log(MODEL_DIR "COSMOFLOW.net_256", LOG_DIR "ranking_log/cosmoflow_256.log");
}

static void test_header_and_split_of_time(void **state)
{
    (void)state;
    wl_workload wl;
    load_ok(MODEL_DIR "RESNET50_ImageNet_profall.net_sc", &wl);
    assert_string_equal(wl.name, "ResNet50");
    assert_string_equal(wl.dataset, "ImageNet");
    assert_int_equal(wl.samples, 1280000);
    assert_int_equal(wl.sample.channels, 3);
    assert_int_equal(wl.sample.n_spatial, 2);
    assert_int_equal(wl.sample.spatial[0], 226);
    assert_int_equal(wl.n_layers, 166);
    assert_true(rel_close(wl.sample_time_s, 0.003119502, 1e-12));
    double sum = 0;
    for (int i = 0; i < wl.n_layers; i++) {
        const wl_layer *l = &wl.layers[i];
        sum += l->fw_s + l->bw_s;
        double t = l->fw_s + l->bw_s;
        /* weights: forward a third (two gradients after it); otherwise half and half */
        assert_true(rel_close(l->fw_s, l->w_elems > 0 ? t / 3 : t / 2, 1e-12));
        assert_true(l->wu_s == 0);
        assert_int_equal(l->split_mask, WL_SPLIT_ALL); /* no layer file: all split */
    }
    assert_true(rel_close(sum, wl.sample_time_s, 1e-9));
    const wl_layer *conv1 = &wl.layers[0], *pool = &wl.layers[3];
    assert_int_equal(conv1->type, WL_CONV);
    assert_int_equal(conv1->w_elems, 3 * 64 * 7 * 7);
    assert_true(conv1->flops == 2.0 * 3 * 64 * 49 * 113 * 113);
    assert_int_equal(pool->type, WL_POOL);
    assert_true(pool->flops == 64.0 * 64 * 9 * 56 * 56); /* the oracle's C*F*K*K*Y */
    assert_int_equal(wl.layers[12].type, WL_ADD);
    wl_free(&wl);
}

static void test_net_without_times(void **state)
{
    (void)state;
    wl_workload wl;
    load_ok(MODEL_DIR "ALEXNET_ImageNet.net", &wl);
    assert_int_equal(wl.n_layers, 20);
    assert_true(wl.sample_time_s == 0);
    for (int i = 0; i < wl.n_layers; i++)
        assert_true(wl.layers[i].fw_s == 0 && wl.layers[i].bw_s == 0);
    assert_int_equal(wl.layers[15].type, WL_DROPOUT);
    assert_true(wl.layers[15].flops == 0);
    wl_free(&wl);
}

static void test_3d_net_as_written(void **state)
{
    (void)state;
    wl_workload wl;
    load_ok(MODEL_DIR "COSMOFLOW.net_256", &wl);
    assert_int_equal(wl.sample.n_spatial, 3);
    assert_int_equal(wl.layers[2].type, WL_POOL);
    assert_int_equal(wl.layers[2].w_kernel[2], 2);
    assert_int_equal(wl.layers[4].x.spatial[0], 2128); /* the file's typo, kept as written */
    wl_free(&wl);
}

/* ------------------------------------------------------------------ layer files */

static void test_layer_file_matches_oracle(void **state)
{
    (void)state;
    static const char *const cases[][3] = {
        {"RESNET50_ImageNet_profall.net_sc", "filter_resnet.lc", "filter_resnet_scaling_proj.log"},
        {"VGG_ImageNet_profall.net_sc", "filter_vgg.lc", "filter_vgg_scaling_proj.log"},
        {"ALEXNET_ImageNet_profall.net_sc", "filter_alexnet.lc", "filter_alexnet_scaling_proj.log"},
        {"COSMOFLOW.net", "spatial_cosmolow.lc", "ranking_log/cosmoflow.log"},
    };
    static int config[MAX_ROWS];
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        char model[1024], lc[1024], log[1024], err[HS_ERR_LEN] = "";
        snprintf(model, sizeof model, MODEL_DIR "%s", cases[c][0]);
        snprintf(lc, sizeof lc, MODEL_DIR "%s", cases[c][1]);
        snprintf(log, sizeof log, LOG_DIR "%s", cases[c][2]);
        wl_workload wl;
        load_ok(model, &wl);
        if (wl_apply_layer_file(&wl, lc, err) != HS_OK)
            fail_msg("%s: %s", lc, err);
        int n = read_log_layer_config(log, config);
        assert_int_equal(n, wl.n_layers); /* the ResNet files' last entry has no newline */
        for (int i = 0; i < n; i++)
            assert_int_equal(wl.layers[i].split_mask, config[i] ? WL_SPLIT_ALL : 0u);
        wl_free(&wl);
    }
}

static void test_layer_file_errors(void **state)
{
    (void)state;
    wl_workload wl;
    char path[1024], err[HS_ERR_LEN];
    load_ok(MODEL_DIR "ALEXNET_ImageNet_profall.net_sc", &wl);

    tmp_file(path, sizeof path, "badname.lc", "CONV1|1\nRELU|0\nCONV2|1\n");
    assert_int_equal(wl_apply_layer_file(&wl, path, err), HS_EINPUT);
    assert_non_null(strstr(err, "wl_badname.lc:3:"));
    assert_non_null(strstr(err, "MPOOL"));

    tmp_file(path, sizeof path, "badvalue.lc", "0 CONV1 |1\n1 RELU |2\n");
    assert_int_equal(wl_apply_layer_file(&wl, path, err), HS_EINPUT);
    assert_non_null(strstr(err, "wl_badvalue.lc:2:"));

    tmp_file(path, sizeof path, "badindex.lc", "0 CONV1 |1\n7 RELU |0\n");
    assert_int_equal(wl_apply_layer_file(&wl, path, err), HS_EINPUT);
    assert_non_null(strstr(err, "wl_badindex.lc:2:"));

    tmp_file(path, sizeof path, "short.lc", "CONV1|1\r\nRELU|0\r\n");
    assert_int_equal(wl_apply_layer_file(&wl, path, err), HS_EINPUT);
    assert_non_null(strstr(err, "2 entries"));

    assert_int_equal(wl_apply_layer_file(&wl, HS_TEST_TMP "/wl_no_such.lc", err), HS_EINPUT);
    assert_non_null(strstr(err, "wl_no_such.lc"));

    /* a refused file leaves the marks as they were */
    for (int i = 0; i < wl.n_layers; i++)
        assert_int_equal(wl.layers[i].split_mask, WL_SPLIT_ALL);
    wl_free(&wl);
}

/* ------------------------------------------------------------------ shipped XML workloads */

/* The XML file equals the ParaDL model it was written from: names, shapes, weights, totals,
 * per-layer time. skip_x: a layer whose input shape the XML corrects (or -1). */
static void check_xml_equals_net(const char *xml, const char *net, int skip_x)
{
    wl_workload a, b;
    load_ok(xml, &a);
    load_ok(net, &b);
    assert_int_equal(a.n_layers, b.n_layers);
    assert_int_equal(a.samples, b.samples);
    assert_string_equal(a.dataset, b.dataset);
    assert_true(a.sample_time_s == b.sample_time_s);
    for (int i = 0; i < a.n_layers; i++) {
        const wl_layer *p = &a.layers[i], *q = &b.layers[i];
        assert_string_equal(p->name, q->name);
        assert_int_equal(p->type, q->type);
        if (i != skip_x)
            assert_memory_equal(&p->x, &q->x, sizeof p->x);
        assert_memory_equal(&p->y, &q->y, sizeof p->y);
        assert_int_equal(p->w_in, q->w_in);
        assert_int_equal(p->w_out, q->w_out);
        assert_memory_equal(p->w_kernel, q->w_kernel, sizeof p->w_kernel);
        assert_int_equal(p->y_elems, q->y_elems);
        assert_int_equal(p->w_elems, q->w_elems);
        if (i != skip_x)
            assert_int_equal(p->x_elems, q->x_elems);
        if (!rel_close(p->fw_s + p->bw_s, q->fw_s + q->bw_s, 1e-12))
            fail_msg("%s layer %d: %.12g s vs %.12g s", xml, i, p->fw_s + p->bw_s,
                     q->fw_s + q->bw_s);
    }
    assert_int_equal(a.x_total, b.x_total);
    assert_int_equal(a.y_total, b.y_total);
    assert_int_equal(a.w_total, b.w_total);
    wl_free(&a);
    wl_free(&b);
}

static void test_shipped_equal_paradl(void **state)
{
    (void)state;
    check_xml_equals_net("resnet50", MODEL_DIR "RESNET50_ImageNet_profall.net_sc", -1);
    check_xml_equals_net("vgg16", MODEL_DIR "VGG_ImageNet_profall.net_sc", -1);
    check_xml_equals_net("alexnet", MODEL_DIR "ALEXNET_ImageNet_profall.net_sc", -1);
    check_xml_equals_net("cosmoflow-512", MODEL_DIR "COSMOFLOW.net", -1);
    /* layer 4, the ReLU after CONV_2: 32x2128x128x128 in the .net file, fixed in the XML */
    check_xml_equals_net("cosmoflow-256", MODEL_DIR "COSMOFLOW.net_256", 4);
    wl_workload wl;
    load_ok("cosmoflow-256", &wl);
    assert_memory_equal(&wl.layers[4].x, &wl.layers[3].y, sizeof(wl_shape));
    wl_free(&wl);
}

/* Split marks: filter and channel from filter_<m>.lc, spatial from spatial_<m>.lc. */
static void check_marks(const char *xml, const char *net, const char *lc, unsigned bits)
{
    wl_workload a, b;
    char err[HS_ERR_LEN] = "";
    load_ok(xml, &a);
    load_ok(net, &b);
    if (wl_apply_layer_file(&b, lc, err) != HS_OK)
        fail_msg("%s", err);
    for (int i = 0; i < a.n_layers; i++) {
        unsigned want = b.layers[i].split_mask ? bits : 0;
        if ((a.layers[i].split_mask & bits) != want)
            fail_msg("%s layer %d %s: marks %u, %s says %u", xml, i, a.layers[i].name,
                     a.layers[i].split_mask & bits, lc, want);
    }
    wl_free(&a);
    wl_free(&b);
}

static void test_shipped_split_marks(void **state)
{
    (void)state;
    const unsigned fc = WL_SPLIT_FILTER | WL_SPLIT_CHANNEL;
    const char *resnet = MODEL_DIR "RESNET50_ImageNet_profall.net_sc";
    const char *vgg = MODEL_DIR "VGG_ImageNet_profall.net_sc";
    const char *alex = MODEL_DIR "ALEXNET_ImageNet_profall.net_sc";
    check_marks("resnet50", resnet, MODEL_DIR "filter_resnet.lc", fc);
    check_marks("resnet50", resnet, MODEL_DIR "spatial_resnet.lc", WL_SPLIT_SPATIAL);
    check_marks("vgg16", vgg, MODEL_DIR "filter_vgg.lc", fc);
    check_marks("vgg16", vgg, MODEL_DIR "spatial_vgg.lc", WL_SPLIT_SPATIAL);
    check_marks("alexnet", alex, MODEL_DIR "filter_alexnet.lc", fc);
    check_marks("alexnet", alex, MODEL_DIR "spatial_alexnet.lc", WL_SPLIT_SPATIAL);
    check_marks("cosmoflow-512", MODEL_DIR "COSMOFLOW.net", MODEL_DIR "spatial_cosmolow.lc",
                WL_SPLIT_SPATIAL);
    wl_workload wl;
    load_ok("cosmoflow-256", &wl);
    for (int i = 0; i < wl.n_layers; i++)
        assert_int_equal((wl.layers[i].split_mask & fc) != 0, wl.layers[i].type == WL_CONV);
    wl_free(&wl);
    /* the XML keeps ParaDL's names, so the oracle's layer files apply to it unchanged */
    char err[HS_ERR_LEN] = "";
    load_ok("resnet50", &wl);
    if (wl_apply_layer_file(&wl, MODEL_DIR "spatial_resnet.lc", err) != HS_OK)
        fail_msg("%s", err);
    assert_int_equal(wl.layers[0].split_mask, WL_SPLIT_ALL);
    assert_int_equal(wl.layers[1].split_mask, 0);
    wl_free(&wl);
}

static int find_layer(const wl_workload *wl, const char *name, int nth)
{
    for (int i = 0; i < wl->n_layers; i++)
        if (strcmp(wl->layers[i].name, name) == 0 && nth-- == 0)
            return i;
    return -1;
}

static void test_shipped_residual_graph(void **state)
{
    (void)state;
    wl_workload wl;
    load_ok("resnet50", &wl);
    int add_2a = find_layer(&wl, "ADD", 0), add_2b = find_layer(&wl, "ADD", 1);
    int mpool = find_layer(&wl, "MPOOL", 0);
    assert_int_equal(wl.layers[add_2a].n_inputs, 2);
    assert_int_equal(wl.layers[add_2a].inputs[0], add_2a - 1); /* BNORM of CONV_2a3 */
    assert_int_equal(wl.layers[add_2a].inputs[1], mpool);      /* the block's input */
    assert_int_equal(wl.layers[add_2b].inputs[1], add_2a + 1); /* the ReLU after ADD_2a */
    assert_int_equal(wl.layers[0].stride, 2);
    assert_int_equal(wl.layers[0].padding[0], 3);
    assert_int_equal(wl.layers[1].n_inputs, 0); /* the previous layer */
    /* wl_input_of and wl_n_inputs, the graph as the planners read it */
    assert_int_equal(wl_input_of(&wl, 0, 0), WL_INPUT_DATA);
    assert_int_equal(wl_input_of(&wl, 1, 0), 0);
    assert_int_equal(wl_n_inputs(&wl.layers[1]), 1);
    assert_int_equal(wl_n_inputs(&wl.layers[add_2a]), 2);
    assert_int_equal(wl_input_of(&wl, add_2a, 0), add_2a - 1);
    assert_int_equal(wl_input_of(&wl, add_2a, 1), mpool);
    wl_free(&wl);
}

/* ResNet-152's calibration is ResNet-50's scaled by the FLOP-estimate ratio, so every layer
 * the two share has the same time. */
static void test_resnet152_derived(void **state)
{
    (void)state;
    wl_workload r50, r152;
    load_ok("resnet50", &r50);
    load_ok("resnet152", &r152);
    assert_int_equal(r152.n_layers, 4 + 10 * (3 + 8 + 36 + 3) + 2);
    int adds = 0, convs = 0;
    for (int i = 0; i < r152.n_layers; i++) {
        adds += r152.layers[i].type == WL_ADD;
        convs += r152.layers[i].type == WL_CONV;
    }
    assert_int_equal(adds, 50);
    assert_int_equal(convs, 1 + 3 * 50);
    for (int i = 0; i < 14; i++) /* the stem and block 2a are the same layers */
        assert_true(rel_close(r152.layers[i].fw_s, r50.layers[i].fw_s, 1e-8));
    int fc50 = r50.n_layers - 1, fc152 = r152.n_layers - 1;
    assert_string_equal(r152.layers[fc152].name, "FC6");
    assert_true(rel_close(r152.layers[fc152].bw_s, r50.layers[fc50].bw_s, 1e-8));
    assert_true(r152.sample_time_s > 2.5 * r50.sample_time_s);
    wl_free(&r50);
    wl_free(&r152);
}

int main(void)
{
    if (!hs_shared_present())
        return HS_SKIPPED;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_spread_resnet50),
        cmocka_unit_test(test_spread_vgg16),
        cmocka_unit_test(test_spread_alexnet),
        cmocka_unit_test(test_spread_cosmoflow),
        cmocka_unit_test(test_header_and_split_of_time),
        cmocka_unit_test(test_net_without_times),
        cmocka_unit_test(test_3d_net_as_written),
        cmocka_unit_test(test_layer_file_matches_oracle),
        cmocka_unit_test(test_layer_file_errors),
        cmocka_unit_test(test_shipped_equal_paradl),
        cmocka_unit_test(test_shipped_split_marks),
        cmocka_unit_test(test_shipped_residual_graph),
        cmocka_unit_test(test_resnet152_derived),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
