/* analytic.c: ParaDL's closed-form model (PARADL-MODEL.md), one function per family of
 * strategies, on links already read from the platform (routes.c).
 *
 * Everything here is per training iteration; hs_estimate_scale_epoch turns it into an epoch.
 * Units: seconds, bytes, elements (delta = 4 bytes per element). Where the ParaDL oracle's
 * code and logs made a choice the paper's table leaves open, the comment says so; README's
 * "Analytic model" section lists the choices and the oracle rows they reproduce. */
#include "analytic.h"
#include "analytic_int.h"

#include <stdlib.h>
#include <string.h>

#include "footprint.h"

/* ------------------------------------------------------------------ layer sums */

/* What a strategy needs from the layers, split (marked for its split bit) or replicated. */
typedef struct {
    double t_split_s, t_rep_s;   /* forward+backward seconds of one sample */
    double wu_split_s, wu_rep_s; /* weight-update seconds per iteration */
    double w_split, w_rep;       /* weight elements */
    int n_exchange;              /* split layers whose output the group exchanges (all split
                                  * layers but the network's last, as in the oracle) */
    double y_exchange;           /* sum of their |y| */
    int split_point;             /* the last split layer, -1 if none */
} layer_sums;

static void sum_layers(const wl_workload *wl, unsigned bit, layer_sums *s)
{
    memset(s, 0, sizeof *s);
    s->split_point = -1;
    for (int i = 0; i < wl->n_layers; i++) {
        const wl_layer *l = &wl->layers[i];
        int split = (l->split_mask & bit) != 0;
        double t = l->fw_s + l->bw_s;
        if (split) {
            s->t_split_s += t;
            s->wu_split_s += l->wu_s;
            s->w_split += (double)l->w_elems;
            if (i < wl->n_layers - 1) {
                s->n_exchange++;
                s->y_exchange += (double)l->y_elems;
            }
            s->split_point = i;
        } else {
            s->t_rep_s += t;
            s->wu_rep_s += l->wu_s;
            s->w_rep += (double)l->w_elems;
        }
    }
}

/* ------------------------------------------------------------------ the strategies */

/* Serial (p = 1) and data parallelism: each GPU runs B/p samples through the whole model,
 * then the gradients of all W weights are allreduced over the ring of all p GPUs. */
static void model_data(const wl_workload *wl, const kt_compute *kc, const st_strategy *st,
                       double batch, const an_links *ln, hs_times *it, an_terms *terms)
{
    layer_sums s;
    sum_layers(wl, 0, &s);
    double b = batch / st->p;
    double w = s.w_split + s.w_rep;
    it->compute_s = b * (s.t_split_s + s.t_rep_s) + s.wu_split_s + s.wu_rep_s;
    terms->comm_s[HS_TERM_GRAD_ACROSS] = an__allreduce_algo_s(
        st->allreduce, st->p, w * st_gradient_bytes(&st->train, kc), ln->ring, &ln->grad_across);
    it->comm_s = an_terms_comm_s(terms);
    it->exposed_comm_s = it->comm_s;
}

/* Filter and channel parallelism, and data+filter (filter is the p1 = 1 case): inside a group
 * of p2 GPUs each split layer is cut by filters (or channels); every GPU holds the group's
 * b = B/p1 samples' activations. Per exchanged layer: allgather of the output, allreduce of
 * the input gradient (channel: the reverse), 3(p2-1) steps of b|y|/p2 in all. Replicated
 * layers run whole on every GPU. Data+filter then allreduces weight gradients across the p1
 * groups; following the oracle's ResNet ranking logs (resnet_ranking.log), each GPU reduces
 * the weights it holds (its filter share plus the replicated layers) and the node's GPUs'
 * rings share its uplink. */
