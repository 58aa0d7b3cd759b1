/* kernel_time.c: the kernel-time model (compute.h): tiles, waves, split-K, Winograd, the
 * roofline, and the efficiencies fitted on DeepBench's kernels. The refinements that opt-in
 * mechanisms and runtime keys switch on are kernel_refine.c's (kernel_time_internal.h). */
#include "compute.h"
#include "kernel_time_internal.h"

#include <math.h>

/* ---------------------------------------------------------------- fitted efficiencies
 *
 * experiments/compute/fit.sh fits these on DeepBench's measured kernels (a quarter held out)
 * and `--check` fails when they differ from the fit; workloads/README.md quotes the errors.
 * gemm_eff per generation and arithmetic: Pascal has no tensor cores; Ampere and Hopper were
 * not measured and take Volta's (the newest measured generation).
 *
 * Maxwell (GM200: the Titan X and Tesla M40) was never fitted and takes Pascal's: its SM
 * (GeForce GTX 980 whitepaper: 128 FP32 cores in four blocks of 32, 96 KB of shared memory) is
 * the SM of the consumer Pascal chips, GP104 and GP102 (GeForce GTX 1080 whitepaper), and
 * cuBLAS and cuDNN run one family of FP32 kernels on both: the Maxwell kernels
 * (maxwell_sgemm_128x64_nn on a Tesla P4, GP104, in PaddlePaddle's design document
 * 20220823_deformable_op_optimization.md; maxwell_scudnn_* in cuDNN's profiles). Pascal's
 * value was fitted on the P100 (GP100: 64 FP32 cores a SM), so GP102 and Maxwell alike are
 * predictions: DeepBench's kernels of the 1080 Ti, Titan X (Pascal), Titan Xp, Titan X
 * (Maxwell) and M40 check them (experiments/validation, `deepbench-unseen`). */
#define KT_PASCAL_GEMM_EFF 0.89

static const double kt_gemm_eff[DV_ARCH_COUNT][KT_MATH_COUNT] = {
    [DV_PASCAL] = {KT_PASCAL_GEMM_EFF, 0.0},
    [DV_MAXWELL] = {KT_PASCAL_GEMM_EFF, 0.0},
    [DV_VOLTA] = {0.86, 0.83},
    [DV_TURING] = {0.50, 0.60},
    [DV_AMPERE] = {0.86, 0.83},
    [DV_HOPPER] = {0.86, 0.83},
};

/* gemm_eff in TF32 (its own arithmetic on the tensor cores, not measured by DeepBench): the
 * fraction of the TF32 peak NVIDIA's CUTLASS GEMMs reached on an A100 built with CUDA 11.2, the
 * CUDA of the containers that published the TF32 throughputs (NGC 20.06: 11.0, 21.03: 11.2).
 * CUTLASS's maintainers (github.com/NVIDIA/cutlass/discussions/241, on CUDA 11.3) give 143
 * TFLOPS for TF32 GEMM with 11.3, 39% above 11.2, "the same speedup" for the convolutions:
 * 143 / 1.39 = 102.9 of 156 TFLOPS, 0.66. The same post's FP16 figures (298 TFLOPS, 14% above
 * 11.2: 261 of 312, 0.84) are within 0.01 of Volta's fitted tensor-core value, which Ampere
 * takes, so both
 * precisions stand at that measurement's level. cuDNN's and cuBLAS's own TF32 rates of the
 * time were not found (a user in the thread has cuBLAS at 297 TFLOPS FP16 with 11.0). Hopper
 * has no measurement and takes Ampere's, as it takes Volta's elsewhere. */
static const double kt_tf32_gemm_eff[DV_ARCH_COUNT] = {
    [DV_AMPERE] = 0.66,
    [DV_HOPPER] = 0.66,
};

/* Per arithmetic: the convolutions' passes relative to gemm_eff, and each call's cost. */
typedef struct {
    double conv_rel[LW_PASS_COUNT];
    double conv_call_s;
} kt_math_params;

static const kt_math_params kt_math_fit[KT_MATH_COUNT] = {
    [KT_CUDA_CORES] = {{0.99, 0.75, 0.66}, 37.6e-6},
    [KT_TENSOR_CORES] = {{0.92, 0.76, 0.65}, 10.4e-6},
};

#define KT_WINOGRAD_REL 1.00  /* Winograd's products on the CUDA cores, relative */
#define KT_GEMM_CALL_S 5.7e-6 /* a cuBLAS call beyond the launch */

