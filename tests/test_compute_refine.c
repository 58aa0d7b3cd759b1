/* test_compute_refine.c: what the kernel-time model's refinements change, against hand counts:
 * the opt-in mechanisms (kt_params.mechanisms: strided input gradients, Winograd at the GEMM
 * rate, whole K tiles of channels, cuDNN's tiles, cuDNN's weight gradients, no split-K,
 * strided reads; kernel_refine.c) and the runtime keys that reprice a kernel (norm_blocks,
 * autograd_broadcast: kernel_refine.c; nchw_precisions and pads_channels, the layout
 * conversions and channel padding: kernel_time.c). Grouped convolutions' packing:
 * test_compute_grouped.c; the fused batch normalisation and the core model: test_compute.c. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "compute.h"
#include "compute_helpers.h"
#include "workload_helpers.h"

/* A runtime whose NCHW normalisations reduce a plane at a plane's rate (norm_blocks):
 * nnU-Net's first instance norm (32 channels of 128^3) takes as long for one patch as for two,
 * well above the device's bandwidth, while a batch norm of the same layer (a plane a channel)
 * grows with the batch; the backward slower than the forward; in a precision the runtime keeps
 * channels-last, with enough planes, on a device without a measured rate (Turing), for a kernel
 * that is not a norm, or by default: the device's bandwidth. Bytes a second, whatever the
 * element size: half the bytes, half the time. */
static void test_norm_blocks(void **state)
{
    (void)state;
    wl_workload wl;
    load_ok("nnunet-3d", &wl);
    int first = layer_named(&wl, "input_norm1"), deep = layer_named(&wl, "down3_norm1");
    int relu = layer_named(&wl, "input_lrelu1");
    kt_model m = model_ok("v100-sxm2-32gb", PR_FP32), h = model_ok("v100-sxm2-32gb", PR_MIXED);
    kt_model t4 = model_ok("t4", PR_FP32);
    lw_split one = lw_whole(1), two = lw_whole(2);
    double bw = m.device->stream_bw_frac * m.device->memory_bw_Bps, rate[2];
    for (int p = 0; p < LW_PASS_COUNT - 1; p++) { /* forward and input gradient */
        lw_kernel k1 = kernel_ok(&wl, first, &one, (lw_pass)p, 4);
        lw_kernel k2 = kernel_ok(&wl, first, &two, (lw_pass)p, 4);
        double any1 = kt_terms_of(&m, &k1).memory_s, any2 = kt_terms_of(&m, &k2).memory_s;
        assert_true(rel_close(any1, k1.bytes / bw, 1e-12) && rel_close(any2, 2 * any1, 1e-12));
        m.runtime.norm_blocks = KT_NORM_PER_SAMPLE_CHANNEL;
        assert_true(kt_terms_of(&m, &k1).memory_s == any1); /* fp32 not in nchw_precisions */
        m.runtime.nchw_precisions = 1u << PR_FP32;
        double inst1 = kt_terms_of(&m, &k1).memory_s, inst2 = kt_terms_of(&m, &k2).memory_s;
        assert_true(inst1 > 2 * any1 && rel_close(inst2, inst1, 1e-12));
        rate[p] = k1.bytes / inst1;
        m.runtime.norm_blocks = KT_NORM_PER_CHANNEL;
        assert_true(rel_close(kt_terms_of(&m, &k1).memory_s, inst1, 1e-12));
        assert_true(rel_close(kt_terms_of(&m, &k2).memory_s, 2 * inst1, 1e-12));
        h.runtime.norm_blocks = KT_NORM_PER_SAMPLE_CHANNEL;
        lw_kernel half = kernel_ok(&wl, first, &one, (lw_pass)p, 2);
        assert_true(rel_close(kt_terms_of(&h, &half).memory_s, half.bytes / bw, 1e-12));
        h.runtime.nchw_precisions = 1u << PR_MIXED;
        assert_true(rel_close(kt_terms_of(&h, &half).memory_s, inst1 / 2, 1e-12));
        lw_kernel many = kernel_ok(&wl, deep, &one, (lw_pass)p, 4); /* 256 planes */
        assert_true(rel_close(kt_terms_of(&m, &many).memory_s, many.bytes / bw, 1e-12));
        lw_kernel act = kernel_ok(&wl, relu, &one, (lw_pass)p, 4);
        assert_true(rel_close(kt_terms_of(&m, &act).memory_s, act.bytes / bw, 1e-12));
        t4.runtime.norm_blocks = KT_NORM_PER_SAMPLE_CHANNEL;
        t4.runtime.nchw_precisions = 1u << PR_FP32;
        double t4_bw = t4.device->stream_bw_frac * t4.device->memory_bw_Bps;
        assert_true(rel_close(kt_terms_of(&t4, &k1).memory_s, k1.bytes / t4_bw, 1e-12));
        m.runtime.norm_blocks = KT_NORM_ANY;
        m.runtime.nchw_precisions = h.runtime.nchw_precisions = 0;
    }
    assert_true(rate[LW_INPUT_GRAD] < rate[LW_FORWARD] && rate[LW_FORWARD] < bw / 2);
    wl_free(&wl);
}

