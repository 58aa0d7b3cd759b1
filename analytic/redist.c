/* redist.c: a tensor redistributed between two layers' configurations, in closed form.
 *
 * The producer u holds its output cut into blocks (batch, output channels, spatial slabs); the
 * consumer v needs blocks of the same tensor cut its own way. Each pattern has its formula,
 * recognised from the split factors and the rank strides alone (the simulator derives the
 * same traffic independently, from which rank holds which slice):
 *   aligned        u holds what v needs: nothing forward; backward, where v works on a slice
 *                  of what u holds whole, u's replicas gather the slices' gradients, and a
 *                  filter-split v's partial input gradients are summed (both skipped when an
 *                  upstream gather already charges them: ParaDL's convention, `covered`);
 *   model gather   u split on output channels (filters, or a partial-sum channel split), v
 *                  needs them all: allgather forward, reduce-scatter backward of u's output
 *                  (the built-ins' default; a partial sum: allreduce forward, allgather back,
 *                  ParaDL's channel terms);
 *   slab gather    u cut spatially, v needs whole extents: the allgather counted twice, staged
 *                  through host memory (ParaDL's split point);
 *   batch regroup  v's batch blocks are G of u's (SplitBrain's and OWT's boundary): allgather
 *                  inside the G ranks forward, reduce-scatter of the partial gradients back;
 *   otherwise      every rank fetches what it lacks: messages from each holder, the volume
 *                  by per-axis overlap; point to point between different groups. */
#include "analytic_int.h"

#include <string.h>

enum { D_BATCH, D_CHAN, D_W, D_H, D_D, D_COUNT };

/* A tensor cut into blocks: ways per axis, and the rank stride of the coordinate that picks
 * the block. */
typedef struct {
    int ways[D_COUNT];
    int stride[D_COUNT];
} cut;

static cut held_by(const wl_layer *u, const st_layer_config *c)
{
    st_coords s = st_strides(c);
    bool f = st_has_filters(u);
    return (cut){{c->batch, f ? c->filter : c->channel, c->width, c->height, c->depth},
                 {s.b, f ? s.f : s.c, s.w, s.h, s.d}};
}

static cut needed_by(const wl_layer *v, const st_layer_config *c)
{
    st_coords s = st_strides(c);
    bool flat = v->type == WL_FC || v->type == WL_SOFTMAX;
    return (cut){{c->batch, c->channel, flat ? 1 : c->width, flat ? 1 : c->height,
                  flat ? 1 : c->depth},
                 {s.b, s.c, s.w, s.h, s.d}};
}

/* u holds axis k whole (v takes its slice locally), or exactly the block v needs. */
static bool axis_ok(const cut *h, const cut *n, int k)
{
    return h->ways[k] == 1 || (h->ways[k] == n->ways[k] && h->stride[k] == n->stride[k]);
}

static bool axes_ok(const cut *h, const cut *n, unsigned skip)
{
    for (int k = 0; k < D_COUNT; k++)
        if (!(skip & (1u << k)) && !axis_ok(h, n, k))
            return false;
    return true;
}

static int slabs(const cut *c) { return c->ways[D_W] * c->ways[D_H] * c->ways[D_D]; }

static bool same_group(const st_layer_config *cu, const st_layer_config *cv)
{
    return cu->base == cv->base && st_group_size(cu) == st_group_size(cv);
}

static bool partial(const wl_layer *u, const st_layer_config *c)
{
    return st_has_filters(u) && c->channel > 1 && !c->whole;
}

bool an__aligned(const wl_layer *u, const st_layer_config *cu, const wl_layer *v,
                 const st_layer_config *cv)
{
    cut h = held_by(u, cu), n = needed_by(v, cv);
    return same_group(cu, cv) && !partial(u, cu) && axes_ok(&h, &n, 0);
}

bool an__is_model_gather(const wl_layer *u, const st_layer_config *cu, const wl_layer *v,
                         const st_layer_config *cv)
{
    cut h = held_by(u, cu), n = needed_by(v, cv);
    if (!same_group(cu, cv))
        return false;
    if (partial(u, cu))
        return true; /* its partial sums are reduced over the channel line (ParaDL: channel) */
    return h.ways[D_CHAN] > 1 && n.ways[D_CHAN] == 1 && axes_ok(&h, &n, 1u << D_CHAN);
}

bool an__same_need(const wl_layer *v1, const st_layer_config *c1, const wl_layer *v2,
                   const st_layer_config *c2)
{
    cut a = needed_by(v1, c1), b = needed_by(v2, c2);
    return same_group(c1, c2) && memcmp(&a, &b, sizeof a) == 0;
}

bool an__is_projection(const wl_workload *wl, int v, int u)
{
    return wl_input_resized(&wl->layers[v], &wl->layers[u]);
}

/* ------------------------------------------------------------------ the patterns */

