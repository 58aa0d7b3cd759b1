/* engine_comm.c: communication tasks as point-to-point SimGrid messages (engine.h).
 *
 * Every message goes through the rendezvous mailbox of its ordered (source, destination) rank
 * pair, so the messages of one pair match in program order whatever else is in flight. The
 * mailboxes are created before the simulation starts and kept in a hash table, so a message
 * costs a probe, not a formatted name.
 *
 * Collectives are rings: in a step a member sends a chunk to its right neighbour and receives
 * one from its left, both posted at once so they overlap. Allreduce = reduce-scatter (n-1 steps
 * of m/n) + allgather (n-1 steps of m/n); allgather of m per member = n-1 steps of m;
 * reduce-scatter = n-1 steps of m/n. The hierarchical allreduce is a reduce-scatter inside each
 * node, an allreduce of m/k across nodes among the members of equal local index, and an
 * allgather inside the node.
 *
 * ENG_STEP posts every step. ENG_FLOW posts one message per ring edge carrying all its steps'
 * bytes, after sleeping for the latencies of the steps it stands for, then the ring's members
 * meet at a barrier: a real ring advances in lockstep, so nobody is done before the slowest edge.
 * On a free network both give steps * (latency + chunk / bandwidth) of the slowest edge. */
#include "engine_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <simgrid/actor.h>

/* ---- mailboxes ---------------------------------------------------------------------------- */

static uint64_t pair_key(const eng_sim *s, int src, int dst)
{
    return (uint64_t)src * (uint64_t)s->g->n_ranks + (uint64_t)dst + 1;
}

static size_t key_slot(uint64_t key, size_t cap)
{
    /* Fibonacci hashing: neighbouring pairs spread over the table. */
    return (size_t)((key * UINT64_C(0x9E3779B97F4A7C15)) >> 20) & (cap - 1);
}

static sg_mailbox_t mailbox_by_pair(int src, int dst)
{
    char name[32];
    snprintf(name, sizeof name, "%d>%d", src, dst);
    return sg_mailbox_by_name(name);
}

static int mbox_grow(eng_mbox_table *t)
{
    size_t cap = t->cap ? 2 * t->cap : 256;
    uint64_t *keys = calloc(cap, sizeof *keys);
    sg_mailbox_t *boxes = calloc(cap, sizeof *boxes);
    if (!keys || !boxes) {
        free(keys);
        free(boxes);
        return -1;
    }
    for (size_t i = 0; i < t->cap; i++) {
        if (!t->keys[i])
            continue;
        size_t j = key_slot(t->keys[i], cap);
        while (keys[j])
            j = (j + 1) & (cap - 1);
        keys[j] = t->keys[i];
        boxes[j] = t->boxes[i];
    }
    free(t->keys);
    free(t->boxes);
    t->keys = keys;
    t->boxes = boxes;
    t->cap = cap;
    return 0;
}

/* Make sure the pair has a mailbox (before the simulation). */
static int mbox_add(eng_sim *s, int src, int dst)
{
    eng_mbox_table *t = &s->mbox;
    if (2 * (t->used + 1) > t->cap && mbox_grow(t) != 0)
        return -1;
    uint64_t key = pair_key(s, src, dst);
    size_t j = key_slot(key, t->cap);
    while (t->keys[j] && t->keys[j] != key)
        j = (j + 1) & (t->cap - 1);
    if (!t->keys[j]) {
        t->keys[j] = key;
        t->boxes[j] = mailbox_by_pair(src, dst);
        t->used++;
    }
    return 0;
}

static sg_mailbox_t mbox(const eng_sim *s, int src, int dst)
{
    const eng_mbox_table *t = &s->mbox;
    if (t->cap) {
        uint64_t key = pair_key(s, src, dst);
        for (size_t j = key_slot(key, t->cap); t->keys[j]; j = (j + 1) & (t->cap - 1))
            if (t->keys[j] == key)
                return t->boxes[j];
    }
    return mailbox_by_pair(src, dst); /* not foreseen by eng_comm_prepare: still correct */
}

/* ---- rings -------------------------------------------------------------------------------- */

/* A ring as a strided view of a rank array: member i is base[i * stride]. */
typedef struct {
    const int *base;
    int n;              /* members */
    int stride;
    int pos;            /* the calling rank's position */
    sg_bar_t bar;       /* flow mode: the members' barrier */
} ring_view;

static int ring_member(ring_view v, int i)
{
    return v.base[(size_t)(((i % v.n) + v.n) % v.n) * (size_t)v.stride];
}

