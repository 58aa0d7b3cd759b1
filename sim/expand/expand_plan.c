/* expand_plan.c: a per-layer plan (plan.h) as task lists (expand_int.h's ex__expand_plan).
 *
 * Every rank walks the layers in order and writes what it takes part in: a layer's halo exchanges
 * and kernels when the rank is in its group, then the redistribution of its output to every layer
 * that reads it (expand_redist.c; layout.c derives the messages from which rank holds which slice;
 * one redistribution serves the consumers that need the same slices); backward the same in
 * reverse, each redistribution's adjoint before the producer's backward kernels; then the weight
 * gradients, allreduced over the ranks that hold the same weights and saw different data, fused
 * into one buffer per set of ranks (as ChainerMN packs them: inside the group first, then across
 * the batch blocks; under a runtime's cycle, ex_options.cycle_time_s in the overlap order, the
 * first of them launched at the cycle's next multiple, as a bucket's in expand.c); then the
 * updates. Where ParaDL's closed form charges beyond the data layout, the lists follow it, so that
 * a built-in strategy written as a plan runs exactly the built-in lists' communication: a gather
 * of a model-split layer's output is paid back with a reduce-scatter (the built-ins' default; with
 * --filter-backward allreduce, the plan's filter_allreduce, an allreduce, ParaDL's), the layers it
 * feeds then add no reduction of their own (`covered`), the gather at the end of a spatial region
 * is paid back with a reduce-scatter, halos go in a chain (with --halo sendrecv as two shifts, as
 * the built-ins then send them), and halos and slab gathers are staged through host memory. A plan
 * with a schedule runs GPipe's lists (pipeline.c). */
#include "expand_plan_int.h"

#include "compute.h"
#include "hs_grow.h"

#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ kernels and halos */

static double samples(const planner *pl, const st_layer_config *c)
{
    return (double)pl->batch / c->batch;
}

/* One halo of `bytes` between rank r and its neighbours lo, hi (-1: none) along an axis: in a
 * chain, the built-in strategies' default (ex_halo_chain); with --halo sendrecv (the plan's
 * halo_sendrecv) as the built-ins send it (expand.c, ex__halo): every rank sends its upper face
 * up while it receives from below (a TG_SHIFT over {hi, lo}), then the lower face down. */
static void halo_exchange(planner *pl, int r, tg_phase phase, int l, int lo, int hi,
                          double bytes)
{
    if (!pl->plan->halo_sendrecv) {
        pl->ready[r] = ex_halo_chain(&pl->cur[r], phase, l, lo, hi, bytes, pl->ready[r]);
        return;
    }
    int up[2] = {hi, lo}, down[2] = {lo, hi}, producer = pl->ready[r];
    int gu = lo >= 0 && hi >= 0 ? ex__group(&pl->groups, pl->g, up, 2) : -1;
    int gd = lo >= 0 && hi >= 0 ? ex__group(&pl->groups, pl->g, down, 2) : -1;
    if (lo >= 0 && hi >= 0 && (gu < 0 || gd < 0)) {
        pl->oom = true;
        return;
    }
    ex_shift(&pl->cur[r], phase, l, hi, lo, gu, bytes, bytes, TG_FLAG_STAGED, producer);
    pl->ready[r] = ex_shift(&pl->cur[r], phase, l, lo, hi, gd, bytes, bytes, TG_FLAG_STAGED,
                            producer);
}

/* The halo of rank r along each cut axis with a window wider than 1: x forward (before the
 * kernel), dL/dx backward (after it); up then down, staged (halo_exchange). */
static void halo(planner *pl, int l, int r, tg_phase phase)
{
    const wl_layer *ly = &pl->wl->layers[l];
    const st_layer_config *c = cfg(pl, l);
    if (c->whole)
        return;
    const int split[3] = {c->width, c->height, c->depth};
    st_coords k = st_coords_of(c, r - c->base), s = st_strides(c);
    const int at[3] = {k.w, k.h, k.d}, stride[3] = {s.w, s.h, s.d};
    for (int a = 0; a < 3 && a < ly->x.n_spatial; a++) {
        if (split[a] < 2 || ly->w_kernel[a] <= 1)
            continue;
        double face = (double)ly->x.channels / c->channel * (double)((ly->w_kernel[a] - 1) / 2);
        for (int e = 0; e < ly->x.n_spatial && e < 3; e++)
            if (e != a) /* this rank's slab of the other axes */
                face *= (double)(ly->x.spatial[e] * (at[e] + 1) / split[e] -
                                 ly->x.spatial[e] * at[e] / split[e]);
        double bytes = samples(pl, c) * face * kt_message_bytes(pl->kc);
        int lo = at[a] > 0 ? r - stride[a] : -1, hi = at[a] < split[a] - 1 ? r + stride[a] : -1;
        halo_exchange(pl, r, phase, l, lo, hi, bytes);
    }
}

