/* test_footprint.c: the activation memory of a small CNN under the two rules a runtime chooses
 * between (workloads/runtime: activation_memory): ParaDL's |x| + |y| beside their gradients,
 * and what PyTorch's autograd keeps for each layer (workload_saved.c), counted here by hand
 * from the layer shapes; a small attention block in mixed precision (autocast's FP32 layer norm
 * and softmax); a per-layer plan; which rule each shipped runtime names. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "compute.h"
#include "footprint.h"
#include "generate.h"
#include "plan.h"
#include "runtime.h"
#include "strategy.h"
#include "workload_helpers.h"

/* conv, bnorm, relu, max pool, conv, relu, a residual add of the second conv and its relu,
 * dropout, fc, softmax; one sample 3x8x8. */
static const char *const small_net =
    "<?xml version=\"1.0\"?>\n<workload name=\"small\">\n"
    "  <dataset name=\"toy\" samples=\"100\" sample=\"3x8x8\"/>\n"
    "  <calibration method=\"none\"/>\n  <layers>\n"
    "    <layer id=\"c1\" type=\"conv\" x=\"3x8x8\" w=\"3x4x3x3\" y=\"4x8x8\" padding=\"1\"/>\n"
    "    <layer id=\"b1\" type=\"bnorm\" x=\"4x8x8\" y=\"4x8x8\"/>\n"
    "    <layer id=\"r1\" type=\"relu\" x=\"4x8x8\" y=\"4x8x8\"/>\n"
    "    <layer id=\"p1\" type=\"pool\" x=\"4x8x8\" kernel=\"2x2\" y=\"4x4x4\" stride=\"2\"/>\n"
    "    <layer id=\"c2\" type=\"conv\" x=\"4x4x4\" w=\"4x8x3x3\" y=\"8x4x4\" padding=\"1\"/>\n"
    "    <layer id=\"r2\" type=\"relu\" x=\"8x4x4\" y=\"8x4x4\"/>\n"
    "    <layer id=\"sum\" type=\"add\" x=\"8x4x4\" y=\"8x4x4\" inputs=\"r2 c2\"/>\n"
    "    <layer id=\"d1\" type=\"dropout\" x=\"8x4x4\" y=\"8x4x4\"/>\n"
    "    <layer id=\"fc\" type=\"fc\" x=\"8x4x4\" w=\"8x10x4x4\" y=\"10x1x1\"/>\n"
    "    <layer id=\"sm\" type=\"softmax\" x=\"10x1x1\" y=\"10x1x1\"/>\n"
    "  </layers>\n</workload>\n";

/* Weights: 3*4*9 + 4*8*9 + 8*10*16 = 108 + 288 + 1280. */
#define WEIGHTS 1676.0

/* 8 samples a GPU (data parallelism, 2 GPUs, batch 16), FP32: 4 bytes a value. */
static hs_memory memory_of(const wl_workload *wl, bool autograd)
{
    char err[HS_ERR_LEN] = "";
    st_strategy st;
    hs_memory mem;
    assert_int_equal(st_parse("data", 2, 2, 0, &st, err), HS_OK);
    st.train.autograd_memory = autograd;
    if (fp_memory(wl, NULL, &st, 16, &mem, err) != HS_OK)
        fail_msg("fp_memory: %s", err);
    return mem;
}

/* ParaDL's rule: |x| + |y| of every layer but bnorm and relu (in place), each beside its
 * gradient: conv1 192 + 256, pool 256 + 64, conv2 64 + 128, add 128 + 128, dropout 128 + 128,
 * fc 128 + 10, softmax 10 + 10. */
static void test_paradl_rule(void **state)
{
    (void)state;
    char path[1024];
    wl_workload wl;
    load_ok(tmp_file(path, sizeof path, "small_fp.xml", small_net), &wl);
    double act = 448 + 320 + 192 + 256 + 256 + 138 + 20;
    hs_memory mem = memory_of(&wl, false);
    assert_true(mem.activations_bytes == 2 * 4 * 8 * act);
    assert_true(mem.weights_bytes == 4 * WEIGHTS && mem.gradients_bytes == 4 * WEIGHTS);
    wl_free(&wl);
}

