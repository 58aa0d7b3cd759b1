/* breakdown.h: where one rank's simulated iteration goes, layer by layer and phase by phase.
 *
 * From the task times the engine recorded (eng_options.record_tasks), every task of the rank is
 * charged to its layer and phase (tg_task.layer, tg_task.phase): kernels as compute seconds,
 * communication tasks as communication seconds, and the part of a communication task during
 * which the rank's compute stream stood idle as exposed communication. The compute stream is
 * idle only while it waits for communication or after its last kernel, so the exposed parts
 * add up to the engine's exposed_comm_s, and compute + exposed over all cells to the rank's
 * end time. Tasks of no single layer (the fused gradient allreduce, layer -1) are kept apart. */
#ifndef BREAKDOWN_H
#define BREAKDOWN_H

#include "engine.h"
#include "hs_error.h"
#include "taskgraph.h"
#include "workload.h"

/* One (layer, phase) of one rank. */
typedef struct {
    double compute_s;      /* its kernels */
    double comm_s;         /* its communication tasks, start to end */
    double exposed_comm_s; /* the part of comm_s during which no kernel of the rank ran */
} bd_cell;

typedef struct {
    int rank;                          /* the rank described */
    const wl_layer *layer_info;        /* borrowed from the workload: names and types */
    int n_layers;
    bd_cell (*layers)[TG_PHASE_COUNT]; /* per layer, per phase (tg_phase) */
    bd_cell shared[TG_PHASE_COUNT];    /* tasks that belong to no single layer */
} bd_breakdown;

/* Break rank `rank` of a run down (res must carry task times). HS_EINTERNAL if it does not, or
 * a task names a layer the workload does not have; on failure *bd is left empty. */
int bd_from_run(const tg_graph *g, const eng_result *res, int rank, const wl_workload *wl,
                bd_breakdown *bd, char *err);

void bd_free(bd_breakdown *bd);

/* A stretch of time during which a rank's compute stream ran no kernel. The breakdown and the
 * simulator's per-term exposed/waiting split (simulate.c) both measure communication against
 * these gaps, so both take them from here. */
typedef struct {
    double from_s; /* the gap's start */
    double to_s;   /* its end */
} bd_gap;

/* The compute stream's gaps of one rank (kernels run one after the other), in time order, up
 * to rank_end_s: before its first kernel, between kernels, after its last. start_s, end_s are
 * the rank's task times. Returns how many (*out to free), or -1 when memory runs out. */
int bd_compute_gaps(const tg_rank *list, const double *start_s, const double *end_s,
                    double rank_end_s, bd_gap **out);

/* The part of [from_s, to_s) inside the gaps, from gap *first on. Intervals asked about in
 * time order let *first move on past the gaps that end before one: they cannot touch the
 * next. */
double bd_idle_within(const bd_gap *gaps, int n_gaps, int *first, double from_s, double to_s);

/* A layer's cells summed over the phases (layer -1: the shared cells); the whole rank's. */
bd_cell bd_layer_sum(const bd_breakdown *bd, int layer);
bd_cell bd_total(const bd_breakdown *bd);

/* What a layer adds to the rank's iteration time: its compute plus exposed communication. */
double bd_layer_time_s(const bd_breakdown *bd, int layer);

/* The layer indices, most time first (ties: lower index first); order holds n_layers ints. */
void bd_rank_layers(const bd_breakdown *bd, int *order);

#endif
