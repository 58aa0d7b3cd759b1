/* test_workload_tokens.c: the layer types of attention and token reshaping (layernorm, matmul,
 * reshape, move): how the format reads them and refuses them, the work each kernel does
 * (hand counts), the memory a view does not take, and how the strategies split them (a
 * layer that reshapes is never cut, a layernorm's channels never, a spatial region ends
 * before the first reshape), and what attention adds besides: an add or a mul by a parameter
 * or a constant (one input), tanh. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "footprint.h"
#include "generate.h"
#include "plan.h"
#include "strategy.h"
#include "work.h"
#include "workload_helpers.h"

#define HEAD                                                                                  \
    "<?xml version=\"1.0\"?>\n<workload name=\"tok\">\n"                                    \
    "  <dataset name=\"toy\" samples=\"100\" sample=\"3x8x8\"/>\n"                            \
    "  <calibration method=\"none\"/>\n"
#define LAYERS(body) "  <layers>\n" body "  </layers>\n</workload>\n"

/* A patch embedding (a 4x4 stride-4 convolution to 16 channels over 2x2 patches), its patches
 * as 4 tokens, one attention head of 16 features: Q K^T (4x16 by 16x4), a softmax over each
 * row, then A V (4x4 by 4x16), a layer norm, a scale and a bias (one input each), tanh. */
#define BLOCK \
    "    <layer id=\"patch\" type=\"conv\" x=\"3x8x8\" w=\"3x16x4x4\" y=\"16x2x2\"" \
    " stride=\"4\" split=\"filter channel spatial\"/>\n" \
    "    <layer id=\"tok\" type=\"reshape\" x=\"16x2x2\" y=\"16x4x1\"/>\n" \
    "    <layer id=\"q\" type=\"conv\" x=\"16x4x1\" w=\"16x16x1x1\" y=\"16x4x1\"/>\n" \
    "    <layer id=\"kt\" type=\"move\" x=\"16x4x1\" y=\"4x16x1\" inputs=\"tok\"/>\n" \
    "    <layer id=\"qk\" type=\"matmul\" x=\"16x4x1\" y=\"4x4x1\" inputs=\"q kt\"" \
    " m=\"4\" n=\"4\" k=\"16\"/>\n" \
    "    <layer id=\"sm\" type=\"softmax\" x=\"4x4x1\" y=\"4x4x1\"/>\n" \
    "    <layer id=\"av\" type=\"matmul\" x=\"4x4x1\" y=\"16x4x1\" inputs=\"sm tok\"" \
    " m=\"4\" n=\"16\" k=\"4\"/>\n" \
    "    <layer id=\"ln\" type=\"layernorm\" x=\"16x4x1\" y=\"16x4x1\"/>\n" \
    "    <layer id=\"scale\" type=\"mul\" x=\"16x4x1\" y=\"16x4x1\"/>\n" \
    "    <layer id=\"bias\" type=\"add\" x=\"16x4x1\" y=\"16x4x1\"/>\n" \
    "    <layer id=\"th\" type=\"tanh\" x=\"16x4x1\" y=\"16x4x1\" inputs=\"scale\"/>\n"

static void test_read(void **state)
{
    (void)state;
    char path[1024];
    wl_workload wl;
    load_ok(tmp_file(path, sizeof path, "tok.xml", HEAD LAYERS(BLOCK)), &wl);
    assert_int_equal(wl.n_layers, 11);
    assert_true(wl.layers[8].type == WL_MUL && wl.layers[8].broadcast);
    assert_true(wl.layers[9].type == WL_ADD && wl.layers[9].n_inputs == 0);
    assert_true(wl.layers[10].type == WL_TANH && wl_is_activation(WL_TANH));
    assert_string_equal(wl_type_name(WL_TANH), "tanh");
    const wl_layer *qk = &wl.layers[4], *av = &wl.layers[6];
    assert_int_equal(wl.layers[1].type, WL_RESHAPE);
    assert_int_equal(wl.layers[3].type, WL_MOVE);
    assert_int_equal(qk->type, WL_MATMUL);
    assert_int_equal(wl.layers[7].type, WL_LAYERNORM);
    assert_int_equal(qk->n_inputs, 2);
    assert_true(qk->mm_products == 1 && qk->mm_m == 4 && qk->mm_n == 4 && qk->mm_k == 16);
    assert_true(qk->flops == 2.0 * 4 * 4 * 16);  /* ParaDL's share: 2 m n k */
    assert_true(av->flops == 2.0 * 4 * 16 * 4);
    assert_true(wl.layers[7].flops == 4.0 * 64); /* as bnorm: 4 |x| */
    assert_true(wl.layers[1].flops == 0 && wl.layers[3].flops == 0);
    assert_string_equal(wl_type_name(WL_LAYERNORM), "layernorm");
    assert_string_equal(wl_type_name(WL_MATMUL), "matmul");
    assert_string_equal(wl_type_name(WL_RESHAPE), "reshape");
    assert_string_equal(wl_type_name(WL_MOVE), "move");
    assert_true(wl_reshapes(WL_MATMUL) && wl_reshapes(WL_MOVE) && wl_reshapes(WL_RESHAPE));
    assert_false(wl_reshapes(WL_LAYERNORM) || wl_reshapes(WL_CONV) || wl_reshapes(WL_ADD));
    /* activations: every layer's x and y but the reshape's, a view of the patches */
    int64_t act = 0;
    for (int i = 0; i < wl.n_layers; i++)
        if (i != 1)
            act += wl.layers[i].x_elems + wl.layers[i].y_elems;
    assert_int_equal(wl.x_total + wl.y_total, act);
    wl_free(&wl);
}

