/* engine_exposed.c: which flow-mode rings meet contention that comes and goes (engine_int.h).
 *
 * Flow mode sends one message per ring edge for all the steps of a collective. That is what
 * the steps give while every link the ring crosses carries the same traffic from the
 * collective's start to its end: SimGrid then shares each link as it would at every step. It
 * is not when a competitor arrives or leaves mid-way: each edge then meets the contention for
 * only part of its bytes, where a real ring waits at every step for its slowest edge (a 4-node
 * ring of 400 MB with a transfer on edge 0 then on edge 1: 72.0 ms as flows, 96.0 ms in
 * steps; tests/test_engine_contention.c).
 *
 * Whether that can happen is decided before the run from who may use which link. The rings of
 * groups whose collectives are the same ones (operation, size, algorithm, in the same order)
 * run side by side and meet each other the same way all along, as the data-parallel rings of
 * data+filter do, one per GPU of a node, through the node's NICs. Anything else on a ring's
 * link may come and go: a point-to-point message, a halo, another group's tree, a ring of
 * other collectives, another job's. Such a ring is exposed, and flow mode runs it step by step,
 * every step its own messages (engine_comm.c): exact, at a step ring's cost. Traffic the task
 * graph does not hold (background flows) lasts the whole run and exposes nothing.
 *
 * A rank runs its communication tasks one at a time (its communication stream), and a message
 * moves only while the ranks it needs are in its task: a direct message both its ends (a
 * rendezvous), a copy staged through host memory its sender (the copy up, which the sender
 * waits for) or its receiver (the relay's copy down, which waits for the receiver's receive).
 * So where every user of a link needs one same rank (a GPU's own PCIe link: what it sends or
 * what it receives), the link carries one task of that rank at a time, and a ring edge from or
 * to that rank meets nothing there: its ring stays flows (data+spatial's data-parallel rings
 * beside the halos staged through the same PCIe links, the node's ring beside the halos on the
 * same NVLink pair).
 *
 * The decision is static and cautious (the other traffic may never be in flight while the ring
 * runs), and steps cost a message each: a 1024-member ring allreduce is 2.1 million. So the
 * exposed groups run in steps while their messages stay within ENG_STEP_BUDGET_MESSAGES an
 * iteration, the cheapest first; the others run each collective as B rings of flows one after
 * the other (blocks of its steps, each one flow per edge: eng_ring.blocks), B as large as the
 * rest of the budget pays for, and the run says how many groups went which way. One flow per
 * edge for all the steps puts a collective's bytes in one stretch after all its latencies,
 * where a real ring alternates a step's latency with its transfer: against another job's ring
 * both stretches meet all along, where steps meet only part of the time. Blocks alternate too,
 * and their count is the resolution: two 1024-GPU jobs on racks 0-15, spread (ResNet-50 and
 * VGG16 data), add +3.78 ms to each other's iteration in steps, +5.99 ms in one block, +4.44 in
 * 8, +3.89 in 32, +3.78 in the 488 the budget pays (measured with the budget set by hand;
 * experiments/bench/engine.sh prints steps and the budget's blocks). */
#include "engine_int.h"

#include <limits.h>
#include <stdlib.h>

#include <simgrid/host.h>
#include <simgrid/link.h>
#include <xbt/dynar.h>

/* Classes of a pair's or a link's users: 0 none yet, MIXED more than one, else a group
 * signature (high bit set) or a pair of its own (its slot + 2). */
#define MIXED UINT64_C(1)

/* Links by identity, with the class of their users (cls[] by table slot) and the ranks every
 * one of those users needs in its task (hold[2 * slot], hold[2 * slot + 1]; -1: none). */
typedef struct {
    eng_link_table t;
    uint64_t *cls;
    int *hold;
} link_classes;

static uint64_t join(uint64_t have, uint64_t add)
{
    return have == 0 || have == add ? add : MIXED;
}

