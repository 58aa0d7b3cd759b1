/* kernel_time.c: the kernel-time model (compute.h): tiles, waves, split-K, Winograd, the
 * roofline, and the efficiencies fitted on DeepBench's kernels. */
#include "compute.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

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

int kt_mechanisms_parse(const char *list, const char *what, unsigned *mask, char *err)
{
    static const struct {
        const char *name;
        unsigned bit;
    } known[] = {{"strided-dgrad", KT_MECH_STRIDED_DGRAD},
                 {"winograd-gemm", KT_MECH_WINOGRAD_GEMM},
                 {"channel-k-tile", KT_MECH_CHANNEL_K_TILE}};
    *mask = 0;
    for (const char *p = list; p && *p;) {
        size_t len = strcspn(p, ",");
        int found = len == 4 && strncmp(p, "none", 4) == 0;
        for (size_t i = 0; i < sizeof known / sizeof known[0] && !found; i++)
            if (strlen(known[i].name) == len && strncmp(p, known[i].name, len) == 0) {
                *mask |= known[i].bit;
                found = 1;
            }
        if (!found && len > 0)
            return hs_fail(err, HS_EINPUT, "%s: unknown mechanism '%.*s' (known: strided-dgrad, "
                           "winograd-gemm, channel-k-tile, none)", what, (int)len, p);
        p += len + (p[len] == ',');
    }
    return HS_OK;
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
 * kernels' names). */
typedef struct {
    const int64_t (*tiles)[2];
    int n;
} kt_tile_set;

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

/* Seconds of `groups` products m x n x k at `rate` FLOP/s over the GPU, the best tile. */
static double gemm_waves_s(int64_t m, int64_t n, int64_t k, int64_t groups, kt_tile_set set,
                           int sms, double rate)
{
    double best = INFINITY, rate_per_sm = rate / sms;
    for (int t = 0; t < set.n; t++) {
        double tm = (double)set.tiles[t][0], tn = (double)set.tiles[t][1];
        double tiles = ceil_div((double)m, tm) * ceil_div((double)n, tn) * (double)groups;
        double split = 1;
        if (tiles < sms) { /* split-K: more blocks, each a slice of K, to fill the SMs */
            split = floor(sms / tiles);
            split = fmax(1, fmin(split, floor((double)k / KT_SPLIT_K_MIN)));
        }
        double waves = ceil_div(tiles * split, sms);
        best = fmin(best, waves * 2.0 * tm * tn * ceil_div((double)k, split) / rate_per_sm);
    }
    return best;
}

/* Whether a tensor-core product's channels suit the tensor cores. */
static int kt_aligned(const kt_model *m, const lw_kernel *kn)
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
           kt_math_of(m->device, m->precision) == KT_TENSOR_CORES && !kt_aligned(m, kn);
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
    if (kt_math_of(d, m->precision) == KT_TENSOR_CORES && !padded && !kt_aligned(m, kn)) {
        rate = p->unaligned_eff *
               dv_sustained_flops(d, m->precision == PR_TF32 ? d->fp32_flops : d->fp16_flops);
    } else {
        rate = p->gemm_eff * pr_matmul_flops(d, m->precision) * m->runtime.library_rel;
        if (kt_math_of(d, m->precision) == KT_TENSOR_CORES)
            *set = kn->lib == LW_LIB_CONV ? KT_SET(kt_conv_tensor_tiles)
                                          : KT_SET(kt_blas_tensor_tiles);
    }
    if (kn->lib == LW_LIB_CONV)
        rate *= p->conv_rel[kn->pass] * (kn->volumetric ? p->eff_3d : 1.0);
    return rate;
}

