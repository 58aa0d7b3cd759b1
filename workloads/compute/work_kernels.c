/* work_kernels.c: the kernels of one pass of a cut layer (lw_kernel_of, work.h).
 *
 * Per type, FLOPs and compulsory bytes (workloads/README.md, "Layer work", has the table and
 * its sources). Symbols: b samples, C' F' channels, g groups, k window elements, X' Y' input
 * and output elements per channel, n = b C' X' input and m = b F' Y' output elements, e bytes
 * an element. Convolutions and fully connected layers become implicit GEMMs (NVIDIA's
 * "Convolutional Layers User's Guide"):
 *   forward          M = b Y'   N = F'/g   K = (C'/g) k
 *   input gradient   M = b X'   N = C'/g   K = (F'/g) k Y'/X' (a strided layer's rows)
 *   weight gradient  M = F'/g   N = (C'/g) k   K = b Y'
 * per group. A depthwise convolution (one input channel per group) is no GEMM: libraries run
 * it as a streaming kernel whose few FLOPs per byte leave it memory-bound. A transposed
 * convolution (deconv) is the input gradient of the convolution from its output to its input,
 * and the libraries run it so (TensorFlow's conv2d_transpose calls conv2d_backprop_input,
 * PyTorch's ConvTranspose2d cuDNN's backward-data; its input gradient is that convolution's
 * forward, its weight gradient that convolution's): deconv_kernel mirrors the shape and the
 * pass and times those convolution kernels. */
#include "work.h"

#include <math.h>
#include <string.h>

#include "precision.h"

/* Element-wise costs: FLOPs per element of forward and input gradient, and tensors of n
 * elements each streams (reads + writes). */
typedef struct {
    double fw_flops, bw_flops;  /* per element */
    double fw_tensors, bw_tensors;
    double fw_masks, bw_masks;  /* 1-byte mask elements per element */
} stream_cost;

static stream_cost stream_cost_of(const wl_layer *l)
{
    double inputs = l->n_inputs > 1 ? l->n_inputs : 2;
    switch (l->type) {
    case WL_RELU:    /* y = max(x, 0); dx = dy where y > 0: reads y and dy */
        return (stream_cost){1, 1, 2, 3, 0, 0};
    case WL_BNORM:   /* statistics pass + normalise; backward two reductions, then dx */
        return (stream_cost){8, 12, 3, 5, 0, 0};
    case WL_ADD:     /* sum of the inputs; backward the gradients meeting at the fork add up */
        return (stream_cost){inputs - 1, 1, inputs + 1, 3, 0, 0};
    case WL_CONCAT:  /* a copy into place; backward a copy out */
        return (stream_cost){0, 0, 2, 2, 0, 0};
    case WL_DROPOUT: /* random numbers, scale, a mask kept for the backward pass */
        return (stream_cost){2, 1, 2, 2, 1, 1};
    case WL_SOFTMAX: /* softmax with cross-entropy over the classes */
        return (stream_cost){5, 2, 2, 2, 0, 0};
    case WL_LRN:     /* across 5 channels: sums of squares, a scale tensor kept */
        return (stream_cost){14, 16, 3, 5, 0, 0};
    case WL_SIGMOID: /* an exponential, an add, a divide; dx = dy y (1 - y) from y */
    case WL_TANH:    /* the same through e^2x; dx = dy (1 - y^2) from y */
        return (stream_cost){4, 3, 2, 3, 0, 0};
    case WL_SILU:    /* x sigmoid(x); dx from x and dy (the sigmoid computed again) */
        return (stream_cost){5, 8, 2, 3, 0, 0};
    case WL_HARDSWISH: /* a clamp, a multiply; dx from x and dy */
        return (stream_cost){4, 3, 2, 3, 0, 0};
    case WL_HARDSIGMOID:
        return (stream_cost){3, 2, 2, 3, 0, 0};
    case WL_GELU:    /* x Phi(x) through erf; dx from x and dy */
        return (stream_cost){10, 14, 2, 3, 0, 0};
    case WL_MUL:     /* y = a b: reads both, writes y; backward da = dy b, db = dy a from dy, a
                      * and b, written both; a broadcast b is one value a channel, a parameter
                      * or a constant (its bytes negligible, db a reduction written small) */
        return l->broadcast ? (stream_cost){1, 2, 2, 3, 0, 0} : (stream_cost){1, 2, 3, 5, 0, 0};
    case WL_LAYERNORM: /* as bnorm, the statistics per position over the channels */
        return (stream_cost){8, 12, 3, 5, 0, 0};
    case WL_MOVE:    /* a copy of |y| elements; backward the gradient copied back */
        return (stream_cost){0, 0, 2, 2, 0, 0};
    default:
        return (stream_cost){0, 0, 0, 0, 0, 0};
    }
}