static uint64_t mix(uint64_t h, uint64_t v)
{
    h ^= v + UINT64_C(0x9E3779B97F4A7C15) + (h << 6) + (h >> 2);
    return h * UINT64_C(0xBF58476D1CE4E5B9);
}

/* The collectives group gi runs, as its first member runs them: equal for groups that run
 * the same collectives in the same order. */
static uint64_t group_signature(const eng_sim *s, int gi)
{
    const tg_group *gr = &s->g->groups[gi];
    const tg_rank *rk = &s->g->ranks[gr->ranks[0]];
    uint64_t h = mix(0, (uint64_t)gr->n);
    for (int i = 0; i < rk->n_tasks; i++) {
        const tg_task *t = &rk->tasks[i];
        if (t->op == TG_SEND || t->op == TG_RECV || t->op == TG_EXEC ||
            tg_peer(s->g, gr->ranks[0], t) != gi)
            continue;
        h = mix(mix(mix(h, t->op), t->algo), (uint64_t)(t->amount * 8));
    }
    return h | (UINT64_C(1) << 63);
}

/* Apply fn to every edge of the view's ring (member i to i + 1). */
static void each_edge(const eng_sim *s, eng_ring v, eng_edge_fn fn, void *arg)
{
    for (int i = 0; v.n > 1 && i < v.n; i++)
        fn(s, eng_ring_member(v, i), eng_ring_member(v, i + 1), arg);
}

/* Apply fn to every edge group gi's collectives may use: its ring, the intra- and inter-node
 * rings of its hierarchical layout, its tree and NCCL's rings. */
static void each_ring_edge(const eng_sim *s, int gi, eng_edge_fn fn, void *arg)
{
    const tg_group *gr = &s->g->groups[gi];
    const eng_hier *h = s->hier[gi];
    each_edge(s, (eng_ring){gr->ranks, gr->n, 1, 0, NULL, NULL, false, 1}, fn, arg);
    for (int c = 0; h && c < h->n_nodes; c++)
        each_edge(s, (eng_ring){h->by_node + (size_t)c * h->per_node, h->per_node, 1, 0, NULL,
                                NULL, false, 1}, fn, arg);
    for (int j = 0; h && j < h->per_node; j++)
        each_edge(s, (eng_ring){h->by_node + j, h->n_nodes, h->per_node, 0, NULL, NULL, false, 1},
                  fn, arg);
    if (h)
        eng_tree_edges(s, h, fn, arg), eng_rings_edges(s, h, fn, arg);
}

typedef struct {
    uint64_t *pair_cls; /* per mailbox slot */
    uint64_t sig;       /* the group being walked */
    link_classes links;
    bool exposed;       /* the walk met a link of mixed users */
    xbt_dynar_t route;  /* room for one pair's links, reused */
} walk;

static void classify_edge(const eng_sim *s, int src, int dst, void *arg)
{
    walk *w = arg;
    long slot = eng_pair_slot(s, src, dst);
    if (slot >= 0)
        w->pair_cls[slot] = join(w->pair_cls[slot], w->sig);
}

/* A user of link slot j, of class cls, that moves only while ranks h0 and h1 (h1 may be -1) are
 * in its task: the class joined, and the ranks every user needs narrowed to those it needs. */
static void add_user(link_classes *lc, size_t j, uint64_t cls, int h0, int h1)
{
    int *hold = lc->hold + 2 * j;
    if (lc->cls[j] == 0) {
        hold[0] = h0, hold[1] = h1;
    } else {
        for (int k = 0; k < 2; k++)
            if (hold[k] != h0 && hold[k] != h1)
                hold[k] = -1;
    }
    lc->cls[j] = join(lc->cls[j], cls);
}

