/* compute.h: how long a GPU takes for one kernel of a layer: the kernel-time model (kt_).
 *
 * A roofline whose efficiency falls for small kernels, per kernel (work.h says what a kernel
 * computes and moves):
 *
 *   t = max(host, launch + call + max(t_compute, bytes / (stream_frac x bandwidth)))
 *
 * plus, for a tensor-core convolution on a runtime's NCHW tensors, cuDNN's conversions of its
 * tensors to NHWC and back (kt_runtime nchw_precisions).
 *
 * A matrix product (convolution, fully connected) runs as thread blocks of one output tile
 * each. The library picks, among its tiles (cuBLAS's and CUTLASS's 256x128 down to 32x32 on
 * the CUDA cores; cuDNN's tensor-core convolutions 256x128 to 128x64, the tiles their kernel
 * names carry), the tile that finishes first; when the tiles are fewer than the SMs it splits
 * the K dimension too (split-K, at least 256 deep). The blocks run in waves of one per SM,
 * and every wave costs a full tile's work on every SM:
 *
 *   t_compute = waves x 2 tm tn ceil(K / split) / (eff x peak / SMs)
 *
 * so a product too small to fill the GPU, or one wave too many, costs what the GPU spends, not
 * what the FLOPs need: that is why a convolution split 32 ways is far from 32 times faster.
 * A convolution's library may run it otherwise: on the CUDA cores a 3x3 or 5x5 window at
 * stride 1 runs as Winograd's F(4x4,3x3) / F(2x2,5x5) (Lavin and Gray, CVPR 2016: 36 batched
 * products of the 6x6 tiles, a fourth (3x3) of the multiplications, plus three streamed
 * transforms), chosen when faster, as cuDNN chooses (DeepBench lists WINOGRAD(_NONFUSED) for
 * most FP32 3x3 convolutions and only implicit GEMMs on tensor cores). Tensor cores need the
 * channels of a group in multiples of 8 (FP16, BF16) or 4 (TF32) (precision.h); other
 * products run on the CUDA cores. Element-wise kernels stream their bytes (FLOPs at the FP32
 * CUDA-core rate rarely matter).
 *
 * The efficiencies (kt_params) are few and global: fitted per GPU generation and arithmetic
 * (CUDA cores, tensor cores) on Baidu DeepBench's measured GEMM and convolution kernels
 * (V100, P100, T4, FP32 and FP16), a fixed quarter of them held out
 * (experiments/compute/fit.sh prints the fit and the held-out errors; workloads/README.md,
 * "Compute", quotes them). Generations DeepBench did not measure (Ampere, Hopper) take
 * Volta's; TF32, which DeepBench did not measure either, takes the fraction of its peak
 * NVIDIA's CUTLASS TF32 GEMMs reached with CUDA 11.2 (kernel_time.c). The peak rates,
 * bandwidth, SM count and launch overhead come from device.h; `peak` above is the rate as
 * the board sustains it (dv_sustained_flops: less than the datasheet's on a board whose power
 * limit holds its clock down, the A100 PCIe 40 GB).
 *
 * What a training framework adds (kt_runtime: its host time a kernel, its kernel library's
 * efficiency against DeepBench's cuDNN and cuBLAS, its input pipeline, its optimizer's
 * kernels) is the runtime's to say; kt_runtime_neutral() adds nothing.
 *
 * Folder: workloads/compute/ (this is its main header): layer work (work.h, lw_), precision
 * (precision.h, pr_) and this model (kt_: kernel_time.c its fitted core, kernel_refine.c the
 * opt-in mechanisms and runtime keys that refine it, kernel_time_internal.h what the two
 * share; anchored.c --compute model). May include workloads/, workloads/common/ and the C
 * library; the expansion, the analytic model and the memory footprint may include it. */
#ifndef COMPUTE_H
#define COMPUTE_H

#include <stdint.h>

#include "device.h"
#include "precision.h"
#include "work.h"

/* Which units multiply: the CUDA cores (FP32, or FP16 inputs in FP32 arithmetic without
 * tensor cores) or the tensor cores (mixed, bf16, tf32). */
typedef enum { KT_CUDA_CORES = 0, KT_TENSOR_CORES, KT_MATH_COUNT } kt_math;