/* A runtime's NCHW tensors in a precision: a tensor-core convolution's three tensors converted
 * by kernels of their own (read and written once each); not on the CUDA cores (fp32), not for
 * channels the tensor cores cannot take, not in another precision. */
static void test_nchw_layout(void **state)
{
    (void)state;
    wl_workload wl;
    load_ok("resnet50-v1.5", &wl);
    lw_split b = lw_whole(64);
    kt_model tf = model_ok("a100-80gb", PR_TF32), f32 = model_ok("v100-sxm2-16gb", PR_FP32);
    double bw = tf.device->stream_bw_frac * tf.device->memory_bw_Bps;
    for (int p = 0; p < LW_PASS_COUNT; p++) {
        lw_kernel kn = kernel_ok(&wl, layer_named(&wl, "layer1_0_conv2"), &b, (lw_pass)p, 4);
        double plain = kt_kernel_s(&tf, &kn);
        tf.runtime.nchw_precisions = 1u << PR_FP32 | 1u << PR_MIXED; /* not tf32 */
        assert_true(kt_kernel_s(&tf, &kn) == plain);
        tf.runtime.nchw_precisions = 1u << PR_TF32;
        double want = plain + 3 * tf.device->launch_s + 2 * kn.bytes / bw;
        assert_true(rel_close(kt_kernel_s(&tf, &kn), want, 1e-12));
        assert_true(rel_close(kt_terms_of(&tf, &kn).layout_s, want - plain, 1e-12));
        tf.runtime.nchw_precisions = 0;
        double cuda = kt_kernel_s(&f32, &kn); /* the CUDA cores read NCHW as it is */
        f32.runtime.nchw_precisions = 1u << PR_FP32;
        assert_true(kt_kernel_s(&f32, &kn) == cuda);
        f32.runtime.nchw_precisions = 0;
    }
    lw_kernel first = kernel_ok(&wl, 0, &b, LW_FORWARD, 4); /* 3 channels: CUDA cores */
    double plain = kt_kernel_s(&tf, &first);
    tf.runtime.nchw_precisions = 1u << PR_TF32;
    assert_true(kt_kernel_s(&tf, &first) == plain);
    wl_free(&wl);
}

/* A runtime whose cuDNN pads channels (pads_channels): a convolution the tensor cores cannot
 * take as it is (SSD300's conf1, 512 -> 486 channels) computes as the same convolution with
 * its channels rounded up to the multiple (488, aligned in TF32 and FP16) on the tensor
 * cores, in every pass, plus the copies of its tensors; without it, it runs on the CUDA
 * cores, far slower. */
static void test_channel_padding(void **state)
{
    (void)state;
    const pr_precision precisions[] = {PR_TF32, PR_MIXED};
    wl_workload wl, padded;
    load_ok("ssd300", &wl);
    load_ok("ssd300", &padded);
    int i = layer_named(&wl, "conf1");
    assert_true(wl.layers[i].y.channels == 486);
    padded.layers[i].y.channels = 488;
    lw_split b = lw_whole(64);
    for (int q = 0; q < 2; q++) {
        kt_model m = model_ok("a100-80gb", precisions[q]);
        for (int p = 0; p < LW_PASS_COUNT; p++) {
            lw_kernel kn = kernel_ok(&wl, i, &b, (lw_pass)p, 2);
            lw_kernel aligned = kernel_ok(&padded, i, &b, (lw_pass)p, 2);
            double cuda_s = kt_terms_of(&m, &kn).compute_s;
            double want_s = kt_terms_of(&m, &aligned).compute_s;
            m.runtime.pads_channels = 1;
            kt_terms t = kt_terms_of(&m, &kn);
            assert_true(rel_close(t.compute_s, want_s, 1e-12));
            assert_true(t.call_s == kt_terms_of(&m, &aligned).call_s);
            assert_true(cuda_s > 2 * t.compute_s);
            assert_true(t.padded == 1 && kt_terms_of(&m, &aligned).padded == 0);
            /* the padding copies: each of the three tensors read and written once more */
            double bw = m.device->stream_bw_frac * m.device->memory_bw_Bps;
            assert_true(rel_close(t.layout_s, 3 * (m.device->launch_s + 2 * kn.bytes / 3 / bw),
                                  1e-12));
            assert_true(kt_terms_of(&m, &aligned).compute_s == want_s); /* aligned: as it was */
            m.runtime.pads_channels = 0;
        }
    }
    wl_free(&padded);
    wl_free(&wl);
    /* ResNeXt's 4-channel groups in FP16: padded to 8, a group's product is a sliver of a
     * tensor-core tile; the CUDA cores' kernel is faster and the autotuner keeps it */
    load_ok("resnext101-32x4d", &wl);
    kt_model v = model_ok("v100-sxm2-16gb", PR_MIXED);
    lw_kernel g = kernel_ok(&wl, layer_named(&wl, "layer1_0_conv2"), &b, LW_FORWARD, 2);
    double cuda_s = kt_terms_of(&v, &g).compute_s;
    v.runtime.pads_channels = 1;
    assert_true(kt_terms_of(&v, &g).compute_s == cuda_s && kt_terms_of(&v, &g).padded == 0);
    wl_free(&wl);
    /* SSD300's first convolution, 3 channels, on an A100: padded to 8 in FP16 it computes 8/3
     * of its products, slower than the CUDA cores' FP16 kernel, which stays; padded to 4 in
     * TF32, 4/3 of them on the tensor cores beat the FP32 CUDA cores */
    load_ok("ssd300", &wl);
    for (int q = 0; q < 2; q++) {
        kt_model a = model_ok("a100-80gb", q ? PR_TF32 : PR_MIXED);
        lw_kernel c1 = kernel_ok(&wl, layer_named(&wl, "conv1"), &b, LW_FORWARD, q ? 4 : 2);
        double unpadded_s = kt_kernel_s(&a, &c1);
        a.runtime.pads_channels = 1;
        assert_int_equal(kt_terms_of(&a, &c1).padded, q);
        assert_true(q ? kt_kernel_s(&a, &c1) < unpadded_s : kt_kernel_s(&a, &c1) == unpadded_s);
    }
    wl_free(&wl);
}

