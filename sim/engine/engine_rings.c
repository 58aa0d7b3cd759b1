/* engine_rings.c: an allreduce as NCCL's rings over every NIC of a node (engine_int.h).
 *
 * One ring in rank order enters every node on its first GPU and leaves on its last, so of a
 * node's NICs one receives and another sends, and the other directions stand idle. NCCL builds
 * r rings (its channels) that enter a node on different GPUs, near different NICs, and runs
 * them at once, each carrying 1/r of the buffer (collective.h, co_ring_count). Laid out by node
 * (eng_hier, k members a node), ring j visits every node's members in local order starting at
 * local index j k / r (co_channel_entry): it enters node c there and leaves from the member
 * before, to node c + 1. Each ring is an ordinary ring allreduce of m / r: 2(n-1) steps of
 * m / (r n).
 *
 * NCCL's ring is a pipeline: a member sends a step as soon as it has received the step before
 * (into one of the receiver's NCCL_STEPS buffer slots), so each step pays the latency of the
 * edge it crosses and the 2(n-1) steps ending on an edge pay the latencies of the 2(n-1) edges
 * before it, NVLink hops less than network hops (co_ring_chain_s), not 2(n-1) times the slowest.
 * Step mode runs that pipeline, the r rings side by side: a member keeps its next steps'
 * receives posted and waits, before a step's send, only for the receive it forwards. Flow mode
 * posts one message per ring edge carrying all its steps once the longest chain of the rings'
 * has passed, less its own latency, so that every edge's bytes flow at once as the steps'
 * would, then the members meet: NCCL's own latency plus bytes over bandwidth (src/graph/
 * tuning.cc, ncclTopoGetAlgoTime). Two rings through one link (an NVLink pair both use inside
 * a node) share it as SimGrid shares any link. A group whose rings meet
 * traffic that comes and goes (engine_exposed.c) runs them step by step in flow mode too. The
 * closed form is analytic/collectives.c's rings_s. */
#include "engine_int.h"

#include <math.h>
#include <stdlib.h>

#include <simgrid/actor.h>
#include <simgrid/host.h>

#include "collective.h"

/* The rank at position q of ring j (q taken modulo the group's size). */
static int ring_rank(const eng_hier *h, int j, int q)
{
    int k = h->per_node, n = k * h->n_nodes;
    q = ((q % n) + n) % n;
    int c = q / k, l = (q % k + co_channel_entry(j, k, h->rings)) % k;
    return h->by_node[(size_t)c * k + l];
}

/* The position in ring j of the member at group position pos. */
static int ring_pos(const eng_hier *h, int j, int pos)
{
    int k = h->per_node, entry = co_channel_entry(j, k, h->rings);
    return h->node_of[pos] * k + ((h->local_of[pos] - entry) % k + k) % k;
}

/* A member's two neighbours on every ring. */
typedef struct {
    int me;
    int right[ENG_RINGS_MAX], left[ENG_RINGS_MAX];
} rings_view;

static rings_view view_of(const eng_hier *h, int pos)
{
    rings_view v = {.me = h->by_node[(size_t)h->node_of[pos] * h->per_node + h->local_of[pos]]};
    for (int j = 0; j < h->rings; j++) {
        int q = ring_pos(h, j, pos);
        v.right[j] = ring_rank(h, j, q + 1);
        v.left[j] = ring_rank(h, j, q - 1);
    }
    return v;
}

int eng_rings_count(const eng_sim *s, const eng_hier *h)
{
    return co_ring_count(h->per_node, h->n_nodes, s->nics_per_node); /* <= ENG_RINGS_MAX */
}

/* The route latency from rank a to rank b. */
static double latency_s(const eng_sim *s, int a, int b)
{
    return sg_host_get_route_latency(s->plat->gpus[s->gpu_of_rank[a]],
                                     s->plat->gpus[s->gpu_of_rank[b]]);
}

/* The longest chain of edge latencies the steps of h's rings cross (co_ring_chain_s): O(n) a
 * ring, once a group. */
