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
 * Step mode advances the r rings side by side, a step of each at a time. Flow mode
 * posts one message per ring edge carrying all its steps, each after the latencies of its
 * steps but one, as engine_comm.c's rings do, then the members meet. Two rings through one
 * link (an NVLink pair both use inside a node) share it as SimGrid shares any link. A group
 * whose rings meet traffic that comes and goes (engine_exposed.c) runs them step by step in
 * flow mode too. The closed form is analytic/collectives.c's rings_s. */
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

int eng_rings_prepare(eng_sim *s, eng_hier *h, int pos, char *err)
{
    s->has_tree = true; /* their pairs are not the group ring's: nothing is computed */
    int n = h->per_node * h->n_nodes, oom = 0;
    if (s->opt.fidelity == ENG_FLOW && !h->rings_bar) {
        h->rings_bar = sg_barrier_init((unsigned)n);
        if (!h->rings_bar)
            return hs_fail(err, HS_EINTERNAL, "out of memory for a barrier");
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

/* Every ring's steps, the rings side by side: a step posts every ring's receive and send and
 * waits for them all. NCCL's channels are independent; here the messages of two rings through
 * one pair meet in the pair's one mailbox, so they must stay in step. The two agree wherever
 * the rings' links are as loaded at one step as at the next. */
static void rings_in_steps(eng_sim *s, const eng_hier *h, const rings_view *v, int steps,
                           long chunk)
{
    int r = h->rings;
    sg_comm_t c[2 * ENG_RINGS_MAX];
    void *payload[ENG_RINGS_MAX];
    for (int k = 0; k < steps; k++) {
        for (int j = 0; j < r; j++)
            c[j] = sg_mailbox_get_async(eng_mbox(s, v->left[j], v->me), &payload[j]);
        for (int j = 0; j < r; j++)
            c[r + j] = eng_post_send(s, v->me, v->right[j], chunk);
        sg_comm_wait_all(c, 2 * (size_t)r);
        for (int j = 0; j < r; j++)
            eng_received(s, payload[j], chunk);
    }
}

/* Every ring's edge as one flow of all its steps, posted when the latencies of its steps but
 * one have passed, the shortest first; then the members meet. */
static void rings_as_flows(eng_sim *s, const eng_hier *h, const rings_view *v, int steps,
                           long chunk)
{
    int r = h->rings;
    sg_comm_t c[2 * ENG_RINGS_MAX];
    void *payload[ENG_RINGS_MAX];
    double post_s[ENG_RINGS_MAX];
    bool sent[ENG_RINGS_MAX] = {false};
    sg_host_t me = s->plat->gpus[s->gpu_of_rank[v->me]];
    for (int j = 0; j < r; j++) {
        c[j] = sg_mailbox_get_async(eng_mbox(s, v->left[j], v->me), &payload[j]);
        sg_host_t right = s->plat->gpus[s->gpu_of_rank[v->right[j]]];
        post_s[j] = (steps - 1) * sg_host_get_route_latency(me, right);
    }
    double slept_s = 0;
    for (int posted = 0; posted < r; posted++) {
        int next = -1;
        for (int j = 0; j < r; j++)
            if (!sent[j] && (next < 0 || post_s[j] < post_s[next]))
                next = j;
        if (post_s[next] > slept_s) {
            sg_actor_sleep_for(post_s[next] - slept_s);
            slept_s = post_s[next];
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