/* Chunk sizes are whole bytes: SimGrid sizes messages in bytes. */
static long chunk_bytes(double bytes)
{
    return bytes > 0 ? (long)llround(bytes) : 0;
}

static sg_comm_t post_send(eng_sim *s, int src, int dst, long bytes)
{
    s->messages++;
    s->bytes_sent += (double)bytes;
    /* SimGrid refuses a NULL payload; the receiver ignores it anyway. */
    return sg_mailbox_put_async(mbox(s, src, dst), s, bytes);
}

/* `steps` ring steps of `chunk` bytes each, at the engine's fidelity. */
static void ring_steps(eng_sim *s, ring_view v, int steps, long chunk)
{
    if (v.n < 2 || steps < 1)
        return;
    int me = ring_member(v, v.pos), right = ring_member(v, v.pos + 1);
    sg_mailbox_t in = mbox(s, ring_member(v, v.pos - 1), me);
    void *payload; /* the messages carry no data; SimGrid still wants somewhere to put it */
    sg_comm_t c[2];
    if (s->opt.fidelity == ENG_STEP) {
        for (int k = 0; k < steps; k++) {
            c[0] = sg_mailbox_get_async(in, &payload);
            c[1] = post_send(s, me, right, chunk);
            sg_comm_wait_all(c, 2);
        }
        return;
    }
    /* The receive is posted before the sleep so that the left neighbour's flow starts as soon
     * as that neighbour is ready, not when this member is. */
    double latency_s, bw_Bps;
    plat_route(s->plat, s->gpu_of_rank[me], s->gpu_of_rank[right], &latency_s, &bw_Bps);
    c[0] = sg_mailbox_get_async(in, &payload);
    if (steps > 1 && latency_s > 0)
        sg_actor_sleep_for((steps - 1) * latency_s);
    c[1] = post_send(s, me, right, (long)steps * chunk);
    sg_comm_wait_all(c, 2);
    if (v.bar) /* eng_comm_prepare gives every flow-mode ring of two or more one */
        sg_barrier_wait(v.bar);
}

static ring_view group_ring(const eng_sim *s, int group, int pos)
{
    const tg_group *gr = &s->g->groups[group];
    return (ring_view){gr->ranks, gr->n, 1, pos, s->ring_bar ? s->ring_bar[group] : NULL};
}

static ring_view intra_ring(const eng_hier *h, int pos, sg_bar_t *bars)
{
    int c = h->node_of[pos];
    return (ring_view){h->by_node + (size_t)c * h->per_node, h->per_node, 1, h->local_of[pos],
                       bars ? bars[c] : NULL};
}

static ring_view inter_ring(const eng_hier *h, int pos, sg_bar_t *bars)
{
    int j = h->local_of[pos];
    return (ring_view){h->by_node + j, h->n_nodes, h->per_node, h->node_of[pos],
                       bars ? bars[j] : NULL};
}

static void hier_allreduce(eng_sim *s, const eng_hier *h, int pos, double bytes)
{
    int k = h->per_node, nodes = h->n_nodes;
    long intra_chunk = chunk_bytes(bytes / k);
    ring_steps(s, intra_ring(h, pos, h->intra_bar), k - 1, intra_chunk);
    ring_steps(s, inter_ring(h, pos, h->inter_bar), 2 * (nodes - 1),
               chunk_bytes(bytes / k / nodes));
    ring_steps(s, intra_ring(h, pos, h->intra_bar), k - 1, intra_chunk);
}

static void exchange(eng_sim *s, int rank, const tg_group *peers, double bytes)
{
    sg_comm_t *c = s->rs[rank].scratch;
    void *payload;
    long b = chunk_bytes(bytes);
    for (int i = 0; i < peers->n; i++)
        c[i] = sg_mailbox_get_async(mbox(s, peers->ranks[i], rank), &payload);
    for (int i = 0; i < peers->n; i++)
        c[peers->n + i] = post_send(s, rank, peers->ranks[i], b);
    sg_comm_wait_all(c, 2 * (size_t)peers->n);
}

