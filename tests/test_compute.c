/* test_compute.c: the compute model against hand counts (a layer's work: test_compute_work.c):
 * the device table, precision bytes, the kernel-time model's tiles, waves and roofline, the
 * library's choices (Winograd, tensor-core alignment, TF32), the fused batch normalisation,
 * and how --compute model anchors on a measurement (the network's total, or each layer's).
 * The opt-in mechanisms and the runtime keys that reprice kernels: test_compute_refine.c;
 * grouped convolutions: test_compute_grouped.c. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "compute.h"
#include "compute_helpers.h"
#include "strategy.h"
#include "workload_helpers.h"

static lw_kernel product(int64_t m, int64_t n, int64_t k)
{
    lw_kernel kn = {.kind = LW_GEMM, .m = m, .n = n, .k = k, .groups = 1, .lib = LW_LIB_BLAS};
    kn.flops = 2.0 * m * n * k;
    return kn;
}

/* Tiles and waves: a big product runs at the efficiency, a tiny one costs a full wave of its
 * smallest tile, one tile more than the SMs costs another wave; memory-bound kernels stream. */
static void test_kernel_time(void **state)
{
    (void)state;
    kt_model m = model_ok("v100-sxm2-16gb", PR_FP32);
    double rate = m.params.gemm_eff * 15.7e12; /* FLOP/s of a full wave */
    lw_kernel big = product(8192, 8192, 8192);
    kt_terms t = kt_terms_of(&m, &big);
    /* 64x32 tiles: 32768 of them in 410 waves of 80 = 32800 tiles' time (0.1% padding) */
    assert_true(rel_close(t.compute_s, big.flops / rate * 32800.0 / 32768, 1e-12));
    assert_true(t.call_s == m.params.gemm_call_s && t.launch_s == 5e-6);
    lw_kernel tiny = product(64, 64, 64); /* four 32x32 tiles; K too short to split */
    t = kt_terms_of(&m, &tiny);
    assert_true(rel_close(t.compute_s, tiny.flops / 4 * 80 / rate, 1e-12));
    /* 320 tiles of 32x32 are 4 waves; 324 are 5: 1.25x the time for 1.0125x the FLOPs */
    lw_kernel full = product(64 * 80, 64, 256), over = product(64 * 81, 64, 256);
    assert_true(rel_close(kt_terms_of(&m, &over).compute_s,
                          1.25 * kt_terms_of(&m, &full).compute_s, 1e-12));
    /* split-K fills the GPU when the tiles are few: 4 tiles of 32x32, K = 80 x 256 */
    lw_kernel deep = product(64, 64, 80 * 256);
    assert_true(rel_close(kt_terms_of(&m, &deep).compute_s, deep.flops / rate, 1e-12));
    /* a streaming kernel is its bytes at the achieved bandwidth, plus the launch */
    lw_kernel stream = {.kind = LW_STREAM, .flops = 1e6, .bytes = 1e9};
    double mem_s = 1e9 / (0.83 * 900e9);
    assert_true(rel_close(kt_kernel_s(&m, &stream), 5e-6 + mem_s, 1e-12));
    lw_kernel none = {.kind = LW_NONE};
    assert_true(kt_kernel_s(&m, &none) == 0);
    /* a runtime's host time bounds a short kernel; its library scales the products */
    m.runtime.host_call_s = 1e-3;
    assert_true(kt_kernel_s(&m, &tiny) == 1e-3);
    m.runtime = kt_runtime_neutral();
    double before = kt_terms_of(&m, &big).compute_s;
    m.runtime.library_rel = 0.5;
    assert_true(rel_close(kt_terms_of(&m, &big).compute_s, 2 * before, 1e-12));
    /* a runtime's depthwise convolutions compute at their fraction of the FP32 peak, their
     * bytes at the roofline; its other element-wise kernels stream at their own fraction */
    m.runtime = kt_runtime_neutral();
    m.runtime.depthwise_rel = 0.25;
    m.runtime.stream_rel = 0.5;
    lw_kernel dw = stream;
    dw.depthwise = 1;
    double vec_s = kt_terms_of(&m, &stream).compute_s;
    assert_true(rel_close(kt_terms_of(&m, &dw).compute_s, 4 * vec_s, 1e-12));
    assert_true(rel_close(kt_terms_of(&m, &dw).memory_s, mem_s, 1e-12));
    assert_true(rel_close(kt_terms_of(&m, &stream).memory_s, 2 * mem_s, 1e-12));
    /* bound by its window's bytes, it takes the same time in FP32 and half of it on 2-byte
     * elements; bound by arithmetic, the same in both */
    double dw_s = kt_terms_of(&m, &dw).compute_s;
    m.runtime.depthwise_by_bytes = 1;
    assert_true(rel_close(kt_terms_of(&m, &dw).compute_s, dw_s, 1e-12));
    kt_model h = model_ok("v100-sxm2-16gb", PR_MIXED);
    h.runtime = m.runtime;
    assert_true(rel_close(kt_terms_of(&h, &dw).compute_s, dw_s / 2, 1e-12));
    h.runtime.depthwise_by_bytes = 0;
    assert_true(rel_close(kt_terms_of(&h, &dw).compute_s, dw_s, 1e-12));
}

