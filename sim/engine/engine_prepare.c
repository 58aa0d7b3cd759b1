/* engine_prepare.c: what the communication tasks need before the simulation starts
 * (engine_int.h's eng_comm_prepare, eng_comm_release): every task checked, the groups'
 * member index, the hierarchical layouts, the mailboxes of every pair a message will cross,
 * the flow-mode barriers, the host memory of staged messages; then the rings flow mode runs
 * step by step (engine_exposed.c) and the private edges (engine_private.c). Running the tasks
 * is engine_comm.c's. */
#include "engine_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <simgrid/host.h>

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
    if (h->tree_bar)
        sg_barrier_destroy(h->tree_bar);
    if (h->rings_bar)
        sg_barrier_destroy(h->rings_bar);
    free(h->intra_bar);
    free(h->inter_bar);
    free(h->by_node);
    free(h->node_of);
    free(h->local_of);
    free(h);
}

/* Flow mode's barriers of a hierarchy: the members of each node, and the ranks of each local
 * index across the nodes (none for a single member). false when out of memory. */
static bool hier_barriers(eng_hier *h)
{
    h->intra_bar = calloc((size_t)h->n_nodes, sizeof *h->intra_bar);
    h->inter_bar = calloc((size_t)h->per_node, sizeof *h->inter_bar);
    if (!h->intra_bar || !h->inter_bar)
        return false;
    for (int c = 0; c < h->n_nodes && h->per_node > 1; c++)
        h->intra_bar[c] = sg_barrier_init((unsigned)h->per_node);
    for (int j = 0; j < h->per_node && h->n_nodes > 1; j++)
        h->inter_bar[j] = sg_barrier_init((unsigned)h->n_nodes);
    return true;
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
                             "group %d (%d ranks) has %d members on one node and %d on another: "
                             "--allreduce hier, tree and rings need the same number on every "
                             "node",
                             gi, gr->n, h->per_node, count[c]);
            goto done;
        }
    for (int i = 0; i < gr->n; i++)
        h->by_node[(size_t)h->node_of[i] * h->per_node + h->local_of[i]] = gr->ranks[i];
    h->rings = eng_rings_count(s, h);
    if (s->opt.fidelity == ENG_FLOW && !hier_barriers(h))
        status = hs_fail(err, HS_EINTERNAL, "out of memory laying out group %d", gi);
done:
    free(slot_of_node);
    free(count);
    if (status == HS_OK)
        s->hier[gi] = h;
    else
        hier_free(h);
    return status;
}

/* The mailboxes a message from src to dst uses: its pair's, and the relay's if it is. */
static int send_register(eng_sim *s, int src, int dst, bool staged)
{
    int oom = eng_mbox_add(s, src, dst, 0);
    if (staged && eng_relayed(s, src, dst))
        oom |= eng_mbox_add(s, src, dst, 1);
    return oom;
}

static int ring_register(eng_sim *s, eng_ring v, bool staged)
{
    if (v.n < 2)
        return 0;
    int me = eng_ring_member(v, v.pos);
    return send_register(s, me, eng_ring_member(v, v.pos + 1), staged) |
           eng_mbox_add(s, eng_ring_member(v, v.pos - 1), me, 0);
}

/* Give every rank its node's host memory if some task is staged. */
static int build_host_mem(eng_sim *s, char *err)
{
    const tg_graph *g = s->g;
    bool staged = false;
    for (int r = 0; r < g->n_ranks && !staged; r++)
        for (int i = 0; i < g->ranks[r].n_tasks && !staged; i++)
            staged = (g->ranks[r].tasks[i].flags & TG_FLAG_STAGED) != 0;
    if (!staged)
        return HS_OK;
    s->host_mem = calloc((size_t)g->n_ranks, sizeof *s->host_mem);
    s->relay_idle = calloc((size_t)g->n_ranks, sizeof *s->relay_idle);
    if (!s->host_mem || !s->relay_idle)
        return hs_fail(err, HS_EINTERNAL, "out of memory for %d ranks' host memory", g->n_ranks);
    for (int r = 0; r < g->n_ranks; r++)
        s->host_mem[r] = plat_host_memory(s->plat, s->gpu_of_rank[r]);
    return HS_OK;
}

/* The mailbox registrations failed: the only way they fail is memory. */
static int mailbox_status(int oom, char *err)
{
    return oom ? hs_fail(err, HS_EINTERNAL, "out of memory for mailboxes") : HS_OK;
}

