/* expand.c: strategy expansion, from (workload, strategy, batch) to per-rank task lists.
 *
 * The simulator's half of the model: it decides which kernels and which messages a training
 * iteration consists of, and in which order, and leaves timing to the engine. It mirrors the
 * STRUCTURE of ParaDL's closed form (PARADL-MODEL.md) without using its formulas: the same
 * kernels, the same collectives on the same buffers, so that on an uncongested platform the two
 * agree and where they disagree the simulation has found contention or overlap.
 *
 * Every strategy has one of two shapes:
 *   layer-wise (serial, data, filter, channel, spatial and the data+ hybrids): every rank runs
 *     every layer on its share of the samples and, for the layers its strategy splits, its share
 *     of the layer; communication sits between layers (activation allgather or allreduce, halo
 *     exchange) and after the backward (the gradient allreduce: one fused buffer, as ChainerMN
 *     packs all gradients). One plan per layer says what a rank does; every rank's list is
 *     written from it with the rank's own groups.
 *     Which layers communicate, and how much, follows analytic/analytic.c exactly (the oracle's
 *     choices: only split layers exchange activations; spatial halos sized like x, the width
 *     split, two messages one after the other (TG_SHIFT up, then down); the split-point
 *     gather; halos and gather staged through host memory, TG_FLAG_STAGED, as MPI without
 *     GPUDirect; data+filter reducing the weights a rank holds), so that the two derivations
 *     differ only where the network makes them differ.
 *   pipeline: rank s runs a contiguous group of layers on S micro-batches (GPipe): all forwards,
 *     then all backwards, with point-to-point messages between neighbouring stages; a middle
 *     stage sends one micro-batch while it receives the next (TG_SHIFT) (pipeline.c).
 * In the overlap order (--overlap) the backward, its deferred weight gradients and its gradient
 * buckets, is expand_overlap.c's. A per-layer plan (-s FILE.xml) has its own expansion, which
 * derives the messages from which rank holds which slice (expand_plan.c, expand_redist.c,
 * layout.c, moves.c).
 *
 * Work is expressed in samples: a kernel lasts (per-sample seconds) * (samples it processes) /
 * (ways its layer is split). The backward time of a layer with weights is split evenly between
 * the input-gradient and the weight-gradient kernels; without weights it is all input gradient. */
#include "expand.h"
#include "expand_int.h"

#include "compute.h"

#include <stdlib.h>
#include <string.h>

/* The strategy reduced to what the expansion needs. */
typedef struct {
    st_kind kind;
    int p;              /* ranks */
    int p1;             /* data-parallel replicas (groups) */
    int p2;             /* ranks per group that split the model (pipeline: stages) */
    int segments;       /* pipeline micro-batches S */
    double batch;       /* global mini-batch B */
    double samples;     /* samples one group processes per iteration: B / p1 */
    unsigned split_bit; /* WL_SPLIT_* the model-parallel part honours, 0 for none */
    bool filter_rs;     /* st_strategy.filter_rs */
    bool halo_chain;    /* st_strategy.halo_chain */
    st_training train;  /* st_strategy.train: the runtime's gradient bytes */
} ex_shape;


/* ---------------------------------------------------------------- layer-wise strategies */

static bool ex_is_filter(st_kind k) { return k == ST_FILTER || k == ST_DATA_FILTER; }
static bool ex_is_spatial(st_kind k) { return k == ST_SPATIAL || k == ST_DATA_SPATIAL; }
static bool ex_is_model(st_kind k) { return ex_is_filter(k) || ex_is_spatial(k) ||
                                            k == ST_CHANNEL; }

bool ex_may_stage(const st_strategy *st)
{
    return ex_is_spatial(st->kind) || st->kind == ST_LAYERWISE;
}

/* Is the layer one the strategy's model-parallel part splits p2 ways? */
static bool ex_split(const ex_shape *sh, const wl_layer *layer)
{
    return sh->p2 > 1 && (layer->split_mask & sh->split_bit) != 0;
}

/* Kernel durations of one layer on one rank. Measured: the group's samples, cut p2 ways if
 * split, at the per-sample times (the backward half input gradient, half weight gradient).
 * --compute model (kc): each kernel at the rank's real shape (compute.h). */