/* A kernel's time (launch included) and its compute time under the given mechanisms (the
 * model's mask left set to them). */
static double kernel_with(kt_model *m, const lw_kernel *kn, unsigned mechanisms)
{
    m->params.mechanisms = mechanisms;
    return kt_kernel_s(m, kn);
}

static double compute_with(kt_model *m, const lw_kernel *kn, unsigned mechanisms)
{
    m->params.mechanisms = mechanisms;
    return kt_terms_of(m, kn).compute_s;
}

/* Every grouped convolution of ResNeXt-101 32x4d (32 groups of 4 channels), in the given pass
 * (LW_PASS_COUNT: every pass), takes under mechanism what it takes without: grouped kernels
 * keep the default. */
static void assert_grouped_unchanged(kt_model *m, unsigned mechanism, int pass)
{
    wl_workload wl;
    load_ok("resnext101-32x4d", &wl);
    lw_split b = lw_whole(32);
    int checked = 0;
    for (int i = 0; i < wl.n_layers; i++) {
        if (wl.layers[i].type != WL_CONV || wl.layers[i].groups <= 1)
            continue;
        for (int p = 0; p < LW_PASS_COUNT; p++)
            if (pass == LW_PASS_COUNT || p == pass) {
                lw_kernel kn = kernel_ok(&wl, i, &b, (lw_pass)p, 4);
                assert_true(kernel_with(m, &kn, mechanism) == kernel_with(m, &kn, 0));
                checked++;
            }
    }
    assert_true(checked > 0);
    wl_free(&wl);
}

/* KT_MECH_STRIDED_DGRAD, off by default: an input gradient at stride 2 reduces over the
 * output channels times the largest phase's taps, ceil(R/2)^2 (a 1x1: 1, a 3x3: 4), where the
 * default takes the useful depth (R^2 / 4 of them); the other passes and stride 1 keep theirs. */