kt_math kt_math_of(const dv_device *device, pr_precision precision)
{
    return pr_tensor_cores(device, precision) ? KT_TENSOR_CORES : KT_CUDA_CORES;
}

kt_params kt_params_for(const dv_device *device, pr_precision precision)
{
    kt_math math = kt_math_of(device, precision);
    const kt_math_params *mp = &kt_math_fit[math];
    kt_params p = {
        .gemm_eff = precision == PR_TF32 ? kt_tf32_gemm_eff[device->arch]
                                         : kt_gemm_eff[device->arch][math],
        .winograd_rel = KT_WINOGRAD_REL,
        /* a product the tensor cores cannot take runs the libraries' CUDA-core kernels
         * (cuBLAS's tensor-op restrictions; cuDNN's tensor-core prerequisites): their
         * efficiency. DeepBench padded every such kernel (experiments/compute/fit.c), so
         * none of its kernels measures this on its own. */
        .unaligned_eff = kt_gemm_eff[device->arch][KT_CUDA_CORES],
        .gemm_call_s = KT_GEMM_CALL_S,
        .conv_call_s = mp->conv_call_s,
        .eff_3d = 1.0,
        .mechanisms = 0,
    };
    for (int i = 0; i < LW_PASS_COUNT; i++)
        p.conv_rel[i] = mp->conv_rel[i];
    return p;
}

kt_runtime kt_runtime_neutral(void)
{
    kt_runtime r = {.host_call_s = 0, .stream_rel = 1.0, .depthwise_rel = 1.0,
                    .nchw_precisions = 0, .pads_channels = 0,
                    .depthwise_by_bytes = 0, .library_rel = 1.0,
                    .loader_workers = 0, .loader_samples_per_s = 0,
                    .optimizer_kernels_per_tensor = 0, .optimizer_bytes_per_weight = 0,
                    .grad_copy_kernels_per_tensor = 0, .norm_buffer_kernels = 0,
                    .norm_blocks = KT_NORM_ANY, .packs_groups = 0};
    return r;
}

int kt_model_init(kt_model *model, const char *device, pr_precision precision, char *err)
{
    char names[256];
    model->device = dv_find(device);
    if (!model->device) {
        dv_names(names, sizeof names);
        return hs_fail(err, HS_EINPUT, "--gpu: unknown device '%s' (known: %s)",
                       device ? device : "", names);
    }
    model->precision = precision;
    int rc = pr_check_device(model->device, precision, err);
    if (rc == HS_OK) {
        model->params = kt_params_for(model->device, precision);
        model->runtime = kt_runtime_neutral();
    }
    return rc;
}

/* ---------------------------------------------------------------- tiles and waves */

/* Thread-block tiles: cuBLAS's and CUTLASS's on the CUDA cores (NVIDIA, "Matrix
 * Multiplication Background User's Guide", typical tile dimensions; CUTLASS's SGEMM tiles
 * down to 32x32); cuBLAS's tensor-core GEMMs (volta_h884gemm_256x128 ... 64x64); cuDNN's
 * tensor-core convolutions (volta_fp16_s884cudnn_fp16_256x128 ... 128x64, the tiles in the
 * kernels' names). Under KT_MECH_CUDNN_TILES a convolution on the CUDA cores takes cuDNN's own
 * 128 x {128, 64, 32} instead (kernel_refine.c). */
static const int64_t kt_cuda_tiles[][2] = {{256, 128}, {128, 256}, {128, 128}, {128, 64},
                                           {64, 128},  {64, 64},   {128, 32},  {32, 128},
                                           {64, 32},   {32, 64},   {32, 32}};
static const int64_t kt_blas_tensor_tiles[][2] = {{256, 128}, {128, 256}, {128, 128},
                                                  {128, 64},  {64, 128},  {64, 64}};
static const int64_t kt_conv_tensor_tiles[][2] = {{256, 128}, {128, 128}, {256, 64}, {128, 64}};
#define KT_SET(a) ((kt_tile_set){a, (int)(sizeof a / sizeof a[0])})
#define KT_SPLIT_K_MIN 256 /* the shortest K slice split-K hands one block */

static double ceil_div(double a, double b)
{
    return ceil(a / b);
}

/* Seconds of `groups` products m x n x k at `rate` FLOP/s over the GPU, the best tile;
 * `split_k` 0: a thread block a tile over the whole depth, however few the tiles. */