/* The library's choices: Winograd for a 3x3 convolution at stride 1 on the CUDA cores, never
 * at stride 2 nor on tensor cores; tensor cores only for channels in multiples of 8 (4 in
 * TF32); generations without kernel measurements take Volta's efficiencies, TF32 its own. */
static void test_library_choices(void **state)
{
    (void)state;
    wl_workload wl;
    load_ok("resnet50", &wl);
    int c3 = layer_named(&wl, "CONV_2a2"); /* 3x3, 64 -> 64, stride 1 */
    lw_split b = lw_whole(64);
    lw_kernel k3 = kernel_ok(&wl, c3, &b, LW_FORWARD, 4);
    assert_int_equal(k3.window, 3);
    assert_int_equal(k3.stride, 1);
    assert_int_equal(k3.lib, LW_LIB_CONV);
    kt_model f32 = model_ok("v100-sxm2-16gb", PR_FP32), mix = model_ok("v100-sxm2-16gb", PR_MIXED);
    kt_terms w = kt_terms_of(&f32, &k3);
    assert_true(w.winograd);
    assert_true(w.compute_s < k3.flops / (15.7e12 * f32.params.gemm_eff)); /* fewer products */
    lw_kernel k16 = kernel_ok(&wl, c3, &b, LW_FORWARD, 2);
    assert_false(kt_terms_of(&mix, &k16).winograd);
    k3.stride = 2;
    assert_false(kt_terms_of(&f32, &k3).winograd);
    /* three input channels (the first convolution) miss the tensor cores in FP16 */
    lw_kernel first = kernel_ok(&wl, 0, &b, LW_FORWARD, 2);
    assert_int_equal(first.in_channels, 3);
    double on_cuda = kt_terms_of(&mix, &first).compute_s;
    first.in_channels = 8;
    assert_true(kt_terms_of(&mix, &first).compute_s < on_cuda / 2);
    /* TF32: tensor cores on an A100, refused on a V100; FP32 storage */
    kt_model tf = model_ok("a100-40gb", PR_TF32);
    assert_int_equal(kt_math_of(tf.device, PR_TF32), KT_TENSOR_CORES);
    /* Ampere takes Volta's in FP16; TF32 its own, CUDA 11.2's GEMMs: 102.9 of 156 TFLOPS */
    assert_true(model_ok("a100-40gb", PR_MIXED).params.gemm_eff == mix.params.gemm_eff);
    assert_true(fabs(tf.params.gemm_eff - 0.66) < 1e-12);
    assert_true(tf.params.gemm_eff < mix.params.gemm_eff);
    char err[HS_ERR_LEN] = "";
    assert_int_equal(kt_model_init(&tf, "v100-sxm2-16gb", PR_TF32, err), HS_EINPUT);
    assert_non_null(strstr(err, "TF32"));
    assert_true(pr_activation_bytes(PR_TF32) == 4 && pr_master_bytes(PR_TF32) == 0);
    assert_int_equal(kt_math_of(dv_find("p100-pcie"), PR_MIXED), KT_CUDA_CORES);
    wl_free(&wl);
}

