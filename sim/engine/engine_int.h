/* engine_int.h: the state the engine's files share; not part of the public interface.
 *
 * The files are layers: a file calls only files of the layers below its own (the calls in
 * brackets), never one of its layer or above. The sections below, one per file, are in this
 * order, bottom first:
 *   0  engine_mbox.c     the mailbox of every ordered rank pair, in a hash table
 *      engine_fit.c      whether the run's actors fit the machine
 *      engine_layout.c   where a rank stands in its groups; the rings their collectives run on
 *      engine_kernels.c  a rank's kernels in fused runs, run or computed ahead
 *   1  engine_p2p.c      point-to-point messages: posted, received, relayed through host
 *                        memory (by a relay actor, or by a synchronous sender itself:
 *                        engine_sg.cpp), sent and received at once, synchronous (mbox)
 *   2  engine_private.c  ring edges whose links nothing else uses, computed, not sent
 *      engine_tree.c     an allreduce as NCCL's double binary tree
 *      engine_rings.c    an allreduce as NCCL's rings over every NIC of a node
 *                                                              (each: p2p, mbox)
 *   3  engine_segment.c  kernels and collectives on a private ring computed ahead together
 *                                                              (private, kernels, p2p)
 *      engine_exposed.c  the rings flow mode runs step by step (contention that moves)
 *                                                              (private, tree, rings, mbox)
 *   4  engine_comm.c     a communication task run: its messages, its rings, its algorithm
 *                                  (segment, private, tree, rings, layout, p2p, mbox)
 *      engine_prepare.c  the tasks checked, and what they need built, before the run
 *                                  (exposed, private, tree, rings, layout, p2p, mbox)
 *   5  engine.c          the streams of every rank, the run and its results (engine.h)
 *                                                              (comm, prepare, kernels, fit)
 * All see one eng_sim, built before the simulation starts and read by every actor. SimGrid
 * actors are cooperative (only one runs at a time and it yields only inside a SimGrid call),
 * so the actors update the shared counters without locks. */
#ifndef ENGINE_INT_H
#define ENGINE_INT_H

#include <stdbool.h>
#include <stdint.h>

#include <simgrid/barrier.h>
#include <simgrid/comm.h>
#include <simgrid/mailbox.h>
#include <simgrid/semaphore.h>

#include "collective.h"
#include "engine.h"

/* A group laid out for the hierarchical allreduce: the members on one node form an intra-node
 * ring, the members of equal local index across nodes an inter-node ring. */
typedef struct {
    int per_node;           /* k: members on every node the group spans */
    int n_nodes;            /* C: nodes the group spans */
    int *by_node;           /* C*k ranks: node c's members, in group order, at [c*k, c*k+k) */
    int *node_of;           /* per group position: the node slot c of that member */
    int *local_of;          /* per group position: its local index j on that node */
    sg_bar_t *intra_bar;    /* flow mode: C barriers of k members, else NULL */
    sg_bar_t *inter_bar;    /* flow mode: k barriers of C members, else NULL */
    struct eng_pring **intra_priv; /* per node slot, its ring if all private */
    struct eng_pring **inter_priv; /* per local index, likewise */
    bool exposed;           /* flow mode: its rings run step by step (engine_exposed.c) */
    /* the tree (engine_tree.c), when a tree or NCCL's choice uses the group: */
    sg_bar_t tree_bar;      /* all members meet after each phase, NULL until prepared */
    int tree_depth;         /* edges from the deepest member to the root: chain + tree */
    double tree_alpha_s;    /* the largest latency of a tree edge */
    double tree_beta_s_per_byte; /* the largest 1/bandwidth of a tree edge */
    /* NCCL's rings over every NIC (engine_rings.c): */
    int rings;              /* rings at once (eng_rings_count): 1 runs the group's own ring */
    sg_bar_t rings_bar;     /* flow mode, once the rings are prepared: all members meet */
    double rings_chain_s;   /* flow mode, with rings_bar: the longest chain of edge latencies
                             * the rings' steps cross (co_ring_chain_s), once for all members */
} eng_hier;

/* The most rings NCCL's rings allreduce runs at once (collective.h). */
#define ENG_RINGS_MAX CO_RINGS_MAX

