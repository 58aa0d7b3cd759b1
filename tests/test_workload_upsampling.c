/* test_workload_upsampling.c: the layer types that make extents larger, a U-Net's decoder:
 * the transposed convolution (deconv): how the format reads it (output extents as
 * TensorFlow's conv2d_transpose and PyTorch's ConvTranspose2d give them, weights, FLOPs), what
 * it refuses with the file's line, that its kernels are the mirrored convolution's (forward =
 * that convolution's input gradient and back, hand counts); nearest-neighbour upsampling
 * (upsample): whole factors, its copy and summed gradient; that every cut of either but the
 * batch's is refused; and the shipped U-Nets that use them. */
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
    "<?xml version=\"1.0\"?>\n<workload name=\"up\">\n"                                     \
    "  <dataset name=\"toy\" samples=\"100\" sample=\"8x4x4\"/>\n"                            \
    "  <calibration method=\"none\"/>\n"
#define LAYERS(body) "  <layers>\n" body "  </layers>\n</workload>\n"

/* A relu on the sample (so that the deconv has an input gradient), 8x4x4 up to 6x8x8 by a 3x3 deconv of stride 2 ("same", as UNet_Medical's), a relu, a 2x2
 * valid deconv of stride 2 (16x16, PyTorch's UNet up-convolution), then the convolution that
 * the first deconv is the input gradient of (6x8x8 back to 8x4x4). */
#define NET                                                                                   \
    "    <layer id=\"s\" type=\"relu\" x=\"8x4x4\" y=\"8x4x4\"/>\n"                              \
    "    <layer id=\"d\" type=\"deconv\" x=\"8x4x4\" w=\"8x6x3x3\" y=\"6x8x8\" stride=\"2\" "     \
    "padding=\"same\"/>\n"                                                                     \
    "    <layer id=\"r\" type=\"relu\" x=\"6x8x8\" y=\"6x8x8\"/>\n"                              \
    "    <layer id=\"v\" type=\"deconv\" x=\"6x8x8\" w=\"6x4x2x2\" y=\"4x16x16\" stride=\"2\"/>\n" \
    "    <layer id=\"c\" type=\"conv\" x=\"6x8x8\" w=\"6x8x3x3\" y=\"8x4x4\" stride=\"2\" "        \
    "padding=\"same\" inputs=\"r\"/>\n"                                                           \
    "    <layer id=\"u\" type=\"upsample\" x=\"8x4x4\" y=\"8x8x12\"/>\n"

static void test_read(void **state)
{
    (void)state;
    char path[1024];
    wl_workload wl;
    load_ok(tmp_file(path, sizeof path, "up.xml", HEAD LAYERS(NET)), &wl);
    const wl_layer *d = &wl.layers[1], *v = &wl.layers[3];
    assert_true(d->type == WL_DECONV && d->w_in == 8 && d->w_out == 6 && d->stride == 2);
    assert_int_equal(d->w_elems, 8 * 6 * 9);
    assert_true(d->w_kernel[0] == 3 && d->w_kernel[1] == 3);
    /* every input element meets each output channel's 3x3 window: at x's 16 positions */
    assert_true(d->flops == 2.0 * 8 * 6 * 9 * 16);
    /* the same as the convolution it mirrors (6x8x8 to 8x4x4), counted at that one's output */
    assert_true(d->flops == wl.layers[4].flops);
    assert_true(v->flops == 2.0 * 6 * 4 * 4 * 64 && v->y.spatial[0] == 16);
    assert_string_equal(wl_type_name(WL_DECONV), "deconv");
    /* a layer with weights: a third of its share forward (the spread of a measured time) */
    assert_int_equal(v->w_elems, 6 * 4 * 4);
    /* upsample by 2 and 3: no weights, no arithmetic, another shape than its input's */
    const wl_layer *u = &wl.layers[5];
    assert_true(u->type == WL_UPSAMPLE && u->w_elems == 0 && u->flops == 0.0);
    assert_true(wl_reshapes(WL_UPSAMPLE) && !wl_reshapes(WL_DECONV));
    assert_string_equal(wl_type_name(WL_UPSAMPLE), "upsample");
    wl_free(&wl);
}