static int ex_plan_compute(const ex_shape *sh, const wl_workload *wl, const kt_compute *kc, int l,
                           ex_layer_plan *lp, char *err)
{
    const wl_layer *layer = &wl->layers[l];
    bool split = ex_split(sh, layer);
    double samples = sh->samples / (split ? sh->p2 : 1);
    lp->has_weights = layer->w_elems > 0;
    /* Filter and channel parallelism split the weights too: a rank updates its share only.
     * Spatial parallelism replicates them: every rank updates all. */
    bool owns_share = split && !ex_is_spatial(sh->kind);
    lp->wu_s = layer->wu_s / (owns_share ? sh->p2 : 1);
    if (!kc) {
        lp->fw_s = layer->fw_s * samples;
        lp->bx_s = layer->bw_s * samples * (lp->has_weights ? 0.5 : 1.0);
        lp->bw_s = lp->has_weights ? layer->bw_s * samples * 0.5 : 0.0;
        return HS_OK;
    }
    double dw_s = 0;
    int rc = st_builtin_kernels_s(wl, kc, sh->kind, sh->p2, sh->filter_rs, sh->samples, l,
                                  &lp->fw_s, &lp->bx_s, &dw_s, err);
    lp->bw_s = lp->has_weights ? dw_s : 0.0;
    lp->bx_s += lp->has_weights ? 0.0 : dw_s;
    /* autocast's casts of the weights before the forward and of their gradients after the
     * weight gradient, before the reducer sees them (analytic/compute.c alike) */
    double cast_s = st_autocast_cast_s(&sh->train, kc, wl, l, owns_share ? sh->p2 : 1);
    lp->fw_s += cast_s;
    lp->bw_s += lp->has_weights ? cast_s : 0.0;
    lp->wu_s = kt_compute_update_s(kc, wl, l, owns_share ? sh->p2 : 1);
    /* the replicas' reducer copies each gradient into its bucket and back: compute-stream
     * kernels, timed with the update (where the copy back runs; the copy in, which runs in the
     * backward, costs the stream the same) */
    if (sh->p1 > 1) {
        lp->wu_s += kt_compute_grad_copy_s(kc, wl, l, owns_share ? sh->p2 : 1,
                                           st_gradient_bytes(&sh->train, kc));
        lp->fw_s += kt_compute_buffer_sync_s(kc, wl, l); /* the buffers broadcast before it */
    }
    return rc;
}

/* The activation collectives of filter and channel parallelism: for every split layer but the
 * network's last (the model's sum over l < G), its output is assembled forward and the
 * gradient of that output is combined backward, just before the layer's own backward. Filter:
 * allgather of the output slices, allreduce of the partial gradients (reduce-scatter with
 * --filter-backward reduce-scatter: a GPU needs only its slice); channel: the reverse. */
static void ex_plan_activations(const ex_shape *sh, const wl_workload *wl, const kt_compute *kc,
                                int l, ex_layer_plan *lp)
{
    bool filter = ex_is_filter(sh->kind);
    if (!(filter || sh->kind == ST_CHANNEL) || !ex_split(sh, &wl->layers[l]) ||
        l == wl->n_layers - 1)
        return;
    double full = sh->samples * (double)wl->layers[l].y_elems * kt_message_bytes(kc);
    lp->y_op = filter ? TG_ALLGATHER : TG_ALLREDUCE;
    lp->y_bytes = filter ? full / sh->p2 : full;
    lp->dy_op = filter ? (sh->filter_rs ? TG_REDUCE_SCATTER : TG_ALLREDUCE) : TG_ALLGATHER;
    lp->dy_bytes = filter ? full : full / sh->p2;
}

/* Spatial parallelism cuts the width of the split layers: a layer with a window K > 1 swaps
 * floor((K-1)/2) columns of its input, all channels and the other extents, with each
 * neighbour before its forward, and as much of the input gradient after its backward (the
 * boundary sums; the model sizes it like x). A 2-wide window swaps no column but still pays
 * the messages, as the model charges them. At the split point (the last split layer) the
 * output is allgathered forward and its gradient scattered back to the slices. */