void eng_comm_run(eng_sim *s, int rank, const tg_task *t)
{
    void *payload;
    switch ((tg_op)t->op) {
    case TG_SEND:
        sg_comm_wait(post_send(s, rank, t->peer, chunk_bytes(t->amount)));
        return;
    case TG_RECV:
        sg_comm_wait(sg_mailbox_get_async(mbox(s, t->peer, rank), &payload));
        return;
    case TG_EXCHANGE:
        exchange(s, rank, &s->g->groups[t->peer], t->amount);
        return;
    default:
        break;
    }
    int pos = eng_group_pos(s, rank, t->peer);
    int n = s->g->groups[t->peer].n;
    ring_view v = group_ring(s, t->peer, pos);
    switch ((tg_op)t->op) {
    case TG_ALLREDUCE:
        if (t->algo == TG_ALGO_HIER)
            hier_allreduce(s, s->hier[t->peer], pos, t->amount);
        else
            ring_steps(s, v, 2 * (n - 1), chunk_bytes(t->amount / n));
        return;
    case TG_ALLGATHER:
        ring_steps(s, v, n - 1, chunk_bytes(t->amount));
        return;
    case TG_REDUCE_SCATTER:
        ring_steps(s, v, n - 1, chunk_bytes(t->amount / n));
        return;
    default:
        return; /* TG_EXEC never reaches here; the op was validated */
    }
}

/* ---- preparation (before the simulation) -------------------------------------------------- */

int eng_group_pos(const eng_sim *s, int rank, int group)
{
    int lo = s->member_start[rank], end = s->member_start[rank + 1], hi = end;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (s->member_group[mid] < group)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < end && s->member_group[lo] == group ? s->member_pos[lo] : -1;
}

/* Index every rank's groups (CSR by rank, groups increasing); flag groups naming a rank twice. */
static int build_member_index(eng_sim *s, uint8_t *dup, char *err)
{
    const tg_graph *g = s->g;
    int n_ranks = g->n_ranks;
    s->member_start = calloc((size_t)n_ranks + 1, sizeof *s->member_start);
    if (!s->member_start)
        return hs_fail(err, HS_EINTERNAL, "out of memory indexing %d groups", g->n_groups);
    for (int gi = 0; gi < g->n_groups; gi++) {
        const tg_group *gr = &g->groups[gi];
        for (int i = 0; i < gr->n; i++) {
            int r = gr->ranks[i];
            if (r < 0 || r >= n_ranks)
                return hs_fail(err, HS_EINTERNAL,
                               "task graph: group %d member %d is rank %d, not in 0..%d", gi, i, r,
                               n_ranks - 1);
            s->member_start[r + 1]++;
        }
    }
    for (int r = 0; r < n_ranks; r++)
        s->member_start[r + 1] += s->member_start[r];
    size_t total = (size_t)s->member_start[n_ranks];
    int *cursor = malloc((size_t)n_ranks * sizeof *cursor);
    s->member_group = malloc((total ? total : 1) * sizeof *s->member_group);
    s->member_pos = malloc((total ? total : 1) * sizeof *s->member_pos);
    if (!cursor || !s->member_group || !s->member_pos) {
        free(cursor);
        return hs_fail(err, HS_EINTERNAL, "out of memory indexing %d groups", g->n_groups);
    }
    memcpy(cursor, s->member_start, (size_t)n_ranks * sizeof *cursor);
    for (int gi = 0; gi < g->n_groups; gi++) {
        const tg_group *gr = &g->groups[gi];
        for (int i = 0; i < gr->n; i++) {
            int r = gr->ranks[i], at = cursor[r]++;
            if (at > s->member_start[r] && s->member_group[at - 1] == gi)
                dup[gi] = 1;
            s->member_group[at] = gi;
            s->member_pos[at] = i;
        }
    }
    free(cursor);
    return HS_OK;
}

static void hier_free(eng_hier *h)
{
    if (!h)
        return;
    for (int c = 0; h->intra_bar && c < h->n_nodes; c++)
        if (h->intra_bar[c])
            sg_barrier_destroy(h->intra_bar[c]);
    for (int j = 0; h->inter_bar && j < h->per_node; j++)
        if (h->inter_bar[j])
            sg_barrier_destroy(h->inter_bar[j]);
    free(h->intra_bar);
    free(h->inter_bar);
    free(h->by_node);
    free(h->node_of);
    free(h->local_of);
    free(h);
}

/* Lay group gi out by node for the hierarchical allreduce: nodes in order of first appearance,
 * members of a node in group order. Every node must hold the same number of members, or the
 * inter-node rings would not line up. */
