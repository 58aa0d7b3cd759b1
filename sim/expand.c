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
 *     exchange) and after the backward (the fused gradient allreduce). One plan per layer says
 *     what a rank does; every rank's list is written from it with the rank's own groups.
 *   pipeline: rank s runs a contiguous group of layers on S micro-batches (GPipe): all forwards,
 *     then all backwards, with point-to-point messages between neighbouring stages.
 *
 * Work is expressed in samples: a kernel lasts (per-sample seconds) * (samples it processes) /
 * (ways its layer is split). The backward time of a layer with weights is split evenly between
 * the input-gradient and the weight-gradient kernels; without weights it is all input gradient. */
#include "expand.h"

#include <stdlib.h>
#include <string.h>

#define EX_DELTA_BYTES 4.0 /* bytes per element: fp32 activations, gradients and weights */
#define EX_NO_OP TG_OP_COUNT /* "no collective" in a layer plan */

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
} ex_shape;

/* What one rank does for one layer of a layer-wise strategy (identical on every rank). */
typedef struct {
    double fw_s;          /* forward kernel */
    double bx_s;          /* input-gradient kernel */
    double bw_s;          /* weight-gradient kernel (written only when has_weights) */
    double wu_s;          /* weight update (written only when > 0) */
    bool has_weights;     /* the layer has a weight-gradient kernel */
    uint8_t fw_op;        /* collective on y_l after the forward, EX_NO_OP for none */
    double fw_bytes;      /* its amount (tg_task.amount semantics) */
    uint8_t bx_op;        /* collective on dL/dx_l after the backward, EX_NO_OP for none */
    double bx_bytes;      /* its amount */
    double halo_x_bytes;  /* halo of x_l to each neighbour before the forward, 0: none */
    double halo_dy_bytes; /* halo of dL/dy_l to each neighbour before the backward, 0: none */
} ex_layer_plan;

/* A layer-wise strategy: the per-layer plans and the closing gradient exchange. */
typedef struct {
    ex_layer_plan *layers; /* n_layers plans, in layer order */
    int n_layers;
    double grad_bytes;     /* the fused gradient allreduce buffer, 0: none */
    uint8_t grad_algo;     /* its tg_algo */
} ex_plan;

/* The communicators one rank uses (group indices in the graph, -1: none). */
typedef struct {
    int model;  /* the ranks splitting the layers with it (filter/channel collectives) */
    int halo;   /* its spatial neighbours (TG_EXCHANGE) */
    int grad;   /* the replicas it exchanges gradients with */
} ex_rank_groups;

/* Where one rank's list stands while it is written. */
typedef struct {
    tg_graph *g;
    int rank;
    bool overlap;  /* ex_options.overlap */
    int last;      /* index of the task written last, -1 before the first */
    bool oom;      /* an append failed: the list is unusable */
} ex_cursor;

/* ---------------------------------------------------------------- writing tasks */

/* Append a task that needs the result of task `producer` (-1: nothing). In the overlap order
 * that is the dependency; in the blocking order the task written last is, which chains the
 * whole list into one sequence. Only a dependency on the other stream becomes `after`: the own
 * stream already runs in list order. Returns the task's index (-1 once out of memory). */
static int ex_put(ex_cursor *c, tg_task t, int producer)
{
    if (c->oom)
        return -1;
    int dep = c->overlap ? producer : c->last;
    t.after = -1;
    if (dep >= 0 && tg_stream(&c->g->ranks[c->rank].tasks[dep]) != tg_stream(&t))
        t.after = dep;
    int i = tg_add(c->g, c->rank, t);
    if (i < 0) {
        c->oom = true;
        return -1;
    }
    c->last = i;
    return i;
}

static int ex_exec(ex_cursor *c, tg_phase phase, int layer, double seconds, int producer)
{
    tg_task t = {.op = TG_EXEC, .phase = (uint8_t)phase, .algo = TG_ALGO_RING, .layer = layer,
                 .peer = -1, .amount = seconds};
    return ex_put(c, t, producer);
}

