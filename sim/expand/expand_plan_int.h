/* expand_plan_int.h: what expand_plan.c (a per-layer plan's kernels, halos, passes and
 * gradients) and expand_redist.c (its tensors' redistributions between layers) share: the
 * planner that walks the plan rank by rank, and its small helpers. Nothing here is for use
 * outside these two files. */
#ifndef EXPAND_PLAN_INT_H
#define EXPAND_PLAN_INT_H

#include "expand_int.h"

#include "compute.h"

/* One redistribution: u's output to the consumers needing what v needs. */
typedef struct {
    int u, v;
    ex_moves mv;
    bool model_gather; /* u split on output channels, v needing all: backward reduce-scatter
                        * (filter blocks), allreduce (partial sums) */
    bool reduce_back;  /* backward reduce-scatter of the gathered gradient */
    bool staged;       /* a spatial cut on either side: through host memory */
} ex_edge;

/* The weight-gradient buffers of one rank: one per (inner, outer) set of ranks. */
typedef struct {
    int inner, outer;  /* group indices, -1: none */
    double bytes;
} ex_fused;

typedef struct {
    const wl_workload *wl;
    const kt_compute *kc; /* the job's kernel-time model (NULL: measured times) */
    const st_plan *plan;
    int64_t batch;
    int p;
    tg_graph *g;
    ex_groups groups;
    ex_cursor *cur;     /* per rank */
    int *ready;         /* per rank: the task the next step of the data needs */
    int *last_kernel;   /* per rank */
    ex_edge *edges;
    int n_edges;
    size_t cap_edges;
    bool *covered;      /* per layer: its output gradient is reduced at an upstream gather */
    ex_msgs scratch;
    ex_fused **fused;   /* per rank */
    int *n_fused;
    size_t *cap_fused;  /* per rank: room in fused[r] */
    double (*kernel_s)[3]; /* per layer: its forward, input- and weight-gradient kernels on a
                            * rank (st_layer_kernels_s) */
    uint8_t grad_flags;    /* the first gradient allreduce's: TG_FLAG_CYCLE under a runtime
                            * with a background cycle (Horovod's), as a bucket's (expand.c) */
    bool oom;
    int status;            /* the first error timing a layout copy (HS_OK: none) */
    char *err;             /* its message */
} planner;

static inline const st_layer_config *cfg(const planner *pl, int l) { return &pl->plan->layers[l]; }

static inline bool member(const st_layer_config *c, int r)
{
    return r >= c->base && r < c->base + st_group_size(c);
}

/* The group of the ranks of c's group that share rank r's coordinates except those in `vary`
 * (moves.c). */
static inline int line_group(planner *pl, const st_layer_config *c, int r, unsigned vary)
{
    return ex__line_group(&pl->groups, pl->g, c, r, vary, &pl->oom);
}

static inline int put_comm(planner *pl, int r, tg_op op, tg_phase phase, int layer, int peer,
                    double bytes, uint8_t flags)
{
    pl->ready[r] = ex_comm(&pl->cur[r], op, phase, layer, peer, bytes, flags, pl->ready[r]);
    return pl->ready[r];
}

/* Does layer l hold partial sums of its output (a conv or fc split on input channels)? */
static inline bool ex__plan_partial_sums(const planner *pl, int l)
{
    const st_layer_config *c = cfg(pl, l);
    return st_has_filters(&pl->wl->layers[l]) && c->channel > 1 && !c->whole;
}

/* ---- expand_plan.c ---- */

/* A layout copy of `bytes` of layer l on rank r in phase `kind` (a kernel on the compute
 * stream, timed by st_layout_copy_s), or with scatter_p > 0 the kernels around a
 * reduce-scatter over that many ranks (st_scatter_copies_s). */
void ex__plan_layout_copy(planner *pl, int r, tg_phase kind, int l, const st_layer_config *c,
                          double bytes, int scatter_p);

/* ---- expand_redist.c ---- */

/* Forward: u's output to every layer that reads it, one redistribution (an edge, kept in
 * pl->edges) per set of consumers needing the same slices. */
void ex__plan_redistribute(planner *pl, int u);
/* Backward: edge e's adjoint, before its producer's backward kernels. */
void ex__plan_backward_moves(planner *pl, const ex_edge *e);

#endif
