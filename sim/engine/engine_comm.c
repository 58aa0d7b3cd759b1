/* engine_comm.c: communication tasks as point-to-point SimGrid messages (engine.h).
 *
 * Every message goes through the rendezvous mailbox of its ordered (source, destination) rank
 * pair, so the messages of one pair match in program order whatever else is in flight. The
 * mailboxes are created before the simulation starts and kept in a hash table (engine_mbox.c),
 * so a message costs a probe, not a formatted name.
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

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <simgrid/actor.h>
#include <simgrid/host.h>

/* ---- messages ----------------------------------------------------------------------------- */

/* Chunk sizes are whole bytes: SimGrid sizes messages in bytes. */
static long chunk_bytes(double bytes)
{
    return bytes > 0 ? (long)llround(bytes) : 0;
}

sg_comm_t eng_post_send(eng_sim *s, int src, int dst, long bytes)
{
    s->messages++;
    s->bytes_sent += (double)bytes;
    /* SimGrid refuses a NULL payload; the receiver ignores it anyway. */
    return sg_mailbox_put_async(eng_mbox(s, src, dst), s, bytes);
}

/* A message staged through host memory (TG_FLAG_STAGED: MPI without GPUDirect) is copied from
 * the GPU into host memory and from there into the other GPU. Its callers sleep the platform's
 * staging latency before posting it (the software cost of the copies); then, between two GPUs
 * of a node whose platform declares its host memory (eng_sim.host_mem), it takes the PCIe
 * path, not NVLink: a relay actor on the sender's host memory (its CPU's, when the node has
 * two) receives it from the sender over the sender's PCIe link while it sends it on to the
 * receiver over the receiver's (and the link between the CPUs if the receiver hangs off the
 * other), both copies at once as pipelined staging does, so each half meets whatever else uses
 * its links. Otherwise
 * (other nodes: the route already crosses both PCIe links; or no host memory declared) it
 * takes its route.
 *
 * A relay that has delivered waits, idle, for its sender's next staged message (eng_relay):
 * an actor costs its stack's mappings and guard page to make and to undo, several times what
 * its two copies cost the simulator, and a rank stages one message after another (a halo
 * chain: tens of thousands a run). Idle relays are daemons: SimGrid ends them with the run. */
typedef struct {
    eng_sim *s;
    int src, dst;   /* the ranks */
    long bytes;
    sg_sem_t copied; /* released once both copies are done */
    int refs;       /* the relay and the receiver (and a synchronous sender): the last one
                     * out frees this */
    sg_sem_t delivered; /* a synchronous send's: released when the receiver has it, or NULL */
} relay_arg;

/* A relay actor, kept by its sender (eng_sim.relay_idle[src] while idle). */
struct eng_relay {
    sg_sem_t go;          /* released when it has a message to relay */
    relay_arg *arg;       /* that message, NULL while idle */
    struct eng_relay *next; /* the next idle relay of the same sender */
};

static void relay_unref(relay_arg *a)
{
    if (--a->refs == 0) {
        sg_sem_destroy(a->copied);
        if (a->delivered)
            sg_sem_destroy(a->delivered);
        free(a);
    }
}

/* The relay ends (the run is over, or a deadlock ended it mid-copy): what it holds is freed. */
static void relay_exit(int failed, void *arg)
{
    (void)failed;
    eng_relay *r = arg;
    if (r->arg)
        relay_unref(r->arg);
    sg_sem_destroy(r->go);
    free(r);
}

/* The relay's message to the receiver carries the relay_arg as its payload (every other
 * message carries the eng_sim), so that the receiver can wait for the other copy too: the
 * data is not all there before both copies are done, whichever link was slower. */
