/* footprint.c: the memory one GPU holds under a strategy (footprint.h).
 *
 * Every sum here is of whole numbers below 2^53 and every scaling by a power of two, so the
 * parts add up to exactly ParaDL's 2 x delta x (activations + weights) without optimizer
 * state. Under autograd's rule (st_training.autograd_memory) the activations are what autograd
 * keeps (fp_kept), held once. */
#include "footprint.h"

#include <stdbool.h>
#include <stdlib.h>

#include "compute.h"
#include "precision.h"


/* The oracle keeps the outputs of ReLU and batch normalisation in place, so they hold no
 * activation memory of their own (the same rule as the workload's x_total / y_total). */
static int holds_activations(wl_type type)
{
    return type != WL_RELU && type != WL_BNORM && type != WL_RESHAPE;
}

static int64_t ceil_div(int64_t a, int64_t b)
{
    return (a + b - 1) / b;
}

/* Activation elements of one sample layer l holds, its tensors cut `parts` ways (rounded up
 * per tensor): ParaDL's |x| + |y|, or, for the token types, what autograd saves for them
 * (wl_layer.autograd_rule, workload_saved.c). */
static double layer_act(const wl_layer *l, int64_t parts)
{
    if (l->autograd_rule)
        return (double)ceil_div(l->saved_elems, parts);
    if (!holds_activations(l->type))
        return 0.0;
    return (double)(ceil_div(l->x_elems, parts) + ceil_div(l->y_elems, parts));
}

/* The workload's activation elements of one sample, nothing cut: ParaDL's totals, with the
 * token layers' |x| + |y| replaced by what autograd saves for them. */
static double whole_act(const wl_workload *wl)
{
    double act = (double)(wl->x_total + wl->y_total);
    for (int i = 0; i < wl->n_layers; i++) {
        const wl_layer *l = &wl->layers[i];
        if (l->autograd_rule)
            act += (double)l->saved_elems -
                   (holds_activations(l->type) ? (double)(l->x_elems + l->y_elems) : 0.0);
    }
    return act;
}

/* Under autograd's rule: what a GPU keeps for the backward of the samples it processes. */
typedef struct {
    double saved_elems;  /* the tensors autograd saves (wl_layer.ag_saved_elems), in the
                          * activations' precision */
    double index_bytes;  /* its integer tensors: indices, masks, ids (ag_index_bytes) */
    double fp32_elems;   /* of saved_elems, those autocast keeps in FP32 (ag_fp32_elems) */
    double copy_elems;   /* FP16 copies of FP32 results, mixed precision only (ag_copy_elems) */
    double live_elems;   /* the largest input and output of one layer: live beside the saved
                          * ones while it runs forward, as are its output's and input's
                          * gradients backward */
} fp_kept;

/* Layer l's share of `samples` samples, its tensors cut `parts` ways (rounded up per tensor). */
static void kept_add(fp_kept *k, const wl_layer *l, int64_t parts, double samples)
{
    k->saved_elems += samples * (double)ceil_div(l->ag_saved_elems, parts);
    k->index_bytes += samples * (double)ceil_div(l->ag_index_bytes, parts);
    k->fp32_elems += samples * (double)ceil_div(l->ag_fp32_elems, parts);
    k->copy_elems += samples * (double)ceil_div(l->ag_copy_elems, parts);
    double live = samples * (double)(ceil_div(l->x_elems, parts) + ceil_div(l->y_elems, parts));
    if (l->type != WL_RESHAPE && live > k->live_elems) /* a view allocates nothing */
        k->live_elems = live;
}

/* The bytes of what is kept: each saved tensor once, not beside a gradient of its own, since
 * autograd's engine frees a gradient once the layer below has consumed it and a node's saved
 * tensors once it has run (torch/csrc/autograd/engine.cpp, v1.13: evaluate_function moves the
 * inputs' buffer into call_function, then fn.release_variables() unless keep_graph); the
 * live pair of the largest layer on top. In 2-byte precisions what autocast keeps in FP32
 * takes 4 bytes and the FP16 copies of it their own (workload_saved.c). */
static double kept_bytes(const fp_kept *k, pr_precision pr)
{
    double b = pr_activation_bytes(pr);
    if (b >= 4)
        return b * (k->saved_elems + k->live_elems) + k->index_bytes;
    return b * (k->saved_elems - k->fp32_elems + k->live_elems + k->copy_elems) +
           4 * k->fp32_elems + k->index_bytes;
}

/* Each tensor and its gradient: weights and gradients delta x w each, activations with their
 * gradients 2 x delta x act; the optimizer keeps k values per weight; in mixed precision delta
 * is 2 bytes and the optimizer updates an FP32 master copy (precision.h). */