static void ex_plan_spatial(const ex_shape *sh, const wl_workload *wl, const kt_compute *kc, int l,
                            int split_point, ex_layer_plan *lp)
{
    const wl_layer *layer = &wl->layers[l];
    if (!ex_is_spatial(sh->kind) || !ex_split(sh, layer))
        return;
    int64_t k = layer->w_kernel[0];
    if (k > 1) {
        double face = (double)layer->x.channels * (double)((k - 1) / 2);
        for (int d = 1; d < layer->x.n_spatial && d < WL_MAX_SPATIAL; d++)
            face *= (double)layer->x.spatial[d];
        lp->halo = true;
        lp->halo_bytes = sh->samples * face * kt_message_bytes(kc);
    }
    if (l == split_point) {
        double full = sh->samples * (double)layer->y_elems * kt_message_bytes(kc);
        lp->act_flags = TG_FLAG_STAGED; /* an MPI allgatherv without GPUDirect, as the halos */
        lp->y_op = TG_ALLGATHER;
        lp->y_bytes = full / sh->p2;
        lp->dy_op = TG_REDUCE_SCATTER; /* costs what the allgather does: n-1 steps of 1/n */
        lp->dy_bytes = full;
    }
}

/* The gradient exchange: data parallelism reduces all W weights across the replicas;
 * data+filter the weights a rank holds (its share of the split layers, all of the replicated
 * ones); spatial and data+spatial, whose weights are replicated, reduce all of them inside the
 * group, then across the groups. */
static void ex_plan_gradient(const ex_shape *sh, const wl_workload *wl, const kt_compute *kc,
                             ex_plan *plan)
{
    double held = 0.0, elem_bytes = st_gradient_bytes(&sh->train, kc);
    for (int l = 0; l < wl->n_layers; l++)
        held += (double)wl->layers[l].w_elems / (ex_split(sh, &wl->layers[l]) ? sh->p2 : 1);
    for (int l = 0; l < wl->n_layers; l++) {
        const wl_layer *ly = &wl->layers[l];
        bool own_share = ex_split(sh, ly) && !ex_is_spatial(sh->kind);
        plan->layers[l].grad_bytes =
            (double)ly->w_elems / (own_share ? sh->p2 : 1) * elem_bytes;
    }
    double w_bytes = (double)wl->w_total * elem_bytes;
    plan->grad_model_bytes = ex_is_spatial(sh->kind) && sh->p2 > 1 ? w_bytes : 0.0;
    plan->grad_across_bytes = 0.0;
    if (sh->p1 > 1)
        plan->grad_across_bytes =
            ex_is_spatial(sh->kind) ? w_bytes : held * elem_bytes;
}

static int ex_plan_build(const ex_shape *sh, const wl_workload *wl, const kt_compute *kc,
                         ex_plan *plan, char *err)
{
    plan->n_layers = wl->n_layers;
    plan->layers = calloc((size_t)wl->n_layers, sizeof *plan->layers);
    if (!plan->layers)
        return hs_fail(err, HS_EINTERNAL, "out of memory for %d layer plans", wl->n_layers);
    int split_point = -1;
    for (int l = 0; l < wl->n_layers; l++)
        if (ex_split(sh, &wl->layers[l]))
            split_point = l;
    for (int l = 0; l < wl->n_layers; l++) {
        ex_layer_plan *lp = &plan->layers[l];
        lp->y_op = lp->dy_op = EX_NO_OP;
        int rc = ex_plan_compute(sh, wl, kc, l, lp, err);
        if (rc != HS_OK)
            return rc;
        ex_plan_activations(sh, wl, kc, l, lp);
        ex_plan_spatial(sh, wl, kc, l, split_point, lp);
    }
    for (int l = 1; l < wl->n_layers; l++)
        plan->layers[l].dy_below = plan->layers[l - 1].dy_below ||
                                   plan->layers[l - 1].dy_op != EX_NO_OP;
    ex_plan_gradient(sh, wl, kc, plan);
    return HS_OK;
}

/* Register the communicators of a layer-wise strategy, each distinct group once, and say which
 * ones every rank uses. Rank r is member k = r % p2 of group j = r / p2. */
