/* fabric.h: several jobs (and background traffic) on one platform, simulated together.
 *
 * `hybridsim simulate -p PLATFORM --job SPEC [--job SPEC ...] [--background SPEC ...]
 * [--baseline] [--links FILE.csv] [--json]`. Every job is expanded on its own (its workload,
 * strategy, GPU count, batch and GPUs), the graphs are merged into one with rank and group
 * offsets, and ONE engine run simulates them all, so their messages share the links they have
 * in common. Each job's report then stands on its own: its iteration read off its own ranks.
 *
 * Job spec, keys separated by commas (README "Shared fabric"):
 *   w=WORKLOAD s=STRATEGY g=GPUS b=BATCH      required (as -w -s -g -b)
 *   name=NAME                                 label (default job1, job2, ...)
 *   layers=FILE  S=MICRO_BATCHES               as --layers and --micro-batches
 *   gpus=LIST                                 the job's GPUs, rank r on the r-th (LIST: ranges
 *                                             joined by '+', e.g. 0-127+512-639); g= may be left
 *                                             out then
 *   racks=LIST placement=packed|spread        otherwise: whole free nodes taken from these
 *                                             racks (default all), in node order (packed) or
 *                                             dealt round-robin over them (spread)
 * GPU sets must be disjoint (HS_EINPUT naming both --job flags otherwise); jobs without gpus=
 * take nodes nobody uses yet, in the order the flags come.
 *
 * Background spec: from=NODES,to=NODES,rate=BANDWIDTH[,gpu=G]: one flow from each node of
 * `from` to the node at the same position of `to` (the shorter list repeats), from GPU G's
 * host of one to GPU G's host of the other (default 0: through PCIe, NIC 0 and the fabric),
 * each at most `rate`, for the whole run.
 *
 * --baseline also simulates each job alone on the same GPUs (no other job, no background), in
 * forked child processes since SimGrid allows one engine per process, and reports alone vs
 * shared.
 *
 * Folder: sim/fabric/ (this is its main header): several jobs on one machine (fb_; fabric_int.h
 * lists the files). May include sim/run, sim/report and what they include; never analytic/. */
#ifndef FABRIC_H
#define FABRIC_H

#include <stdbool.h>
#include <stdio.h>

#include "engine.h"
#include "hs_error.h"
#include "job.h"

typedef struct {
    const char *platform;                /* -p: path or short name */
    eng_fidelity fidelity;               /* --collectives */
    double step_budget_messages;         /* --step-budget (eng_options'), 0: the default */
    const char *const *jobs;             /* --job texts, in order */
    int n_jobs;
    const char *const *backgrounds;      /* --background texts */
    int n_backgrounds;
    bool baseline;                       /* --baseline: also each job alone */
    bool json;                           /* --json: a JSON array, else tables */
    const char *links_path;              /* --links FILE.csv, or NULL */
    bool links_all;                      /* --links-all */
    const js_settings *run_wide;         /* the job keys given outside --job (--compute,
                                          * --halo, ...): for every job they apply to
                                          * (js_key.only) that does not say its own */
} fb_request;

/* Parse, place, expand, run and report (to out). HS_EINPUT with a message naming the flag
 * (--job N, --background N) or file for any bad input, before anything is simulated. */
int fb_run(const fb_request *req, FILE *out, char *err);

#endif