static void forward_kernel(planner *pl, int l, int r)
{
    pl->ready[r] = ex_exec(&pl->cur[r], TG_FORWARD, l, pl->kernel_s[l][0], pl->ready[r]);
}

static void backward_kernels(planner *pl, int l, int r)
{
    int bx = ex_exec(&pl->cur[r], TG_BACKWARD_INPUT, l, pl->kernel_s[l][1], pl->ready[r]);
    pl->last_kernel[r] = bx;
    if (pl->wl->layers[l].w_elems > 0)
        pl->last_kernel[r] = ex_exec(&pl->cur[r], TG_BACKWARD_WEIGHT, l, pl->kernel_s[l][2],
                                     pl->ready[r]);
    pl->ready[r] = bx;
}

/* Every layer's kernels on a rank, once. */
static int plan_kernels(planner *pl, char *err)
{
    int n = pl->wl->n_layers;
    pl->kernel_s = malloc((size_t)(n ? n : 1) * sizeof *pl->kernel_s);
    if (!pl->kernel_s)
        return hs_fail(err, HS_EINTERNAL, "out of memory for %d layers' kernels", n);
    int rc = HS_OK;
    for (int l = 0; l < n && rc == HS_OK; l++)
        rc = st_layer_kernels_s(pl->wl, pl->kc, l, cfg(pl, l), (double)pl->batch,
                                &pl->kernel_s[l][0], &pl->kernel_s[l][1], &pl->kernel_s[l][2], err);
    return rc;
}

/* Rank r's gathered channel slices put in place (strategy.h, st_builtin_kernels_s), `bytes`
 * of them, under the compute model when the rank's block of c holds more than one sample;
 * scatter_p > 0: the kernels around their reduce-scatter over that many ranks instead
 * (st_scatter_copies_s). */
void ex__plan_layout_copy(planner *pl, int r, tg_phase kind, int l, const st_layer_config *c,
                          double bytes, int scatter_p)
{
    double copy_s = 0, elems = bytes / kt_message_bytes(pl->kc);
    if (pl->status == HS_OK)
        pl->status = scatter_p > 0 ? st_scatter_copies_s(pl->wl, pl->kc, elems, scatter_p,
                                                         samples(pl, c), &copy_s, pl->err)
                                   : st_layout_copy_s(pl->wl, pl->kc, elems, samples(pl, c),
                                                      &copy_s, pl->err);
    if (copy_s > 0)
        pl->ready[r] = ex_exec(&pl->cur[r], kind, l, copy_s, pl->ready[r]);
}

/* ------------------------------------------------------------------ partial sums */

/* The bytes of l's output rank r holds. */
static double held_bytes(const planner *pl, int l, int r)
{
    ex_box b;
    ex__held(&pl->wl->layers[l], cfg(pl, l), pl->batch, r - cfg(pl, l)->base, &b);
    return ex__box_elems(&b) * kt_message_bytes(pl->kc);
}

/* A conv or fc split on input channels holds partial sums of its output: allreduced over the
 * channel line forward; backward each rank's slice of the input gradient gathered (ParaDL's
 * channel terms). */
static void partial_forward(planner *pl, int l, int r)
{
    int gi = line_group(pl, cfg(pl, l), r, EX_L_C);
    put_comm(pl, r, TG_ALLREDUCE, TG_FORWARD, l, gi, held_bytes(pl, l, r), 0);
}

static void partial_backward(planner *pl, int l, int r)
{
    int gi = line_group(pl, cfg(pl, l), r, EX_L_C);
    put_comm(pl, r, TG_ALLGATHER, TG_BACKWARD_INPUT, l, gi,
             held_bytes(pl, l, r) / cfg(pl, l)->channel, 0);
    ex__plan_layout_copy(pl, r, TG_BACKWARD_INPUT, l, cfg(pl, l), held_bytes(pl, l, r), 0);
}

