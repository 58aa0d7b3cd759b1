/* engine_tree.c: NCCL's double binary tree allreduce as messages (engine_int.h).
 *
 * The group is laid out by node (eng_hier): inside a node its members form a chain, local
 * index j handing to j - 1, so that local index 0, the node's master, holds the node's sum;
 * the masters form two binary trees (co_btree), each reducing and broadcasting half of the
 * buffer. NCCL runs such a tree on each of its channels, each channel's chain following its
 * ring through the node (engine_rings.c), so with r channels (h->rings) every tree carries
 * m / r and the channels' masters leave their node by different NICs. A phase (reduce up,
 * then broadcast down) moves every edge's bytes in chunks of about CO_TREE_CHUNK_BYTES,
 * pipelined: on a free network a phase takes K chunk steps on its slowest
 * edge plus D - 1 more while the first chunk climbs the D edges of the deepest path, K (alpha +
 * chunk beta) + (D - 1) (alpha + chunk beta).
 *
 * Simulated as flows, at either fidelity: in a phase every member posts one message per edge
 * carrying all its chunks, after sleeping the latencies of the chunks but one, as a ring's
 * flow does (engine_comm.c); a chain edge carries both trees' halves, a tree edge its tree's
 * half. The members then meet (a pipeline is as slow as its slowest edge), and sleep the
 * fill of the pipeline, D - 1 chunk steps of the slowest edge alone. Where edges share links
 * (the two trees' messages of a master share its NIC; other jobs' traffic) SimGrid's sharing
 * slows them, as for any flow. The closed form (analytic/collectives.c) is the same sum. */
#include "engine_int.h"

#include <math.h>

#include <simgrid/actor.h>
#include <simgrid/host.h>

#include "collective.h"

/* A member's peers in one phase: on every channel, a master's chain neighbour and up to four
 * tree neighbours. */
#define TREE_MAX_PEERS (6 * ENG_RINGS_MAX)

/* A member's messages in one phase. */
typedef struct {
    int to[TREE_MAX_PEERS], from[TREE_MAX_PEERS]; /* ranks */
    long to_bytes[TREE_MAX_PEERS], from_bytes[TREE_MAX_PEERS];
    int n_to, n_from;
} tree_phase;

static void add(int *rank, long *bytes, int *n, int r, long b)
{
    if (*n < TREE_MAX_PEERS)
        rank[*n] = r, bytes[(*n)++] = b;
}

/* What the member at pos sends and receives in the phase (up: the reduce) for `bytes`, on
 * every channel: channel ch (of h->rings) carries bytes / rings, its chain runs through the
 * node's members in local order from local index ch k / rings, its master, the one its ring
 * enters by (engine_rings.c), so that the channels' masters use different NICs. */
static void phase_of(const eng_hier *h, int pos, bool up, double bytes, tree_phase *ph)
{
    int k = h->per_node, c = h->node_of[pos], r = h->rings > 0 ? h->rings : 1;
    const int *node = h->by_node + (size_t)c * k;
    long all = (long)llround(bytes / r), half = (long)llround(bytes / r / 2);
    ph->n_to = ph->n_from = 0;
    int *near[2] = {ph->to, ph->from};           /* [0]: towards the root, [1]: away */
    long *near_b[2] = {ph->to_bytes, ph->from_bytes};
    int *n_near[2] = {&ph->n_to, &ph->n_from};
    int rootward = up ? 0 : 1, leafward = up ? 1 : 0;
    for (int ch = 0; ch < r; ch++) {
        int start = co_channel_entry(ch, k, r), j = (h->local_of[pos] - start + k) % k;
        if (j > 0)
            add(near[rootward], near_b[rootward], n_near[rootward], node[(start + j - 1) % k], all);
        if (j < k - 1)
            add(near[leafward], near_b[leafward], n_near[leafward], node[(start + j + 1) % k], all);
        if (j != 0)
            continue;
        for (int t = 0; t < 2; t++) {
            int nb[3];
            co_btree(t, h->n_nodes, c, &nb[0], &nb[1], &nb[2]);
            for (int i = 0; i < 3; i++) {
                if (nb[i] < 0)
                    continue;
                int side = i == 0 ? rootward : leafward;
                add(near[side], near_b[side], n_near[side], h->by_node[(size_t)nb[i] * k + start],
                    half);
            }
        }
    }
}

static sg_host_t host_of(const eng_sim *s, int rank)
{
    return s->plat->gpus[s->gpu_of_rank[rank]];
}

static int rank_at(const eng_hier *h, int pos)
{
    return h->by_node[(size_t)h->node_of[pos] * h->per_node + h->local_of[pos]];
}