static void relay_main(int argc, char **argv)
{
    (void)argc, (void)argv;
    eng_relay *r = sg_actor_self_get_data();
    sg_actor_on_exit(relay_exit, r);
    sg_actor_daemonize(sg_actor_self());
    for (;;) {
        sg_sem_acquire(r->go);
        relay_arg *a = r->arg;
        void *payload;
        sg_comm_t c[2];
        c[0] = sg_mailbox_get_async(eng_mbox_on(a->s, a->src, a->dst, 1), &payload);
        c[1] = sg_mailbox_put_async(eng_mbox(a->s, a->src, a->dst), a, a->bytes);
        sg_comm_wait_all(c, 2);
        sg_sem_release(a->copied);
        if (a->delivered)
            sg_sem_release(a->delivered);
        eng_sim *s = a->s;
        int src = a->src;
        r->arg = NULL;
        relay_unref(a);
        r->next = s->relay_idle[src];
        s->relay_idle[src] = r;
    }
}

/* Hand message a to an idle relay of its sender, or to a new one; false when out of memory. */
static bool relay_start(eng_sim *s, relay_arg *a)
{
    eng_relay *r = s->relay_idle[a->src];
    if (r) {
        s->relay_idle[a->src] = r->next;
    } else {
        if (!(r = calloc(1, sizeof *r)) || !(r->go = sg_sem_init(0))) {
            free(r);
            return false;
        }
        sg_actor_t relay = sg_actor_init("relay", s->host_mem[a->src]);
        sg_actor_set_data(relay, r);
        sg_actor_start(relay, relay_main, 0, NULL);
    }
    r->arg = a;
    sg_sem_release(r->go);
    return true;
}

/* A receive of `bytes` (as the receiver expects them) has completed with this payload: count
 * it, and if it came from a relay, wait for the relay's other copy as well. */
void eng_received(eng_sim *s, void *payload, long bytes)
{
    s->messages_received++;
    s->bytes_received += (double)bytes;
    if (!payload || payload == s)
        return;
    relay_arg *a = payload;
    sg_sem_acquire(a->copied);
    relay_unref(a);
}

bool eng_relayed(const eng_sim *s, int src, int dst)
{
    int gpn = s->plat->gpus_per_node > 0 ? s->plat->gpus_per_node : 1;
    return s->host_mem && s->host_mem[src] && s->host_mem[dst] &&
           s->gpu_of_rank[src] / gpn == s->gpu_of_rank[dst] / gpn;
}

/* A message from src to dst; with sync (a synchronous send), *sync gets its relay (to wait on
 * a->delivered, then unref) or NULL when it goes straight (the wait on the message is then
 * synchronous already). */
static sg_comm_t send_message(eng_sim *s, int src, int dst, long bytes, bool staged,
                              relay_arg **sync)
{
    if (sync)
        *sync = NULL;
    if (!staged || !eng_relayed(s, src, dst))
        return eng_post_send(s, src, dst, bytes);
    relay_arg *a = malloc(sizeof *a);
    if (!a) /* cannot relay: the message still arrives, over its route */
        return eng_post_send(s, src, dst, bytes);
    *a = (relay_arg){s, src, dst, bytes, sg_sem_init(0), sync ? 3 : 2,
                     sync ? sg_sem_init(0) : NULL};
    if (!relay_start(s, a)) {
        a->refs = 1, relay_unref(a);
        return eng_post_send(s, src, dst, bytes);
    }
    if (sync)
        *sync = a;
    s->messages++;
    s->bytes_sent += (double)bytes;
    return sg_mailbox_put_async(eng_mbox_on(s, src, dst, 1), s, bytes);
}

/* The latency of the path a message from rank src to rank dst takes: a relayed one's two
 * halves run side by side, so the slower half's. */
static double edge_latency(const eng_sim *s, int src, int dst, bool staged)
{
    sg_host_t a = s->plat->gpus[s->gpu_of_rank[src]], b = s->plat->gpus[s->gpu_of_rank[dst]];
    if (!staged || !eng_relayed(s, src, dst))
        return sg_host_get_route_latency(a, b);
    double up_s = sg_host_get_route_latency(a, s->host_mem[src]);
    double down_s = sg_host_get_route_latency(s->host_mem[src], b); /* the relay's copy */
    return up_s > down_s ? up_s : down_s;
}

