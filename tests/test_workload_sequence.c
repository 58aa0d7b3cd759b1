/* test_workload_sequence.c: the layer types of sequence models (embed, lstm): how the format
 * reads and refuses them, the work each kernel does (hand counts), that the strategies and the
 * kernel cuts split them by batch only, and that a second embed (a decoder's) reads the
 * sample's token ids. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "compute.h"
#include "plan.h"
#include "work.h"
#include "workload_helpers.h"

#define HEAD                                                                                  \
    "<?xml version=\"1.0\"?>\n<workload name=\"seq\">\n"                                    \
    "  <dataset name=\"toy\" samples=\"100\" sample=\"1x4x1\"/>\n"                            \
    "  <calibration method=\"none\"/>\n"
#define LAYERS(body) "  <layers>\n" body "  </layers>\n</workload>\n"
#define EMBED "    <layer id=\"e\" type=\"embed\" x=\"1x4x1\" w=\"10x6\" y=\"6x4x1\"/>\n"

/* 4 tokens of a 10-word vocabulary into 6 values, 2 LSTM layers of 3 units, a projection back
 * to the vocabulary at each position, a softmax; then a second embed (a decoder's). */
#define NET                                                                                   \
    EMBED                                                                                     \
    "    <layer id=\"l\" type=\"lstm\" x=\"6x4x1\" w=\"6x3x2\" y=\"3x4x1\"/>\n"                  \
    "    <layer id=\"p\" type=\"conv\" x=\"3x4x1\" w=\"3x10x1x1\" y=\"10x4x1\"/>\n"              \
    "    <layer id=\"s\" type=\"softmax\" x=\"10x4x1\" y=\"10x4x1\"/>\n"                        \
    "    <layer id=\"d\" type=\"embed\" x=\"1x4x1\" w=\"10x6\" y=\"6x4x1\"/>\n"

static void test_read(void **state)
{
    (void)state;
    char path[1024];
    wl_workload wl;
    load_ok(tmp_file(path, sizeof path, "seq.xml", HEAD LAYERS(NET)), &wl);
    const wl_layer *e = &wl.layers[0], *l = &wl.layers[1], *d = &wl.layers[4];
    assert_true(e->type == WL_EMBED && e->w_in == 10 && e->w_out == 6 && e->w_elems == 60);
    assert_true(e->flops == 0.0);                  /* a gather */
    assert_int_equal(e->n_inputs, 0);              /* the first layer: the sample */
    assert_true(d->n_inputs == 1 && d->inputs[0] == WL_INPUT_DATA); /* the decoder's too */
    assert_true(l->type == WL_LSTM && l->w_kernel[0] == 2);
    assert_int_equal(l->w_elems, 4 * 3 * (6 + 3) + 4 * 3 * (3 + 3)); /* no biases */
    assert_true(l->flops == 2.0 * 180 * 4);        /* 2 |w| a position */
    assert_string_equal(wl_type_name(WL_EMBED), "embed");
    assert_string_equal(wl_type_name(WL_LSTM), "lstm");
    wl_free(&wl);
}

static void test_errors(void **state)
{
    (void)state;
    expect_bad("e_w.xml", HEAD LAYERS(
        "    <layer id=\"e\" type=\"embed\" x=\"1x4x1\" w=\"10x6x1\" y=\"6x4x1\"/>\n"),
        "wl_e_w.xml:6:", "layer e: w '10x6x1' is not VxD");
    expect_bad("e_nw.xml", HEAD LAYERS(
        "    <layer id=\"e\" type=\"embed\" x=\"1x4x1\" y=\"6x4x1\"/>\n"),
        "layer e: an embed layer needs w=\"VxD\"", NULL);
    expect_bad("e_y.xml", HEAD LAYERS(
        "    <layer id=\"e\" type=\"embed\" x=\"1x4x1\" w=\"10x5\" y=\"6x4x1\"/>\n"),
        "an embed reads one token id a position (x 1xWxH) and writes w's 5 values", NULL);
    expect_bad("e_in.xml", HEAD LAYERS(EMBED
        "    <layer id=\"f\" type=\"embed\" x=\"1x4x1\" w=\"10x6\" y=\"6x4x1\" inputs=\"e\"/>\n"),
        "layer f: an embed reads the dataset sample's token ids (no inputs)", NULL);
    expect_bad("e_ext.xml", HEAD LAYERS(
        "    <layer id=\"e\" type=\"embed\" x=\"1x4x1\" w=\"10x6\" y=\"6x2x1\"/>\n"),
        "layer e: an embed layer keeps its input's extents", NULL);
    expect_bad("l_w.xml", HEAD LAYERS(EMBED
        "    <layer id=\"l\" type=\"lstm\" x=\"6x4x1\" w=\"6x3\" y=\"3x4x1\"/>\n"),
        "layer l: w '6x3' is not DxHxL", NULL);
    expect_bad("l_c.xml", HEAD LAYERS(EMBED
        "    <layer id=\"l\" type=\"lstm\" x=\"6x4x1\" w=\"5x3x2\" y=\"3x4x1\"/>\n"),
        "layer l: w is 5x3.. but x has 6 channels and y 3", NULL);
    expect_bad("l_0.xml", HEAD LAYERS(EMBED
        "    <layer id=\"l\" type=\"lstm\" x=\"6x4x1\" w=\"6x3x0\" y=\"3x4x1\"/>\n"),
        "layer l: w '6x3x0' has an extent out of 1..2^30", NULL);
    expect_bad("l_ext.xml", HEAD LAYERS(EMBED
        "    <layer id=\"l\" type=\"lstm\" x=\"6x4x1\" w=\"6x3x2\" y=\"3x2x1\"/>\n"),
        "layer l: an lstm layer keeps its input's extents", NULL);
}