typedef struct {
    an_net *net;
    const wl_workload *wl;
    const kt_compute *kc; /* the job's kernel-time model (NULL: measured times) */
    const wl_layer *u, *v;
    const st_layer_config *cu, *cv;
    cut h, n;
    double batch;
    double *compute_s; /* layout copies */
    double *comm_s;
    bool filter_allreduce; /* a gather of filter blocks allreduced back (st_plan's) */
    int status;        /* the first error timing a layout copy */
    char *err;
} edge;

/* Bytes of u's output a rank holds: its batch block, channel block and slab. */
static double held_bytes(const edge *e)
{
    double ways = (double)e->h.ways[D_BATCH] * e->h.ways[D_CHAN] * slabs(&e->h);
    return e->batch * (double)e->u->y_elems / ways * kt_message_bytes(e->kc);
}

/* Gathered channel slices put in place, `bytes` of them, on a rank whose block holds `samples`
 * samples (strategy.h, st_builtin_kernels_s): under the compute model only. scatter_p > 0: the
 * kernels around their reduce-scatter over that many ranks instead (st_scatter_copies_s). */
static void layout_copy(edge *e, double bytes, double samples, int scatter_p)
{
    double copy_s = 0, elems = bytes / kt_message_bytes(e->kc);
    if (e->status == HS_OK)
        e->status = scatter_p > 0 ? st_scatter_copies_s(e->wl, e->kc, elems, scatter_p, samples,
                                                        &copy_s, e->err)
                                  : st_layout_copy_s(e->wl, e->kc, elems, samples, &copy_s, e->err);
    *e->compute_s += copy_s;
}

static an_lines line_of(const st_layer_config *c, int stride, int n)
{
    return (an_lines){.base = c->base, .q = st_group_size(c), .stride = stride, .n = n};
}

/* u split on output channels, v needing them all: an allgather forward and a reduce-scatter
 * back, each with its layout copy (the built-ins' default); a partial-sum channel split
 * allreduces forward and gathers the gradient's slices back. */
static void model_gather(edge *e)
{
    bool part = partial(e->u, e->cu);
    st_coords s = st_strides(e->cu);
    int q = part ? e->cu->channel : e->h.ways[D_CHAN];
    int stride = part || !st_has_filters(e->u) ? s.c : s.f;
    an_link l = an__lines_ring(e->net, line_of(e->cu, stride, q));
    double whole = held_bytes(e) * (part ? 1 : q); /* the tensor with every channel */
    double samples = e->batch / e->h.ways[D_BATCH];
    e->comm_s[HS_TERM_ACT_ALLGATHER] += an__allgather_s(q, whole / q, l);
    bool scatter = !part && !e->filter_allreduce;
    e->comm_s[HS_TERM_ACT_ALLREDUCE] += scatter ? an__allgather_s(q, whole / q, l) /* the r-s */
                                                : an__allreduce_s(q, whole, l);
    layout_copy(e, whole, samples, 0); /* forward, or partial: backward */
    if (scatter)
        layout_copy(e, whole, samples, q); /* around the reduce-scatter */
    if (!part) /* every rank of the line now holds every channel; a reduced partial sum keeps
                * u's filter blocks */
        e->h.ways[D_CHAN] = 1;
}

/* Backward of an aligned edge: v's input gradient where v cut what u holds whole. */
static void aligned_backward(edge *e, bool covered)
{
    st_coords s = st_strides(e->cv);
    double x = e->batch * (double)e->u->y_elems / e->n.ways[D_BATCH] * kt_message_bytes(e->kc);
    if (st_has_filters(e->v) && e->cv->filter > 1 && !e->cv->whole && !covered) {
        an_link l = an__lines_ring(e->net, line_of(e->cv, s.f, e->cv->filter));
        e->comm_s[HS_TERM_ACT_ALLREDUCE] +=
            an__allreduce_s(e->cv->filter, x / e->n.ways[D_CHAN] / slabs(&e->n), l);
    }
    if (e->h.ways[D_CHAN] == 1 && e->n.ways[D_CHAN] > 1 && !covered) {
        an_link l = an__lines_ring(e->net, line_of(e->cv, s.c, e->n.ways[D_CHAN]));
        e->comm_s[HS_TERM_ACT_ALLGATHER] +=
            an__allgather_s(e->n.ways[D_CHAN], x / e->n.ways[D_CHAN] / slabs(&e->n), l);
        layout_copy(e, x / slabs(&e->n), e->batch / e->n.ways[D_BATCH], 0);
    }
    int q = slabs(&e->n);
    if (slabs(&e->h) == 1 && q > 1) { /* the start of a spatial region: slabs gathered back */
        an_link l = an__shared(an__lines_staged(e->net, line_of(e->cv, 1, q)), 2.0);
        e->comm_s[HS_TERM_SPLIT_GATHER] +=
            an__allgather_s(q, x / e->n.ways[D_CHAN] / q, l);
    }
}

