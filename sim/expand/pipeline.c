/* pipeline.c: GPipe's schedule as task lists (expand_int.h's ex__pipeline).
 *
 * Stage s runs a contiguous group of layers on S micro-batches: all forwards, then all
 * backwards, with point-to-point messages between neighbouring stages; a middle stage sends one
 * micro-batch while it receives the next (TG_SHIFT). The stages come from the built-in
 * pipeline's partition (expand.c) or from a plan's schedule (expand_plan.c). Every kernel is a
 * layer's whole on a micro-batch, timed once per layer (st_pipeline_kernels_s: the compute
 * model's kernels at B/S samples, or the measured times scaled), as the closed form times a
 * stage. */
#include "expand_int.h"

#include <stdlib.h>

#include "compute.h"

/* One micro-batch's kernels of every layer on its stage's GPU, and its update (seconds). */
typedef struct {
    double *fw_s;  /* forward */
    double *bx_s;  /* input gradient (a layer without weights: its whole backward) */
    double *bw_s;  /* weight gradient (0 without weights) */
    double *wu_s;  /* the weight update, once an iteration */
} ex_kernels;

/* Stage s's iteration on layers [lo, hi): for each micro-batch receive the activations from
 * stage s-1, run the forward kernels, send the output to stage s+1; then for each micro-batch in
 * reverse receive the output gradient from s+1, run the backward kernels, send the input
 * gradient to s-1; then update. Messages carry (B/S) * |y| * delta bytes of the boundary
 * layer's output, both ways. */
typedef struct {
    int prev, next;      /* the neighbouring stages, -1 at the ends */
    double in_bytes;     /* a micro-batch's activations from prev (and their gradient back) */
    double out_bytes;    /* its output to next (and the gradient of that output) */
    int fwd_shift;       /* TG_SHIFT group {next, prev} of a middle stage, else -1 */
    int bwd_shift;       /* TG_SHIFT group {prev, next} */
} ex_stage;

/* The blocking order, as GPipe schedules a stage and as the model charges it (t + c per
 * micro-batch): once micro-batch m is computed, its output goes out while micro-batch m+1
 * comes in, one TG_SHIFT posting both, so that a middle stage never has its receive wait for
 * its send or the reverse. */
static void ex_stage_blocking(ex_cursor *c, const wl_workload *wl, const ex_kernels *k,
                              const ex_pipe *pp, const ex_stage *st, int lo, int hi)
{
    int S = pp->segments;
    if (st->prev >= 0)
        ex_comm(c, TG_RECV, TG_FORWARD, lo, st->prev, st->in_bytes, 0, -1);
    for (int m = 0; m < S; m++) {
        for (int l = lo; l < hi; l++)
            ex_exec(c, TG_FORWARD, l, k->fw_s[l], -1);
        int from = m + 1 < S ? st->prev : -1;
        if (st->next >= 0 || from >= 0)
            ex_shift(c, TG_FORWARD, hi - 1, st->next, from, st->fwd_shift, st->out_bytes,
                     st->in_bytes, 0, -1);
    }
    if (st->next >= 0)
        ex_comm(c, TG_RECV, TG_BACKWARD_INPUT, hi - 1, st->next, st->out_bytes, 0, -1);
    for (int m = S - 1; m >= 0; m--) {
        for (int l = hi - 1; l >= lo; l--) {
            ex_exec(c, TG_BACKWARD_INPUT, l, k->bx_s[l], -1);
            if (wl->layers[l].w_elems > 0)
                ex_exec(c, TG_BACKWARD_WEIGHT, l, k->bw_s[l], -1);
        }
        int from = m > 0 ? st->next : -1;
        if (st->prev >= 0 || from >= 0)
            ex_shift(c, TG_BACKWARD_INPUT, lo, st->prev, from, st->bwd_shift, st->in_bytes,
                     st->out_bytes, 0, -1);
    }
}

/* The overlap order: a kernel waits only for the receive that brings its input. The receive
 * of the next micro-batch is posted before the send of the current one, so that it arrives
 * while the stage computes: a stage then starts every micro-batch one compute time after the
 * last, as in GPipe with asynchronous transfers. */
static void ex_stage_overlap(ex_cursor *c, const wl_workload *wl, const ex_kernels *k,
                             const ex_pipe *pp, const ex_stage *st, int lo, int hi)
{
    int S = pp->segments;
    bool has_prev = st->prev >= 0, has_next = st->next >= 0;
    int recv = -1; /* the receive of the micro-batch about to run */
    for (int m = 0; m < S; m++) {
        if (has_prev && m == 0)
            recv = ex_comm(c, TG_RECV, TG_FORWARD, lo, st->prev, st->in_bytes, 0, -1);
        int ready = recv;
        for (int l = lo; l < hi; l++)
            ready = ex_exec(c, TG_FORWARD, l, k->fw_s[l], ready);
        if (has_prev && m + 1 < S)
            recv = ex_comm(c, TG_RECV, TG_FORWARD, lo, st->prev, st->in_bytes, 0, -1);
        if (has_next)
            ex_comm(c, TG_SEND, TG_FORWARD, hi - 1, st->next, st->out_bytes, 0, ready);
    }
    recv = -1;
    for (int m = S - 1; m >= 0; m--) {
        if (has_next && m == S - 1)
            recv = ex_comm(c, TG_RECV, TG_BACKWARD_INPUT, hi - 1, st->next, st->out_bytes, 0, -1);
        int ready = recv;
        for (int l = hi - 1; l >= lo; l--) {
            ready = ex_exec(c, TG_BACKWARD_INPUT, l, k->bx_s[l], ready);
            if (wl->layers[l].w_elems > 0)
                ex_exec(c, TG_BACKWARD_WEIGHT, l, k->bw_s[l], ready);
        }
        if (has_next && m > 0)
            recv = ex_comm(c, TG_RECV, TG_BACKWARD_INPUT, hi - 1, st->next, st->out_bytes, 0, -1);
        if (has_prev)
            ex_comm(c, TG_SEND, TG_BACKWARD_INPUT, lo, st->prev, st->in_bytes, 0, ready);
    }
}