/* ---------------------------------------------------------------- grouped convolutions
 *
 * A grouped convolution (g > 1 groups of C'/g > 1 input channels: ResNeXt's 32 groups of 4 to
 * 32) is one library call: cuDNN (>= 7) takes the group count (cudnnSetConvolutionGroupCount,
 * which PyTorch sets, aten/src/ATen/cudnn/Descriptors.h ConvolutionDescriptor::set;
 * DeepLearningExamples' TensorFlow ResNeXt calls tf.nn.conv2d with a [3, 3, C/32, C] filter,
 * TensorFlow/Classification/ConvNets/model/blocks/conv2d_block.py, one grouped Conv2D).
 * By default the model prices its g products each on tiles of its own (gemm_waves_s's
 * `groups`): a 4-channel group fills 4 of a 32- to 128-wide tile. Under a runtime with
 * `grouped_convolution = packed` (kt_runtime packs_groups) the groups sit side by side in the
 * tiles, one product a pass whose grouped dimension holds them all: forward N = F' (g groups of
 * F'/g), input gradient N = C', weight gradient M = F', the depth K a group's own. Kernels
 * built for a group's width do so: cuDNN 8's grouped implicit GEMMs carry it in their names
 * (sm80_xmma_{fprop,dgrad,wgrad}_implicit_gemm_..._tilesize64x64x64_..._g8_tensor16x8x16 for
 * groups of 8 channels, PyTorch's kernels in andravin/spio scripts/plot_kernel_bench.py), a
 * 64-wide tile then 8 groups; a tensor-core instruction is 8 channels wide (PTX mma.m16n8k16,
 * m16n8k8 for TF32), so a group of 8 (FP16) or 4 (TF32) fills it with its own products. This
 * is the best the tiles can do: CUTLASS's own grouped kernels (GroupMode::kMultipleGroup,
 * include/cutlass/conv/convolution.h, "One CTA calculates multiple groups") pack the groups
 * into a tile but run each group's K over the whole tile width (conv2d_problem_size.h
 * implicit_gemm_k_iterations: iterations *= threadblock_N / k_per_group), the default's cost.
 * Off by default: it lowers dle-pytorch's and dle-tensorflow1's mean accuracy
 * (workloads/runtime/README.md). DeepBench has no grouped convolution: the fit is unchanged. */

/* The dimensions and product count gemm_waves_s prices kn's m x n x k products at: for a
 * convolution of g > 1 groups, the groups packed side by side along the dimension of a
 * group's channels, one product; otherwise as they are. */
static int64_t grouped_pack(const kt_model *m, const lw_kernel *kn, int64_t *pm, int64_t *pn)
{
    if (!m->runtime.packs_groups || kn->lib != LW_LIB_CONV || kn->groups <= 1)
        return kn->groups;
    if (kn->pass == LW_WEIGHT_GRAD)
        *pm *= kn->groups;
    else
        *pn *= kn->groups;
    return 1;
}

/* Seconds of kn's products m x n x k (kn's own, or its padded or strided variants) at `rate`
 * over the GPU, the best tile; a grouped convolution's groups packed (grouped_pack). */
static double conv_products_s(const kt_model *m, const lw_kernel *kn, int64_t pm, int64_t pn,
                              int64_t pk, kt_tile_set set, double rate)
{
    int64_t groups = grouped_pack(m, kn, &pm, &pn);
    return gemm_waves_s(pm, pn, pk, groups, set, m->device->sms, rate);
}

/* ---------------------------------------------------------------- opt-in mechanisms */

/* KT_MECH_STRIDED_DGRAD: the reduction depth of an input gradient at stride s > 1. The
 * library's implicit GEMM for it has a row per input position (N x H x W) and K = output
 * channels x filter taps (CUTLASS, include/cutlass/conv/conv2d_problem_size.h,
 * implicit_gemm_problem_size, Operator::kDgrad). Of the R x S taps only those of the input
 * position's phase land on an output; the positions of phase (r, s) have ceil((R - r) / s) x
 * ceil((S - s) / s) of them (num_gemm_k_filter_positions there), R x S / s^2 on average: the
 * useful work, what work_kernels.c gives (k = output channels x R x S x Y / X). A kernel whose
 * thread blocks mix the phases walks every position through the largest phase's taps,
 * ceil(R/s) x ceil(S/s), the others predicated off: a 1x1 window at stride 2 four times its
 * useful products, a 3x3 1.8 times, a 5x5 1.4 times. CUTLASS decomposes by phase since 2.6
 * (2021, implicit_gemm_convolution_strided_dgrad.h); cuDNN 7.6's kernels are closed, but
 * DeepBench's sheets show the cost: its stride-2 input gradients take 1.6-2.3 times their
 * forward (1x1) where its stride-1 ones take 1.0-1.3 (V100, T4, P100, FP32 and FP16).
 * Square 2-D windows only (kn->window); 3-D and other windows keep the useful depth. */
