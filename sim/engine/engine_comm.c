/* engine_comm.c: a communication task run by its rank (eng_comm_run): sends, receives,
 * exchanges and shifts as point-to-point messages (engine_p2p.c), collectives as rings of them,
 * or handed to the algorithm that runs them (engine_tree.c, engine_rings.c, the computed ones
 * of engine_private.c and engine_segment.c). The top of the engine's communication layers.
 *
 * Collectives are rings: in a step a member sends a chunk to its right neighbour and receives
 * one from its left, both posted at once so they overlap. Allreduce = reduce-scatter (n-1 steps
 * of m/n) + allgather (n-1 steps of m/n); allgather of m per member = n-1 steps of m;
 * reduce-scatter = n-1 steps of m/n. The hierarchical allreduce is a reduce-scatter inside each
 * node, an allreduce of m/k across nodes among the members of equal local index, and an
 * allgather inside the node. The tree (NCCL's double binary tree) is engine_tree.c's, NCCL's
 * rings over every NIC engine_rings.c's.
 *
 * ENG_STEP posts every step. ENG_FLOW posts one message per ring edge carrying all its steps'
 * bytes, after sleeping for the latencies of the steps it stands for, then the ring's members
 * meet at a barrier: a real ring advances in lockstep, so nobody is done before the slowest edge.
 * On a free network both give steps * (latency + chunk / bandwidth) of the slowest edge. A ring
 * whose links other traffic may join or leave mid-way (engine_exposed.c) posts every step in
 * flow mode too, or, over the step budget, runs its steps in blocks, each as one message per
 * edge and a meeting (eng_ring.blocks). */
#include "engine_int.h"

#include <simgrid/actor.h>

/* `steps` ring steps of `chunk` bytes each, at the engine's fidelity; `staged`: every step's
 * message goes through host memory. */
static void ring_steps(eng_sim *s, eng_ring v, int steps, long chunk, bool staged)
{
    if (v.n < 2 || steps < 1)
        return;
    int me = eng_ring_member(v, v.pos), right = eng_ring_member(v, v.pos + 1);
    sg_mailbox_t in = eng_mbox(s, eng_ring_member(v, v.pos - 1), me);
    void *payload; /* the messages carry no data; SimGrid still wants somewhere to put it */
    sg_comm_t c[2];
    double stage_s = staged ? s->plat->staging_latency_s : 0.0;
    if (!staged && s->opt.fidelity == ENG_FLOW && v.priv) {
        eng_private_flow(s, v, steps, chunk); /* no message leaves the ring's private links */
        return;
    }
    if (!staged && s->opt.fidelity == ENG_STEP && v.priv && steps >= v.n - 1) {
        eng_private_steps(s, v, steps, chunk); /* nor here */
        return;
    }
    if (!staged && s->opt.fidelity == ENG_STEP && s->n_private > 0) {
        for (int k = 0; k < steps; k++)
            eng_private_step(s, v, chunk);
        return;
    }
    if (s->opt.fidelity == ENG_STEP || v.exposed) {
        for (int k = 0; k < steps; k++) {
            c[0] = sg_mailbox_get_async(in, &payload);
            if (stage_s > 0)
                sg_actor_sleep_for(stage_s);
            c[1] = eng_send(s, me, right, chunk, staged);
            sg_comm_wait_all(c, 2);
            eng_received(s, payload, chunk);
        }
        return;
    }
    /* The receive is posted before the sleep so that the left neighbour's flow starts as soon
     * as that neighbour is ready, not when this member is. The flow pays the staging of every
     * step and the route latency of all steps but its own. */
    double latency_s = eng_edge_latency(s, me, right, staged);
    int blocks = v.blocks > 1 ? (v.blocks < steps ? v.blocks : steps) : 1;
    for (int b = 0; b < blocks; b++) {
        int k = steps / blocks + (b < steps % blocks);
        if (blocks > 1 && !staged && s->wait_sem) { /* some edges private: computed */
            eng_private_block(s, v, k, chunk);
            if (v.bar)
                sg_barrier_wait(v.bar);
            continue;
        }
        c[0] = sg_mailbox_get_async(in, &payload);
        double sleep_s = (k - 1) * latency_s + k * stage_s;
        if (sleep_s > 0)
            sg_actor_sleep_for(sleep_s);
        c[1] = eng_send(s, me, right, (long)k * chunk, staged);
        sg_comm_wait_all(c, 2);
        eng_received(s, payload, (long)k * chunk); /* the left member's flow: as many steps */
        if (v.bar) /* eng_comm_prepare gives every flow-mode ring of two or more one */
            sg_barrier_wait(v.bar);
    }
}