/* Precision: bytes per element and parameter, rates, and what a device cannot do. */
static void test_precision(void **state)
{
    (void)state;
    char err[HS_ERR_LEN] = "";
    pr_precision p;
    assert_int_equal(pr_parse("mixed", &p, err), HS_OK);
    assert_int_equal(p, PR_MIXED);
    assert_int_equal(pr_parse("fp16", &p, err), HS_EINPUT);
    assert_non_null(strstr(err, "--precision"));
    assert_true(pr_activation_bytes(PR_FP32) == 4 && pr_activation_bytes(PR_MIXED) == 2);
    assert_true(pr_message_bytes(PR_BF16) == 2 && pr_gradient_message_bytes(PR_MIXED) == 2);
    assert_true(pr_parameter_bytes(PR_FP32, 0) == 8);   /* weights + gradients */
    assert_true(pr_parameter_bytes(PR_MIXED, 2) == 16); /* ZeRO's 2 + 2 + 12 with Adam */
    assert_true(pr_master_bytes(PR_MIXED) == 4 && pr_master_bytes(PR_FP32) == 0);
    const dv_device *v100 = dv_find("V100-16GB"), *a100 = dv_find("a100-40gb");
    assert_true(pr_matmul_flops(v100, PR_MIXED) == 125e12);
    assert_true(pr_matmul_flops(a100, PR_BF16) == 312e12);
    /* no tensor cores: FP16 inputs in FP32 arithmetic (DeepBench's P100 FP16 sheet) */
    assert_true(pr_matmul_flops(dv_find("p100-sxm2"), PR_MIXED) == 10.6e12);
    assert_true(pr_matmul_flops(a100, PR_TF32) == 156e12);
    assert_int_equal(pr_parse("tf32", &p, err), HS_OK);
    assert_int_equal(p, PR_TF32);
    kt_model m;
    assert_int_equal(kt_model_init(&m, "v100-sxm2-16gb", PR_BF16, err), HS_EINPUT);
    assert_non_null(strstr(err, "--precision bf16"));
    assert_int_equal(kt_model_init(&m, "rtx9090", PR_FP32, err), HS_EINPUT);
    assert_non_null(strstr(err, "--gpu"));
    assert_non_null(strstr(err, "h100-sxm5"));
    /* mixed precision halves a ReLU's bytes, so its time nearly halves */
    wl_workload wl;
    load_ok("resnet50", &wl);
    lw_split s = lw_whole(64);
    double t32, t16;
    kt_model f32 = model_ok("v100-sxm2-16gb", PR_FP32), mix = model_ok("v100-sxm2-16gb", PR_MIXED);
    assert_int_equal(kt_pass_s(&f32, &wl, 2, &s, LW_FORWARD, &t32, err), HS_OK);
    assert_int_equal(kt_pass_s(&mix, &wl, 2, &s, LW_FORWARD, &t16, err), HS_OK);
    assert_true(rel_close(t16 - 5e-6, (t32 - 5e-6) / 2, 1e-12));
    wl_free(&wl);
}

static void test_devices(void **state)
{
    (void)state;
    assert_true(dv_find("v100-sxm2-16gb") == dv_find("V100-16GB"));
    assert_true(dv_find("H100-SXM5") == dv_find("H100-80GB"));
    assert_null(dv_find("v100"));
    assert_null(dv_find(NULL));
    for (int i = 0; i < dv_count(); i++) {
        const dv_device *d = dv_at(i);
        /* FP16 on the CUDA cores at least FP32's rate, but on the chips with few FP16 units
         * (GP102, a 64th) or none (GM200) */
        assert_true(d->sms > 0 && d->fp32_flops > 0);
        if (d->arch == DV_MAXWELL)
            assert_true(d->fp16_flops == 0);
        else if (strncmp(d->description, "NVIDIA GeForce GTX 1080", 23) == 0 ||
                 strncmp(d->description, "NVIDIA TITAN X", 14) == 0)
            assert_true(rel_close(d->fp16_flops, d->fp32_flops / 64, 1e-12));
        else
            assert_true(d->fp16_flops >= d->fp32_flops);
        assert_true(d->memory_bytes > 0 && d->memory_bw_Bps > 0 && d->launch_s > 0);
        assert_true(d->fp16_tensor_flops == 0 || d->fp16_tensor_flops > d->fp16_flops);
        assert_true(dv_find(d->name) == d && dv_find(d->model) == d);
        assert_true(d->sustained_frac > 0 && d->sustained_frac <= 1);
    }
    assert_null(dv_at(dv_count()));
    char names[256];
    dv_names(names, sizeof names);
    assert_non_null(strstr(names, "a100-80gb"));
    assert_non_null(strstr(names, "v100s-pcie-32gb"));
    /* the listing holds every row: the last one's name ends it (not cut at the buffer) */
    const char *last = dv_at(dv_count() - 1)->name;
    assert_string_equal(names + strlen(names) - strlen(last), last);
}

/* DeepBench's older GPUs (device.c; platforms/README.md, "GPU devices"): each row from its spec
 * page's primary figures, computed here independently: FP32 = CUDA cores x 2 x boost clock,
 * SMs = cores / 128 (the GP102 and GM200 SM), bandwidth = bus bits / 8 x data rate (the pages
 * round it; 0.3% allowed, a wrong clock or bus is off by more). */