/* Activation memory: ParaDL's |x| + |y| for the convolutions and the softmax, what autograd
 * saves for the token layers, each tensor once (workload_saved.c). */
static void test_memory(void **state)
{
    (void)state;
    char path[1024], err[HS_ERR_LEN] = "";
    wl_workload wl;
    load_ok(tmp_file(path, sizeof path, "tokm.xml", HEAD LAYERS(BLOCK)), &wl);
    const wl_layer *l = wl.layers;
    assert_false(l[0].autograd_rule || l[2].autograd_rule || l[5].autograd_rule);
    assert_true(l[1].autograd_rule && l[1].saved_elems == 0); /* a view */
    assert_true(l[3].autograd_rule && l[3].saved_elems == 0); /* a copy keeps nothing */
    assert_int_equal(l[4].saved_elems, 64); /* K^T, the move's copy; q is the conv's y */
    assert_int_equal(l[6].saved_elems, 0);  /* A is the softmax's y, V the patch conv's */
    assert_int_equal(l[7].saved_elems, 64 + 2 * 4); /* its input, a mean and a 1/std a row */
    assert_int_equal(l[8].saved_elems, 64); /* a parameter's gradient needs the input */
    assert_true(l[9].autograd_rule && l[9].saved_elems == 0); /* an add keeps nothing */
    assert_int_equal(l[10].saved_elems, 64); /* tanh keeps its output */
    /* 256 + 128 + 32 (patch, q, softmax: |x| + |y|) + 264 saved, with their gradients, 4 bytes
     * an element, 8 samples a GPU */
    st_strategy st;
    hs_memory mem;
    assert_int_equal(st_parse("data", 2, 2, 0, &st, err), HS_OK);
    assert_int_equal(fp_memory(&wl, NULL, &st, 16, &mem, err), HS_OK);
    assert_true(mem.activations_bytes == 2.0 * 4 * 8 * (256 + 128 + 32 + 264));
    wl_free(&wl);
}

static void test_products(void **state)
{
    (void)state;
    char path[1024];
    wl_workload wl;
    /* 2 heads of 8 features: (2 x 4x8) by (2 x 8x4), the second factor in another shape */
    load_ok(tmp_file(path, sizeof path, "heads.xml", HEAD LAYERS(
        "    <layer id=\"patch\" type=\"conv\" x=\"3x8x8\" w=\"3x16x4x4\" y=\"16x2x2\""
        " stride=\"4\"/>\n"
        "    <layer id=\"kt\" type=\"move\" x=\"16x2x2\" y=\"8x4x2\"/>\n"
        "    <layer id=\"qk\" type=\"matmul\" x=\"16x2x2\" y=\"2x4x4\" inputs=\"patch kt\""
        " m=\"4\" n=\"4\" k=\"8\" products=\"2\"/>\n")), &wl);
    const wl_layer *qk = &wl.layers[2];
    assert_int_equal(qk->mm_products, 2);
    assert_true(qk->flops == 2.0 * 2 * 4 * 4 * 8);
    wl_free(&wl);
}

