/* layout.c: which rank holds which slice of a tensor, which slice each rank needs, and the
 * messages between them, grouped into collectives (expand_int.h).
 *
 * A tensor (one layer's output, all samples of the batch) is a box of five axes: batch,
 * channels, width, height, depth. A producer's configuration cuts it into blocks, each held by
 * the ranks that differ only in the coordinates that repeat work (replicas, and the input
 * channel line of a conv whose partial sums were reduced); a consumer's configuration says
 * which box each of its ranks needs. Every rank then receives, from one holder of each block
 * its box overlaps, the part it does not hold itself. This is the simulator's own derivation:
 * nothing here knows the analytic model's patterns. The messages are then recognised as
 * what a communication library would run:
 *   gather   the ranks fall into groups in which every member sends one piece to every other
 *            member (a filter split gathered, slabs gathered at the end of a spatial region,
 *            a group of G batch blocks joined): one allgather per group, of the mean piece;
 *   rounds   anything else: pairwise rounds, in round k every rank sends to the k-th rank
 *            after it and receives from the k-th before it (both at once), as MPI_Alltoallv
 *            implementations do, which cannot deadlock. */
#include "expand_int.h"

#include "hs_grow.h"

#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ boxes */

/* Block i of n of an extent e: [floor(i e / n), floor((i+1) e / n)), as uneven slabs split. */
static void block(int64_t e, int n, int i, int64_t *lo, int64_t *hi)
{
    *lo = e * i / n;
    *hi = e * (i + 1) / n;
}

static bool flat(const wl_layer *l) { return l->type == WL_FC || l->type == WL_SOFTMAX; }

static bool partial_sums(const wl_layer *l, const st_layer_config *c)
{
    return st_has_filters(l) && c->channel > 1 && !c->whole;
}

void ex__held(const wl_layer *u, const st_layer_config *c, int64_t batch, int t, ex_box *b)
{
    st_coords k = st_coords_of(c, t);
    bool f = st_has_filters(u);
    block(batch, c->batch, k.b, &b->lo[EX_BATCH], &b->hi[EX_BATCH]);
    block(u->y.channels, f ? c->filter : c->channel, f ? k.f : k.c, &b->lo[EX_CHAN],
          &b->hi[EX_CHAN]);
    const int split[3] = {c->width, c->height, c->depth}, at[3] = {k.w, k.h, k.d};
    for (int a = 0; a < 3; a++) {
        int64_t e = a < u->y.n_spatial ? u->y.spatial[a] : 1;
        block(e, split[a], at[a], &b->lo[EX_W + a], &b->hi[EX_W + a]);
    }
}

void ex__needed(const wl_layer *u, const wl_layer *v, const st_layer_config *c, int64_t batch,
                int t, ex_box *b)
{
    st_coords k = st_coords_of(c, t);
    block(batch, c->batch, k.b, &b->lo[EX_BATCH], &b->hi[EX_BATCH]);
    int ways = v->type == WL_CONCAT ? 1 : c->channel;
    block(u->y.channels, ways, ways > 1 ? k.c : 0, &b->lo[EX_CHAN], &b->hi[EX_CHAN]);
    const int split[3] = {c->width, c->height, c->depth}, at[3] = {k.w, k.h, k.d};
    for (int a = 0; a < 3; a++) {
        int64_t e = a < u->y.n_spatial ? u->y.spatial[a] : 1;
        int n = flat(v) ? 1 : split[a];
        block(e, n, n > 1 ? at[a] : 0, &b->lo[EX_W + a], &b->hi[EX_W + a]);
    }
}

static bool inside(const ex_box *in, const ex_box *out)
{
    for (int a = 0; a < EX_AXES; a++)
        if (in->lo[a] < out->lo[a] || in->hi[a] > out->hi[a])
            return false;
    return true;
}

double ex__box_elems(const ex_box *b)
{
    double n = 1;
    for (int a = 0; a < EX_AXES; a++)
        n *= (double)(b->hi[a] > b->lo[a] ? b->hi[a] - b->lo[a] : 0);
    return n;
}

/* ------------------------------------------------------------------ messages */

static int push(ex_msgs *m, int src, int dst, double bytes)
{
    if (!hs_grow((void **)&m->m, &m->cap, (size_t)m->n + 1, sizeof *m->m))
        return -1;
    m->m[m->n++] = (ex_msg){src, dst, bytes};
    return 0;
}