static void model_filter(const wl_workload *wl, const kt_compute *kc, const st_strategy *st,
                         double batch, const an_links *ln, hs_times *it, an_terms *terms)
{
    layer_sums s;
    int p1 = st->p1, p2 = st->p2;
    sum_layers(wl, st_split_bit(st->kind), &s);
    double b = batch / p1;
    double w_gpu = s.w_split / p2 + s.w_rep;
    it->compute_s = b * (s.t_split_s / p2 + s.t_rep_s) + s.wu_split_s / p2 + s.wu_rep_s;
    double y_bytes = b * s.y_exchange * kt_message_bytes(kc);
    /* The per-layer costs add up: n_exchange start-ups, the summed volume. */
    an_link per_layer = ln->group;
    per_layer.alpha_s *= s.n_exchange;
    if (s.n_exchange > 0) {
        terms->comm_s[HS_TERM_ACT_ALLGATHER] = an__allgather_s(p2, y_bytes / p2, per_layer);
        terms->comm_s[HS_TERM_ACT_ALLREDUCE] =
            st->filter_rs ? an__allgather_s(p2, y_bytes / p2, per_layer) /* a reduce-scatter */
                          : an__allreduce_s(p2, y_bytes, per_layer);
    }
    terms->comm_s[HS_TERM_GRAD_ACROSS] =
        an__allreduce_algo_s(st->allreduce, p1, w_gpu * st_gradient_bytes(&st->train, kc),
                             an__shared(ln->across, ln->node_sharing), &ln->grad_across);
    it->comm_s = an_terms_comm_s(terms);
}

/* Halo exchange of the split layers with a kernel wider than one: each GPU swaps
 * floor((K-1)/2) columns of every channel of its b samples with both neighbours, forward
 * (the input x) and backward (the gradient, sized like x as in the oracle's code): 4
 * messages per layer. A layer whose halo is 0 columns (a 2-wide pooling window) still pays
 * the start-ups, as the oracle charges them. */
static double halo_layer_s(const wl_layer *ly, const kt_compute *kc, unsigned bit, double b,
                           an_link l)
{
    int64_t k = ly->w_kernel[0];
    if (!(ly->split_mask & bit) || k <= 1)
        return 0.0;
    double face = (double)ly->x.channels * (double)((k - 1) / 2);
    for (int d = 1; d < ly->x.n_spatial; d++)
        face *= (double)ly->x.spatial[d];
    return 4 * (l.alpha_s + b * face * kt_message_bytes(kc) * l.beta_s_per_byte);
}

static double halo_s(const wl_workload *wl, const kt_compute *kc, unsigned bit, double b, an_link l)
{
    double sum_s = 0;
    for (int i = 0; i < wl->n_layers; i++)
        sum_s += halo_layer_s(&wl->layers[i], kc, bit, b, l);
    return sum_s;
}

/* Spatial parallelism, and data+spatial (spatial is the p1 = 1 case), as the oracle's code
 * does it: the split layers' width is cut among the p2 GPUs of a group; halos go through
 * host memory (no GPUDirect), the node's GPUs staging at once in both directions; at the split
 * point the output is allgathered forward and its gradient scattered backward (counted twice);
 * the weight gradients are allreduced inside the group, then (hybrid) among the groups over
 * the uplinks the node's GPUs share, both directions. Replicated layers run whole. */
static void model_spatial(const wl_workload *wl, const kt_compute *kc, const st_strategy *st,
                          double batch, const an_links *ln, hs_times *it, an_terms *terms)
{
    layer_sums s;
    int p1 = st->p1, p2 = st->p2;
    unsigned bit = st_split_bit(st->kind);
    sum_layers(wl, bit, &s);
    double b = batch / p1;
    double w = s.w_split + s.w_rep;
    double y_split = s.split_point >= 0 ? (double)wl->layers[s.split_point].y_elems : 0;
    it->compute_s = b * (s.t_split_s / p2 + s.t_rep_s) + s.wu_split_s + s.wu_rep_s;
    double sharing = 2.0 * ln->node_sharing;
    double *c = terms->comm_s;
    /* In a chain (--halo chain) a direction's messages follow one another along the p2 GPUs,
     * p2 - 1 of them, each alone on its links. */
    if (p2 > 1)
        c[HS_TERM_HALO] = st->halo_chain ? (p2 - 1) * halo_s(wl, kc, bit, b, ln->staged)
                                         : halo_s(wl, kc, bit, b, an__shared(ln->staged, sharing));
    c[HS_TERM_SPLIT_GATHER] = 2 * an__allgather_s(p2, b * y_split * kt_message_bytes(kc) / p2,
                                                  an__shared(ln->staged, 2.0));
    double grad_bytes = st_gradient_bytes(&st->train, kc);
    c[HS_TERM_GRAD_GROUP] = an__allreduce_algo_s(st->allreduce, p2, w * grad_bytes, ln->group,
                                                 &ln->grad_group);
    c[HS_TERM_GRAD_ACROSS] =
        an__allreduce_algo_s(st->allreduce, p1, w * grad_bytes, an__shared(ln->across, sharing),
                             &ln->grad_across);
    it->comm_s = an_terms_comm_s(terms);
}

/* ------------------------------------------------------------------ the overlap order */