static void test_older_devices(void **state)
{
    (void)state;
    const struct {
        const char *name;
        dv_arch arch;
        int cores;
        double boost_mhz, bus_bits, gbps, memory_gb;
    } want[] = {{"gtx1080ti", DV_PASCAL, 3584, 1582, 352, 11.0, 11},
                {"TitanXPascal-12GB", DV_PASCAL, 3584, 1531, 384, 10.0, 12},
                {"titan-xp", DV_PASCAL, 3840, 1582, 384, 11.41, 12},
                {"titan-x-maxwell", DV_MAXWELL, 3072, 1075, 384, 7.01, 12},
                {"M40-12GB", DV_MAXWELL, 3072, 1114, 384, 6.0, 12}};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        const dv_device *d = dv_find(want[i].name);
        assert_non_null(d);
        assert_int_equal(d->arch, want[i].arch);
        assert_int_equal(d->sms, want[i].cores / 128);
        assert_true(rel_close(d->fp32_flops, want[i].cores * 2.0 * want[i].boost_mhz * 1e6, 3e-3));
        assert_true(rel_close(d->memory_bw_Bps, want[i].bus_bits / 8 * want[i].gbps * 1e9, 3e-3));
        assert_true(rel_close(d->memory_bytes, want[i].memory_gb * 1e9, 1e-12));
        assert_true(d->fp16_tensor_flops == 0 && d->tf32_tensor_flops == 0 &&
                    d->bf16_tensor_flops == 0 && d->sustained_frac == 1);
    }
    /* Maxwell takes Pascal's fitted efficiencies (kernel_time.c): a product of one full wave
     * of 256x128 tiles (one a SM) runs at the P100's gemm_eff of the board's own peak, the
     * M40's 24 SMs and the 1080 Ti's 28 alike; no tensor cores, and mixed precision multiplies
     * at the FP32 rate (FP16 storage), as on the P100 */
    kt_model m40 = model_ok("m40", PR_FP32), p100 = model_ok("p100-pcie", PR_FP32);
    kt_model ti = model_ok("gtx1080ti", PR_FP32);
    assert_true(m40.params.gemm_eff == p100.params.gemm_eff);
    assert_true(ti.params.gemm_eff == p100.params.gemm_eff);
    assert_string_equal(dv_arch_name(DV_MAXWELL), "maxwell");
    lw_kernel wave24 = product(256 * 24, 128, 4096), wave28 = product(256 * 28, 128, 4096);
    assert_true(rel_close(kt_terms_of(&m40, &wave24).compute_s,
                          wave24.flops / (p100.params.gemm_eff * 6.84e12), 1e-12));
    assert_true(rel_close(kt_terms_of(&ti, &wave28).compute_s,
                          wave28.flops / (p100.params.gemm_eff * 11.34e12), 1e-12));
    kt_model mixed = model_ok("titan-x-maxwell", PR_MIXED);
    assert_int_equal(kt_math_of(mixed.device, PR_MIXED), KT_CUDA_CORES);
    assert_true(pr_matmul_flops(mixed.device, PR_MIXED) == 6.60e12);
    char err[HS_ERR_LEN];
    assert_int_equal(kt_model_init(&m40, "m40", PR_TF32, err), HS_EINPUT);
}

/* The PCIe boards of MLPerf's rows: their datasheets' bandwidths and memories, and the
 * generation whose efficiencies the kernel model applies. */
static void test_pcie_devices(void **state)
{
    (void)state;
    const struct {
        const char *name;
        dv_arch arch;
        double fp32_tf, fp16_tensor_tf, memory_gb, bw_gbps;
    } want[] = {{"A100-PCIe-40GB", DV_AMPERE, 19.5, 312, 40, 1555},
                {"a100-pcie-80gb", DV_AMPERE, 19.5, 312, 80, 1935},
                {"V100S-PCIe-32GB", DV_VOLTA, 16.4, 130, 32, 1134}};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        const dv_device *d = dv_find(want[i].name);
        assert_non_null(d);
        assert_int_equal(d->arch, want[i].arch);
        assert_true(rel_close(d->fp32_flops, want[i].fp32_tf * 1e12, 1e-12));
        assert_true(rel_close(d->fp16_tensor_flops, want[i].fp16_tensor_tf * 1e12, 1e-12));
        assert_true(rel_close(d->memory_bytes, want[i].memory_gb * 1e9, 1e-12));
        assert_true(rel_close(d->memory_bw_Bps, want[i].bw_gbps * 1e9, 1e-12));
    }
    assert_true(dv_find("a100-pcie-40gb")->tf32_tensor_flops == 156e12);
    assert_true(dv_find("v100s-pcie-32gb")->tf32_tensor_flops == 0); /* Volta: no TF32 */
}

