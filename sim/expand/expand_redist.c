/* expand_redist.c: a per-layer plan's redistributions as tasks (expand_plan_int.h): the output
 * of a layer brought to the layout of every layer that reads it, forward, and the adjoint of
 * that move backward. layout.c derives the messages from which rank holds which slice; one
 * redistribution serves every consumer that needs the same slices; a gather of a model-split
 * layer's output is paid back with a reduce-scatter (an allreduce for partial sums or with
 * the plan's filter_allreduce), and a move with a spatial cut on either side is staged
 * through host memory, as ParaDL's closed form charges them (expand_plan.c says why). */
#include "expand_plan_int.h"

#include "hs_grow.h"

#include <string.h>

static bool reads(const wl_workload *wl, int v, int u)
{
    for (int k = 0; k < wl_n_inputs(&wl->layers[v]); k++)
        if (wl_input_of(wl, v, k) == u)
            return true;
    return false;
}

/* An input an omitted projection resizes, or a per-channel scale a mul broadcasts (not v's x):
 * it follows v's layout at no cost (workload.h, wl_input_resized). */
static bool projected(const wl_workload *wl, int u, int v)
{
    return wl_input_resized(&wl->layers[v], &wl->layers[u]);
}

/* Whether consumers v and w of u need the same slices on the same ranks. */
static bool same_need(const planner *pl, int u, int v, int w)
{
    const st_layer_config *cv = cfg(pl, v), *cw = cfg(pl, w);
    if (cv->base != cw->base || st_group_size(cv) != st_group_size(cw))
        return false;
    for (int t = 0; t < st_group_size(cv); t++) {
        ex_box a, b;
        ex__needed(&pl->wl->layers[u], &pl->wl->layers[v], cv, pl->batch, t, &a);
        ex__needed(&pl->wl->layers[u], &pl->wl->layers[w], cw, pl->batch, t, &b);
        if (memcmp(&a, &b, sizeof a) != 0)
            return false;
    }
    return true;
}

/* The edge already serving a consumer of u that needs what v needs, or NULL. */
static ex_edge *served_by(planner *pl, int u, int v)
{
    for (int i = pl->n_edges - 1; i >= 0 && pl->edges[i].u == u; i--)
        if (same_need(pl, u, pl->edges[i].v, v))
            return &pl->edges[i];
    return NULL;
}

static bool cut_spatially(const ex_box *b, const wl_layer *u)
{
    for (int a = 0; a < 3 && a < u->y.n_spatial; a++)
        if (b->lo[EX_W + a] > 0 || b->hi[EX_W + a] < u->y.spatial[a])
            return true;
    return false;
}

static bool all_channels(const ex_box *b, const wl_layer *u)
{
    return b->lo[EX_CHAN] == 0 && b->hi[EX_CHAN] == u->y.channels;
}

/* What the messages of u -> v mean, read off the first ranks' slices. */
static void classify(planner *pl, ex_edge *e)
{
    const wl_layer *lu = &pl->wl->layers[e->u], *lv = &pl->wl->layers[e->v];
    const st_layer_config *cv = cfg(pl, e->v);
    ex_box h, n;
    ex__held(lu, cfg(pl, e->u), pl->batch, 0, &h);
    ex__needed(lu, lv, cv, pl->batch, 0, &n);
    bool gather = e->mv.kind == EX_MOVE_GATHER;
    e->model_gather = ex__plan_partial_sums(pl, e->u) || (gather && !all_channels(&h, lu) &&
                                                 all_channels(&n, lu));
    e->staged = cut_spatially(&h, lu) || cut_spatially(&n, lu);
    bool partial_dx = st_has_filters(lv) && cv->filter > 1 && !cv->whole;
    e->reduce_back = gather && !e->model_gather && (partial_dx || cut_spatially(&h, lu));
}

static ex_edge *new_edge(planner *pl, int u, int v)
{
    if (!hs_grow((void **)&pl->edges, &pl->cap_edges, (size_t)pl->n_edges + 1, sizeof *pl->edges))
        return pl->oom = true, NULL;
    ex_edge *e = &pl->edges[pl->n_edges++];
    *e = (ex_edge){.u = u, .v = v};
    if (ex__messages(pl->wl, pl->kc, u, cfg(pl, u), v, cfg(pl, v), pl->batch, &pl->scratch) ||
        ex__moves_of(&pl->scratch, pl->p, &pl->groups, pl->g, &e->mv))
        return pl->oom = true, NULL;
    classify(pl, e);
    return e;
}

/* ------------------------------------------------------------------ moves as tasks */

/* Pairwise rounds, forward or (reverse) backward, on every rank taking part. */
static void rounds(planner *pl, const ex_edge *e, tg_phase phase, bool reverse)
{
    const ex_moves *mv = &e->mv;
    uint8_t flags = e->staged ? TG_FLAG_STAGED : 0;
    for (int k = 1; k < mv->n_ranks; k++)
        for (int i = 0; i < mv->n_ranks; i++) {
            int r = mv->ranks[i], to, from;
            double send, recv;
            ex__round(mv, r, k, reverse, &to, &send, &from, &recv);
            if (to < 0 && from < 0)
                continue;
            int pair[2] = {to, from};
            int gi = to >= 0 && from >= 0 ? ex__group(&pl->groups, pl->g, pair, 2) : -1;
            pl->ready[r] = ex_shift(&pl->cur[r], phase, e->u, to, from, gi, send, recv, flags,
                                    pl->ready[r]);
        }
}