/* Autograd's rule: conv1 keeps the sample (192), bnorm its input, conv1's output (256), relu1
 * its result (256); the pool its input (relu1's result, kept already) and 64 int64 indices;
 * conv2 its input (the pool's output, 64), relu2 its result (128), the add nothing, dropout a
 * one-byte mask of 128, fc its input (the dropout's output, 128), softmax its result (10):
 * 1034 values and 640 bytes a sample, held once, and the largest layer's input and output
 * live beside them (bnorm's or relu1's, 256 + 256). */
static void test_autograd_rule(void **state)
{
    (void)state;
    char path[1024];
    wl_workload wl;
    load_ok(tmp_file(path, sizeof path, "small_ag.xml", small_net), &wl);
    int64_t kept[] = {192, 256, 256, 0, 64, 128, 0, 0, 128, 10};
    int64_t index_bytes[] = {0, 0, 0, 8 * 64, 0, 0, 0, 128, 0, 0};
    assert_int_equal(wl.n_layers, 10);
    for (int i = 0; i < wl.n_layers; i++) {
        assert_int_equal(wl.layers[i].ag_saved_elems, kept[i]);
        assert_int_equal(wl.layers[i].ag_index_bytes, index_bytes[i]);
    }
    hs_memory mem = memory_of(&wl, true);
    assert_true(mem.activations_bytes == 8 * (4 * (1034.0 + 512) + 640));
    assert_true(mem.weights_bytes == 4 * WEIGHTS && mem.gradients_bytes == 4 * WEIGHTS);
    /* the default is ParaDL's: a zeroed training says nothing of autograd */
    hs_memory paradl = memory_of(&wl, false);
    assert_true(paradl.activations_bytes > mem.activations_bytes);
    wl_free(&wl);
}

/* Attention in mixed precision: patch conv, its tokens (a view), layer norm (4 rows of 16),
 * Q (a 1x1 conv), K^T (a copy), Q K^T, softmax, A V with V the layer norm's output. */
static const char *const attention_net =
    "<?xml version=\"1.0\"?>\n<workload name=\"att\">\n"
    "  <dataset name=\"toy\" samples=\"100\" sample=\"3x8x8\"/>\n"
    "  <calibration method=\"none\"/>\n  <layers>\n"
    "    <layer id=\"patch\" type=\"conv\" x=\"3x8x8\" w=\"3x16x4x4\" y=\"16x2x2\""
    " stride=\"4\"/>\n"
    "    <layer id=\"tok\" type=\"reshape\" x=\"16x2x2\" y=\"16x4x1\"/>\n"
    "    <layer id=\"ln\" type=\"layernorm\" x=\"16x4x1\" y=\"16x4x1\"/>\n"
    "    <layer id=\"q\" type=\"conv\" x=\"16x4x1\" w=\"16x16x1x1\" y=\"16x4x1\"/>\n"
    "    <layer id=\"kt\" type=\"move\" x=\"16x4x1\" y=\"4x16x1\" inputs=\"ln\"/>\n"
    "    <layer id=\"qk\" type=\"matmul\" x=\"16x4x1\" y=\"4x4x1\" inputs=\"q kt\""
    " m=\"4\" n=\"4\" k=\"16\"/>\n"
    "    <layer id=\"sm\" type=\"softmax\" x=\"4x4x1\" y=\"4x4x1\"/>\n"
    "    <layer id=\"av\" type=\"matmul\" x=\"4x4x1\" y=\"16x4x1\" inputs=\"sm ln\""
    " m=\"4\" n=\"16\" k=\"4\"/>\n"
    "  </layers>\n</workload>\n";

/* Kept: the sample (192), the layer norm's input (the patches, 64) and its mean and 1/std a
 * row (8), Q's input (the layer norm's output, 64), Q and K^T (64 + 64), the softmax's result
 * (16); A V keeps the softmax's result (counted) and V (the layer norm's output, counted):
 * 472 values a sample; the largest live pair the patch conv's, 192 + 64. FP32: 4 bytes each.
 * Mixed: 2 bytes, but the layer norm's 72 and the softmax's 16 in FP32, and A V's FP16 copy
 * of the softmax's result (16) besides. */
