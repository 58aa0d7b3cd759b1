/* engine_private.c: ring messages on private links, computed instead of sent (engine_int.h).
 *
 * A message alone on its route takes a time SimGrid's CM02 model fixes from the route alone:
 * it pays the route's latency, then its bytes flow at the rate max-min sharing gives a lone
 * flow. When no other message of the run can ever use a link of an edge's route (the NVLink
 * between two GPUs of a ring inside a node; the PCIe links and NIC cables of the two GPUs at
 * the ends of a ring's node-to-node edge), the message cannot meet anyone, so its arrival can
 * be computed from when its two ends posted it, without SimGrid creating, matching, sharing and
 * finishing a message: the costly part of a run. The computation repeats SimGrid 3.32's
 * operations on the same doubles (lone_end), and the actors then sleep exactly until that
 * date. The two ways agree to the last bit where the computed messages cross only links of
 * their own and events are dense: flow mode computes no other message; else within 1e-13, as
 * SimGrid revises a sent flow's progress at every event of the run (network/optim Full), each
 * revision rounding. Step mode also computes
 * messages across a switch (a FATPIPE link) that other messages cross: a switch never limits a
 * flow, it only adds its latency, and a step ring across nodes is then computed whole (its 2
 * million messages at 1024 GPUs are most of a step run's cost). There the two ways differ by
 * SimGrid's own rounding, which computing cannot reproduce: SimGrid revises a flow's progress
 * whenever a flow comes or goes on a link it uses, merges events less than 1 ns apart (its time
 * precision) and advances its clock by now + (date - now), which rounds when events are
 * sparse. Measured: 4e-15 relative on ResNet-50's 1024-GPU step allreduce, 1.5 ns in 130 ms
 * when 1024 ranks reach a step allreduce at the same instant (eng_bench); test_engine_private
 * bounds the cases it runs.
 *
 * Private means: every link (each direction of a split-duplex link on its own; in step mode,
 * switches aside) is on the route of this ordered rank pair only, among all pairs the run's
 * tasks use; the pair carries ring messages only; the route has a latency. Step mode also sets
 * aside, as it does switches, a shared link that can never be full: one whose bandwidth is at
 * least the sum of the bandwidths of the routes that cross it (a pair has one message in
 * flight at a time, and no flow goes faster than its route's narrowest link), so it never
 * limits a flow under max-min sharing (a data-parallel job spread over racks: its ring's 16
 * edges through a rack's uplink ask 200 of its 283 GB/s; the rings of two such jobs, 400, are
 * sent). Link statistics are
 * told of every computed message (eng_options.computed: its ends, payload, start and end), so
 * they see the run SimGrid would have delivered. Nothing is private when something else loads
 * the network (background traffic: eng_options.exact_messages), or when messages are staged through host
 * memory (relays share PCIe links in ways the tasks do not show), nor when an allreduce may run
 * as a tree (engine_tree.c: its messages are not a ring's).
 *
 * A ring whose every edge is private is computed whole. Flow mode: the members meet at the
 * ring's barrier, each knowing when every member arrived, and leave together when the slowest
 * edge's message would have arrived. Step mode: the members meet, the first to go on computes
 * every step of every member (a step starts when both ends of the edge have posted it, each
 * member posting its next step when its two messages of this one have arrived) and each member
 * sleeps until its own last step ends. A ring with only some private edges is computed edge by
 * edge in step mode: each end notes when it posted the step, the first waits for the second,
 * both compute the arrival and sleep until the latest of their edges' arrivals, after their
 * sent messages, if any, have arrived too; in flow mode it is sent, but in the blocks of a ring
 * over the step budget (engine_exposed.c), which are computed the same way, a block of k steps
 * as one step of k chunks whose sender posts after k - 1 latencies (eng_private_block). */
#include "engine_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <simgrid/actor.h>
#include <simgrid/engine.h>
#include <simgrid/host.h>
#include <simgrid/link.h>
#include <xbt/dynar.h>

/* ---- SimGrid's arithmetic ----------------------------------------------------------------- */

/* When SimGrid 3.32 completes a message of `bytes` started at t0 on a route of latency lat and
 * bottleneck bandwidth bw that no other flow uses, with hybridsim's CM02 settings: the latency
 * is paid first (an event at latency + start, NetworkCm02Model::comm_action_set_variable),
 * then the bytes flow at the lone variable's value (MaxMin::maxmin_solve: its bound, the
 * bottleneck, when bound * penalty is below the fair share remaining / usage, with the route
 * latency as CM02's penalty; else that share over the penalty), and the flow ends at that
 * event's date plus bytes over the rate (alone, no other event revises its progress). */