static int ex_groups_layerwise(const ex_shape *sh, tg_graph *g, ex_rank_groups *per_rank,
                               char *err)
{
    int *ranks = malloc((size_t)sh->p * sizeof *ranks);
    if (!ranks)
        return hs_fail(err, HS_EINTERNAL, "out of memory for a group of %d ranks", sh->p);
    bool failed = false;
    for (int r = 0; r < sh->p; r++)
        per_rank[r] = (ex_rank_groups){.model = -1, .across = -1, .lo = -1, .hi = -1,
                                       .shift_up = -1, .shift_down = -1,
                                       .chain = sh->halo_chain};

    /* the model-parallel groups: {j*p2, ..., j*p2 + p2-1} */
    for (int j = 0; ex_is_model(sh->kind) && sh->p2 > 1 && j < sh->p1; j++) {
        for (int k = 0; k < sh->p2; k++)
            ranks[k] = j * sh->p2 + k;
        int gi = tg_add_group(g, ranks, sh->p2);
        failed |= gi < 0;
        for (int k = 0; k < sh->p2; k++)
            per_rank[j * sh->p2 + k].model = gi;
    }
    /* a 1-D spatial split: each rank's neighbours inside its group, and for the ranks with two
     * the pairs {send peer, receive peer} of the two halo shifts */
    for (int r = 0; ex_is_spatial(sh->kind) && sh->p2 > 1 && r < sh->p; r++) {
        ex_rank_groups *rg = &per_rank[r];
        int k = r % sh->p2;
        rg->lo = k > 0 ? r - 1 : -1;
        rg->hi = k < sh->p2 - 1 ? r + 1 : -1;
        if (rg->lo < 0 || rg->hi < 0)
            continue;
        int up[2] = {rg->hi, rg->lo}, down[2] = {rg->lo, rg->hi};
        rg->shift_up = tg_add_group(g, up, 2);
        rg->shift_down = tg_add_group(g, down, 2);
        failed |= rg->shift_up < 0 || rg->shift_down < 0;
    }
    /* the data-parallel rings among the ranks of equal index: {k, p2+k, 2p2+k, ...} */
    for (int k = 0; sh->p1 > 1 && k < sh->p2; k++) {
        for (int j = 0; j < sh->p1; j++)
            ranks[j] = j * sh->p2 + k;
        int gi = tg_add_group(g, ranks, sh->p1);
        failed |= gi < 0;
        for (int j = 0; j < sh->p1; j++)
            per_rank[j * sh->p2 + k].across = gi;
    }
    free(ranks);
    return failed ? hs_fail(err, HS_EINTERNAL, "out of memory for communicator groups") : HS_OK;
}

/* A halo exchange, staged through host memory (no GPUDirect): in a chain by default
 * (ex_halo_chain, ChainerMN's), or with --halo sendrecv as the model charges it (two
 * messages, one after the other): first every rank sends its upper face up while receiving
 * from below, then the lower face down while receiving from above. Returns the last task. */
int ex__halo(ex_cursor *c, const ex_rank_groups *grp, tg_phase phase, int layer,
                   double bytes, int producer)
{
    if (grp->chain)
        return ex_halo_chain(c, phase, layer, grp->lo, grp->hi, bytes, producer);
    ex_shift(c, phase, layer, grp->hi, grp->lo, grp->shift_up, bytes, bytes, TG_FLAG_STAGED,
             producer);
    return ex_shift(c, phase, layer, grp->lo, grp->hi, grp->shift_down, bytes, bytes,
                    TG_FLAG_STAGED, producer);
}

/* One rank's iteration: forward through the layers, backward in reverse, gradient exchange,
 * update. `ready` follows the task that finished the tensor flowing through the network
 * (activations going forward, their gradient going backward): what the next step needs. */
