/* kernel_time_internal.h: what the kernel-time model's two files share, private to
 * workloads/compute/ (compute.h is the model's public face).
 *
 * kernel_time.c is the fitted core: tiles, waves, split-K, Winograd, the roofline, the layout
 * conversions and the fused batch normalisation. kernel_refine.c holds the refinements each
 * switched on by an opt-in mechanism (kt_params.mechanisms) or a runtime key (kt_runtime):
 * kt_terms_of and kt_pass_s ask it for a reduction depth, a rate or a pass's seconds, and it
 * prices its products with the core's tiles and waves. */
#ifndef KERNEL_TIME_INTERNAL_H
#define KERNEL_TIME_INTERNAL_H

#include <stdint.h>

#include "compute.h"

/* A library's thread-block tiles (kernel_time.c lists them): n tiles of {M, N}. */
typedef struct {
    const int64_t (*tiles)[2]; /* each tile's rows and columns of the product */
    int n;                     /* how many tiles */
} kt_tile_set;

/* ---------------------------------------------------------------- the core (kernel_time.c) */

/* Seconds of `groups` products m x n x k at `rate` FLOP/s over a GPU of `sms` SMs: the tile of
 * `set` that finishes first, split-K when its tiles are fewer than the SMs, in whole waves. */
double kt__gemm_waves_s(int64_t m, int64_t n, int64_t k, int64_t groups, kt_tile_set set,
                        int sms, double rate);

/* kt__gemm_waves_s without split-K: a thread block a tile over the whole depth K. */
double kt__gemm_waves_whole_k_s(int64_t m, int64_t n, int64_t k, int64_t groups,
                                kt_tile_set set, int sms, double rate);

/* 1 when kn's channels (a convolution) or dimensions (a GEMM) are multiples of the tensor
 * cores' multiple in m's precision (pr_tensor_multiple). */
int kt__aligned(const kt_model *m, const lw_kernel *kn);

/* ---------------------------------------------------------------- refinements (kernel_refine.c) */

/* Seconds of kn's products pm x pn x pk (kn's own, or its padded or strided variants) at
 * `rate` over the GPU, the best tile of `set`; a grouped convolution's groups packed side by
 * side under a runtime's packs_groups. */
double kt__conv_products_s(const kt_model *m, const lw_kernel *kn, int64_t pm, int64_t pn,
                           int64_t pk, kt_tile_set set, double rate);

/* KT_MECH_STRIDED_DGRAD: kn's reduction depth, an input gradient at stride > 1 through the
 * window's largest phase's taps; kn->k otherwise. */
int64_t kt__strided_dgrad_k(const kt_model *m, const lw_kernel *kn);

/* KT_MECH_WINOGRAD_GEMM (KT_MECH_WGRAD_CUDNN: a weight gradient's): the factor a Winograd
 * convolution's product rate is divided by, the pass's conv_rel (so its products run at the
 * GEMM rate); 1 otherwise. */
double kt__winograd_pass_rel(const kt_model *m, const lw_kernel *kn);

/* KT_MECH_CHANNEL_K_TILE: depth k of a tensor-core convolution's forward or input gradient
 * with its reduced channels rounded up to whole K tiles (`padded`: kn's channels as the
 * padded call has them); k otherwise. */
int64_t kt__channel_k_tile_k(const kt_model *m, const lw_kernel *kn, int64_t k, int padded);

/* KT_MECH_CUDNN_TILES: the tiles a convolution's products on the CUDA cores run on, cuDNN's
 * 128 x {128, 64, 32}, for a dense convolution under the mechanism (KT_MECH_WGRAD_CUDNN: a
 * dense weight gradient); `set` (the CUDA cores' cuBLAS and CUTLASS tiles) otherwise. */
kt_tile_set kt__conv_cuda_tiles(const kt_model *m, const lw_kernel *kn, kt_tile_set set);

/* KT_MECH_NO_SPLIT_K: 1 when kn (a convolution's forward or input gradient) runs its products
 * without split-K. */
int kt__conv_whole_k(const kt_model *m, const lw_kernel *kn);

/* KT_MECH_STRIDED_READS: the bytes kn moves, a forward whose window is narrower than its
 * stride reading only the input rows (and, NHWC, the positions) it touches; kn->bytes
 * otherwise. */
double kt__conv_bytes(const kt_model *m, const lw_kernel *kn);

/* The bandwidth streaming kernel kn reaches: bw, or for a normalisation under a runtime's
 * norm_blocks at most its planes times a plane's measured rate. */
double kt__norm_bandwidth(const kt_model *m, const lw_kernel *kn, double bw);

/* Layer i's input gradient as PyTorch's autograd runs it (kt_runtime autograd_broadcast) into
 * *seconds with *applies 1; *applies 0 when the runtime does not say so or layer i is neither
 * a two-input broadcast mul nor a global average pool. Errors as lw_shape_of. */
int kt__autograd_backward(const kt_model *m, const wl_workload *wl, int i, const lw_split *split,
                          double *seconds, int *applies, char *err);

#endif