static void test_errors(void **state)
{
    (void)state;
    expect_bad("d_same.xml", HEAD LAYERS(
        "    <layer id=\"d\" type=\"deconv\" x=\"8x4x4\" w=\"8x6x3x3\" y=\"6x7x8\" stride=\"2\" "
        "padding=\"same\"/>\n"),
        "wl_d_same.xml:6:", "layer d: output extent 1 is 7 but a deconv of x=4, kernel=3, "
        "stride=2, padding=same (1) gives 8");
    expect_bad("d_valid.xml", HEAD LAYERS(
        "    <layer id=\"d\" type=\"deconv\" x=\"8x4x4\" w=\"8x6x3x3\" y=\"6x8x8\" stride=\"2\"/>\n"),
        "wl_d_valid.xml:6:", "output extent 1 is 8 but a deconv of x=4, kernel=3, stride=2, "
        "padding=0 gives 9");
    expect_bad("d_pad.xml", HEAD LAYERS(
        "    <layer id=\"d\" type=\"deconv\" x=\"8x4x4\" w=\"8x6x1x1\" y=\"6x1x1\" "
        "padding=\"2\"/>\n"),
        "wl_d_pad.xml:6:", "layer d: padding 2 leaves no output in extent 1");
    expect_bad("d_round.xml", HEAD LAYERS(
        "    <layer id=\"d\" type=\"deconv\" x=\"8x4x4\" w=\"8x6x3x3\" y=\"6x8x8\" stride=\"2\" "
        "padding=\"same\" round=\"ceil\"/>\n"),
        "wl_d_round.xml:6:", "layer d: round applies to conv and pool layers only");
    expect_bad("d_split.xml", HEAD LAYERS(
        "    <layer id=\"d\" type=\"deconv\" x=\"8x4x4\" w=\"8x6x3x3\" y=\"6x8x8\" stride=\"2\" "
        "padding=\"same\" split=\"filter\"/>\n"),
        "wl_d_split.xml:6:", "layer d: split 'filter': a deconv layer is split by batch only");
    expect_bad("d_groups.xml", HEAD LAYERS(
        "    <layer id=\"d\" type=\"deconv\" x=\"8x4x4\" w=\"8x6x3x3\" y=\"6x8x8\" stride=\"2\" "
        "padding=\"same\" groups=\"2\"/>\n"),
        "wl_d_groups.xml:6:", "layer d: groups applies to conv layers only");
    expect_bad("d_now.xml", HEAD LAYERS(
        "    <layer id=\"d\" type=\"deconv\" x=\"8x4x4\" y=\"6x8x8\" stride=\"2\"/>\n"),
        "wl_d_now.xml:6:", "layer d: a deconv layer needs w=\"CxFxK..\"");
    expect_bad("d_w.xml", HEAD LAYERS(
        "    <layer id=\"d\" type=\"deconv\" x=\"8x4x4\" w=\"8x5x3x3\" y=\"6x8x8\" stride=\"2\" "
        "padding=\"same\"/>\n"),
        "wl_d_w.xml:6:", "layer d: w is 8x5.. but x has 8 channels and y 6");
    expect_bad("u_c.xml", HEAD LAYERS(
        "    <layer id=\"u\" type=\"upsample\" x=\"8x4x4\" y=\"6x8x8\"/>\n"),
        "wl_u_c.xml:6:", "layer u: an upsample layer keeps the channels and multiplies each "
        "extent by a whole factor, but x is 8x4.. and y 6x8..");
    expect_bad("u_f.xml", HEAD LAYERS(
        "    <layer id=\"u\" type=\"upsample\" x=\"8x4x4\" y=\"8x8x6\"/>\n"),
        "wl_u_f.xml:6:", "an upsample layer keeps the channels and multiplies each extent");
    expect_bad("u_s.xml", HEAD LAYERS(
        "    <layer id=\"u\" type=\"upsample\" x=\"8x4x4\" y=\"8x8x8\" stride=\"2\"/>\n"),
        "wl_u_s.xml:6:", "layer u: stride applies to conv, deconv and pool layers only");
    expect_bad("u_split.xml", HEAD LAYERS(
        "    <layer id=\"u\" type=\"upsample\" x=\"8x4x4\" y=\"8x8x8\" split=\"spatial\"/>\n"),
        "wl_u_split.xml:6:", "layer u: split 'spatial': an upsample layer is split by batch only");
    expect_bad("u_w.xml", HEAD LAYERS(
        "    <layer id=\"u\" type=\"upsample\" x=\"8x4x4\" w=\"8x8x1x1\" y=\"8x8x8\"/>\n"),
        "wl_u_w.xml:6:", "layer u: an upsample layer has no weights (w)");
    expect_bad("d_stride.xml", HEAD LAYERS(
        "    <layer id=\"d\" type=\"deconv\" x=\"8x4x4\" w=\"8x6x3x3\" y=\"6x8x8\" stride=\"0\"/>\n"),
        "wl_d_stride.xml:6:", "layer d: stride '0' is not a positive integer");
}

