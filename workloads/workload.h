/* workload.h: a CNN to train, as both the analytic model and the simulator see it.
 *
 * A workload is the dataset (how many samples, the shape of one), the layers in order with
 * their per-sample input/output/weight shapes, and the measured compute calibration: how long
 * one sample's forward+backward takes on a named device, spread over the layers. Workloads are
 * loaded from hybridsim's XML format (workloads/workload.dtd, documented in the README) or
 * from the ParaDL oracle's `.net` / `.net_sc` files; a ParaDL `.lc` layer file can then mark
 * which layers model parallelism splits.
 *
 * Folder: workloads/ (this is its main header): what is trained and how it is split: the CNNs
 * (this module, wl_; the shipped *.xml beside their DTD), strategies and memory (strategy/), what
 * a layer's kernels compute and how long they take on a GPU (compute/), and the vocabulary every
 * module shares (common/). The bottom of the tree: may include only its own
 * subfolders, libxml2 and the C library; every other folder may include it. */
#ifndef WORKLOAD_H
#define WORKLOAD_H

#include <stdbool.h>
#include <stdint.h>

#include "hs_error.h"

#define WL_NAME_LEN 64
#define WL_MAX_SPATIAL 3 /* 2-D images (W, H) or 3-D volumes (W, H, D) */
#define WL_MAX_INPUTS 64 /* earlier layers feeding one layer (residual adds, concats: a
                          * DenseNet-201 block concatenates 49) */
#define WL_INPUT_DATA (-1) /* in wl_layer.inputs: the network's input sample */

typedef enum {
    WL_CONV,
    WL_POOL,  /* max or average pooling */
    WL_RELU,
    WL_BNORM,
    WL_ADD,   /* element-wise sum of a residual connection */
    WL_FC,    /* fully connected */
    WL_DROPOUT,
    WL_SOFTMAX,
    WL_LRN,
    WL_CONCAT,
    WL_SIGMOID,     /* element-wise activations: 1 / (1 + e^-x) */
    WL_SILU,        /* x sigmoid(x) (EfficientNet's "swish") */
    WL_HARDSWISH,   /* x relu6(x + 3) / 6 (MobileNetV3) */
    WL_HARDSIGMOID, /* relu6(x + 3) / 6 */
    WL_GELU,        /* x Phi(x) */
    WL_MUL,         /* element-wise product of two inputs; the second may be one value a
                     * channel, broadcast over the extents (squeeze-and-excitation's scale);
                     * with one input, a product by a parameter or a constant */
    WL_LAYERNORM,   /* normalisation over the channels at each position of each sample (layer
                     * norm): element-wise cost as bnorm, no statistics across samples */
    WL_MATMUL,      /* products of two activations, per sample mm_products of (m x k) by
                     * (k x n): attention's Q K^T and A V; no weights */
    WL_RESHAPE,     /* the same elements in another shape, a view: no work */
    WL_MOVE,        /* data movement without arithmetic (permute, transpose, roll, a slice, a
                     * chunk): a copy of its |y| elements */
    WL_TANH,        /* element-wise (e^x - e^-x) / (e^x + e^-x) */
    WL_EMBED,       /* embedding lookup: x one token id a position, w a table of w_in (vocabulary)
                     * rows of w_out values; y the rows gathered, no arithmetic */
    WL_LSTM,        /* stacked LSTM over the positions (the W extent) of x: w_kernel[0] layers of
                     * w_out units, the first reading w_in features; 4 gates per step */
    WL_DECONV,      /* transposed convolution (w_in inputs to w_out outputs, window w_kernel,
                     * stride): each input element scatters a window into the output, which
                     * is a convolution's input gradient; split by batch only */
    WL_UPSAMPLE,    /* nearest-neighbour upsampling: each input element copied into a block of
                     * y/x elements per extent (whole factors), no arithmetic forward, the
                     * block's gradients summed backward; split by batch only */
    WL_TYPE_COUNT
} wl_type;

/* Which model-parallel strategies split a layer (the ParaDL layer files' `NAME|1`). A layer
 * without the bit runs replicated: every GPU of the group computes it whole. */
