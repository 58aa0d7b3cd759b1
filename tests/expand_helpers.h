/* expand_helpers.h: what the expansion tests share: a tiny four-layer network, strategies,
 * reading task lists, and the invariants every graph must keep.
 * Header-only; include after <cmocka.h>. */
#ifndef EXPAND_HELPERS_H
#define EXPAND_HELPERS_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <math.h>
#include <string.h>
#include "analytic.h"
#include "expand.h"
#define assert_close(a, b) assert_close_at((a), (b), __FILE__, __LINE__)

static inline void assert_close_at(double a, double b, const char *file, int line)
{
    double scale = fabs(a) > fabs(b) ? fabs(a) : fabs(b);
    if (fabs(a - b) > 1e-12 + 1e-9 * scale) {
        print_error("%.15g != %.15g\n", a, b);
        _fail(file, line);
    }
}

/* ---------------------------------------------------------------- the tiny network */

static inline wl_shape shape(int64_t c, int64_t w, int64_t h)
{
    return (wl_shape){.channels = c, .spatial = {w, h, 1}, .n_spatial = 2};
}

static inline int64_t elems(wl_shape s) { return s.channels * s.spatial[0] * s.spatial[1]; }

static inline void layer(wl_layer *l, const char *name, wl_type type, wl_shape x, wl_shape y,
                  int64_t kernel, int64_t w_elems, double fw_s, double bw_s, double wu_s,
                  unsigned mask)
{
    memset(l, 0, sizeof *l);
    snprintf(l->name, sizeof l->name, "%s", name);
    l->type = type;
    l->x = x, l->y = y;
    l->w_kernel[0] = l->w_kernel[1] = kernel;
    l->x_elems = elems(x), l->y_elems = elems(y), l->w_elems = w_elems;
    l->fw_s = fw_s, l->bw_s = bw_s, l->wu_s = wu_s;
    l->split_mask = mask;
}

/* conv 3x3 (split) -> relu (replicated) -> conv 3x3 (split) -> fc (replicated) */
static wl_layer tiny_layers[4];
static inline wl_workload tiny(void)
{
    layer(&tiny_layers[0], "CONV_1", WL_CONV, shape(3, 8, 8), shape(4, 8, 8), 3, 108, 1e-3,
          2e-3, 1e-4, WL_SPLIT_ALL);
    layer(&tiny_layers[1], "RELU", WL_RELU, shape(4, 8, 8), shape(4, 8, 8), 0, 0, 1e-4, 1e-4, 0,
          0);
    layer(&tiny_layers[2], "CONV_2", WL_CONV, shape(4, 8, 8), shape(8, 4, 4), 3, 288, 2e-3,
          4e-3, 2e-4, WL_SPLIT_ALL);
    layer(&tiny_layers[3], "FC", WL_FC, shape(8, 4, 4), shape(10, 1, 1), 0, 1280, 5e-4, 1e-3,
          1e-4, 0);
    wl_workload wl = {.name = "tiny", .samples = 1000, .layers = tiny_layers, .n_layers = 4,
                      .w_total = 108 + 288 + 1280};
    return wl;
}

static inline st_strategy strat(st_kind kind, int p, int p1, int p2, int segments)
{
    return (st_strategy){.kind = kind, .p = p, .p1 = p1, .p2 = p2, .segments = segments};
}

/* ---------------------------------------------------------------- list helpers */

static inline int count(const tg_rank *r, tg_op op, int phase)
{
    int n = 0;
    for (int i = 0; i < r->n_tasks; i++)
        n += r->tasks[i].op == op && (phase < 0 || r->tasks[i].phase == phase);
    return n;
}

static inline double exec_s(const tg_rank *r)
{
    double s = 0;
    for (int i = 0; i < r->n_tasks; i++)
        if (r->tasks[i].op == TG_EXEC)
            s += r->tasks[i].amount;
    return s;
}

/* The i-th task (0-based) with this op on the rank, or -1. */
static inline int nth(const tg_rank *r, tg_op op, int i)
{
    for (int t = 0; t < r->n_tasks; t++)
        if (r->tasks[t].op == op && i-- == 0)
            return t;
    return -1;
}

static inline int group_has(const tg_group *gr, int rank)
{
    for (int i = 0; i < gr->n; i++)
        if (gr->ranks[i] == rank)
            return 1;
    return 0;
}

/* Does task t of rank r send to rank b / receive from rank a? (a send, a receive, or a shift:
 * group {send peer, receive peer}) */
static inline int sends_to(const tg_graph *g, int r, const tg_task *t, int b)
{
    return (t->op == TG_SEND && tg_peer(g, r, t) == b) ||
           (t->op == TG_SHIFT && g->groups[tg_peer(g, r, t)].ranks[0] == b);
}