/* Fold a route's links (switches aside: they never limit) into the classes of its users. */
static void add_route(walk *w, sg_host_t a, sg_host_t b, uint64_t cls, int h0, int h1)
{
    xbt_dynar_reset(w->route);
    sg_host_get_route(a, b, w->route);
    for (unsigned k = 0; k < xbt_dynar_length(w->route); k++) {
        sg_link_t l = xbt_dynar_get_as(w->route, k, sg_link_t);
        if (plat_link_is_shared(l))
            add_user(&w->links, eng_link_slot(&w->links.t, l), cls, h0, h1);
    }
}

/* Fold every pair's class into the classes of its links: a pair's messages need both its ranks,
 * a staged pair's relayed copies (channel 1) the sender up to host memory, the receiver down. */
static void classify_links(const eng_sim *s, walk *w)
{
    for (size_t i = 0; i < s->mbox.cap; i++) {
        int src, dst, ch;
        if (!s->mbox.keys[i])
            continue;
        eng_pair_of(s, s->mbox.keys[i], &src, &dst, &ch);
        uint64_t cls = ch == 0 && w->pair_cls[i] ? w->pair_cls[i] : (uint64_t)i + 2;
        sg_host_t a = s->plat->gpus[s->gpu_of_rank[src]], b = s->plat->gpus[s->gpu_of_rank[dst]];
        if (ch == 1 && s->host_mem) {
            add_route(w, a, s->host_mem[src], cls, src, -1);
            add_route(w, s->host_mem[src], b, cls, dst, -1); /* the relay's copy */
        } else {
            add_route(w, a, b, cls, src, dst);
        }
    }
}

static void check_edge(const eng_sim *s, int src, int dst, void *arg)
{
    walk *w = arg;
    if (w->exposed)
        return; /* one such edge exposes the group */
    xbt_dynar_reset(w->route);
    sg_host_get_route(s->plat->gpus[s->gpu_of_rank[src]], s->plat->gpus[s->gpu_of_rank[dst]],
                      w->route);
    for (unsigned k = 0; !w->exposed && k < xbt_dynar_length(w->route); k++) {
        sg_link_t l = xbt_dynar_get_as(w->route, k, sg_link_t);
        if (!plat_link_is_shared(l))
            continue;
        size_t j = eng_link_slot(&w->links.t, l);
        const int *hold = w->links.hold + 2 * j;
        bool held = (hold[0] >= 0 && (hold[0] == src || hold[0] == dst)) ||
                    (hold[1] >= 0 && (hold[1] == src || hold[1] == dst));
        w->exposed = w->links.cls[j] == MIXED && !held; /* else one task of src's or dst's */
    }
}

/* The messages group gi's collectives send an iteration when every step is its own: its
 * members times the steps of each collective its first member runs on it, as rings; and
 * (*per_block) when each collective is one ring of flows. */
static double group_step_messages(const eng_sim *s, int gi, double *per_block)
{
    const tg_group *gr = &s->g->groups[gi];
    const tg_rank *rk = &s->g->ranks[gr->ranks[0]];
    double steps = 0, collectives = 0;
    for (int i = 0; i < rk->n_tasks; i++) {
        const tg_task *t = &rk->tasks[i];
        if (tg_peer(s->g, gr->ranks[0], t) == gi &&
            (t->op == TG_ALLREDUCE || t->op == TG_ALLGATHER || t->op == TG_REDUCE_SCATTER)) {
            steps += (t->op == TG_ALLREDUCE ? 2.0 : 1.0) * (gr->n - 1);
            collectives++;
        }
    }
    *per_block = collectives * gr->n;
    return steps * gr->n;
}

typedef struct {
    double messages;
    double per_block;   /* its messages a block of steps (group_step_messages) */
    int group;
} group_cost;

static int by_messages(const void *a, const void *b)
{
    const group_cost *x = a, *y = b;
    return x->messages < y->messages ? -1 : x->messages > y->messages ? 1 : x->group - y->group;
}