/* Hand counts at 2 samples in FP32 (4 bytes). */
static void test_work(void **state)
{
    (void)state;
    char path[1024];
    wl_workload wl;
    load_ok(tmp_file(path, sizeof path, "seqw.xml", HEAD LAYERS(NET)), &wl);
    lw_split s = lw_whole(2);
    /* embed: gathers n = 2 x 6 x 4 values (read, written); no input gradient; its weight
     * gradient zeroes the 60 of the table and adds the 48 dy into their rows */
    lw_kernel fw = kernel_ok(&wl, 0, &s, LW_FORWARD, 4);
    assert_true(fw.kind == LW_STREAM && fw.flops == 0.0 && fw.bytes == 4.0 * 2 * 48);
    assert_int_equal(kernel_ok(&wl, 4, &s, LW_INPUT_GRAD, 4).kind, LW_NONE);
    lw_kernel dw = kernel_ok(&wl, 0, &s, LW_WEIGHT_GRAD, 4);
    assert_true(dw.kind == LW_STREAM && dw.flops == 48.0 && dw.bytes == 4.0 * (60 + 3 * 48));
    /* lstm (D = 6 inputs, H = 3 units, L = 2 layers, T = 4 steps, b = 2), as cuDNN runs it:
     * forward, each layer's input projection of all steps at once, (b T = 8) x 6 by 12 gates,
     * then 8 x 3 by 12, then L T = 8 recurrent products of 2 x 3 by 12 one after another;
     * every pass 2 b T |w| FLOPs (|w| = 180) */
    lw_kernel k[LW_MAX_KERNELS];
    int n = 0;
    char e[HS_ERR_LEN] = "";
    assert_int_equal(lw_kernels_of(&wl, 1, &s, LW_FORWARD, 4, k, &n, e), HS_OK);
    assert_int_equal(n, 4);
    assert_true(k[0].kind == LW_GEMM && k[0].m == 8 && k[0].n == 12 && k[0].k == 6 &&
                k[0].calls == 1 && k[0].bytes == 4.0 * (8 * 6 + 6 * 12 + 8 * 12));
    assert_true(k[1].m == 8 && k[1].n == 12 && k[1].k == 3 && k[1].calls == 1);
    assert_true(k[2].m == 2 && k[2].n == 12 && k[2].k == 3 && k[2].calls == 8);
    /* the recurrent product reads and writes the gates it adds onto */
    assert_true(k[2].bytes == 4.0 * (2 * 3 + 3 * 12 + 2 * 2 * 12));
    /* and a step's fused element-wise kernel, 11 b H elements */
    assert_true(k[3].kind == LW_STREAM && k[3].calls == 8 && k[3].bytes == 4.0 * 11 * 2 * 3);
    assert_true(kernel_ok(&wl, 1, &s, LW_FORWARD, 4).m == 8); /* lw_kernel_of: the first */
    for (int p = 0; p < LW_PASS_COUNT; p++) {
        assert_int_equal(lw_kernels_of(&wl, 1, &s, (lw_pass)p, 4, k, &n, e), HS_OK);
        double flops = 0;
        for (int i = 0; i < n; i++)
            if (k[i].kind == LW_GEMM)
                flops += (double)k[i].calls * k[i].flops;
        assert_true(flops == 2.0 * 2 * 4 * 180);
    }
    /* input gradient: 8 state gradients 2 x 12 by 3 and 8 element-wise kernels, then each
     * layer's input gradient of all steps; weight gradient: one product a layer over all b T = 8 positions */
    assert_int_equal(lw_kernels_of(&wl, 1, &s, LW_INPUT_GRAD, 4, k, &n, e), HS_OK);
    assert_true(n == 4 && k[0].m == 2 && k[0].n == 3 && k[0].k == 12 && k[0].calls == 8);
    assert_true(k[1].kind == LW_STREAM && k[1].calls == 8 && k[1].bytes == 4.0 * 14 * 2 * 3);
    assert_true(k[2].m == 8 && k[2].n == 6 && k[2].k == 12 && k[2].calls == 1);
    assert_int_equal(lw_kernels_of(&wl, 1, &s, LW_WEIGHT_GRAD, 4, k, &n, e), HS_OK);
    assert_true(n == 2 && k[0].m == 12 && k[0].n == 9 && k[0].k == 8 && k[0].calls == 1);
    assert_true(k[1].m == 12 && k[1].n == 6 && k[1].k == 8 && k[1].calls == 1);
    /* the kernel-time model runs every call one after another */
    kt_model m;
    assert_int_equal(kt_model_init(&m, "v100-sxm2-16gb", PR_FP32, e), HS_OK);
    double fw_s = 0, want_s = 0;
    assert_int_equal(kt_pass_s(&m, &wl, 1, &s, LW_FORWARD, &fw_s, e), HS_OK);
    assert_int_equal(lw_kernels_of(&wl, 1, &s, LW_FORWARD, 4, k, &n, e), HS_OK);
    for (int i = 0; i < n; i++)
        want_s += (double)k[i].calls * kt_kernel_s(&m, &k[i]);
    assert_true(fw_s == want_s && fw_s >= 10 * m.device->launch_s);
    /* an embed has no input gradient: no kernel */
    assert_int_equal(lw_kernels_of(&wl, 0, &s, LW_INPUT_GRAD, 4, k, &n, e), HS_OK);
    assert_int_equal(n, 0);
    /* cut other than by batch: refused, saying why */
    char err[HS_ERR_LEN] = "";
    lw_kernel kn;
    lw_split cut = s;
    cut.out_parts = 3;
    assert_int_equal(lw_kernel_of(&wl, 1, &cut, LW_FORWARD, 4, &kn, err), HS_EINPUT);
    assert_non_null(strstr(err, "layer l: an lstm layer is not split over its channels or "
                                "positions (each step needs the last one's whole state)"));
    cut = s;
    cut.spatial_parts[0] = 2;
    assert_int_equal(lw_kernel_of(&wl, 0, &cut, LW_FORWARD, 4, &kn, err), HS_EINPUT);
    assert_non_null(strstr(err, "its table's rows are looked up whole"));
    wl_free(&wl);
}