/* The group's depth, slowest edge and barrier, from every member's edges. */
static int tree_group(eng_sim *s, eng_hier *h, char *err)
{
    int n = h->per_node * h->n_nodes;
    int d0 = co_btree_depth(0, h->n_nodes), d1 = co_btree_depth(1, h->n_nodes);
    h->tree_depth = h->per_node - 1 + (d0 > d1 ? d0 : d1);
    for (int pos = 0; pos < n; pos++) {
        tree_phase ph;
        phase_of(h, pos, true, 0, &ph);
        sg_host_t me = host_of(s, rank_at(h, pos));
        for (int i = 0; i < ph.n_to; i++) {
            sg_host_t peer = host_of(s, ph.to[i]);
            double lat_s = sg_host_get_route_latency(me, peer);
            double bw_Bps = sg_host_get_route_bandwidth(me, peer);
            if (lat_s > h->tree_alpha_s)
                h->tree_alpha_s = lat_s;
            if (bw_Bps > 0 && 1.0 / bw_Bps > h->tree_beta_s_per_byte)
                h->tree_beta_s_per_byte = 1.0 / bw_Bps;
        }
    }
    h->tree_bar = sg_barrier_init((unsigned)n);
    return h->tree_bar ? HS_OK : hs_fail(err, HS_EINTERNAL, "out of memory for a barrier");
}

int eng_tree_prepare(eng_sim *s, eng_hier *h, int pos, char *err)
{
    s->has_tree = true;
    if (!h->tree_bar) {
        int status = tree_group(s, h, err);
        if (status != HS_OK)
            return status;
    }
    int me = rank_at(h, pos), oom = 0;
    for (int up = 0; up < 2; up++) {
        tree_phase ph;
        phase_of(h, pos, up, 0, &ph);
        for (int i = 0; i < ph.n_to; i++)
            oom |= eng_mbox_add(s, me, ph.to[i], 0);
        for (int i = 0; i < ph.n_from; i++)
            oom |= eng_mbox_add(s, ph.from[i], me, 0);
    }
    return oom ? hs_fail(err, HS_EINTERNAL, "out of memory for mailboxes") : HS_OK;
}

void eng_tree_edges(const eng_sim *s, const eng_hier *h, eng_edge_fn fn, void *arg)
{
    int n = h->per_node * h->n_nodes;
    for (int pos = 0; h->tree_bar && pos < n; pos++)
        for (int up = 0; up < 2; up++) {
            tree_phase ph;
            phase_of(h, pos, up, 0, &ph);
            for (int i = 0; i < ph.n_to; i++)
                fn(s, rank_at(h, pos), ph.to[i], arg);
        }
}

/* One phase: every edge's chunks as one message, then the meeting and the pipeline's fill. */
static void tree_run_phase(eng_sim *s, const eng_hier *h, int pos, bool up, double bytes)
{
    tree_phase ph;
    phase_of(h, pos, up, bytes, &ph);
    int r = h->rings > 0 ? h->rings : 1;
    int me = rank_at(h, pos), chunks = co_tree_chunks(bytes / r);
    sg_comm_t c[2 * TREE_MAX_PEERS];
    void *payload[TREE_MAX_PEERS];
    for (int i = 0; i < ph.n_from; i++)
        c[i] = sg_mailbox_get_async(eng_mbox(s, ph.from[i], me), &payload[i]);
    double latency_s = 0;
    for (int i = 0; i < ph.n_to; i++) {
        double l_s = sg_host_get_route_latency(host_of(s, me), host_of(s, ph.to[i]));
        latency_s = l_s > latency_s ? l_s : latency_s;
    }
    if (ph.n_to > 0 && chunks > 1)
        sg_actor_sleep_for((chunks - 1) * latency_s);
    for (int i = 0; i < ph.n_to; i++)
        c[ph.n_from + i] = eng_post_send(s, me, ph.to[i], ph.to_bytes[i]);
    sg_comm_wait_all(c, (size_t)(ph.n_from + ph.n_to));
    for (int i = 0; i < ph.n_from; i++)
        eng_received(s, payload[i], ph.from_bytes[i]);
    sg_barrier_wait(h->tree_bar);
    double chunk_bytes = bytes / r / 2 / chunks;
    double fill_s = (h->tree_depth - 1) * (h->tree_alpha_s + chunk_bytes * h->tree_beta_s_per_byte);
    if (fill_s > 0)
        sg_actor_sleep_for(fill_s);
}

void eng_tree_allreduce(eng_sim *s, const eng_hier *h, int pos, double bytes)
{
    if (h->per_node * h->n_nodes < 2)
        return;
    tree_run_phase(s, h, pos, true, bytes);
    tree_run_phase(s, h, pos, false, bytes);
}

tg_algo eng_tree_choice(const eng_sim *s, const eng_hier *h, tg_algo algo, double bytes)
{
    if (algo != TG_ALGO_AUTO)
        return algo;
    co_algo a = co_nccl_choice(h->per_node * h->n_nodes, h->n_nodes, s->nics_per_node, bytes);
    return a == CO_TREE ? TG_ALGO_TREE : a == CO_RINGS && h->rings > 1 ? TG_ALGO_RINGS
                                                                       : TG_ALGO_RING;
}