static double rings_chain_s(const eng_sim *s, const eng_hier *h)
{
    int n = h->per_node * h->n_nodes;
    double longest_s = 0;
    for (int j = 0; j < h->rings; j++) {
        double lap_s = 0, pair_s = 0; /* the lap, the least latency of two edges in a row */
        double first_s = latency_s(s, ring_rank(h, j, 0), ring_rank(h, j, 1)), last_s = first_s;
        for (int q = 1; q <= n; q++) {
            double e_s = q < n ? latency_s(s, ring_rank(h, j, q), ring_rank(h, j, q + 1))
                               : first_s;
            lap_s += last_s;
            if (q == 1 || last_s + e_s < pair_s)
                pair_s = last_s + e_s;
            last_s = e_s;
        }
        double chain_s = co_ring_chain_s(lap_s, pair_s, 0);
        longest_s = chain_s > longest_s ? chain_s : longest_s;
    }
    return longest_s;
}

int eng_rings_prepare(eng_sim *s, eng_hier *h, int pos, char *err)
{
    s->has_tree = true; /* their pairs are not the group ring's: nothing is computed */
    int n = h->per_node * h->n_nodes, oom = 0;
    if (s->opt.fidelity == ENG_FLOW && !h->rings_bar) { /* the first member: once a group */
        h->rings_bar = sg_barrier_init((unsigned)n);
        if (!h->rings_bar)
            return hs_fail(err, HS_EINTERNAL, "out of memory for a barrier");
        h->rings_chain_s = rings_chain_s(s, h);
    }
    rings_view v = view_of(h, pos);
    for (int j = 0; j < h->rings; j++)
        oom |= eng_mbox_add(s, v.me, v.right[j], 0) | eng_mbox_add(s, v.left[j], v.me, 0);
    return oom ? hs_fail(err, HS_EINTERNAL, "out of memory for mailboxes") : HS_OK;
}

void eng_rings_edges(const eng_sim *s, const eng_hier *h, eng_edge_fn fn, void *arg)
{
    int n = h->per_node * h->n_nodes;
    for (int j = 0; h->rings_bar && j < h->rings; j++) /* prepared (in flow mode) */
        for (int q = 0; q < n; q++)
            fn(s, ring_rank(h, j, q), ring_rank(h, j, q + 1), arg);
}

/* The chunks a connection holds at once: NCCL's buffer has NCCL_STEPS 8 slots and an
 * allreduce chunk takes ALLREDUCE_CHUNKSTEPS = NCCL_STEPS / 2 of them (NCCL src/include/
 * devcomm.h and collectives.h): a sender is at most two steps ahead of its receiver. */
#define RINGS_SLOTS 2
#define RINGS_PENDING (2 * ENG_RINGS_MAX * RINGS_SLOTS)

/* A message's payload names its ring: ring_tags + j (the receiver of a pair two rings cross
 * takes their messages from one mailbox in the order they come). */
static const char ring_tags[ENG_RINGS_MAX];

/* A member's messages in flight in rings_in_steps. */
typedef struct {
    sg_comm_t comm[RINGS_PENDING]; /* the receives and sends posted, not yet done */
    int ring[RINGS_PENDING];   /* the ring it was posted for */
    int box[RINGS_PENDING];    /* a receive's payload slot in boxes, -1 for a send */
    int n;                     /* entries in comm, ring and box */
    void *boxes[RINGS_PENDING]; /* where the receives' payloads land */
    int free_box[RINGS_PENDING], n_free; /* the slots of boxes no receive holds, and how many */
    int got[ENG_RINGS_MAX], sent[ENG_RINGS_MAX]; /* per ring: steps received, sent */
    int recv_posted[ENG_RINGS_MAX]; /* per ring: receives posted, done or not */
    int recv_out[ENG_RINGS_MAX], send_out[ENG_RINGS_MAX]; /* per ring: receives and sends
                                                           * posted, not yet done */
} rings_pending;

/* Post every receive and send ring j may: receives up to RINGS_SLOTS ahead, a step's send once
 * the step it forwards is in and the receiver has a free slot. */
