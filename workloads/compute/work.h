/* work.h: what one GPU's kernels of a layer compute and move (lw_, "layer work").
 *
 * Training runs up to three kernels per layer: the forward pass, the input gradient (dx, from
 * the output gradient) and the weight gradient (dw). For each, at the shape one GPU really
 * computes (its samples, and its share of the output channels, input channels and spatial
 * extents when model parallelism splits the layer), this module counts
 *   - the useful FLOPs (a multiply-add is 2; a comparison or an add 1), and
 *   - the compulsory bytes: every tensor the kernel reads or writes, once,
 * and, for convolutions and fully connected layers, the matrix product the libraries lower the
 * kernel to (implicit GEMM: cuDNN, CUTLASS), which is what the kernel-time model quantises into
 * thread-block tiles and waves (compute.h). The counts follow NVIDIA's "Convolutional Layers
 * User's Guide" mapping and the per-type table in workloads/README.md ("Layer work").
 *
 * Pure arithmetic on wl_layer shapes: no device, no time. */
#ifndef WORK_H
#define WORK_H

#include <stdint.h>

#include "hs_error.h"
#include "workload.h"

typedef enum {
    LW_FORWARD = 0,
    LW_INPUT_GRAD,  /* dx: the gradient passed to the layers before */
    LW_WEIGHT_GRAD, /* dw: layers with weights only */
    LW_PASS_COUNT
} lw_pass;

typedef enum {
    LW_NONE = 0, /* the pass does not exist: no weights, or the input is the data sample */
    LW_GEMM,     /* a matrix product (dense or grouped convolution, fully connected) */
    LW_STREAM    /* element-wise or a reduction: streams its tensors through once */
} lw_kind;

/* How one GPU's part of a layer is cut from the whole. A part count of 1 keeps that dimension
 * whole; n parts give this GPU ceil(extent / n) of it (the largest part: the GPU that finishes
 * last sets the pace). Input channels can be cut only for conv and fc (in_parts; a layer
 * that keeps its channels is cut by out_parts alone); spatial parts cut the output extents,
 * and a windowed layer then reads the input rows its window needs (the halo included). */
typedef struct {
    int64_t samples;                       /* samples this GPU computes (>= 1) */
    int64_t out_parts;                     /* output channels cut (filter parallelism) */
    int64_t in_parts;                      /* input channels cut (channel parallelism) */
    int64_t spatial_parts[WL_MAX_SPATIAL]; /* output extents cut, per extent (spatial) */
} lw_split;

/* The shape one GPU computes. */
typedef struct {
    int64_t samples;
    int64_t in_channels;                  /* C' */
    int64_t out_channels;                 /* F' */
    int64_t groups;                       /* groups in C' and F' (1: dense) */
    int64_t x_spatial;                    /* input elements per channel per sample (halo in) */
    int64_t y_spatial;                    /* output elements per channel per sample */
    int64_t kernel;                       /* window elements, prod(K) (1 without a window) */
    int64_t y_extent[WL_MAX_SPATIAL];     /* output extents of this part (1 past n_spatial) */
} lw_shape;

/* Who runs a matrix product: a dense-algebra call (fully connected) or a convolution (whose
 * library may pick another algorithm than an implicit GEMM, compute.h). */
typedef enum { LW_LIB_NONE = 0, LW_LIB_BLAS, LW_LIB_CONV } lw_lib;

/* One kernel: what it computes and moves. For LW_GEMM, groups independent products of
 * (m x k) by (k x n), sized so that 2 m n k groups == flops, and what the library needs to
 * choose how to run it: the channels of one group (tensor cores need them in multiples) and,
 * for a 2-D convolution, its window and output extents (a Winograd algorithm's tiles). */
typedef struct {
    lw_kind kind;
    double flops;    /* useful FLOPs */
    double bytes;    /* compulsory bytes read and written */
    int64_t m, n, k; /* LW_GEMM: the product of one group */
    int64_t groups;  /* LW_GEMM: independent products */
    int volumetric;  /* 1: a 3-D convolution */
    lw_pass pass;    /* the pass it computes (a deconv's: the convolution pass the library
                      * runs for it, forward and input gradient swapped) */
    lw_lib lib;      /* LW_GEMM: who runs it */
    int64_t samples;                 /* LW_LIB_CONV and a norm: samples */
    int64_t in_channels;             /* LW_LIB_CONV: C'/g, LW_LIB_BLAS: C' */
    int64_t out_channels;            /* LW_LIB_CONV: F'/g, LW_LIB_BLAS: F', a norm: its channels */
    int64_t window;                  /* LW_LIB_CONV, 2-D: a square window's side (0: other) */
    int stride;                      /* LW_LIB_CONV: the window's stride */
    int64_t y_extent[2];             /* LW_LIB_CONV, 2-D: the output's extents */
    int depthwise;                   /* LW_STREAM: 1 for a depthwise convolution (a framework
                                      * runs it with its own kernels: kt_runtime) */
    int norm;                        /* LW_STREAM: 1 for a normalisation's kernel (bnorm), its
                                      * samples and out_channels set: a runtime whose kernels
                                      * reduce one plane a thread block (kt_runtime
                                      * norm_blocks) runs it on that many blocks */
    int64_t calls;                   /* times the pass runs this kernel, one after another, each
                                      * launched on its own (an LSTM's per-step products);
                                      * flops and bytes are one call's */
} lw_kernel;

/* The most kernels one pass runs (lw_kernels_of). */
#define LW_MAX_KERNELS 4

/* The full-size split: `samples` samples, nothing cut. */
lw_split lw_whole(int64_t samples);

/* The shape one GPU computes of layer `index` of wl under split. HS_EINPUT when the split
 * asks the impossible: fewer than one sample, parts < 1, more parts than the dimension has,
 * in_parts on a layer that keeps its channels, spatial parts on a fully connected layer. */
int lw_shape_of(const wl_workload *wl, int index, const lw_split *split, lw_shape *shape,
                char *err);

/* The first kernel of pass `pass` of layer `index` under split (lw_kernels_of gives them all;
 * only an lstm has more than one), its tensors stored in elem_bytes
 * bytes an element (precision.h: 4 in FP32, 2 in mixed precision). kind LW_NONE when the pass
 * does not exist (weight gradient of a layer without weights; input gradient of a layer fed
 * by the data sample). Errors as lw_shape_of. */
int lw_kernel_of(const wl_workload *wl, int index, const lw_split *split, lw_pass pass,
                 double elem_bytes, lw_kernel *kernel, char *err);

/* Every kernel of pass `pass` of layer `index` under split: *count of them in kernels[] (0
 * when the pass does not exist), each run kernels[i].calls times. Every layer type runs one
 * kernel a pass but an LSTM, which runs its big products once and its recurrent products once
 * a step (work_kernels.c). Errors as lw_shape_of. */
int lw_kernels_of(const wl_workload *wl, int index, const lw_split *split, lw_pass pass,
                  double elem_bytes, lw_kernel kernels[LW_MAX_KERNELS], int *count, char *err);

const char *lw_pass_name(lw_pass pass);

#endif
