/* expand_int.h: what sim/expand's files share (expand.h is the folder's public face).
 *   expand.c        the built-in strategies: one plan per layer, every rank's list from it
 *   expand_overlap.c  their backward in the overlap order: deferred weight gradients, buckets
 *   cursor.c        appending tasks to a rank's list, blocking or overlapped
 *   pipeline.c      GPipe's stages as task lists
 *   expand_plan.c   a per-layer plan (plan.h): kernels, halos, the passes, gradients
 *   expand_redist.c  its layers' outputs redistributed to their consumers, and back
 *                   (the two share expand_plan_int.h)
 *   layout.c        which rank holds which slice of a tensor, which needs which, and the
 *                   messages between them grouped into collectives
 *   taskgraph.c     the task graph itself
 * Nothing here is for use outside sim/expand. */
#ifndef EXPAND_INT_H
#define EXPAND_INT_H

#include <stdbool.h>

#include "compute.h"
#include "expand.h"
#include "precision.h"

/* ---- cursor.c ---- */

/* Where one rank's list stands while it is written. */
typedef struct {
    tg_graph *g;
    int rank;
    bool overlap;  /* ex_options.overlap */
    int last;      /* index of the task written last, -1 before the first */
    bool oom;      /* an append failed: the list is unusable */
} ex_cursor;

/* Append a task that needs the result of task `producer` (-1: nothing). In the overlap order
 * that is the dependency; in the blocking order the task written last is, which chains the
 * whole list into one sequence. Only a dependency on the other stream becomes `after`: the own
 * stream already runs in list order. Returns the task's index (-1 once out of memory). */
int ex_put(ex_cursor *c, tg_task t, int producer);
int ex_exec(ex_cursor *c, tg_phase phase, int layer, double seconds, int producer);
/* A collective, exchange or shift (peer = group index) or a send/receive (peer = rank);
 * flags: tg_task.flags. */
int ex_comm(ex_cursor *c, tg_op op, tg_phase phase, int layer, int peer, double bytes,
            uint8_t flags, int producer);
/* Send `send_bytes` to rank `to` while receiving `recv_bytes` from rank `from` (-1: no such
 * side): a TG_SHIFT over `group` ({to, from}) when there are both, else the one send or
 * receive. (A shift's amount is what it sends; it receives what its peer sends.) */
int ex_shift(ex_cursor *c, tg_phase phase, int layer, int to, int from, int group,
             double send_bytes, double recv_bytes, uint8_t flags, int producer);
/* A halo of `bytes` to each neighbour (lo, hi; -1: none) as ChainerMN's halo_exchange sends
 * it: each direction a synchronous send, then the receive, staged; returns the last task. */
int ex_halo_chain(ex_cursor *c, tg_phase phase, int layer, int lo, int hi, double bytes,
                  int producer);

/* ---- expand.c, expand_overlap.c: the built-in layer-wise strategies ---- */

#define EX_NO_OP TG_OP_COUNT /* "no collective" in a layer plan */

/* What one rank does for one layer of a layer-wise strategy (identical on every rank). */
typedef struct {
    double fw_s;          /* forward kernel */
    double bx_s;          /* input-gradient kernel */
    double bw_s;          /* weight-gradient kernel (written only when has_weights) */
    double wu_s;          /* weight update (written only when > 0) */
    bool has_weights;     /* the layer has a weight-gradient kernel */
    uint8_t y_op;         /* collective on the output y_l after the forward, EX_NO_OP: none */
    double y_bytes;       /* its amount (tg_task.amount semantics) */
    uint8_t dy_op;        /* collective on dL/dy_l before the layer's backward, EX_NO_OP: none */
    double dy_bytes;      /* its amount */
    uint8_t act_flags;    /* tg_task.flags of those two (spatial's split point is staged) */
    bool halo;            /* spatial: exchange a halo before the forward, after the backward */
    double halo_bytes;    /* to each neighbour (0 for a 2-wide window: start-ups only) */
    double grad_bytes;    /* what its weight gradients add to the gradient allreduces */
    bool dy_below;        /* a layer before it reduces or gathers its output gradient */
} ex_layer_plan;