/* ---- rings -------------------------------------------------------------------------------- */


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
            c[1] = send_message(s, me, right, chunk, staged, NULL);
            sg_comm_wait_all(c, 2);
            eng_received(s, payload, chunk);
        }
        return;
    }
    /* The receive is posted before the sleep so that the left neighbour's flow starts as soon
     * as that neighbour is ready, not when this member is. The flow pays the staging of every
     * step and the route latency of all steps but its own. */
    double latency_s = edge_latency(s, me, right, staged);
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
        c[1] = send_message(s, me, right, (long)k * chunk, staged, NULL);
        sg_comm_wait_all(c, 2);
        eng_received(s, payload, (long)k * chunk); /* the left member's flow: as many steps */
        if (v.bar) /* eng_comm_prepare gives every flow-mode ring of two or more one */
            sg_barrier_wait(v.bar);
    }
}

eng_ring eng_group_ring(const eng_sim *s, int group, int pos)
{
    const tg_group *gr = &s->g->groups[group];
    eng_ring v = {gr->ranks, gr->n, 1, pos, s->ring_bar ? s->ring_bar[group] : NULL,
                  s->ring_priv ? s->ring_priv[group] : NULL,
                  s->ring_exposed && s->ring_exposed[group], 1};
    if (s->ring_over && s->ring_over[group])
        v.blocks = s->ring_blocks;
    return v;
}

eng_ring eng_intra_ring(const eng_hier *h, int pos, sg_bar_t *bars)
{
    int c = h->node_of[pos];
    return (eng_ring){h->by_node + (size_t)c * h->per_node, h->per_node, 1, h->local_of[pos],
                      bars ? bars[c] : NULL, h->intra_priv ? h->intra_priv[c] : NULL, h->exposed,
                      1};
}

eng_ring eng_inter_ring(const eng_hier *h, int pos, sg_bar_t *bars)
{
    int j = h->local_of[pos];
    return (eng_ring){h->by_node + j, h->n_nodes, h->per_node, h->node_of[pos],
                      bars ? bars[j] : NULL, h->inter_priv ? h->inter_priv[j] : NULL, h->exposed,
                      1};
}

static void hier_allreduce(eng_sim *s, const eng_hier *h, int pos, double bytes, bool staged)
{
    int k = h->per_node, nodes = h->n_nodes;
    long intra_chunk = chunk_bytes(bytes / k);
    ring_steps(s, eng_intra_ring(h, pos, h->intra_bar), k - 1, intra_chunk, staged);
    ring_steps(s, eng_inter_ring(h, pos, h->inter_bar), 2 * (nodes - 1),
               chunk_bytes(bytes / k / nodes), staged);
    ring_steps(s, eng_intra_ring(h, pos, h->intra_bar), k - 1, intra_chunk, staged);
}

/* Receive from every rank of `from` and send to every rank of `to`, all posted at once and
 * waited for together; the receives first, so that peers' messages start as soon as they are
 * sent, then the staging (once: the messages are staged side by side), then the sends. */
static void sendrecv(eng_sim *s, int rank, const int *to, int n_to, const int *from, int n_from,
                     double bytes, bool staged)
{
    bool wide = n_to + n_from > 2;
    sg_comm_t pair[2], *c = wide ? s->rs[rank].scratch : pair;
    void *one[2], **payload = wide ? s->rs[rank].payloads : one;
    long b = chunk_bytes(bytes);
    for (int i = 0; i < n_from; i++)
        c[i] = sg_mailbox_get_async(eng_mbox(s, from[i], rank), &payload[i]);
    if (staged && n_to > 0 && s->plat->staging_latency_s > 0)
        sg_actor_sleep_for(s->plat->staging_latency_s);
    for (int i = 0; i < n_to; i++)
        c[n_from + i] = send_message(s, rank, to[i], b, staged, NULL);
    sg_comm_wait_all(c, (size_t)(n_to + n_from));
    for (int i = 0; i < n_from; i++)
        eng_received(s, payload[i], b);
}

/* A synchronous send (TG_FLAG_SYNC, MPI_Ssend): the sender goes on when the receiver has the
 * message, through a relay too (whose copy into host memory alone would free the sender). The
 * staging latency (the software of an MPI message without GPUDirect, per message: ParaDL
 * measured it end to end) is paid after the delivery: the send completes when the receiver's
 * side of the protocol has answered, so that a chain of synchronous sends pays it at every
 * hop, one after the other, as the closed form charges a chain. */