static void test_strided_dgrad(void **state)
{
    (void)state;
    wl_workload wl;
    load_ok("resnet50-v1.5", &wl);
    lw_split b = lw_whole(32);
    const char *const layers[] = {"layer2_0_downsample_0", "layer2_0_conv2"};
    const int64_t taps[] = {1, 4};
    const pr_precision precisions[] = {PR_FP32, PR_MIXED};
    for (int q = 0; q < 2; q++)
        for (int l = 0; l < 2; l++) {
            kt_model m = model_ok("v100-sxm2-16gb", precisions[q]);
            assert_int_equal(m.params.mechanisms, 0);
            int i = layer_named(&wl, layers[l]);
            lw_kernel dx = kernel_ok(&wl, i, &b, LW_INPUT_GRAD, 2);
            assert_int_equal(dx.stride, 2);
            assert_int_equal(dx.k * 4, dx.out_channels * dx.window * dx.window); /* useful */
            lw_kernel deep = dx;
            deep.k = dx.out_channels * taps[l];
            double plain_s = kt_terms_of(&m, &dx).compute_s;
            double deep_s = kt_terms_of(&m, &deep).compute_s;
            assert_true(deep_s > plain_s);
            m.params.mechanisms = KT_MECH_STRIDED_DGRAD;
            assert_true(kt_terms_of(&m, &dx).compute_s == deep_s);
            for (int p = 0; p < LW_PASS_COUNT; p += 2) { /* forward, weight gradient */
                lw_kernel kn = kernel_ok(&wl, i, &b, (lw_pass)p, 2);
                double on_s = kt_terms_of(&m, &kn).compute_s;
                m.params.mechanisms = 0;
                assert_true(kt_terms_of(&m, &kn).compute_s == on_s);
                m.params.mechanisms = KT_MECH_STRIDED_DGRAD;
            }
        }
    kt_model m = model_ok("v100-sxm2-16gb", PR_MIXED); /* stride 1: as it was */
    lw_kernel s1 = kernel_ok(&wl, layer_named(&wl, "layer1_0_conv2"), &b, LW_INPUT_GRAD, 2);
    double s1_s = kt_terms_of(&m, &s1).compute_s;
    m.params.mechanisms = KT_MECH_STRIDED_DGRAD;
    assert_true(kt_terms_of(&m, &s1).compute_s == s1_s);
    char err[HS_ERR_LEN] = "";
    unsigned mask = 99;
    assert_int_equal(kt_mechanisms_parse("strided-dgrad", "--m", &mask, err), HS_OK);
    assert_int_equal(mask, KT_MECH_STRIDED_DGRAD);
    assert_int_equal(kt_mechanisms_parse("none", "--m", &mask, err), HS_OK);
    assert_int_equal(mask, 0);
    assert_int_equal(kt_mechanisms_parse("strided-dgrad,dgrad", "--m", &mask, err), HS_EINPUT);
    assert_non_null(strstr(err, "--m: unknown mechanism 'dgrad'"));
    /* "none" only alone; an empty item or a trailing comma is a typo, refused */
    assert_int_equal(kt_mechanisms_parse("none,strided-dgrad", "--m", &mask, err), HS_EINPUT);
    assert_int_equal(kt_mechanisms_parse("strided-dgrad,,winograd-gemm", "--m", &mask, err),
                     HS_EINPUT);
    assert_int_equal(kt_mechanisms_parse("strided-dgrad,", "--m", &mask, err), HS_EINPUT);
    assert_non_null(strstr(err, "trailing comma"));
    wl_free(&wl);
}

/* KT_MECH_WINOGRAD_GEMM, off by default: Winograd's products at the library's GEMM rate, so
 * the pass's implicit-GEMM efficiency (conv_rel) leaves them alone; by default they take it. */
static void test_winograd_gemm(void **state)
{
    (void)state;
    wl_workload wl;
    load_ok("resnet50-v1.5", &wl);
    lw_split b = lw_whole(32);
    int i = layer_named(&wl, "layer1_0_conv2"); /* 3x3, stride 1, 64 channels */
    for (int p = 0; p < LW_PASS_COUNT; p++) {
        kt_model m = model_ok("v100-sxm2-16gb", PR_FP32);
        lw_kernel kn = kernel_ok(&wl, i, &b, (lw_pass)p, 4);
        m.params.conv_rel[p] = 1.0; /* dividing it out changes nothing then */
        kt_terms off = kt_terms_of(&m, &kn);
        assert_int_equal(off.winograd, 1);
        m.params.mechanisms = KT_MECH_WINOGRAD_GEMM;
        assert_true(kt_terms_of(&m, &kn).compute_s == off.compute_s);
        m.params.conv_rel[p] = 0.5;
        kt_terms on = kt_terms_of(&m, &kn);
        assert_int_equal(on.winograd, 1);
        assert_true(rel_close(on.compute_s, off.compute_s, 1e-12));
        m.params.mechanisms = 0; /* by default half the rate: slower products */
        assert_true(kt_terms_of(&m, &kn).compute_s > 1.2 * off.compute_s);
    }
    char err[HS_ERR_LEN] = "";
    unsigned mask = 0;
    assert_int_equal(kt_mechanisms_parse("winograd-gemm,strided-dgrad", "--m", &mask, err),
                     HS_OK);
    assert_int_equal(mask, KT_MECH_WINOGRAD_GEMM | KT_MECH_STRIDED_DGRAD);
    wl_free(&wl);
}

/* A streaming kernel's time (kt_kernel_s) of n FLOPs moving `tensors` tensors of n elements. */
static double stream_time(const kt_model *m, double n, double tensors, double e)
{
    lw_kernel kn = {.kind = LW_STREAM, .flops = n, .bytes = tensors * n * e, .calls = 1,
                    .pass = LW_INPUT_GRAD};
    return kt_kernel_s(m, &kn);
}

/* A runtime whose backward of a broadcast mul and of a global average pool is autograd's
 * (autograd_broadcast): the squeeze-and-excitation mul's input gradient is four kernels, dy b
 * (2 tensors), dy a (3), its sum (1) and the fork's two gradients added (3: the block's tensor
 * feeds the pool too); its pool's is one, dx written (n_in + n elements); forward unchanged. A
 * max pool ending at 1x1 (stride 2) keeps its kernel, and without the flag every kernel is as
 * before. */