/* Layer l's kernels on one rank, its input and weight gradients apart (as expand.c's
 * ex_plan_compute: measured times half and half); *fw_s its forward. */
static int bwd_kernels(const wl_workload *wl, const kt_compute *kc, const st_strategy *st,
                       double batch, int l, double *fw_s, an_bwd_layer *out, char *err)
{
    const wl_layer *ly = &wl->layers[l];
    out->has_weights = ly->w_elems > 0;
    if (!kc) {
        bool split = st->p2 > 1 && (ly->split_mask & st_split_bit(st->kind));
        double samples = batch / st->p1 / (split ? st->p2 : 1);
        *fw_s = samples * ly->fw_s;
        out->both_s = samples * ly->bw_s;
        out->bx_s = out->has_weights ? out->both_s * 0.5 : out->both_s;
        out->dw_s = out->has_weights ? out->both_s * 0.5 : 0.0;
        return HS_OK;
    }
    double dx_s, dw_s;
    int rc = an__layer_passes_s(wl, kc, st, l, batch, fw_s, &dx_s, &dw_s, err);
    out->both_s = dx_s + dw_s;
    out->bx_s = out->has_weights ? dx_s : dx_s + dw_s;
    out->dw_s = out->has_weights ? dw_s : 0.0;
    return rc;
}

/* Layer l's collectives on the data path, each as the blocking model prices it (model_filter's
 * per layer, model_spatial's halos and split point): the backward's into *out, the forward's
 * added to *fwd_s. b: the group's samples. */
static void bwd_collectives(const wl_workload *wl, const kt_compute *kc, const st_strategy *st,
                            double b, const an_links *ln, int l, int split_point,
                            an_bwd_layer *out, double *fwd_s)
{
    const wl_layer *ly = &wl->layers[l];
    unsigned bit = st_split_bit(st->kind);
    int p2 = st->p2;
    if (p2 < 2 || !(ly->split_mask & bit))
        return;
    double y_bytes = b * (double)ly->y_elems * kt_message_bytes(kc);
    if (st->kind == ST_SPATIAL || st->kind == ST_DATA_SPATIAL) {
        double h_s = st->halo_chain
                         ? (p2 - 1) * halo_layer_s(ly, kc, bit, b, ln->staged)
                         : halo_layer_s(ly, kc, bit, b,
                                        an__shared(ln->staged, 2.0 * ln->node_sharing));
        out->halo_s = h_s / 2; /* two of its four messages each way */
        *fwd_s += h_s / 2;
        if (l == split_point) {
            out->dy = true;
            out->dy_s = an__allgather_s(p2, y_bytes / p2, an__shared(ln->staged, 2.0));
            *fwd_s += out->dy_s;
        }
        return;
    }
    if (l == wl->n_layers - 1) /* the network's last layer exchanges nothing */
        return;
    double gather_s = an__allgather_s(p2, y_bytes / p2, ln->group);
    double reduce_s = st->filter_rs ? gather_s : an__allreduce_s(p2, y_bytes, ln->group);
    bool filter = st->kind != ST_CHANNEL; /* channel: the reverse */
    out->dy = true;
    out->dy_s = filter ? reduce_s : gather_s;
    *fwd_s += filter ? gather_s : reduce_s;
}

/* The ranks and links of a bucket's allreduces, as the blocking models reduce the gradients. */
static an_grad_path grad_path(const st_strategy *st, const an_links *ln)
{
    an_grad_path gp = {.algo = st->allreduce, .n_group = 1, .n_across = st->p1,
                       .across_layout = &ln->grad_across};
    switch (st->kind) {
    case ST_SERIAL:
    case ST_DATA:
        gp.n_across = st->p, gp.across = ln->ring;
        break;
    case ST_SPATIAL:
    case ST_DATA_SPATIAL:
        gp.n_group = st->p2, gp.group = ln->group, gp.group_layout = &ln->grad_group;
        gp.across = an__shared(ln->across, 2.0 * ln->node_sharing);
        break;
    default: /* filter, channel, data+filter: a GPU's share, the node's rings sharing its uplink */
        gp.across = an__shared(ln->across, ln->node_sharing);
        break;
    }
    return gp;
}

/* The layer-wise strategies in the overlap order (--overlap): every layer's backward priced as
 * the blocking model prices it, replayed as the simulation orders it (overlap.c). Exposed: the
 * forward's collectives and what the backward leaves past its kernels; the gradient terms are
 * the buckets' allreduces. */
