/* taskgraph.h: the program every GPU (rank) runs for one training iteration.
 *
 * The expansion (expand.h) turns a strategy into one task list per rank; the engine (engine.h)
 * runs the lists on SimGrid. A rank has two streams, as a GPU with a compute stream and a
 * communication (NCCL/MPI) stream: kernels run in list order on the compute stream, messages and
 * collectives in list order on the communication stream. A task starts when the previous task of
 * its stream has finished and, if `after` is set, when that task of the other stream has finished.
 * Cross-rank dependencies exist only through messages: a collective or receive completes when
 * its data has arrived. So compute and communication overlap exactly where the lists allow. */
#ifndef TASKGRAPH_H
#define TASKGRAPH_H

#include <stdbool.h>
#include <stdint.h>

#include "hs_error.h"

typedef enum {
    TG_EXEC,           /* a kernel of `amount` seconds on the calibration device (compute stream) */
    TG_ALLREDUCE,      /* allreduce of an `amount`-byte buffer over a group */
    TG_ALLGATHER,      /* allgather: every member contributes `amount` bytes, all get everything */
    TG_REDUCE_SCATTER, /* reduce-scatter of an `amount`-byte buffer: each member keeps 1/n */
    TG_SEND,           /* `amount` bytes to rank `peer` */
    TG_RECV,           /* `amount` bytes from rank `peer` */
    TG_EXCHANGE,       /* halo exchange: send `amount` bytes to every peer of group `group` and
                        * receive as much from each, all at once */
    TG_SHIFT,          /* send `amount` bytes to one rank and receive from another (what that
                        * rank sends), both posted at once and waited for together
                        * (MPI_Sendrecv); the group is {send peer, receive peer}, which may be
                        * the same rank */
    TG_OP_COUNT
} tg_op;

typedef enum {
    TG_ALGO_RING,      /* ring: reduce-scatter + allgather for allreduce */
    TG_ALGO_HIER,      /* hierarchical allreduce: ring inside the node, ring across nodes among
                        * the GPUs of equal local index, then inside the node again */
    TG_ALGO_TREE,      /* NCCL's double binary tree: a chain inside each node, two binary
                        * trees over the nodes, each carrying half the buffer (collective.h) */
    TG_ALGO_RINGS,     /* NCCL's rings over every NIC of a node: co_ring_count rings at once, each
                        * carrying 1/r of the buffer and entering every node on another member
                        * (collective.h) */
    TG_ALGO_AUTO,      /* rings or tree as NCCL 2.4 chooses for the size and the group's nodes;
                        * the engine decides once it knows where the ranks are */
    TG_ALGO_COUNT
} tg_algo;

typedef enum {
    TG_FORWARD,        /* forward kernel, or forward-pass communication */
    TG_BACKWARD_INPUT, /* gradient with respect to the layer input */
    TG_BACKWARD_WEIGHT,/* gradient with respect to the weights */
    TG_UPDATE,         /* weight update */
    TG_GRADIENT,       /* gradient exchange among data-parallel replicas */
    TG_PHASE_COUNT
} tg_phase;

/* tg_task.flags */
#define TG_FLAG_STAGED 0x01 /* the task's messages go through host memory (MPI without
                             * GPUDirect): each pays the platform's staging latency, and one
                             * between GPUs of a node crosses PCIe, not NVLink (engine.h). The
                             * sender's flag decides; the expansion sets it on both ends. */
#define TG_FLAG_SYNC 0x02   /* TG_SEND: synchronous (MPI_Ssend): done when the receiver has the
                             * message, also when it is staged through host memory */
#define TG_FLAG_CYCLE 0x04  /* a collective a background cycle launches (Horovod's): it starts
                             * no earlier than the first multiple of tg_graph.cycle_time_s from
                             * the run's start at or after its `after` task ended */

typedef struct {
    uint8_t op;        /* tg_op */
    uint8_t phase;     /* tg_phase: what the task is for (reports, traces) */
    uint8_t algo;      /* tg_algo, collectives only */
    uint8_t flags;     /* TG_FLAG_*, communication tasks only */
    int32_t layer;     /* workload layer index, -1 when the task is not one layer's */
    int32_t peer;      /* TG_SEND/TG_RECV: the other rank; collectives/exchange/shift: group
                        * index; in a graph with slots, the index of the rank's slot holding
                        * that rank or group (read it with tg_peer) */
    int32_t after;     /* index in this rank's list of a task of the other stream that must
                        * finish first, -1 for none */
    double amount;     /* TG_EXEC: seconds; others: bytes (see tg_op) */
} tg_task;

