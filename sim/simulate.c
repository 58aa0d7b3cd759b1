/* simulate.c: expansion + placement + engine = a simulated estimate (simulate.h). */
#include "simulate.h"

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

static void fill_details(const tg_graph *g, const eng_result *res, int crit, sm_details *d)
{
    memset(d, 0, sizeof *d);
    d->critical_rank = crit;
    d->messages = res->messages;
    d->bytes_sent = res->bytes_sent;
    if (!res->task_start_s)
        return;
    const tg_rank *rank = &g->ranks[crit];
    for (int t = 0; t < rank->n_tasks; t++) {
        const tg_task *task = &rank->tasks[t];
        if (task->op != TG_EXEC)
            d->comm_by_op_s[task->op] += res->task_end_s[crit][t] - res->task_start_s[crit][t];
    }
}

int sm_run(const wl_workload *wl, const plat_platform *plat, const st_strategy *st,
           int64_t batch, const sm_options *opt, hs_estimate *est, sm_details *details,
           char *err)
{
    tg_graph graph;
    int status = ex_expand(wl, st, batch, &graph, err);
    if (status != HS_OK)
        return status;

    int *gpu_of_rank = malloc((size_t)st->p * sizeof *gpu_of_rank);
    if (!gpu_of_rank) {
        tg_free(&graph);
        return hs_fail(err, HS_EINTERNAL, "out of memory placing %d ranks", st->p);
    }
    status = pl_place(plat, opt->placement, st->p, gpu_of_rank, err);

    eng_result res;
    memset(&res, 0, sizeof res);
    if (status == HS_OK) {
        eng_options eo = {.fidelity = opt->fidelity,
                          .exec_speed_scale = exec_scale(wl, plat),
                          .record_tasks = details != NULL};
        status = eng_run(&graph, plat, gpu_of_rank, &eo, &res, err);
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
            fill_details(&graph, &res, crit, details);
    }
    eng_result_free(&res);
    free(gpu_of_rank);
    tg_free(&graph);
    return status;
}