enum {
    WL_SPLIT_FILTER = 1u << 0,
    WL_SPLIT_CHANNEL = 1u << 1,
    WL_SPLIT_SPATIAL = 1u << 2,
    WL_SPLIT_ALL = WL_SPLIT_FILTER | WL_SPLIT_CHANNEL | WL_SPLIT_SPATIAL
};

/* A per-sample tensor shape: channels then spatial extents. */
typedef struct {
    int64_t channels;                   /* C for an input, F for an output */
    int64_t spatial[WL_MAX_SPATIAL];    /* W, H(, D); unused trailing extents are 1 */
    int n_spatial;                      /* 2 for images, 3 for volumes */
} wl_shape;

typedef struct {
    char name[WL_NAME_LEN];     /* as in the file, e.g. "CONV_2a1" (names may repeat: "RELU") */
    char id[WL_NAME_LEN];       /* unique: the XML id; for ParaDL files the name, with "#k"
                                 * appended to the k-th (k >= 2) of repeated names */
    wl_type type;
    wl_shape x;                 /* input of one sample */
    wl_shape y;                 /* output of one sample */
    int64_t w_in;               /* weight dims as ParaDL writes them: C ... */
    int64_t w_out;              /* ... F ... */
    int64_t w_kernel[WL_MAX_SPATIAL]; /* ... K1 K2 (K3); 0 where the file says 0 */
    int64_t x_elems;            /* |x|: input elements per sample */
    int64_t y_elems;            /* |y|: output elements per sample */
    int64_t w_elems;            /* |w|: weights (0 for layers without any; for ParaDL files
                                 * the product of the weight dims as written) */
    int stride;                 /* convolution/pooling stride (1 when not given) */
    int padding[WL_MAX_SPATIAL]; /* convolution/pooling padding per side of each extent (0
                                 * when not given; XML padding="same" is stored as (K-1)/2) */
    int64_t groups;             /* conv: groups, each output channel seeing C/groups input
                                 * channels (C = F = groups: depthwise); 0 or 1: dense */
    int inputs[WL_MAX_INPUTS];  /* indices of earlier layers feeding this one */
    int broadcast;              /* mul: 1 when the second factor is small: one value a channel,
                                 * or (one input) a parameter or a constant */
    int n_inputs;               /* 0 means: the previous layer (or the data for layer 0) */
    int64_t mm_products;        /* matmul: independent products per sample (heads; else 0) */
    int64_t mm_m, mm_n, mm_k;   /* matmul: each product is (m x k) by (k x n) */
    double flops;               /* forward FLOP estimate per sample (ParaDL's formula) */
    double fw_s;                /* forward seconds per sample on the calibration device */
    double bw_s;                /* backward seconds per sample (input + weight gradient) */
    double wu_s;                /* weight-update seconds per iteration (0 if not declared) */
    unsigned split_mask;        /* WL_SPLIT_* bits: strategies that split this layer */
    int autograd_rule;          /* 1: the footprint holds saved_elems for this layer (a token
                                 * type: layernorm, matmul, move, reshape, tanh, one-input add
                                 * or mul); 0: ParaDL's rule, |x| + |y| (none for relu, bnorm) */
    int64_t saved_elems;        /* with autograd_rule: elements per sample PyTorch's autograd
                                 * keeps for its backward, not already counted elsewhere
                                 * (workload_saved.c) */
    int64_t ag_saved_elems;     /* elements per sample autograd keeps for this layer's
                                 * backward when every layer follows its rule (a runtime's
                                 * activation_memory = autograd), each tensor counted once,
                                 * at the first layer that keeps it (workload_saved.c) */
    int64_t ag_index_bytes;     /* bytes per sample of the integer tensors it keeps besides
                                 * (max pooling's int64 indices, dropout's bool mask, an
                                 * embedding's int64 ids): their width is not the precision's */
    int64_t ag_fp32_elems;      /* of ag_saved_elems, what autocast keeps in FP32 in mixed
                                 * precision (layer norm's input and statistics, softmax's
                                 * result) */
    int64_t ag_copy_elems;      /* in mixed precision, the FP16 copy a conv, fc or matmul keeps
                                 * of a softmax's FP32 result (kept by the softmax too) */
} wl_layer;