/* A plan that splits an embed or an lstm other than by batch is refused; by batch it is not. */
static void test_plan(void **state)
{
    (void)state;
    char path[1024], err[HS_ERR_LEN];
    wl_workload wl;
    load_ok(tmp_file(path, sizeof path, "seqp.xml", HEAD LAYERS(NET)), &wl);
    st_plan plan;
    assert_int_equal(st_plan_init(&plan, wl.n_layers, 2, err), HS_OK);
    plan.layers[1].filter = 3;
    assert_int_equal(st_plan_check(&plan, &wl, 2, 4, err), HS_EINPUT);
    assert_non_null(strstr(err, "layer l"));
    if (!strstr(err, "an lstm layer splits its batch only"))
        fail_msg("%s", err);
    plan.layers[1].filter = 1;
    plan.layers[0].width = 2;
    assert_int_equal(st_plan_check(&plan, &wl, 2, 4, err), HS_EINPUT);
    assert_non_null(strstr(err, "an embed layer splits its batch only"));
    plan.layers[0].width = 1;
    for (int i = 0; i < wl.n_layers; i++)
        plan.layers[i].batch = 2;
    assert_int_equal(st_plan_check(&plan, &wl, 2, 4, err), HS_OK);
    st_plan_free(&plan);
    wl_free(&wl);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_read),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_work),
        cmocka_unit_test(test_plan),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