typedef struct {
    int n;             /* members */
    int *ranks;        /* in ring order (for TG_EXCHANGE: the peers of one rank) */
} tg_group;

/* A rank's list. Ranks whose lists are equal task for task may share one array (tg_share):
 * data parallelism's ranks all run one list, so 131,072 ranks keep one copy, not 131,072.
 * A shared list is read-only: tg_add gives a rank that borrows one a copy of its own first,
 * and refuses to grow a list lent to later ranks. */
typedef struct {
    tg_task *tasks;    /* this rank's list */
    int n_tasks;
    size_t cap_tasks;  /* allocated (0 while borrowed) */
    int owner;         /* the rank whose array `tasks` is: this rank, or an earlier one */
    bool lent;         /* owner: later ranks borrow its array */
} tg_rank;

typedef struct {
    int n_ranks;
    tg_rank *ranks;    /* n_ranks lists */
    tg_group *groups;  /* communicator groups, shared by the ranks that use them */
    int n_groups;
    size_t cap_groups;
    double cycle_time_s; /* the period of the cycle TG_FLAG_CYCLE tasks wait for, 0: none */
    int n_slots;       /* 0: tasks name their peer rank or group themselves; else they name one
                        * of their rank's n_slots slots, so that ranks of one role (the spatial
                        * group's first, say) run one list whatever their group (tg_peer) */
    int32_t *slots;    /* n_ranks * n_slots: rank r's slots at r * n_slots, each a rank or a
                        * group index, -1 if unused */
} tg_graph;

int tg_init(tg_graph *g, int n_ranks, char *err);
void tg_free(tg_graph *g);

/* Append a task to a rank's list; returns its index, or -1 on allocation failure (or if the
 * list is lent to later ranks, tg_share). */
int tg_add(tg_graph *g, int rank, tg_task task);

/* Let rank `rank` borrow the list of rank rank-1 if the two are equal task for task (bit for
 * bit), freeing its own. Call once both lists are complete: the lent one can no longer grow.
 * Returns whether it now borrows. */
int tg_share(tg_graph *g, int rank);

/* Let rank `rank`, whose list is empty, borrow the complete list of the earlier rank `from`
 * (which can then no longer grow): for a rank known to run the same tasks. Returns 0 (and
 * does nothing) if rank's list is not empty, from's is, or from is not earlier. */
int tg_borrow(tg_graph *g, int rank, int from);

/* Give every rank n_slots slots, all -1 (the graph must have no task yet). HS_EINTERNAL when
 * out of memory. */
int tg_init_slots(tg_graph *g, int n_slots, char *err);

/* The rank (TG_SEND, TG_RECV) or group (other communication tasks) that task t of rank `rank`
 * names: its peer itself, or in a graph with slots, the slot it names; -1 for a slot that does
 * not exist. */
static inline int tg_peer(const tg_graph *g, int rank, const tg_task *t)
{
    if (g->n_slots == 0)
        return t->peer;
    return t->peer >= 0 && t->peer < g->n_slots ? g->slots[(size_t)rank * g->n_slots + t->peer]
                                                : -1;
}

/* Give back what doubling left unused in every list (a rank sharing a list points to the
 * owner's array again, wherever realloc moved it). */
void tg_shrink(tg_graph *g);

/* Ranks that own their list (the others share an earlier rank's): the number of distinct
 * arrays. */
int tg_lists(const tg_graph *g);

/* Register a group (the ranks are copied); returns its index, or -1 on allocation failure. */
int tg_add_group(tg_graph *g, const int *ranks, int n);

/* Append g's groups and tasks to all, g's rank r becoming all's rank rank_offset + r (all must
 * have those ranks, and no slots; g's tasks name their peers themselves in all): several jobs'
 * graphs in one run. HS_EINTERNAL when out of memory;
 * HS_EINPUT when both graphs have a cycle (cycle_time_s), of different periods. */
int tg_append(tg_graph *all, const tg_graph *g, int rank_offset, char *err);

/* The stream a task runs on: 0 compute (TG_EXEC), 1 communication (everything else). */
static inline int tg_stream(const tg_task *t) { return t->op == TG_EXEC ? 0 : 1; }

const char *tg_op_name(tg_op op);
const char *tg_phase_name(tg_phase phase);

#endif