static void sync_send(eng_sim *s, int rank, int dst, double bytes, bool staged)
{
    relay_arg *relay;
    sg_comm_t c = send_message(s, rank, dst, chunk_bytes(bytes), staged, &relay);
    sg_comm_wait(c);
    if (relay) {
        sg_sem_acquire(relay->delivered);
        relay_unref(relay);
    }
    if (staged && s->plat->staging_latency_s > 0)
        sg_actor_sleep_for(s->plat->staging_latency_s);
}

/* eng_comm_run's dispatch, below, for the private case: a ring allgather, reduce-scatter or
 * (ring-only) allreduce, not staged, on a group with a private ring, in flow mode. */
bool eng_private_ring_task(const eng_sim *s, const tg_task *t, int *steps, long *chunk)
{
    if (s->opt.fidelity != ENG_FLOW || (t->flags & TG_FLAG_STAGED) || !s->ring_priv ||
        (t->op != TG_ALLGATHER && t->op != TG_REDUCE_SCATTER && t->op != TG_ALLREDUCE) ||
        !s->ring_priv[t->peer] || (t->op == TG_ALLREDUCE && s->hier[t->peer]))
        return false;
    int n = s->g->groups[t->peer].n;
    *steps = t->op == TG_ALLREDUCE ? 2 * (n - 1) : n - 1;
    *chunk = chunk_bytes(t->op == TG_ALLGATHER ? t->amount : t->amount / n);
    return n >= 2 && *steps >= 1;
}

void eng_comm_run(eng_sim *s, int rank, const tg_task *t)
{
    bool staged = (t->flags & TG_FLAG_STAGED) != 0;
    const tg_group *gr = t->op == TG_SEND || t->op == TG_RECV ? NULL : &s->g->groups[t->peer];
    switch ((tg_op)t->op) {
    case TG_SEND:
        if (t->flags & TG_FLAG_SYNC)
            sync_send(s, rank, t->peer, t->amount, staged);
        else
            sendrecv(s, rank, &t->peer, 1, NULL, 0, t->amount, staged);
        return;
    case TG_RECV:
        sendrecv(s, rank, NULL, 0, &t->peer, 1, t->amount, staged);
        return;
    case TG_EXCHANGE:
        sendrecv(s, rank, gr->ranks, gr->n, gr->ranks, gr->n, t->amount, staged);
        return;
    case TG_SHIFT: /* group {send peer, receive peer}, checked by eng_comm_prepare */
        sendrecv(s, rank, &gr->ranks[0], 1, &gr->ranks[1], 1, t->amount, staged);
        return;
    default:
        break;
    }
    int pos = eng_group_pos(s, rank, t->peer);
    int n = gr->n;
    eng_ring v = eng_group_ring(s, t->peer, pos);
    int steps;
    long chunk;
    if (eng_private_ring_task(s, t, &steps, &chunk)) { /* ring_steps' private case, extended */
        eng_private_segment(s, rank, v, steps, chunk);
        return;
    }
    switch ((tg_op)t->op) {
    case TG_ALLREDUCE: {
        const eng_hier *h = s->hier[t->peer];
        tg_algo algo = h ? eng_tree_choice(s, h, (tg_algo)t->algo, t->amount) : TG_ALGO_RING;
        if (algo == TG_ALGO_HIER)
            hier_allreduce(s, h, pos, t->amount, staged);
        else if (algo == TG_ALGO_TREE)
            eng_tree_allreduce(s, h, pos, t->amount);
        else if (algo == TG_ALGO_RINGS && h->rings > 1)
            eng_rings_allreduce(s, h, pos, t->amount);
        else
            ring_steps(s, v, 2 * (n - 1), chunk_bytes(t->amount / n), staged);
        return;
    }
    case TG_ALLGATHER:
        ring_steps(s, v, n - 1, chunk_bytes(t->amount), staged);
        return;
    case TG_REDUCE_SCATTER:
        ring_steps(s, v, n - 1, chunk_bytes(t->amount / n), staged);
        return;
    default:
        return; /* TG_EXEC never reaches here; the op was validated */
    }
}
