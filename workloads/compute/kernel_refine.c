/* kernel_refine.c: the kernel-time model's refinements beyond its fitted core (kernel_time.c),
 * each off by default and each with its source here: the opt-in mechanisms
 * (kt_params.mechanisms, KT_MECH_*: strided input gradients, Winograd at the GEMM rate, whole K
 * tiles of channels, cuDNN's CUDA-core tiles and weight gradients, implicit GEMMs without
 * split-K, a strided window's reads) and what a runtime's keys switch on (kt_runtime: packed
 * grouped convolutions, normalisations that reduce a plane with a part of the GPU, autograd's
 * broadcast backward). kernel_time.c asks them for a depth, a rate, tiles, a
 * bandwidth or a pass's seconds (kernel_time_internal.h). */
#include "compute.h"
#include "kernel_time_internal.h"

#include <math.h>
#include <string.h>

/* ---------------------------------------------------------------- opt-in mechanisms */

int kt_mechanisms_parse(const char *list, const char *what, unsigned *mask, char *err)
{
    static const struct {
        const char *name;
        unsigned bit;
    } known[] = {{"strided-dgrad", KT_MECH_STRIDED_DGRAD},
                 {"winograd-gemm", KT_MECH_WINOGRAD_GEMM},
                 {"channel-k-tile", KT_MECH_CHANNEL_K_TILE},
                 {"cudnn-tiles", KT_MECH_CUDNN_TILES},
                 {"wgrad-cudnn", KT_MECH_WGRAD_CUDNN},
                 {"no-split-k", KT_MECH_NO_SPLIT_K},
                 {"strided-reads", KT_MECH_STRIDED_READS}};
    *mask = 0;
    if (list && strcmp(list, "none") == 0)
        return HS_OK;
    for (const char *p = list; p && *p;) {
        size_t len = strcspn(p, ",");
        int found = 0;
        for (size_t i = 0; i < sizeof known / sizeof known[0] && !found; i++)
            if (strlen(known[i].name) == len && strncmp(p, known[i].name, len) == 0) {
                *mask |= known[i].bit;
                found = 1;
            }
        if (!found) /* an empty item too: "a,,b" or a trailing comma is a typo, not a choice */
            return hs_fail(err, HS_EINPUT,
                           "%s: unknown mechanism '%.*s' (known: strided-dgrad, winograd-gemm, "
                           "channel-k-tile, cudnn-tiles, wgrad-cudnn, no-split-k, strided-reads; "
                           "or none alone)", what, (int)len, p);
        p += len + (p[len] == ',');
        if (p[-1] == ',' && *p == '\0')
            return hs_fail(err, HS_EINPUT, "%s: a trailing comma in '%s'", what, list);
    }
    return HS_OK;
}

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
int64_t kt__strided_dgrad_k(const kt_model *m, const lw_kernel *kn)
{
    if (!(m->params.mechanisms & KT_MECH_STRIDED_DGRAD) || kn->lib != LW_LIB_CONV ||
        kn->pass != LW_INPUT_GRAD || kn->stride <= 1 || kn->window <= 0)
        return kn->k;
    int64_t taps = (kn->window + kn->stride - 1) / kn->stride;
    return kn->out_channels * taps * taps;
}

/* KT_MECH_WGRAD_CUDNN: a dense weight gradient on the CUDA cores as cuDNN's backward-filter
 * kernels run it, the forward and the input gradient as by default. DeepBench's FP32 sheets
 * (conv_bench.cu: cudnnFindConvolutionBackwardFilterAlgorithm, the fastest algorithm) time
 * whichever of them is fastest, and both of its kinds differ from the default's products:
 * - its implicit GEMMs (ALGO_1) run cuDNN's own tiles, the 128 x {128, 64, 32} its
 *   backward-filter kernels' names carry: maxwell_scudnn_128x32_stridedB_splitK_large_nn,
 *   maxwell_scudnn_128x128_stridedB_splitK_{small,medium,interior}_nn,
 *   volta_scudnn_128x64_stridedB_splitK_{interior,medium}_nn, volta_scudnn_128x128_stridedB_
 *   splitK_*, turing_scudnn_128x64_stridedB_splitK_xregs_large_nn (Conv2DBackpropFilter in
 *   TensorFlow profiler traces; kt_cudnn_cuda_tiles below, either way round), not cuBLAS's
 *   256 x 128 down to 32 x 32: a weight gradient of 64 output channels pays half a 128-row
 *   tile where the default fills a 64 x 64 tile at the full rate;
 * - its Winograd is the non-fused one, the only one the backward filter has (cudnn.h,
 *   CUDNN_CONVOLUTION_BWD_FILTER_ALGO_WINOGRAD_NONFUSED; the forward has a fused one too,
 *   CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD, which the P100's sheets list for 22 of their 24 3x3
 *   forwards), whose transforms are kernels of their own (winogradWgradData4x4,
 *   winogradWgradDelta4x4) and whose 36 products are plain batched GEMMs: at the GEMM rate,
 *   as winograd-gemm puts every pass's (kt__winograd_pass_rel).
 * Tensor-core weight gradients (DeepBench forces ALGO_1 there; their tiles are cuDNN's
 * already) and grouped ones keep the default. Off by default: refitted, it lowers the FP32
 * weight gradients' held-out errors but not the held-out median (workloads/README.md). */