static void streaming(lw_kernel *kn, double flops, double bytes)
{
    kn->kind = LW_STREAM;
    kn->flops = flops;
    kn->bytes = bytes;
    kn->calls = 1;
}

static void gemm(lw_kernel *kn, double flops, double bytes, double m, double n, int64_t groups)
{
    kn->kind = LW_GEMM;
    kn->calls = 1;
    kn->flops = flops;
    kn->bytes = bytes;
    kn->m = (int64_t)m;
    kn->n = (int64_t)n;
    kn->groups = groups;
    double k = flops / (2.0 * m * n * (double)groups);
    kn->k = k < 1 ? 1 : (int64_t)ceil(k - 1e-9); /* whole, at least the useful count */
}

/* What the library needs besides the product: channels of a group, window, extents. */
static void conv_geometry(const wl_layer *l, const lw_shape *s, lw_kernel *kn)
{
    kn->lib = LW_LIB_CONV;
    kn->samples = s->samples;
    kn->in_channels = s->in_channels / s->groups;
    kn->out_channels = s->out_channels / s->groups;
    kn->stride = l->stride;
    kn->volumetric = l->x.n_spatial == 3;
    if (l->x.n_spatial == 2 && l->w_kernel[0] == l->w_kernel[1]) {
        kn->window = l->w_kernel[0];
        kn->y_extent[0] = s->y_extent[0];
        kn->y_extent[1] = s->y_extent[1];
    }
}

static void conv_kernel(const wl_layer *l, const lw_shape *s, lw_pass pass, double e,
                        lw_kernel *kn)
{
    double b = (double)s->samples, g = (double)s->groups;
    double cg = (double)s->in_channels / g, fg = (double)s->out_channels / g;
    double x = (double)s->x_spatial, y = (double)s->y_spatial, k = (double)s->kernel;
    double n_in = b * s->in_channels * x, n_out = b * s->out_channels * y;
    double weights = s->out_channels * cg * k;
    double flops = 2.0 * b * s->out_channels * cg * k * y;
    double bytes = e * (n_in + weights + n_out); /* every pass reads two, writes one */
    if (cg == 1 && g > 1) {
        streaming(kn, flops, bytes);
        kn->depthwise = 1;
        return;
    }
    if (pass == LW_FORWARD)
        gemm(kn, flops, bytes, b * y, fg, s->groups);
    else if (pass == LW_INPUT_GRAD)
        gemm(kn, flops, bytes, b * x, cg, s->groups);
    else
        gemm(kn, flops, bytes, fg, cg * k, s->groups);
    conv_geometry(l, s, kn);
}

/* A deconv of C' to F' channels, X' to Y' elements a channel, is the input gradient of the
 * convolution of F' to C' channels, Y' to X' elements with the same window and stride: run
 * that convolution's kernel of the mirrored pass (forward <-> input gradient; the weight
 * gradient stays), which is what the library runs and what its fitted efficiency is of. */