/* The model's efficiencies for one device in one precision (kt_params_for). */
typedef struct {
    double gemm_eff;      /* fraction of the arithmetic's peak a full wave of a library's
                           * matrix-product tiles reaches (cuBLAS) */
    double conv_rel[LW_PASS_COUNT]; /* a convolution's implicit GEMM per pass (forward, input
                                     * gradient, weight gradient) relative to gemm_eff (cuDNN) */
    double winograd_rel;  /* Winograd's batched products relative to gemm_eff (CUDA cores) */
    double unaligned_eff; /* a tensor-core product whose channels are not a multiple of
                           * pr_tensor_multiple: fraction of the CUDA cores' peak (FP16's, or
                           * FP32's for tf32) it reaches instead */
    double gemm_call_s;   /* seconds a dense-algebra call costs the GPU beyond the launch */
    double conv_call_s;   /* seconds a convolution call costs beyond the launch (its setup
                           * kernels: precomputed indices, transforms) */
    double eff_3d;        /* 3-D convolutions relative to 2-D (1: no kernel measurement) */
    unsigned mechanisms;  /* the opt-in refinements in force (KT_MECH_*); 0: none, the model
                           * the committed efficiencies were fitted with */
} kt_params;

/* Opt-in refinements of the kernel-time model (kernel_refine.c gives each one's source). Off by
 * default: each explains a part of DeepBench's convolution errors, but refitted with it the
 * efficiencies move some dataset's whole-network predictions away from the measured runs, or
 * (cudnn-tiles, wgrad-cudnn) the held-out kernels' median error up (experiments/compute/fit.sh
 * --mechanisms fits and reports them; experiments/README.md). */
enum {
    KT_MECH_STRIDED_DGRAD = 1u << 0, /* an input gradient at stride s > 1 gives every input
                                      * position the taps of the window's largest phase,
                                      * ceil(R/s) x ceil(S/s), not the R x S / s^2 that land */
    KT_MECH_WINOGRAD_GEMM = 1u << 1, /* Winograd's batched products at the library's GEMM
                                      * rate, not at its implicit GEMM's pass efficiency */
    KT_MECH_CHANNEL_K_TILE = 1u << 2, /* a tensor-core convolution's forward and input
                                       * gradient reduce over each filter tap's channels in
                                       * whole K tiles: C (forward) or F (input gradient)
                                       * rounded up to the tile's depth, 32 elements of 16 bits
                                       * or 16 of TF32 (dense convolutions) */
    KT_MECH_CUDNN_TILES = 1u << 3,    /* a dense convolution's products on the CUDA cores
                                       * (implicit GEMM and Winograd) run on cuDNN's own tiles,
                                       * 128 x 128, 128 x 64 and 128 x 32 either way round,
                                       * not on cuBLAS's and CUTLASS's 256 x 128 to 32 x 32 */
    KT_MECH_WGRAD_CUDNN = 1u << 4,    /* a dense weight gradient on the CUDA cores as cuDNN's
                                       * backward-filter kernels run it: its implicit GEMM on
                                       * their 128 x {128, 64, 32} tiles, its Winograd (the
                                       * non-fused one, the only one it has) at the GEMM rate;
                                       * the forward and input gradient untouched */
    KT_MECH_NO_SPLIT_K = 1u << 5,     /* a convolution's forward and input gradient (implicit
                                       * GEMM) run a thread block a tile over the whole
                                       * reduction, never split-K (the weight gradient does) */
    KT_MECH_STRIDED_READS = 1u << 6,  /* a convolution's forward whose window is narrower than
                                       * its stride reads only the input rows it touches (and
                                       * positions, on NHWC tensors of 32-byte positions) */
};

/* The mask of a comma-separated list of mechanism names ("strided-dgrad", "winograd-gemm",
 * "channel-k-tile", "cudnn-tiles", "wgrad-cudnn", "no-split-k", "strided-reads"; "" or "none"
 * alone: 0) into *mask. HS_EINPUT naming `what` (the flag) and the unknown name; an empty item
 * or a trailing comma is refused too. */
int kt_mechanisms_parse(const char *list, const char *what, unsigned *mask, char *err);

/* The planes a runtime's NCHW normalisation kernels (bnorm) reduce, each with a fixed part
 * of the GPU (kernel_refine.c, cuDNN's measured rate a plane): none (the device's bandwidth), a
 * channel (batch normalisation) or a sample's channel (instance normalisation run as batch
 * normalisation over a (1, N x C, ...) view of its input). */