/* The 250 W A100 PCIe sustains 0.90 of the SXM4's peaks (NVIDIA's launch specification):
 * its arithmetic takes 1/0.9 the time, its memory traffic the same (the HBM's clock is not the
 * SMs'); a board without a source keeps its peaks. Measured times of one do not stand for the
 * other. */
static void test_sustained_rates(void **state)
{
    (void)state;
    const dv_device *pcie = dv_find("a100-pcie-40gb"), *sxm = dv_find("a100-40gb");
    assert_true(pcie->sustained_frac == 0.90);
    assert_true(sxm->sustained_frac == 1 && dv_find("a100-pcie-80gb")->sustained_frac == 1);
    assert_true(dv_find("v100s-pcie-32gb")->sustained_frac == 1);
    assert_true(pcie->fp16_tensor_flops == sxm->fp16_tensor_flops); /* the same peaks */
    assert_true(rel_close(pr_matmul_flops(pcie, PR_MIXED), 0.9 * 312e12, 1e-12));
    assert_true(rel_close(pr_matmul_flops(pcie, PR_TF32), 0.9 * 156e12, 1e-12));
    assert_true(rel_close(pr_vector_flops(pcie, PR_MIXED), 0.9 * 19.5e12, 1e-12));
    assert_true(pr_matmul_flops(sxm, PR_MIXED) == 312e12);
    kt_model p = model_ok("a100-pcie-40gb", PR_MIXED), x = model_ok("a100-40gb", PR_MIXED);
    lw_kernel big = product(8192, 8192, 8192);
    assert_true(rel_close(kt_terms_of(&p, &big).compute_s, kt_terms_of(&x, &big).compute_s / 0.9,
                          1e-12));
    assert_true(kt_terms_of(&p, &big).memory_s == kt_terms_of(&x, &big).memory_s);
    lw_kernel odd = product(8191, 8191, 8191); /* not a multiple of 8: the CUDA cores' FP16 */
    assert_true(rel_close(kt_terms_of(&p, &odd).compute_s, kt_terms_of(&x, &odd).compute_s / 0.9,
                          1e-12));
    /* element-wise and depthwise arithmetic (the CUDA cores' FP32) take 1/0.9 too */
    lw_kernel stream = {.kind = LW_STREAM, .flops = 1e9, .bytes = 1e6}, dw = stream;
    dw.depthwise = 1;
    assert_true(rel_close(kt_terms_of(&p, &stream).compute_s,
                          kt_terms_of(&x, &stream).compute_s / 0.9, 1e-12));
    assert_true(rel_close(kt_terms_of(&p, &dw).compute_s, kt_terms_of(&x, &dw).compute_s / 0.9,
                          1e-12));
    assert_false(kt_same_compute("a100-40gb", "a100-pcie-40gb"));
    assert_true(kt_same_compute("v100-sxm2-16gb", "V100-32GB"));
}

/* A convolution cut 32 ways is far from 32 times faster: its products fill a fraction of
 * the tiles and the GPU (ResNet-50's 3x3 64->64 at 64 samples: F' = 2). */
static void test_split_is_not_linear(void **state)
{
    (void)state;
    kt_model m = model_ok("v100-sxm2-16gb", PR_FP32);
    wl_workload wl;
    load_ok("resnet50", &wl);
    int c = layer_named(&wl, "CONV_2a2");
    char err[HS_ERR_LEN] = "";
    lw_split whole = lw_whole(64), cut = lw_whole(64);
    cut.out_parts = 32;
    double t1 = 0, t32 = 0, s;
    for (int p = 0; p < LW_PASS_COUNT; p++) {
        assert_int_equal(kt_pass_s(&m, &wl, c, &whole, (lw_pass)p, &s, err), HS_OK);
        t1 += s;
        assert_int_equal(kt_pass_s(&m, &wl, c, &cut, (lw_pass)p, &s, err), HS_OK);
        t32 += s;
    }
    assert_true(t32 > 4 * t1 / 32); /* more than 4x the linear share */
    assert_true(t32 < t1);
    wl_free(&wl);
}