/* A ring every edge of which is private (engine_private.c): what its members need to compute
 * when the messages of a collective on it arrive. */
typedef struct eng_pring {
    int n;                  /* members */
    double *latency_s;      /* per edge i -> i+1: its route's latency, */
    double *bandwidth_Bps;  /* bottleneck bandwidth, */
    double *arrive_s;       /* and when member i arrived at the current collective */
    double *post_s;         /* step mode: when member i posts the step being computed, */
    double *edge_end_s;     /* and when edge i's message of that step arrives */
    sg_bar_t bar;           /* step mode: the members' meeting (flow mode has the ring's) */
    int arrived;            /* members arrived at this collective, not yet computed */
    double end_s;           /* flow mode: when this collective ends */
    int *seg_at;            /* flow mode, a computed segment: where member i goes on (list
                             * index), -1 for none (engine_segment.c) */
    double *seg_end_s;      /* and when its segment ends */
    int *seg_task;          /* while computing one: member i's next collective (list index) */
} eng_pring;

/* SimGrid's time precision (surf/precision, which --cfg does not change): events less than
 * this apart happen at once, and it is the shortest sleep. */
#define ENG_SURF_PRECISION 1e-9

/* A private edge in step mode: the times its two ends posted their last steps. A side ahead
 * of the other by a step waits for it: neither can be two steps ahead (each step needs the
 * other's message), so the two last steps are all that is kept. */
typedef struct {
    long sent, received;    /* steps posted by the sender, by the receiver */
    double send_s[2];       /* when the sender posted step k, at [k % 2] (k from 0) */
    double recv_s[2];       /* when the receiver posted it */
    int waiter;             /* the rank waiting for the other side to post, or -1 */
    double latency_s, bandwidth_Bps; /* of the route */
} eng_pedge;

/* A relay of staged messages, reused (engine_p2p.c). */
typedef struct eng_relay eng_relay;

/* A ring as a strided view of a rank array: member i is base[i * stride]. */
typedef struct {
    const int *base;
    int n;                  /* members */
    int stride;
    int pos;                /* the calling rank's position */
    sg_bar_t bar;           /* flow mode: the members' barrier */
    eng_pring *priv;        /* non-NULL when every edge is private */
    bool exposed;           /* flow mode: other traffic may come and go on its links, so it
                             * runs step by step (engine_exposed.c) */
    int blocks;             /* flow mode: a collective's steps run as this many rings of
                             * flows, one after the other (exposed over the budget:
                             * engine_exposed.c); 1 for one flow per edge */
} eng_ring;

static inline int eng_ring_member(eng_ring v, int i)
{
    return v.base[(size_t)(((i % v.n) + v.n) % v.n) * (size_t)v.stride];
}

/* Open-addressing table from an ordered rank pair to its SimGrid mailbox (engine_mbox.c). */
typedef struct {
    uint64_t *keys;         /* src * n_ranks + dst + 1; 0 marks a free slot */
    sg_mailbox_t *boxes;    /* the mailbox of the pair in the same slot */
    int *edge;              /* channel 0: its private edge in eng_sim.edges, or -1 */
    size_t cap;             /* slots, a power of two */
    size_t used;            /* occupied slots */
} eng_mbox_table;

/* One rank's two streams while the simulation runs. Stream 0 computes, stream 1 communicates. */
typedef struct {
    int done_pos[2];        /* every task of stream s before this list index has finished */
    int waiting_for[2];     /* list index of the other stream's task stream s is blocked on, or -1 */
    int current[2];         /* list index of the task stream s is at (diagnostics) */
    bool finished[2];       /* stream s ran to the end of the list */
    sg_sem_t wake[2];       /* stream s sleeps on it while waiting; NULL if it never waits */
    double last_end_s[2];   /* when the last task of stream s finished */
    double busy_s[2];       /* time stream s spent inside its tasks */
    double exposed_s;       /* time the compute stream waited for communication */
    sg_comm_t *scratch;     /* room for the comms of this rank's widest exchange */
    void **payloads;        /* and for the payloads of its receives */
    int seg_next;           /* after a computed segment (engine_segment.c): the list index to
                             * go on from, the segment's tasks accounted for; else -1 */
    double *done_s;         /* with a cycle (tg_graph.cycle_time_s): per list index, when an
                             * awaited kernel ended (what a TG_FLAG_CYCLE task waited for);
                             * else NULL */
} eng_rank_state;