static int64_t strided_dgrad_k(const kt_model *m, const lw_kernel *kn)
{
    if (!(m->params.mechanisms & KT_MECH_STRIDED_DGRAD) || kn->lib != LW_LIB_CONV ||
        kn->pass != LW_INPUT_GRAD || kn->stride <= 1 || kn->window <= 0)
        return kn->k;
    int64_t taps = (kn->window + kn->stride - 1) / kn->stride;
    return kn->out_channels * taps * taps;
}

/* KT_MECH_WINOGRAD_GEMM: what the implicit GEMM's pass efficiency (conv_rel) says of a
 * Winograd convolution's products. By default they run at it, as the pass's implicit GEMM does.
 * cuDNN's non-fused Winograd, the only Winograd its weight gradient has (cudnn.h,
 * CUDNN_CONVOLUTION_BWD_FILTER_ALGO_WINOGRAD_NONFUSED; DeepBench lists WINOGRAD_NONFUSED for
 * most FP32 3x3 forwards too), transforms its tensors by kernels of their own
 * (cudnn::winograd_nonfused::winogradForwardData4x4, winogradWgradData4x4,
 * winogradWgradDelta4x4 ... in TensorFlow's profiles of Conv2D, Conv2DBackpropInput and
 * Conv2DBackpropFilter) into a workspace, where the 36 products are plain batched matrix
 * products: none of the implicit GEMM's gathering of a window, so at the library's GEMM rate
 * (gemm_eff x winograd_rel). The factor here divides the pass's efficiency back out. */
static double winograd_pass_rel(const kt_model *m, const lw_kernel *kn)
{
    if (!(m->params.mechanisms & KT_MECH_WINOGRAD_GEMM))
        return 1.0;
    return m->params.conv_rel[kn->pass]; /* 2-D only: winograd_applies */
}

/* KT_MECH_CHANNEL_K_TILE: the reduction depth of a tensor-core convolution's forward and input
 * gradient in whole K tiles. The implicit GEMM walks the filter taps and, at each, the reduced
 * channels (C in the forward, the output channels F in the input gradient) a thread block's K
 * tile at a time, the tail of the last tile predicated off: R x S x ceil(C / tile_K) iterations
 * (NVIDIA/cutlass at 7107b05, include/cutlass/conv/conv2d_problem_size.h:398-408,
 * implicit_gemm_k_iterations, Operator::kFprop and kDgrad; the weight gradient reduces over
 * N x P x Q, untouched). So a pass with fewer channels than the tile pays for a whole tile at
 * every tap. The tile's depth:
 * 32 elements of 16 bits (CUTLASS's tensor-op convolutions GemmShape<128, 128, 32> on SM70 and
 * SM75, test/unit/conv/device/conv2d_fprop_implicit_gemm_f16nhwc_f16nhwc_f32nhwc_tensor_op_
 * f32_sm70.cu:64 and _sm75.cu:64; cuDNN 8's Ampere kernels tilesize128x32x32, 256x64x32 in
 * their names) and 16 of TF32 (_tf32nhwc_..._sm80.cu:64, GemmShape<128, 128, 16>): 64 bytes.
 * CUTLASS's few-channel iterators (kFewChannels, kFixedChannels, the same file :372-394) exist
 * for the first layers this wastes most on; cuDNN 7.6, DeepBench's, shows the cost: its FP16
 * forwards of 8 (padded) input channels take 4 times the model's time, of 16 twice, of 32 and
 * more about the same (V100, T4). The useful depth kn->k scales by the tiles' channels over
 * the channels; the CUDA cores' kernels (8-deep tiles) keep it, and so do grouped convolutions:
 * their per-group products already pay a whole tile's width a group, cuDNN runs them by
 * kernels of their own, and no DeepBench kernel measures them (with them ResNeXt-101's rows
 * fall 3-5%). */
