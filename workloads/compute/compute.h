/* compute.h: how long a GPU takes for one kernel of a layer: the kernel-time model (kt_).
 *
 * A roofline whose efficiency falls for small kernels, per kernel (work.h says what a kernel
 * computes and moves):
 *
 *   t = launch + max(t_compute, bytes / (eff_bw x bandwidth))
 *
 * A matrix product (convolution, fully connected) runs as thread blocks of one output tile
 * each. The library picks, among cuBLAS's usual tiles (256x128 down to 64x64; NVIDIA's "Matrix
 * Multiplication Background User's Guide"), the tile that finishes first; when the tiles are
 * fewer than the SMs it splits the K dimension too (split-K, at least 256 deep). The blocks
 * run in waves of one per SM, and every wave costs a full tile's work on every SM:
 *
 *   t_compute = waves x 2 tm tn ceil(K / split) / (eff x peak / SMs)
 *
 * so a product too small to fill the GPU, or one wave too many, costs what the GPU spends, not
 * what the FLOPs need: that is why a convolution split 32 ways is far from 32 times faster.
 * Element-wise kernels stream their bytes (FLOPs at the FP32 CUDA-core rate rarely matter).
 *
 * Efficiencies (kt_params) are few and global; they were fitted once on the V100 per-sample
 * times the shipped workloads carry (experiments/compute/fit.sh prints the fit, its errors and
 * the leave-one-out errors) and are the same for every device, whose peak rates, bandwidth,
 * SM count and launch overhead come from device.h. They describe the ParaDL measurements'
 * framework (Chainer on cuDNN) as much as the V100: see workloads/README.md ("Compute") for
 * what four measured points can and cannot tell.
 *
 * Folder: workloads/compute/ (this is its main header): layer work (work.h, lw_), precision
 * (precision.h, pr_) and this model (kt_). May include workloads/, workloads/common/ and the C
 * library; the expansion, the analytic model and the memory footprint may include it. */
#ifndef COMPUTE_H
#define COMPUTE_H

#include <stdint.h>

#include "device.h"
#include "precision.h"
#include "work.h"

typedef struct {
    double eff_matmul;  /* fraction of the peak a full wave of tiles achieves (FP32 GEMM) */
    double tensor_rel;  /* tensor-core GEMMs' efficiency relative to FP32 GEMMs (source:
                         * Markidis et al. 2018, cuBLAS on V100: 66% of tensor peak vs 76%
                         * of FP32 peak) */
    double eff_3d;      /* 3-D convolutions' efficiency relative to 2-D ones */
    double eff_bw;      /* fraction of the memory bandwidth kernels achieve */
} kt_params;

/* A device in a precision, with the model's parameters: what a kernel time needs. */
typedef struct {
    const dv_device *device;
    pr_precision precision;
    kt_params params;
} kt_model;

/* The parameters fitted by experiments/compute/fit.sh (the values and the fit's errors are in
 * workloads/README.md). */
kt_params kt_fitted(void);

/* The model of device `name` (device.h: a name or model label) in `precision` with the fitted
 * parameters. HS_EINPUT naming --gpu for an unknown device, --precision for a precision the
 * device cannot compute in. */
int kt_model_init(kt_model *model, const char *device, pr_precision precision, char *err);

/* The three terms of a kernel's time, for fitting and explaining. */
typedef struct {
    double launch_s;   /* the device's launch overhead (0 for LW_NONE) */
    double compute_s;  /* FLOP time, quantised into tiles and waves, with the efficiencies */
    double memory_s;   /* bytes / (eff_bw x bandwidth) */
} kt_terms;

/* The terms of one kernel. */
kt_terms kt_terms_of(const kt_model *model, const lw_kernel *kernel);

/* Seconds of one kernel: launch + max(compute, memory); 0 for LW_NONE. */
double kt_kernel_s(const kt_model *model, const lw_kernel *kernel);

/* Seconds of pass `pass` of layer `index` of wl at one GPU's cut `split` (work.h): the API the
 * expansion calls per task. Errors as lw_kernel_of. */
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

/* The kernel times of workload wl on GPU `device` (device.h name or label) in wl's precision
 * (the measurement, anchoring them, is FP32's). HS_EINPUT naming --compute when the device or
 * the workload's calibration device is unknown to the device table, --precision when the GPU
 * cannot train in it. */
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

/* Whether two device names (device.h names or labels) compute alike: the same peak rates and
 * memory bandwidth (a V100 of 16 or 32 GB). Unknown names are alike only when equal. */
int kt_same_compute(const char *a, const char *b);

/* Whether wl's measured times hold under c (NULL: the measured times run): c's GPU computes
 * like the one they were measured on, or wl does not say. What a strategy that keeps the
 * measured times (the pipeline) needs to be priced beside the model's kernels. */
int kt_measured_holds(const kt_compute *c, const wl_workload *wl);

/* Forward + backward seconds per sample of the whole network on one GPU at `batch` samples
 * (every layer whole, every pass): what a per-sample measurement at that batch compares with.
 * Weight updates are not included (the measurements leave them out too). */
int kt_sample_s(const kt_model *model, const wl_workload *wl, int64_t batch, double *seconds,
                char *err);

#endif