static void forward_moves(planner *pl, const ex_edge *e)
{
    if (e->mv.kind == EX_MOVE_ROUNDS) {
        rounds(pl, e, TG_FORWARD, false);
        return;
    }
    bool filters = e->model_gather && !ex__plan_partial_sums(pl, e->u); /* slices of channels */
    for (int r = 0; e->mv.kind == EX_MOVE_GATHER && r < pl->p; r++) {
        if (e->mv.group[r] < 0)
            continue;
        put_comm(pl, r, TG_ALLGATHER, TG_FORWARD, e->u, e->mv.group[r], e->mv.piece[r],
                 e->staged ? TG_FLAG_STAGED : 0);
        if (filters)
            ex__plan_layout_copy(pl, r, TG_FORWARD, e->u, cfg(pl, e->u),
                        e->mv.piece[r] * e->mv.size[r], 0);
    }
}

/* Backward of an edge that moved nothing forward: v worked on a slice of what u holds whole,
 * so u's copies need the slices' gradients (gathered), or v's filter split left partial input
 * gradients (summed); a gather upstream already charged both (covered). */
static void aligned_backward(planner *pl, const ex_edge *e, int r)
{
    const wl_layer *lu = &pl->wl->layers[e->u], *lv = &pl->wl->layers[e->v];
    const st_layer_config *cv = cfg(pl, e->v);
    ex_box n, h;
    ex__needed(lu, lv, cv, pl->batch, r - cv->base, &n);
    ex__held(lu, cfg(pl, e->u), pl->batch, r - cfg(pl, e->u)->base, &h);
    double bytes = ex__box_elems(&n) * kt_message_bytes(pl->kc);
    bool covered = pl->covered[e->u];
    if (st_has_filters(lv) && cv->filter > 1 && !cv->whole && !covered)
        put_comm(pl, r, TG_ALLREDUCE, TG_BACKWARD_INPUT, e->u, line_group(pl, cv, r, EX_L_F),
                 bytes, 0);
    if (!all_channels(&n, lu) && all_channels(&h, lu) && !covered) {
        put_comm(pl, r, TG_ALLGATHER, TG_BACKWARD_INPUT, e->u, line_group(pl, cv, r, EX_L_C),
                 bytes, 0);
        ex__plan_layout_copy(pl, r, TG_BACKWARD_INPUT, e->u, cv, bytes * cv->channel, 0);
    }
    if (cut_spatially(&n, lu) && !cut_spatially(&h, lu))
        put_comm(pl, r, TG_ALLGATHER, TG_BACKWARD_INPUT, e->u,
                 line_group(pl, cv, r, EX_L_W | EX_L_H | EX_L_D), bytes, TG_FLAG_STAGED);
}

void ex__plan_backward_moves(planner *pl, const ex_edge *e)
{
    const ex_moves *mv = &e->mv;
    if (mv->kind == EX_MOVE_ROUNDS) {
        rounds(pl, e, TG_BACKWARD_INPUT, true);
        return;
    }
    if (mv->kind == EX_MOVE_NONE) {
        for (int r = 0; r < pl->p; r++)
            if (member(cfg(pl, e->v), r))
                aligned_backward(pl, e, r);
        return;
    }
    /* a gather of filter blocks is reduce-scattered back (each rank needs its filters'
     * slice, as the built-in default), packed first; or allreduced (filter_allreduce) */
    bool filters = e->model_gather && !ex__plan_partial_sums(pl, e->u);
    bool scatter = filters && !pl->plan->filter_allreduce;
    for (int r = 0; r < pl->p && (e->model_gather || e->reduce_back); r++) {
        if (mv->group[r] < 0)
            continue;
        if (scatter)
            ex__plan_layout_copy(pl, r, TG_BACKWARD_INPUT, e->u, cfg(pl, e->u),
                        mv->piece[r] * mv->size[r], mv->size[r]);
        put_comm(pl, r, e->model_gather && !scatter ? TG_ALLREDUCE : TG_REDUCE_SCATTER,
                 TG_BACKWARD_INPUT, e->u, mv->group[r], mv->piece[r] * mv->size[r],
                 e->staged ? TG_FLAG_STAGED : 0);
    }
}

/* u's output to every later layer reading it; covered[] follows the edges. */
void ex__plan_redistribute(planner *pl, int u)
{
    const wl_workload *wl = pl->wl;
    for (int v = u + 1; v < wl->n_layers && !pl->oom; v++) {
        if (!reads(wl, v, u) || projected(wl, u, v))
            continue;
        ex_edge *e = served_by(pl, u, v);
        if (!e) {
            e = new_edge(pl, u, v);
            if (!e)
                return;
            forward_moves(pl, e);
        }
        bool ok = e->model_gather || (e->mv.kind == EX_MOVE_NONE && pl->covered[u]);
        pl->covered[v] = pl->covered[v] && ok;
    }
}