typedef struct {
    const tg_graph *g;
    const plat_platform *plat;
    const int *gpu_of_rank;
    eng_options opt;
    eng_rank_state *rs;     /* n_ranks */
    uint8_t **awaited;      /* per rank, per task: 1 if a task of the other stream waits for it */
    bool *one_actor;        /* per rank: its list is one chain, run by a single actor */
    int *member_start;      /* n_ranks + 1: rank r's groups are entries [start[r], start[r+1]) */
    int *member_group;      /* those entries' group indices, increasing */
    int *member_pos;        /* and the rank's position in each */
    eng_hier **hier;        /* per group: its layout if a hierarchical allreduce uses it */
    sg_bar_t *ring_bar;     /* per group, flow mode: a barrier of its members, or NULL */
    eng_mbox_table mbox;
    eng_pring **ring_priv;  /* per group: its ring if all its edges are private */
    uint8_t *ring_exposed;  /* flow mode, per group: 1 if its rings run step by step, as other
                             * traffic may come and go on their links (engine_exposed.c) */
    uint8_t *ring_over;     /* flow mode, per group: 1 if exposed but over the budget, run in
                             * blocks of steps (engine_exposed.c) */
    int rings_stepped;      /* flow mode: groups whose rings run step by step */
    int rings_over_budget;  /* and exposed groups run in blocks, over the step budget */
    int ring_blocks;        /* flow mode: the blocks (eng_ring.blocks) of those groups' rings */
    eng_pedge *edges;       /* step mode: the private edges */
    int n_private;          /* private edges (0: every message is sent) */
    sg_sem_t *wait_sem;     /* step mode, per rank with a private edge: where it waits */
    bool has_tree;          /* some allreduce may run as a tree or NCCL's rings: no message
                             * is computed (engine_private.c), their pairs are not the group
                             * rings' */
    int nics_per_node;      /* the platform's (plat_nics_per_node), for NCCL's choice */
    eng_relay **relay_idle; /* per rank, with host_mem: its idle relays (engine_p2p.c) */
    sg_mailbox_t *up_box;   /* per rank: its mailbox of copies up, whose permanent receiver is
                             * a sink (engine_p2p.c), or NULL; the array NULL if no rank has */
    sg_sem_t sink_sem;      /* the sinks wait on it, never released; or NULL */
    sg_host_t *host_mem;    /* per rank: the host standing for the host memory it stages
                             * through (its node's or its CPU's: plat_host_memory), or NULL;
                             * the array is NULL when no task is staged */
    long messages;          /* point-to-point messages posted */
    long computed;          /* of them, computed on private links */
    long in_segments;       /* of those, collectives computed ahead in segments */
    long self_relayed;      /* of them, staged ones whose synchronous sender was its own relay
                             * (engine_p2p.c) */
    double bytes_sent;      /* their payload */
    long messages_received; /* receives completed */
    double bytes_received;  /* the payload their receivers expected */
    double **start_s;       /* with record_tasks: per rank, per task */
    double **end_s;
    double t0_s;            /* the clock when the run started (the cycles count from it) */
} eng_sim;

/* engine_fit.c */

/* Can n_actors actors run on this machine? Chooses guard pages for their stacks (unless the
 * user set contexts/guard-size) and refuses (HS_EINPUT, with what is needed and the setting
 * that helps) when the memory mappings or the memory they need are not there. Call before the
 * first actor starts. */
int eng_fit_actors(long n_actors, char *err);

/* engine_mbox.c */

/* Give the ordered rank pair a mailbox on the channel (before the simulation): 0, -1 when out
 * of memory. */
int eng_mbox_add(eng_sim *s, int src, int dst, int channel);
/* The pair's mailbox on the channel (0: its messages; 1: staged ones, to their relay), and on
 * channel 0. */
