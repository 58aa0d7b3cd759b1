/* fabric_int.h: what the shared fabric's files share (fabric.h is the folder's public face).
 *   fabric.c        fb_run: the steps in order, and freeing
 *   fabric_spec.c   --job and --background texts -> fb_job, fb_background
 *   fabric_run.c    placing, loading and expanding the jobs; the --baseline children; the
 *                   background flows; the shared run
 *   fabric_print.c  the tables and the JSON array
 * Nothing here is for use outside sim/fabric. */
#ifndef FABRIC_INT_H
#define FABRIC_INT_H

#include <stdbool.h>
#include <stdio.h>


#include "fabric.h"
#include "hs_child.h"
#include "placement.h"
#include "run.h"

/* Whole numbers given as ranges joined by '+' ("0-127+512-639"), expanded. */
typedef struct {
    int *v;
    int n;
} fb_list;

/* One --job, from its text to its results. */
typedef struct {
    int index;                /* 1-based position among the --job flags, for messages */
    char name[32];            /* name= or "jobN" */
    char *text;               /* owned copy of the spec, cut in place into the values below */
    js_settings spec;            /* w= s= g= b= layers= S= (g = 0 until known) */
    pl_kind placement;        /* placement= */
    fb_list gpu_list;         /* gpus=, n = 0 when not given */
    fb_list racks;            /* racks=, n = 0: all */
    int *gpu_of_rank;         /* spec.gpus entries once placed */
    bool runs_loader;         /* its GPUs each run an input loader (job_runs_loader) */
    int gpus_on_node;         /* once placed: the most GPUs running a loader, every job's, on
                               * a node it uses (their loaders share its CPU cores, job.h) */
    int own_gpus_on_node;     /* and the most of its own on one node (a --baseline's) */
    int rank_offset;          /* its first rank in the merged graph */
    job job;                  /* its workload and strategy, loaded */
    tg_graph graph;           /* its own graph (also what a --baseline child runs) */
    bool graph_made;
    hs_estimate shared;       /* the job in the shared run, with its memory */
    int rings_stepped;        /* flow mode: its groups whose rings ran step by step there */
    int rings_over_budget;    /* and its exposed groups run in blocks, over the step budget */
    hs_times alone;           /* --baseline: the job alone */
    hs_child child;           /* --baseline child (child.pid 0: none) */
} fb_job;

/* One --background: flows from[i] -> to[i]. */
typedef struct {
    int index;                /* 1-based position among the --background flags */
    fb_list from, to;         /* nodes */
    double rate_Bps;          /* cap per flow */
    int gpu;                  /* the GPU host of each node the flows start and end at */
} fb_background;

/* fabric_spec.c */
int fb_parse_job(const char *text, int index, const plat_platform *plat, fb_job *j, char *err);
int fb_parse_background(const char *text, int index, const plat_platform *plat,
                        fb_background *bg, char *err);
void fb_list_free(fb_list *l);
/* The flows of a --background: the longer of its two lists. */
int fb_flows_of(const fb_background *bg);

/* fabric_run.c */
/* Place the jobs (gpus= lists, then whole free nodes); then load each one's workload
 * (fb_load_workload: whether it runs a loader), count the loaders' GPUs per node
 * (fb_count_gpus_on_nodes), and load each one's strategy and graph (fb_load_job). */
int fb_place_jobs(const plat_platform *plat, fb_job *jobs, int n_jobs, char *err);
int fb_load_workload(const plat_platform *plat, fb_job *j, char *err);
int fb_count_gpus_on_nodes(const plat_platform *plat, fb_job *jobs, int n_jobs, char *err);
int fb_load_job(const plat_platform *plat, fb_job *j, char *err);
int fb_start_baseline(const fb_request *req, const plat_platform *plat, fb_job *j, char *err);
int fb_finish_baseline(fb_job *j, char *err);
int fb_run_shared(const fb_request *req, const plat_platform *plat, fb_job *jobs, int n_jobs,
                  const fb_background *bgs, int n_bg, lk_stats *links, char *err);

/* fabric_print.c */
void fb_print_tables(FILE *out, const fb_request *req, const plat_platform *plat,
                     const fb_job *jobs, int n_jobs, const fb_background *bgs, int n_bg,
                     const lk_stats *links);
void fb_print_json(FILE *out, const fb_request *req, const plat_platform *plat,
                   const fb_job *jobs, int n_jobs, const lk_stats *links);

#endif