/* Seconds of every pass of layer l at `cut` under c. */
static double layer_s(const kt_compute *c, const wl_workload *wl, int l, const lw_split *cut)
{
    char err[HS_ERR_LEN] = "";
    double total = 0, s;
    for (int p = 0; p < LW_PASS_COUNT; p++) {
        if (kt_compute_pass_s(c, wl, l, cut, (lw_pass)p, &s, err) != HS_OK)
            fail_msg("kt_compute_pass_s: %s", err);
        total += s;
    }
    return total;
}

/* ResNet-50 and its kernels on a V100, anchored on its measurement. */
static void resnet50_on_v100(wl_workload *wl, kt_compute *c)
{
    char err[HS_ERR_LEN] = "";
    load_ok("resnet50", wl);
    assert_int_equal(kt_compute_init(c, wl, "v100-sxm2-16gb", err), HS_OK);
}

/* --compute model anchors on what was measured. ResNet-50 measured only its total (ParaDL
 * spreads it by FLOPs): the network at the calibration batch sums to the measurement, and
 * the layers keep the model's proportions (batch normalisation far above its FLOP share).
 * A workload measured layer by layer keeps each layer's measured time at that batch. */
static void test_anchoring(void **state)
{
    (void)state;
    char err[HS_ERR_LEN] = "";
    wl_workload wl;
    kt_compute c;
    resnet50_on_v100(&wl, &c);
    assert_false(wl.layer_times);
    lw_split b0 = lw_whole(wl.calibration_batch);
    double total = 0;
    for (int l = 0; l < wl.n_layers; l++)
        total += layer_s(&c, &wl, l, &b0);
    assert_true(rel_close(total / (double)wl.calibration_batch, wl.sample_time_s, 1e-12));
    int bn = layer_named(&wl, "BNORM"), conv = layer_named(&wl, "CONV_2a2");
    double model_bn = 0, model_conv = 0, s;
    for (int p = 0; p < LW_PASS_COUNT; p++) {
        assert_int_equal(kt_pass_s(&c.device, &wl, bn, &b0, (lw_pass)p, &s, err), HS_OK);
        model_bn += s;
        assert_int_equal(kt_pass_s(&c.device, &wl, conv, &b0, (lw_pass)p, &s, err), HS_OK);
        model_conv += s;
    }
    double ratio = layer_s(&c, &wl, bn, &b0) / layer_s(&c, &wl, conv, &b0);
    assert_true(rel_close(ratio, model_bn / model_conv, 1e-12));
    double flop_ratio = (wl.layers[bn].fw_s + wl.layers[bn].bw_s) /
                        (wl.layers[conv].fw_s + wl.layers[conv].bw_s);
    assert_true(ratio > 10 * flop_ratio);
    wl_free(&wl);

    char path[256];
    tmp_file(path, sizeof path, "timed.xml",
             "<?xml version=\"1.0\"?>\n<workload name=\"timed\">\n"
             "<dataset name=\"toy\" samples=\"1000\" sample=\"3x8x8\"/>\n"
             "<calibration device=\"V100-16GB\" batch=\"16\"/>\n<layers>\n"
             "<layer id=\"c1\" type=\"conv\" x=\"3x8x8\" w=\"3x4x3x3\" y=\"4x8x8\" "
             "padding=\"1\" time_s=\"3e-4\"/>\n"
             "<layer id=\"r1\" type=\"relu\" x=\"4x8x8\" y=\"4x8x8\" time_s=\"1e-4\"/>\n"
             "</layers>\n</workload>\n");
    load_ok(path, &wl);
    assert_int_equal(kt_compute_init(&c, &wl, "v100-sxm2-16gb", err), HS_OK);
    assert_true(wl.layer_times);
    lw_split b16 = lw_whole(16);
    assert_true(rel_close(layer_s(&c, &wl, 0, &b16), 16 * 3e-4, 1e-12));
    assert_true(rel_close(layer_s(&c, &wl, 1, &b16), 16 * 1e-4, 1e-12));
    wl_free(&wl);
    remove(path);
}

/* A workload that measured its total without saying at which batch anchors every kernel at
 * its own samples: the measured seconds per sample over the model's at those samples. Sample
 * counts that share a slot of the memo (8 and 8 + KT_SCALE_MEMO), asked in turn, each keep
 * their own factor. */