static double lone_end(double t0, double lat, double bw, double bytes)
{
    double at = lat + t0, usage = 1.0 / lat, share = bw / usage;
    double rate = bw * lat < share ? bw : share / lat;
    return at + bytes / rate;
}

/* Sleep until date t exactly: SimGrid ends a sleep at its start plus its duration, so the
 * duration is the one whose sum with now rounds to t. Closer than the precision, SimGrid would
 * have ended the message now, with the event that woke us. */
void eng_sleep_until(double t)
{
    double now = simgrid_get_clock(), d = t - now;
    if (!(d >= ENG_SURF_PRECISION))
        return;
    while (now + d < t)
        d = nextafter(d, INFINITY);
    while (d > 0 && now + d > t)
        d = nextafter(d, 0);
    sg_actor_sleep_for(d);
}

/* ---- which edges are private -------------------------------------------------------------- */

/* Links by identity, with how many rank pairs' routes cross them (count[] by table slot) and
 * the sum of those routes' bandwidths (demand_Bps[]: what they could ask of it at once). */
typedef struct {
    eng_link_table t;
    int *count;
    double *demand_Bps;
} link_count;

int eng_link_table_init(eng_link_table *t, size_t pairs)
{
    t->cap = 1024;
    while (t->cap < 32 * pairs) /* a route has a few links: the table stays sparse */
        t->cap *= 2;
    t->keys = calloc(t->cap, sizeof *t->keys);
    return t->keys ? 0 : -1;
}

size_t eng_link_slot(eng_link_table *t, const void *link)
{
    size_t i = (size_t)(((uintptr_t)link * UINT64_C(0x9E3779B97F4A7C15)) >> 20) & (t->cap - 1);
    while (t->keys[i] && t->keys[i] != link)
        i = (i + 1) & (t->cap - 1);
    t->keys[i] = link;
    return i;
}

/* The route of the pair's message: its links, in a dynar the caller frees. */
static xbt_dynar_t route_of(const eng_sim *s, int src, int dst)
{
    xbt_dynar_t route = xbt_dynar_new(sizeof(sg_link_t), NULL);
    sg_host_get_route(s->plat->gpus[s->gpu_of_rank[src]], s->plat->gpus[s->gpu_of_rank[dst]],
                      route);
    return route;
}

/* Must a private edge's switches be its own too? In flow mode, yes: a shared switch would make
 * the computed time differ from SimGrid's in the last bits, and computing saves little there
 * (a message an edge a collective). In step mode, no: a shared switch never limits a flow, and
 * a step ring across nodes (every edge through the leaf switch) is then computed whole. */
static bool switches_count(const eng_sim *s)
{
    return s->opt.fidelity == ENG_FLOW;
}

/* Count, over every pair of the mailbox table, the links of its route. */
static int count_links(const eng_sim *s, link_count *c)
{
    if (eng_link_table_init(&c->t, s->mbox.used) != 0 ||
        !(c->count = calloc(c->t.cap, sizeof *c->count)) ||
        !(c->demand_Bps = calloc(c->t.cap, sizeof *c->demand_Bps)))
        return -1;
    for (size_t i = 0; i < s->mbox.cap; i++) {
        int src, dst, ch;
        if (!s->mbox.keys[i])
            continue;
        eng_pair_of(s, s->mbox.keys[i], &src, &dst, &ch);
        xbt_dynar_t route = route_of(s, src, dst);
        double bw = sg_host_get_route_bandwidth(s->plat->gpus[s->gpu_of_rank[src]],
                                                s->plat->gpus[s->gpu_of_rank[dst]]);
        for (unsigned k = 0; k < xbt_dynar_length(route); k++) {
            sg_link_t l = xbt_dynar_get_as(route, k, sg_link_t);
            if (!plat_link_is_shared(l) && !switches_count(s))
                continue; /* a switch never limits a flow */
            size_t j = eng_link_slot(&c->t, l);
            c->count[j]++;
            c->demand_Bps[j] += bw;
        }
        xbt_dynar_free(&route);
    }
    return 0;
}