/* A send or receive task i of rank r: its peer must be another rank; one mailbox. */
static int prepare_p2p(eng_sim *s, int r, int i, const tg_task *t, int peer, char *err)
{
    const tg_graph *g = s->g;
    if (peer < 0 || peer >= g->n_ranks || peer == r)
        return hs_fail(err, HS_EINTERNAL, "task graph: rank %d task %d (%s): peer %d is not "
                       "another rank of 0..%d", r, i, tg_op_name((tg_op)t->op), peer,
                       g->n_ranks - 1);
    bool staged = (t->flags & TG_FLAG_STAGED) != 0;
    return mailbox_status(t->op == TG_SEND ? send_register(s, r, peer, staged)
                                           : eng_mbox_add(s, peer, r, 0), err);
}

/* A shift or exchange task i of rank r on group `peer`: the group lists the OTHER ranks it
 * talks to, one mailbox each way; an exchange's peers count for max_peers (its relays). */
static int prepare_peers(eng_sim *s, int r, int i, const tg_task *t, int peer, int *max_peers,
                         char *err)
{
    const tg_group *gr = &s->g->groups[peer];
    bool staged = (t->flags & TG_FLAG_STAGED) != 0;
    if (t->op == TG_SHIFT) {
        if (gr->n != 2 || gr->ranks[0] == r || gr->ranks[1] == r)
            return hs_fail(err, HS_EINTERNAL, "task graph: rank %d task %d (shift): group %d is "
                           "not {send peer, receive peer} of two other ranks", r, i, peer);
        return mailbox_status(send_register(s, r, gr->ranks[0], staged) |
                              eng_mbox_add(s, gr->ranks[1], r, 0), err);
    }
    int oom = 0;
    for (int k = 0; k < gr->n; k++) {
        int p = gr->ranks[k];
        if (p == r)
            return hs_fail(err, HS_EINTERNAL, "task graph: rank %d task %d (exchange): group "
                           "%d lists the rank among its own peers", r, i, peer);
        oom |= send_register(s, r, p, staged) | eng_mbox_add(s, p, r, 0);
    }
    if (gr->n > *max_peers)
        *max_peers = gr->n;
    return mailbox_status(oom, err);
}

/* A collective task i of rank r on group `peer`: the rank a member, the algorithm one the
 * engine has for it, then the rings, trees and layouts the algorithm (or NCCL's choice
 * among them) will use. */
static int prepare_collective(eng_sim *s, int r, int i, const tg_task *t, int peer,
                              const uint8_t *dup, uint8_t *ring_used, char *err)
{
    const char *what = tg_op_name((tg_op)t->op);
    bool staged = (t->flags & TG_FLAG_STAGED) != 0;
    int pos = eng_group_pos(s, r, peer);
    if (pos < 0)
        return hs_fail(err, HS_EINTERNAL, "task graph: rank %d task %d (%s): the rank is not a "
                       "member of group %d", r, i, what, peer);
    if (dup[peer])
        return hs_fail(err, HS_EINTERNAL, "task graph: rank %d task %d (%s): group %d lists a "
                       "rank twice", r, i, what, peer);
    if (t->algo >= TG_ALGO_COUNT || (t->algo != TG_ALGO_RING && t->op != TG_ALLREDUCE) ||
        (t->algo >= TG_ALGO_TREE && staged))
        return hs_fail(err, HS_EINTERNAL, "task graph: rank %d task %d (%s): algorithm %d is not "
                       "available for this collective", r, i, what, t->algo);
    if (t->algo != TG_ALGO_RING && !s->hier[peer]) {
        int status = build_hier(s, peer, err);
        if (status != HS_OK && !(status == HS_EINPUT && t->algo == TG_ALGO_AUTO))
            return status; /* an uneven group: NCCL's choice is then the ring */
    }
    eng_hier *h = s->hier[peer];
    int oom = 0;
    /* the group's own ring: the ring's, NCCL's choice's when it may be the ring, and the
     * rings' when they are one */
    if (t->algo == TG_ALGO_RING || (t->algo == TG_ALGO_AUTO && (!h || h->rings < 2)) ||
        (t->algo == TG_ALGO_RINGS && h->rings < 2)) {
        ring_used[peer] = 1;
        oom = ring_register(s, eng_group_ring(s, peer, pos), staged);
    }
    if (t->algo == TG_ALGO_HIER)
        oom |= ring_register(s, eng_intra_ring(h, pos, NULL), staged) |
               ring_register(s, eng_inter_ring(h, pos, NULL), staged);
    if ((t->algo == TG_ALGO_TREE || t->algo == TG_ALGO_AUTO) && h &&
        eng_tree_prepare(s, h, pos, err) != HS_OK)
        return HS_EINTERNAL;
    if ((t->algo == TG_ALGO_RINGS || t->algo == TG_ALGO_AUTO) && h && h->rings > 1 &&
        eng_rings_prepare(s, h, pos, err) != HS_OK)
        return HS_EINTERNAL;
    return mailbox_status(oom, err);
}