static int64_t channel_k_tile_k(const kt_model *m, const lw_kernel *kn, int64_t k, int padded)
{
    if (!(m->params.mechanisms & KT_MECH_CHANNEL_K_TILE) || kn->lib != LW_LIB_CONV ||
        kn->groups != 1 || kn->pass == LW_WEIGHT_GRAD ||
        kt_math_of(m->device, m->precision) != KT_TENSOR_CORES ||
        (!padded && !kt_aligned(m, kn)))
        return k;
    int64_t ch = kn->pass == LW_FORWARD ? kn->in_channels : kn->out_channels;
    int64_t tile = (int64_t)(64.0 / pr_activation_bytes(m->precision));
    if (padded) { /* the channels as the padded call has them */
        int64_t mult = pr_tensor_multiple(m->precision);
        ch = (ch + mult - 1) / mult * mult;
    }
    if (ch <= 0 || ch % tile == 0)
        return k;
    int64_t whole = (ch + tile - 1) / tile * tile;
    return (int64_t)ceil((double)k * (double)whole / (double)ch - 1e-9);
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
                  winograd_pass_rel(m, kn);
    double products;
    if (kn->pass == LW_FORWARD)
        products = gemm_waves_s(tiles, f, c, a2, set, m->device->sms, rate);
    else if (kn->pass == LW_INPUT_GRAD)
        products = gemm_waves_s(tiles, c, f, a2, set, m->device->sms, rate);
    else
        products = gemm_waves_s(f, c, tiles, a2, set, m->device->sms, rate);
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
               kt_math_of(m->device, m->precision) == KT_TENSOR_CORES && kt_aligned(m, kn);
    if (!nchw && !padded)
        return 0;
    double each_s = m->device->launch_s + 2.0 * kn->bytes / 3.0 / bw;
    return 3.0 * fmax(m->runtime.host_call_s, each_s);
}

/* ---------------------------------------------------------------- normalisation blocks
 *
 * cuDNN's batch normalisation on NCHW tensors (CUDNN_BATCHNORM_SPATIAL, what PyTorch asks for
 * whenever the input is not channels-last: aten/src/ATen/native/cudnn/BatchNorm.cpp
 * getCudnnBatchNormMode) reduces each channel with a fixed part of the GPU, so its rate grows
 * with the channels and not with the batch: measured on cuDNN 8.2 (xwang233/code-snippet,
 * batchnorm3d-channels-last/V100/Tesla_V100-SXM2-32GB.md and A100/A100-SXM4-40GB.md, the
 * `contiguous` column of the forward and backward tables: BatchNorm3d training on FP16
 * NCDHW tensors), 32 channels of 112^3 stream the same bytes a second at 1, 2, 4, 8 and 16
 * samples (a V100's forward 285, 285, 279, 274, 268 GB/s), 64 channels about twice that, 2
 * channels a sixteenth. A channel's share, with the bytes this model counts (forward 3 tensors,
 * backward 5, work_kernels.c), at 32 channels (N = 1-16 on the V100, 2-16 forward and 1-2
 * backward on the A100): V100 forward 8.7 GB/s, backward 5.2; A100 forward 9.3, backward 5.6.
 * Measured in FP16 only: other element sizes are taken at the same bytes a second. PyTorch's
 * instance_norm is batch_norm over its input viewed as (1, N x C, ...) (aten/src/ATen/native/
 * Normalization.cpp `instance_norm`): N x C planes of one channel each. A runtime says which
 * (kt_runtime norm_blocks); it applies in the precisions it keeps NCHW (nchw_precisions: a
 * channels-last tensor runs cuDNN's persistent kernels instead). Other generations: no
 * measurement, no limit. */
static const double kt_norm_plane_Bps[DV_ARCH_COUNT][2] = {
    [DV_VOLTA] = {8.7e9, 5.2e9},
    [DV_AMPERE] = {9.3e9, 5.6e9},
};