static void rings_post(eng_sim *s, const rings_view *v, rings_pending *p, int j, int steps,
                       long chunk)
{
    while (p->recv_posted[j] < steps && p->recv_out[j] < RINGS_SLOTS) {
        int b = p->free_box[--p->n_free];
        p->comm[p->n] = sg_mailbox_get_async(eng_mbox(s, v->left[j], v->me), &p->boxes[b]);
        p->ring[p->n] = j, p->box[p->n++] = b;
        p->recv_posted[j]++, p->recv_out[j]++;
    }
    while (p->sent[j] < steps && p->sent[j] <= p->got[j] && p->send_out[j] < RINGS_SLOTS) {
        s->messages++; /* eng_post_send's count, with the ring's tag as payload */
        s->bytes_sent += (double)chunk;
        p->comm[p->n] = sg_mailbox_put_async(eng_mbox(s, v->me, v->right[j]),
                                             (void *)(ring_tags + j), chunk);
        p->ring[p->n] = j, p->box[p->n++] = -1;
        p->sent[j]++, p->send_out[j]++;
    }
}

/* Every ring's steps as NCCL's pipeline runs them: each ring on its own, a step's send leaving
 * once the step it forwards is in, at most RINGS_SLOTS steps ahead of its receiver. */
static void rings_in_steps(eng_sim *s, const eng_hier *h, const rings_view *v, int steps,
                           long chunk)
{
    rings_pending p = {.n = 0, .n_free = RINGS_PENDING};
    for (int b = 0; b < RINGS_PENDING; b++)
        p.free_box[b] = b;
    for (int j = 0; j < h->rings; j++)
        rings_post(s, v, &p, j, steps, chunk);
    while (p.n > 0) {
        ssize_t i = sg_comm_wait_any(p.comm, (size_t)p.n);
        int j = p.ring[i], b = p.box[i];
        if (b >= 0) { /* a receive: its message's ring may be another through the pair */
            p.got[(const char *)p.boxes[b] - ring_tags]++;
            p.recv_out[j]--, p.free_box[p.n_free++] = b;
            eng_received(s, s, chunk);
        } else {
            p.send_out[j]--;
        }
        p.n--;
        p.comm[i] = p.comm[p.n], p.ring[i] = p.ring[p.n], p.box[i] = p.box[p.n];
        for (int k = 0; k < h->rings; k++)
            rings_post(s, v, &p, k, steps, chunk);
    }
}

/* Every ring's edge as one flow of all its steps, posted when the rings' longest chain less
 * its own latency has passed, the shortest wait first; then the members meet. */
static void rings_as_flows(eng_sim *s, const eng_hier *h, const rings_view *v, int steps,
                           long chunk)
{
    double chain_s[ENG_RINGS_MAX];
    for (int j = 0; j < h->rings; j++)
        chain_s[j] = h->rings_chain_s - latency_s(s, v->me, v->right[j]);
    int r = h->rings;
    sg_comm_t c[2 * ENG_RINGS_MAX];
    void *payload[ENG_RINGS_MAX];
    bool sent[ENG_RINGS_MAX] = {false};
    for (int j = 0; j < r; j++)
        c[j] = sg_mailbox_get_async(eng_mbox(s, v->left[j], v->me), &payload[j]);
    double slept_s = 0;
    for (int posted = 0; posted < r; posted++) {
        int next = -1;
        for (int j = 0; j < r; j++)
            if (!sent[j] && (next < 0 || chain_s[j] < chain_s[next]))
                next = j;
        if (chain_s[next] > slept_s) {
            sg_actor_sleep_for(chain_s[next] - slept_s);
            slept_s = chain_s[next];
        }
        sent[next] = true;
        c[r + posted] = eng_post_send(s, v->me, v->right[next], (long)steps * chunk);
    }
    sg_comm_wait_all(c, 2 * (size_t)r);
    for (int j = 0; j < r; j++)
        eng_received(s, payload[j], (long)steps * chunk);
    sg_barrier_wait(h->rings_bar);
}

void eng_rings_allreduce(eng_sim *s, const eng_hier *h, int pos, double bytes)
{
    int n = h->per_node * h->n_nodes;
    if (n < 2)
        return;
    rings_view v = view_of(h, pos);
    long chunk = bytes > 0 ? (long)llround(bytes / h->rings / n) : 0;
    if (s->opt.fidelity == ENG_STEP || h->exposed)
        rings_in_steps(s, h, &v, 2 * (n - 1), chunk);
    else
        rings_as_flows(s, h, &v, 2 * (n - 1), chunk);
}