/* A collective, an exchange (peer = group index) or a send/receive (peer = rank). */
static int ex_comm(ex_cursor *c, tg_op op, tg_phase phase, tg_algo algo, int layer, int peer,
                   double bytes, int producer)
{
    tg_task t = {.op = (uint8_t)op, .phase = (uint8_t)phase, .algo = (uint8_t)algo,
                 .layer = layer, .peer = peer, .amount = bytes};
    return ex_put(c, t, producer);
}

/* ---------------------------------------------------------------- layer-wise strategies */

/* Elements of one halo face of a tensor split along H (spatial index 1): floor(K/2) rows of
 * every other extent and every channel. */
static double ex_halo_elems(const wl_shape *s, int64_t kernel)
{
    double elems = (double)(kernel / 2) * (double)s->channels;
    for (int i = 0; i < s->n_spatial && i < WL_MAX_SPATIAL; i++)
        if (i != 1)
            elems *= (double)s->spatial[i];
    return elems;
}

/* Is layer l one the strategy's model-parallel part splits p2 ways? */
static bool ex_split(const ex_shape *sh, const wl_layer *layer)
{
    return sh->p2 > 1 && (layer->split_mask & sh->split_bit) != 0;
}

/* Kernel durations of one layer on one rank. */
static void ex_plan_compute(const ex_shape *sh, const wl_layer *layer, ex_layer_plan *lp)
{
    bool split = ex_split(sh, layer);
    double samples = sh->samples / (split ? sh->p2 : 1);
    lp->has_weights = layer->w_elems > 0;
    lp->fw_s = layer->fw_s * samples;
    lp->bx_s = layer->bw_s * samples * (lp->has_weights ? 0.5 : 1.0);
    lp->bw_s = lp->has_weights ? layer->bw_s * samples * 0.5 : 0.0;
    /* Filter and channel parallelism split the weights too: a rank updates its share only.
     * Spatial parallelism replicates them: every rank updates all. */
    bool owns_share = split && (sh->kind == ST_FILTER || sh->kind == ST_CHANNEL ||
                                sh->kind == ST_DATA_FILTER);
    lp->wu_s = layer->wu_s / (owns_share ? sh->p2 : 1);
}

/* The activation collectives of filter and channel parallelism around layer l. The model counts
 * an exchange of the output of every layer but the last (sum over l = 1..G-1): forward on y_l,
 * backward on the gradient of that same tensor, i.e. after the backward of the layer it feeds.
 * Filter: allgather of the output slices, allreduce of the partial input gradients; channel:
 * the other way round. */
static void ex_plan_activations(const ex_shape *sh, const wl_workload *wl, int l,
                                ex_layer_plan *lp)
{
    lp->fw_op = lp->bx_op = EX_NO_OP;
    bool filter = sh->kind == ST_FILTER || sh->kind == ST_DATA_FILTER;
    if (sh->p2 < 2 || !(filter || sh->kind == ST_CHANNEL))
        return;
    if (l < wl->n_layers - 1) {
        double full = sh->samples * (double)wl->layers[l].y_elems * EX_DELTA_BYTES;
        lp->fw_op = filter ? TG_ALLGATHER : TG_ALLREDUCE;
        lp->fw_bytes = filter ? full / sh->p2 : full;
    }
    if (l > 0) {
        double full = sh->samples * (double)wl->layers[l - 1].y_elems * EX_DELTA_BYTES;
        lp->bx_op = filter ? TG_ALLREDUCE : TG_ALLGATHER;
        lp->bx_bytes = filter ? full : full / sh->p2;
    }
}

/* The halo exchanges of spatial parallelism around a split layer: before its forward the
 * floor(K/2) boundary rows of its input, before its backward those of its output gradient. */