/* The bandwidth kn streams at: bw, or for a normalisation's kernel under a runtime whose
 * NCHW normalisations reduce a plane a part of the GPU (kt_runtime norm_blocks), at most its
 * planes times a plane's measured rate. */
static double norm_bandwidth(const kt_model *m, const lw_kernel *kn, double bw)
{
    double plane_Bps = kt_norm_plane_Bps[m->device->arch][kn->pass == LW_FORWARD ? 0 : 1];
    if (!kn->norm || m->runtime.norm_blocks == KT_NORM_ANY || plane_Bps <= 0 ||
        !(m->runtime.nchw_precisions & (1u << m->precision)))
        return bw;
    double planes = (double)kn->out_channels;
    if (m->runtime.norm_blocks == KT_NORM_PER_SAMPLE_CHANNEL)
        planes *= (double)kn->samples;
    return fmin(bw, planes * plane_Bps);
}

kt_terms kt_terms_of(const kt_model *m, const lw_kernel *kn)
{
    kt_terms t = {0, 0, 0, 0, 0, 0, 0};
    const dv_device *d = m->device;
    if (kn->kind == LW_NONE)
        return t;
    double bw = d->stream_bw_frac * d->memory_bw_Bps;
    t.launch_s = d->launch_s;
    t.memory_s = kn->bytes / bw;
    if (kn->kind == LW_STREAM) {
        if (!kn->depthwise) {
            t.memory_s = kn->bytes / norm_bandwidth(m, kn, bw) / m->runtime.stream_rel;
            t.compute_s = kn->flops / pr_vector_flops(d, m->precision);
        } else {
            t.compute_s = depthwise_s(m, kn);
        }
        return t;
    }
    kt_tile_set set;
    double rate = product_rate(m, kn, 0, &set);
    t.call_s = kn->lib == LW_LIB_CONV ? m->params.conv_call_s : m->params.gemm_call_s;
    t.compute_s = conv_products_s(m, kn, kn->m, kn->n,
                                  channel_k_tile_k(m, kn, strided_dgrad_k(m, kn), 0), set, rate);
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
            conv_products_s(m, kn, pm, pn, channel_k_tile_k(m, kn, pk, 1), set, rate);
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
 * output read for the mask (1 of its 3 tensors); the add's forward the shortcut read (1 of 3),
 * its backward the shortcut's gradient written (1 of 3). None launches a kernel. */

/* The layer feeding input k of layer i (no inputs listed: the previous one); -1: none. */
static int input_of(const wl_workload *wl, int i, int k)
{
    const wl_layer *l = &wl->layers[i];
    if (l->n_inputs == 0)
        return k == 0 ? i - 1 : -1;
    return k < l->n_inputs ? l->inputs[k] : -1;
}

static int is_type(const wl_workload *wl, int i, wl_type type)
{
    return i >= 0 && i < wl->n_layers && wl->layers[i].type == type;
}

/* Layer i is a two-input add of a batch normalisation's output, with a ReLU next on its sum. */
static int bn_add_relu(const wl_workload *wl, int i)
{
    return is_type(wl, i, WL_ADD) && wl->layers[i].n_inputs == 2 &&
           (is_type(wl, input_of(wl, i, 0), WL_BNORM) ||
            is_type(wl, input_of(wl, i, 1), WL_BNORM)) &&
           is_type(wl, i + 1, WL_RELU) && input_of(wl, i + 1, 0) == i;
}

/* KT_BN_FUSED_XLA: the share of a fused ReLU's backward (read dy and y, write dx: 3 tensors)
 * XLA's fusion streams. Its GPU compiler expands the batch normalisation's gradient into two
 * reductions over dx and x and an element-wise dx (NVIDIA/tensorflow v1.15.2+nv20.06
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
    int in = input_of(wl, i, 0);
    if (is_type(wl, i, WL_RELU) && (is_type(wl, in, WL_BNORM) || bn_add_relu(wl, in)))
        return pass == LW_FORWARD ? 0.0 : relu_backward_share(m);
    if (bn_add_relu(wl, i))
        return 1.0 / 3.0;
    return -1;
}

/* ---------------------------------------------------------------- autograd's broadcast backward
 *
 * Under a runtime with kt_runtime.autograd_broadcast, the backward of a two-input broadcast mul
 * (y = a b, b one value a channel: squeeze-and-excitation's scale) and of a pool to one element
 * a channel run as PyTorch's autograd runs them, an op a kernel. tools/autograd/
 * derivatives.yaml, mul.Tensor: each input's gradient is the full product with the other
 * (mul_tensor_backward); the engine (torch/csrc/autograd/engine.cpp, validate_outputs) reduces
 * a gradient to its input's shape (metadata.reduce_grad, at::sum_to over the extents). So
 * da = dy b (dy read, da written), dy a (dy and a read, the product written) and its sum (the
 * product read): three kernels; where a feeds another layer too (a squeeze-and-excitation
 * block's tensor feeds its pool and the mul), autograd adds a's two gradients (InputBuffer::add:
 * both read, the sum written), a fourth. adaptive_avg_pool2d to 1x1 is input.mean({-1, -2})
 * (aten/src/ATen/native/AdaptiveAveragePooling.cpp), whose backward expands dy over the
 * extents and divides by their size (derivatives.yaml, mean.dim): dx written once, dy a value a
 * channel. The format does not say max or average: a pool of stride 1 to one element a channel
 * is how the importer writes adaptive_avg_pool2d(1) and x.mean over the extents
 * (experiments/import/layers.py, adaptive_pool); a max pool that ends at 1x1 (vgg16-cifar10's
 * last, stride 2) keeps its kernel. */

/* How many layers read layer `src`'s output. */
static int consumers(const wl_workload *wl, int src)
{
    int count = 0;
    for (int j = src + 1; j < wl->n_layers; j++) {
        int inputs = wl->layers[j].n_inputs ? wl->layers[j].n_inputs : 1;
        for (int k = 0; k < inputs; k++)
            if (input_of(wl, j, k) == src) {
                count++;
                break;
            }
    }
    return count;
}

/* A streaming kernel of `flops` that reads and writes `elems` elements of e bytes. */
static double stream_s(const kt_model *m, double flops, double elems, double e)
{
    lw_kernel kn = {.kind = LW_STREAM, .flops = flops, .bytes = elems * e, .calls = 1,
                    .pass = LW_INPUT_GRAD};
    return kt_kernel_s(m, &kn);
}

/* Layer i's input gradient as autograd runs it into *seconds, *applies 1; *applies 0: the
 * runtime does not say so, or layer i is neither such a mul nor such a pool. */
static int autograd_backward(const kt_model *m, const wl_workload *wl, int i,
                             const lw_split *split, double *seconds, int *applies, char *err)
{
    const wl_layer *l = &wl->layers[i];
    int mul = l->type == WL_MUL && l->broadcast && l->n_inputs == 2;
    lw_shape s;
    *applies = 0;
    if (!m->runtime.autograd_broadcast || !(mul || l->type == WL_POOL))
        return HS_OK;
    int rc = lw_shape_of(wl, i, split, &s, err);
    if (rc != HS_OK)
        return rc;
    double e = pr_activation_bytes(m->precision);
    double n = (double)s.samples * (double)s.out_channels * (double)s.y_spatial;
    if (!mul) {
        double n_in = (double)s.samples * (double)s.in_channels * (double)s.x_spatial;
        if (s.y_spatial != 1 || s.x_spatial == 1 || l->stride != 1)
            return HS_OK; /* not a global average: the pool's own kernel */
        *seconds = stream_s(m, n_in, n_in + n, e);
    } else {
        *seconds = stream_s(m, n, 2 * n, e) + stream_s(m, n, 3 * n, e) + stream_s(m, n, n, e);
        if (consumers(wl, input_of(wl, i, 0)) > 1)
            *seconds += stream_s(m, n, 3 * n, e);
    }
    *applies = 1;
    return HS_OK;
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
        rc = autograd_backward(m, wl, index, split, seconds, &autograd, err);
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