/* Keep the exposed groups whose steps fit ENG_STEP_BUDGET_MESSAGES, the cheapest first; the
 * others run their rings as flows in blocks of steps (counted in s->rings_over_budget), as
 * many blocks as the rest of the budget pays for (s->ring_blocks, at least one). */
static int apply_step_budget(eng_sim *s, char *err)
{
    int n = 0, n_groups = s->g->n_groups;
    group_cost *c = malloc(((size_t)n_groups + 1) * sizeof *c);
    s->ring_over = calloc((size_t)n_groups + 1, 1);
    if (!c || !s->ring_over) {
        free(c);
        return hs_fail(err, HS_EINTERNAL, "out of memory budgeting the exposed rings");
    }
    for (int gi = 0; gi < n_groups; gi++)
        if (s->ring_exposed[gi]) {
            c[n].group = gi;
            c[n].messages = group_step_messages(s, gi, &c[n].per_block);
            n++;
        }
    qsort(c, (size_t)n, sizeof *c, by_messages);
    double budget = s->opt.step_budget_messages > 0 ? s->opt.step_budget_messages
                                                     : ENG_STEP_BUDGET_MESSAGES;
    double used = 0, stepped = 0, per_block = 0;
    for (int i = 0; i < n; i++) {
        used += c[i].messages;
        if (used <= budget) {
            s->rings_stepped++;
            stepped = used;
        } else {
            s->ring_exposed[c[i].group] = 0;
            s->ring_over[c[i].group] = 1;
            s->rings_over_budget++;
            per_block += c[i].per_block;
        }
    }
    double blocks = per_block > 0 ? (budget - stepped) / per_block : 1;
    s->ring_blocks = blocks < 1 ? 1 : blocks > INT_MAX ? INT_MAX : (int)blocks;
    free(c);
    return HS_OK;
}

int eng_exposed_prepare(eng_sim *s, const uint8_t *ring_used, char *err)
{
    const tg_graph *g = s->g;
    if (s->opt.fidelity != ENG_FLOW || s->mbox.used == 0)
        return HS_OK;
    walk w = {.pair_cls = calloc(s->mbox.cap, sizeof *w.pair_cls),
              .route = xbt_dynar_new(sizeof(sg_link_t), NULL)};
    uint8_t *p2p = calloc(s->mbox.cap, 1);
    int oom = eng_link_table_init(&w.links.t, s->mbox.used);
    w.links.cls = oom ? NULL : calloc(w.links.t.cap, sizeof *w.links.cls);
    w.links.hold = oom ? NULL : malloc(2 * w.links.t.cap * sizeof *w.links.hold);
    s->ring_exposed = calloc((size_t)g->n_groups + 1, 1);
    int status = HS_OK;
    if (!w.pair_cls || !p2p || !w.links.cls || !w.links.hold || !s->ring_exposed) {
        status = hs_fail(err, HS_EINTERNAL, "out of memory classifying links");
        goto done;
    }
    for (int gi = 0; gi < g->n_groups; gi++)
        if (ring_used[gi] || s->hier[gi]) {
            w.sig = group_signature(s, gi);
            each_ring_edge(s, gi, classify_edge, &w);
        }
    eng_mark_point_to_point(s, p2p);
    for (size_t i = 0; i < s->mbox.cap; i++)
        if (p2p[i]) /* a pair of its own, or mixed if a ring's edge too */
            w.pair_cls[i] = join(w.pair_cls[i], (uint64_t)i + 2);
    classify_links(s, &w);
    for (int gi = 0; gi < g->n_groups; gi++)
        if (ring_used[gi] || s->hier[gi]) {
            w.exposed = false;
            each_ring_edge(s, gi, check_edge, &w);
            s->ring_exposed[gi] = w.exposed;
        }
    status = apply_step_budget(s, err);
done:
    free(w.pair_cls);
    free(p2p);
    free(w.links.t.keys);
    free(w.links.cls);
    free(w.links.hold);
    xbt_dynar_free(&w.route);
    return status;
}