/* A layer-wise strategy: the per-layer plans and the closing gradient exchange, which runs
 * first inside the model-parallel group (spatial: replicated weights), then across the groups
 * among the ranks of equal index (data, and the hybrids). */
typedef struct {
    ex_layer_plan *layers; /* n_layers plans, in layer order */
    int n_layers;
    double grad_model_bytes;  /* allreduce inside the group, 0: none */
    double grad_across_bytes; /* allreduce across the groups, 0: none */
    double bucket_bytes;      /* overlap order: gradients reduced in buckets of this size */
    double first_bucket_bytes; /* the first bucket the backward fills closes at this size
                                * (PyTorch DDP's 1 MiB; bucket_bytes when not said) */
    uint8_t bucket_flags;     /* overlap order: a bucket's first allreduce's flags
                               * (TG_FLAG_CYCLE under a runtime with a cycle) */
    bool after_backward;      /* overlap order: every bucket waits for the backward's end */
} ex_plan;

/* The communicators one rank uses (group indices in the graph, -1: none; once written into the
 * rank's slots, tg_graph.slots, the slots that hold them: what its tasks name). */
typedef struct {
    int model;    /* the p2 ranks splitting the layers with it */
    int across;   /* the p1 ranks of its index in the other groups */
    int lo, hi;   /* its spatial neighbours, the ranks before and after it (-1: none) */
    int shift_up; /* TG_SHIFT group {hi, lo} (send up, receive from below), -1 unless both */
    int shift_down; /* TG_SHIFT group {lo, hi} */
    bool chain;   /* halos sent, then received (st_strategy.halo_chain) */
} ex_rank_groups;

/* The overlap order's backward: what is written but waits to be. */
typedef struct {
    ex_cursor *c;
    const ex_plan *plan;
    const ex_rank_groups *grp;
    int *deferred;        /* layers whose weight-gradient kernel is not written yet */
    int *deferred_after;  /* and the task each needs (its layer's output gradient) */
    int n_deferred;
    double bucket_bytes;  /* gradients of the kernels written since the last bucket */
    int bucket_end;       /* the last of those kernels */
    bool first_closed;    /* the first bucket was reduced: the others take bucket_bytes */
    int grad;             /* the last gradient allreduce written, -1 for none */
    double *held;         /* plan->after_backward: the closed buckets' bytes, not written yet */
    int n_held;
} ex_backward;

/* A halo exchange of `bytes` with grp's neighbours in the given phase, after task `producer`
 * (expand.c); returns the last task. */
int ex__halo(ex_cursor *c, const ex_rank_groups *grp, tg_phase phase, int layer, double bytes,
             int producer);
/* The overlap order's backward from task `ready` (the forward's end), then its gradient
 * allreduces (expand_overlap.c); returns the last allreduce (-1: none). */
int ex__write_backward_overlap(ex_backward *b, int ready);

/* ---- pipeline.c ---- */

/* GPipe's stages: stage s runs layers first[s] .. first[s+1]-1 on rank rank[s] (NULL: s). */
typedef struct {
    const int *first;   /* n_stages + 1 entries */
    const int *rank;
    int n_stages;
    int segments;       /* micro-batches S */
    double batch;       /* B */
} ex_pipe;

int ex__pipeline(const wl_workload *wl, const kt_compute *kc, const ex_pipe *pp, bool overlap,
                 tg_graph *g, char *err);

/* ---- layout.c: slices, messages, collectives ---- */

enum { EX_BATCH, EX_CHAN, EX_W, EX_H, EX_D, EX_AXES };

/* A box of a tensor: [lo, hi) per axis (batch, channels, width, height, depth). */
typedef struct {
    int64_t lo[EX_AXES], hi[EX_AXES];
} ex_box;