static void ex_write_layerwise(ex_cursor *c, const ex_plan *plan, const ex_rank_groups *grp,
                               ex_backward *overlap)
{
    int ready = -1;
    for (int l = 0; l < plan->n_layers; l++) {
        const ex_layer_plan *lp = &plan->layers[l];
        bool halo = lp->halo && (grp->lo >= 0 || grp->hi >= 0);
        if (halo)
            ready = ex__halo(c, grp, TG_FORWARD, l, lp->halo_bytes, ready);
        ready = ex_exec(c, TG_FORWARD, l, lp->fw_s, ready);
        if (lp->y_op != EX_NO_OP && grp->model >= 0)
            ready = ex_comm(c, lp->y_op, TG_FORWARD, l, grp->model, lp->y_bytes, lp->act_flags,
                            ready);
    }
    if (overlap) {
        int grad = ex__write_backward_overlap(overlap, ready);
        for (int l = 0; l < plan->n_layers; l++)
            if (plan->layers[l].wu_s > 0)
                ex_exec(c, TG_UPDATE, l, plan->layers[l].wu_s, grad);
        return;
    }
    int last_kernel = -1;
    for (int l = plan->n_layers - 1; l >= 0; l--) {
        const ex_layer_plan *lp = &plan->layers[l];
        if (lp->dy_op != EX_NO_OP && grp->model >= 0)
            ready = ex_comm(c, lp->dy_op, TG_BACKWARD_INPUT, l, grp->model, lp->dy_bytes,
                            lp->act_flags, ready);
        int bx = ex_exec(c, TG_BACKWARD_INPUT, l, lp->bx_s, ready);
        last_kernel = bx;
        if (lp->has_weights)
            last_kernel = ex_exec(c, TG_BACKWARD_WEIGHT, l, lp->bw_s, ready);
        ready = bx;
        if (lp->halo && (grp->lo >= 0 || grp->hi >= 0))
            ready = ex__halo(c, grp, TG_BACKWARD_INPUT, l, lp->halo_bytes, bx);
    }
    int grad = last_kernel;
    if (plan->grad_model_bytes > 0 && grp->model >= 0)
        grad = ex_comm(c, TG_ALLREDUCE, TG_GRADIENT, -1, grp->model, plan->grad_model_bytes, 0,
                       grad);
    if (plan->grad_across_bytes > 0 && grp->across >= 0)
        grad = ex_comm(c, TG_ALLREDUCE, TG_GRADIENT, -1, grp->across, plan->grad_across_bytes, 0,
                       grad);
    for (int l = 0; l < plan->n_layers; l++)
        if (plan->layers[l].wu_s > 0)
            ex_exec(c, TG_UPDATE, l, plan->layers[l].wu_s, grad);
}

/* The slots of a layer-wise rank (tg_graph.slots): its groups and neighbours. */
enum { EX_SLOT_MODEL, EX_SLOT_ACROSS, EX_SLOT_LO, EX_SLOT_HI, EX_SLOT_UP, EX_SLOT_DOWN,
       EX_SLOTS };

/* Rank r's groups and neighbours into its slots; *grp becomes what its tasks name instead,
 * the slots (-1, none, stays -1). Ranks of one role in their groups (the first of a spatial
 * group, say) then have equal views, and the list depends on the plan and the view only. */
static void ex_to_slots(tg_graph *g, int r, ex_rank_groups *grp)
{
    int32_t *slot = &g->slots[(size_t)r * EX_SLOTS];
    int *field[EX_SLOTS] = {&grp->model, &grp->across, &grp->lo, &grp->hi, &grp->shift_up,
                            &grp->shift_down};
    for (int k = 0; k < EX_SLOTS; k++) {
        slot[k] = *field[k];
        *field[k] = *field[k] >= 0 ? k : -1;
    }
}

static bool ex_same_groups(const ex_rank_groups *a, const ex_rank_groups *b)
{
    return a->model == b->model && a->across == b->across && a->lo == b->lo && a->hi == b->hi &&
           a->shift_up == b->shift_up && a->shift_down == b->shift_down && a->chain == b->chain;
}

/* The rank among `first` (n of them) whose view equals rank r's, -1 for none. */
static int ex_same_view(const ex_rank_groups *view, const int *first, int n, int r)
{
    for (int i = 0; i < n; i++)
        if (ex_same_groups(&view[first[i]], &view[r]))
            return first[i];
    return -1;
}