static void ex_write_stage(ex_cursor *c, const wl_workload *wl, const ex_kernels *k,
                           const ex_pipe *pp, const ex_stage *st, int lo, int hi)
{
    if (c->overlap)
        ex_stage_overlap(c, wl, k, pp, st, lo, hi);
    else
        ex_stage_blocking(c, wl, k, pp, st, lo, hi);
    for (int l = lo; l < hi; l++)
        if (k->wu_s[l] > 0)
            ex_exec(c, TG_UPDATE, l, k->wu_s[l], -1);
}

/* Every layer's kernels on one micro-batch (st_pipeline_kernels_s) and its update (the
 * compute model's, kt_compute_update_s, or the measured one) into k. */
static int ex_kernels_of(const wl_workload *wl, const kt_compute *kc, double micro,
                         ex_kernels *k, char *err)
{
    size_t n = (size_t)wl->n_layers;
    double *all = malloc(4 * n * sizeof *all);
    if (!all)
        return hs_fail(err, HS_EINTERNAL, "out of memory for the kernels of %d layers",
                       wl->n_layers);
    *k = (ex_kernels){.fw_s = all, .bx_s = all + n, .bw_s = all + 2 * n, .wu_s = all + 3 * n};
    for (int l = 0; l < wl->n_layers; l++) {
        int rc = st_pipeline_kernels_s(wl, kc, micro, l, &k->fw_s[l], &k->bx_s[l], &k->bw_s[l],
                                       err);
        if (rc != HS_OK)
            return rc;
        k->wu_s[l] = kc ? kt_compute_update_s(kc, wl, l, 1) : wl->layers[l].wu_s;
    }
    return HS_OK;
}

/* Stage s's neighbours, message sizes and (blocking order, middle stage) shift groups. */
/* The rank that runs stage s. */
static int rank_of(const ex_pipe *pp, int s) { return pp->rank ? pp->rank[s] : s; }

static int ex_stage_of(const ex_pipe *pp, const wl_workload *wl, const kt_compute *kc, int s,
                       bool overlap, tg_graph *g, ex_stage *st)
{
    int lo = pp->first[s], hi = pp->first[s + 1];
    double micro = pp->batch / pp->segments;
    *st = (ex_stage){.prev = s > 0 ? rank_of(pp, s - 1) : -1,
                     .next = s < pp->n_stages - 1 ? rank_of(pp, s + 1) : -1,
                     .fwd_shift = -1, .bwd_shift = -1};
    st->in_bytes = s > 0 ? micro * (double)wl->layers[lo - 1].y_elems * kt_message_bytes(kc) : 0;
    st->out_bytes = micro * (double)wl->layers[hi - 1].y_elems * kt_message_bytes(kc);
    if (overlap || st->prev < 0 || st->next < 0)
        return 0;
    int fwd[2] = {st->next, st->prev}, bwd[2] = {st->prev, st->next};
    st->fwd_shift = tg_add_group(g, fwd, 2);
    st->bwd_shift = tg_add_group(g, bwd, 2);
    return st->fwd_shift < 0 || st->bwd_shift < 0 ? -1 : 0;
}

int ex__pipeline(const wl_workload *wl, const kt_compute *kc, const ex_pipe *pp, bool overlap,
                 tg_graph *g, char *err)
{
    ex_kernels k = {0};
    int rc = ex_kernels_of(wl, kc, pp->batch / pp->segments, &k, err);
    for (int s = 0; rc == HS_OK && s < pp->n_stages; s++) {
        ex_cursor c = {.g = g, .rank = rank_of(pp, s), .overlap = overlap, .last = -1};
        ex_stage st;
        if (ex_stage_of(pp, wl, kc, s, overlap, g, &st) != 0)
            rc = hs_fail(err, HS_EINTERNAL, "out of memory for the groups of stage %d", s);
        else
            ex_write_stage(&c, wl, &k, pp, &st, pp->first[s], pp->first[s + 1]);
        if (rc == HS_OK && c.oom)
            rc = hs_fail(err, HS_EINTERNAL, "out of memory writing the tasks of stage %d", s);
    }
    free(k.fw_s);
    return rc;
}
