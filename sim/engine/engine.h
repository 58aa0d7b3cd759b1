/* engine.h: runs a task graph on the SimGrid platform and measures what happened.
 *
 * Every rank becomes SimGrid actors on its GPU host: one per stream (compute, communication)
 * when they can overlap, one for both when its tasks form a chain (the blocking order).
 * Kernels are waits of their length on the GPU host (a GPU runs one rank's kernels, one at a
 * time: nothing shares it, so no SimGrid execution is needed); collectives are decomposed into
 * point-to-point messages by algorithm, at one of two fidelities:
 *   ENG_STEP  every step of the algorithm is its own set of messages (exact, O(p^2) messages);
 *   ENG_FLOW  one flow per ring edge carrying the whole volume, the other steps' latencies added
 *             (O(p) messages), then the group waits for its slowest edge, as a ring does;
 *             a ring whose links other traffic of the graph may join or leave during the
 *             collective (point-to-point messages, other groups' different collectives, other
 *             jobs') runs step by step instead, since one flow per edge would miss the
 *             slowdown moving from edge to edge (engine_exposed.c).
 * On an uncongested platform both give latency + bytes/bandwidth per step, as the analytic
 * model says; where flows share links, SimGrid's bandwidth sharing adds the contention. An
 * allreduce runs as a ring, hierarchically (rings inside and across nodes), as NCCL's double
 * binary tree (engine_tree.c, flows at either fidelity) or as NCCL's rings over every NIC of a
 * node (engine_rings.c), as its task says (tg_algo).
 * A message of a task flagged TG_FLAG_STAGED goes through host memory (MPI without
 * GPUDirect): it pays the platform's staging_latency_s, and between two GPUs of a node whose
 * host memory the platform declares (plat_host_memory) it crosses the sender's PCIe link into
 * it and the receiver's out of it, both copies at once, instead of NVLink; it is delivered
 * when both copies are done.
 * A ring message whose route's links (switches aside) carry no other message of the run is
 * computed instead of sent, with SimGrid's arithmetic for a lone flow (engine_private.c): the
 * same times, but for SimGrid's clock rounding, unless exact_messages; link statistics are told
 * of each (eng_options.computed), so watching a run does not change it. In flow mode a stretch
 * of kernels and collectives on one such ring, which nothing else can take part in, is
 * computed ahead for all its members once they meet (engine_segment.c): the same times.
 *
 * Folder: sim/engine/ (this is its main header): task graphs run on SimGrid (eng_). May include
 * sim/expand, platforms/, workloads/common/ and SimGrid; never analytic/. */
#ifndef ENGINE_H
#define ENGINE_H

#include <stdbool.h>

#include "hs_error.h"
#include "platform.h"
#include "taskgraph.h"

typedef enum { ENG_FLOW, ENG_STEP } eng_fidelity;

/* A message the engine computed instead of sending (engine_private.c), as SimGrid would have
 * delivered it: from and to which GPU, its payload, when its transfer started (both ends there)
 * and when it ended. */
typedef void (*eng_message_fn)(void *ctx, int from_gpu, int to_gpu, double bytes,
                               double start_s, double end_s);

typedef struct {
    eng_fidelity fidelity;
    double exec_speed_scale; /* kernel seconds on the GPU = task seconds * this (1 when the
                              * platform's GPU is the workload's calibration device) */
    bool record_tasks;       /* fill eng_result.task_start_s/task_end_s */
    bool exact_messages;     /* send every message through SimGrid: when something outside the
                              * graph uses links too (background traffic) */
    eng_message_fn computed; /* if not NULL, told of every message computed instead of sent
                              * (link statistics see them as SimGrid's deliveries); and link
                              * statistics watch: every message is posted, then waited for,
                              * as they time a message by its sender's wait */
    void *computed_ctx;      /* its first argument */
    double step_budget_messages; /* flow mode: the messages an iteration exposed rings may
                              * spend on their steps (engine_exposed.c); 0 for the default,
                              * ENG_STEP_BUDGET_MESSAGES */
    bool relay_all;          /* every staged message inside a node through a relay actor, no
                              * synchronous sender its own relay (engine_p2p.c): the same
                              * times, slower; tests compare the two */
} eng_options;

typedef struct {
    double end_s;            /* when the rank's last task finished */
    double compute_busy_s;   /* time its compute stream ran kernels */
    double comm_busy_s;      /* time its communication stream was inside a task */
    double exposed_comm_s;   /* time its compute stream waited for a communication task,
                              * plus communication still running after its last kernel
                              * (so end_s = compute_busy_s + exposed_comm_s) */
    int rings_stepped;       /* flow mode: of eng_result.rings_stepped, the groups whose first
                              * member is this rank (a job's share: the sum over its ranks) */
    int rings_over_budget;   /* the same for eng_result.rings_over_budget */
} eng_rank_stats;

typedef struct {
    double makespan_s;       /* the iteration's wall time: the last rank's end */
    eng_rank_stats *ranks;   /* per rank */
    int n_ranks;
    double **task_start_s;   /* with record_tasks: per rank, per task (else NULL) */
    double **task_end_s;
    long messages;           /* point-to-point messages the run sent */
    double bytes_sent;       /* their total payload */
    long computed;           /* of them, messages on private links computed, not sent
                              * through SimGrid (engine_private.c): same times */
    long in_segments;        /* of those, the collectives computed ahead in segments, with the
                              * kernels between them (engine_segment.c): same times */
    long self_relayed;       /* of the messages, staged ones whose synchronous sender copied
                              * them through host memory itself, not a relay actor
                              * (engine_p2p.c): same times */
    long messages_received;  /* the messages the receivers took, and the payload they
                              * expected: equal to the sent ones in a sound run (sim/run) */
    double bytes_received;
    int rings_stepped;       /* flow mode: groups whose rings ran step by step, as traffic may
                              * come and go on their links (engine_exposed.c) */
    int rings_over_budget;   /* and such groups over the step budget, run in blocks of
                              * steps: their contention is approached (step mode is exact) */
} eng_result;

/* Run the graph with rank r on GPU gpu_of_rank[r] of the loaded platform (one rank per GPU).
 * SimGrid's engine cannot be reset, so the platform is loaded once per process; runs may follow
 * one another on it (each reports times from its own start), but a sweep should fork.
 * HS_EINPUT if the graph does not fit the platform (too many ranks, a GPU out of range or used
 * twice, a hierarchical allreduce over a group with unequal members per node); HS_EINTERNAL if
 * the graph is malformed or the simulation deadlocks (mismatched sends/receives or a cycle of
 * `after` links: an expansion bug), with the stuck rank and task in the message. */
int eng_run(const tg_graph *g, const plat_platform *plat, const int *gpu_of_rank,
            const eng_options *opt, eng_result *res, char *err);

void eng_result_free(eng_result *res);

/* Can a job of `ranks` ranks on a platform of which built_gpus GPUs are in SimGrid fit the
 * memory limits in force (hs_mem.h: ulimit -v and -d, the memory cgroup, the memory available)?
 * HS_EINPUT with what it needs and the limit that binds otherwise. Call before building the
 * platform (plat_engine_gpus): eng_run checks its actors again before they start. */
int eng_fit_job(long built_gpus, long ranks, char *err);

#endif