/* u cut spatially, v needing whole extents: ParaDL's split point, counted twice, staged. */
static void slab_gather(edge *e)
{
    int q = slabs(&e->h);
    an_link l = an__shared(an__lines_staged(e->net, line_of(e->cu, 1, q)), 2.0);
    e->comm_s[HS_TERM_SPLIT_GATHER] += 2 * an__allgather_s(q, held_bytes(e), l);
}

/* v's batch block is G of u's, held by G ranks at u's batch stride. */
static void batch_regroup(edge *e, int g)
{
    an_link l = an__lines_ring(e->net, line_of(e->cv, e->h.stride[D_BATCH], g));
    double piece = held_bytes(e);
    e->comm_s[HS_TERM_ACT_ALLGATHER] += an__allgather_s(g, piece, l);
    if (st_has_filters(e->v) && e->cv->filter > 1) /* reduce-scatter of partial gradients: */
        e->comm_s[HS_TERM_ACT_ALLREDUCE] += an__allgather_s(g, piece, l); /* a reduction */
}

/* Anything else: each rank fetches what it lacks from the holders, forward and back. */
static void fetch(edge *e, bool same)
{
    double need = 1, local = 1, msgs = 1;
    for (int k = 0; k < D_COUNT; k++) {
        double a = e->h.ways[k], b = e->n.ways[k];
        need /= b;
        local *= a > b ? 1.0 / a : 1.0 / b;
        if (a > b)
            msgs *= a / b;
    }
    double bytes =
        e->batch * (double)e->u->y_elems * kt_message_bytes(e->kc) * (same ? need - local : need);
    if (bytes <= 0)
        return;
    double n = same ? (msgs > 1 ? msgs - 1 : 1) : msgs;
    an_link l = same ? an__lines_ring(e->net, line_of(e->cu, 1, st_group_size(e->cu)))
                     : an__rank_pair(e->net, e->cu->base, e->cv->base);
    hs_term term = same ? HS_TERM_ACT_ALLGATHER : HS_TERM_PIPELINE;
    e->comm_s[term] += 2 * (n * l.alpha_s + bytes * l.beta_s_per_byte);
}

static void classify(edge *e, bool covered)
{
    if (!same_group(e->cu, e->cv)) {
        fetch(e, false);
        return;
    }
    bool gather = an__is_model_gather(e->u, e->cu, e->v, e->cv);
    if (gather)
        model_gather(e);
    if (axes_ok(&e->h, &e->n, 0)) {
        aligned_backward(e, covered || gather);
        return;
    }
    if (slabs(&e->h) > 1 && slabs(&e->n) == 1 && axes_ok(&e->h, &e->n, 7u << D_W)) {
        slab_gather(e);
        return;
    }
    int hb = e->h.ways[D_BATCH], nb = e->n.ways[D_BATCH];
    if (hb > nb && hb % nb == 0 && e->h.stride[D_BATCH] * (hb / nb) == e->n.stride[D_BATCH] &&
        axes_ok(&e->h, &e->n, 1u << D_BATCH)) {
        batch_regroup(e, hb / nb);
        return;
    }
    fetch(e, true);
}

int an_edge_price(an_net *net, const wl_workload *wl, const kt_compute *kc, const st_plan *rules,
                  int u, const st_layer_config *cu, int v, const st_layer_config *cv,
                  int64_t batch, bool covered, an_price *out, char *err)
{
    memset(out, 0, sizeof *out);
    if (u < 0 || v <= u || v >= wl->n_layers)
        return hs_fail(err, HS_EINPUT, "an_edge_price: no edge from layer %d to layer %d", u, v);
    if (an__is_projection(wl, v, u))
        return HS_OK;
    edge e = {.net = net, .wl = wl, .kc = kc, .u = &wl->layers[u], .v = &wl->layers[v], .cu = cu,
              .cv = cv, .h = held_by(&wl->layers[u], cu), .n = needed_by(&wl->layers[v], cv),
              .batch = (double)batch, .compute_s = &out->compute_s, .comm_s = out->comm_s,
              .filter_allreduce = rules->filter_allreduce, .err = err};
    classify(&e, covered);
    return e.status;
}

int an_output_price(an_net *net, const wl_workload *wl, const kt_compute *kc, int u,
                    const st_layer_config *cu, int64_t batch, an_price *out, char *err)
{
    memset(out, 0, sizeof *out);
    if (u < 0 || u >= wl->n_layers)
        return hs_fail(err, HS_EINPUT, "an_output_price: no layer %d", u);
    const wl_layer *l = &wl->layers[u];
    if (!partial(l, cu))
        return HS_OK;
    edge e = {.net = net, .wl = wl, .kc = kc, .u = l, .v = l, .cu = cu, .cv = cu,
              .h = held_by(l, cu), .n = held_by(l, cu), .batch = (double)batch,
              .compute_s = &out->compute_s, .comm_s = out->comm_s, .err = err};
    model_gather(&e);
    return e.status;
}