static int ex_expand_layerwise(const ex_shape *sh, const wl_workload *wl, const kt_compute *kc,
                               const ex_options *opt, tg_graph *g, char *err)
{
    ex_plan plan = {0};
    bool overlap = opt && opt->overlap;
    ex_rank_groups *groups = calloc((size_t)sh->p, sizeof *groups);
    int *first = calloc((size_t)sh->p, sizeof *first);
    int *deferred = calloc(2 * (size_t)wl->n_layers + 1, sizeof *deferred);
    double *held = calloc((size_t)wl->n_layers + 1, sizeof *held);
    int rc = groups && first && deferred && held ? ex_plan_build(sh, wl, kc, &plan, err)
                                : hs_fail(err, HS_EINTERNAL, "out of memory for %d ranks", sh->p);
    plan.bucket_bytes = opt && opt->bucket_bytes > 0 ? opt->bucket_bytes : CO_BUCKET_BYTES;
    plan.first_bucket_bytes = opt && opt->first_bucket_bytes > 0 ? opt->first_bucket_bytes
                                                                  : plan.bucket_bytes;
    if (overlap && opt->cycle_time_s > 0) {
        plan.bucket_flags = TG_FLAG_CYCLE;
        g->cycle_time_s = opt->cycle_time_s;
    }
    plan.after_backward = overlap && opt->after_backward;
    if (rc == HS_OK)
        rc = ex_groups_layerwise(sh, g, groups, err);
    if (rc == HS_OK)
        rc = tg_init_slots(g, EX_SLOTS, err);
    int n_first = 0; /* the first rank of each view, in `first` (groups becomes the views) */
    for (int r = 0; rc == HS_OK && r < sh->p; r++) {
        ex_to_slots(g, r, &groups[r]);
        int same = ex_same_view(groups, first, n_first, r);
        if (same >= 0 && tg_borrow(g, r, same))
            continue; /* the list of an earlier rank of its role (all of data parallelism's) */
        first[n_first++] = r;
        ex_cursor c = {.g = g, .rank = r, .overlap = overlap, .last = -1};
        ex_backward b = {.c = &c, .plan = &plan, .grp = &groups[r], .deferred = deferred,
                         .deferred_after = deferred + wl->n_layers, .grad = -1,
                         .held = held};
        ex_write_layerwise(&c, &plan, &groups[r], overlap ? &b : NULL);
        if (c.oom)
            rc = hs_fail(err, HS_EINTERNAL, "out of memory writing the tasks of rank %d", r);
        else
            tg_share(g, r); /* data parallelism: every rank the same list, one copy */
    }
    free(plan.layers);
    free(groups);
    free(first);
    free(deferred);
    free(held);
    return rc;
}

/* ---------------------------------------------------------------- pipeline */

/* The built-in pipeline: the partition that balances the stages, stage s on rank s. */
static int ex_expand_pipeline(const ex_shape *sh, const wl_workload *wl, const kt_compute *kc,
                              bool overlap, tg_graph *g, char *err)
{
    int *first = malloc((size_t)(sh->p + 1) * sizeof *first);
    if (!first)
        return hs_fail(err, HS_EINTERNAL, "out of memory for %d stages", sh->p);
    int rc = st_pipeline_partition(wl, kc, sh->batch / sh->segments, sh->p, first, err);
    ex_pipe pp = {.first = first, .n_stages = sh->p, .segments = sh->segments,
                  .batch = sh->batch};
    if (rc == HS_OK)
        rc = ex__pipeline(wl, kc, &pp, overlap, g, err);
    free(first);
    return rc;
}

/* ---------------------------------------------------------------- entry points */

/* Check what the expansion relies on and reduce the strategy to its shape. The strategy's own
 * limits (p <= B, p <= min F_l, ...) are st_check's business; these are the ones without which
 * the task lists would be meaningless. */