static double gemm_waves_s(int64_t m, int64_t n, int64_t k, int64_t groups, kt_tile_set set,
                           int sms, double rate, int split_k)
{
    double best = INFINITY, rate_per_sm = rate / sms;
    for (int t = 0; t < set.n; t++) {
        double tm = (double)set.tiles[t][0], tn = (double)set.tiles[t][1];
        double tiles = ceil_div((double)m, tm) * ceil_div((double)n, tn) * (double)groups;
        double split = 1;
        if (split_k && tiles < sms) { /* split-K: more blocks, each a slice of K */
            split = floor(sms / tiles);
            split = fmax(1, fmin(split, floor((double)k / KT_SPLIT_K_MIN)));
        }
        double waves = ceil_div(tiles * split, sms);
        best = fmin(best, waves * 2.0 * tm * tn * ceil_div((double)k, split) / rate_per_sm);
    }
    return best;
}

double kt__gemm_waves_s(int64_t m, int64_t n, int64_t k, int64_t groups, kt_tile_set set,
                        int sms, double rate)
{
    return gemm_waves_s(m, n, k, groups, set, sms, rate, 1);
}

double kt__gemm_waves_whole_k_s(int64_t m, int64_t n, int64_t k, int64_t groups,
                                kt_tile_set set, int sms, double rate)
{
    return gemm_waves_s(m, n, k, groups, set, sms, rate, 0);
}

/* Whether a tensor-core product's channels suit the tensor cores. */
int kt__aligned(const kt_model *m, const lw_kernel *kn)
{
    int64_t mult = pr_tensor_multiple(m->precision);
    if (kn->lib == LW_LIB_CONV)
        return kn->in_channels % mult == 0 && kn->out_channels % mult == 0;
    return kn->m % mult == 0 && kn->n % mult == 0 && kn->k % mult == 0;
}

/* Whether the runtime's cuDNN can pad kn's channels to run it on the tensor cores; it does
 * when that is faster than its CUDA-core kernels (kt_terms_of: the library's autotuner,
 * cudnnFind or PyTorch's cudnn.benchmark, takes the fastest algorithm it has). NVIDIA's
 * Convolutional Layers User's Guide (docs.nvidia.com/deeplearning/performance/
 * dl-performance-convolutional, Channels In And Out; quoted in TensorFlow's GPU performance
 * guide): "With cuDNN v7.6.3 and later, convolution dimensions will automatically be padded
 * where necessary to leverage Tensor Cores". cuBLAS's GEMMs are not covered by it. */
static int kt_pads(const kt_model *m, const lw_kernel *kn)
{
    return m->runtime.pads_channels && kn->lib == LW_LIB_CONV &&
           kt_math_of(m->device, m->precision) == KT_TENSOR_CORES && !kt__aligned(m, kn);
}

/* The product dimensions of kn with its channels padded up to the tensor cores' multiple
 * (kt_pads): the dimension a pass takes each channel count in (work_kernels.c conv_kernel:
 * forward n = F, k = C x window; input gradient n = C, k = F x window; weight gradient m =
 * F, n = C x window) grows by the padded count over the count. */
static void padded_dims(const kt_model *m, const lw_kernel *kn, int64_t *pm, int64_t *pn,
                        int64_t *pk)
{
    double mult = (double)pr_tensor_multiple(m->precision);
    double c = (double)kn->in_channels, f = (double)kn->out_channels;
    double cp = ceil(c / mult) * mult, fp = ceil(f / mult) * mult;
    *pm = kn->m;
    *pn = kn->n;
    *pk = kn->k;
    if (kn->pass == LW_FORWARD) {
        *pn = (int64_t)fp;
        *pk = (int64_t)ceil((double)kn->k * cp / c - 1e-9);
    } else if (kn->pass == LW_INPUT_GRAD) {
        *pn = (int64_t)cp;
        *pk = (int64_t)ceil((double)kn->k * fp / f - 1e-9);
    } else {
        *pm = (int64_t)fp;
        *pn = (int64_t)ceil((double)kn->n * cp / c - 1e-9);
    }
}

/* FLOP/s of a full wave of kn's products, and the tiles the library has for them; `padded`:
 * its channels padded for the tensor cores (kt_pads). */