static void ex_plan_halo(const ex_shape *sh, const wl_layer *layer, ex_layer_plan *lp)
{
    lp->halo_x_bytes = lp->halo_dy_bytes = 0.0;
    bool spatial = sh->kind == ST_SPATIAL || sh->kind == ST_DATA_SPATIAL;
    if (!spatial || !ex_split(sh, layer))
        return;
    int64_t k = layer->w_kernel[1];
    lp->halo_x_bytes = sh->samples * ex_halo_elems(&layer->x, k) * EX_DELTA_BYTES;
    lp->halo_dy_bytes = sh->samples * ex_halo_elems(&layer->y, k) * EX_DELTA_BYTES;
}

/* The fused gradient allreduce among replicas: all weights for data and spatial parallelism
 * (replicated weights), the 1/p2 share a rank holds for data+filter. */
static void ex_plan_gradient(const ex_shape *sh, const wl_workload *wl, ex_plan *plan)
{
    double w_bytes = (double)wl->w_total * EX_DELTA_BYTES;
    plan->grad_bytes = 0.0;
    plan->grad_algo = TG_ALGO_RING;
    switch (sh->kind) {
    case ST_DATA:
    case ST_SPATIAL:
        if (sh->p > 1)
            plan->grad_bytes = w_bytes;
        break;
    case ST_DATA_FILTER:
        if (sh->p1 > 1)
            plan->grad_bytes = w_bytes / sh->p2;
        break;
    case ST_DATA_SPATIAL:
        if (sh->p > 1)
            plan->grad_bytes = w_bytes;
        plan->grad_algo = TG_ALGO_HIER;
        break;
    default:
        break;
    }
}

static int ex_plan_build(const ex_shape *sh, const wl_workload *wl, ex_plan *plan, char *err)
{
    plan->n_layers = wl->n_layers;
    plan->layers = calloc((size_t)wl->n_layers, sizeof *plan->layers);
    if (!plan->layers)
        return hs_fail(err, HS_EINTERNAL, "out of memory for %d layer plans", wl->n_layers);
    for (int l = 0; l < wl->n_layers; l++) {
        ex_plan_compute(sh, &wl->layers[l], &plan->layers[l]);
        ex_plan_activations(sh, wl, l, &plan->layers[l]);
        ex_plan_halo(sh, &wl->layers[l], &plan->layers[l]);
    }
    ex_plan_gradient(sh, wl, plan);
    return HS_OK;
}

/* Register the communicators of a layer-wise strategy, each distinct group once, and say which
 * ones every rank uses. Rank r belongs to group j = r / p2 at index k = r % p2. */
static int ex_groups_layerwise(const ex_shape *sh, const ex_plan *plan, tg_graph *g,
                               ex_rank_groups *per_rank, char *err)
{
    int *ranks = malloc((size_t)sh->p * sizeof *ranks);
    if (!ranks)
        return hs_fail(err, HS_EINTERNAL, "out of memory for a group of %d ranks", sh->p);
    bool failed = false;
    for (int r = 0; r < sh->p; r++)
        per_rank[r] = (ex_rank_groups){.model = -1, .halo = -1, .grad = -1};

    bool model = sh->p2 > 1 && (sh->kind == ST_FILTER || sh->kind == ST_CHANNEL ||
                                sh->kind == ST_DATA_FILTER);
    for (int j = 0; model && j < sh->p1; j++) {
        for (int k = 0; k < sh->p2; k++)
            ranks[k] = j * sh->p2 + k;
        int gi = tg_add_group(g, ranks, sh->p2);
        failed |= gi < 0;
        for (int k = 0; k < sh->p2; k++)
            per_rank[j * sh->p2 + k].model = gi;
    }

    bool halo = sh->p2 > 1 && (sh->kind == ST_SPATIAL || sh->kind == ST_DATA_SPATIAL);
    for (int r = 0; halo && r < sh->p; r++) {
        int k = r % sh->p2, n = 0;
        if (k > 0)
            ranks[n++] = r - 1;
        if (k < sh->p2 - 1)
            ranks[n++] = r + 1;
        per_rank[r].halo = tg_add_group(g, ranks, n);
        failed |= per_rank[r].halo < 0;
    }

    if (plan->grad_bytes > 0 && sh->kind == ST_DATA_FILTER) {
        /* rings among the ranks of equal index in their group: {k, p2+k, 2p2+k, ...} */
        for (int k = 0; k < sh->p2; k++) {
            for (int j = 0; j < sh->p1; j++)
                ranks[j] = j * sh->p2 + k;
            int gi = tg_add_group(g, ranks, sh->p1);
            failed |= gi < 0;
            for (int j = 0; j < sh->p1; j++)
                per_rank[j * sh->p2 + k].grad = gi;
        }
    } else if (plan->grad_bytes > 0) {
        for (int r = 0; r < sh->p; r++)
            ranks[r] = r;
        int gi = tg_add_group(g, ranks, sh->p);
        failed |= gi < 0;
        for (int r = 0; r < sh->p; r++)
            per_rank[r].grad = gi;
    }
    free(ranks);
    return failed ? hs_fail(err, HS_EINTERNAL, "out of memory for communicator groups") : HS_OK;
}