sg_mailbox_t eng_mbox_on(const eng_sim *s, int src, int dst, int channel);
sg_mailbox_t eng_mbox(const eng_sim *s, int src, int dst);
/* The pair's slot in the mailbox table (channel 0), -1 if it has none; its private edge, or -1. */
long eng_pair_slot(const eng_sim *s, int src, int dst);
int eng_pair_edge(const eng_sim *s, int src, int dst);
/* The pair and channel of a key of the table. */
void eng_pair_of(const eng_sim *s, uint64_t key, int *src, int *dst, int *channel);

/* engine_layout.c */

/* The rank's position in group `group`, or -1 if it is not a member. */
int eng_group_pos(const eng_sim *s, int rank, int group);

/* The rings a group's collectives run on, seen from the member at group position pos: the
 * group's own (its barrier and private state, whether it is exposed), and the intra-node ring
 * of pos's node and the inter-node ring of pos's local index in the hierarchical layout h
 * (with these barriers, or NULL). */
eng_ring eng_group_ring(const eng_sim *s, int group, int pos);
eng_ring eng_intra_ring(const eng_hier *h, int pos, sg_bar_t *bars);
eng_ring eng_inter_ring(const eng_hier *h, int pos, sg_bar_t *bars);

/* engine_kernels.c */

/* The first task of `stream` at list index `from` or later (n_tasks if none). */
static inline int eng_next_of(const tg_rank *list, int stream, int from)
{
    while (from < list->n_tasks && tg_stream(&list->tasks[from]) != stream)
        from++;
    return from;
}

/* Run the kernels of the fused run starting at list index i on the calling actor (one wait of
 * its length), record and account them; returns the run's last index. */
int eng_run_kernels(eng_sim *s, int r, int i);

/* Rank r's kernels from list index i on, as the actor runs them from date *t_s: returns the
 * index of the first task that is not a kernel; *t_s becomes when the last kernel ends. commit:
 * also record them and account them in the rank's state, as running them does. */
int eng_kernels_ahead(eng_sim *s, int r, int i, double *t_s, bool commit);

/* engine_p2p.c */

/* Chunk sizes are whole bytes: SimGrid sizes messages in bytes. */
long eng_chunk_bytes(double bytes);

/* A message posted into the pair's mailbox (counted). */
sg_comm_t eng_post_send(eng_sim *s, int src, int dst, long bytes);

/* Is a staged message from src to dst relayed through host memory (both on one node whose
 * host memory the platform declares; the relay is on the sender's)? */
bool eng_relayed(const eng_sim *s, int src, int dst);

/* A receive of `bytes` (as the receiver expects them) has completed with this payload: count
 * it (the run's invariants compare it with what was sent), and if it came from a relay, wait
 * for the relay's other copy as well. */
void eng_received(eng_sim *s, void *payload, long bytes);

/* The mailbox's permanent receiver (NULL: none), and the mailbox emptied of what it holds
 * (engine_sg.cpp); both from outside the actors too. */
void eng_mbox_set_receiver(sg_mailbox_t mailbox, sg_actor_t receiver);
void eng_mbox_clear(sg_mailbox_t mailbox);
/* A blocking put, a blocking get (returning the payload): each one SimGrid call, where the C
 * API's post, then wait (engine_sg.cpp). Link statistics never see a blocking put (no Comm
 * object, no signal: sim/observe/links_sg.cpp): only for messages nobody watches. */
void eng_mbox_put(sg_mailbox_t mailbox, void *payload, long bytes);
void *eng_mbox_get(sg_mailbox_t mailbox);
/* Has a started message of at least one byte ended? Read without a SimGrid call. */
bool eng_comm_over(sg_comm_t comm);
/* The calling actor moved to `host` (a message it posts, or one posted earlier that starts
 * meanwhile, leaves from there). Only the caller: SimGrid carries out
 * the messages posted in a round after all its actors have run, so another actor moved now
 * may have moved on before its message starts (a sink shared by all senders, moved before
 * each copy up, changed the run's times). */
void eng_actor_move(sg_host_t host);
/* A message posted (as sg_mailbox_put_async), then the calling actor moved to `host`, in one
 * SimGrid call: the message leaves from where the actor was. */