/* ------------------------------------------------------------------ the passes */

static void forward_pass(planner *pl)
{
    const wl_workload *wl = pl->wl;
    for (int v = 0; v < wl->n_layers; v++) {
        pl->covered[v] = true;
        for (int k = 0; k < wl_n_inputs(&wl->layers[v]); k++)
            if (wl_input_of(wl, v, k) < 0)
                pl->covered[v] = false;
    }
    for (int u = 0; u < wl->n_layers && !pl->oom; u++) {
        for (int r = 0; r < pl->p; r++) {
            if (!member(cfg(pl, u), r))
                continue;
            halo(pl, u, r, TG_FORWARD);
            forward_kernel(pl, u, r);
            if (ex__plan_partial_sums(pl, u))
                partial_forward(pl, u, r);
        }
        ex__plan_redistribute(pl, u);
    }
}

static void backward_pass(planner *pl)
{
    int i = pl->n_edges - 1;
    for (int u = pl->wl->n_layers - 1; u >= 0 && !pl->oom; u--) {
        for (; i >= 0 && pl->edges[i].u == u; i--)
            ex__plan_backward_moves(pl, &pl->edges[i]);
        for (int r = 0; r < pl->p; r++) {
            if (!member(cfg(pl, u), r))
                continue;
            if (ex__plan_partial_sums(pl, u))
                partial_backward(pl, u, r);
            backward_kernels(pl, u, r);
            halo(pl, u, r, TG_BACKWARD_INPUT);
        }
    }
}

/* Add a layer's weight gradients to rank r's buffer for its (inner, outer) sets. */
static void add_fused(planner *pl, int r, int inner, int outer, double bytes)
{
    ex_fused *f = pl->fused[r];
    int n = pl->n_fused[r], k = 0;
    while (k < n && (f[k].inner != inner || f[k].outer != outer))
        k++;
    if (k == n) {
        if (!hs_grow((void **)&pl->fused[r], &pl->cap_fused[r], (size_t)n + 1, sizeof *f)) {
            pl->oom = true;
            return;
        }
        f = pl->fused[r];
        f[n] = (ex_fused){inner, outer, 0.0};
        pl->n_fused[r] = n + 1;
    }
    f[k].bytes += bytes;
}

/* The ranks holding the same weights and having seen different data: inside the group (the
 * slabs, and the replicas when the plan reduces them too), then across the batch blocks. */
static void gradients(planner *pl)
{
    unsigned inner_vary = EX_L_W | EX_L_H | EX_L_D | (pl->plan->reduce_replicas ? EX_L_R : 0);
    for (int l = 0; l < pl->wl->n_layers && !pl->oom; l++) {
        const wl_layer *ly = &pl->wl->layers[l];
        const st_layer_config *c = cfg(pl, l);
        if (ly->w_elems == 0)
            continue;
        double bytes = (double)ly->w_elems / (c->whole ? 1 : c->filter * c->channel) *
                       st_gradient_bytes(&pl->plan->train, pl->kc);
        for (int r = c->base; r < c->base + st_group_size(c); r++)
            add_fused(pl, r, line_group(pl, c, r, inner_vary), line_group(pl, c, r, EX_L_B),
                      bytes);
    }
    for (int r = 0; r < pl->p; r++) {
        int grad = pl->last_kernel[r];
        uint8_t flags = pl->grad_flags; /* the first allreduce waits for the cycle, the others
                                         * follow it in the same one */
        for (int k = 0; k < pl->n_fused[r]; k++) {
            const ex_fused *f = &pl->fused[r][k];
            if (f->inner >= 0) {
                grad = ex_comm(&pl->cur[r], TG_ALLREDUCE, TG_GRADIENT, -1, f->inner, f->bytes,
                               flags, grad);
                flags = 0;
            }
            if (f->outer >= 0) {
                grad = ex_comm(&pl->cur[r], TG_ALLREDUCE, TG_GRADIENT, -1, f->outer, f->bytes,
                               flags, grad);
                flags = 0;
            }
        }
        for (int l = 0; l < pl->wl->n_layers; l++) {
            const st_layer_config *c = cfg(pl, l);
            int ways = c->whole ? 1 : c->filter * c->channel;
            double wu = pl->kc ? kt_compute_update_s(pl->kc, pl->wl, l, ways)
                               : pl->wl->layers[l].wu_s / ways;
            if (member(c, r) && wu > 0)
                ex_exec(&pl->cur[r], TG_UPDATE, l, wu, grad);
        }
    }
}