static void deconv_kernel(const wl_layer *l, const lw_shape *s, lw_pass pass, double e,
                          lw_kernel *kn)
{
    lw_shape m = *s;
    m.in_channels = s->out_channels;
    m.out_channels = s->in_channels;
    m.x_spatial = s->y_spatial;
    m.y_spatial = s->x_spatial;
    for (int d = 0; d < WL_MAX_SPATIAL; d++)
        m.y_extent[d] = d < l->x.n_spatial ? l->x.spatial[d] : 1;
    lw_pass mirrored = pass == LW_FORWARD ? LW_INPUT_GRAD
                       : pass == LW_INPUT_GRAD ? LW_FORWARD : LW_WEIGHT_GRAD;
    kn->pass = mirrored;
    conv_kernel(l, &m, mirrored, e, kn);
}

static void fc_kernel(const lw_shape *s, lw_pass pass, double e, lw_kernel *kn)
{
    double b = (double)s->samples, c = (double)s->in_channels, f = (double)s->out_channels;
    double flops = 2.0 * b * c * f, bytes = e * (b * c + c * f + b * f);
    if (pass == LW_FORWARD)
        gemm(kn, flops, bytes, b, f, 1);
    else if (pass == LW_INPUT_GRAD)
        gemm(kn, flops, bytes, b, c, 1);
    else
        gemm(kn, flops, bytes, f, c, 1);
    kn->lib = LW_LIB_BLAS;
    kn->in_channels = s->in_channels;
    kn->out_channels = s->out_channels;
}

/* A matmul's products (cuBLAS's strided batched GEMM), one per sample and product: forward
 * Y = A B, (m x k)(k x n); backward dA = dY B^T (m x n)(n x k) and dB = A^T dY, the same
 * FLOPs, counted as one batched product of twice the groups at dA's shape. A cut of the
 * output (out_parts, spatial parts) cuts the rows m (rounded up), k whole. */
static void matmul_kernel(const wl_layer *l, const lw_shape *s, lw_pass pass, double e,
                          lw_kernel *kn)
{
    double y_whole = (double)l->y_elems, y_part = (double)s->out_channels * s->y_spatial;
    double m = ceil((double)l->mm_m * (y_whole > 0 ? y_part / y_whole : 1) - 1e-9);
    double n = (double)l->mm_n, k = (double)l->mm_k;
    double g = (double)s->samples * (double)l->mm_products;
    double flops = 2.0 * g * m * n * k, bytes = e * g * (m * k + k * n + m * n);
    if (pass == LW_FORWARD) {
        gemm(kn, flops, bytes, m, n, (int64_t)g);
    } else { /* reads dY, A and B; writes dA and dB */
        gemm(kn, 2 * flops, 2 * bytes, m, k, (int64_t)(2 * g));
    }
    kn->lib = LW_LIB_BLAS;
    kn->in_channels = (int64_t)k;
    kn->out_channels = (int64_t)n;
}

/* Pooling, counted as max pooling: backward reads x, y and dy to find each window's maximum
 * and writes dx (average pooling moves half of that backward; pools are a few percent). */
static void pool_kernel(const lw_shape *s, lw_pass pass, double e, lw_kernel *kn)
{
    double n_in = (double)s->samples * s->in_channels * s->x_spatial;
    double n_out = (double)s->samples * s->out_channels * s->y_spatial;
    if (pass == LW_FORWARD)
        streaming(kn, n_out * s->kernel, e * (n_in + n_out));
    else
        streaming(kn, n_out * s->kernel, e * 2 * (n_in + n_out));
}

static void stream_kernel(const wl_layer *l, const lw_shape *s, lw_pass pass, double e,
                          lw_kernel *kn)
{
    stream_cost c = stream_cost_of(l);
    double n = (double)s->samples * s->out_channels * s->y_spatial;
    int fw = pass == LW_FORWARD;
    double masks = (fw ? c.fw_masks : c.bw_masks) * n * pr_mask_bytes();
    streaming(kn, n * (fw ? c.fw_flops : c.bw_flops),
              e * n * (fw ? c.fw_tensors : c.bw_tensors) + masks);
    if (l->type == WL_BNORM) { /* its planes, for a runtime that reduces one a block */
        kn->norm = 1;
        kn->samples = s->samples;
        kn->out_channels = s->out_channels;
    }
}