/* One rank's iteration: forward through the layers, backward in reverse, gradient exchange,
 * update. `ready` follows the task that finished the tensor flowing through the network
 * (activations going forward, their gradient going backward): what the next step needs. */
static void ex_write_layerwise(ex_cursor *c, const ex_plan *plan, const ex_rank_groups *grp)
{
    int ready = -1;
    for (int l = 0; l < plan->n_layers; l++) {
        const ex_layer_plan *lp = &plan->layers[l];
        if (grp->halo >= 0 && lp->halo_x_bytes > 0)
            ready = ex_comm(c, TG_EXCHANGE, TG_FORWARD, TG_ALGO_RING, l, grp->halo,
                            lp->halo_x_bytes, ready);
        ready = ex_exec(c, TG_FORWARD, l, lp->fw_s, ready);
        if (grp->model >= 0 && lp->fw_op != EX_NO_OP)
            ready = ex_comm(c, lp->fw_op, TG_FORWARD, TG_ALGO_RING, l, grp->model, lp->fw_bytes,
                            ready);
    }
    int last_kernel = -1;
    for (int l = plan->n_layers - 1; l >= 0; l--) {
        const ex_layer_plan *lp = &plan->layers[l];
        if (grp->halo >= 0 && lp->halo_dy_bytes > 0)
            ready = ex_comm(c, TG_EXCHANGE, TG_BACKWARD_INPUT, TG_ALGO_RING, l, grp->halo,
                            lp->halo_dy_bytes, ready);
        int bx = ex_exec(c, TG_BACKWARD_INPUT, l, lp->bx_s, ready);
        last_kernel = bx;
        if (lp->has_weights)
            last_kernel = ex_exec(c, TG_BACKWARD_WEIGHT, l, lp->bw_s, ready);
        ready = bx;
        if (grp->model >= 0 && lp->bx_op != EX_NO_OP)
            ready = ex_comm(c, lp->bx_op, TG_BACKWARD_INPUT, TG_ALGO_RING, l, grp->model,
                            lp->bx_bytes, bx);
    }
    int grad = -1;
    if (grp->grad >= 0 && plan->grad_bytes > 0)
        grad = ex_comm(c, TG_ALLREDUCE, TG_GRADIENT, plan->grad_algo, -1, grp->grad,
                       plan->grad_bytes, last_kernel);
    for (int l = 0; l < plan->n_layers; l++)
        if (plan->layers[l].wu_s > 0)
            ex_exec(c, TG_UPDATE, l, plan->layers[l].wu_s, grad);
}