typedef enum { KT_NORM_ANY = 0, KT_NORM_PER_CHANNEL, KT_NORM_PER_SAMPLE_CHANNEL } kt_norm_blocks;

/* How a runtime fuses a batch normalisation with the ReLU after it and with a residual add and
 * its ReLU (kernel_time.c, "fused batch normalisation"): not at all; in one library kernel
 * (cuDNN's batch normalisation with an activation and a side input, MXNet's BatchNormAddRelu),
 * which reads the ReLU's output once for its backward's mask; or as XLA's compiler fuses the
 * expanded normalisation, the ReLU's gradient recomputed inside both kernels of the
 * normalisation's backward, each reading the ReLU's output and its gradient. */
typedef enum { KT_BN_UNFUSED = 0, KT_BN_FUSED, KT_BN_FUSED_XLA } kt_bn_fusion;

/* What the training software adds to the kernels (a runtime, issue 26's `--runtime`). The
 * neutral runtime adds nothing: kernels as DeepBench's libraries run them, no host limit, no
 * input pipeline, the workload's own weight-update times. */
typedef struct {
    double host_call_s;   /* host seconds the framework spends launching one kernel: a kernel
                           * lasts at least this long (the GPU waits for the host); 0: none */
    double step_host_s;   /* host seconds each training step spends with the GPU drained (after
                           * the step's last read of a GPU value, before its next launch: a
                           * progress bar drawn, the training loop's hooks), added to the
                           * iteration (kt_compute_step_host_s); 0: none */
    double stream_rel;    /* the framework's element-wise kernels' bandwidth relative to the
                           * streaming roofline (its batch normalisation, activations, adds
                           * moving more than their compulsory bytes, or several kernels
                           * where one would do); 1: the roofline */
    double depthwise_rel; /* the framework's depthwise convolutions' arithmetic rate relative
                           * to the CUDA cores' FP32 peak (its own direct kernels: a thread an
                           * output, the window's reads through the caches, FP32 accumulation),
                           * the bytes still at the roofline; 1: the peak */
    int depthwise_by_bytes; /* 1: that rate is a rate of bytes, the window's reads at
                             * depthwise_rel x the FP32 peak for 4-byte elements, twice the
                             * elements a second for 2-byte ones (kernel_time.c); 0: a rate of
                             * FLOPs, the same in every precision */
    double library_rel;   /* the framework's kernel library's matrix-product efficiency
                           * relative to the DeepBench fit (cuDNN 7.6, cuBLAS 10); 1: the same.
                           * What a runtime calibrates on one GPU type, one network's
                           * single-GPU throughput (a named calibration row) */
    double loader_workers;      /* input pipeline: the loader's worker processes a GPU
                                 * (each decodes and augments whole samples); 0: no limit */
    double loader_samples_per_s; /* samples a second one loader worker delivers (decode,
                                  * augmentation, collation); 0: no limit */
    double optimizer_kernels_per_tensor; /* kernels the optimizer launches per parameter tensor
                                          * per step (a fused multi-tensor optimizer: a
                                          * fraction); 0: the optimizer is not timed */
    double optimizer_bytes_per_weight;   /* bytes its kernels stream per weight per step */
    unsigned nchw_precisions; /* bit p (1u << pr_precision): in precision p the framework
                               * keeps its tensors NCHW, and a convolution cuDNN runs on the
                               * tensor cores transforms them: each of its three tensors (two
                               * read, one written) converted to NHWC or back by a kernel of
                               * its own that reads and writes it once (kernel_time.c); 0:
                               * NHWC, or no convolution converts */
    int pads_channels;    /* 1: the framework's cuDNN (7.6.3 or later) can pad a convolution
                           * whose channels the tensor cores cannot take up to their multiple
                           * and run it there: the padded convolution plus the transformation
                           * of its tensors (as nchw_precisions'), when that is faster than the
                           * CUDA cores (kernel_time.c); 0: it runs on the CUDA cores (cuDNN
                           * 7.6.2, DeepBench's) */
    kt_bn_fusion bn_act_fused; /* KT_BN_FUSED, KT_BN_FUSED_XLA: batch normalisation runs
                                * fused with the ReLU after it, and with a residual add and
                                * its ReLU: those ReLUs and adds launch nothing of their own
                                * and stream only the bytes the fusion adds; KT_BN_UNFUSED
                                * (0): separate kernels */
    int autograd_broadcast; /* 1: the backward of a two-input broadcast mul (squeeze-and-
                             * excitation's scale) and of a pool of stride 1 to one element a
                             * channel (an adaptive average pool) as PyTorch's autograd runs
                             * them, op by op (kernel_refine.c); 0: the mul's backward one kernel
                             * of three tensors, the pool's as max pooling's (work_kernels.c) */
    unsigned optimizer_sync_precisions; /* bit p: in precision p the framework reads a GPU
                                         * value on the host before its optimizer (AMP's
                                         * inf check), so the optimizer's kernels are
                                         * launched with the GPU drained: a tensor's update
                                         * lasts at least its kernels' host launches
                                         * (host_call_s each); 0: hidden behind the queue */
    int optimizer_every;  /* iterations per optimizer step (gradient accumulation: the
                           * update, its kernels and their host time once in this many
                           * iterations, an iteration paying its share); 0 or 1: every one */
    double grad_copy_kernels_per_tensor; /* kernels a parameter tensor's gradient costs on
                                          * each GPU when it is allreduced across replicas
                                          * (DDP's copy into its bucket and back), each
                                          * reading and writing the gradient once; 0: none */
    double norm_buffer_kernels; /* kernels a batch normalisation's buffers cost each forward
                                 * on each GPU of a data-parallel run (DDP's broadcast of the
                                 * buffers, copied back one a kernel); 0: none */
    kt_norm_blocks norm_blocks; /* the planes its normalisations on NCHW tensors (in
                                 * nchw_precisions) reduce at a plane's rate (kernel_refine.c
                                 * kt__norm_bandwidth); KT_NORM_ANY: the device's bandwidth */
    int packs_groups;     /* 1: a grouped convolution's groups packed side by side into the
                           * library's tiles, one product a pass (kernel_refine.c
                           * grouped_pack); 0: each group its own product on its own tiles */
} kt_runtime;