static double product_rate(const kt_model *m, const lw_kernel *kn, int padded, kt_tile_set *set)
{
    const dv_device *d = m->device;
    const kt_params *p = &m->params;
    double rate;
    *set = KT_SET(kt_cuda_tiles);
    if (kt_math_of(d, m->precision) == KT_TENSOR_CORES && !padded && !kt__aligned(m, kn)) {
        rate = p->unaligned_eff *
               dv_sustained_flops(d, m->precision == PR_TF32 ? d->fp32_flops : d->fp16_flops);
        *set = kt__conv_cuda_tiles(m, kn, *set);
    } else {
        rate = p->gemm_eff * pr_matmul_flops(d, m->precision) * m->runtime.library_rel;
        if (kt_math_of(d, m->precision) == KT_TENSOR_CORES)
            *set = kn->lib == LW_LIB_CONV ? KT_SET(kt_conv_tensor_tiles)
                                          : KT_SET(kt_blas_tensor_tiles);
        else
            *set = kt__conv_cuda_tiles(m, kn, *set);
    }
    if (kn->lib == LW_LIB_CONV)
        rate *= p->conv_rel[kn->pass] * (kn->volumetric ? p->eff_3d : 1.0);
    return rate;
}

/* ---------------------------------------------------------------- Winograd */

/* Whether the library would consider Winograd's algorithm: a 2-D convolution with a 3x3 or
 * 5x5 window at stride 1, not grouped, on the CUDA cores. */
static int winograd_applies(const kt_model *m, const lw_kernel *kn)
{
    return kn->lib == LW_LIB_CONV && (kn->window == 3 || kn->window == 5) && kn->stride == 1 &&
           kn->groups == 1 && kt_math_of(m->device, m->precision) == KT_CUDA_CORES;
}

/* Seconds of kn as Winograd's F(m x m, r x r) with 6x6 tiles (m = 4 for 3x3, 2 for 5x5): 36
 * batched products over the tiles, and the transforms of the input, the output and the
 * filter streamed through memory. */
static double winograd_s(const kt_model *m, const lw_kernel *kn, double bw)
{
    const int64_t alpha = 6, out = alpha - kn->window + 1, a2 = alpha * alpha;
    int64_t tiles = kn->samples * (int64_t)ceil_div((double)kn->y_extent[0], (double)out) *
                    (int64_t)ceil_div((double)kn->y_extent[1], (double)out);
    int64_t c = kn->in_channels, f = kn->out_channels;
    double e = pr_activation_bytes(m->precision);
    double plain = (double)kn->samples * (double)kn->y_extent[0] * (double)kn->y_extent[1];
    double transforms = e * ((double)plain * (double)(c + f) + (double)(a2 * tiles) * (c + f) +
                             2.0 * (double)(a2 * c * f));
    kt_tile_set set;
    double rate = product_rate(m, kn, 0, &set) * m->params.winograd_rel /
                  kt__winograd_pass_rel(m, kn);
    double products;
    if (kn->pass == LW_FORWARD)
        products = kt__gemm_waves_s(tiles, f, c, a2, set, m->device->sms, rate);
    else if (kn->pass == LW_INPUT_GRAD)
        products = kt__gemm_waves_s(tiles, c, f, a2, set, m->device->sms, rate);
    else
        products = kt__gemm_waves_s(f, c, tiles, a2, set, m->device->sms, rate);
    return products + transforms / bw;
}

/* ---------------------------------------------------------------- the kernel */

/* Seconds of a framework's depthwise convolution (compute.h, depthwise_rel): at depthwise_rel
 * of the FP32 peak, a rate far below what the CUDA cores compute, so arithmetic is not what
 * bounds it. With depthwise_by_bytes the bound is its window's reads, one input element an
 * output's multiply-add through the SMs' caches, whose bytes a second scale with the SMs and
 * their clock as the FP32 peak does: the calibrated rate holds for 4-byte elements and doubles
 * in elements for 2-byte ones. */
static double depthwise_s(const kt_model *m, const lw_kernel *kn)
{
    double fp32_s = kn->flops / (pr_vector_flops(m->device, PR_FP32) * m->runtime.depthwise_rel);
    if (!m->runtime.depthwise_by_bytes)
        return fp32_s;
    return fp32_s * pr_activation_bytes(m->precision) / 4.0;
}


/* Seconds of the transformations around a tensor-core convolution: of a runtime that keeps
 * NCHW tensors in this precision (kt_runtime nchw_precisions), and of channels padded for the
 * tensor cores (`padded`, kt_pads). cuDNN's tensor-core convolutions compute on NHWC (and KRSC
 * filters) with channels of the tensor cores' multiple; given other tensors it transforms them
 * ("The cuDNN library may use padding, folding, and NCHW-to-NHWC transformations to call the
 * Tensor Core operations", cuDNN Developer Guide, Legacy API, Convolution Functions, Data and
 * Filter Formats; nchwToNhwcKernel beside the tensor-core kernels in NCHW runs' profiles, e.g.
 * tensorflow/tensorflow issue 15897). Each of the call's three tensors is read and written
 * once more, by a kernel launched on its own (one conversion both reorders and pads); a kernel
 * of the CUDA cores (fp32, or channels the tensor cores cannot take, unpadded) reads NCHW as
 * it is. */