static void test_autograd_broadcast(void **state)
{
    (void)state;
    wl_workload wl;
    load_ok("se-resnext101-32x4d", &wl);
    int mul = layer_named(&wl, "mul"), pool = layer_named(&wl, "layer1_0_se_avgpool");
    kt_model m = model_ok("a100-80gb", PR_MIXED);
    lw_split b = lw_whole(32);
    char err[HS_ERR_LEN] = "";
    double e = pr_activation_bytes(PR_MIXED), off[2][LW_PASS_COUNT], on[2][LW_PASS_COUNT];
    int layers[2] = {mul, pool};
    for (int f = 0; f < 2; f++) {
        m.runtime.autograd_broadcast = f;
        for (int i = 0; i < 2; i++)
            for (int p = 0; p < LW_PASS_COUNT; p++)
                assert_int_equal(kt_pass_s(&m, &wl, layers[i], &b, (lw_pass)p,
                                           f ? &on[i][p] : &off[i][p], err), HS_OK);
    }
    double n = 32.0 * 256 * 56 * 56, n_out = 32.0 * 256;
    double want = stream_time(&m, n, 2, e) + stream_time(&m, n, 3, e) +
                  stream_time(&m, n, 1, e) + stream_time(&m, n, 3, e);
    assert_true(rel_close(on[0][LW_INPUT_GRAD], want, 1e-12));
    lw_kernel one = kernel_ok(&wl, mul, &b, LW_INPUT_GRAD, e);
    assert_true(rel_close(off[0][LW_INPUT_GRAD], kt_kernel_s(&m, &one), 1e-12));
    assert_true(on[0][LW_INPUT_GRAD] > 2 * off[0][LW_INPUT_GRAD]);
    lw_kernel mean = {.kind = LW_STREAM, .flops = n, .bytes = (n + n_out) * e, .calls = 1};
    assert_true(rel_close(on[1][LW_INPUT_GRAD], kt_kernel_s(&m, &mean), 1e-12));
    assert_true(on[1][LW_INPUT_GRAD] < off[1][LW_INPUT_GRAD]); /* max pooling's reads gone */
    for (int i = 0; i < 2; i++)
        assert_true(on[i][LW_FORWARD] == off[i][LW_FORWARD]);
    /* the mul's first input read by the mul alone (the pool re-pointed at the layer before
     * it): no fork, so no sum of two gradients: three kernels */
    int x = wl.layers[mul].n_inputs ? wl.layers[mul].inputs[0] : mul - 1;
    assert_true(x > 0 && wl.layers[pool].n_inputs <= 1);
    wl.layers[pool].n_inputs = 1;
    wl.layers[pool].inputs[0] = x - 1;
    m.runtime.autograd_broadcast = 1;
    double three = 0;
    assert_int_equal(kt_pass_s(&m, &wl, mul, &b, LW_INPUT_GRAD, &three, err), HS_OK);
    want = stream_time(&m, n, 2, e) + stream_time(&m, n, 3, e) + stream_time(&m, n, 1, e);
    assert_true(rel_close(three, want, 1e-12));
    wl_free(&wl);
    load_ok("vgg16-cifar10", &wl);
    int last = 0; /* MPOOL5, 512x2x2 to 512x1x1 with stride 2 */
    while (last < wl.n_layers && !(wl.layers[last].type == WL_POOL && wl.layers[last].stride == 2 &&
                                    wl.layers[last].y.spatial[0] == 1))
        last++;
    assert_true(last < wl.n_layers && wl.layers[last].x.spatial[0] == 2);
    m.runtime.autograd_broadcast = 1;
    assert_int_equal(kt_pass_s(&m, &wl, last, &b, LW_INPUT_GRAD, on[0], err), HS_OK);
    m.runtime.autograd_broadcast = 0;
    assert_int_equal(kt_pass_s(&m, &wl, last, &b, LW_INPUT_GRAD, off[0], err), HS_OK);
    assert_true(on[0][0] > 0 && on[0][0] == off[0][0]);
    wl_free(&wl);
}

/* KT_MECH_CHANNEL_K_TILE, off by default: a tensor-core forward reduces over its input channels,
 * an input gradient over its output channels, at each filter tap in whole K tiles of 64 bytes
 * (32 FP16 channels, 16 TF32 ones). UNet_Industrial's up3_upconv (16 to 16 channels, 2x2) and
 * up3_conv2 (32 to 16, 3x3): 16 FP16 channels reduce as 32, twice the depth; 32 and TF32's 16
 * as they are; the weight gradient (over N x P x Q) and the CUDA cores' kernels as they were. */