/* The runtime that adds nothing (the values above). */
kt_runtime kt_runtime_neutral(void);

/* The efficiencies of `device` in `precision`: its generation's, fitted on DeepBench (see
 * experiments/compute/fit.sh; Ampere and Hopper take Volta's; TF32 its own, sourced). */
kt_params kt_params_for(const dv_device *device, pr_precision precision);

/* Which units multiply in `precision` on `device`. */
kt_math kt_math_of(const dv_device *device, pr_precision precision);

/* A device in a precision, with the model's parameters and a runtime: what a kernel time
 * needs. */
typedef struct {
    const dv_device *device;
    pr_precision precision;
    kt_params params;
    kt_runtime runtime;
} kt_model;

/* The model of device `name` (device.h: a name or model label) in `precision` with the fitted
 * parameters and the neutral runtime. HS_EINPUT naming --gpu for an unknown device,
 * --precision for a precision the device cannot compute in. */
int kt_model_init(kt_model *model, const char *device, pr_precision precision, char *err);

/* The terms of a kernel's time, for fitting and explaining. */
typedef struct {
    double launch_s;   /* the device's launch overhead (0 for LW_NONE) */
    double call_s;     /* the library call's own cost (kt_params gemm_call_s, conv_call_s) */
    double compute_s;  /* FLOP time, quantised into tiles and waves, with the efficiencies (a
                        * Winograd convolution: its products and its transforms) */
    double memory_s;   /* bytes / (stream_frac x bandwidth) */
    double layout_s;   /* the runtime's NCHW tensors, or padded channels, converted for a
                        * tensor-core convolution and back: kernels of their own, after and
                        * before it (kt_runtime nchw_precisions, pads_channels; 0 otherwise) */
    int winograd;      /* 1: the convolution runs as Winograd's algorithm */
    int padded;        /* 1: its channels padded to run on the tensor cores (kt_runtime
                        * pads_channels) */
} kt_terms;

/* The terms of one kernel. */
kt_terms kt_terms_of(const kt_model *model, const lw_kernel *kernel);

/* Seconds of one kernel: max(host, launch + call + max(compute, memory)) + layout; 0 for
 * LW_NONE. */
double kt_kernel_s(const kt_model *model, const lw_kernel *kernel);

/* Seconds of pass `pass` of layer `index` of wl at one GPU's cut `split` (work.h): the API the
 * expansion calls per task: the sum of its kernels' calls (lw_kernels_of), run one after
 * another. Errors as lw_kernel_of. */
