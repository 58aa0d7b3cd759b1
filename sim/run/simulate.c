/* simulate.c: expansion + placement + engine + observation = a simulated estimate
 * (simulate.h). */
#include "simulate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expand.h"
#include "footprint.h"

eng_options sm_engine_options(eng_fidelity fidelity, bool record_tasks)
{
    return (eng_options){.fidelity = fidelity, .exec_speed_scale = 1.0,
                         .record_tasks = record_tasks};
}

/* Does some task stage its messages through host memory? Shared lists are read once. */
static bool graph_stages(const tg_graph *g)
{
    for (int r = 0; r < g->n_ranks; r++)
        for (int i = 0; g->ranks[r].owner == r && i < g->ranks[r].n_tasks; i++)
            if (g->ranks[r].tasks[i].flags & TG_FLAG_STAGED)
                return true;
    return false;
}

int sm_engine_run(const tg_graph *g, const plat_platform *plat, const int *gpu_of_rank,
                  const eng_options *opt, const sm_watch *watch, eng_result *res, char *err)
{
    memset(res, 0, sizeof *res);
    if (plat->host_memory_out && graph_stages(g)) /* ex_may_stage said it would not */
        return hs_fail(err, HS_EINTERNAL, "the job stages messages through host memory, "
                       "which its platform was built without");
    lk_collector *col = NULL;
    int status = HS_OK;
    if (watch && watch->links) {
        status = lk_begin(plat, watch->n_jobs > 0 ? watch->n_jobs : 1, &col, err);
        for (int r = 0; status == HS_OK && watch->job_of_rank && r < g->n_ranks; r++)
            lk_set_job(col, gpu_of_rank[r], watch->job_of_rank[r]);
    }
    if (status == HS_OK && watch && watch->before_run)
        status = watch->before_run(watch->ctx, col, err);
    /* The engine computes messages nothing else can meet instead of sending them, and tells
     * link statistics of each; background traffic (before_run) is more than the graph shows,
     * so then every message goes through SimGrid. */
    eng_options eo = *opt;
    eo.exact_messages = eo.exact_messages || (watch && watch->before_run);
    if (col) {
        eo.computed = lk_computed_message;
        eo.computed_ctx = col;
    }
    if (status == HS_OK)
        status = eng_run(g, plat, gpu_of_rank, &eo, res, err);
    if (col) { /* ended even when the run failed, so that collection stops */
        char lk_err[HS_ERR_LEN];
        int lk_status = lk_end(col, res->makespan_s, watch->links, lk_err);
        if (status == HS_OK && lk_status != HS_OK)
            status = hs_fail(err, lk_status, "%s", lk_err);
    }
    if (status == HS_OK)
        status = sm_check_run(res, col ? watch->links : NULL, err);
    return status;
}

/* --trace: check the GPU list against the placement and create the file before the run, so
 * that a wrong flag costs no simulation. */
static int trace_open(const plat_platform *plat, const sm_options *opt, const int *gpu_of_rank,
                      int n_ranks, tr_writer **trace, char *err)
{
    *trace = NULL;
    if (!opt->trace_path)
        return HS_OK;
    int status = HS_OK;
    if (opt->trace_gpus)
        status = tr_gpus_check(opt->trace_gpus, gpu_of_rank, n_ranks, plat->n_gpus, err);
    if (status == HS_OK)
        status = tr_open(opt->trace_path, plat->n_nodes, trace, err);
    return status;
}

/* With --links: a counter track per busiest link (lk_stats.top) in the network process. The
 * statistics hold each link's mean utilisation over the run, not its course, so the track is
 * that mean from the start to the end of the run; a time series would come from the links'
 * busy periods, which links.c computes but does not keep. */
static void trace_links(tr_writer *trace, const lk_stats *links)
{
    char name[2 * PLAT_NAME_LEN];
    for (int k = 0; k < LK_TOP && links->top[k] >= 0; k++) {
        const lk_link *l = &links->links[links->top[k]];
        snprintf(name, sizeof name, "%s %s mean utilisation", l->name,
                 lk_direction_name(l->direction));
        tr_write_counter(trace, name, 0.0, l->mean_util);
        tr_write_counter(trace, name, links->makespan_s, 0.0);
    }
}

static int trace_write(tr_writer *trace, const wl_workload *wl, const plat_platform *plat,
                       const sm_options *opt, const tg_graph *g, const eng_result *res,
                       const int *gpu_of_rank, char *err)
{
    tr_run run = {.g = g, .res = res, .gpu_of_rank = gpu_of_rank,
                  .gpus_per_node = plat->gpus_per_node, .wl = wl, .gpus = opt->trace_gpus};
    int status = tr_write_run(trace, &run, err);
    if (status == HS_OK && opt->links && !opt->links_untraced)
        trace_links(trace, opt->links);
    if (status != HS_OK) {
        tr_abort(trace);
        return status;
    }
    return tr_close(trace, err);
}

int sm_run(const wl_workload *wl, const kt_compute *kc, const plat_platform *plat,
           const st_strategy *st, int64_t batch, const sm_options *opt, hs_estimate *est,
           cr_details *details, char *err)
{
    tg_graph graph;
    /* a runtime or a strategy file's setting sets the overlap (and its buckets) (job.c) */
    ex_options xo = ex_options_of(st, opt->overlap);
    int status = ex_expand_opt(wl, kc, st, batch, &xo, &graph, err);
    if (status != HS_OK)
        return status;

    int *gpu_of_rank = malloc((size_t)st->p * sizeof *gpu_of_rank);
    if (!gpu_of_rank) {
        tg_free(&graph);
        return hs_fail(err, HS_EINTERNAL, "out of memory placing %d ranks", st->p);
    }
    status = pl_place(plat, opt->placement, st->p, gpu_of_rank, err);
    tr_writer *trace = NULL;
    if (status == HS_OK)
        status = trace_open(plat, opt, gpu_of_rank, st->p, &trace, err);

    eng_result res;
    memset(&res, 0, sizeof res);
    if (status == HS_OK) {
        eng_options eo = sm_engine_options(opt->fidelity, details != NULL || trace != NULL);
        eo.step_budget_messages = opt->step_budget_messages;
        sm_watch watch = {.links = opt->links};
        status = sm_engine_run(&graph, plat, gpu_of_rank, &eo, &watch, &res, err);
    }
    if (status == HS_OK) {
        est->iteration = cr_times(&res, 0, res.n_ranks);
        hs_estimate_host_step(est, kt_compute_step_host_s(kc));
        hs_estimate_input_floor(est, kt_compute_input_s(kc, batch, st_input_groups(st)));
        hs_estimate_scale_epoch(est, wl->samples, batch);
        status = fp_fill(wl, kc, st, batch, plat->gpu_memory_bytes, est, err);
        if (status == HS_OK && details)
            status = cr_details_fill(wl, &graph, &res, cr_rank(&res, 0, res.n_ranks), st->p2,
                                     details, err);
        if (status == HS_OK && trace) {
            status = trace_write(trace, wl, plat, opt, &graph, &res, gpu_of_rank, err);
            trace = NULL; /* trace_write closed or removed it */
        }
    }
    tr_abort(trace);
    eng_result_free(&res);
    free(gpu_of_rank);
    tg_free(&graph);
    return status;
}