static int ex_shape_of(const wl_workload *wl, const st_strategy *st, int64_t batch,
                       ex_shape *sh, char *err)
{
    if (!wl || wl->n_layers < 1)
        return hs_fail(err, HS_EINPUT, "expand: the workload has no layers");
    if (batch < 1)
        return hs_fail(err, HS_EINPUT, "expand: the batch must be at least 1, got %lld",
                       (long long)batch);
    if (st->kind < 0 || st->kind >= ST_KIND_COUNT)
        return hs_fail(err, HS_EINPUT, "expand: unknown strategy kind %d", (int)st->kind);
    if (st->p < 1)
        return hs_fail(err, HS_EINPUT, "expand: %s needs at least 1 GPU, got %d",
                       st_kind_name(st->kind), st->p);
    *sh = (ex_shape){.kind = st->kind, .p = st->p, .p1 = 1, .p2 = st->p, .segments = 1,
                     .batch = (double)batch, .split_bit = st_split_bit(st->kind),
                     .filter_rs = st->filter_rs, .halo_chain = st->halo_chain,
                     .train = st->train};
    switch (st->kind) {
    case ST_SERIAL:
        if (st->p != 1)
            return hs_fail(err, HS_EINPUT, "expand: serial runs on 1 GPU, got %d", st->p);
        break;
    case ST_DATA:
        sh->p1 = st->p, sh->p2 = 1;
        break;
    case ST_DATA_FILTER:
    case ST_DATA_SPATIAL:
        if (st->p1 < 1 || st->p2 < 1 || (int64_t)st->p1 * st->p2 != st->p)
            return hs_fail(err, HS_EINPUT, "expand: %s:%dx%d does not make %d GPUs",
                           st_kind_name(st->kind), st->p1, st->p2, st->p);
        sh->p1 = st->p1, sh->p2 = st->p2;
        break;
    case ST_PIPELINE:
        if (st->p > wl->n_layers)
            return hs_fail(err, HS_EINPUT, "expand: a pipeline of %d stages needs at least %d "
                           "layers, %s has %d", st->p, st->p, wl->name, wl->n_layers);
        if (st->segments < 1)
            return hs_fail(err, HS_EINPUT, "expand: a pipeline needs at least 1 micro-batch, "
                           "got %d", st->segments);
        sh->segments = st->segments;
        break;
    default:
        break;
    }
    sh->samples = sh->batch / sh->p1;
    return HS_OK;
}

/* The gradient allreduces run the strategy's algorithm (--allreduce); every other collective
 * stays a ring (ChainerMN runs the model-parallel layers' collectives over MPI). */
static void ex_gradient_algorithm(tg_graph *g, co_algo algo)
{
    static const uint8_t tg_of[CO_ALGO_COUNT] = {
        [CO_RING] = TG_ALGO_RING, [CO_HIER] = TG_ALGO_HIER, [CO_TREE] = TG_ALGO_TREE,
        [CO_RINGS] = TG_ALGO_RINGS, [CO_AUTO] = TG_ALGO_AUTO};
    if (algo == CO_RING || algo >= CO_ALGO_COUNT)
        return;
    for (int r = 0; r < g->n_ranks; r++)
        for (int i = 0; g->ranks[r].owner == r && i < g->ranks[r].n_tasks; i++) {
            tg_task *t = &g->ranks[r].tasks[i];
            if (t->op == TG_ALLREDUCE && t->phase == TG_GRADIENT)
                t->algo = tg_of[algo];
        }
}

int ex_expand_opt(const wl_workload *wl, const kt_compute *kc, const st_strategy *st, int64_t batch,
                  const ex_options *opt, tg_graph *g, char *err)
{
    memset(g, 0, sizeof *g);
    bool overlap = opt && opt->overlap;
    ex_shape sh = {0};
    int rc = ex_shape_of(wl, st, batch, &sh, err);
    if (rc == HS_OK)
        rc = tg_init(g, sh.p, err);
    if (rc == HS_OK && sh.kind == ST_LAYERWISE)
        rc = st->plan ? ex__expand_plan(wl, kc, st->plan, batch, opt, g, err)
                      : hs_fail(err, HS_EINTERNAL, "expand: a layer-wise strategy without a plan");
    else if (rc == HS_OK)
        rc = sh.kind == ST_PIPELINE ? ex_expand_pipeline(&sh, wl, kc, overlap, g, err)
                                    : ex_expand_layerwise(&sh, wl, kc, opt, g, err);
    if (rc != HS_OK) {
        tg_free(g);
        return rc;
    }
    tg_shrink(g); /* what doubling left unused: at thousands of ranks most of the memory */
    ex_gradient_algorithm(g, st->allreduce);
    return HS_OK;
}

int ex_expand(const wl_workload *wl, const kt_compute *kc, const st_strategy *st, int64_t batch,
              tg_graph *g, char *err)
{
    return ex_expand_opt(wl, kc, st, batch, NULL, g, err);
}

ex_options ex_options_of(const st_strategy *st, bool overlap)
{
    return (ex_options){.overlap = overlap || st->overlap, .bucket_bytes = st->bucket_bytes,
                        .first_bucket_bytes = st->first_bucket_bytes,
                        .cycle_time_s = st->cycle_time_s, .after_backward = st->after_backward};
}