/* ------------------------------------------------------------------ entry */

static int plan_pipeline(const wl_workload *wl, const kt_compute *kc, const st_plan *plan,
                         int64_t batch, bool overlap, tg_graph *g, char *err)
{
    int *first = malloc((size_t)(wl->n_layers + 1) * sizeof *first);
    int *rank = malloc((size_t)(wl->n_layers + 1) * sizeof *rank);
    int n = 0, rc = HS_OK;
    if (!first || !rank)
        rc = hs_fail(err, HS_EINTERNAL, "out of memory for the stages of %d layers",
                     wl->n_layers);
    if (rc == HS_OK) {
        st_plan_stages(plan, first, rank, &n);
        ex_pipe pp = {.first = first, .rank = rank, .n_stages = n,
                      .segments = plan->micro_batches, .batch = (double)batch};
        rc = ex__pipeline(wl, kc, &pp, overlap, g, err);
    }
    free(first);
    free(rank);
    return rc;
}

static void planner_free(planner *pl)
{
    for (int i = 0; i < pl->n_edges; i++)
        ex__moves_free(&pl->edges[i].mv);
    for (int r = 0; pl->fused && r < pl->p; r++)
        free(pl->fused[r]);
    free(pl->fused), free(pl->n_fused), free(pl->cap_fused), free(pl->edges), free(pl->scratch.m);
    free(pl->cur), free(pl->ready), free(pl->last_kernel), free(pl->covered);
    free(pl->kernel_s);
    ex__groups_free(&pl->groups);
}

int ex__expand_plan(const wl_workload *wl, const kt_compute *kc, const st_plan *plan, int64_t batch,
                    const ex_options *opt, tg_graph *g, char *err)
{
    bool overlap = opt && opt->overlap;
    if (plan->n_layers != wl->n_layers || plan->gpus != g->n_ranks)
        return hs_fail(err, HS_EINPUT, "expand: a plan of %d layers on %d GPUs for %d layers on "
                       "%d ranks", plan->n_layers, plan->gpus, wl->n_layers, g->n_ranks);
    if (plan->micro_batches > 0)
        return plan_pipeline(wl, kc, plan, batch, overlap, g, err);
    int p = plan->gpus;
    planner pl = {.wl = wl, .kc = kc, .plan = plan, .batch = batch, .p = p, .g = g, .err = err};
    if (overlap && opt->cycle_time_s > 0) { /* Horovod launches the fused gradients in its
                                             * cycle, as the built-ins' buckets */
        pl.grad_flags = TG_FLAG_CYCLE;
        g->cycle_time_s = opt->cycle_time_s;
    }
    pl.cur = calloc((size_t)p, sizeof *pl.cur);
    pl.ready = malloc((size_t)p * sizeof *pl.ready);
    pl.last_kernel = malloc((size_t)p * sizeof *pl.last_kernel);
    pl.covered = calloc((size_t)wl->n_layers, sizeof *pl.covered);
    pl.fused = calloc((size_t)p, sizeof *pl.fused);
    pl.n_fused = calloc((size_t)p, sizeof *pl.n_fused);
    pl.cap_fused = calloc((size_t)p, sizeof *pl.cap_fused);
    pl.oom = !pl.cur || !pl.ready || !pl.last_kernel || !pl.covered || !pl.fused || !pl.n_fused ||
             !pl.cap_fused;
    for (int r = 0; !pl.oom && r < p; r++) {
        pl.cur[r] = (ex_cursor){.g = g, .rank = r, .overlap = overlap, .last = -1};
        pl.ready[r] = pl.last_kernel[r] = -1;
    }
    int status = pl.oom ? HS_OK : plan_kernels(&pl, err);
    if (status != HS_OK) {
        planner_free(&pl);
        return status;
    }
    if (!pl.oom)
        forward_pass(&pl);
    if (!pl.oom)
        backward_pass(&pl);
    if (!pl.oom)
        gradients(&pl);
    for (int r = 0; !pl.oom && r < p; r++)
        pl.oom = pl.cur[r].oom;
    bool oom = pl.oom;
    status = pl.status;
    planner_free(&pl);
    if (status != HS_OK)
        return status;
    return oom ? hs_fail(err, HS_EINTERNAL, "out of memory expanding the plan %s", plan->name)
               : HS_OK;
}