static void test_channel_k_tile(void **state)
{
    (void)state;
    wl_workload wl;
    load_ok("unet-industrial", &wl);
    lw_split b = lw_whole(16);
    int up = layer_named(&wl, "up3_upconv"), conv = layer_named(&wl, "up3_conv2");
    kt_model m = model_ok("v100-sxm2-16gb", PR_MIXED);
    struct {
        int layer;
        lw_pass pass;
        int64_t depth; /* the tiles' depth over the useful one */
    } cases[] = {{up, LW_FORWARD, 2}, {up, LW_INPUT_GRAD, 2}, {up, LW_WEIGHT_GRAD, 1},
                 {conv, LW_FORWARD, 1}, {conv, LW_INPUT_GRAD, 2}, {conv, LW_WEIGHT_GRAD, 1}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        lw_kernel kn = kernel_ok(&wl, cases[c].layer, &b, cases[c].pass, 2);
        lw_kernel deep = kn;
        deep.k = kn.k * cases[c].depth;
        m.params.mechanisms = 0;
        double off_s = kt_terms_of(&m, &kn).compute_s, deep_s = kt_terms_of(&m, &deep).compute_s;
        m.params.mechanisms = KT_MECH_CHANNEL_K_TILE;
        assert_true(kt_terms_of(&m, &kn).compute_s == deep_s);
        assert_true(cases[c].depth == 1 ? deep_s == off_s : deep_s > 1.5 * off_s);
    }
    const char *const devices[] = {"v100-sxm2-16gb", "a100-40gb"}; /* FP32; TF32's 16 */
    const pr_precision precisions[] = {PR_FP32, PR_TF32};
    for (int q = 0; q < 2; q++)
        for (int p = 0; p < LW_PASS_COUNT; p++) {
            kt_model o = model_ok(devices[q], precisions[q]);
            lw_kernel kn = kernel_ok(&wl, up, &b, (lw_pass)p, 4);
            double off_s = kt_terms_of(&o, &kn).compute_s;
            o.params.mechanisms = KT_MECH_CHANNEL_K_TILE;
            assert_true(kt_terms_of(&o, &kn).compute_s == off_s);
        }
    char err[HS_ERR_LEN] = "";
    unsigned mask = 0;
    assert_int_equal(kt_mechanisms_parse("channel-k-tile,strided-dgrad", "--m", &mask, err),
                     HS_OK);
    assert_int_equal(mask, KT_MECH_CHANNEL_K_TILE | KT_MECH_STRIDED_DGRAD);
    assert_int_equal(kt_mechanisms_parse("channel-tile", "--m", &mask, err), HS_EINPUT);
    assert_non_null(strstr(err, "channel-k-tile"));
    wl_free(&wl);
}

/* KT_MECH_CUDNN_TILES, off by default: a dense convolution's products on the CUDA cores run on
 * cuDNN's 128 x {128, 64, 32} tiles, a subset of cuBLAS's and CUTLASS's, so no kernel of
 * ResNet-50 v1.5 in FP32 gets faster. Its first 1x1 convolution's weight gradient (64 x 64
 * outputs, K = 32 x 56 x 56) fills the V100's 80 SMs by split-K either way: off on 64 x 32
 * tiles (2 tiles, 40 slices of 2509), on 128 x 32 ones (the same 2 tiles, half their rows
 * idle): twice the time. The tensor cores' kernels (all but the first convolution's 3
 * channels in mixed precision) and grouped convolutions as they were. */
static void test_cudnn_tiles(void **state)
{
    (void)state;
    wl_workload wl;
    load_ok("resnet50-v1.5", &wl);
    lw_split b = lw_whole(32);
    kt_model m = model_ok("v100-sxm2-16gb", PR_FP32), h = model_ok("v100-sxm2-16gb", PR_MIXED);
    for (int i = 0; i < wl.n_layers; i++)
        for (int p = 0; p < LW_PASS_COUNT && wl.layers[i].type == WL_CONV; p++) {
            lw_kernel kn = kernel_ok(&wl, i, &b, (lw_pass)p, 4);
            lw_kernel kh = kernel_ok(&wl, i, &b, (lw_pass)p, 2);
            if (kn.kind == LW_NONE)
                continue;
            m.params.mechanisms = h.params.mechanisms = 0;
            double off_s = kt_kernel_s(&m, &kn), tensor_s = kt_kernel_s(&h, &kh);
            m.params.mechanisms = h.params.mechanisms = KT_MECH_CUDNN_TILES;
            assert_true(kt_kernel_s(&m, &kn) >= off_s);
            if (kh.in_channels % 8 == 0) /* the first's 3 channels run on the CUDA cores */
                assert_true(kt_kernel_s(&h, &kh) == tensor_s);
        }
    lw_kernel dw = kernel_ok(&wl, layer_named(&wl, "layer1_0_conv1"), &b, LW_WEIGHT_GRAD, 4);
    assert_true(dw.m == 64 && dw.n == 64 && dw.k == 32 * 56 * 56);
    double off_s = compute_with(&m, &dw, 0);
    assert_true(rel_close(compute_with(&m, &dw, KT_MECH_CUDNN_TILES), 2 * off_s, 1e-12));
    double rate = m.params.gemm_eff * m.params.conv_rel[LW_WEIGHT_GRAD] *
                  dv_sustained_flops(m.device, m.device->fp32_flops);
    assert_true(rel_close(off_s, 2.0 * 64 * 32 * 2509 / (rate / 80), 1e-12));
    assert_grouped_unchanged(&m, KT_MECH_CUDNN_TILES, LW_PASS_COUNT);
    char err[HS_ERR_LEN] = "";
    unsigned mask = 0;
    assert_int_equal(kt_mechanisms_parse("cudnn-tiles,channel-k-tile", "--m", &mask, err), HS_OK);
    assert_int_equal(mask, KT_MECH_CUDNN_TILES | KT_MECH_CHANNEL_K_TILE);
    wl_free(&wl);
}