static int ex_expand_layerwise(const ex_shape *sh, const wl_workload *wl, bool overlap,
                               tg_graph *g, char *err)
{
    ex_plan plan = {0};
    ex_rank_groups *groups = calloc((size_t)sh->p, sizeof *groups);
    int rc = groups ? ex_plan_build(sh, wl, &plan, err)
                    : hs_fail(err, HS_EINTERNAL, "out of memory for %d ranks", sh->p);
    if (rc == HS_OK)
        rc = ex_groups_layerwise(sh, &plan, g, groups, err);
    for (int r = 0; rc == HS_OK && r < sh->p; r++) {
        ex_cursor c = {.g = g, .rank = r, .overlap = overlap, .last = -1};
        ex_write_layerwise(&c, &plan, &groups[r]);
        if (c.oom)
            rc = hs_fail(err, HS_EINTERNAL, "out of memory writing the tasks of rank %d", r);
    }
    free(plan.layers);
    free(groups);
    return rc;
}

/* ---------------------------------------------------------------- pipeline */

/* Per-sample compute of layers [lo, hi), the quantity stages are balanced on. */
static double ex_range_s(const wl_workload *wl, int lo, int hi)
{
    double s = 0.0;
    for (int l = lo; l < hi; l++)
        s += wl->layers[l].fw_s + wl->layers[l].bw_s;
    return s;
}

/* Split the layers into p contiguous non-empty groups minimising the largest group's compute
 * (the pipeline's bottleneck); first[s] is stage s's first layer, first[p] = G. Exact dynamic
 * programme over prefix boundaries: G and p are at most a few hundred. */
static int ex_partition(const wl_workload *wl, int p, int *first, char *err)
{
    int G = wl->n_layers;
    double *best = malloc((size_t)(p + 1) * (size_t)(G + 1) * sizeof *best);
    int *cut = malloc((size_t)(p + 1) * (size_t)(G + 1) * sizeof *cut);
    double *prefix = malloc((size_t)(G + 1) * sizeof *prefix);
    if (!best || !cut || !prefix) {
        free(best), free(cut), free(prefix);
        return hs_fail(err, HS_EINTERNAL, "out of memory partitioning %d layers", G);
    }
    prefix[0] = 0.0;
    for (int l = 0; l < G; l++)
        prefix[l + 1] = prefix[l] + ex_range_s(wl, l, l + 1);
    /* best[s*(G+1)+n]: smallest bottleneck putting the first n layers on s stages */
    for (int n = 0; n <= G; n++)
        best[1 * (G + 1) + n] = prefix[n], cut[1 * (G + 1) + n] = 0;
    for (int s = 2; s <= p; s++)
        for (int n = s; n <= G; n++) {
            double b = -1.0;
            int at = s - 1;
            for (int m = s - 1; m < n; m++) {
                double prev = best[(s - 1) * (G + 1) + m], own = prefix[n] - prefix[m];
                double v = prev > own ? prev : own;
                if (b < 0 || v < b)
                    b = v, at = m;
            }
            best[s * (G + 1) + n] = b;
            cut[s * (G + 1) + n] = at;
        }
    first[p] = G;
    for (int s = p, n = G; s >= 1; s--) {
        first[s - 1] = s == 1 ? 0 : cut[s * (G + 1) + n];
        n = first[s - 1];
    }
    free(best), free(cut), free(prefix);
    return HS_OK;
}

/* Stage s's iteration on layers [lo, hi): for each micro-batch receive the activations from
 * stage s-1, run the forward kernels, send the output to stage s+1; then for each micro-batch in
 * reverse receive the output gradient from s+1, run the backward kernels, send the input
 * gradient to s-1; then update. Messages carry (B/S) * |y| * delta bytes of the boundary
 * layer's output, both ways. */
