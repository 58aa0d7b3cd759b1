/* simulate.h: one simulated run, from (workload, platform, strategy, batch) to an estimate.
 *
 * Expands the strategy into task graphs, places the ranks, runs the engine, and reads the
 * iteration off the rank that finished last (the critical rank): its compute busy time, its
 * communication busy time, the time its compute stream waited for communication, and the
 * makespan. One run per process (SimGrid). */
#ifndef SIMULATE_H
#define SIMULATE_H

#include <stdbool.h>
#include <stdint.h>

#include "analytic.h"
#include "breakdown.h"
#include "engine.h"
#include "estimate.h"
#include "links.h"
#include "placement.h"
#include "platform.h"
#include "strategy.h"
#include "trace.h"
#include "workload.h"

typedef struct {
    eng_fidelity fidelity; /* --collectives flow|step */
    pl_kind placement;     /* --placement packed|spread */
    bool overlap;          /* --overlap: tasks in data order (ex_options.overlap), else the
                            * blocking order the analytic model assumes */
    const char *trace_path;        /* --trace: Chrome trace file to write, NULL: none */
    const tr_gpu_set *trace_gpus;  /* --trace-gpus: the GPUs the trace keeps, NULL: all */
    lk_stats *links;       /* --links: when non-NULL, the run's link statistics go here (free
                            * with lk_stats_free) */
    bool links_untraced;   /* the statistics are for compare's explanation, not --links: keep
                            * the busiest links out of the trace */
} sm_options;

/* What the simulation adds to the estimate, for `compare` to explain differences. */
typedef struct {
    int critical_rank;            /* the rank that finished last */
    double comm_by_op_s[TG_OP_COUNT]; /* the critical rank's communication time per operation */
    long messages;                /* point-to-point messages simulated */
    double bytes_sent;
    bd_breakdown layers;          /* the critical rank per layer and phase */
    /* The critical rank's communication per analytic term (an_comm_kind), so that compare can
     * set each beside the model's. A task's waiting is the part before every rank it
     * exchanges with had started the matching task (the k-th collective on the group, the k-th
     * message of the pair): time lost to other ranks being late (pipeline bubbles, imbalance),
     * not to the transfer. */
    double term_comm_s[AN_COMM_COUNT];    /* its tasks, start to end */
    double term_exposed_s[AN_COMM_COUNT]; /* the part during which no kernel of the rank ran */
    double term_waiting_s[AN_COMM_COUNT]; /* the part of the exposed time spent waiting */
} sm_details;

/* Free what sm_run put in *details (the per-layer breakdown). */
void sm_details_free(sm_details *details);

/* Simulate one configuration into *est. With details, also what the critical rank did (free
 * with sm_details_free); with opt->trace_path, also the trace file (trace.h): HS_EINPUT before
 * anything runs if --trace-gpus names a GPU the run does not use or the file cannot be made. */
int sm_run(const wl_workload *wl, const plat_platform *plat, const st_strategy *st,
           int64_t batch, const sm_options *opt, hs_estimate *est, sm_details *details,
           char *err);

#endif