/* Check one communication task and register what it needs: mailboxes, layouts, barriers. */
static int prepare_task(eng_sim *s, int r, int i, const uint8_t *dup, uint8_t *ring_used,
                        int *max_peers, char *err)
{
    const tg_graph *g = s->g;
    const tg_task *t = &g->ranks[r].tasks[i];
    int peer = tg_peer(g, r, t); /* a rank or a group */
    if (t->op == TG_SEND || t->op == TG_RECV)
        return prepare_p2p(s, r, i, t, peer, err);
    if (peer < 0 || peer >= g->n_groups)
        return hs_fail(err, HS_EINTERNAL, "task graph: rank %d task %d (%s): group %d does not "
                       "exist (%d groups)", r, i, tg_op_name((tg_op)t->op), peer, g->n_groups);
    if (t->op == TG_SHIFT || t->op == TG_EXCHANGE)
        return prepare_peers(s, r, i, t, peer, max_peers, err);
    return prepare_collective(s, r, i, t, peer, dup, ring_used, err);
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
    if (status == HS_OK)
        status = build_host_mem(s, err);
    for (int r = 0; r < g->n_ranks && status == HS_OK; r++) {
        int max_peers = 0;
        for (int i = 0; i < g->ranks[r].n_tasks && status == HS_OK; i++)
            if (tg_stream(&g->ranks[r].tasks[i]) == 1)
                status = prepare_task(s, r, i, dup, ring_used, &max_peers, err);
        if (status == HS_OK && max_peers > 0) {
            s->rs[r].scratch = malloc(2 * (size_t)max_peers * sizeof *s->rs[r].scratch);
            s->rs[r].payloads = malloc((size_t)max_peers * sizeof *s->rs[r].payloads);
            if (!s->rs[r].scratch || !s->rs[r].payloads)
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
    if (status == HS_OK)
        status = eng_exposed_prepare(s, ring_used, err);
    for (size_t gi = 0; status == HS_OK && s->ring_exposed && gi < n_groups; gi++)
        if (s->hier[gi])
            s->hier[gi]->exposed = s->ring_exposed[gi];
    if (status == HS_OK)
        status = eng_private_prepare(s, err);
done:
    free(dup);
    free(ring_used);
    return status;
}

void eng_comm_release(eng_sim *s)
{
    const tg_graph *g = s->g;
    eng_private_release(s); /* first: it frees what the layouts point to */
    for (int gi = 0; s->hier && gi < g->n_groups; gi++)
        hier_free(s->hier[gi]);
    for (int gi = 0; s->ring_bar && gi < g->n_groups; gi++)
        if (s->ring_bar[gi])
            sg_barrier_destroy(s->ring_bar[gi]);
    for (int r = 0; s->rs && r < g->n_ranks; r++)
        free(s->rs[r].scratch), free(s->rs[r].payloads);
    free(s->hier);
    free(s->ring_bar);
    free(s->ring_exposed);
    s->ring_exposed = NULL;
    free(s->ring_over);
    s->ring_over = NULL;
    free(s->host_mem);
    s->host_mem = NULL;
    free(s->relay_idle); /* the relays free themselves when the run ends them */
    s->relay_idle = NULL;
    free(s->member_start);
    free(s->member_group);
    free(s->member_pos);
    free(s->mbox.keys);
    free(s->mbox.boxes);
    free(s->mbox.edge);
    s->hier = NULL;
    s->ring_bar = NULL;
    s->member_start = s->member_group = s->member_pos = NULL;
    s->mbox = (eng_mbox_table){0};
}