/* Their messages are sent. */
void eng_mark_point_to_point(const eng_sim *s, uint8_t *not_ring)
{
    const tg_graph *g = s->g;
    for (int r = 0; r < g->n_ranks; r++)
        for (int i = 0; i < g->ranks[r].n_tasks; i++) {
            const tg_task *t = &g->ranks[r].tasks[i];
            int peer = tg_peer(g, r, t);
            const tg_group *gr = t->op == TG_SHIFT || t->op == TG_EXCHANGE ? &g->groups[peer]
                                                                          : NULL;
            long a = -1, b = -1;
            if (t->op == TG_SEND || t->op == TG_RECV) {
                a = eng_pair_slot(s, r, peer);
                b = eng_pair_slot(s, peer, r);
            }
            for (int k = 0; gr && k < gr->n; k++) {
                long x = eng_pair_slot(s, r, gr->ranks[k]), y = eng_pair_slot(s, gr->ranks[k], r);
                if (x >= 0)
                    not_ring[x] = 1;
                if (y >= 0)
                    not_ring[y] = 1;
            }
            if (a >= 0)
                not_ring[a] = 1;
            if (b >= 0)
                not_ring[b] = 1;
        }
}

/* Is the pair in slot i private: ring messages only, a latency, links nobody else crosses? */
static bool private_pair(const eng_sim *s, link_count *c, size_t i, const uint8_t *not_ring,
                         double *lat, double *bw)
{
    int src, dst, ch;
    eng_pair_of(s, s->mbox.keys[i], &src, &dst, &ch);
    if (ch != 0 || not_ring[i])
        return false;
    xbt_dynar_t route = route_of(s, src, dst);
    bool alone = xbt_dynar_length(route) > 0;
    for (unsigned k = 0; alone && k < xbt_dynar_length(route); k++) {
        sg_link_t l = xbt_dynar_get_as(route, k, sg_link_t);
        size_t j = eng_link_slot(&c->t, l);
        alone = (!plat_link_is_shared(l) && !switches_count(s)) || c->count[j] == 1 ||
                (!switches_count(s) && c->demand_Bps[j] <= plat_link_bandwidth_Bps(l));
    }
    xbt_dynar_free(&route);
    sg_host_t a = s->plat->gpus[s->gpu_of_rank[src]], b = s->plat->gpus[s->gpu_of_rank[dst]];
    *lat = sg_host_get_route_latency(a, b);
    *bw = sg_host_get_route_bandwidth(a, b);
    return alone && *lat > 0 && *bw > 0;
}

/* The private edges, numbered in the mailbox table's slots. */
static int find_edges(eng_sim *s, char *err)
{
    link_count c = {0};
    uint8_t *not_ring = calloc(s->mbox.cap ? s->mbox.cap : 1, 1);
    int status = HS_OK;
    if (!not_ring || count_links(s, &c) != 0) {
        status = hs_fail(err, HS_EINTERNAL, "out of memory classifying links");
        goto done;
    }
    eng_mark_point_to_point(s, not_ring);
    s->edges = calloc(s->mbox.used ? s->mbox.used : 1, sizeof *s->edges);
    if (!s->edges) {
        status = hs_fail(err, HS_EINTERNAL, "out of memory for private edges");
        goto done;
    }
    for (size_t i = 0; i < s->mbox.cap; i++) {
        double lat, bw;
        if (!s->mbox.keys[i] || !private_pair(s, &c, i, not_ring, &lat, &bw))
            continue;
        s->edges[s->n_private] = (eng_pedge){.waiter = -1, .latency_s = lat, .bandwidth_Bps = bw};
        s->mbox.edge[i] = s->n_private++;
    }
done:
    free(not_ring);
    free(c.t.keys);
    free(c.count);
    free(c.demand_Bps);
    return status;
}

/* ---- private rings (flow mode) ------------------------------------------------------------ */

static void free_pring(eng_pring *r)
{
    if (!r)
        return;
    free(r->latency_s), free(r->bandwidth_Bps), free(r->arrive_s);
    free(r->post_s), free(r->edge_end_s);
    free(r->seg_at), free(r->seg_end_s), free(r->seg_task);
    if (r->bar)
        sg_barrier_destroy(r->bar);
    free(r);
}

/* The ring's state if each of its edges is private, else NULL (also when out of memory: its
 * messages are then sent, which is correct, only slower). */
