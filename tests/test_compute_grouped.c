/* test_compute_grouped.c: the kernel-time model's grouped convolutions (kernel_refine.c,
 * grouped_pack): each group on tiles of its own by default, and under a runtime with
 * `grouped_convolution = packed` the groups side by side in the tiles, one product a pass,
 * priced as the dense product of the same per-group depth; ungrouped, depthwise and batched
 * cuBLAS products left as they are. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "compute.h"
#include "compute_helpers.h"
#include "workload_helpers.h"

/* kn as one dense product: its groups laid along the dimension of a group's channels (the
 * weight gradient's M, the other passes' N), by hand. */
static lw_kernel dense_of(lw_kernel kn)
{
    if (kn.pass == LW_WEIGHT_GRAD)
        kn.m *= kn.groups;
    else
        kn.n *= kn.groups;
    kn.groups = 1;
    kn.window = 0; /* no Winograd, which a grouped convolution never takes */
    return kn;
}

/* ResNeXt-101 32x4d's first grouped 3x3 (32 groups of 4 channels, 56x56, batch 128): by
 * default each group on its own tiles; packed, the dense product's time, every pass, on the
 * CUDA cores (FP32) and the tensor cores (TF32). */
static void test_packed_is_dense(void **state)
{
    (void)state;
    wl_workload wl;
    load_ok("resnext101-32x4d", &wl);
    int c = layer_named(&wl, "layer1_0_conv2");
    lw_split b = lw_whole(128);
    const char *devices[] = {"v100-sxm2-16gb", "a100-40gb"};
    const pr_precision precisions[] = {PR_FP32, PR_TF32};
    for (int d = 0; d < 2; d++)
        for (int p = 0; p < LW_PASS_COUNT; p++) {
            kt_model m = model_ok(devices[d], precisions[d]);
            lw_kernel kn = kernel_ok(&wl, c, &b, (lw_pass)p, 4);
            assert_int_equal(kn.groups, 32);
            assert_int_equal(kn.in_channels, 4);
            lw_kernel dense = dense_of(kn);
            double own_tiles_s = kt_terms_of(&m, &kn).compute_s;
            m.runtime.packs_groups = 1;
            double packed_s = kt_terms_of(&m, &kn).compute_s;
            m.runtime.packs_groups = 0;
            assert_true(rel_close(packed_s, kt_terms_of(&m, &dense).compute_s, 1e-12));
            /* a 4-channel group fills 4 of a tile at least 32 wide: 8x and more by default */
            assert_true(own_tiles_s > 4.0 * packed_s);
        }
    wl_free(&wl);
}

/* The weight gradient of a 16-channel group on a V100 in FP16 (tensor cores): by default 32
 * products of 16 x 144 on 128x64 tiles, 3 tiles each, 96 tiles in two waves of 80 SMs, each
 * tile the whole depth K = 128 x 196 positions; packed, one product of 512 x 144. */
static void test_weight_gradient_by_hand(void **state)
{
    (void)state;
    wl_workload wl;
    load_ok("resnext101-32x4d", &wl);
    int c = layer_named(&wl, "layer3_1_conv2"); /* 512 -> 512, 32 groups, 14x14 */
    lw_split b = lw_whole(128);
    kt_model m = model_ok("v100-sxm2-16gb", PR_MIXED);
    lw_kernel kn = kernel_ok(&wl, c, &b, LW_WEIGHT_GRAD, 2);
    assert_true(kn.m == 16 && kn.n == 144 && kn.k == 128 * 196 && kn.groups == 32);
    double rate = m.params.gemm_eff * m.params.conv_rel[LW_WEIGHT_GRAD] * 125e12;
    double per_sm = rate / 80, k = 128.0 * 196; /* 80 SMs */
    double own_s = 2 * (2.0 * 128 * 64 * k) / per_sm; /* best tile: 128x64, 2 waves */
    assert_true(rel_close(kt_terms_of(&m, &kn).compute_s, own_s, 1e-9));
    m.runtime.packs_groups = 1;
    /* 512 x 144 has few tiles: split-K fills the SMs (slices of at least 256). 256x128: 4
     * tiles, 20 slices of ceil(K / 20) = 1255; 128x128: 8, 10 of 2509; 256x64: 6, 13 of 1930;
     * 128x64: 12, 6 of 4182; one wave each, the best 256x64's */
    double best = 2.0 * 256 * 64 * 1930 / per_sm;
    assert_true(best < 2.0 * 128 * 64 * 4182 / per_sm && best < 2.0 * 128 * 128 * 2509 / per_sm);
    assert_true(rel_close(kt_terms_of(&m, &kn).compute_s, best, 1e-9));
    wl_free(&wl);
}

/* Packing changes nothing but a grouped convolution: an ungrouped convolution, a depthwise
 * one (a streaming kernel), and a batched cuBLAS product (groups of a matmul) keep their
 * times (the runtime key's words: test_runtime_keys.c test_grouped_convolution). */
static void test_only_grouped_convolutions(void **state)
{
    (void)state;
    wl_workload rx, eff;
    load_ok("resnext101-32x4d", &rx);
    load_ok("efficientnet-b0", &eff);
    lw_split b = lw_whole(64);
    kt_model off = model_ok("a100-40gb", PR_MIXED), on = off;
    on.runtime.packs_groups = 1;
    lw_kernel dense = kernel_ok(&rx, layer_named(&rx, "layer1_0_conv1"), &b, LW_FORWARD, 2);
    assert_int_equal(dense.groups, 1);
    assert_true(kt_kernel_s(&on, &dense) == kt_kernel_s(&off, &dense));
    int dw = -1;
    for (int i = 0; i < eff.n_layers && dw < 0; i++)
        if (eff.layers[i].type == WL_CONV && eff.layers[i].groups > 1)
            dw = i;
    assert_true(dw >= 0);
    lw_kernel depthwise = kernel_ok(&eff, dw, &b, LW_FORWARD, 2);
    assert_true(depthwise.kind == LW_STREAM && depthwise.depthwise);
    assert_true(kt_kernel_s(&on, &depthwise) == kt_kernel_s(&off, &depthwise));
    lw_kernel batched = {.kind = LW_GEMM, .m = 64, .n = 64, .k = 64, .groups = 96,
                         .lib = LW_LIB_BLAS, .in_channels = 64, .out_channels = 64};
    batched.flops = 2.0 * 64 * 64 * 64 * 96;
    assert_true(kt_kernel_s(&on, &batched) == kt_kernel_s(&off, &batched));
    wl_free(&rx);
    wl_free(&eff);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_packed_is_dense),
        cmocka_unit_test(test_weight_gradient_by_hand),
        cmocka_unit_test(test_only_grouped_convolutions),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