static int wgrad_cudnn(const kt_model *m, const lw_kernel *kn)
{
    return (m->params.mechanisms & KT_MECH_WGRAD_CUDNN) && kn->lib == LW_LIB_CONV &&
           kn->pass == LW_WEIGHT_GRAD && kn->groups == 1;
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
double kt__winograd_pass_rel(const kt_model *m, const lw_kernel *kn)
{
    if (!(m->params.mechanisms & KT_MECH_WINOGRAD_GEMM) && !wgrad_cudnn(m, kn))
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
int64_t kt__channel_k_tile_k(const kt_model *m, const lw_kernel *kn, int64_t k, int padded)
{
    if (!(m->params.mechanisms & KT_MECH_CHANNEL_K_TILE) || kn->lib != LW_LIB_CONV ||
        kn->groups != 1 || kn->pass == LW_WEIGHT_GRAD ||
        kt_math_of(m->device, m->precision) != KT_TENSOR_CORES ||
        (!padded && !kt__aligned(m, kn)))
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

/* KT_MECH_CUDNN_TILES: the thread-block tiles of a convolution's products on the CUDA cores.
 * By default they are cuBLAS's and CUTLASS's, 256 x 128 down to 32 x 32 (kernel_time.c). cuDNN
 * runs its own kernels, whose names carry their tiles, all 128 rows by 128, 64 or 32: the
 * forward's maxwell_scudnn_128x128_relu_*, 128x64_relu_*, 128x32_relu_{small,medium,interior}
 * _nn, the input gradient's *_128x32_stridedB_small_nn (TensorFlow's Conv2DBackpropInput), the
 * weight gradient's maxwell_scudnn_128x32_stridedB_splitK_large_nn and volta_scudnn_128x64_
 * stridedB_splitK_{interior,medium}_nn (Conv2DBackpropFilter), and its fused Winograd's
 * maxwell_scudnn_winograd_128x128_ldg1_ldg4_tile148n_nt (nvprof and TensorFlow profiler
 * traces of cuDNN 7, e.g. tensorflow/tensorflow issues' profiles; volta_ and turing_ the same
 * families). The names do not say which of the product's dimensions takes the 128, so either
 * way round is offered and the faster taken: a product of 64 output channels pays half a
 * 128-row tile, not a 64 x 64 tile at full rate, nor a 256 x 128 tile's reuse. Dense
 * convolutions on the CUDA cores only (FP32; FP16 on a GPU without tensor cores): the
 * tensor-core tiles are cuDNN's already (kt_conv_tensor_tiles), grouped convolutions run
 * kernels of their own, no DeepBench kernel measures them. */
static const int64_t kt_cudnn_cuda_tiles[][2] = {{128, 128}, {128, 64}, {64, 128},
                                                 {128, 32},  {32, 128}};

kt_tile_set kt__conv_cuda_tiles(const kt_model *m, const lw_kernel *kn, kt_tile_set set)
{
    if ((!(m->params.mechanisms & KT_MECH_CUDNN_TILES) && !wgrad_cudnn(m, kn)) ||
        kn->lib != LW_LIB_CONV || kn->groups != 1)
        return set;
    return (kt_tile_set){kt_cudnn_cuda_tiles,
                         (int)(sizeof kt_cudnn_cuda_tiles / sizeof kt_cudnn_cuda_tiles[0])};
}

/* KT_MECH_NO_SPLIT_K: whether a convolution's forward or input gradient runs its implicit GEMM
 * without split-K. By default a product of fewer tiles than SMs splits its depth K over more
 * thread blocks (kernel_time.c kt__gemm_waves_s, as cuBLAS's GEMMs do). cuDNN's convolution
 * kernels say in their names which split: only the weight gradient's do
 * (maxwell_scudnn_128x32_stridedB_splitK_large_nn, volta_scudnn_128x64_stridedB_splitK_
 * {interior,medium}_nn, turing_scudnn_128x64_stridedB_splitK_xregs_large_nn for
 * Conv2DBackpropFilter), the forward's (volta_scudnn_128x64_relu_interior_nn_v1 for Conv2D,
 * maxwell_scudnn_128x128_relu_{small,medium,interior}_nn) and the input gradient's
 * (maxwell_scudnn_128x128_stridedB_interior_nn, *_128x32_stridedB_small_nn for
 * Conv2DBackpropInput) do not: TensorFlow profiler traces of cuDNN 7 on Maxwell, Volta and
 * Turing. So a forward of few output positions and a deep reduction (7 x 7 x 16 positions by
 * 2,048 channels: ResNet-50's last stage at a small batch) runs its few tiles over the whole
 * depth, on a part of the SMs. Winograd's batched products (36 a tile) fill the SMs anyway. */
int kt__conv_whole_k(const kt_model *m, const lw_kernel *kn)
{
    return (m->params.mechanisms & KT_MECH_NO_SPLIT_K) && kn->lib == LW_LIB_CONV &&
           kn->pass != LW_WEIGHT_GRAD;
}

/* KT_MECH_STRIDED_READS: the bytes a convolution's forward moves when its window is narrower
 * than its stride (a 1 x 1 window at stride 2: ResNet's projection shortcuts and downsampling
 * 1 x 1 convolutions). The default counts the whole input read (work_kernels.c: input,
 * weights and output once each). Such a window touches R of every s input rows and columns:
 * a row it skips is never read. DRAM is read in 32-byte sectors (CUDA C++ Programming Guide,
 * Device Memory Accesses: global memory is accessed in 32-, 64- or 128-byte transactions of
 * naturally aligned sectors), so a skipped column saves bytes only where a position's
 * elements fill a sector on their own: on NHWC tensors (cuDNN's tensor-core kernels, the
 * layout_s note in kernel_time.c) whose channels hold 32 bytes or more; on NCHW (the CUDA
 * cores' kernels) a row's columns share its sectors and are read whole. The input's share
 * read: R/s (rows) times R/s again (columns, NHWC of 32-byte positions). The weight gradient
 * reads the same input but is not priced so here (its kernels run other tiles); nor is the
 * input gradient, which writes every position of dx, zeros included. */
double kt__conv_bytes(const kt_model *m, const lw_kernel *kn)
{
    if (!(m->params.mechanisms & KT_MECH_STRIDED_READS) || kn->lib != LW_LIB_CONV ||
        kn->pass != LW_FORWARD || kn->window <= 0 || kn->window >= kn->stride)
        return kn->bytes;
    double e = pr_activation_bytes(m->precision), g = (double)kn->groups;
    double n_out = (double)kn->samples * g * (double)kn->out_channels *
                   (double)kn->y_extent[0] * (double)kn->y_extent[1];
    double weights = g * (double)kn->out_channels * (double)kn->in_channels *
                     (double)(kn->window * kn->window);
    double n_in = kn->bytes / e - weights - n_out; /* work_kernels.c conv_kernel's sum */
    double share = (double)kn->window / kn->stride;
    if (kt_math_of(m->device, m->precision) == KT_TENSOR_CORES &&
        (double)kn->in_channels * g * e >= 32.0)
        share *= share;
    return e * (n_in * share + weights + n_out);
}

/* ---------------------------------------------------------------- grouped convolutions
 *
 * A grouped convolution (g > 1 groups of C'/g > 1 input channels: ResNeXt's 32 groups of 4 to
 * 32) is one library call: cuDNN (>= 7) takes the group count (cudnnSetConvolutionGroupCount,
 * which PyTorch sets, aten/src/ATen/cudnn/Descriptors.h ConvolutionDescriptor::set;
 * DeepLearningExamples' TensorFlow ResNeXt calls tf.nn.conv2d with a [3, 3, C/32, C] filter,
 * TensorFlow/Classification/ConvNets/model/blocks/conv2d_block.py, one grouped Conv2D).
 * By default the model prices its g products each on tiles of its own (kt__gemm_waves_s's
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

/* The dimensions and product count kt__gemm_waves_s prices kn's m x n x k products at: for a
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
double kt__conv_products_s(const kt_model *m, const lw_kernel *kn, int64_t pm, int64_t pn,
                           int64_t pk, kt_tile_set set, double rate)
{
    int64_t groups = grouped_pack(m, kn, &pm, &pn);
    if (kt__conv_whole_k(m, kn))
        return kt__gemm_waves_whole_k_s(pm, pn, pk, groups, set, m->device->sms, rate);
    return kt__gemm_waves_s(pm, pn, pk, groups, set, m->device->sms, rate);
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
double kt__norm_bandwidth(const kt_model *m, const lw_kernel *kn, double bw)
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

/* How many layers read layer `src`'s output. A scan of the later layers, not a table kept per
 * workload: it runs only for a broadcast mul's input gradient under a runtime that says
 * autograd_broadcast, once per such layer and split priced (a few dozen in an SE network). */
static int consumers(const wl_workload *wl, int src)
{
    int count = 0;
    for (int j = src + 1; j < wl->n_layers; j++) {
        for (int k = 0; k < wl_n_inputs(&wl->layers[j]); k++)
            if (wl_input_of(wl, j, k) == src) {
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
int kt__autograd_backward(const kt_model *m, const wl_workload *wl, int i,
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
        if (consumers(wl, wl_input_of(wl, i, 0)) > 1)
            *seconds += stream_s(m, n, 3 * n, e);
    }
    *applies = 1;
    return HS_OK;
}