/* Nearest-neighbour upsampling (TensorFlow's ResizeNearestNeighbor and its Grad, PyTorch's
 * upsample_nearest2d and its backward): forward reads the n input elements and writes the m
 * output ones, no arithmetic; backward reads dy and writes dx, adding each block of m / n
 * gradients into one (m - n adds). */
static void upsample_kernel(const lw_shape *s, lw_pass pass, double e, lw_kernel *kn)
{
    double n = (double)s->samples * s->in_channels * s->x_spatial;
    double m = (double)s->samples * s->out_channels * s->y_spatial;
    streaming(kn, pass == LW_FORWARD ? 0.0 : m - n, e * (n + m));
}

/* An embedding, as PyTorch's nn.Embedding (sparse=False) runs it: forward gathers one row
 * of the table a position (reads and writes the n output elements); the weight gradient zeroes
 * the dense table gradient and adds each position's dy into its row (reads dy, reads and writes
 * the rows). No input gradient: token ids have none. */
static void embed_kernel(const wl_layer *l, const lw_shape *s, lw_pass pass, double e,
                         lw_kernel *kn)
{
    double n = (double)s->samples * (double)l->y.channels * (double)s->y_spatial;
    if (pass == LW_FORWARD)
        streaming(kn, 0.0, e * 2.0 * n);
    else
        streaming(kn, n, e * ((double)l->w_elems + 3.0 * n));
}

/* One of an LSTM's products: calls of (m x k) by (k x n), each reading its operands and
 * writing its result once, plus `extra` elements (a result accumulated onto: read too). */
static void lstm_gemm(lw_kernel *kn, double m, double n, double k, double calls, double extra,
                      double e)
{
    gemm(kn, 2.0 * m * n * k, e * (m * k + k * n + m * n + extra), m, n, 1);
    kn->lib = LW_LIB_BLAS;
    kn->in_channels = (int64_t)k;
    kn->out_channels = (int64_t)n;
    kn->calls = (int64_t)calls;
}

/* A stacked LSTM of L layers of H units, the first reading D inputs, over T steps, as cuDNN
 * runs it (cudnnRNNForward, cudnnRNNBackwardData, cudnnRNNBackwardWeights; J. Appleyard,
 * "Optimizing Recurrent Neural Networks in cuDNN 5", NVIDIA developer blog, 2016:
 * optimisation 1, the input GEMMs of all steps combined, and 3, the four gates' weights in one
 * matrix). Forward, per layer: the input projection of all T steps as one product, (b T) x
 * inputs by 4H, then per step the recurrent product of the last state, b x H by 4H, added onto
 * the gates. Backward: per step the state gradient, dgates (b x 4H) by W_h^T; per layer the
 * input gradient of all steps at once, (b T) x 4H by inputs; the weight gradient of [input,
 * last state] over all steps, 4H x (b T) by inputs + H, one product a layer. Every pass is
 * 2 b T |w| FLOPs; the per-step products are small, launched L T times one after another.
 * Each step also runs one element-wise kernel (optimisation 2, the point-wise operations
 * fused): forward it reads the gates' pre-activations and c_{t-1} and writes h_t, c_t and the
 * activated gates kept for the backward (11 b H elements; 24 FLOPs a unit: three sigmoids and
 * two tanh at 4, c = f c + i g, h = o tanh c); backward it reads dh, dc, the kept gates, c_{t-1}
 * and c_t and writes dgates and dc_{t-1} (14 b H; 19 FLOPs a unit). Not modelled: the overlap
 * of layers in a wavefront (optimisation 4). */