sg_comm_t eng_put_async_move(sg_mailbox_t mailbox, void *payload, long bytes, sg_host_t host);
/* The mailbox emptied (eng_mbox_clear), then the calling actor moved, in one SimGrid call. */
void eng_mbox_clear_move(sg_mailbox_t mailbox, sg_host_t host);

/* A message from src to dst, through host memory when staged (TG_FLAG_STAGED) and relayed
 * (eng_relayed); its caller pays the staging latency. */
sg_comm_t eng_send(eng_sim *s, int src, int dst, long bytes, bool staged);

/* The latency of the path a message from src to dst takes (a relayed one: its slower half). */
double eng_edge_latency(const eng_sim *s, int src, int dst, bool staged);

/* Rank `rank` receives `bytes` from every rank of `from` and sends them to every rank of `to`,
 * all posted at once (the receives first), the staging paid once; returns when all are done. */
void eng_sendrecv(eng_sim *s, int rank, const int *to, int n_to, const int *from, int n_from,
                  double bytes, bool staged);

/* A synchronous send (TG_FLAG_SYNC, MPI_Ssend): returns when the receiver has the message,
 * and, staged, the staging latency after that. */
void eng_sync_send(eng_sim *s, int rank, int dst, double bytes, bool staged);

/* The sinks of copies up the run needs (one per host memory of a rank that sends staged
 * messages as its own relay); eng_sinks_start starts them and registers their mailboxes before
 * the ranks' actors start (HS_OK, or HS_EINTERNAL out of memory), eng_sinks_release, after the
 * run, empties and frees those. */
long eng_sinks_count(const eng_sim *s);
int eng_sinks_start(eng_sim *s, char *err);
void eng_sinks_release(eng_sim *s);

/* engine_private.c */

/* Links by identity: an open-addressing table of link pointers, sized for the routes of
 * `pairs` rank pairs; a user keeps its values in arrays of cap entries, indexed by slot. */
typedef struct {
    const void **keys;
    size_t cap;             /* a power of two */
} eng_link_table;

int eng_link_table_init(eng_link_table *t, size_t pairs); /* 0, -1 when out of memory */
/* The link's slot, the link entered there if it was not yet (the table never fills: see init). */
size_t eng_link_slot(eng_link_table *t, const void *link);

/* Mark (1) the mailbox slots of pairs that tasks other than ring collectives use: sends,
 * receives, exchanges and shifts. */
void eng_mark_point_to_point(const eng_sim *s, uint8_t *not_ring);

/* Find the ring edges whose route's links no other message of the run can use, and prepare
 * their state (after the mailboxes are registered). Nothing is private when the run has
 * background traffic or staged messages (eng_options.exact_messages, TG_FLAG_STAGED). */
int eng_private_prepare(eng_sim *s, char *err);
void eng_private_release(eng_sim *s);

/* Flow mode, a ring whose every edge is private: the members meet, then leave when the
 * slowest edge's message of steps * chunk bytes would have arrived. */
void eng_private_flow(eng_sim *s, eng_ring v, int steps, long chunk);

/* eng_private_flow without its sleep: the member arrives (counted), meets the others, and the
 * first to go on computes r->end_s for all (returns true for it, before any member sleeps). */
bool eng_private_meet(eng_sim *s, eng_ring v, int steps, long chunk);

/* When the flow-mode ring v's collective of steps * chunk bytes ends, its members having arrived
 * at v.priv->arrive_s (the slowest edge's message); each edge's message told of
 * (eng_options.computed). */
double eng_flow_end(const eng_sim *s, eng_ring v, int steps, double bytes);

/* Sleep until date t exactly (the clock reads t after), unless it is less than SimGrid's time
 * precision away. */
void eng_sleep_until(double t);

/* Step mode, a ring whose every edge is private: the members meet, one computes every step of
 * every member, each leaves when its last step would have ended. */
void eng_private_steps(eng_sim *s, eng_ring v, int steps, long chunk);

/* Step mode: one step of chunk bytes, private edges computed, others sent. */
void eng_private_step(eng_sim *s, eng_ring v, long chunk);

/* Flow mode, a block of k steps of a ring over the step budget (eng_ring.blocks): as
 * ring_steps' flows (each edge one message of k chunks, posted after k - 1 of its latencies),
 * private edges computed as eng_private_step's, others sent; k = 1 is eng_private_step. */