static void hier_allreduce(eng_sim *s, const eng_hier *h, int pos, double bytes, bool staged)
{
    int k = h->per_node, nodes = h->n_nodes;
    long intra_chunk = eng_chunk_bytes(bytes / k);
    ring_steps(s, eng_intra_ring(h, pos, h->intra_bar), k - 1, intra_chunk, staged);
    ring_steps(s, eng_inter_ring(h, pos, h->inter_bar), 2 * (nodes - 1),
               eng_chunk_bytes(bytes / k / nodes), staged);
    ring_steps(s, eng_intra_ring(h, pos, h->intra_bar), k - 1, intra_chunk, staged);
}

/* A collective of group `group`, run by its member `rank`. Not inlined into eng_comm_run: its
 * frame (the rings' views, their messages) would otherwise be on the stack of every
 * point-to-point task too, where the actor yields to SimGrid, and a rank's stack down to there
 * is in the cache at every visit (a halo chain of 4,096 GPUs visits every rank's at once). */
static __attribute__((noinline)) void run_collective(eng_sim *s, int rank, const tg_task *t,
                                                     int group, bool staged)
{
    const tg_group *gr = &s->g->groups[group];
    int pos = eng_group_pos(s, rank, group);
    int n = gr->n;
    eng_ring v = eng_group_ring(s, group, pos);
    int steps;
    long chunk;
    /* ring_steps' private case, extended */
    if (eng_private_ring_task(s, t, group, &steps, &chunk)) {
        eng_private_segment(s, rank, v, steps, chunk);
        return;
    }
    switch ((tg_op)t->op) {
    case TG_ALLREDUCE: {
        const eng_hier *h = s->hier[group];
        tg_algo algo = h ? eng_tree_choice(s, h, (tg_algo)t->algo, t->amount) : TG_ALGO_RING;
        if (algo == TG_ALGO_HIER)
            hier_allreduce(s, h, pos, t->amount, staged);
        else if (algo == TG_ALGO_TREE)
            eng_tree_allreduce(s, h, pos, t->amount);
        else if (algo == TG_ALGO_RINGS && h->rings > 1)
            eng_rings_allreduce(s, h, pos, t->amount);
        else
            ring_steps(s, v, 2 * (n - 1), eng_chunk_bytes(t->amount / n), staged);
        return;
    }
    case TG_ALLGATHER:
        ring_steps(s, v, n - 1, eng_chunk_bytes(t->amount), staged);
        return;
    case TG_REDUCE_SCATTER:
        ring_steps(s, v, n - 1, eng_chunk_bytes(t->amount / n), staged);
        return;
    default:
        return; /* TG_EXEC never reaches here; the op was validated */
    }
}

void eng_comm_run(eng_sim *s, int rank, const tg_task *t)
{
    bool staged = (t->flags & TG_FLAG_STAGED) != 0;
    int peer = tg_peer(s->g, rank, t); /* a rank or a group */
    const tg_group *gr = t->op == TG_SEND || t->op == TG_RECV ? NULL : &s->g->groups[peer];
    switch ((tg_op)t->op) {
    case TG_SEND:
        if (t->flags & TG_FLAG_SYNC)
            eng_sync_send(s, rank, peer, t->amount, staged);
        else
            eng_sendrecv(s, rank, &peer, 1, NULL, 0, t->amount, staged);
        return;
    case TG_RECV:
        eng_sendrecv(s, rank, NULL, 0, &peer, 1, t->amount, staged);
        return;
    case TG_EXCHANGE:
        eng_sendrecv(s, rank, gr->ranks, gr->n, gr->ranks, gr->n, t->amount, staged);
        return;
    case TG_SHIFT: /* group {send peer, receive peer}, checked by eng_comm_prepare */
        eng_sendrecv(s, rank, &gr->ranks[0], 1, &gr->ranks[1], 1, t->amount, staged);
        return;
    default:
        run_collective(s, rank, t, peer, staged);
        return;
    }
}