static int lstm_kernels(const wl_layer *l, const lw_shape *s, lw_pass pass, double e,
                        lw_kernel *kn)
{
    double b = (double)s->samples, t = (double)s->y_spatial, bt = b * t;
    double layers = (double)l->w_kernel[0], h = (double)l->y.channels;
    double d = (double)l->x.channels, g = 4.0 * h;
    int n = 0;
    if (pass == LW_FORWARD) {
        lstm_gemm(&kn[n++], bt, g, d, 1, 0, e);
        if (layers > 1)
            lstm_gemm(&kn[n++], bt, g, h, layers - 1, 0, e);
        lstm_gemm(&kn[n++], b, g, h, layers * t, b * g, e);
        streaming(&kn[n], 24.0 * b * h, e * 11.0 * b * h);
        kn[n++].calls = (int64_t)(layers * t);
    } else if (pass == LW_INPUT_GRAD) {
        lstm_gemm(&kn[n++], b, h, g, layers * t, 0, e);
        streaming(&kn[n], 19.0 * b * h, e * 14.0 * b * h);
        kn[n++].calls = (int64_t)(layers * t);
        lstm_gemm(&kn[n++], bt, d, g, 1, 0, e);
        if (layers > 1)
            lstm_gemm(&kn[n++], bt, h, g, layers - 1, 0, e);
    } else {
        lstm_gemm(&kn[n++], g, d + h, bt, 1, 0, e);
        if (layers > 1)
            lstm_gemm(&kn[n++], g, 2.0 * h, bt, layers - 1, 0, e);
    }
    for (int i = 0; i < n; i++)
        kn[i].pass = pass;
    return n;
}

/* Whether pass exists for layer `index`: no weight gradient without weights, no input
 * gradient for the layer the data sample feeds. */
static int pass_exists(const wl_workload *wl, int index, lw_pass pass)
{
    const wl_layer *l = &wl->layers[index];
    if (l->type == WL_RESHAPE) /* a view: no kernel at all */
        return 0;
    if (pass == LW_WEIGHT_GRAD)
        return l->type == WL_CONV || l->type == WL_FC || l->type == WL_EMBED ||
               l->type == WL_LSTM || l->type == WL_DECONV;
    if (pass == LW_INPUT_GRAD)
        return index > 0 && l->type != WL_EMBED;
    return 1;
}

int lw_kernels_of(const wl_workload *wl, int index, const lw_split *split, lw_pass pass,
                  double elem_bytes, lw_kernel kernels[LW_MAX_KERNELS], int *count, char *err)
{
    lw_shape s;
    lw_kernel *kernel = &kernels[0];
    memset(kernels, 0, LW_MAX_KERNELS * sizeof *kernels);
    *count = 0;
    if ((unsigned)pass >= LW_PASS_COUNT)
        return hs_fail(err, HS_EINTERNAL, "unknown pass %d", (int)pass);
    int rc = lw_shape_of(wl, index, split, &s, err);
    if (rc || !pass_exists(wl, index, pass))
        return rc;
    const wl_layer *l = &wl->layers[index];
    kernel->pass = pass;
    *count = 1;
    switch (l->type) {
    case WL_CONV:
        conv_kernel(l, &s, pass, elem_bytes, kernel);
        break;
    case WL_DECONV:
        deconv_kernel(l, &s, pass, elem_bytes, kernel);
        break;
    case WL_FC:
        fc_kernel(&s, pass, elem_bytes, kernel);
        break;
    case WL_POOL:
        pool_kernel(&s, pass, elem_bytes, kernel);
        break;
    case WL_MATMUL:
        matmul_kernel(l, &s, pass, elem_bytes, kernel);
        break;
    case WL_EMBED:
        embed_kernel(l, &s, pass, elem_bytes, kernel);
        break;
    case WL_UPSAMPLE:
        upsample_kernel(&s, pass, elem_bytes, kernel);
        break;
    case WL_LSTM:
        *count = lstm_kernels(l, &s, pass, elem_bytes, kernels);
        break;
    default:
        stream_kernel(l, &s, pass, elem_bytes, kernel);
    }
    return HS_OK;
}

int lw_kernel_of(const wl_workload *wl, int index, const lw_split *split, lw_pass pass,
                 double elem_bytes, lw_kernel *kernel, char *err)
{
    lw_kernel all[LW_MAX_KERNELS];
    int n;
    int rc = lw_kernels_of(wl, index, split, pass, elem_bytes, all, &n, err);
    *kernel = all[0];
    return rc;
}