static int model_overlap(const wl_workload *wl, const kt_compute *kc, const st_strategy *st,
                         double batch, const an_links *ln, hs_times *it, an_terms *terms,
                         char *err)
{
    int n = wl->n_layers, split_point = -1;
    an_bwd_layer *ly = calloc((size_t)(n > 0 ? n : 1), sizeof *ly);
    if (!ly)
        return hs_fail(err, HS_EINTERNAL, "out of memory for the backward of %d layers", n);
    for (int l = 0; l < n; l++)
        if (wl->layers[l].split_mask & st_split_bit(st->kind))
            split_point = l;
    double fwd_s = 0, fwd_comm_s = 0, elem_bytes = st_gradient_bytes(&st->train, kc);
    bool spatial = st->kind == ST_SPATIAL || st->kind == ST_DATA_SPATIAL;
    int status = HS_OK;
    for (int l = 0; l < n && status == HS_OK; l++) {
        double fw_s = 0;
        status = bwd_kernels(wl, kc, st, batch, l, &fw_s, &ly[l], err);
        fwd_s += fw_s;
        bwd_collectives(wl, kc, st, batch / st->p1, ln, l, split_point, &ly[l], &fwd_comm_s);
        bool share = st->p2 > 1 && (wl->layers[l].split_mask & st_split_bit(st->kind)) &&
                     !spatial; /* filter and channel reduce their share of a split layer */
        ly[l].grad_bytes = (double)wl->layers[l].w_elems / (share ? st->p2 : 1) * elem_bytes;
    }
    an_grad_path gp = grad_path(st, ln);
    an_overlap ov;
    if (status == HS_OK)
        status = an__overlap_backward(ly, n, &gp, st, fwd_s + fwd_comm_s, &ov, err);
    free(ly);
    if (status != HS_OK)
        return status;
    terms->comm_s[HS_TERM_GRAD_GROUP] = ov.group_s;
    terms->comm_s[HS_TERM_GRAD_ACROSS] = ov.across_s;
    it->comm_s = an_terms_comm_s(terms);
    it->exposed_comm_s = fwd_comm_s + ov.exposed_s;
    return HS_OK;
}

/* Pipeline parallelism, GPipe: GPU i runs stage i (st_pipeline_partition); the batch flows as
 * S micro-batches, so a step takes the slowest stage and the pipeline fills and drains in
 * p+S-1 steps; each boundary sends the stage's output forward and its gradient back,
 * 2(p+S-2) sends on the critical path, each as slow as the slowest boundary. A stage's
 * kernels are its layers' on one micro-batch (an__gpipe). */
static int model_pipeline(const wl_workload *wl, const kt_compute *kc, const st_strategy *st,
                          double batch, const an_links *ln, hs_times *it, an_terms *terms,
                          char *err)
{
    int p = st->p, segs = st->segments;
    if (ln->n_stage_links < p - 1)
        return hs_fail(err, HS_EINTERNAL, "pipeline: %d stage links for %d stages",
                       ln->n_stage_links, p);
    int *first = malloc((size_t)(p + 1) * sizeof *first);
    if (!first)
        return hs_fail(err, HS_EINTERNAL, "out of memory partitioning %d stages", p);
    int status = st_pipeline_partition(wl, kc, batch / segs, p, first, err);
    if (status != HS_OK) {
        free(first);
        return status;
    }
    status = an__gpipe(wl, kc, first, p, segs, batch / segs, ln->stage, it, terms, err);
    free(first);
    if (status != HS_OK)
        return status;
    it->comm_s = an_terms_comm_s(terms);
    return HS_OK;
}

/* ------------------------------------------------------------------ entry points */

int an_model(const wl_workload *wl, const kt_compute *kc, const st_strategy *st, int64_t batch,
             const an_links *links, double gpu_memory_bytes, hs_estimate *est, char *err)
{
    return an_model_terms(wl, kc, st, batch, links, gpu_memory_bytes, est, NULL, err);
}