static inline int receives_from(const tg_graph *g, int r, const tg_task *t, int a)
{
    return (t->op == TG_RECV && tg_peer(g, r, t) == a) ||
           (t->op == TG_SHIFT && g->groups[tg_peer(g, r, t)].ranks[1] == a);
}

/* What must hold for any graph: `after` points to an earlier task of the other stream; a
 * collective names a group holding the rank, an exchange a group of its peers, a shift a pair
 * of other ranks; point-to-point peers are other ranks; and every send from a to b has its
 * receive on b from a, in order and, for a plain receive, with the same size (a shift
 * receives what its peer sends). */
static inline void check_invariants(const tg_graph *g)
{
    for (int r = 0; r < g->n_ranks; r++) {
        const tg_rank *rk = &g->ranks[r];
        for (int i = 0; i < rk->n_tasks; i++) {
            const tg_task *t = &rk->tasks[i];
            int peer = tg_peer(g, r, t); /* a rank or a group */
            if (t->after >= 0) {
                assert_true(t->after < i);
                assert_int_not_equal(tg_stream(&rk->tasks[t->after]), tg_stream(t));
            }
            assert_true(t->amount >= 0);
            switch (t->op) {
            case TG_ALLREDUCE:
            case TG_ALLGATHER:
            case TG_REDUCE_SCATTER:
                assert_in_range(peer, 0, g->n_groups - 1);
                assert_true(group_has(&g->groups[peer], r));
                assert_true(g->groups[peer].n > 1);
                break;
            case TG_EXCHANGE:
                assert_in_range(peer, 0, g->n_groups - 1);
                assert_false(group_has(&g->groups[peer], r));
                break;
            case TG_SHIFT:
                assert_in_range(peer, 0, g->n_groups - 1);
                assert_int_equal(g->groups[peer].n, 2);
                assert_false(group_has(&g->groups[peer], r));
                break;
            case TG_SEND:
            case TG_RECV:
                assert_in_range(peer, 0, g->n_ranks - 1);
                assert_int_not_equal(peer, r);
                break;
            default:
                break;
            }
        }
    }
    for (int a = 0; a < g->n_ranks; a++)
        for (int b = 0; b < g->n_ranks; b++) {
            const tg_rank *ra = &g->ranks[a], *rb = &g->ranks[b];
            int j = 0;
            for (int i = 0; i < ra->n_tasks; i++) {
                if (!sends_to(g, a, &ra->tasks[i], b))
                    continue;
                while (j < rb->n_tasks && !receives_from(g, b, &rb->tasks[j], a))
                    j++;
                assert_true(j < rb->n_tasks);
                if (rb->tasks[j].op == TG_RECV)
                    assert_close(rb->tasks[j].amount, ra->tasks[i].amount);
                /* both ends agree on staging (the engine goes by the sender's flag) */
                assert_int_equal(rb->tasks[j].flags & TG_FLAG_STAGED,
                                 ra->tasks[i].flags & TG_FLAG_STAGED);
                j++;
            }
            for (; j < rb->n_tasks; j++)
                assert_false(receives_from(g, b, &rb->tasks[j], a));
        }
}

/* In the blocking order every task waits for the one written before it. */
static inline void check_blocking(const tg_graph *g)
{
    for (int r = 0; r < g->n_ranks; r++) {
        const tg_rank *rk = &g->ranks[r];
        for (int i = 1; i < rk->n_tasks; i++)
            if (tg_stream(&rk->tasks[i]) != tg_stream(&rk->tasks[i - 1]))
                assert_int_equal(rk->tasks[i].after, i - 1);
    }
}

static inline tg_graph expand_ok(const wl_workload *wl, st_strategy st, int64_t batch, bool overlap)
{
    tg_graph g;
    char err[HS_ERR_LEN] = "";
    ex_options opt = {.overlap = overlap};
    int rc = ex_expand_opt(wl, NULL, &st, batch, &opt, &g, err);
    if (rc != HS_OK)
        print_error("ex_expand: %s\n", err);
    assert_int_equal(rc, HS_OK);
    assert_int_equal(g.n_ranks, st.p);
    check_invariants(&g);
    if (!overlap)
        check_blocking(&g);
    return g;
}

/* Per-sample forward+backward seconds of the layers, split ones divided by `ways`. */
static inline double sample_s(const wl_workload *wl, int ways)
{
    double s = 0;
    for (int l = 0; l < wl->n_layers; l++) {
        const wl_layer *ly = &wl->layers[l];
        s += (ly->fw_s + ly->bw_s) / ((ly->split_mask && ways > 1) ? ways : 1);
    }
    return s;
}

static inline double update_s(const wl_workload *wl, int ways)
{
    double s = 0;
    for (int l = 0; l < wl->n_layers; l++)
        s += wl->layers[l].wu_s / ((wl->layers[l].split_mask && ways > 1) ? ways : 1);
    return s;
}

#endif