int kt_pass_s(const kt_model *model, const wl_workload *wl, int index, const lw_split *split,
              lw_pass pass, double *seconds, char *err);

/* ---------------------------------------------------------------- --compute model
 *
 * A run's kernels from the model (--compute model): every kernel at the shape one GPU really
 * computes, on the platform's GPU, anchored on what the workload measured, so the measurement
 * keeps what the model cannot know and the model adds what the measurement cannot know: a
 * split or smaller kernel, another GPU. Where every layer's time was measured (XML time_s), a
 * layer's kernel lasts its measured time (at the calibration batch, unsplit, on the
 * calibration device) times the model's ratio of the two shapes and devices. Where only the
 * network's total was measured (sample_time_s, ParaDL's files), the per-layer times are
 * ParaDL's FLOP-proportional spread, not a measurement (it gives batch normalisation, ReLU
 * and residual adds 0.7% of ResNet-50, the model about half): every kernel then lasts its model time
 * times one factor, the measured total over the model's at the calibration batch. Without a
 * measurement (calibration method none) the model's times stand alone. */
#define KT_SCALE_MEMO 64 /* network factors kt_compute remembers (a search's sample counts) */

typedef struct kt_compute {
    kt_model device;       /* the platform's GPU */
    kt_model calib;        /* the GPU the workload was measured on (when anchored) */
    int anchored;          /* 1: measured times scaled by the model's ratios */
    int kernels_only;      /* 1: asked not to anchor (--compute kernels) */
    double network_scale;  /* anchored on the network's total: measured over modelled
                            * seconds per sample at the calibration batch (0: per layer, or
                            * at each kernel's samples when the batch is not said) */
    double update_scale;   /* weight updates (memory-bound) on the device: the calibration
                            * device's bandwidth over this one's (1 when not anchored: the
                            * workload's update times are then the model's own) */
    /* Without a calibration batch every kernel takes the network's factor at its own samples,
     * a whole-network sum: these remember the last ones by samples (slot samples mod
     * KT_SCALE_MEMO; 0 samples: empty). A cache: it changes no result. */
    int64_t memo_samples[KT_SCALE_MEMO];
    double memo_scale[KT_SCALE_MEMO];
} kt_compute;

/* How a run's kernels are timed. */
typedef struct {
    int anchor;         /* 1: anchored on the workload's measurement where it has one
                         * (--compute model); 0: the kernels alone, a measurement ignored
                         * (--compute kernels) */
    kt_runtime runtime; /* what the training software adds (both models take it) */
    pr_precision precision; /* --precision the job trains in (PR_FP32 by default) */
} kt_options;

/* Anchored, the neutral runtime: what --compute model does. */
kt_options kt_options_default(void);

/* The kernel times of workload wl on GPU `device` (device.h name or label) in the options'
 * precision (the measurement, anchoring them, is FP32's), as `options` says. HS_EINPUT naming
 * --compute when the device or (anchored) the workload's calibration device is unknown to the
 * device table, --precision when the GPU cannot train in it. */
int kt_compute_init_with(kt_compute *c, const wl_workload *wl, const char *device,
                         const kt_options *options, char *err);

/* "kernels" when c was asked not to anchor (--compute kernels), else "model": what reports
 * call c's times. */
const char *kt_compute_name(const kt_compute *c);

/* kt_compute_init_with the default options. */
int kt_compute_init(kt_compute *c, const wl_workload *wl, const char *device, char *err);

/* Seconds of pass `pass` of layer `index` at `split` under c. Errors as lw_kernel_of. */
int kt_compute_pass_s(const kt_compute *c, const wl_workload *wl, int index,
                      const lw_split *split, lw_pass pass, double *seconds, char *err);

/* Seconds of one copy of `elems` elements inside the GPU's memory (read once, written once: an
 * element-wise kernel), anchored as c anchors the network's kernels (per-layer anchoring has
 * no measured copy: the model's time stands); `samples` as for the kernel it serves. What
 * putting gathered channel slices in place costs (workloads/strategy/strategy.h). */
int kt_compute_copy_s(const kt_compute *c, const wl_workload *wl, double elems, int64_t samples,
                      double *seconds, char *err);

