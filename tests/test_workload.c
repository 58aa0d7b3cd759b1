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

#include "workload.h"

#define MODEL_DIR HS_SHARED_DIR "/reference/paradl/model/"
#define LOG_DIR HS_SHARED_DIR "/reference/paradl/log/"
#define MAX_ROWS 600

/* ------------------------------------------------------------------ helpers */

static void load_ok(const char *spec, wl_workload *wl)
{
    char err[HS_ERR_LEN] = "";
    int rc = wl_load(spec, wl, err);
    if (rc != HS_OK)
        fail_msg("wl_load(%s): %s", spec, err);
}

static int rel_close(double a, double b, double tol)
{
    double scale = a > b ? a : b;
    if (scale < 0)
        scale = -scale;
    double d = a - b;
    if (d < 0)
        d = -d;
    return d <= tol * (scale > 0 ? scale : 1e-300);
}

/* Write a file under HS_TEST_TMP and return its path (a static buffer per call site is
 * enough: each test uses its paths right away). */
static const char *tmp_file(char *path, size_t len, const char *name, const char *text)
{
    snprintf(path, len, "%s/wl_%s", HS_TEST_TMP, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    return path;
}

/* Load `text` written to a temporary file and expect HS_EINPUT with every needle in err. */
static void expect_bad(const char *name, const char *text, const char *needle1,
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
static int read_log_times(const char *log, char (*names)[WL_NAME_LEN], double *seconds)
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
static int64_t read_log_total(const char *log, const char *key)
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
static int read_log_layer_config(const char *log, int *config)
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
    assert_int_equal(wl.layers[0].padding, 3);
    assert_int_equal(wl.layers[1].n_inputs, 0); /* the previous layer */
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

/* ------------------------------------------------------------------ hybridsim's XML format */

#define XML_HEAD                                                                              \
    "<?xml version=\"1.0\"?>\n"                                                               \
    "<workload name=\"tiny\">\n"                                                              \
    "  <dataset name=\"toy\" samples=\"1000\" sample=\"3x8x8\"/>\n"

static const char tiny_xml[] =
    XML_HEAD
    "  <calibration device=\"V100-16GB\" sample_time_s=\"0.001\"/>\n"
    "  <layers>\n"
    "    <layer id=\"c1\" type=\"conv\" x=\"3x8x8\" w=\"3x4x3x3\" y=\"4x8x8\" padding=\"1\""
    " split=\"filter spatial\"/>\n"
    "    <layer id=\"r1\" name=\"RELU\" type=\"relu\" x=\"4x8x8\" y=\"4x8x8\"/>\n"
    "    <layer id=\"c2\" type=\"conv\" x=\"4x8x8\" w=\"4x4x3x3\" y=\"4x8x8\" padding=\"same\"/>\n"
    "    <layer id=\"a\" type=\"add\" x=\"4x8x8\" y=\"4x8x8\" inputs=\"c2 r1\"/>\n"
    "    <layer id=\"p\" type=\"pool\" x=\"4x8x8\" kernel=\"3x3\" y=\"4x4x4\" stride=\"2\""
    " round=\"ceil\"/>\n"
    "    <layer id=\"f\" type=\"fc\" x=\"4x4x4\" w=\"4x10x4x4\" y=\"10x1x1\" wu_s=\"2e-5\"/>\n"
    "  </layers>\n"
    "</workload>\n";

static void test_xml_tiny(void **state)
{
    (void)state;
    char path[1024];
    wl_workload wl;
    load_ok(tmp_file(path, sizeof path, "tiny.xml", tiny_xml), &wl);
    assert_string_equal(wl.name, "tiny");
    assert_string_equal(wl.device, "V100-16GB");
    assert_int_equal(wl.n_layers, 6);
    assert_int_equal(wl.layers[0].split_mask, WL_SPLIT_FILTER | WL_SPLIT_SPATIAL);
    assert_int_equal(wl.layers[1].split_mask, 0);
    assert_string_equal(wl.layers[1].name, "RELU");
    assert_string_equal(wl.layers[0].name, "c1");
    assert_int_equal(wl.layers[3].n_inputs, 2);
    assert_int_equal(wl.layers[3].inputs[1], 1);
    assert_int_equal(wl.layers[4].stride, 2);
    assert_true(wl.layers[5].wu_s == 2e-5);
    assert_int_equal(wl.layers[5].w_elems, 4 * 10 * 16);
    /* ParaDL conventions for weightless layers: w written CxCx0x0, pool 0x0xK */
    assert_int_equal(wl.layers[1].w_in, 4);
    assert_int_equal(wl.layers[1].w_kernel[0], 0);
    assert_int_equal(wl.layers[4].w_in, 0);
    assert_int_equal(wl.layers[4].w_kernel[1], 3);
    /* hand-computed spread: 2*flops + |w| per layer */
    double weight[6] = {
        2 * (2.0 * 3 * 4 * 9 * 64) + 108, 2 * 256.0,  2 * (2.0 * 4 * 4 * 9 * 64) + 144,
        2 * 256.0,                        2 * (4.0 * 4 * 9 * 16), 2 * 640.0 + 640,
    };
    double total = 0;
    for (int i = 0; i < 6; i++)
        total += weight[i];
    for (int i = 0; i < 6; i++)
        assert_true(rel_close(wl.layers[i].fw_s + wl.layers[i].bw_s, 0.001 * weight[i] / total,
                              1e-12));
    /* in-place layers (ReLU) are left out of the activation totals */
    assert_int_equal(wl.x_total, 192 + 256 + 256 + 256 + 64);
    assert_int_equal(wl.w_total, 108 + 144 + 640);
    wl_free(&wl);
}

static void test_xml_per_layer_times(void **state)
{
    (void)state;
    char path[1024];
    wl_workload wl;
    tmp_file(path, sizeof path, "timed.xml",
             XML_HEAD
             "  <calibration device=\"A100\"/>\n"
             "  <layers>\n"
             "    <layer id=\"c\" type=\"conv\" x=\"3x8x8\" w=\"3x4x1x1\" y=\"4x8x8\" time_s=\"3e-4\"/>\n"
             "    <layer id=\"r\" type=\"relu\" x=\"4x8x8\" y=\"4x8x8\" time_s=\"1e-4\"/>\n"
             "  </layers>\n"
             "</workload>\n");
    load_ok(path, &wl);
    assert_true(rel_close(wl.sample_time_s, 4e-4, 1e-12));
    assert_true(rel_close(wl.layers[0].fw_s, 1e-4, 1e-12));
    assert_true(rel_close(wl.layers[0].bw_s, 2e-4, 1e-12));
    assert_true(rel_close(wl.layers[1].fw_s, 5e-5, 1e-12));
    wl_free(&wl);
}

static void test_xml_3d(void **state)
{
    (void)state;
    char path[1024];
    wl_workload wl;
    tmp_file(path, sizeof path, "vol.xml",
             "<?xml version=\"1.0\"?>\n<workload name=\"vol\">\n"
             "  <dataset name=\"v\" samples=\"8\" sample=\"4x16x16x16\"/>\n"
             "  <calibration device=\"V100-16GB\" sample_time_s=\"0.5\"/>\n"
             "  <layers>\n"
             "    <layer id=\"c\" type=\"conv\" x=\"4x16x16x16\" w=\"4x8x3x3x3\" y=\"8x7x7x7\" stride=\"2\"/>\n"
             "    <layer id=\"p\" type=\"pool\" x=\"8x7x7x7\" kernel=\"2x2x2\" y=\"8x3x3x3\" stride=\"2\"/>\n"
             "  </layers>\n</workload>\n");
    load_ok(path, &wl);
    assert_int_equal(wl.layers[1].x.n_spatial, 3);
    assert_true(wl.layers[0].flops == 2.0 * 4 * 8 * 27 * 343);
    assert_true(wl.layers[1].flops == 8.0 * 8 * 8 * 27);
    wl_free(&wl);
}

static void test_xml_errors(void **state)
{
    (void)state;
    const char *cal = "  <calibration device=\"d\" sample_time_s=\"1\"/>\n  <layers>\n";
    char text[4096];
    /* not well-formed: an unquoted attribute on line 6 */
    snprintf(text, sizeof text, XML_HEAD "%s    <layer id=\"c\" type=\"relu\" x=3x8x8 y=\"3x8x8\"/>\n"
             "  </layers>\n</workload>\n", cal);
    expect_bad("malformed.xml", text, "wl_malformed.xml:6:", NULL);
    /* not valid: unknown layer type, line 6 */
    snprintf(text, sizeof text, XML_HEAD "%s    <layer id=\"c\" type=\"lstm\" x=\"3x8x8\" "
             "y=\"3x8x8\"/>\n  </layers>\n</workload>\n", cal);
    expect_bad("badtype.xml", text, "wl_badtype.xml:6:", "lstm");
    /* not valid: an input id nobody has, line 7 */
    snprintf(text, sizeof text, XML_HEAD "%s    <layer id=\"r\" type=\"relu\" x=\"3x8x8\" "
             "y=\"3x8x8\"/>\n    <layer id=\"q\" type=\"relu\" x=\"3x8x8\" y=\"3x8x8\" "
             "inputs=\"nobody\"/>\n  </layers>\n</workload>\n", cal);
    expect_bad("badinput.xml", text, "wl_badinput.xml:7:", "nobody");
    /* an input that is not earlier, line 6 */
    snprintf(text, sizeof text, XML_HEAD "%s    <layer id=\"r\" type=\"relu\" x=\"3x8x8\" "
             "y=\"3x8x8\" inputs=\"q\"/>\n    <layer id=\"q\" type=\"relu\" x=\"3x8x8\" "
             "y=\"3x8x8\"/>\n  </layers>\n</workload>\n", cal);
    expect_bad("later.xml", text, "wl_later.xml:6:", "not an earlier layer");
    /* negative size */
    snprintf(text, sizeof text, XML_HEAD "%s    <layer id=\"r\" type=\"relu\" x=\"3x-8x8\" "
             "y=\"3x8x8\"/>\n  </layers>\n</workload>\n", cal);
    expect_bad("negative.xml", text, "wl_negative.xml:6:", "3x-8x8");
    /* x is not what feeds it */
    snprintf(text, sizeof text, XML_HEAD "%s    <layer id=\"r\" type=\"relu\" x=\"3x8x8\" "
             "y=\"3x8x8\"/>\n    <layer id=\"s\" type=\"relu\" x=\"4x8x8\" y=\"4x8x8\"/>\n"
             "  </layers>\n</workload>\n", cal);
    expect_bad("chain.xml", text, "wl_chain.xml:7:", "previous layer");
    /* convolution extent that the window cannot give */
    snprintf(text, sizeof text, XML_HEAD "%s    <layer id=\"c\" type=\"conv\" x=\"3x8x8\" "
             "w=\"3x4x3x3\" y=\"4x8x8\"/>\n  </layers>\n</workload>\n", cal);
    expect_bad("extent.xml", text, "wl_extent.xml:6:", "give 6");
    /* weights that do not fit the channels */
    snprintf(text, sizeof text, XML_HEAD "%s    <layer id=\"c\" type=\"conv\" x=\"3x8x8\" "
             "w=\"5x4x1x1\" y=\"4x8x8\"/>\n  </layers>\n</workload>\n", cal);
    expect_bad("weights.xml", text, "wl_weights.xml:6:", "channels");
    /* an add whose shortcut differs without shortcut="projection" */
    snprintf(text, sizeof text, XML_HEAD "%s    <layer id=\"c\" type=\"conv\" x=\"3x8x8\" "
             "w=\"3x4x1x1\" y=\"4x8x8\"/>\n    <layer id=\"a\" type=\"add\" x=\"4x8x8\" "
             "y=\"4x8x8\" inputs=\"c r\"/>\n    <layer id=\"r\" type=\"relu\" x=\"4x8x8\" "
             "y=\"4x8x8\"/>\n  </layers>\n</workload>\n", cal);
    expect_bad("later2.xml", text, "wl_later2.xml:7:", "earlier");
    /* unknown split strategy */
    snprintf(text, sizeof text, XML_HEAD "%s    <layer id=\"r\" type=\"relu\" x=\"3x8x8\" "
             "y=\"3x8x8\" split=\"pipeline\"/>\n  </layers>\n</workload>\n", cal);
    expect_bad("split.xml", text, "wl_split.xml:6:", "pipeline");
    /* both calibrations */
    snprintf(text, sizeof text, XML_HEAD "%s    <layer id=\"r\" type=\"relu\" x=\"3x8x8\" "
             "y=\"3x8x8\" time_s=\"1\"/>\n  </layers>\n</workload>\n", cal);
    expect_bad("twocal.xml", text, "wl_twocal.xml:6:", "sample_time_s");
    /* no calibration at all */
    snprintf(text, sizeof text, XML_HEAD "  <calibration device=\"d\"/>\n  <layers>\n"
             "    <layer id=\"r\" type=\"relu\" x=\"3x8x8\" y=\"3x8x8\"/>\n  </layers>\n"
             "</workload>\n");
    expect_bad("nocal.xml", text, "wl_nocal.xml:6:", "time_s");
    /* a negative time */
    snprintf(text, sizeof text, XML_HEAD "  <calibration device=\"d\" sample_time_s=\"-1\"/>\n"
             "  <layers>\n    <layer id=\"r\" type=\"relu\" x=\"3x8x8\" y=\"3x8x8\"/>\n"
             "  </layers>\n</workload>\n");
    expect_bad("negtime.xml", text, "wl_negtime.xml:4:", "-1");
    /* valid against the DTD, but not a workload */
    expect_bad("root.xml", "<?xml version=\"1.0\"?>\n<layers>\n  <layer id=\"r\" type=\"relu\" "
               "x=\"3x8x8\" y=\"3x8x8\"/>\n</layers>\n", "wl_root.xml:2:", "workload");
}

static void test_net_errors(void **state)
{
    (void)state;
    const char *head = "Dataset|toy\r\nInput|10x3x8x8\r\nModel|Toy\r\n";
    char text[1024];
    snprintf(text, sizeof text, "%sCONV1|3x8x8|3x4x1x1|4x8x8|0.1\r\nLSTM|4x8x8|4x4x0x0|4x8x8|0\r\n",
             head);
    expect_bad("type.net", text, "wl_type.net:5:", "LSTM");
    snprintf(text, sizeof text, "%sCONV1|3x8|3x4x1x1|4x8x8|0.1\r\n", head);
    expect_bad("dims.net", text, "wl_dims.net:4:", "3x8");
    snprintf(text, sizeof text, "%s# fine\r\nCONV1|3x8x8|3x4x1x1\r\n", head);
    expect_bad("fields.net", text, "wl_fields.net:5:", "fields");
    snprintf(text, sizeof text, "%sCONV1|3x8x8|3x4x1x1|4x8x8|fast\r\n", head);
    expect_bad("time.net", text, "wl_time.net:4:", "fast");
    snprintf(text, sizeof text, "%sCONV1|3x8x8|3x4x1x1x1|4x8x8|0\r\n", head);
    expect_bad("wdims.net", text, "wl_wdims.net:4:", "weight");
    expect_bad("noinput.net", "Model|x\nCONV1|3x8x8|3x4x1x1|4x8x8|0\n", "wl_noinput.net",
               "Input");
    expect_bad("empty.net", "Input|10x3x8x8\n", "wl_empty.net", "no layers");
    expect_bad("late3d.net", "CONV1|3x8x8|3x4x1x1|4x8x8|0\nInput|10x3x8x8x8\n", "wl_late3d.net",
               "3-D");
}

static void test_net_tolerates_its_quirks(void **state)
{
    (void)state;
    char path[1024];
    wl_workload wl;
    /* stray spaces, "#|0" comments, a missing time column, several timed layers, no final
     * newline: the oracle sums the times and spreads the sum */
    tmp_file(path, sizeof path, "quirks.net_sc",
             "Dataset|toy\nInput|10x3x8x8\n#|0\n"
             "CONV1 | 3x8x8 |3x4x1x1| 4x8x8 |0.25\n"
             "# Fully connected|0\n"
             "RELU|4x8x8|4x4x0x0|4x8x8 \n"
             "MPOOL|4x8x8|0x0x2x2|4x4x4 |0.75");
    load_ok(path, &wl);
    assert_int_equal(wl.n_layers, 3);
    assert_string_equal(wl.name, "wl_quirks"); /* no Model| line: the file's stem */
    assert_true(rel_close(wl.sample_time_s, 1.0, 1e-12));
    assert_int_equal(wl.layers[2].y.spatial[1], 4);
    wl_free(&wl);
}

static void test_short_names(void **state)
{
    (void)state;
    wl_workload wl;
    char err[HS_ERR_LEN] = "";
    load_ok("alexnet", &wl);
    assert_non_null(strstr(wl.path, "/workloads/alexnet.xml"));
    wl_free(&wl);
    assert_int_equal(wl_load("no-such-workload", &wl, err), HS_EINPUT);
    assert_non_null(strstr(err, "no-such-workload"));
    assert_int_equal(wl_load(HS_TEST_TMP "/wl_missing.xml", &wl, err), HS_EINPUT);
    assert_non_null(strstr(err, "wl_missing.xml"));

    /* HYBRIDSIM_HOME moves the folder (which must then hold the DTD too) */
    char home[512], dir[600], path[2048];
    snprintf(home, sizeof home, "%s/wl_home", HS_TEST_TMP);
    snprintf(dir, sizeof dir, "%s/workloads", home);
    snprintf(path, sizeof path, "mkdir -p '%s' && cp '%s/workloads/workload.dtd' '%s/'", dir,
             HYBRIDSIM_SOURCE_DIR, dir);
    assert_int_equal(system(path), 0);
    snprintf(path, sizeof path, "%s/tiny.xml", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(tiny_xml, f);
    fclose(f);
    setenv("HYBRIDSIM_HOME", home, 1);
    assert_string_equal(wl_default_dir(), dir);
    int rc = wl_load("tiny", &wl, err);
    unsetenv("HYBRIDSIM_HOME");
    if (rc != HS_OK)
        fail_msg("%s", err);
    assert_int_equal(wl.n_layers, 6);
    wl_free(&wl);
    assert_string_equal(wl_default_dir(), HYBRIDSIM_SOURCE_DIR "/workloads");
}

int main(void)
{
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
        cmocka_unit_test(test_xml_tiny),
        cmocka_unit_test(test_xml_per_layer_times),
        cmocka_unit_test(test_xml_3d),
        cmocka_unit_test(test_xml_errors),
        cmocka_unit_test(test_net_errors),
        cmocka_unit_test(test_net_tolerates_its_quirks),
        cmocka_unit_test(test_short_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