/* The kernels at 2 samples in FP32: the mirrored convolution's (NET's layer c is it). */
static void test_work(void **state)
{
    (void)state;
    char path[1024];
    wl_workload wl;
    load_ok(tmp_file(path, sizeof path, "upw.xml", HEAD LAYERS(NET)), &wl);
    lw_split s = lw_whole(2);
    /* forward: the input gradient of c, an implicit GEMM of M = b Y = 2 x 64 rows, N = C' of
     * the mirror = 6 (the deconv's outputs), K = 8 x 9 x 16 / 64 = 18 */
    lw_kernel fw = kernel_ok(&wl, 1, &s, LW_FORWARD, 4);
    assert_true(fw.kind == LW_GEMM && fw.lib == LW_LIB_CONV && fw.pass == LW_INPUT_GRAD);
    assert_true(fw.m == 128 && fw.n == 6 && fw.k == 18 && fw.groups == 1);
    assert_true(fw.flops == 2.0 * 2 * 8 * 6 * 9 * 16);
    assert_true(fw.bytes == 4.0 * (2 * 8 * 16 + 8 * 6 * 9 + 2 * 6 * 64));
    assert_true(fw.window == 3 && fw.stride == 2 && fw.y_extent[0] == 4 && fw.y_extent[1] == 4);
    /* input gradient: c's forward, M = b X = 32, N = 8, K = 6 x 9 */
    lw_kernel dx = kernel_ok(&wl, 1, &s, LW_INPUT_GRAD, 4);
    assert_true(dx.pass == LW_FORWARD && dx.m == 32 && dx.n == 8 && dx.k == 54);
    /* weight gradient: c's, M = 8, N = 6 x 9, K = b X = 32 */
    lw_kernel dw = kernel_ok(&wl, 1, &s, LW_WEIGHT_GRAD, 4);
    assert_true(dw.pass == LW_WEIGHT_GRAD && dw.m == 8 && dw.n == 54 && dw.k == 32);
    /* each is exactly c's kernel of the mirrored pass, and the model times them alike */
    lw_pass mirror[LW_PASS_COUNT] = {LW_INPUT_GRAD, LW_FORWARD, LW_WEIGHT_GRAD};
    kt_model m;
    char e[HS_ERR_LEN] = "";
    assert_int_equal(kt_model_init(&m, "a100-40gb", PR_TF32, e), HS_OK);
    for (int p = 0; p < LW_PASS_COUNT; p++) {
        lw_kernel a = kernel_ok(&wl, 1, &s, (lw_pass)p, 4);
        lw_kernel b = kernel_ok(&wl, 4, &s, mirror[p], 4);
        assert_true(a.flops == b.flops && a.bytes == b.bytes && a.m == b.m && a.n == b.n &&
                    a.k == b.k && a.pass == b.pass && a.window == b.window);
        double a_s = 0, b_s = 0;
        assert_int_equal(kt_pass_s(&m, &wl, 1, &s, (lw_pass)p, &a_s, e), HS_OK);
        assert_int_equal(kt_pass_s(&m, &wl, 4, &s, mirror[p], &b_s, e), HS_OK);
        assert_true(a_s > 0 && a_s == b_s);
    }
    /* a 2x2 window (no Winograd, no square-window geometry difference): 2 b C F K X FLOPs */
    lw_kernel v = kernel_ok(&wl, 3, &s, LW_FORWARD, 4);
    assert_true(v.flops == 2.0 * 2 * 6 * 4 * 4 * 64 && v.m == 2 * 256 && v.n == 4);
    /* cut other than by batch: refused, saying why */
    char err[HS_ERR_LEN] = "";
    lw_kernel kn;
    lw_split cut = s;
    cut.out_parts = 2;
    assert_int_equal(lw_kernel_of(&wl, 1, &cut, LW_FORWARD, 4, &kn, err), HS_EINPUT);
    assert_non_null(strstr(err, "layer d: a deconv layer is split by batch only"));
    cut = s;
    cut.spatial_parts[1] = 2;
    assert_int_equal(lw_kernel_of(&wl, 1, &cut, LW_FORWARD, 4, &kn, err), HS_EINPUT);
    cut = s;
    cut.in_parts = 2;
    assert_int_equal(lw_kernel_of(&wl, 1, &cut, LW_WEIGHT_GRAD, 4, &kn, err), HS_EINPUT);
    /* upsample 8x4x4 -> 8x8x12 at 2 samples: n = 256 in, m = 1536 out; forward a copy, no
     * arithmetic; backward m - n adds (each block of 6 summed into one), dy read, dx written */
    lw_kernel uf = kernel_ok(&wl, 5, &s, LW_FORWARD, 4);
    assert_true(uf.kind == LW_STREAM && uf.flops == 0.0 && uf.bytes == 4.0 * (256 + 1536));
    lw_kernel ub = kernel_ok(&wl, 5, &s, LW_INPUT_GRAD, 4);
    assert_true(ub.kind == LW_STREAM && ub.flops == 1536.0 - 256 && ub.bytes == uf.bytes);
    assert_int_equal(kernel_ok(&wl, 5, &s, LW_WEIGHT_GRAD, 4).kind, LW_NONE);
    cut = s;
    cut.spatial_parts[0] = 2;
    assert_int_equal(lw_kernel_of(&wl, 5, &cut, LW_FORWARD, 4, &kn, err), HS_EINPUT);
    assert_non_null(strstr(err, "layer u: an upsample layer is split by batch only"));
    wl_free(&wl);
}