/* KT_MECH_WGRAD_CUDNN, off by default: a dense weight gradient on the CUDA cores as cuDNN's
 * backward-filter kernels run it, cudnn-tiles' tiles and winograd-gemm's rate for that pass
 * alone: in FP32 ResNet-50 v1.5's every weight gradient takes what the two mechanisms together
 * give it, its forwards and input gradients what they take off. The first 1x1 weight gradient
 * (64 x 64 outputs) half-fills its 128 x 32 tiles: twice the time (test_cudnn_tiles counts
 * it). Tensor-core and grouped weight gradients as they were. */
static void test_wgrad_cudnn(void **state)
{
    (void)state;
    wl_workload wl;
    load_ok("resnet50-v1.5", &wl);
    lw_split b = lw_whole(32);
    kt_model m = model_ok("v100-sxm2-16gb", PR_FP32), h = model_ok("v100-sxm2-16gb", PR_MIXED);
    int winograd = 0;
    for (int i = 0; i < wl.n_layers; i++)
        for (int p = 0; p < LW_PASS_COUNT && wl.layers[i].type == WL_CONV; p++) {
            lw_kernel kn = kernel_ok(&wl, i, &b, (lw_pass)p, 4);
            lw_kernel kh = kernel_ok(&wl, i, &b, (lw_pass)p, 2);
            if (kn.kind == LW_NONE)
                continue;
            m.params.mechanisms = h.params.mechanisms = 0;
            double off_s = kt_kernel_s(&m, &kn), tensor_s = kt_kernel_s(&h, &kh);
            m.params.mechanisms = KT_MECH_CUDNN_TILES | KT_MECH_WINOGRAD_GEMM;
            double both_s = kt_kernel_s(&m, &kn);
            m.params.mechanisms = h.params.mechanisms = KT_MECH_WGRAD_CUDNN;
            kt_terms t = kt_terms_of(&m, &kn);
            assert_true(kt_kernel_s(&m, &kn) == (p == LW_WEIGHT_GRAD ? both_s : off_s));
            winograd += p == LW_WEIGHT_GRAD && t.winograd;
            if (kh.in_channels % 8 == 0) /* the first's 3 channels run on the CUDA cores */
                assert_true(kt_kernel_s(&h, &kh) == tensor_s);
        }
    assert_true(winograd > 0); /* the 3x3 weight gradients at stride 1 */
    lw_kernel dw = kernel_ok(&wl, layer_named(&wl, "layer1_0_conv1"), &b, LW_WEIGHT_GRAD, 4);
    double off_s = compute_with(&m, &dw, 0);
    assert_true(rel_close(compute_with(&m, &dw, KT_MECH_WGRAD_CUDNN), 2 * off_s, 1e-12));
    assert_grouped_unchanged(&m, KT_MECH_WGRAD_CUDNN, LW_WEIGHT_GRAD);
    char err[HS_ERR_LEN] = "";
    unsigned mask = 0;
    assert_int_equal(kt_mechanisms_parse("wgrad-cudnn,cudnn-tiles", "--m", &mask, err), HS_OK);
    assert_int_equal(mask, KT_MECH_WGRAD_CUDNN | KT_MECH_CUDNN_TILES);
    assert_int_equal(kt_mechanisms_parse("wgrad", "--m", &mask, err), HS_EINPUT);
    assert_non_null(strstr(err, "wgrad-cudnn"));
    wl_free(&wl);
}

/* KT_MECH_NO_SPLIT_K, off by default: a convolution's forward and input gradient run their
 * implicit GEMM a thread block a tile over the whole depth. ResNet-50 v1.5's layer4_2_conv1
 * (2,048 to 512 channels, 1x1, 7 x 7) at one sample on a V100 in mixed precision: 49 x 512 by
 * 2,048 deep on the tensor cores' 128 x 64 tiles, 8 tiles: by default split-K hands each tile
 * to 8 blocks of 256 (64 blocks, 80 SMs), with the mechanism each tile runs all 2,048 alone,
 * 8 times as long. The weight gradient (cuDNN's splitK kernels) and a fully connected layer
 * (cuBLAS) keep their split. */