static void test_errors(void **state)
{
    (void)state;
#define CONV \
    "    <layer id=\"c\" type=\"conv\" x=\"3x8x8\" w=\"3x16x4x4\" y=\"16x2x2\" stride=\"4\"/>\n"
    expect_bad("mm_none.xml", HEAD LAYERS(CONV
        "    <layer id=\"m\" type=\"matmul\" x=\"16x2x2\" y=\"16x2x2\" inputs=\"c c\"/>\n"),
        "wl_mm_none.xml:7:", "a matmul layer needs m, n and k");
    expect_bad("mm_one.xml", HEAD LAYERS(CONV
        "    <layer id=\"m\" type=\"matmul\" x=\"16x2x2\" y=\"16x4x1\" m=\"4\" n=\"16\""
        " k=\"16\"/>\n"),
        "layer m: a matmul layer multiplies two inputs, not 0", NULL);
    expect_bad("mm_x.xml", HEAD LAYERS(CONV
        "    <layer id=\"m\" type=\"matmul\" x=\"16x2x2\" y=\"16x2x2\" inputs=\"c c\" m=\"4\""
        " n=\"16\" k=\"8\"/>\n"),
        "x has 64 elements, not products x m x k = 32", NULL);
    expect_bad("mm_y.xml", HEAD LAYERS(CONV
        "    <layer id=\"m\" type=\"matmul\" x=\"16x2x2\" y=\"16x2x2\" inputs=\"c c\" m=\"4\""
        " n=\"4\" k=\"16\"/>\n"),
        "y has 64 elements, not products x m x n = 16", NULL);
    expect_bad("mm_b.xml", HEAD LAYERS(CONV
        "    <layer id=\"m\" type=\"matmul\" x=\"16x2x2\" y=\"2x2x2\" inputs=\"c c\" m=\"4\""
        " n=\"2\" k=\"16\"/>\n"),
        "its second input c produces 16x2x2, 64 elements, not products x k x n = 32", NULL);
    expect_bad("mm_k0.xml", HEAD LAYERS(CONV
        "    <layer id=\"m\" type=\"matmul\" x=\"16x2x2\" y=\"16x2x2\" inputs=\"c c\" m=\"4\""
        " n=\"16\" k=\"0\"/>\n"),
        "layer m: k '0' is not a positive integer", NULL);
    expect_bad("mm_attr.xml", HEAD LAYERS(CONV
        "    <layer id=\"r\" type=\"relu\" x=\"16x2x2\" y=\"16x2x2\" k=\"3\"/>\n"),
        "layer r: k applies to matmul layers only", NULL);
    expect_bad("reshape.xml", HEAD LAYERS(CONV
        "    <layer id=\"r\" type=\"reshape\" x=\"16x2x2\" y=\"16x5x1\"/>\n"),
        "a reshape keeps its elements, but x has 64 and y 80", NULL);
    expect_bad("ln.xml", HEAD LAYERS(CONV
        "    <layer id=\"l\" type=\"layernorm\" x=\"16x2x2\" y=\"16x4x1\"/>\n"),
        "a layernorm layer's output has its input's shape", NULL);
    expect_bad("mul_shape.xml", HEAD LAYERS(CONV
        "    <layer id=\"s\" type=\"mul\" x=\"16x4x1\" y=\"16x4x1\"/>\n"),
        "layer s: x is 16x4x1 but its input produces 16x2x2", NULL);
    expect_bad("move2.xml", HEAD LAYERS(CONV
        "    <layer id=\"v\" type=\"move\" x=\"16x2x2\" y=\"16x2x2\" inputs=\"c c\"/>\n"),
        "only add, mul, matmul and concat layers take several inputs", NULL);
    expect_bad("dtd.xml", HEAD LAYERS(CONV
        "    <layer id=\"v\" type=\"transpose\" x=\"16x2x2\" y=\"16x2x2\"/>\n"),
        "wl_dtd.xml", NULL);
#undef CONV
}