static void parts_of(double act_elems, double w_elems, pr_precision pr, int optimizer_states,
                     hs_memory *m)
{
    m->weights_bytes = pr_weight_bytes(pr) * w_elems;
    m->gradients_bytes = pr_weight_gradient_bytes(pr) * w_elems;
    m->activations_bytes = 2 * pr_activation_bytes(pr) * act_elems;
    m->master_bytes = pr_master_bytes(pr) * w_elems;
    m->optimizer_state_bytes = optimizer_states * pr_state_bytes(pr) * w_elems;
}

double fp_total(const hs_memory *m)
{
    return m->weights_bytes + m->gradients_bytes + m->activations_bytes + m->master_bytes +
           m->optimizer_state_bytes;
}

/* Weights a GPU holds and activation elements of one sample, for a layer-wise strategy whose
 * model-parallel part splits the layers marked `bit` `parts` ways: filter and channel cut the
 * weights (the split layers' sum divided, as ParaDL writes |w|/p), spatial cuts the activations
 * (rounded up per tensor). */
static void layerwise(const wl_workload *wl, unsigned bit, int parts, bool cut_weights,
                      bool cut_activations, double *w, double *act)
{
    double w_split = 0, w_rep = 0;
    *act = 0;
    for (int i = 0; i < wl->n_layers; i++) {
        const wl_layer *l = &wl->layers[i];
        bool split = (l->split_mask & bit) != 0;
        if (split)
            w_split += (double)l->w_elems;
        else
            w_rep += (double)l->w_elems;
        *act += layer_act(l, split && cut_activations ? parts : 1);
    }
    *w = cut_weights ? w_split / parts + w_rep : w_split + w_rep;
}

/* The pipeline's stage that needs the most memory (the first among equals): every stage keeps
 * the activations of all B samples until their backward pass. */
static int pipeline(const wl_workload *wl, const kt_compute *kc, const st_strategy *st,
                    double batch, hs_memory *mem, char *err)
{
    int p = st->p;
    pr_precision pr = kt_precision(kc);
    int *first = malloc((size_t)(p + 1) * sizeof *first);
    if (!first)
        return hs_fail(err, HS_EINTERNAL, "out of memory partitioning %d stages", p);
    int status = st_pipeline_partition(wl, kc, batch / st->segments, p, first, err);
    double max_bytes = 0;
    for (int g = 0; status == HS_OK && g < p; g++) {
        double act = 0, w = 0;
        fp_kept kept = {0};
        for (int i = first[g]; i < first[g + 1]; i++) {
            const wl_layer *l = &wl->layers[i];
            act += batch * layer_act(l, 1);
            kept_add(&kept, l, 1, batch);
            w += (double)l->w_elems;
        }
        hs_memory stage;
        parts_of(act, w, pr, st_optimizer_states(&st->train, wl), &stage);
        if (st->train.autograd_memory)
            stage.activations_bytes = kept_bytes(&kept, pr);
        if (g == 0 || fp_total(&stage) > max_bytes) {
            max_bytes = fp_total(&stage);
            *mem = stage;
        }
    }
    free(first);
    return status;
}

/* What a GPU of layer l's group holds for it under configuration c (footprint.h,
 * fp_layer_bytes): activation elements by ParaDL's rule, by autograd's into *kept, weights. */
static void layer_elems(const wl_layer *l, const st_layer_config *c, double batch,
                        double *act_elems, fp_kept *kept, double *w_elems)
{
    int cut = c->whole ? 1 : c->height * c->width * c->depth;
    *act_elems = batch / c->batch * layer_act(l, cut);
    kept_add(kept, l, cut, batch / c->batch);
    *w_elems = (double)l->w_elems / (c->whole ? 1 : c->filter * c->channel);
}

double fp_layer_bytes(const wl_layer *l, const st_layer_config *c, double batch,
                      int optimizer_states, bool autograd)
{
    double a, w;
    fp_kept kept = {0};
    hs_memory m;
    layer_elems(l, c, batch, &a, &kept, &w);
    parts_of(a, w, PR_FP32, optimizer_states, &m); /* plans train in fp32 */
    if (autograd)
        m.activations_bytes = kept_bytes(&kept, PR_FP32);
    return fp_total(&m);
}

/* A per-layer plan: each GPU holds, for every layer whose group it is in, its batch share of
 * the layer's activations (cut by the layer's spatial split, rounded up per tensor, as the
 * spatial strategy does) and its share of the weights (cut by filter and channel splits, as
 * filter and channel parallelism do); the busiest GPU (the first among equals) is reported. */