static eng_pring *private_ring(const eng_sim *s, eng_ring v)
{
    if (v.n < 2)
        return NULL;
    for (int i = 0; i < v.n; i++)
        if (eng_pair_edge(s, eng_ring_member(v, i), eng_ring_member(v, i + 1)) < 0)
            return NULL;
    size_t n = (size_t)v.n;
    eng_pring *r = calloc(1, sizeof *r);
    if (r) {
        r->n = v.n;
        r->latency_s = malloc(n * sizeof *r->latency_s);
        r->bandwidth_Bps = malloc(n * sizeof *r->bandwidth_Bps);
        r->arrive_s = calloc(n, sizeof *r->arrive_s);
        r->post_s = calloc(n, sizeof *r->post_s);
        r->edge_end_s = calloc(n, sizeof *r->edge_end_s);
        r->seg_at = calloc(n, sizeof *r->seg_at);
        r->seg_end_s = calloc(n, sizeof *r->seg_end_s);
        r->seg_task = calloc(n, sizeof *r->seg_task);
    }
    if (!r || !r->latency_s || !r->bandwidth_Bps || !r->arrive_s || !r->post_s ||
        !r->edge_end_s || !r->seg_at || !r->seg_end_s ||
        !r->seg_task) {
        free_pring(r);
        return NULL;
    }
    if (s->opt.fidelity == ENG_STEP)
        r->bar = sg_barrier_init((unsigned)v.n);
    for (int i = 0; i < v.n; i++) {
        const eng_pedge *e =
            &s->edges[eng_pair_edge(s, eng_ring_member(v, i), eng_ring_member(v, i + 1))];
        r->latency_s[i] = e->latency_s;
        r->bandwidth_Bps[i] = e->bandwidth_Bps;
    }
    return r;
}

/* The groups some task uses as a ring (a collective of the ring algorithm). */
static uint8_t *ring_groups(const eng_sim *s)
{
    const tg_graph *g = s->g;
    uint8_t *ring = calloc((size_t)g->n_groups + 1, 1);
    for (int r = 0; ring && r < g->n_ranks; r++)
        for (int i = 0; i < g->ranks[r].n_tasks; i++) {
            const tg_task *t = &g->ranks[r].tasks[i];
            if ((t->op == TG_ALLREDUCE || t->op == TG_ALLGATHER || t->op == TG_REDUCE_SCATTER) &&
                t->algo == TG_ALGO_RING)
                ring[tg_peer(g, r, t)] = 1;
        }
    return ring;
}

/* Every ring the run may use (groups, hierarchical layouts), whole if private. */
static int find_rings(eng_sim *s, char *err)
{
    const tg_graph *g = s->g;
    uint8_t *ring = ring_groups(s);
    s->ring_priv = calloc((size_t)g->n_groups + 1, sizeof *s->ring_priv);
    int status = ring && s->ring_priv ? HS_OK : hs_fail(err, HS_EINTERNAL, "out of memory");
    for (int gi = 0; status == HS_OK && gi < g->n_groups; gi++) {
        const tg_group *gr = &g->groups[gi];
        eng_hier *h = s->hier[gi];
        if (ring[gi])
            s->ring_priv[gi] = private_ring(s, (eng_ring){gr->ranks, gr->n, 1, 0, NULL, NULL, false, 1});
        if (!h)
            continue;
        h->intra_priv = calloc((size_t)h->n_nodes, sizeof *h->intra_priv);
        h->inter_priv = calloc((size_t)h->per_node, sizeof *h->inter_priv);
        if (!h->intra_priv || !h->inter_priv) {
            status = hs_fail(err, HS_EINTERNAL, "out of memory for private rings");
            break;
        }
        for (int c = 0; c < h->n_nodes; c++)
            h->intra_priv[c] = private_ring(
                s, (eng_ring){h->by_node + (size_t)c * h->per_node, h->per_node, 1, 0, NULL, NULL, false, 1});
        for (int j = 0; j < h->per_node; j++)
            h->inter_priv[j] =
                private_ring(s, (eng_ring){h->by_node + j, h->n_nodes, h->per_node, 0, NULL, NULL, false, 1});
    }
    free(ring);
    return status;
}

int eng_private_prepare(eng_sim *s, char *err)
{
    if (s->opt.exact_messages || s->host_mem || s->has_tree || s->mbox.used == 0)
        return HS_OK;
    int status = find_edges(s, err);
    if (status == HS_OK && s->n_private > 0)
        status = find_rings(s, err);
    if (status != HS_OK || s->n_private == 0 ||
        (s->opt.fidelity == ENG_FLOW && s->rings_over_budget == 0))
        return status; /* flow mode computes edges one by one only in blocks */
    s->wait_sem = calloc((size_t)s->g->n_ranks, sizeof *s->wait_sem);
    if (!s->wait_sem)
        return hs_fail(err, HS_EINTERNAL, "out of memory for private edges");
    for (int r = 0; r < s->g->n_ranks; r++)
        s->wait_sem[r] = sg_sem_init(0);
    return HS_OK;
}