static void test_mixed_attention(void **state)
{
    (void)state;
    char path[1024], err[HS_ERR_LEN] = "";
    wl_workload wl;
    load_ok(tmp_file(path, sizeof path, "att_fp.xml", attention_net), &wl);
    assert_int_equal(wl.layers[2].ag_fp32_elems, 72);
    assert_int_equal(wl.layers[6].ag_fp32_elems, 16);
    assert_int_equal(wl.layers[7].ag_saved_elems, 0);
    assert_int_equal(wl.layers[7].ag_copy_elems, 16);
    hs_memory mem = memory_of(&wl, true);
    assert_true(mem.activations_bytes == 8 * 4 * (472.0 + 256));
    kt_options opt = kt_options_default();
    opt.precision = PR_MIXED;
    kt_compute kc;
    st_strategy st;
    assert_int_equal(kt_compute_init_with(&kc, &wl, "v100-sxm2-16gb", &opt, err), HS_OK);
    assert_int_equal(st_parse("data", 2, 2, 0, &st, err), HS_OK);
    st.train.autograd_memory = true;
    assert_int_equal(fp_memory(&wl, &kc, &st, 16, &mem, err), HS_OK);
    assert_true(mem.activations_bytes == 8 * (2 * (472.0 - 88 + 256 + 16) + 4 * 88));
    wl_free(&wl);
}

/* The same data parallelism written as a per-layer plan (st_plan_of) holds the same under
 * either rule: a plan's GPU sums each layer's share and keeps the largest live pair once. */
static void test_plan_rule(void **state)
{
    (void)state;
    char path[1024], err[HS_ERR_LEN] = "";
    wl_workload wl;
    load_ok(tmp_file(path, sizeof path, "small_plan.xml", small_net), &wl);
    for (int autograd = 0; autograd <= 1; autograd++) {
        st_strategy st, from_plan;
        st_plan plan;
        hs_memory mem;
        assert_int_equal(st_parse("data", 2, 2, 0, &st, err), HS_OK);
        st.train.autograd_memory = autograd;
        if (st_plan_of(&wl, NULL, &st, 16, &plan, err) != HS_OK)
            fail_msg("st_plan_of: %s", err);
        assert_int_equal(plan.train.autograd_memory, autograd);
        st_from_plan(&plan, &from_plan);
        assert_int_equal(fp_memory(&wl, NULL, &from_plan, 16, &mem, err), HS_OK);
        assert_true(mem.activations_bytes == memory_of(&wl, autograd).activations_bytes);
        st_plan_free(&plan);
    }
    wl_free(&wl);
}

/* The runtimes say which rule: pytorch-ddp and horovod-nccl autograd's, paradl and chainermn
 * ParaDL's (the oracle's rows stay as they were), horovod-mxnet-mlperf the default, ParaDL's;
 * a strategy under a runtime carries it. */
static void test_runtime_rule(void **state)
{
    (void)state;
    char err[HS_ERR_LEN] = "";
    rt_runtime rt;
    st_strategy st;
    assert_int_equal(st_parse("data", 2, 2, 0, &st, err), HS_OK);
    assert_int_equal(rt_load("pytorch-ddp", &rt, err), HS_OK);
    assert_true(rt.autograd_memory && rt_training(&rt).autograd_memory);
    rt_apply_strategy(&rt, &st);
    assert_true(st.train.autograd_memory);
    assert_int_equal(rt_load("paradl", &rt, err), HS_OK);
    assert_false(rt.autograd_memory);
    rt_apply_strategy(&rt, &st);
    assert_false(st.train.autograd_memory);
    assert_int_equal(rt_load("chainermn", &rt, err), HS_OK);
    assert_false(rt.autograd_memory);
    assert_int_equal(rt_load("horovod-nccl", &rt, err), HS_OK); /* TensorFlow's, alike */
    assert_true(rt.autograd_memory);
    assert_int_equal(rt_load("horovod-mxnet-mlperf", &rt, err), HS_OK); /* not sourced */
    assert_false(rt.autograd_memory);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_paradl_rule),
        cmocka_unit_test(test_autograd_rule),
        cmocka_unit_test(test_plan_rule),
        cmocka_unit_test(test_mixed_attention),
        cmocka_unit_test(test_runtime_rule),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
