/* test_compute_work.c: a layer's work against hand counts (workloads/compute/work.h): a
 * convolution's FLOPs, bytes and GEMM shape per pass, its filter, channel and spatial cuts and
 * the impossible ones, fully connected, element-wise and pooling layers, and grouped and
 * depthwise convolutions. test_compute.c prices these kernels. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "workload_helpers.h"

/* ResNet-50's 3x3 64->64 convolution at 56x56, batch 1: the research notes' hand count. */
static void test_conv_hand_count(void **state)
{
    (void)state;
    wl_workload wl;
    load_ok("resnet50", &wl);
    int c = layer_named(&wl, "CONV_2a2");
    lw_split one = lw_whole(1);
    for (int p = 0; p < LW_PASS_COUNT; p++) {
        lw_kernel kn = kernel_ok(&wl, c, &one, (lw_pass)p, 4);
        assert_int_equal(kn.kind, LW_GEMM);
        assert_true(kn.flops == 231211008.0); /* 2 x 64 x 64 x 9 x 56 x 56 */
        assert_true(kn.bytes == 1753088.0);   /* x 802,816 + w 147,456 + y 802,816 */
        assert_true(2.0 * kn.m * kn.n * kn.k * kn.groups == kn.flops);
    }
    lw_kernel fw = kernel_ok(&wl, c, &one, LW_FORWARD, 4);
    assert_int_equal(fw.m, 3136); /* b Y */
    assert_int_equal(fw.n, 64);   /* F */
    assert_int_equal(fw.k, 576);  /* C k */
    lw_kernel wg = kernel_ok(&wl, c, &one, LW_WEIGHT_GRAD, 4);
    assert_int_equal(wg.m, 64);
    assert_int_equal(wg.n, 576);
    assert_int_equal(wg.k, 3136);
    /* the first layer reads the data: no input gradient; a ReLU has no weight gradient */
    assert_int_equal(kernel_ok(&wl, 0, &one, LW_INPUT_GRAD, 4).kind, LW_NONE);
    assert_int_equal(kernel_ok(&wl, c + 1, &one, LW_WEIGHT_GRAD, 4).kind, LW_NONE);
    wl_free(&wl);
}

/* Cuts of that convolution at 64 samples: filter, channel, spatial. */
static void test_conv_cuts(void **state)
{
    (void)state;
    wl_workload wl;
    load_ok("resnet50", &wl);
    int c = layer_named(&wl, "CONV_2a2");
    double x = 64.0 * 64 * 56 * 56, w = 64.0 * 64 * 9, whole = 64 * 231211008.0;
    lw_split s = lw_whole(64);
    s.out_parts = 4; /* filter: a quarter of the outputs and weights, all of the input */
    lw_kernel kn = kernel_ok(&wl, c, &s, LW_FORWARD, 4);
    assert_true(kn.flops == whole / 4);
    assert_true(kn.bytes == 4 * (x + w / 4 + x / 4));
    assert_int_equal(kn.n, 16);
    s = lw_whole(64);
    s.in_parts = 8; /* channel: partial sums of every output */
    kn = kernel_ok(&wl, c, &s, LW_FORWARD, 2);
    assert_true(kn.flops == whole / 8);
    assert_true(kn.bytes == 2 * (x / 8 + w / 8 + x));
    assert_int_equal(kn.k, 8 * 9);
    s = lw_whole(64);
    s.spatial_parts[0] = 2; /* 28 output columns need 30 input columns (the halo) */
    lw_shape sh;
    char err[HS_ERR_LEN] = "";
    assert_int_equal(lw_shape_of(&wl, c, &s, &sh, err), HS_OK);
    assert_int_equal(sh.y_spatial, 28 * 56);
    assert_int_equal(sh.x_spatial, 30 * 56);
    /* impossible cuts */
    s = lw_whole(64);
    s.out_parts = 65;
    assert_int_equal(lw_shape_of(&wl, c, &s, &sh, err), HS_EINPUT);
    assert_non_null(strstr(err, "CONV_2a2"));
    s = lw_whole(64);
    s.in_parts = 2;
    assert_int_equal(lw_shape_of(&wl, c + 1, &s, &sh, err), HS_EINPUT); /* a BNORM */
    assert_non_null(strstr(err, "out_parts"));
    s = lw_whole(0);
    assert_int_equal(lw_shape_of(&wl, c, &s, &sh, err), HS_EINPUT);
    s = lw_whole(64);
    s.spatial_parts[0] = 2;
    assert_int_equal(lw_shape_of(&wl, wl.n_layers - 1, &s, &sh, err), HS_EINPUT); /* FC6 */
    wl_free(&wl);
}