static void test_anchoring_without_batch(void **state)
{
    (void)state;
    char err[HS_ERR_LEN] = "";
    char path[256];
    tmp_file(path, sizeof path, "nobatch.xml",
             "<?xml version=\"1.0\"?>\n<workload name=\"nobatch\">\n"
             "<dataset name=\"toy\" samples=\"1000\" sample=\"3x32x32\"/>\n"
             "<calibration device=\"V100-16GB\" sample_time_s=\"2e-4\"/>\n<layers>\n"
             "<layer id=\"c1\" type=\"conv\" x=\"3x32x32\" w=\"3x64x3x3\" y=\"64x32x32\" "
             "padding=\"1\"/>\n"
             "<layer id=\"r1\" type=\"relu\" x=\"64x32x32\" y=\"64x32x32\"/>\n"
             "</layers>\n</workload>\n");
    wl_workload wl;
    kt_compute c;
    load_ok(path, &wl);
    assert_int_equal(kt_compute_init(&c, &wl, "v100-sxm2-16gb", err), HS_OK);
    assert_true(c.anchored && c.network_scale == 0);
    int64_t counts[] = {8, 8 + KT_SCALE_MEMO, 8, 3, 8 + KT_SCALE_MEMO};
    double first_8 = 0;
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
        lw_split cut = lw_whole(counts[i]);
        double model_s = 0, per_sample_s = 0, s;
        for (int p = 0; p < LW_PASS_COUNT; p++) {
            assert_int_equal(kt_pass_s(&c.device, &wl, 1, &cut, (lw_pass)p, &s, err), HS_OK);
            model_s += s;
        }
        assert_int_equal(kt_sample_s(&c.calib, &wl, counts[i], &per_sample_s, err), HS_OK);
        double got = layer_s(&c, &wl, 1, &cut);
        assert_true(rel_close(got, model_s * 2e-4 / per_sample_s, 1e-12));
        if (counts[i] == 8 && first_8 == 0)
            first_8 = got;
        else if (counts[i] == 8)
            assert_true(got == first_8);
    }
    wl_free(&wl);
    remove(path);
}

/* A layout copy streams its elements once in and once out at the kernels' bandwidth, after
 * a launch, anchored by the network's factor like every kernel; no elements, no copy. */
static void test_layout_copy(void **state)
{
    (void)state;
    char err[HS_ERR_LEN] = "";
    wl_workload wl;
    kt_compute c;
    resnet50_on_v100(&wl, &c);
    const dv_device *d = dv_find("v100-sxm2-16gb");
    double raw_s = d->launch_s + 2.0 * 4.0 * 1e6 / (d->stream_bw_frac * d->memory_bw_Bps), s;
    assert_int_equal(kt_compute_copy_s(&c, &wl, 1e6, 64, &s, err), HS_OK);
    assert_true(c.network_scale > 0 && fabs(c.network_scale - 1.0) > 1e-3);
    assert_true(rel_close(s, raw_s * c.network_scale, 1e-12));
    assert_int_equal(kt_compute_copy_s(&c, &wl, 0, 64, &s, err), HS_OK);
    assert_true(s == 0.0);
    wl_free(&wl);
}

/* ChainerMN's reduce-scatter of gathered slices (its allgather's backward): a pack copy of the
 * whole before the alltoall, a stack copy of the p slices that arrive and their sum (a read of
 * the whole, a write of 1/p), three kernels of the copy model; nothing for one sample. */
static void test_scatter_copies(void **state)
{
    (void)state;
    char err[HS_ERR_LEN] = "";
    wl_workload wl;
    kt_compute c;
    resnet50_on_v100(&wl, &c);
    double copy_s, sum_s, s;
    assert_int_equal(kt_compute_copy_s(&c, &wl, 1e6, 64, &copy_s, err), HS_OK);
    assert_int_equal(kt_compute_copy_s(&c, &wl, 1e6 * (1 + 1.0 / 4) / 2, 64, &sum_s, err), HS_OK);
    assert_int_equal(st_scatter_copies_s(&wl, &c, 1e6, 4, 64, &s, err), HS_OK);
    assert_true(sum_s > 0.5 * copy_s && sum_s < copy_s);
    assert_true(rel_close(s, 2 * copy_s + sum_s, 1e-12));
    assert_int_equal(st_scatter_copies_s(&wl, &c, 1e6, 4, 1, &s, err), HS_OK);
    assert_true(s == 0.0);
    wl_free(&wl);
}

/* A runtime that fuses batch normalisation with its ReLU and residual add (bn_act_fused): a
 * ReLU after a batch normalisation costs nothing forward and a third of its bytes backward
 * (the mask read), with no launch; the add before a ReLU a third both ways; a ReLU or add
 * elsewhere, and every kernel without the flag, as before. As XLA fuses them
 * (KT_BN_FUSED_XLA) the ReLU's backward is two thirds (its gradient recomputed in both of the
 * normalisation's backward kernels, each reading dy and y), the rest as cuDNN's fusion. */