static int build_hier(eng_sim *s, int gi, char *err)
{
    const tg_group *gr = &s->g->groups[gi];
    int gpn = s->plat->gpus_per_node > 0 ? s->plat->gpus_per_node : 1;
    int n_plat_nodes = (s->plat->n_gpus + gpn - 1) / gpn;
    int *slot_of_node = malloc((size_t)n_plat_nodes * sizeof *slot_of_node);
    int *count = calloc((size_t)gr->n, sizeof *count);
    eng_hier *h = calloc(1, sizeof *h);
    if (h) {
        h->node_of = malloc((size_t)gr->n * sizeof *h->node_of);
        h->local_of = malloc((size_t)gr->n * sizeof *h->local_of);
        h->by_node = malloc((size_t)gr->n * sizeof *h->by_node);
    }
    int status = HS_OK;
    if (!slot_of_node || !count || !h || !h->node_of || !h->local_of || !h->by_node) {
        status = hs_fail(err, HS_EINTERNAL, "out of memory laying out group %d", gi);
        goto done;
    }
    for (int i = 0; i < n_plat_nodes; i++)
        slot_of_node[i] = -1;
    for (int i = 0; i < gr->n; i++) {
        int node = s->gpu_of_rank[gr->ranks[i]] / gpn;
        if (slot_of_node[node] < 0)
            slot_of_node[node] = h->n_nodes++;
        h->node_of[i] = slot_of_node[node];
        h->local_of[i] = count[h->node_of[i]]++;
    }
    h->per_node = count[0];
    for (int c = 1; c < h->n_nodes; c++)
        if (count[c] != h->per_node) {
            status = hs_fail(err, HS_EINPUT,
                             "group %d (%d ranks) has %d members on one node and %d on another: a "
                             "hierarchical allreduce needs the same number on every node",
                             gi, gr->n, h->per_node, count[c]);
            goto done;
        }
    for (int i = 0; i < gr->n; i++)
        h->by_node[(size_t)h->node_of[i] * h->per_node + h->local_of[i]] = gr->ranks[i];
    if (s->opt.fidelity == ENG_FLOW) {
        h->intra_bar = calloc((size_t)h->n_nodes, sizeof *h->intra_bar);
        h->inter_bar = calloc((size_t)h->per_node, sizeof *h->inter_bar);
        if (!h->intra_bar || !h->inter_bar) {
            status = hs_fail(err, HS_EINTERNAL, "out of memory laying out group %d", gi);
            goto done;
        }
        for (int c = 0; c < h->n_nodes && h->per_node > 1; c++)
            h->intra_bar[c] = sg_barrier_init((unsigned)h->per_node);
        for (int j = 0; j < h->per_node && h->n_nodes > 1; j++)
            h->inter_bar[j] = sg_barrier_init((unsigned)h->n_nodes);
    }
done:
    free(slot_of_node);
    free(count);
    if (status == HS_OK)
        s->hier[gi] = h;
    else
        hier_free(h);
    return status;
}

static int ring_register(eng_sim *s, ring_view v)
{
    if (v.n < 2)
        return 0;
    int me = ring_member(v, v.pos);
    return mbox_add(s, me, ring_member(v, v.pos + 1)) | mbox_add(s, ring_member(v, v.pos - 1), me);
}