/* Fully connected, element-wise layers and pooling, by hand. */
static void test_other_layers(void **state)
{
    (void)state;
    wl_workload wl;
    load_ok("alexnet", &wl);
    lw_split s = lw_whole(512);
    lw_kernel fc = kernel_ok(&wl, layer_named(&wl, "FC7"), &s, LW_INPUT_GRAD, 4);
    assert_true(fc.flops == 2.0 * 512 * 4096 * 4096);
    assert_true(fc.bytes == 4.0 * (512 * 4096 * 2 + 4096.0 * 4096));
    assert_int_equal(fc.m, 512);
    assert_int_equal(fc.n, 4096);
    int fc6 = layer_named(&wl, "FC6"); /* flattens 256x6x6 */
    assert_int_equal(kernel_ok(&wl, fc6, &s, LW_FORWARD, 4).k, 256 * 36);
    int drop = layer_named(&wl, "FC8") - 1; /* DROPOUT7 */
    double n = 512.0 * 4096;
    lw_kernel d = kernel_ok(&wl, drop, &s, LW_FORWARD, 2); /* x, y in 2 bytes, a 1-byte mask */
    assert_int_equal(d.kind, LW_STREAM);
    assert_true(d.bytes == 2 * 2 * n + n && d.flops == 2 * n);
    wl_free(&wl);

    load_ok("resnet50", &wl);
    s = lw_whole(2);
    int bn = layer_named(&wl, "CONV_2a2") + 1, relu = bn + 1, pool = 3;
    n = 2.0 * 64 * 56 * 56;
    assert_true(kernel_ok(&wl, bn, &s, LW_FORWARD, 4).bytes == 4 * 3 * n);
    assert_true(kernel_ok(&wl, bn, &s, LW_INPUT_GRAD, 4).bytes == 4 * 5 * n);
    assert_true(kernel_ok(&wl, relu, &s, LW_FORWARD, 4).bytes == 4 * 2 * n);
    assert_true(kernel_ok(&wl, relu, &s, LW_INPUT_GRAD, 4).bytes == 4 * 3 * n);
    double pin = 2.0 * 64 * 113 * 113, pout = 2.0 * 64 * 56 * 56; /* MPOOL 3x3 stride 2 */
    lw_kernel p = kernel_ok(&wl, pool, &s, LW_FORWARD, 4);
    assert_true(p.bytes == 4 * (pin + pout) && p.flops == 9 * pout);
    assert_true(kernel_ok(&wl, pool, &s, LW_INPUT_GRAD, 4).bytes == 4 * 2 * (pin + pout));
    s.out_parts = 4; /* a cut BNORM keeps a quarter of its channels */
    assert_true(kernel_ok(&wl, bn, &s, LW_FORWARD, 4).bytes == 4 * 3 * n / 4);
    wl_free(&wl);

    /* SE-ResNeXt's first block: a sigmoid on 256 values a sample, the branch (256x56x56)
     * multiplied by it (a broadcast scale: two tensors forward, three backward) */
    load_ok("se-resnext101-32x4d", &wl);
    int sig = layer_named(&wl, "layer1_0_se_scale_activation"), mul = sig + 1;
    assert_int_equal(wl.layers[mul].type, WL_MUL);
    s = lw_whole(2);
    n = 2.0 * 256 * 56 * 56;
    lw_kernel g = kernel_ok(&wl, sig, &s, LW_FORWARD, 4);
    assert_true(g.bytes == 4 * 2 * 2.0 * 256 && g.flops == 4 * 2.0 * 256);
    assert_true(kernel_ok(&wl, mul, &s, LW_FORWARD, 4).bytes == 4 * 2 * n);
    assert_true(kernel_ok(&wl, mul, &s, LW_INPUT_GRAD, 4).bytes == 4 * 3 * n);
    assert_int_equal(kernel_ok(&wl, mul, &s, LW_WEIGHT_GRAD, 4).kind, LW_NONE);
    wl_free(&wl);
}

/* A depthwise convolution streams; a grouped one cuts whole groups. */
static void test_groups(void **state)
{
    (void)state;
    char path[1024];
    wl_workload wl;
    load_ok(tmp_file(path, sizeof path, "dw.xml",
                     "<?xml version=\"1.0\"?>\n<workload name=\"dw\">\n"
                     "  <dataset name=\"t\" samples=\"10\" sample=\"32x14x14\"/>\n"
                     "  <calibration method=\"none\"/>\n  <layers>\n"
                     "    <layer id=\"dw\" type=\"conv\" x=\"32x14x14\" w=\"32x32x3x3\" "
                     "y=\"32x14x14\" padding=\"1\" groups=\"32\"/>\n"
                     "    <layer id=\"g\" type=\"conv\" x=\"32x14x14\" w=\"32x64x1x1\" "
                     "y=\"64x14x14\" groups=\"4\"/>\n  </layers>\n</workload>\n"),
            &wl);
    lw_split s = lw_whole(8);
    lw_kernel dw = kernel_ok(&wl, 0, &s, LW_FORWARD, 4);
    assert_int_equal(dw.kind, LW_STREAM);
    assert_int_equal(dw.depthwise, 1);
    assert_true(dw.flops == 2.0 * 8 * 32 * 9 * 196);
    s.out_parts = 4;
    lw_kernel g = kernel_ok(&wl, 1, &s, LW_FORWARD, 4); /* one of the 4 groups: 8 -> 16 */
    assert_int_equal(g.kind, LW_GEMM);
    assert_int_equal(g.depthwise, 0);
    assert_int_equal(g.groups, 1);
    assert_int_equal(g.n, 16);
    assert_int_equal(g.k, 8);
    assert_true(g.flops == 2.0 * 8 * 16 * 8 * 196);
    lw_shape sh;
    char err[HS_ERR_LEN] = "";
    s.out_parts = 8; /* more parts than groups */
    assert_int_equal(lw_shape_of(&wl, 1, &s, &sh, err), HS_EINPUT);
    assert_non_null(strstr(err, "inside a group"));
    wl_free(&wl);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_conv_hand_count), cmocka_unit_test(test_conv_cuts),
        cmocka_unit_test(test_other_layers),    cmocka_unit_test(test_groups),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