void eng_private_release(eng_sim *s)
{
    for (int gi = 0; s->hier && gi < s->g->n_groups; gi++) {
        eng_hier *h = s->hier[gi];
        for (int c = 0; h && h->intra_priv && c < h->n_nodes; c++)
            free_pring(h->intra_priv[c]);
        for (int j = 0; h && h->inter_priv && j < h->per_node; j++)
            free_pring(h->inter_priv[j]);
        if (h)
            free(h->intra_priv), free(h->inter_priv), h->intra_priv = h->inter_priv = NULL;
    }
    for (int gi = 0; s->ring_priv && gi < s->g->n_groups; gi++)
        free_pring(s->ring_priv[gi]);
    for (int r = 0; s->wait_sem && r < s->g->n_ranks; r++)
        sg_sem_destroy(s->wait_sem[r]);
    free(s->ring_priv);
    free(s->edges);
    free(s->wait_sem);
    s->ring_priv = NULL;
    s->edges = NULL;
    s->wait_sem = NULL;
    s->n_private = 0;
}

/* A computed message from rank `from` to rank `to`, for whoever watches (link statistics). */
static void tell(const eng_sim *s, int from, int to, double bytes, double start_s, double end_s)
{
    if (s->opt.computed)
        s->opt.computed(s->opt.computed_ctx, s->gpu_of_rank[from], s->gpu_of_rank[to], bytes,
                        start_s, end_s);
}

/* Flow mode: edge i's message is posted when member i has slept for the other steps'
 * latencies (as ring_steps does) and starts when member i + 1 has posted its receive, on
 * arrival; the ring ends with its last message. */
double eng_flow_end(const eng_sim *s, eng_ring v, int steps, double bytes)
{
    const eng_pring *r = v.priv;
    double end = 0;
    for (int i = 0; i < r->n; i++) {
        double sleep_s = (steps - 1) * r->latency_s[i];
        double put = sleep_s > 0 ? r->arrive_s[i] + sleep_s : r->arrive_s[i];
        double get = r->arrive_s[(i + 1) % r->n], start = put > get ? put : get;
        double at = lone_end(start, r->latency_s[i], r->bandwidth_Bps[i], bytes);
        tell(s, eng_ring_member(v, i), eng_ring_member(v, i + 1), bytes, start, at);
        if (at > end)
            end = at;
    }
    return end;
}

bool eng_private_meet(eng_sim *s, eng_ring v, int steps, long chunk)
{
    eng_pring *r = v.priv;
    double bytes = (double)steps * (double)chunk;
    r->arrive_s[v.pos] = simgrid_get_clock();
    r->arrived++;
    s->messages++;
    s->computed++;
    s->bytes_sent += bytes;
    s->messages_received++; /* a ring: each member receives what it sends */
    s->bytes_received += bytes;
    sg_barrier_wait(v.bar);
    /* Everyone has arrived; the first member to go on computes for all, before any can sleep
     * (actors run one at a time, and all of them run before the clock moves). */
    if (r->arrived < r->n)
        return false;
    r->end_s = eng_flow_end(s, v, steps, bytes);
    r->arrived = 0;
    return true;
}

void eng_private_flow(eng_sim *s, eng_ring v, int steps, long chunk)
{
    eng_private_meet(s, v, steps, chunk);
    eng_sleep_until(v.priv->end_s);
}

/* Every step of every member of the ring: step k of edge i starts when member i has posted it
 * (sent) and member i + 1 too (to receive), and a member posts its next step when both of its
 * messages of this one have arrived. Leaves in post_s when each member's last step ends. */
static void ring_recurrence(const eng_sim *s, eng_ring v, int steps, double bytes)
{
    eng_pring *r = v.priv;
    int n = r->n;
    memcpy(r->post_s, r->arrive_s, (size_t)n * sizeof *r->post_s);
    for (int k = 0; k < steps; k++) {
        for (int i = 0; i < n; i++) {
            double put = r->post_s[i], get = r->post_s[(i + 1) % n];
            double start = put > get ? put : get;
            r->edge_end_s[i] = lone_end(start, r->latency_s[i], r->bandwidth_Bps[i], bytes);
            tell(s, eng_ring_member(v, i), eng_ring_member(v, i + 1), bytes, start,
                 r->edge_end_s[i]);
        }
        for (int i = 0; i < n; i++) {
            double out = r->edge_end_s[i], in = r->edge_end_s[(i + n - 1) % n];
            r->post_s[i] = out > in ? out : in;
        }
    }
}