/* Check one communication task and register what it needs: mailboxes, layouts, barriers. */
static int prepare_task(eng_sim *s, int r, int i, const uint8_t *dup, uint8_t *ring_used,
                        int *max_peers, char *err)
{
    const tg_graph *g = s->g;
    const tg_task *t = &g->ranks[r].tasks[i];
    const char *what = tg_op_name((tg_op)t->op);
    int oom = 0;
    if (t->op == TG_SEND || t->op == TG_RECV) {
        if (t->peer < 0 || t->peer >= g->n_ranks || t->peer == r)
            return hs_fail(err, HS_EINTERNAL, "task graph: rank %d task %d (%s): peer %d is not "
                           "another rank of 0..%d", r, i, what, t->peer, g->n_ranks - 1);
        oom = t->op == TG_SEND ? mbox_add(s, r, t->peer) : mbox_add(s, t->peer, r);
        return oom ? hs_fail(err, HS_EINTERNAL, "out of memory for mailboxes") : HS_OK;
    }
    if (t->peer < 0 || t->peer >= g->n_groups)
        return hs_fail(err, HS_EINTERNAL, "task graph: rank %d task %d (%s): group %d does not "
                       "exist (%d groups)", r, i, what, t->peer, g->n_groups);
    const tg_group *gr = &g->groups[t->peer];
    if (t->op == TG_EXCHANGE) {
        for (int k = 0; k < gr->n; k++) {
            int p = gr->ranks[k];
            if (p == r)
                return hs_fail(err, HS_EINTERNAL, "task graph: rank %d task %d (exchange): group "
                               "%d lists the rank among its own peers", r, i, t->peer);
            oom |= mbox_add(s, r, p) | mbox_add(s, p, r);
        }
        if (gr->n > *max_peers)
            *max_peers = gr->n;
        return oom ? hs_fail(err, HS_EINTERNAL, "out of memory for mailboxes") : HS_OK;
    }
    int pos = eng_group_pos(s, r, t->peer);
    if (pos < 0)
        return hs_fail(err, HS_EINTERNAL, "task graph: rank %d task %d (%s): the rank is not a "
                       "member of group %d", r, i, what, t->peer);
    if (dup[t->peer])
        return hs_fail(err, HS_EINTERNAL, "task graph: rank %d task %d (%s): group %d lists a "
                       "rank twice", r, i, what, t->peer);
    if (t->algo >= TG_ALGO_COUNT || (t->algo == TG_ALGO_HIER && t->op != TG_ALLREDUCE))
        return hs_fail(err, HS_EINTERNAL, "task graph: rank %d task %d (%s): algorithm %d is not "
                       "available for this collective", r, i, what, t->algo);
    if (t->algo == TG_ALGO_HIER) {
        if (!s->hier[t->peer]) {
            int status = build_hier(s, t->peer, err);
            if (status != HS_OK)
                return status;
        }
        const eng_hier *h = s->hier[t->peer];
        oom = ring_register(s, intra_ring(h, pos, NULL)) | ring_register(s, inter_ring(h, pos, NULL));
    } else {
        ring_used[t->peer] = 1;
        oom = ring_register(s, group_ring(s, t->peer, pos));
    }
    return oom ? hs_fail(err, HS_EINTERNAL, "out of memory for mailboxes") : HS_OK;
}

int eng_comm_prepare(eng_sim *s, char *err)
{
    const tg_graph *g = s->g;
    size_t n_groups = (size_t)g->n_groups;
    uint8_t *dup = calloc(n_groups + 1, 1), *ring_used = calloc(n_groups + 1, 1);
    s->hier = calloc(n_groups + 1, sizeof *s->hier);
    int status = HS_OK;
    if (!dup || !ring_used || !s->hier) {
        status = hs_fail(err, HS_EINTERNAL, "out of memory preparing %d groups", g->n_groups);
        goto done;
    }
    status = build_member_index(s, dup, err);
    for (int r = 0; r < g->n_ranks && status == HS_OK; r++) {
        int max_peers = 0;
        for (int i = 0; i < g->ranks[r].n_tasks && status == HS_OK; i++)
            if (tg_stream(&g->ranks[r].tasks[i]) == 1)
                status = prepare_task(s, r, i, dup, ring_used, &max_peers, err);
        if (status == HS_OK && max_peers > 0) {
            s->rs[r].scratch = malloc(2 * (size_t)max_peers * sizeof *s->rs[r].scratch);
            if (!s->rs[r].scratch)
                status = hs_fail(err, HS_EINTERNAL, "out of memory for rank %d's exchanges", r);
        }
    }
    if (status == HS_OK && s->opt.fidelity == ENG_FLOW) {
        s->ring_bar = calloc(n_groups + 1, sizeof *s->ring_bar);
        if (!s->ring_bar)
            status = hs_fail(err, HS_EINTERNAL, "out of memory for barriers");
        for (size_t gi = 0; status == HS_OK && gi < n_groups; gi++)
            if (ring_used[gi] && g->groups[gi].n > 1)
                s->ring_bar[gi] = sg_barrier_init((unsigned)g->groups[gi].n);
    }
done:
    free(dup);
    free(ring_used);
    return status;
}

void eng_comm_release(eng_sim *s)
{
    const tg_graph *g = s->g;
    for (int gi = 0; s->hier && gi < g->n_groups; gi++)
        hier_free(s->hier[gi]);
    for (int gi = 0; s->ring_bar && gi < g->n_groups; gi++)
        if (s->ring_bar[gi])
            sg_barrier_destroy(s->ring_bar[gi]);
    for (int r = 0; s->rs && r < g->n_ranks; r++)
        free(s->rs[r].scratch);
    free(s->hier);
    free(s->ring_bar);
    free(s->member_start);
    free(s->member_group);
    free(s->member_pos);
    free(s->mbox.keys);
    free(s->mbox.boxes);
    s->hier = NULL;
    s->ring_bar = NULL;
    s->member_start = s->member_group = s->member_pos = NULL;
    s->mbox = (eng_mbox_table){0};
}