/* The producer's ranks holding the block with coordinates k (replicas, and the input channel
 * line of reduced partial sums, hold the same block); the one for consumer j is picked round
 * robin, so that the load spreads. Returns -1 when j itself holds it. */
static int holder_for(const wl_layer *u, const st_layer_config *c, st_coords k, int j)
{
    int lines = partial_sums(u, c) ? c->channel : 1, n = c->replicas * lines;
    int first = -1;
    for (int i = 0; i < n; i++) {
        k.r = i % c->replicas;
        if (lines > 1)
            k.c = i / c->replicas;
        int rank = c->base + st_rank_in_group(c, k);
        if (rank == j)
            return -1;
        if (i == j % n)
            first = rank;
    }
    return first;
}

/* The producer's block indices along axis a that overlap [lo, hi). */
static void overlapping(int64_t e, int n, int64_t lo, int64_t hi, int *i0, int *i1)
{
    int i = (int)(lo * n / (e > 0 ? e : 1));
    while (i > 0 && e * i / n > lo)
        i--;
    while (i < n - 1 && e * (i + 1) / n <= lo)
        i++;
    *i0 = i;
    while (i < n - 1 && e * (i + 1) / n < hi)
        i++;
    *i1 = i;
}

typedef struct {
    const wl_layer *u;
    const st_layer_config *cu;
    int64_t batch;
    int ways[EX_AXES];    /* the producer's cut per axis */
    int64_t extent[EX_AXES];
    double elem_bytes;    /* bytes per element of a message (ex__msg_elem_bytes) */
} producer;

static producer producer_of(const wl_layer *u, const st_layer_config *c, int64_t batch)
{
    bool f = st_has_filters(u);
    producer p = {.u = u, .cu = c, .batch = batch,
                  .ways = {c->batch, f ? c->filter : c->channel, c->width, c->height, c->depth},
                  .extent = {batch, u->y.channels, 1, 1, 1}};
    for (int a = 0; a < 3 && a < u->y.n_spatial; a++)
        p.extent[EX_W + a] = u->y.spatial[a];
    return p;
}

/* Every block overlapping need n of consumer j: one message from a holder unless j holds it. */
static int fetch_for(const producer *p, int j, const ex_box *n, ex_msgs *out)
{
    int i0[EX_AXES], i1[EX_AXES], at[EX_AXES];
    for (int a = 0; a < EX_AXES; a++) {
        overlapping(p->extent[a], p->ways[a], n->lo[a], n->hi[a], &i0[a], &i1[a]);
        at[a] = i0[a];
    }
    for (;;) {
        ex_box blk, cut;
        for (int a = 0; a < EX_AXES; a++) {
            block(p->extent[a], p->ways[a], at[a], &blk.lo[a], &blk.hi[a]);
            cut.lo[a] = blk.lo[a] > n->lo[a] ? blk.lo[a] : n->lo[a];
            cut.hi[a] = blk.hi[a] < n->hi[a] ? blk.hi[a] : n->hi[a];
        }
        bool f = st_has_filters(p->u);
        st_coords k = {.b = at[EX_BATCH], .f = f ? at[EX_CHAN] : 0, .c = f ? 0 : at[EX_CHAN],
                       .w = at[EX_W], .h = at[EX_H], .d = at[EX_D]};
        int src = holder_for(p->u, p->cu, k, j);
        double elems = ex__box_elems(&cut);
        if (src >= 0 && elems > 0 && push(out, src, j, elems * p->elem_bytes))
            return -1;
        int a = 0;
        while (a < EX_AXES && at[a] == i1[a])
            at[a] = i0[a], a++;
        if (a == EX_AXES)
            return 0;
        at[a]++;
    }
}

int ex__messages(const wl_workload *wl, const kt_compute *kc, int u, const st_layer_config *cu,
                 int v, const st_layer_config *cv, int64_t batch, ex_msgs *out)
{
    const wl_layer *lu = &wl->layers[u], *lv = &wl->layers[v];
    producer p = producer_of(lu, cu, batch);
    p.elem_bytes = kt_message_bytes(kc);
    int qu = st_group_size(cu), qv = st_group_size(cv);
    out->n = 0;
    for (int t = 0; t < qv; t++) {
        int j = cv->base + t;
        ex_box n, h;
        ex__needed(lu, lv, cv, batch, t, &n);
        if (j >= cu->base && j < cu->base + qu) {
            ex__held(lu, cu, batch, j - cu->base, &h);
            if (inside(&n, &h))
                continue;
        }
        if (fetch_for(&p, j, &n, out))
            return -1;
    }
    return 0;
}
