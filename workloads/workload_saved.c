/* workload_saved.c: the activation memory PyTorch's autograd keeps (wl__saved,
 * workload_internal.h), under the two rules a runtime chooses between (its activation_memory).
 *
 * `paradl` (the default): ParaDL's footprint counts every layer's |x| + |y| (relu, bnorm and
 * reshape left out), a rule kept for every type it was written for. For the types that move
 * tokens about (layernorm, matmul, move, reshape, tanh, add and mul with one input) it counts
 * tensors nothing keeps for the backward pass, and counts twice tensors already counted as a
 * neighbour's x or y. These count instead the tensors autograd saves for their backward
 * (PyTorch's tools/autograd/derivatives.yaml, v1.13):
 *   native_layer_norm   input, and the per-row mean and rstd (result1, result2)
 *   mm / bmm / matmul   both operands (mm_mat1_backward(grad, mat2), mm_mat2_backward(.., self))
 *   tanh                its result (tanh_backward(grad, result))
 *   view, reshape, permute, transpose, clone, roll, slice: nothing (sizes only)
 *   add                 nothing; mul by a tensor: the other factor, so a parameter's gradient
 *                       keeps the activation (mul by a Python scalar keeps nothing; the format
 *                       does not tell the two apart: counted)
 * A tensor is counted once: not when a layer under ParaDL's rule already counts it (as its x or
 * y), nor twice when two token layers keep it. A tensor is known by the layer that wrote its
 * storage: a reshape is a view of its input, relu and bnorm work in place (ParaDL's rule).
 *
 * `autograd`: every layer keeps what autograd saves for it (wl_layer.ag_saved_elems, the same
 * derivatives.yaml, v1.13, by entry):
 *   convolution         input (convolution_backward(grad, input, weight, ..)); a deconv too
 *                       (the same convolution op, transposed=true)
 *   fc                  input (linear is addmm / matmul: mm_mat2_backward(grad, mat1, ..))
 *   native_batch_norm   input (native_batch_norm_backward(grad, input, weight, .., result1,
 *                       result2)); its mean and 1/std, 2 values a channel for the whole
 *                       batch, not a sample, are left out (ResNet-50: 0.2 MB in all)
 *   relu, sigmoid, tanh, _softmax: the result (threshold_backward(grad, result, 0),
 *                       sigmoid_backward(grad, result), _softmax_backward_data(grad, result, ..)):
 *                       an in-place ReLU's result is the tensor it overwrote, which no other
 *                       layer keeps then, so in place or not the count is the same
 *   silu, gelu, hardswish, hardsigmoid: the input (silu_backward(grad, self), ...)
 *   max_pool2d_with_indices: input and int64 indices a output element (result1); the format
 *                       does not tell max from average pooling (avg_pool2d keeps the input
 *                       only): counted as max, the global average pools' |y| being small
 *   native_dropout      its bool mask (result1), one byte an element
 *   add, cat            nothing (sizes only); mul, matmul, layernorm: as above
 *   upsample_nearest2d  nothing (upsample_nearest2d_backward(grad, output_size, input_size))
 *   local_response_norm (torch/nn/functional.py, composite): the input, its padded squares (the
 *                       average pool's input), the base before pow and the divisor (div keeps
 *                       both operands): 3 |x| of its own besides x, the padding left out
 *   embedding           the int64 ids (embedding_backward(grad, indices, ..))
 *   lstm (_cudnn_rnn)   input and output; its reserve space (the gates of every step) is
 *                       cuDNN's to size (cudnnGetRNNTrainingReserveSize): not counted
 * Storage: a reshape is a view of its input; every other layer writes a tensor of its own.
 * In mixed precision autocast runs layer_norm and softmax in FP32 and conv, linear, matmul
 * and bmm in FP16, casting their inputs (pytorch.org/docs/1.13/amp.html, "CUDA Ops that can
 * autocast to float32" / "to float16"): layer norm keeps its input in FP32, softmax its FP32
 * result, and a product reading that result keeps an FP16 copy of it besides
 * (ag_fp32_elems, ag_copy_elems). */
#include "workload_internal.h"

#include <stdlib.h>
#include <string.h>

/* Whether layer l of wl follows autograd's rule (above). An add with no inputs listed is one
 * input only where the file has a graph (XML); a ParaDL file lists no inputs at all. */
static int autograd_rule(const wl_layer *l, int graph)
{
    switch (l->type) {
    case WL_LAYERNORM:
    case WL_MATMUL:
    case WL_MOVE:
    case WL_RESHAPE:
    case WL_TANH:
        return 1;
    case WL_MUL:
        return l->n_inputs <= 1;
    case WL_ADD:
        return l->n_inputs == 1 || (l->n_inputs == 0 && graph);
    default:
        return 0;
    }
}

/* The layer whose output holds the storage of layer p's output. */
static int storage_of(const wl_workload *wl, int p)
{
    while (p >= 0 && (wl->layers[p].type == WL_RESHAPE || wl->layers[p].type == WL_RELU ||
                      wl->layers[p].type == WL_BNORM))
        p = wl_input_of(wl, p, 0);
    return p < 0 ? WL_INPUT_DATA : p;
}

/* Counts the tensor of storage s (index s + 1 in counted: the data sample is -1) of `elems`
 * elements unless already counted. */
