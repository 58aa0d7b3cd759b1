/* moves.c: messages recognised as collectives, and communicator groups registered once
 * (expand_int.h).
 *
 * A redistribution's messages (layout.c) are either complete exchanges inside disjoint groups,
 * which is an allgather (every member sends its piece to every other: what a gather of
 * filter blocks, of spatial slabs or of batch blocks looks like), or they are run as pairwise
 * rounds. Groups are looked up by their ranks, so that the thousands of identical lines a
 * plan's layers use become a handful of communicators. */
#include "expand_int.h"

#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ groups */

static unsigned hash_ranks(const int *ranks, int n)
{
    unsigned h = 2166136261u;
    for (int i = 0; i < n; i++)
        h = (h ^ (unsigned)ranks[i]) * 16777619u;
    return h;
}

static bool same_ranks(const tg_group *grp, const int *ranks, int n)
{
    return grp->n == n && memcmp(grp->ranks, ranks, (size_t)n * sizeof *ranks) == 0;
}

static int *slot_of(const ex_groups *gs, const tg_graph *g, const int *ranks, int n)
{
    unsigned i = hash_ranks(ranks, n) & (unsigned)(gs->n_slots - 1);
    while (gs->index[i] >= 0 && !same_ranks(&g->groups[gs->index[i]], ranks, n))
        i = (i + 1) & (unsigned)(gs->n_slots - 1);
    return &gs->index[i];
}

static int rehash(ex_groups *gs, const tg_graph *g)
{
    int n = gs->n_slots ? 2 * gs->n_slots : 1024;
    int *index = malloc((size_t)n * sizeof *index), *old = gs->index, old_n = gs->n_slots;
    if (!index)
        return -1;
    for (int i = 0; i < n; i++)
        index[i] = -1;
    gs->index = index, gs->n_slots = n;
    for (int i = 0; i < old_n; i++)
        if (old[i] >= 0)
            *slot_of(gs, g, g->groups[old[i]].ranks, g->groups[old[i]].n) = old[i];
    free(old);
    return 0;
}

int ex__group(ex_groups *gs, tg_graph *g, const int *ranks, int n)
{
    if (2 * (gs->used + 1) > gs->n_slots && rehash(gs, g))
        return -1;
    int *slot = slot_of(gs, g, ranks, n);
    if (*slot >= 0)
        return *slot;
    int gi = tg_add_group(g, ranks, n);
    if (gi >= 0)
        *slot = gi, gs->used++;
    return gi;
}

void ex__groups_free(ex_groups *gs)
{
    free(gs->index);
    memset(gs, 0, sizeof *gs);
}

/* An odometer over the varying coordinates, slowest (batch) first. */
int ex__line_group(ex_groups *gs, tg_graph *g, const st_layer_config *c, int r, unsigned vary,
                   bool *oom)
{
    st_coords k = st_coords_of(c, r - c->base), s = st_strides(c);
    const int ways[7] = {c->batch, c->replicas, c->channel, c->filter, c->depth, c->height,
                         c->width};
    const int stride[7] = {s.b, s.r, s.c, s.f, s.d, s.h, s.w};
    const unsigned bit[7] = {EX_L_B, EX_L_R, EX_L_C, EX_L_F, EX_L_D, EX_L_H, EX_L_W};
    int own[7] = {k.b, k.r, k.c, k.f, k.d, k.h, k.w}, at[7], n = 1, fixed = c->base;
    for (int i = 0; i < 7; i++) {
        bool varies = (vary & bit[i]) && ways[i] > 1;
        at[i] = 0;
        n *= varies ? ways[i] : 1;
        fixed += varies ? 0 : own[i] * stride[i];
        own[i] = varies; /* from here on: whether coordinate i varies */
    }
    if (n < 2)
        return -1;
    int *ranks = malloc((size_t)n * sizeof *ranks);
    if (!ranks)
        return *oom = true, -1;
    for (int m = 0; m < n; m++) {
        int rank = fixed;
        for (int i = 0; i < 7; i++)
            rank += at[i] * stride[i];
        ranks[m] = rank;
        for (int i = 6; i >= 0; i--) { /* the fastest varying coordinate turns first */
            if (!own[i])
                continue;
            if (++at[i] < ways[i])
                break;
            at[i] = 0;
        }
    }
    int gi = ex__group(gs, g, ranks, n);
    free(ranks);
    if (gi < 0)
        *oom = true;
    return gi;
}

/* ------------------------------------------------------------------ recognising a gather */

static int find(int *parent, int r)
{
    while (parent[r] != r)
        r = parent[r] = parent[parent[r]];
    return r;
}

static int by_pair(const void *a, const void *b)
{
    const ex_msg *x = a, *y = b;
    if (x->src != y->src)
        return x->src < y->src ? -1 : 1;
    return x->dst < y->dst ? -1 : x->dst > y->dst;
}

/* Components of the message graph; true when each is a complete exchange. */
static bool complete_groups(const ex_msgs *m, int p, int *parent, int *members, int *count,
                            double *bytes)
{
    for (int r = 0; r < p; r++)
        parent[r] = r, members[r] = count[r] = 0, bytes[r] = 0;
    for (int i = 0; i < m->n; i++)
        parent[find(parent, m->m[i].src)] = find(parent, m->m[i].dst);
    for (int i = 0; i < m->n; i++) {
        int root = find(parent, m->m[i].src);
        count[root]++;
        bytes[root] += m->m[i].bytes;
    }
    char *seen = calloc((size_t)p, 1);
    if (!seen)
        return false;
    for (int i = 0; i < m->n; i++)
        for (int e = 0; e < 2; e++) {
            int r = e ? m->m[i].dst : m->m[i].src;
            if (!seen[r])
                seen[r] = 1, members[find(parent, r)]++;
        }
    free(seen);
    for (int r = 0; r < p; r++)
        if (members[r] > 0 && count[r] != members[r] * (members[r] - 1))
            return false;
    return true;
}

