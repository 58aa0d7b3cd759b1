/* simulate.c: expansion + placement + engine = a simulated estimate (simulate.h). */
#include "simulate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expand.h"

/* Kernel durations are the workload's measured seconds on its calibration device. The analytic
 * model uses them as they are, whatever the platform's GPU, and so does the simulation (scale 1),
 * so that both answer the same question; a platform of another GPU generation would need a
 * measured calibration for that device, not a peak-FLOP ratio. */
static double exec_scale(const wl_workload *wl, const plat_platform *plat)
{
    (void)wl;
    (void)plat;
    return 1.0;
}

static int critical_rank(const eng_result *res)
{
    int best = 0;
    for (int r = 1; r < res->n_ranks; r++)
        if (res->ranks[r].end_s > res->ranks[best].end_s)
            best = r;
    return best;
}

static int fill_details(const wl_workload *wl, const tg_graph *g, const eng_result *res,
                        int crit, sm_details *d, char *err)
{
    memset(d, 0, sizeof *d);
    d->critical_rank = crit;
    d->messages = res->messages;
    d->bytes_sent = res->bytes_sent;
    if (!res->task_start_s)
        return HS_OK;
    const tg_rank *rank = &g->ranks[crit];
    for (int t = 0; t < rank->n_tasks; t++) {
        const tg_task *task = &rank->tasks[t];
        if (task->op != TG_EXEC)
            d->comm_by_op_s[task->op] += res->task_end_s[crit][t] - res->task_start_s[crit][t];
    }
    return bd_from_run(g, res, crit, wl, &d->layers, err);
}

void sm_details_free(sm_details *details)
{
    bd_free(&details->layers);
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
    if (status == HS_OK && opt->links)
        trace_links(trace, opt->links);
    if (status != HS_OK) {
        tr_abort(trace);
        return status;
    }
    return tr_close(trace, err);
}

int sm_run(const wl_workload *wl, const plat_platform *plat, const st_strategy *st,
           int64_t batch, const sm_options *opt, hs_estimate *est, sm_details *details,
           char *err)
{
    tg_graph graph;
    ex_options xo = {.overlap = opt->overlap};
    int status = ex_expand_opt(wl, st, batch, &xo, &graph, err);
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
        eng_options eo = {.fidelity = opt->fidelity,
                          .exec_speed_scale = exec_scale(wl, plat),
                          .record_tasks = details != NULL || trace != NULL};
        lk_collector *col = NULL;
        if (opt->links)
            status = lk_begin(plat, 1, &col, err);
        if (status == HS_OK)
            status = eng_run(&graph, plat, gpu_of_rank, &eo, &res, err);
        if (col) { /* ended even when the run failed, so that collection stops */
            char lk_err[HS_ERR_LEN];
            int lk_status = lk_end(col, res.makespan_s, opt->links, lk_err);
            if (status == HS_OK && lk_status != HS_OK)
                status = hs_fail(err, lk_status, "%s", lk_err);
        }
    }
    if (status == HS_OK) {
        int crit = critical_rank(&res);
        const eng_rank_stats *c = &res.ranks[crit];
        est->iteration.compute_s = c->compute_busy_s;
        est->iteration.comm_s = c->comm_busy_s;
        est->iteration.exposed_comm_s = c->exposed_comm_s;
        est->iteration.total_s = res.makespan_s;
        hs_estimate_scale_epoch(est, wl->samples, batch);
        if (details)
            status = fill_details(wl, &graph, &res, crit, details, err);
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