/* A plan that cuts a deconv other than by batch is refused; by batch it is not. */
static void test_plan(void **state)
{
    (void)state;
    char path[1024], err[HS_ERR_LEN];
    wl_workload wl;
    load_ok(tmp_file(path, sizeof path, "upp.xml", HEAD LAYERS(NET)), &wl);
    st_plan plan;
    assert_int_equal(st_plan_init(&plan, wl.n_layers, 2, err), HS_OK);
    plan.layers[1].filter = 2;
    assert_int_equal(st_plan_check(&plan, &wl, 2, 4, err), HS_EINPUT);
    if (!strstr(err, "layer d") || !strstr(err, "a deconv layer splits its batch only"))
        fail_msg("%s", err);
    plan.layers[1].filter = 1;
    plan.layers[3].height = 2;
    assert_int_equal(st_plan_check(&plan, &wl, 2, 4, err), HS_EINPUT);
    assert_non_null(strstr(err, "a deconv layer splits its batch only"));
    plan.layers[3].height = 1;
    plan.layers[5].channel = 2; /* an upsample gives another shape: no cut of its channels */
    assert_int_equal(st_plan_check(&plan, &wl, 2, 4, err), HS_EINPUT);
    if (!strstr(err, "layer u") || !strstr(err, "an upsample layer gives its output another shape"))
        fail_msg("%s", err);
    plan.layers[5].channel = 1;
    for (int i = 0; i < wl.n_layers; i++)
        plan.layers[i].batch = 2;
    assert_int_equal(st_plan_check(&plan, &wl, 2, 4, err), HS_OK);
    st_plan_free(&plan);
    wl_free(&wl);
}

