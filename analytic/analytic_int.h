/* analytic_int.h: what analytic/'s files share (analytic.h is the folder's public face).
 *   analytic.c     ParaDL's closed forms per built-in strategy; the entry points
 *   collectives.c  the collectives' closed forms: ParaDL's ring, hier, tree, rings (--allreduce)
 *   overlap.c      the overlap order's backward: gradient buckets behind it (--overlap)
 *   compute.c      a rank's kernels from the compute model (--compute model)
 *   routes.c       the built-in strategies' links, read from the platform's routes
 *   net.c          the links of any group of ranks, read once and kept (an_net)
 *   layerwise.c    one layer's configuration priced: compute, halos, its weight gradients
 *   redist.c       the redistribution of a tensor between two layers' configurations
 *   plan_model.c   a whole per-layer plan: layers, edges, fused gradients, pipelines
 * Nothing here is for use outside analytic/. */
#ifndef ANALYTIC_INT_H
#define ANALYTIC_INT_H

#include "analytic.h"
#include "compute.h"
#include "precision.h"

/* ---- routes.c: routes between GPUs as alpha and beta ---- */

/* The ring gpu[0] -> gpu[1] -> ... -> gpu[n-1] -> gpu[0]: its slowest edge. */
an_link an__ring_link(const plat_platform *plat, const int *gpu, int n);
/* The slower of two links, term by term (a collective waits for its slowest member). */
an_link an__slowest(an_link a, an_link b);
an_link an__pair_link(const plat_platform *plat, int a, int b);
/* A halo message between GPUs a and b without GPUDirect (as the oracle measured MPI): copied
 * into host memory and out again, so it pays the platform's staging latency. Inside a node it
 * crosses a's PCIe link instead of NVLink; between nodes it takes the route, which already
 * includes the PCIe links. */
an_link an__staged_link(const plat_platform *plat, int a, int b);

/* ---- collectives.c: the alpha-beta cost of collectives ---- */

/* Ring allreduce of `bytes` over n members: 2(n-1) steps of bytes/n. */
double an__allreduce_s(int n, double bytes, an_link l);
/* Ring allgather where each of n members contributes `bytes`: n-1 steps. */
double an__allgather_s(int n, double bytes, an_link l);
/* The link as seen by one of `flows` transfers sharing its bandwidth. */
an_link an__shared(an_link l, double flows);

/* An allreduce of `bytes` over n members by `algo` (collective.h): the ring on `ring` (as
 * an__allreduce_s), or hier / tree / rings / NCCL's choice on the group's layout. A layout
 * uneven over its nodes falls back on the ring (routes.c refuses the others there but auto). */
double an__allreduce_algo_s(co_algo algo, int n, double bytes, an_link ring,
                            const an_layout *lay);

/* ---- compute.c: kernels from the compute model (kc) ---- */

/* Forward, input-gradient and weight-gradient seconds of layer l on one rank of st. */
int an__layer_passes_s(const wl_workload *wl, const kt_compute *kc, const st_strategy *st, int l,
                       double batch, double *fw_s, double *dx_s, double *dw_s, char *err);
/* Forward and backward (input + weight gradient) seconds of layer l on one rank of st. */
int an__layer_kernels_s(const wl_workload *wl, const kt_compute *kc, const st_strategy *st, int l,
                        double batch, double *fw_s, double *bw_s, char *err);
/* GPipe's closed form (ParaDL's) over the stages first[0..n) (n + 1 entries), S = segs
 * micro-batches of `micro` samples, stage g sending to g + 1 over link[g] (n - 1 of them): (n+S-1)
 * steps of the slowest stage's forward and backward plus the largest update into
 * it->compute_s, the fill and drain's share into terms->bubble_s, 2(n+S-2) sends of the costliest
 * boundary into terms->comm_s[HS_TERM_PIPELINE]. A stage's kernels are its layers' on one
 * micro-batch under kc (st_pipeline_kernels_s), else the measured per-sample times. The built-in
 * pipeline and a plan's schedule both price by it. */
int an__gpipe(const wl_workload *wl, const kt_compute *kc, const int *first, int n, int segs,
              double micro, const an_link *link, hs_times *it, an_terms *terms, char *err);
/* One rank's kernels and weight updates of an iteration. */
int an__model_compute_s(const wl_workload *wl, const kt_compute *kc, const st_strategy *st,
                        double batch, double *compute_s, char *err);

/* ---- overlap.c: the overlap order's backward (--overlap) ---- */

/* One layer's backward on one rank as a built-in strategy's closed form prices it, for the
 * overlap order (sim/expand/expand_overlap.c). */
typedef struct {
    double bx_s;       /* its input-gradient kernel (all of its backward without weights) */
    double dw_s;       /* its weight-gradient kernel, 0 without weights */
    double both_s;     /* the two added, as the blocking model adds them */
    bool has_weights;  /* its gradients fill the buckets, its weight kernel may be deferred */
    bool dy;           /* a collective on its output gradient comes before its backward */
    double dy_s;       /* that collective's closed form */
    double halo_s;     /* its backward halos, after its input-gradient kernel (0: none) */
    double grad_bytes; /* what its weight gradients add to the buckets */
} an_bwd_layer;

/* A bucket's gradient allreduces: inside the group of n_group ranks (spatial's replicated
 * weights), then across the n_across groups; a family of fewer than 2 is no collective. */
typedef struct {
    co_algo algo;                  /* st->allreduce */
    int n_group;                   /* ranks of the allreduce inside a group (1: none) */
    an_link group;                 /* its ring's link (ln->group) */
    const an_layout *group_layout; /* and its layout, for the algorithms beyond the ring */
    int n_across;                  /* groups of the allreduce across them (1: none) */
    an_link across;                /* its ring's link, shared as the blocking model shares it */
    const an_layout *across_layout; /* and its layout (ln->grad_across) */
} an_grad_path;

