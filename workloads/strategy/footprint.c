/* footprint.c: the memory one GPU holds under a strategy (footprint.h).
 *
 * Every sum here is of whole numbers below 2^53 and every scaling by a power of two, so the
 * parts add up to exactly ParaDL's 2 x delta x (activations + weights) without optimizer
 * state. */
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
        for (int i = first[g]; i < first[g + 1]; i++) {
            const wl_layer *l = &wl->layers[i];
            act += batch * layer_act(l, 1);
            w += (double)l->w_elems;
        }
        hs_memory stage;
        parts_of(act, w, pr, st_optimizer_states(&st->train, wl), &stage);
        if (g == 0 || fp_total(&stage) > max_bytes) {
            max_bytes = fp_total(&stage);
            *mem = stage;
        }
    }
    free(first);
    return status;
}

void fp_layer_elems(const wl_layer *l, const st_layer_config *c, double batch,
                    double *act_elems, double *w_elems)
{
    int cut = c->whole ? 1 : c->height * c->width * c->depth;
    *act_elems = batch / c->batch * layer_act(l, cut);
    *w_elems = (double)l->w_elems / (c->whole ? 1 : c->filter * c->channel);
}

double fp_layer_bytes(const wl_layer *l, const st_layer_config *c, double batch,
                      int optimizer_states)
{
    double a, w;
    hs_memory m;
    fp_layer_elems(l, c, batch, &a, &w);
    parts_of(a, w, PR_FP32, optimizer_states, &m); /* plans train in fp32 */
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
    if (!act || !w) {
        free(act);
        free(w);
        return hs_fail(err, HS_EINTERNAL, "out of memory for the memory of %d GPUs", p);
    }
    for (int i = 0; i < wl->n_layers && i < plan->n_layers; i++) {
        const st_layer_config *c = &plan->layers[i];
        double a, held;
        fp_layer_elems(&wl->layers[i], c, batch, &a, &held);
        int q = st_group_size(c);
        for (int r = c->base; r < c->base + q && r < p; r++)
            act[r] += a, w[r] += held;
    }
    for (int r = 0; r < p; r++) {
        hs_memory m;
        parts_of(act[r], w[r], pr, st_optimizer_states(&st->train, wl), &m);
        if (r == 0 || fp_total(&m) > fp_total(mem))
            *mem = m;
    }
    free(act);
    free(w);
    return HS_OK;
}

int fp_memory(const wl_workload *wl, const kt_compute *kc, const st_strategy *st, int64_t batch,
              hs_memory *mem, char *err)
{
    pr_precision pr = kt_precision(kc);
    double b = (double)batch / st->p1, w, act;
    int states = st_optimizer_states(&st->train, wl);
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