void eng_private_block(eng_sim *s, eng_ring v, int k, long chunk);

/* engine_tree.c */

/* A function applied to the ordered rank pairs of a set of edges. */
typedef void (*eng_edge_fn)(const eng_sim *s, int src, int dst, void *arg);

/* Apply fn to every pair the tree over the group laid out in h sends on (once prepared). */
void eng_tree_edges(const eng_sim *s, const eng_hier *h, eng_edge_fn fn, void *arg);

/* Prepare rank `rank` (group position pos) for a tree over the group laid out in h: its
 * mailboxes, and once per group the barrier, the depth and the slowest edge. */
int eng_tree_prepare(eng_sim *s, eng_hier *h, int pos, char *err);

/* The allreduce of `bytes` as NCCL's double binary tree (collective.h), run by the member at
 * position pos of the group laid out in h. */
void eng_tree_allreduce(eng_sim *s, const eng_hier *h, int pos, double bytes);

/* The algorithm an allreduce of the group laid out in h runs: TG_ALGO_AUTO resolved as NCCL
 * 2.4 would (its rings, or the ring when they are one, or the tree), any other returned as it
 * is. */
tg_algo eng_tree_choice(const eng_sim *s, const eng_hier *h, tg_algo algo, double bytes);

/* engine_rings.c */

/* The rings NCCL's rings allreduce runs for the group laid out in h (co_ring_count). */
int eng_rings_count(const eng_sim *s, const eng_hier *h);

/* Prepare rank `rank` (group position pos) for the rings of the group laid out in h (h->rings
 * set, at least 2): its mailboxes, and once per group the flow-mode barrier. */
int eng_rings_prepare(eng_sim *s, eng_hier *h, int pos, char *err);

/* Flow mode: apply fn to every pair the rings of the group laid out in h send on (once
 * prepared). */
void eng_rings_edges(const eng_sim *s, const eng_hier *h, eng_edge_fn fn, void *arg);

/* The allreduce of `bytes` on the rings, run by the member at position pos of the group laid
 * out in h. */
void eng_rings_allreduce(eng_sim *s, const eng_hier *h, int pos, double bytes);

/* engine_segment.c */

/* Does task t, on group `group` (tg_peer), run as a ring collective on the group's private
 * ring in flow mode (eng_comm_run then hands it to eng_private_segment)? Then its steps and
 * chunk bytes. */
bool eng_private_ring_task(const eng_sim *s, const tg_task *t, int group, int *steps,
                           long *chunk);

/* eng_private_flow for a group's ring, reached by a collective task of `rank`, that also
 * computes what follows it when it can (a computed segment): while every member's next tasks
 * are kernels and then a collective on the same private ring, nothing can meet them, so the
 * members' kernels and collectives are computed together, recorded and accounted for as
 * running them would, and each member sleeps once, to its segment's end
 * (eng_rank_state.seg_next says where it goes on). */
void eng_private_segment(eng_sim *s, int rank, eng_ring v, int steps, long chunk);

/* engine_exposed.c */

/* Flow mode runs exposed rings step by step while their messages an iteration stay within
 * this (about 7 s of simulation on 2 cores), the cheapest groups first. */
#define ENG_STEP_BUDGET_MESSAGES 1e6

/* Flow mode: mark the groups whose rings share a link with traffic that may come and go
 * (eng_sim.ring_exposed; ring_used: per group, 1 if a collective runs it as a ring), after the
 * mailboxes and layouts are registered. */
int eng_exposed_prepare(eng_sim *s, const uint8_t *ring_used, char *err);

/* engine_comm.c */

/* Run communication task t of rank `rank` in the calling actor; returns when it has finished. */
void eng_comm_run(eng_sim *s, int rank, const tg_task *t);

/* engine_prepare.c */

/* Check the communication tasks against the groups and platform, and build the group index,
 * the hierarchical layouts, the mailboxes and (flow mode) the barriers, then find the exposed
 * rings and the private edges. Called before the actors start. */
int eng_comm_prepare(eng_sim *s, char *err);

/* Free what eng_comm_prepare built. */
void eng_comm_release(eng_sim *s);

#endif