static void test_bn_fusion(void **state)
{
    (void)state;
    wl_workload wl;
    load_ok("resnet50-v1.5", &wl);
    int relu = layer_named(&wl, "layer1_0_relu"), add = layer_named(&wl, "add");
    int relu_after_add = layer_named(&wl, "layer1_0_relu_2"), bn = layer_named(&wl, "bn1");
    kt_model m = model_ok("a100-80gb", PR_MIXED);
    lw_split b = lw_whole(64);
    char err[HS_ERR_LEN] = "";
    double t_s[3][4][LW_PASS_COUNT]; /* [fusion][layer][pass] */
    int layers[4] = {relu, add, relu_after_add, bn};
    for (int f = KT_BN_UNFUSED; f <= KT_BN_FUSED_XLA; f++) {
        m.runtime.bn_act_fused = (kt_bn_fusion)f;
        for (int i = 0; i < 4; i++)
            for (int p = 0; p < LW_PASS_COUNT; p++)
                assert_int_equal(kt_pass_s(&m, &wl, layers[i], &b, (lw_pass)p, &t_s[f][i][p],
                                           err), HS_OK);
    }
    double(*plain)[LW_PASS_COUNT] = t_s[KT_BN_UNFUSED], (*fused)[LW_PASS_COUNT] = t_s[KT_BN_FUSED];
    double(*xla)[LW_PASS_COUNT] = t_s[KT_BN_FUSED_XLA];
    double e = pr_activation_bytes(PR_MIXED);
    for (int i = 0; i < 3; i++) {
        lw_kernel bw = kernel_ok(&wl, layers[i], &b, LW_INPUT_GRAD, e);
        kt_terms t = kt_terms_of(&m, &bw);
        assert_true(rel_close(fused[i][LW_INPUT_GRAD], t.memory_s / 3, 1e-9));
        assert_true(plain[i][LW_INPUT_GRAD] > 3 * fused[i][LW_INPUT_GRAD]); /* and a launch */
        /* XLA: the ReLUs' backward two thirds, the add's as cuDNN's fusion */
        double share = layers[i] == add ? 1.0 / 3 : 2.0 / 3;
        assert_true(rel_close(xla[i][LW_INPUT_GRAD], t.memory_s * share, 1e-9));
        assert_true(xla[i][LW_FORWARD] == fused[i][LW_FORWARD]);
    }
    assert_true(xla[0][LW_INPUT_GRAD] > fused[0][LW_INPUT_GRAD] &&
                xla[0][LW_INPUT_GRAD] < plain[0][LW_INPUT_GRAD]);
    assert_true(fused[0][LW_FORWARD] == 0 && fused[2][LW_FORWARD] == 0);
    assert_true(fused[1][LW_FORWARD] > 0 && fused[1][LW_FORWARD] < plain[1][LW_FORWARD] / 3);
    for (int p = 0; p < LW_PASS_COUNT; p++) /* the batch normalisation itself unchanged */
        assert_true(fused[3][p] == plain[3][p] && xla[3][p] == plain[3][p]);
    /* VGG16 has no batch normalisation: its ReLUs (after convolutions) are not fused */
    wl_free(&wl);
    load_ok("vgg16", &wl);
    int r = 0;
    while (r < wl.n_layers && wl.layers[r].type != WL_RELU)
        r++;
    assert_true(r < wl.n_layers && wl.layers[r - 1].type == WL_CONV);
    double a, c;
    m.runtime.bn_act_fused = 0;
    assert_int_equal(kt_pass_s(&m, &wl, r, &b, LW_FORWARD, &a, err), HS_OK);
    m.runtime.bn_act_fused = 1;
    assert_int_equal(kt_pass_s(&m, &wl, r, &b, LW_FORWARD, &c, err), HS_OK);
    assert_true(a > 0 && a == c);
    wl_free(&wl);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kernel_time),     cmocka_unit_test(test_precision),
        cmocka_unit_test(test_devices), cmocka_unit_test(test_pcie_devices),
        cmocka_unit_test(test_older_devices),
        cmocka_unit_test(test_sustained_rates),         cmocka_unit_test(test_library_choices),
        cmocka_unit_test(test_split_is_not_linear), cmocka_unit_test(test_anchoring),
        cmocka_unit_test(test_anchoring_without_batch),
        cmocka_unit_test(test_layout_copy),     cmocka_unit_test(test_scatter_copies),
        cmocka_unit_test(test_bn_fusion),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