/* The block of u's output rank t of u's group holds (after its partial sums are reduced). */
void ex__held(const wl_layer *u, const st_layer_config *c, int64_t batch, int t, ex_box *b);
/* The box of u's output rank t of v's group needs as v's input. */
void ex__needed(const wl_layer *u, const wl_layer *v, const st_layer_config *c, int64_t batch,
                int t, ex_box *b);
double ex__box_elems(const ex_box *b);

typedef struct {
    int src, dst;       /* ranks */
    double bytes;
} ex_msg;

typedef struct {
    ex_msg *m;
    int n;
    size_t cap;         /* room in m (hs_grow) */
} ex_msgs;

/* The messages that bring u's output (configuration cu) to where v (cv) needs it, forward:
 * every rank of v's group receives from one holder of each block its need overlaps the part
 * it does not hold. out is reused (n reset); -1 when out of memory. */
int ex__messages(const wl_workload *wl, const kt_compute *kc, int u, const st_layer_config *cu,
                 int v, const st_layer_config *cv, int64_t batch, ex_msgs *out);

/* Communicator groups registered once each, found again by their ranks. */
typedef struct {
    int *index;         /* hash slot -> group index in the graph, -1 empty */
    int n_slots;        /* a power of two (0 before the first group) */
    int used;           /* slots taken */
} ex_groups;

/* The index of the group with these ranks (in this order), registering it the first time;
 * -1 when out of memory. */
int ex__group(ex_groups *gs, tg_graph *g, const int *ranks, int n);
void ex__groups_free(ex_groups *gs);

/* A layer configuration's coordinates (plan.h), as bits: batch, replicas, input channels,
 * filters, depth, height, width. */
enum { EX_L_B = 1, EX_L_R = 2, EX_L_C = 4, EX_L_F = 8, EX_L_D = 16, EX_L_H = 32, EX_L_W = 64 };

/* The group of the ranks of c's group that share rank r's coordinates except those in `vary`
 * (EX_L_* bits), ascending, registered in gs; -1 when none of them varies, or (setting *oom)
 * when out of memory. */
int ex__line_group(ex_groups *gs, tg_graph *g, const st_layer_config *c, int r, unsigned vary,
                   bool *oom);

/* What moves a set of messages becomes. */
typedef enum { EX_MOVE_NONE, EX_MOVE_GATHER, EX_MOVE_ROUNDS } ex_move_kind;

typedef struct {
    ex_move_kind kind;
    int *group;         /* gather: per rank its group's index, -1 if it takes no part */
    double *piece;      /* gather: per rank the bytes each member of its group contributes */
    int *size;          /* gather: per rank its group's members */
    ex_msgs msgs;       /* rounds: the messages, by (src, dst) */
    int *ranks;         /* rounds: the ranks taking part, ascending */
    int n_ranks;
} ex_moves;

/* Recognise the messages (p ranks): gather groups where every member sends one piece to every
 * other, else pairwise rounds. mv is filled (free with ex__moves_free); -1: out of memory. */
int ex__moves_of(const ex_msgs *m, int p, ex_groups *gs, tg_graph *g, ex_moves *mv);
void ex__moves_free(ex_moves *mv);

/* The round k (1 .. n_ranks-1) exchange of rank r: bytes to send to *to and to receive from
 * *from (-1 when r takes no part). With `reverse`, the messages run backwards (the adjoint). */
void ex__round(const ex_moves *mv, int r, int k, bool reverse, int *to, double *send,
               int *from, double *recv);

/* ---- expand_plan.c ---- */

/* The task lists of a per-layer plan (st->kind == ST_LAYERWISE) into g (initialised), in the
 * order of opt->overlap (NULL: blocking); with opt->cycle_time_s too, the first gradient
 * allreduce after the backward is flagged TG_FLAG_CYCLE (a schedule's plan has none). */
int ex__expand_plan(const wl_workload *wl, const kt_compute *kc, const st_plan *plan, int64_t batch,
                    const ex_options *opt, tg_graph *g, char *err);

#endif
