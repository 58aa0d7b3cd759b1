/* report.h: prints an estimate as a readable table, one CSV-like row, or the JSON of DESIGN.md. */
#ifndef REPORT_H
#define REPORT_H

#include <stdint.h>
#include <stdio.h>

#include "breakdown.h"
#include "estimate.h"
#include "links.h"
#include "strategy.h"

/* What was run, as the reports name it. */
typedef struct {
    const char *mode;       /* "analytic" or "simulate" */
    const char *workload;   /* short name */
    const char *platform;   /* short name */
    st_strategy strategy;
    int64_t batch;          /* global mini-batch B */
    double gpu_memory_bytes;/* the platform's, for the memory verdict */
    const bd_breakdown *layers; /* the simulated critical rank per layer, or NULL: printed in
                                 * the table and the simulated JSON ("layers") */
    int layers_top;         /* table: the layers shown, most time first (-1: all, 0: none) */
    const lk_stats *links;  /* the simulation's link statistics, or NULL: printed in the table
                             * and the simulated JSON ("links") */
    int links_job;          /* whose congestion share the summary gives: a job, -1 all */
} rp_run;

void rp_print_table(FILE *out, const rp_run *run, const hs_estimate *est);

/* One line per run, for scripts that tabulate many runs; rp_print_row_header names the columns. */
void rp_print_row_header(FILE *out);
void rp_print_row(FILE *out, const rp_run *run, const hs_estimate *est);

/* The JSON object of one run (no trailing newline, so it can be nested). */
void rp_print_json(FILE *out, const rp_run *run, const hs_estimate *est);

/* compare: both estimates side by side and the agreement 1 - |sim - an| / sim on the iteration
 * total; `explanation` (may be NULL) says what accounts for a difference above 2%. */
double rp_agreement(const hs_estimate *analytic, const hs_estimate *simulated);
void rp_print_compare_table(FILE *out, const rp_run *run, const hs_estimate *analytic,
                            const hs_estimate *simulated, const char *explanation);
void rp_print_compare_json(FILE *out, const rp_run *run, const hs_estimate *analytic,
                           const hs_estimate *simulated, const char *explanation);

#endif