static void ex_write_stage(ex_cursor *c, const wl_workload *wl, const ex_shape *sh, int lo,
                           int hi)
{
    int s = c->rank, last_stage = sh->p - 1;
    double micro = sh->batch / sh->segments;
    double in_bytes = lo > 0 ? micro * (double)wl->layers[lo - 1].y_elems * EX_DELTA_BYTES : 0;
    double out_bytes = micro * (double)wl->layers[hi - 1].y_elems * EX_DELTA_BYTES;

    for (int m = 0; m < sh->segments; m++) {
        int ready = -1;
        if (s > 0)
            ready = ex_comm(c, TG_RECV, TG_FORWARD, TG_ALGO_RING, lo, s - 1, in_bytes, -1);
        for (int l = lo; l < hi; l++)
            ready = ex_exec(c, TG_FORWARD, l, wl->layers[l].fw_s * micro, ready);
        if (s < last_stage)
            ex_comm(c, TG_SEND, TG_FORWARD, TG_ALGO_RING, hi - 1, s + 1, out_bytes, ready);
    }
    for (int m = sh->segments - 1; m >= 0; m--) {
        int ready = -1;
        if (s < last_stage)
            ready = ex_comm(c, TG_RECV, TG_BACKWARD_INPUT, TG_ALGO_RING, hi - 1, s + 1,
                            out_bytes, -1);
        for (int l = hi - 1; l >= lo; l--) {
            const wl_layer *layer = &wl->layers[l];
            bool weights = layer->w_elems > 0;
            ready = ex_exec(c, TG_BACKWARD_INPUT, l, layer->bw_s * micro * (weights ? 0.5 : 1.0),
                            ready);
            if (weights)
                ex_exec(c, TG_BACKWARD_WEIGHT, l, layer->bw_s * micro * 0.5, ready);
        }
        if (s > 0)
            ex_comm(c, TG_SEND, TG_BACKWARD_INPUT, TG_ALGO_RING, lo, s - 1, in_bytes, ready);
    }
    for (int l = lo; l < hi; l++)
        if (wl->layers[l].wu_s > 0)
            ex_exec(c, TG_UPDATE, l, wl->layers[l].wu_s, -1);
}

static int ex_expand_pipeline(const ex_shape *sh, const wl_workload *wl, bool overlap,
                              tg_graph *g, char *err)
{
    int *first = malloc((size_t)(sh->p + 1) * sizeof *first);
    if (!first)
        return hs_fail(err, HS_EINTERNAL, "out of memory for %d stages", sh->p);
    int rc = ex_partition(wl, sh->p, first, err);
    for (int s = 0; rc == HS_OK && s < sh->p; s++) {
        ex_cursor c = {.g = g, .rank = s, .overlap = overlap, .last = -1};
        ex_write_stage(&c, wl, sh, first[s], first[s + 1]);
        if (c.oom)
            rc = hs_fail(err, HS_EINTERNAL, "out of memory writing the tasks of stage %d", s);
    }
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
                     .batch = (double)batch, .split_bit = st_split_bit(st->kind)};
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

/* Give back what doubling left unused: at thousands of ranks it is most of the memory. */
static void ex_shrink(tg_graph *g)
{
    for (int r = 0; r < g->n_ranks; r++) {
        tg_rank *rk = &g->ranks[r];
        if (rk->n_tasks > 0 && rk->n_tasks < rk->cap_tasks) {
            tg_task *t = realloc(rk->tasks, (size_t)rk->n_tasks * sizeof *t);
            if (t)
                rk->tasks = t, rk->cap_tasks = rk->n_tasks;
        }
    }
}

int ex_expand_opt(const wl_workload *wl, const st_strategy *st, int64_t batch,
                  const ex_options *opt, tg_graph *g, char *err)
{
    memset(g, 0, sizeof *g);
    bool overlap = opt && opt->overlap;
    ex_shape sh = {0};
    int rc = ex_shape_of(wl, st, batch, &sh, err);
    if (rc == HS_OK)
        rc = tg_init(g, sh.p, err);
    if (rc == HS_OK)
        rc = sh.kind == ST_PIPELINE ? ex_expand_pipeline(&sh, wl, overlap, g, err)
                                    : ex_expand_layerwise(&sh, wl, overlap, g, err);
    if (rc != HS_OK) {
        tg_free(g);
        return rc;
    }
    ex_shrink(g);
    return HS_OK;
}

int ex_expand(const wl_workload *wl, const st_strategy *st, int64_t batch, tg_graph *g,
              char *err)
{
    return ex_expand_opt(wl, st, batch, NULL, g, err);
}