/* What the overlap order leaves exposed of the backward, and its buckets' allreduces. */
typedef struct {
    double exposed_s; /* the backward's end past its kernels: their waits for the collectives
                       * on the data path, and the buckets' allreduces left at its end */
    double group_s;   /* the buckets' allreduces inside the group, summed */
    double across_s;  /* and across the groups */
} an_overlap;

/* The backward of layers ly[0..n) in the overlap order on a free network (st's buckets, cycle
 * and after_backward), the forward taking fwd_s before it (the cycles' origin). */
int an__overlap_backward(const an_bwd_layer *ly, int n, const an_grad_path *gp,
                         const st_strategy *st, double fwd_s, an_overlap *out, char *err);
/* When a collective ready at ready_s, in a phase that starts fwd_s into the iteration, is
 * launched under a background cycle of period_s (Horovod's): at the first multiple of it from
 * the iteration's start at or after ready, as the simulation's TG_FLAG_CYCLE tasks wait; at
 * once when period_s <= 0. Returns the launch, counted as ready_s is. */
double an__cycle_launch_s(double ready_s, double fwd_s, double period_s);

/* ---- net.c: links of rank groups, cached ---- */

/* A family of lines inside a layer's group: the ranks base + t + i*stride (i < n) for every t
 * in [0, q) whose position along the line is 0; all of them run at once. */
typedef struct {
    int base, q, stride, n;
} an_lines;

/* The family laid out by node for the allreduce algorithms beyond the ring (its lines run at
 * once, sharing the NICs; links.c); -1 when out of memory. */
int an__layout_lines(const plat_platform *plat, const int *gpu_of_rank, int p, an_lines k,
                     an_layout *lay);
int an__lines_layout(an_net *net, an_lines lines, an_layout *lay);

/* The slowest ring of the family, and the slowest pair of neighbours (i, i+1) staged through
 * host memory (halos, the end of a spatial region). */
an_link an__lines_ring(an_net *net, an_lines lines);
an_link an__lines_staged(an_net *net, an_lines lines);
/* The route from rank a to rank b. */
an_link an__rank_pair(an_net *net, int a, int b);
/* GPUs of one node taking part: they share its PCIe and uplink (ParaDL's divisor). */
int an__node_sharing(const an_net *net);

/* ---- layerwise.c: one layer under one configuration ---- */

/* Kernels of one iteration of layer i: its batch share of its per-sample time, cut by its
 * model splits (whole: not cut), plus its share of the weight update; with --compute model
 * (kc) its kernels at the rank's real shape (st_layer_kernels_s). */
int an__layer_compute_s(const wl_workload *wl, const kt_compute *kc, int i,
                        const st_layer_config *c, double batch, double *compute_s, char *err);
/* Layer i's share of the weight update in an__layer_compute_s: what runs after the gradients'
 * allreduce. */
double an__layer_update_s(const wl_workload *wl, const kt_compute *kc, int i,
                          const st_layer_config *c);
/* Halo exchanges of a spatially split layer with a window wider than one (ParaDL's terms):
 * in a chain (the default), or with `chain` false every GPU sending and receiving at once
 * (--halo sendrecv). */
double an__halo_s(an_net *net, const wl_workload *wl, const kt_compute *kc, int i,
                  const st_layer_config *c, double batch, bool chain);

/* The ranks a layer's weight gradients are allreduced over: inside the group first (inner:
 * spatial slabs, and replicas when they are reduced too), then across the batch blocks
 * (outer); a family of n < 2 is no collective. */
typedef struct {
    an_lines inner, outer;
} an_grad_sets;

an_grad_sets an__grad_sets(const st_layer_config *c, bool reduce_replicas);
/* Bytes of the weight gradients one rank of the layer holds, elem_bytes an element
 * (st_gradient_bytes). */
double an__grad_bytes(const wl_workload *wl, double elem_bytes, int i, const st_layer_config *c);
/* The allreduces of `bytes` over the sets by `algo` (collective.h; CO_RING ParaDL's ring) into
 * comm_s (GRAD_GROUP, GRAD_ACROSS); NCCL's choice (CO_AUTO) as it makes it for a buffer of
 * choice_bytes (bytes, or the fused buffer a layer's gradients are part of). */
void an__grad_price(an_net *net, an_grad_sets g, double bytes, double choice_bytes, co_algo algo,
                    double *comm_s);

/* ---- redist.c: a tensor between two layers ---- */

/* Whether v's input `input` is a shortcut an omitted projection resizes (its shape is not
 * v's x): it takes any layout at no cost, as in ParaDL. */
bool an__is_projection(const wl_workload *wl, int v, int u);

/* The need a consumer's configuration has of its input tensor, for telling apart consumers
 * that need the same (one redistribution serves them all). */
bool an__same_need(const wl_layer *v1, const st_layer_config *c1, const wl_layer *v2,
                   const st_layer_config *c2);

/* Whether the edge u -> v is ParaDL's gather after a model-split layer (u split on its output
 * channels, v needing all of them): v's output gradient is then reduced at that gather. */
bool an__is_model_gather(const wl_layer *u, const st_layer_config *cu, const wl_layer *v,
                         const st_layer_config *cv);
/* Whether u's output is laid out as v needs it (nothing moves forward). */
bool an__aligned(const wl_layer *u, const st_layer_config *cu, const wl_layer *v,
                 const st_layer_config *cv);

#endif