/* Ranks taking part, ordered by component then rank. */
typedef struct {
    int root, rank;
} member;

static int by_member(const void *a, const void *b)
{
    const member *x = a, *y = b;
    if (x->root != y->root)
        return x->root < y->root ? -1 : 1;
    return x->rank < y->rank ? -1 : x->rank > y->rank;
}

/* One allgather per component, of the mean piece. */
static int as_gather(int p, int *parent, const double *bytes, ex_groups *gs, tg_graph *g,
                     ex_moves *mv)
{
    member *all = malloc((size_t)p * sizeof *all);
    int *ranks = malloc((size_t)p * sizeof *ranks), n_all = 0;
    if (!all || !ranks) {
        free(all), free(ranks);
        return -1;
    }
    for (int r = 0; r < p; r++)
        if (mv->group[r] == -2)
            all[n_all++] = (member){find(parent, r), r};
    qsort(all, (size_t)n_all, sizeof *all, by_member);
    int rc = 0;
    for (int i = 0; rc == 0 && i < n_all;) {
        int n = 0, root = all[i].root;
        while (i < n_all && all[i].root == root)
            ranks[n++] = all[i++].rank;
        int gi = ex__group(gs, g, ranks, n);
        rc = gi < 0 ? -1 : 0;
        for (int k = 0; k < n && gi >= 0; k++) {
            mv->group[ranks[k]] = gi;
            mv->size[ranks[k]] = n;
            mv->piece[ranks[k]] = bytes[root] / ((double)n * (n - 1));
        }
    }
    free(all), free(ranks);
    return rc;
}

static int as_rounds(const ex_msgs *m, int p, ex_moves *mv)
{
    mv->kind = EX_MOVE_ROUNDS;
    mv->msgs.m = malloc((size_t)m->n * sizeof *m->m);
    mv->ranks = malloc((size_t)p * sizeof *mv->ranks);
    if (!mv->msgs.m || !mv->ranks)
        return -1;
    memcpy(mv->msgs.m, m->m, (size_t)m->n * sizeof *m->m);
    mv->msgs.n = m->n;
    mv->msgs.cap = (size_t)m->n;
    qsort(mv->msgs.m, (size_t)m->n, sizeof *m->m, by_pair);
    for (int r = 0; r < p; r++)
        if (mv->group[r] == -2)
            mv->ranks[mv->n_ranks++] = r;
    return 0;
}

int ex__moves_of(const ex_msgs *m, int p, ex_groups *gs, tg_graph *g, ex_moves *mv)
{
    memset(mv, 0, sizeof *mv);
    if (m->n == 0)
        return 0;
    mv->group = malloc((size_t)p * sizeof *mv->group);
    mv->piece = calloc((size_t)p, sizeof *mv->piece);
    mv->size = calloc((size_t)p, sizeof *mv->size);
    int *parent = malloc((size_t)p * sizeof *parent), *members = malloc((size_t)p * sizeof(int));
    int *count = malloc((size_t)p * sizeof *count);
    double *bytes = malloc((size_t)p * sizeof *bytes);
    int rc = -1;
    if (mv->group && mv->piece && mv->size && parent && members && count && bytes) {
        for (int r = 0; r < p; r++)
            mv->group[r] = -1;
        for (int i = 0; i < m->n; i++) /* -2: takes part, group not known yet */
            mv->group[m->m[i].src] = mv->group[m->m[i].dst] = -2;
        if (complete_groups(m, p, parent, members, count, bytes)) {
            mv->kind = EX_MOVE_GATHER;
            rc = as_gather(p, parent, bytes, gs, g, mv);
        } else {
            rc = as_rounds(m, p, mv);
        }
    }
    free(parent), free(members), free(count), free(bytes);
    return rc;
}

void ex__moves_free(ex_moves *mv)
{
    free(mv->group), free(mv->piece), free(mv->size), free(mv->msgs.m), free(mv->ranks);
    memset(mv, 0, sizeof *mv);
}

/* ------------------------------------------------------------------ rounds */

static double bytes_between(const ex_moves *mv, int src, int dst)
{
    ex_msg key = {src, dst, 0};
    const ex_msg *hit = bsearch(&key, mv->msgs.m, (size_t)mv->msgs.n, sizeof key, by_pair);
    return hit ? hit->bytes : 0.0;
}

static int position(const ex_moves *mv, int r)
{
    int lo = 0, hi = mv->n_ranks - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        if (mv->ranks[mid] == r)
            return mid;
        if (mv->ranks[mid] < r)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return -1;
}

void ex__round(const ex_moves *mv, int r, int k, bool reverse, int *to, double *send,
               int *from, double *recv)
{
    int pos = position(mv, r), n = mv->n_ranks;
    *to = *from = -1;
    *send = *recv = 0;
    if (pos < 0 || n < 2)
        return;
    int t = mv->ranks[(pos + k) % n], f = mv->ranks[(pos - k % n + n) % n];
    *send = reverse ? bytes_between(mv, t, r) : bytes_between(mv, r, t);
    *recv = reverse ? bytes_between(mv, r, f) : bytes_between(mv, f, r);
    if (*send > 0)
        *to = t;
    if (*recv > 0)
        *from = f;
}
