/* engine_int.h: the state the engine's two files share; not part of the public interface.
 *
 * engine.c runs the streams (two SimGrid actors per rank, their ordering and the results);
 * engine_comm.c turns communication tasks into point-to-point messages (mailboxes, rings,
 * hierarchical allreduce, exchanges) at the chosen fidelity. Both see one eng_sim, built
 * before the simulation starts and read by every actor. SimGrid actors are cooperative (only
 * one runs at a time and it yields only inside a SimGrid call), so the actors update the
 * shared counters without locks. */
#ifndef ENGINE_INT_H
#define ENGINE_INT_H

#include <stdbool.h>
#include <stdint.h>

#include <simgrid/barrier.h>
#include <simgrid/comm.h>
#include <simgrid/mailbox.h>
#include <simgrid/semaphore.h>

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
} eng_hier;

/* Open-addressing table from an ordered rank pair to its SimGrid mailbox, so a message costs
 * a hash probe instead of formatting and looking up a name. */
typedef struct {
    uint64_t *keys;         /* src * n_ranks + dst + 1; 0 marks a free slot */
    sg_mailbox_t *boxes;    /* the mailbox of the pair in the same slot */
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
} eng_rank_state;

typedef struct {
    const tg_graph *g;
    const plat_platform *plat;
    const int *gpu_of_rank;
    eng_options opt;
    eng_rank_state *rs;     /* n_ranks */
    uint8_t **awaited;      /* per rank, per task: 1 if a task of the other stream waits for it */
    int *member_start;      /* n_ranks + 1: rank r's groups are entries [start[r], start[r+1]) */
    int *member_group;      /* those entries' group indices, increasing */
    int *member_pos;        /* and the rank's position in each */
    eng_hier **hier;        /* per group: its layout if a hierarchical allreduce uses it */
    sg_bar_t *ring_bar;     /* per group, flow mode: a barrier of its members, or NULL */
    eng_mbox_table mbox;
    sg_host_t *host_mem;    /* per rank: the host standing for its node's host memory, through
                             * which staged messages go (engine_comm.c), or NULL; the array is
                             * NULL when no task is staged */
    long messages;          /* point-to-point messages posted */
    double bytes_sent;      /* their payload */
    long messages_received; /* receives completed */
    double bytes_received;  /* the payload their receivers expected */
    double **start_s;       /* with record_tasks: per rank, per task */
    double **end_s;
} eng_sim;

/* engine_comm.c */

/* Check the communication tasks against the groups and platform, and build the group index,
 * the hierarchical layouts and (flow mode) the barriers. Called before the actors start. */
int eng_comm_prepare(eng_sim *s, char *err);

/* Run communication task t of rank `rank` in the calling actor; returns when it has finished. */
void eng_comm_run(eng_sim *s, int rank, const tg_task *t);

/* Free what eng_comm_prepare built. */
void eng_comm_release(eng_sim *s);

/* The rank's position in group `group`, or -1 if it is not a member. */
int eng_group_pos(const eng_sim *s, int rank, int group);

#endif