void eng_private_steps(eng_sim *s, eng_ring v, int steps, long chunk)
{
    eng_pring *r = v.priv;
    r->arrive_s[v.pos] = simgrid_get_clock();
    r->arrived++;
    s->messages += steps;
    s->computed += steps;
    s->bytes_sent += (double)steps * (double)chunk;
    s->messages_received += steps; /* a ring: each member receives what it sends */
    s->bytes_received += (double)steps * (double)chunk;
    sg_barrier_wait(r->bar);
    if (r->arrived == r->n) { /* the first member to go on, as in eng_private_flow */
        ring_recurrence(s, v, steps, (double)chunk);
        r->arrived = 0;
    }
    eng_sleep_until(r->post_s[v.pos]);
}

/* ---- private edges (step mode, and flow mode's blocks) ----------------------------------- */

/* The latency of the route from rank a to rank b. */
static double edge_latency_of(const eng_sim *s, int a, int b)
{
    return sg_host_get_route_latency(s->plat->gpus[s->gpu_of_rank[a]],
                                     s->plat->gpus[s->gpu_of_rank[b]]);
}

/* This end of edge e posted a step at `now`: note it, and wake the other end if it waits. */
static void post(eng_sim *s, eng_pedge *e, bool sender, double now)
{
    if (sender)
        e->send_s[e->sent++ % 2] = now;
    else
        e->recv_s[e->received++ % 2] = now;
    if (e->waiter >= 0 && e->sent == e->received) {
        sg_sem_release(s->wait_sem[e->waiter]);
        e->waiter = -1;
    }
}

/* When the message of this end's last step on e arrives (waiting for the other end to post);
 * the sender tells of it (to: the receiving rank). */
static double arrival(eng_sim *s, eng_pedge *e, bool sender, int rank, int to, long bytes)
{
    long k = sender ? e->sent : e->received;
    while ((sender ? e->received : e->sent) < k) {
        e->waiter = rank;
        sg_sem_acquire(s->wait_sem[rank]);
    }
    double put = e->send_s[(k - 1) % 2], get = e->recv_s[(k - 1) % 2];
    double start = put > get ? put : get;
    double end = lone_end(start, e->latency_s, e->bandwidth_Bps, (double)bytes);
    if (sender)
        tell(s, rank, to, (double)bytes, start, end);
    return end;
}

void eng_private_block(eng_sim *s, eng_ring v, int k, long chunk)
{
    int me = eng_ring_member(v, v.pos), left = eng_ring_member(v, v.pos - 1);
    int right = eng_ring_member(v, v.pos + 1);
    int in = eng_pair_edge(s, left, me), out = eng_pair_edge(s, me, right);
    long bytes = (long)k * chunk;
    sg_comm_t c[2];
    void *payload;
    int n = 0;
    double now = simgrid_get_clock(), end = 0;
    /* The messages that are sent go first, so that they start when they would have. */
    if (in < 0)
        c[n++] = sg_mailbox_get_async(eng_mbox(s, left, me), &payload);
    if (out < 0) {
        if (k > 1) /* a block: its steps' latencies but one first, as ring_steps' flows */
            sg_actor_sleep_for((k - 1) * edge_latency_of(s, me, right));
        c[n++] = eng_post_send(s, me, right, bytes);
    } else {
        s->messages++;
        s->computed++;
        s->bytes_sent += (double)bytes;
        post(s, &s->edges[out], true, now + (k - 1) * s->edges[out].latency_s);
    }
    if (in >= 0) {
        s->messages_received++;
        s->bytes_received += (double)bytes;
        post(s, &s->edges[in], false, now);
    }
    if (out >= 0)
        end = arrival(s, &s->edges[out], true, me, right, bytes);
    if (in >= 0) {
        double at = arrival(s, &s->edges[in], false, me, left, bytes);
        end = at > end ? at : end;
    }
    sg_comm_wait_all(c, (size_t)n);
    if (in < 0)
        eng_received(s, payload, bytes);
    eng_sleep_until(end);
}

void eng_private_step(eng_sim *s, eng_ring v, long chunk)
{
    eng_private_block(s, v, 1, chunk);
}