static void test_no_split_k(void **state)
{
    (void)state;
    wl_workload wl;
    load_ok("resnet50-v1.5", &wl);
    lw_split one = lw_whole(1);
    int conv = layer_named(&wl, "layer4_2_conv1"), fc = wl.n_layers - 1;
    kt_model h = model_ok("v100-sxm2-16gb", PR_MIXED);
    lw_kernel kn = kernel_ok(&wl, conv, &one, LW_FORWARD, 2);
    assert_true(kn.m == 49 && kn.n == 512 && kn.k == 2048);
    double off_s = kt_terms_of(&h, &kn).compute_s;
    h.params.mechanisms = KT_MECH_NO_SPLIT_K;
    double on_s = kt_terms_of(&h, &kn).compute_s;
    assert_true(rel_close(on_s, 8 * off_s, 1e-12));
    double rate = h.params.gemm_eff * h.params.conv_rel[LW_FORWARD] *
                  pr_matmul_flops(h.device, PR_MIXED);
    assert_true(rel_close(on_s, 2.0 * 128 * 64 * 2048 / (rate / 80), 1e-12));
    lw_kernel others[] = {kernel_ok(&wl, conv, &one, LW_WEIGHT_GRAD, 2),
                          kernel_ok(&wl, fc, &one, LW_FORWARD, 2)};
    for (int i = 0; i < 2; i++)
        assert_true(compute_with(&h, &others[i], KT_MECH_NO_SPLIT_K) ==
                    compute_with(&h, &others[i], 0));
    char err[HS_ERR_LEN] = "";
    unsigned mask = 0;
    assert_int_equal(kt_mechanisms_parse("no-split-k,strided-reads", "--m", &mask, err), HS_OK);
    assert_int_equal(mask, KT_MECH_NO_SPLIT_K | KT_MECH_STRIDED_READS);
    wl_free(&wl);
}

/* KT_MECH_STRIDED_READS, off by default: a forward whose window is narrower than its stride
 * reads only the input rows it touches, and on NHWC tensors (the tensor cores') only the
 * positions. ResNet-50 v1.5's layer2_0_downsample_0 (256 to 512 channels, 1x1, stride 2, 56
 * to 28): the input read half (FP32, NCHW rows) or a quarter (mixed, 512-byte positions),
 * the weights and the output whole; its input gradient (dx written whole) and weight gradient
 * as they were, and so is a 3x3 window at stride 2 (layer2_0_conv2: every row touched). */
static void test_strided_reads(void **state)
{
    (void)state;
    wl_workload wl;
    load_ok("resnet50-v1.5", &wl);
    lw_split b = lw_whole(8);
    int down = layer_named(&wl, "layer2_0_downsample_0");
    int conv2 = layer_named(&wl, "layer2_0_conv2");
    const pr_precision precisions[] = {PR_FP32, PR_MIXED};
    for (int q = 0; q < 2; q++) {
        kt_model m = model_ok("v100-sxm2-16gb", precisions[q]);
        double e = q ? 2 : 4, share = q ? 0.25 : 0.5;
        double bw = m.device->stream_bw_frac * m.device->memory_bw_Bps;
        double n_in = 8.0 * 256 * 56 * 56, w = 256.0 * 512, n_out = 8.0 * 512 * 28 * 28;
        lw_kernel kn = kernel_ok(&wl, down, &b, LW_FORWARD, e);
        assert_true(rel_close(kn.bytes, e * (n_in + w + n_out), 1e-12));
        assert_true(rel_close(kt_terms_of(&m, &kn).memory_s, kn.bytes / bw, 1e-12));
        m.params.mechanisms = KT_MECH_STRIDED_READS;
        assert_true(rel_close(kt_terms_of(&m, &kn).memory_s,
                              e * (share * n_in + w + n_out) / bw, 1e-12));
        lw_kernel same[] = {kernel_ok(&wl, down, &b, LW_INPUT_GRAD, e),
                            kernel_ok(&wl, down, &b, LW_WEIGHT_GRAD, e),
                            kernel_ok(&wl, conv2, &b, LW_FORWARD, e)};
        for (int i = 0; i < 3; i++)
            assert_true(rel_close(kt_terms_of(&m, &same[i]).memory_s, same[i].bytes / bw,
                                  1e-12));
    }
    wl_free(&wl);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_norm_blocks),        cmocka_unit_test(test_nchw_layout),
        cmocka_unit_test(test_channel_padding),    cmocka_unit_test(test_strided_dgrad),
        cmocka_unit_test(test_winograd_gemm),      cmocka_unit_test(test_autograd_broadcast),
        cmocka_unit_test(test_channel_k_tile),     cmocka_unit_test(test_cudnn_tiles),
        cmocka_unit_test(test_wgrad_cudnn),        cmocka_unit_test(test_no_split_k),
        cmocka_unit_test(test_strided_reads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