/* Where a workload's compute times come from. */
typedef enum {
    WL_CAL_MEASURED = 0,        /* measured on `device` (the default) */
    WL_CAL_DERIVED,             /* computed from another network's measurement */
    WL_CAL_NONE                 /* no time at all: compute must come from a model; every
                                 * fw_s and bw_s is 0 */
} wl_calibration;

typedef struct {
    char name[WL_NAME_LEN];     /* short name, e.g. "resnet50" */
    char dataset[WL_NAME_LEN];  /* e.g. "ImageNet" */
    int64_t samples;            /* D: samples per epoch */
    wl_shape sample;            /* shape of one input sample */
    wl_layer *layers;           /* in execution order */
    int n_layers;
    double sample_time_s;       /* measured forward+backward seconds per sample, all layers
                                 * (0 when the file gives no time) */
    wl_calibration calibration; /* where sample_time_s comes from (WL_CAL_NONE: nowhere) */
    int64_t calibration_batch;  /* samples per GPU the time was measured at (0: not said) */
    int layer_times;            /* 1: every layer's time was measured (XML time_s); 0: the
                                 * layers share sample_time_s by ParaDL's FLOP estimate, so
                                 * only the total is a measurement */
    char device[WL_NAME_LEN];   /* device the calibration was measured on, e.g. "V100-16GB"
                                 * ("unspecified" for ParaDL files, which do not say; "" with
                                 * WL_CAL_NONE) */
    int optimizer_states;       /* values the optimizer the file names keeps per weight: 0
                                 * plain SGD (the default, and ParaDL's model), 1 momentum SGD,
                                 * 2 Adam; a runtime's optimizer replaces it for a job
                                 * (strategy.h, st_optimizer_states) */
    int64_t x_total;            /* sum of |x| over layers, leaving out ReLU and BNORM, which
                                 * work in place (as the ParaDL oracle counts) */
    int64_t y_total;            /* sum of |y| over the same layers */
    int64_t w_total;            /* W = sum of |w| over layers */
    char path[1024];            /* the file it was loaded from */
} wl_workload;

/* Load a workload. `spec` is a path (.xml, .net, .net_sc) or a short name looked up as
 * <dir>/<spec>.xml in the workloads folder (HYBRIDSIM_HOME/workloads, else the source tree's).
 * On success fills *wl (free with wl_free) and returns HS_OK; otherwise returns HS_EINPUT with
 * "file:line: what is wrong" in err and leaves *wl empty. */
int wl_load(const char *spec, wl_workload *wl, char *err);

/* Apply a ParaDL layer file (`NAME|1` per line, optionally preceded by an index): every layer
 * marked 1 gets split_mask = WL_SPLIT_ALL, every other 0. The file must list every layer, in
 * order, by name; otherwise HS_EINPUT with "file:line: ..." and the workload is unchanged. */
int wl_apply_layer_file(wl_workload *wl, const char *path, char *err);

void wl_free(wl_workload *wl);

const char *wl_type_name(wl_type type);

/* Whether a layer of `type` applies a function to each element of one input (relu, sigmoid,
 * silu, hardswish, hardsigmoid, gelu, tanh). */
bool wl_is_activation(wl_type type);

/* Whether a layer of `type` may give its output another shape than its input's without a
 * window (matmul, reshape, move): no strategy cuts its channels or extents, since the cut of
 * its output says nothing of the slice of its input it needs. */
bool wl_reshapes(wl_type type);

/* Whether input `producer` reaches layer `consumer` resized, not as consumer's x: the shortcut
 * of an add whose projection the table omits, or the per-channel scale a mul broadcasts. Such
 * an input follows the consumer's layout at no cost (it is small, or its resizing layer is not
 * modelled). */
bool wl_input_resized(const wl_layer *consumer, const wl_layer *producer);

/* The layer feeding input k of layer i (k < wl_n_inputs): its listed input, or the previous
 * layer when it lists none; WL_INPUT_DATA (-1) for the network's input sample. */
int wl_input_of(const wl_workload *wl, int i, int k);

/* How many inputs layer l reads: those it lists, or 1 (the previous layer's output). */
int wl_n_inputs(const wl_layer *l);

/* The folder short names are looked up in ("<home>/workloads"). */
const char *wl_default_dir(void);

#endif