static int plan_memory(const wl_workload *wl, pr_precision pr, const st_strategy *st,
                       double batch, hs_memory *mem, char *err)
{
    const st_plan *plan = st->plan;
    int p = plan->gpus;
    double *act = calloc((size_t)p, sizeof *act), *w = calloc((size_t)p, sizeof *w);
    fp_kept *kept = calloc((size_t)p, sizeof *kept);
    if (!act || !w || !kept) {
        free(act);
        free(w);
        free(kept);
        return hs_fail(err, HS_EINTERNAL, "out of memory for the memory of %d GPUs", p);
    }
    for (int i = 0; i < wl->n_layers && i < plan->n_layers; i++) {
        const st_layer_config *c = &plan->layers[i];
        double a, held;
        fp_kept k = {0};
        layer_elems(&wl->layers[i], c, batch, &a, &k, &held);
        int q = st_group_size(c);
        for (int r = c->base; r < c->base + q && r < p; r++) {
            act[r] += a, w[r] += held;
            kept[r].saved_elems += k.saved_elems, kept[r].index_bytes += k.index_bytes;
            kept[r].fp32_elems += k.fp32_elems, kept[r].copy_elems += k.copy_elems;
            if (k.live_elems > kept[r].live_elems)
                kept[r].live_elems = k.live_elems;
        }
    }
    for (int r = 0; r < p; r++) {
        hs_memory m;
        parts_of(act[r], w[r], pr, st_optimizer_states(&st->train, wl), &m);
        if (st->train.autograd_memory)
            m.activations_bytes = kept_bytes(&kept[r], pr);
        if (r == 0 || fp_total(&m) > fp_total(mem))
            *mem = m;
    }
    free(act);
    free(w);
    free(kept);
    return HS_OK;
}

/* A strategy of one split (serial, data, spatial, filter, channel and their hybrids) under
 * autograd's rule: the weights as ParaDL's rule holds them, the activations of b samples a GPU
 * as autograd keeps them, a spatial split's layers' tensors cut p2 ways. */
static void autograd_memory(const wl_workload *wl, const st_strategy *st, double b,
                            pr_precision pr, int states, hs_memory *mem)
{
    bool spatial = st->kind == ST_SPATIAL || st->kind == ST_DATA_SPATIAL;
    bool cut_w = st->kind == ST_FILTER || st->kind == ST_CHANNEL || st->kind == ST_DATA_FILTER;
    unsigned bit = st_split_bit(st->kind);
    int parts = bit ? st->p2 : 1;
    double w, act;
    fp_kept kept = {0};
    layerwise(wl, bit, parts, cut_w, spatial, &w, &act);
    for (int i = 0; i < wl->n_layers; i++) {
        const wl_layer *l = &wl->layers[i];
        kept_add(&kept, l, spatial && (l->split_mask & bit) ? parts : 1, b);
    }
    parts_of(b * act, w, pr, states, mem);
    mem->activations_bytes = kept_bytes(&kept, pr);
}

int fp_memory(const wl_workload *wl, const kt_compute *kc, const st_strategy *st, int64_t batch,
              hs_memory *mem, char *err)
{
    pr_precision pr = kt_precision(kc);
    double b = (double)batch / st->p1, w, act;
    int states = st_optimizer_states(&st->train, wl);
    if (st->train.autograd_memory && st->kind != ST_LAYERWISE && st->kind != ST_PIPELINE) {
        autograd_memory(wl, st, b, pr, states, mem);
        return HS_OK;
    }
    switch (st->kind) {
    case ST_LAYERWISE:
        return plan_memory(wl, pr, st, (double)batch, mem, err);
    case ST_PIPELINE:
        return pipeline(wl, kc, st, (double)batch, mem, err);
    case ST_SPATIAL:
    case ST_DATA_SPATIAL:
        layerwise(wl, st_split_bit(st->kind), st->p2, false, true, &w, &act);
        parts_of(b * act, w, pr, states, mem);
        return HS_OK;
    case ST_FILTER:
    case ST_CHANNEL:
    case ST_DATA_FILTER:
        layerwise(wl, st_split_bit(st->kind), st->p2, true, false, &w, &act);
        parts_of(b * whole_act(wl), w, pr, states, mem);
        return HS_OK;
    default: /* serial, data: every GPU holds all weights and its B/p samples' activations */
        layerwise(wl, 0, 1, false, false, &w, &act);
        parts_of(b * whole_act(wl), w, pr, states, mem);
        return HS_OK;
    }
}

int fp_fill(const wl_workload *wl, const kt_compute *kc, const st_strategy *st, int64_t batch,
            double gpu_memory_bytes, hs_estimate *est, char *err)
{
    int status = fp_memory(wl, kc, st, batch, &est->memory, err);
    if (status != HS_OK)
        return status;
    est->memory_per_gpu_bytes = fp_total(&est->memory);
    est->fits_in_memory = est->memory_per_gpu_bytes <= gpu_memory_bytes;
    return HS_OK;
}