int an_model_terms(const wl_workload *wl, const kt_compute *kc, const st_strategy *st,
                   int64_t batch, const an_links *links, double gpu_memory_bytes, hs_estimate *est,
                   an_terms *terms, char *err)
{
    memset(est, 0, sizeof *est);
    an_terms local;
    if (!terms)
        terms = &local;
    memset(terms, 0, sizeof *terms);
    if (st->kind == ST_LAYERWISE)
        return hs_fail(err, HS_EINTERNAL, "a per-layer plan is priced on an an_net "
                       "(an_plan_model), not on a built-in strategy's links");
    int status = st_check(st, wl, batch, err);
    if (status != HS_OK)
        return status;
    hs_times *it = &est->iteration;
    double b = (double)batch;
    switch (st->kind) {
    case ST_SERIAL:
    case ST_DATA:
        model_data(wl, kc, st, b, links, it, terms);
        break;
    case ST_FILTER:
    case ST_CHANNEL:
    case ST_DATA_FILTER:
        model_filter(wl, kc, st, b, links, it, terms);
        break;
    case ST_SPATIAL:
    case ST_DATA_SPATIAL:
        model_spatial(wl, kc, st, b, links, it, terms);
        break;
    case ST_PIPELINE:
        status = model_pipeline(wl, kc, st, b, links, it, terms, err);
        if (status != HS_OK)
            return status;
        break;
    default:
        return hs_fail(err, HS_EINTERNAL, "analytic: strategy kind %d not handled",
                       (int)st->kind);
    }
    if (kc && st->kind != ST_PIPELINE) { /* model_pipeline times its stages itself */
        status = an__model_compute_s(wl, kc, st, b, &it->compute_s, err);
        if (status != HS_OK)
            return status;
    }
    /* Blocking, every second of communication is exposed; in the overlap order (--overlap)
     * the layer-wise strategies' backward overlaps its gradient buckets and collectives. */
    it->exposed_comm_s = it->comm_s;
    if (st->overlap && st->p > 1 && st->kind != ST_PIPELINE) {
        status = model_overlap(wl, kc, st, b, links, it, terms, err);
        if (status != HS_OK)
            return status;
    }
    it->total_s = it->compute_s + it->exposed_comm_s;
    hs_estimate_host_step(est, kt_compute_step_host_s(kc));
    hs_estimate_input_floor(est, kt_compute_input_s(kc, batch, st_input_groups(st)));
    hs_estimate_scale_epoch(est, wl->samples, batch);
    /* Memory is the strategy's footprint, the same one the simulator reports. */
    return fp_fill(wl, kc, st, batch, gpu_memory_bytes, est, err);
}

int an_estimate(const wl_workload *wl, const kt_compute *kc, const plat_platform *plat,
                const st_strategy *st, int64_t batch, hs_estimate *est, char *err)
{
    return an_estimate_placed(wl, kc, plat, st, batch, NULL, est, err);
}

int an_estimate_placed(const wl_workload *wl, const kt_compute *kc, const plat_platform *plat,
                       const st_strategy *st, int64_t batch, const int *gpu_of_rank,
                       hs_estimate *est, char *err)
{
    return an_estimate_terms(wl, kc, plat, st, batch, gpu_of_rank, est, NULL, err);
}

int an_estimate_terms(const wl_workload *wl, const kt_compute *kc, const plat_platform *plat,
                      const st_strategy *st, int64_t batch, const int *gpu_of_rank,
                      hs_estimate *est, an_terms *terms, char *err)
{
    memset(est, 0, sizeof *est);
    if (terms)
        memset(terms, 0, sizeof *terms);
    if (st->kind == ST_LAYERWISE) {
        an_net *net = NULL;
        int status = an_net_open(plat, st->p, gpu_of_rank, &net, err);
        if (status == HS_OK)
            status = an_plan_model(wl, kc, st->plan, batch, net, plat->gpu_memory_bytes, est, terms,
                                   err);
        an_net_close(net);
        return status;
    }
    an_links links;
    int status = an_links_load_placed(plat, st, gpu_of_rank, &links, err);
    if (status != HS_OK)
        return status;
    status = an_model_terms(wl, kc, st, batch, &links, plat->gpu_memory_bytes, est, terms, err);
    an_links_free(&links);
    return status;
}

int an_estimate_on(const wl_workload *wl, const kt_compute *kc, const plat_platform *plat,
                   const st_strategy *st, int64_t batch, pl_kind placement, hs_estimate *est,
                   an_terms *terms, char *err)
{
    memset(est, 0, sizeof *est);
    int *gpu_of_rank = malloc((size_t)st->p * sizeof *gpu_of_rank);
    if (!gpu_of_rank)
        return hs_fail(err, HS_EINTERNAL, "out of memory placing %d ranks", st->p);
    int status = pl_place(plat, placement, st->p, gpu_of_rank, err);
    if (status == HS_OK)
        status = an_estimate_terms(wl, kc, plat, st, batch, gpu_of_rank, est, terms, err);
    free(gpu_of_rank);
    return status;
}