static int64_t keep(char *counted, int s, int64_t elems)
{
    if (counted[s + 1])
        return 0;
    counted[s + 1] = 1;
    return elems;
}

/* Under autograd's rule, the layer whose output holds the storage of layer p's output: only a
 * reshape is a view. */
static int ag_storage_of(const wl_workload *wl, int p)
{
    while (p >= 0 && wl->layers[p].type == WL_RESHAPE)
        p = wl_input_of(wl, p, 0);
    return p < 0 ? WL_INPUT_DATA : p;
}

/* Input k of layer i kept (its x for the first, the producer's |y| for another), once; a
 * product keeping a softmax's result keeps its FP16 copy in mixed precision (*copy). */
static int64_t keep_input(const wl_workload *wl, char *counted, int i, int k, int64_t *copy)
{
    int p = wl_input_of(wl, i, k), s = ag_storage_of(wl, p);
    int64_t elems = k == 0 ? wl->layers[i].x_elems : p < 0 ? 0 : wl->layers[p].y_elems;
    wl_type t = wl->layers[i].type;
    if (s >= 0 && wl->layers[s].type == WL_SOFTMAX &&
        (t == WL_CONV || t == WL_FC || t == WL_MATMUL || t == WL_DECONV))
        *copy += elems;
    return keep(counted, s, elems);
}

/* What autograd keeps for layer i (the table at the top) into its ag_ fields. */
static void ag_layer(wl_workload *wl, char *counted, int i)
{
    wl_layer *l = &wl->layers[i];
    int64_t x = l->x_elems, y = l->y_elems, s = 0, index_bytes = 0, copy = 0;
    switch (l->type) {
    case WL_CONV: case WL_FC: case WL_BNORM: case WL_SILU: case WL_GELU: case WL_HARDSWISH:
    case WL_HARDSIGMOID: case WL_DECONV:
        s = keep_input(wl, counted, i, 0, &copy);
        break;
    case WL_RELU: case WL_SIGMOID: case WL_TANH: case WL_SOFTMAX:
        s = keep(counted, i, y);
        break;
    case WL_POOL:
        s = keep_input(wl, counted, i, 0, &copy), index_bytes = 8 * y;
        break;
    case WL_DROPOUT: index_bytes = y; break;
    case WL_EMBED: index_bytes = 8 * x; break;
    case WL_LRN: s = keep_input(wl, counted, i, 0, &copy) + 3 * x; break;
    case WL_LAYERNORM:
        s = keep_input(wl, counted, i, 0, &copy) + 2 * (x / l->x.channels);
        break;
    case WL_LSTM: s = keep_input(wl, counted, i, 0, &copy) + keep(counted, i, y); break;
    case WL_MUL: case WL_MATMUL:
        s = keep_input(wl, counted, i, 0, &copy);
        if (l->n_inputs >= 2)
            s += keep_input(wl, counted, i, 1, &copy);
        break;
    default: break; /* add, concat, reshape, move, upsample: sizes only */
    }
    l->ag_saved_elems = s;
    l->ag_index_bytes = index_bytes;
    l->ag_fp32_elems = l->type == WL_LAYERNORM || l->type == WL_SOFTMAX ? s : 0;
    l->ag_copy_elems = copy;
}

static void ag_saved(wl_workload *wl, char *counted)
{
    for (int i = 0; i < wl->n_layers; i++)
        ag_layer(wl, counted, i);
}

int wl__saved(wl_workload *wl, int graph, char *err)
{
    char *counted = calloc((size_t)wl->n_layers + 1, 1);
    if (!counted)
        return hs_fail(err, HS_EINTERNAL, "out of memory for %d layers", wl->n_layers);
    for (int i = 0; i < wl->n_layers; i++) { /* what ParaDL's rule counts */
        wl_layer *l = &wl->layers[i];
        l->autograd_rule = autograd_rule(l, graph);
        if (l->autograd_rule || l->type == WL_RELU || l->type == WL_BNORM)
            continue;
        counted[storage_of(wl, i) + 1] = 1;
        for (int k = 0; k < wl_n_inputs(l); k++)
            counted[storage_of(wl, wl_input_of(wl, i, k)) + 1] = 1;
    }
    for (int i = 0; i < wl->n_layers; i++) {
        wl_layer *l = &wl->layers[i];
        if (!l->autograd_rule)
            continue;
        int in = storage_of(wl, wl_input_of(wl, i, 0));
        l->saved_elems = 0;
        if (l->type == WL_LAYERNORM) /* the input, and a mean and a 1/std a row */
            l->saved_elems = keep(counted, in, l->x_elems) + 2 * (l->x_elems / l->x.channels);
        else if (l->type == WL_MUL)
            l->saved_elems = keep(counted, in, l->x_elems);
        else if (l->type == WL_TANH)
            l->saved_elems = keep(counted, i, l->y_elems);
        else if (l->type == WL_MATMUL) {
            int b = wl_input_of(wl, i, 1);
            int64_t b_elems = b < 0 ? 0 : wl->layers[b].y_elems;
            l->saved_elems = keep(counted, in, l->x_elems) +
                             keep(counted, storage_of(wl, b), b_elems);
        }
    }
    memset(counted, 0, (size_t)wl->n_layers + 1); /* autograd's rule counts anew */
    ag_saved(wl, counted);
    free(counted);
    return HS_OK;
}