static double layout_s(const kt_model *m, const lw_kernel *kn, int padded, double bw)
{
    int nchw = kn->lib == LW_LIB_CONV && (m->runtime.nchw_precisions & (1u << m->precision)) &&
               kt_math_of(m->device, m->precision) == KT_TENSOR_CORES && kt__aligned(m, kn);
    if (!nchw && !padded)
        return 0;
    double each_s = m->device->launch_s + 2.0 * kn->bytes / 3.0 / bw;
    return 3.0 * fmax(m->runtime.host_call_s, each_s);
}

kt_terms kt_terms_of(const kt_model *m, const lw_kernel *kn)
{
    kt_terms t = {0, 0, 0, 0, 0, 0, 0};
    const dv_device *d = m->device;
    if (kn->kind == LW_NONE)
        return t;
    double bw = d->stream_bw_frac * d->memory_bw_Bps;
    t.launch_s = d->launch_s;
    t.memory_s = kt__conv_bytes(m, kn) / bw;
    if (kn->kind == LW_STREAM) {
        if (!kn->depthwise) {
            t.memory_s = kn->bytes / kt__norm_bandwidth(m, kn, bw) / m->runtime.stream_rel;
            t.compute_s = kn->flops / pr_vector_flops(d, m->precision);
        } else {
            t.compute_s = depthwise_s(m, kn);
        }
        return t;
    }
    kt_tile_set set;
    double rate = product_rate(m, kn, 0, &set);
    t.call_s = kn->lib == LW_LIB_CONV ? m->params.conv_call_s : m->params.gemm_call_s;
    int64_t k = kt__channel_k_tile_k(m, kn, kt__strided_dgrad_k(m, kn), 0);
    t.compute_s = kt__conv_products_s(m, kn, kn->m, kn->n, k, set, rate);
    if (winograd_applies(m, kn)) {
        double w = winograd_s(m, kn, bw);
        if (w < fmax(t.compute_s, t.memory_s)) {
            t.compute_s = w;
            t.winograd = 1;
        }
    }
    t.layout_s = layout_s(m, kn, 0, bw);
    if (kt_pads(m, kn)) { /* the autotuner's pick: padded on the tensor cores, or as it is */
        int64_t pm, pn, pk;
        padded_dims(m, kn, &pm, &pn, &pk);
        rate = product_rate(m, kn, 1, &set);
        double padded_s =
            kt__conv_products_s(m, kn, pm, pn, kt__channel_k_tile_k(m, kn, pk, 1), set, rate);
        double copy_s = layout_s(m, kn, 1, bw);
        if (fmax(padded_s, t.memory_s) + copy_s < fmax(t.compute_s, t.memory_s) + t.layout_s) {
            t.compute_s = padded_s;
            t.layout_s = copy_s;
            t.winograd = 0;
            t.padded = 1;
        }
    }
    return t;
}

double kt_kernel_s(const kt_model *m, const lw_kernel *kn)
{
    if (kn->kind == LW_NONE)
        return 0;
    kt_terms t = kt_terms_of(m, kn);
    return fmax(m->runtime.host_call_s, t.launch_s + t.call_s + fmax(t.compute_s, t.memory_s)) +
           t.layout_s;
}

/* ---------------------------------------------------------------- fused batch normalisation
 *
 * Under a runtime with kt_runtime.bn_act_fused, a ReLU right after a batch normalisation runs
 * inside it (cudnnBatchNormalizationForwardTrainingEx with CUDNN_BATCHNORM_OPS_BN_ACTIVATION,
 * MXNet's BatchNorm(act_type='relu')), and so do an add of a batch normalisation's output with
 * the shortcut and the ReLU after the add (CUDNN_BATCHNORM_OPS_BN_ADD_ACTIVATION, MXNet's
 * BatchNormAddRelu). What the fused kernel adds to the batch normalisation's own bytes: the
 * ReLU's forward nothing (the output is written once, already rectified), its backward the
 * output read for the mask (1 of its 3 tensors; 2 of 3 as XLA fuses it, KT_BN_FUSED_XLA,
 * relu_backward_share); the add's forward the shortcut read (1 of 3), its backward the
 * shortcut's gradient written (1 of 3). None launches a kernel. */

