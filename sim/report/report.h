/* report.h: prints an estimate as a readable table, one CSV-like row, or the JSON of DESIGN.md.
 *
 * Folder: sim/report/ (this is its main header): estimates printed as tables, rows and JSON (rp_).
 * May include sim/observe (for the per-layer and link summaries it prints), workloads/; never
 * analytic/ (compare hands it the model's parts already computed). */
#ifndef REPORT_H
#define REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "breakdown.h"
#include "estimate.h"
#include "hs_json.h"
#include "links.h"
#include "strategy.h"

/* What was run, as the reports name it. */
typedef struct {
    const char *mode;       /* "analytic" or "simulate" */
    const char *workload;   /* short name */
    const char *platform;   /* short name */
    st_strategy strategy;
    int64_t batch;          /* global mini-batch B */
    int64_t samples;        /* the workload's dataset, samples an epoch (0: not said) */
    double gpu_memory_bytes;/* the platform's, for the memory verdict */
    const bd_breakdown *layers; /* the simulated critical rank per layer, or NULL: printed in
                                 * the table and the simulated JSON ("layers") */
    int layers_top;         /* table: the layers shown, most time first (-1: all, 0: none) */
    const lk_stats *links;  /* the simulation's link statistics, or NULL: printed in the table
                             * and the simulated JSON ("links") */
    int links_job;          /* whose congestion share the summary gives: a job, -1 all */
    const char *compute;    /* where kernel times came from: "measured" or "model" (NULL:
                             * not said) */
    const char *device;     /* and for which GPU: the measurement's or the model's */
    const char *precision;  /* "mixed" or "bf16" (--precision), NULL for fp32 */
    const char *runtime;    /* --runtime's name (workloads/runtime/), NULL: none */
    int rings_stepped;      /* simulated in flow mode: groups whose rings ran step by step, as
                             * traffic may come and go on their links; */
    int rings_over_budget;  /* and such groups left as flows, over the step budget (both 0:
                             * nothing said) */
} rp_run;

void rp_print_table(FILE *out, const rp_run *run, const hs_estimate *est);

/* One line per run, for scripts that tabulate many runs; rp_print_row_header names the columns. */
void rp_print_row_header(FILE *out);
void rp_print_row(FILE *out, const rp_run *run, const hs_estimate *est);

/* The JSON object of one run (no trailing newline); rp_json_run writes it as the next value
 * of a writer, so that it can be nested (a fabric's jobs, compare's two sides). */
void rp_print_json(FILE *out, const rp_run *run, const hs_estimate *est);
void rp_json_run(hs_json *j, const rp_run *run, const hs_estimate *est);

/* Times as the next value of j: {"compute_s", "comm_s"[, "exposed_comm_s"], "total_s"}. */
void rp_json_times(hs_json *j, const hs_times *t, bool with_exposed);

/* One part of the iteration as both answers see it; the parts of a compare add up to each
 * answer's iteration total. */
typedef struct {
    const char *key;            /* JSON key ("compute", "halo_exchange", "waiting") */
    const char *label;          /* for the table ("the halo exchange") */
    double analytic_s;          /* what the model charges it */
    double simulated_s;         /* what it adds to the simulated critical rank's iteration */
    bool is_comm;               /* a communication term: the three below are meaningful */
    double simulated_comm_s;    /* its tasks on the critical rank, start to end */
    double simulated_exposed_s; /* the part when no kernel ran (simulated_s; a pipeline
                                 * leaves its waiting out of simulated_s) */
    double simulated_waiting_s; /* the part of that spent waiting for other ranks */
} rp_term;

/* What compare says about a difference. */
typedef struct {
    const char *text;           /* what accounts for a difference above 2%, "" or NULL if none */
    const rp_term *terms;       /* the parts, in print order */
    int n_terms;
    const lk_stats *links;      /* the run's link statistics (waiting per bottleneck kind), or
                                 * NULL if not recorded */
} rp_difference;

/* compare: both estimates side by side, the agreement 1 - |sim - an| / sim on the iteration
 * total, and (diff may be NULL) what accounts for the difference: the table prints the text
 * and, with it, the parts; the JSON "difference" (the text, when there is one),
 * "difference_terms" and "link_waiting_by_kind" / "link_waiting_share". */
double rp_agreement(const hs_estimate *analytic, const hs_estimate *simulated);
void rp_print_compare_table(FILE *out, const rp_run *run, const hs_estimate *analytic,
                            const hs_estimate *simulated, const rp_difference *diff);
void rp_print_compare_json(FILE *out, const rp_run *run, const hs_estimate *analytic,
                           const hs_estimate *simulated, const rp_difference *diff);

#endif