/* The shipped U-Nets (experiments/import/unet_tf1.py) load, with the weights the sources'
 * layers hold (biases left out: 6,850 and 1,665 of them), UNet_Medical's deconvs and
 * UNet_Industrial's upsamples. */
static void test_shipped(void **state)
{
    (void)state;
    wl_workload wl;
    load_ok("unet-medical", &wl);
    assert_int_equal(wl.n_layers, 59);
    assert_int_equal(wl.w_total, 34512258 - 6850);
    assert_true(wl.calibration == WL_CAL_NONE);
    int deconvs = 0;
    for (int i = 0; i < wl.n_layers; i++)
        deconvs += wl.layers[i].type == WL_DECONV;
    assert_int_equal(deconvs, 4);
    int last = wl.n_layers - 1;
    assert_true(wl.layers[last].type == WL_SOFTMAX && wl.layers[last].y.channels == 2 &&
                wl.layers[last].y.spatial[0] == 388);
    wl_free(&wl);
    load_ok("unet-industrial", &wl);
    assert_int_equal(wl.n_layers, 68);
    assert_int_equal(wl.w_total, 1850305 - 1665);
    assert_true(wl.layers[wl.n_layers - 1].type == WL_SIGMOID &&
                wl.layers[wl.n_layers - 1].y.spatial[0] == 512);
    int upsamples = 0;
    for (int i = 0; i < wl.n_layers; i++)
        upsamples += wl.layers[i].type == WL_UPSAMPLE;
    assert_int_equal(upsamples, 4);
    wl_free(&wl);
}

/* nnU-Net (experiments/import/nnunet_pytorch.py), 2D and 3D, loads with the convolution and
 * deconvolution weights DynUNet holds (the description's count less its 992 and 800 deconv
 * biases, 4 output biases and the instance norms' 9,984 and 7,680 scales and shifts), five
 * 2x2 deconvs of stride 2, 4 classes over the patch's voxels and the loss: two softmax layers
 * over the output (MONAI's DiceCELoss, its Dice softmax and its cross-entropy). */
static void test_shipped_nnunet(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        int64_t weights;
        int dims;
        int64_t voxels;
    } nets[] = {{"nnunet-2d", 20613092 - 992 - 4 - 9984, 2, 192 * 160},
                {"nnunet-3d", 31192868 - 800 - 4 - 7680, 3, 128 * 128 * 128}};
    for (int n = 0; n < 2; n++) {
        wl_workload wl;
        load_ok(nets[n].name, &wl);
        assert_int_equal(wl.n_layers, 79);
        int deconvs = 0;
        int64_t weights = 0;
        for (int i = 0; i < wl.n_layers; i++) {
            deconvs += wl.layers[i].type == WL_DECONV;
            if (wl.layers[i].type == WL_CONV || wl.layers[i].type == WL_DECONV)
                weights += wl.layers[i].w_elems;
        }
        assert_int_equal(deconvs, 5);
        assert_int_equal(weights, nets[n].weights);
        for (int k = 1; k <= 2; k++) { /* the two loss layers read the output convolution */
            const wl_layer *loss = &wl.layers[wl.n_layers - k];
            assert_int_equal(loss->type, WL_SOFTMAX);
            assert_int_equal(loss->x.channels, 4);
            assert_true(k == 2 || (loss->n_inputs == 1 && loss->inputs[0] == wl.n_layers - 3));
        }
        const wl_layer *out = &wl.layers[wl.n_layers - 3];
        assert_int_equal(out->type, WL_CONV);
        assert_int_equal(out->y.channels, 4);
        assert_int_equal(out->y.n_spatial, nets[n].dims);
        int64_t voxels = 1;
        for (int d = 0; d < out->y.n_spatial; d++)
            voxels *= out->y.spatial[d];
        assert_int_equal(voxels, nets[n].voxels);
        wl_free(&wl);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_read),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_work),
        cmocka_unit_test(test_plan),
        cmocka_unit_test(test_shipped),
        cmocka_unit_test(test_shipped_nnunet),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