static int is_type(const wl_workload *wl, int i, wl_type type)
{
    return i >= 0 && i < wl->n_layers && wl->layers[i].type == type;
}

/* Layer i is a two-input add of a batch normalisation's output, with a ReLU next on its sum. */
static int bn_add_relu(const wl_workload *wl, int i)
{
    return is_type(wl, i, WL_ADD) && wl->layers[i].n_inputs == 2 &&
           (is_type(wl, wl_input_of(wl, i, 0), WL_BNORM) ||
            is_type(wl, wl_input_of(wl, i, 1), WL_BNORM)) &&
           is_type(wl, i + 1, WL_RELU) && wl_input_of(wl, i + 1, 0) == i;
}

/* KT_BN_FUSED_XLA: the share of a fused ReLU's backward (read dy and y, write dx: 3 tensors)
 * XLA's fusion streams. Its GPU compiler expands the batch normalisation's gradient into two
 * reductions over dy and x and an element-wise dx (NVIDIA/tensorflow v1.15.2+nv20.06
 * tensorflow/compiler/xla/service/batchnorm_expander.cc:504, :509; gpu/gpu_compiler.cc:177-180),
 * a multi-output reduction fusion and a loop fusion, and fuses ReluGrad's select into both
 * (gpu_compiler.cc:263, may_duplicate; instruction_fusion.cc:257-330: a producer of more
 * bytes in than out is duplicated when it fuses into all its consumers): each reads dy and y
 * where it would read the ReLU's gradient, so the ReLU adds two tensors to the normalisation's
 * five, where cuDNN's fused kernel adds one (the mask, y read once). */
static double relu_backward_share(const kt_model *m)
{
    return m->runtime.bn_act_fused == KT_BN_FUSED_XLA ? 2.0 / 3.0 : 1.0 / 3.0;
}

/* The share of layer i's bytes in `pass` a fused kernel streams; -1: not fused. */
static double fused_share(const kt_model *m, const wl_workload *wl, int i, lw_pass pass)
{
    if (m->runtime.bn_act_fused == KT_BN_UNFUSED)
        return -1;
    int in = wl_input_of(wl, i, 0);
    if (is_type(wl, i, WL_RELU) && (is_type(wl, in, WL_BNORM) || bn_add_relu(wl, in)))
        return pass == LW_FORWARD ? 0.0 : relu_backward_share(m);
    if (bn_add_relu(wl, i))
        return 1.0 / 3.0;
    return -1;
}

int kt_pass_s(const kt_model *m, const wl_workload *wl, int index, const lw_split *split,
              lw_pass pass, double *seconds, char *err)
{
    lw_kernel all[LW_MAX_KERNELS];
    int n;
    *seconds = 0;
    int rc = lw_kernels_of(wl, index, split, pass, pr_activation_bytes(m->precision), all, &n,
                           err);
    if (rc != HS_OK || n == 0 || all[0].kind == LW_NONE)
        return rc;
    int autograd = 0;
    if (pass == LW_INPUT_GRAD)
        rc = kt__autograd_backward(m, wl, index, split, seconds, &autograd, err);
    if (rc != HS_OK || autograd)
        return rc;
    double share = n == 1 ? fused_share(m, wl, index, pass) : -1;
    if (share < 0) {
        for (int i = 0; i < n; i++) /* the calls of a kernel run one after another */
            *seconds += (double)all[i].calls * kt_kernel_s(m, &all[i]);
        return HS_OK;
    }
    lw_kernel kn = all[0];
    kn.bytes *= share; /* inside the batch normalisation's kernel: no launch, no host call */
    kn.flops *= share;
    kt_terms t = kt_terms_of(m, &kn);
    *seconds = fmax(t.compute_s, t.memory_s);
    return HS_OK;
}

int kt_sample_s(const kt_model *m, const wl_workload *wl, int64_t batch, double *seconds,
                char *err)
{
    lw_split whole = lw_whole(batch);
    double total = 0, s;
    *seconds = 0;
    for (int i = 0; i < wl->n_layers; i++)
        for (int p = 0; p < LW_PASS_COUNT; p++) {
            int rc = kt_pass_s(m, wl, i, &whole, (lw_pass)p, &s, err);
            if (rc)
                return rc;
            total += s;
        }
    *seconds = total / (double)batch;
    return HS_OK;
}