/* Hand counts at 2 samples in FP32 (4 bytes). */
static void test_work(void **state)
{
    (void)state;
    char path[1024];
    wl_workload wl;
    load_ok(tmp_file(path, sizeof path, "tokw.xml", HEAD LAYERS(BLOCK)), &wl);
    lw_split s = lw_whole(2);
    /* Q K^T: 2 samples of (4x16)(16x4): 2 x 2 x 4 x 4 x 16 FLOPs; A, B, Y read or written */
    lw_kernel fw = kernel_ok(&wl, 4, &s, LW_FORWARD, 4);
    assert_int_equal(fw.kind, LW_GEMM);
    assert_true(fw.flops == 2.0 * 2 * 4 * 4 * 16);
    assert_true(fw.bytes == 4.0 * 2 * (64 + 64 + 16));
    assert_true(fw.m == 4 && fw.n == 4 && fw.k == 16 && fw.groups == 2);
    /* backward: dA and dB, each a forward's FLOPs, as 4 products of dA's shape */
    lw_kernel bw = kernel_ok(&wl, 4, &s, LW_INPUT_GRAD, 4);
    assert_true(bw.flops == 2 * fw.flops && bw.bytes == 2 * fw.bytes);
    assert_true(bw.m == 4 && bw.n == 16 && bw.k == 4 && bw.groups == 4);
    assert_int_equal(kernel_ok(&wl, 4, &s, LW_WEIGHT_GRAD, 4).kind, LW_NONE);
    /* a filter cut of A V's 16 outputs in 4 keeps a quarter of its rows */
    lw_split cut = s;
    cut.out_parts = 4;
    assert_true(kernel_ok(&wl, 6, &cut, LW_FORWARD, 4).flops == 2.0 * 2 * 1 * 16 * 4);
    /* layernorm as bnorm: 8 and 12 FLOPs, 3 and 5 tensors of n = 2 x 64 */
    lw_kernel ln = kernel_ok(&wl, 7, &s, LW_FORWARD, 4);
    assert_true(ln.kind == LW_STREAM && ln.flops == 8 * 128.0 && ln.bytes == 4 * 3 * 128.0);
    assert_true(kernel_ok(&wl, 7, &s, LW_INPUT_GRAD, 4).bytes == 4 * 5 * 128.0);
    /* a move copies its output's elements; a reshape has no kernel */
    lw_kernel mv = kernel_ok(&wl, 3, &s, LW_FORWARD, 4);
    assert_true(mv.kind == LW_STREAM && mv.flops == 0 && mv.bytes == 4 * 2 * 128.0);
    for (int p = 0; p < LW_PASS_COUNT; p++)
        assert_int_equal(kernel_ok(&wl, 1, &s, (lw_pass)p, 4).kind, LW_NONE);
    /* a mul by a parameter streams x and y (2 tensors), an add of one as an add of two (3) */
    assert_true(kernel_ok(&wl, 8, &s, LW_FORWARD, 4).bytes == 4 * 2 * 128.0);
    assert_true(kernel_ok(&wl, 9, &s, LW_FORWARD, 4).bytes == 4 * 3 * 128.0);
    lw_kernel th = kernel_ok(&wl, 10, &s, LW_FORWARD, 4);
    assert_true(th.flops == 4 * 128.0 && th.bytes == 4 * 2 * 128.0);
    wl_free(&wl);
}

/* A plan that cuts a matmul, a move or a layernorm's channels is refused; the built-in spatial
 * strategy ends its region before the first reshape; filter replicates the unmarked. */
static void test_strategies(void **state)
{
    (void)state;
    char path[1024], err[HS_ERR_LEN];
    wl_workload wl;
    load_ok(tmp_file(path, sizeof path, "toks.xml", HEAD LAYERS(BLOCK)), &wl);
    st_plan plan;
    assert_int_equal(st_plan_init(&plan, wl.n_layers, 2, err), HS_OK);
    plan.layers[4].width = 2; /* the Q K^T matmul */
    assert_int_equal(st_plan_check(&plan, &wl, 2, 4, err), HS_EINPUT);
    assert_non_null(strstr(err, "layer qk: a matmul layer gives its output another shape"));
    plan.layers[4].width = 1;
    plan.layers[7].channel = 2; /* the layernorm */
    assert_int_equal(st_plan_check(&plan, &wl, 2, 4, err), HS_EINPUT);
    assert_non_null(strstr(err, "layer ln: channel=2: a layernorm's statistics span"));
    plan.layers[7].channel = 1;
    plan.layers[7].width = 2; /* its extents may be cut */
    assert_int_equal(st_plan_check(&plan, &wl, 2, 4, err), HS_OK);
    st_plan_free(&plan);

    st_strategy st;
    assert_int_equal(st_parse("spatial", 2, 2, 0, &st, err), HS_OK);
    assert_int_equal(st_plan_of(&wl, NULL, &st, 64, &plan, err), HS_OK);
    assert_int_equal(plan.layers[0].width, 2);    /* the patch convolution is cut */
    for (int i = 1; i < wl.n_layers; i++)         /* from the reshape on: replicated */
        assert_true(plan.layers[i].width == 1 && plan.layers[i].replicas == 2);
    assert_int_equal(st_plan_check(&plan, &wl, 2, 4, err), HS_OK);
    st_plan_free(&plan);
    assert_int_equal(st_parse("filter", 2, 2, 0, &st, err), HS_OK);
    assert_int_equal(st_plan_of(&wl, NULL, &st, 64, &plan, err), HS_OK);
    assert_int_equal(plan.layers[0].filter, 2);
    assert_true(plan.layers[4].filter == 1 && plan.layers[4].replicas == 2);
    st_plan_free(&plan);
    wl_free(&wl);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_read),
        cmocka_unit_test(test_memory),
        cmocka_unit_test(test_products),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_work),
        cmocka_unit_test(test_strategies),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
