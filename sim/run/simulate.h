/* simulate.h: one simulated run, from (workload, platform, strategy, batch) to an estimate.
 *
 * Expands the strategy into task graphs, places the ranks, runs the engine (with, on request,
 * the link statistics and a trace), and reads the iteration off the rank that finished last
 * (critical.h). Memory is the strategy's footprint (footprint.h), the same the analytic model
 * reports. One run per process (SimGrid). */
#ifndef SIMULATE_H
#define SIMULATE_H

#include <stdbool.h>
#include <stdint.h>

#include "compute.h"
#include "critical.h"
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
    double step_budget_messages; /* --step-budget: flow mode's step budget (eng_options'),
                            * 0 for the engine's default */
    pl_kind placement;     /* --placement packed|spread|scatter */
    bool overlap;          /* --overlap: tasks in data order (ex_options.overlap), else the
                            * blocking order the analytic model assumes */
    const char *trace_path;        /* --trace: Chrome trace file to write, NULL: none */
    const tr_gpu_set *trace_gpus;  /* --trace-gpus: the GPUs the trace keeps, NULL: all */
    lk_stats *links;       /* --links: when non-NULL, the run's link statistics go here (free
                            * with lk_stats_free) */
    bool links_untraced;   /* the statistics are for compare's explanation, not --links: keep
                            * the busiest links out of the trace */
} sm_options;

/* Simulate one configuration into *est (times and memory). With details, also what the
 * critical rank did (free with cr_details_free); with opt->trace_path, also the trace file
 * (trace.h): HS_EINPUT before anything runs if --trace-gpus names a GPU the run does not use
 * or the file cannot be made. */
int sm_run(const wl_workload *wl, const kt_compute *kc, const plat_platform *plat,
           const st_strategy *st, int64_t batch, const sm_options *opt, hs_estimate *est,
           cr_details *details, char *err);

/* The engine's options for a run at this fidelity. Kernel durations are the workload's
 * measured seconds on its calibration device, whatever the platform's GPU, as in the analytic
 * model, so that both answer the same question (a platform of another GPU generation would need
 * a calibration for that device, not a peak-FLOP ratio). */
eng_options sm_engine_options(eng_fidelity fidelity, bool record_tasks);

/* How an engine run is watched: with links non-NULL the link statistics are collected around
 * it, messages from GPU gpu_of_rank[r] counted for job job_of_rank[r] (NULL: all job 0) of
 * n_jobs; before_run (if set) is called once the collector exists (NULL when there is none)
 * and before the engine starts, to add actors of its own (fabric's background flows). */
typedef struct {
    lk_stats *links;
    int n_jobs;
    const int *job_of_rank;
    int (*before_run)(void *ctx, lk_collector *col, char *err);
    void *ctx;
} sm_watch;

/* The invariants every simulated run must satisfy (invariants.c): no negative or NaN time,
 * every message received as sent (and as SimGrid delivered it, with links: the statistics of
 * the run, else NULL), each rank's iteration its compute plus its exposed communication and
 * so at least its compute. HS_EINTERNAL naming the broken one. */
int sm_check_run(const eng_result *res, const lk_stats *links, char *err);

/* eng_run with the watch (NULL: none), its result checked (sm_check_run). The collector is
 * ended even when the run fails. */
int sm_engine_run(const tg_graph *g, const plat_platform *plat, const int *gpu_of_rank,
                  const eng_options *opt, const sm_watch *watch, eng_result *res, char *err);

#endif