/* Seconds of the weight update of layer `index` on a GPU that holds 1/parts of its weights
 * (filter and channel parallelism split them; parts <= 1: all): the workload's measured
 * update (wu_s, carried to this GPU's bandwidth when anchored) plus the runtime's optimizer
 * kernels for each of the layer's parameter tensors (a weight, a fully connected layer's bias,
 * a batch normalisation's scale and shift), a launch each, each GPU streaming its share of the
 * weights; in the runtime's optimizer_sync_precisions at least the host's launches of those
 * kernels, host_call_s each;
 * divided by the runtime's optimizer_every. 0 when there is nothing to time. */
double kt_compute_update_s(const kt_compute *c, const wl_workload *wl, int index, double parts);

/* Seconds the data-parallel gradient reduction adds to layer `index`'s update on a GPU that
 * holds 1/parts of its weights, gradients of `grad_elem_bytes` each: the runtime's
 * grad_copy_kernels_per_tensor for each parameter tensor (as kt_compute_update_s counts them),
 * each a launch plus the share's gradient read and written once. Every iteration (the reducer
 * runs whenever the gradients are allreduced); 0 without such kernels or parameter tensors. */
double kt_compute_grad_copy_s(const kt_compute *c, const wl_workload *wl, int index, double parts,
                              double grad_elem_bytes);

/* Seconds autocast's casts add to each pass of layer `index` (a convolution, deconvolution or
 * fully connected layer) on a GPU that holds 1/parts of its weights, in a precision with FP32
 * master weights: its FP32 weight cast to the compute format before its forward, its gradient
 * cast back after its backward, a kernel a parameter tensor each way (a fully connected
 * layer's bias too, its bytes not in the format), each reading and writing the share once,
 * at least the runtime's host_call_s. 0 otherwise (no weights, other layers, FP32, TF32). */
double kt_compute_autocast_s(const kt_compute *c, const wl_workload *wl, int index, double parts);

/* Seconds the replicas' buffer broadcast adds to layer `index`'s forward on a GPU of a
 * data-parallel run: the runtime's norm_buffer_kernels launches for a batch normalisation (its
 * few channels' values stream in no time), 0 for any other layer. */
double kt_compute_buffer_sync_s(const kt_compute *c, const wl_workload *wl, int index);

/* Seconds one GPU's input pipeline needs for an iteration of `batch` samples split
 * `data_groups` ways where they enter the network (st_input_groups: a strategy's data-parallel
 * groups, a plan's first layer's data split): each GPU's loader prepares
 * batch / data_groups samples, its loader_workers at loader_samples_per_s each (0: the runtime
 * sets no limit, or c is NULL: measured times, no loader). The workers prepare the next batches
 * while the GPU computes (a DataLoader's prefetch), so an iteration lasts at least this, and no
 * longer for it when the GPU is slower (hs_estimate_input_floor). */
double kt_compute_input_s(const kt_compute *c, int64_t batch, int data_groups);

/* Seconds a training step's host spends with every GPU idle, added to the iteration before the
 * input floor (hs_times_host_step): the runtime's step_host_s (0 when c is NULL, measured
 * times, or the runtime says none). A data-parallel step waits for its slowest rank, so the
 * whole job pays what one rank's host spends (a progress bar drawn on rank 0 alone). */
double kt_compute_step_host_s(const kt_compute *c);

/* Whether two device names (device.h names or labels) compute alike: the same peak rates,
 * sustained fraction and memory bandwidth (a V100 of 16 or 32 GB; not an A100 SXM4 and the
 * 250 W PCIe board). Unknown names are alike only when equal. */
int kt_same_compute(const char *a, const char *b);

/* The precision a job timed by c trains in: c's, or fp32 (NULL: the measured times, which
 * are fp32's; a job in another precision needs the compute model, sim/run/job.c). */
pr_precision kt_precision(const kt_compute *c);

/* Bytes per element of a model-parallel message (activations, their gradients, halos, pipeline
 * sends) and of a weight-gradient message in the job's precision (kt_precision); a runtime's
 * gradient bytes win for the gradients (strategy.h, st_gradient_bytes). Both derivations
 * count message bytes with these. */
double kt_message_bytes(const kt_compute *c);
double kt_gradient_bytes(const kt_compute *c);

/* Forward + backward seconds per sample of the whole network on one GPU at `batch` samples
 * (every layer whole, every pass): what a per-sample measurement at that batch compares with.
 * Weight updates are not included (the measurements leave them out too). */
int kt_sample_s(const kt_model *model, const wl_workload *wl, int64_t batch, double *seconds,
                char *err);

#endif
