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

/* ---- communication per analytic term ------------------------------------------------------ */

static bool is_collective(const tg_task *t)
{
    return t->op == TG_ALLREDUCE || t->op == TG_ALLGATHER || t->op == TG_REDUCE_SCATTER;
}

/* The analytic term a communication task belongs to. The expansion marks what it needs to:
 * staged messages are the spatial halos and split point, the gradient phase the weight
 * allreduce (inside one model-parallel group, rank / p2 alike for every member, or across
 * them), and plain messages between ranks the pipeline's. */
static an_comm_kind term_of(const tg_graph *g, const tg_task *t, int p2)
{
    bool staged = (t->flags & TG_FLAG_STAGED) != 0;
    if (t->phase == TG_GRADIENT && t->op == TG_ALLREDUCE) {
        const tg_group *grp = &g->groups[t->peer];
        for (int i = 1; i < grp->n; i++)
            if (grp->ranks[i] / p2 != grp->ranks[0] / p2)
                return AN_COMM_GRAD_ACROSS;
        return AN_COMM_GRAD_GROUP;
    }
    if (is_collective(t)) {
        if (staged)
            return AN_COMM_SPLIT_GATHER;
        return t->op == TG_ALLREDUCE ? AN_COMM_ACT_ALLREDUCE : AN_COMM_ACT_ALLGATHER;
    }
    return staged || t->op == TG_EXCHANGE ? AN_COMM_HALO : AN_COMM_PIPELINE;
}

/* Whether a point-to-point task sends to / receives from rank q (a shift's group is {send
 * peer, receive peer}; an exchange's its peers, both ways). */
static bool sends_to(const tg_graph *g, const tg_task *t, int q)
{
    if (t->op == TG_SEND)
        return t->peer == q;
    if (t->op == TG_SHIFT)
        return g->groups[t->peer].ranks[0] == q;
    if (t->op == TG_EXCHANGE)
        for (int i = 0; i < g->groups[t->peer].n; i++)
            if (g->groups[t->peer].ranks[i] == q)
                return true;
    return false;
}

static bool receives_from(const tg_graph *g, const tg_task *t, int q)
{
    if (t->op == TG_RECV)
        return t->peer == q;
    if (t->op == TG_SHIFT)
        return g->groups[t->peer].ranks[1] == q;
    return t->op == TG_EXCHANGE && sends_to(g, t, q);
}

/* Does task t of rank a match task u of rank b: the collective a's k-th on a group matches
 * b's k-th on it; a's k-th message to b matches b's k-th message from a. */
typedef enum { SM_MATCH_GROUP, SM_MATCH_A_TO_B, SM_MATCH_B_TO_A } sm_match;

static bool matches(const tg_graph *g, const tg_task *t, sm_match how, int key, int a, int b,
                    bool on_a)
{
    switch (how) {
    case SM_MATCH_GROUP:
        return is_collective(t) && t->peer == key;
    case SM_MATCH_A_TO_B:
        return on_a ? sends_to(g, t, b) : receives_from(g, t, a);
    default:
        return on_a ? receives_from(g, t, b) : sends_to(g, t, a);
    }
}

/* Walk rank a's and rank b's lists side by side over the matching tasks: a's task is ready
 * no earlier than its partner on b has started. */
static void ready_from(const tg_graph *g, const eng_result *res, sm_match how, int key, int a,
                       int b, double *ready_s)
{
    const tg_rank *la = &g->ranks[a], *lb = &g->ranks[b];
    int j = 0;
    for (int i = 0; i < la->n_tasks; i++) {
        if (!matches(g, &la->tasks[i], how, key, a, b, true))
            continue;
        while (j < lb->n_tasks && !matches(g, &lb->tasks[j], how, key, a, b, false))
            j++;
        if (j == lb->n_tasks)
            return;
        if (res->task_start_s[b][j] > ready_s[i])
            ready_s[i] = res->task_start_s[b][j];
        j++;
    }
}

/* Whether v is among the first n entries of seen; if not, append it. */
static bool seen_before(int *seen, int *n, int v)
{
    for (int i = 0; i < *n; i++)
        if (seen[i] == v)
            return true;
    seen[(*n)++] = v;
    return false;
}

/* When each communication task of rank r could really start: when the last rank it exchanges
 * with had started its side. ready_s holds one entry per task of r. */
static int ready_times(const tg_graph *g, const eng_result *res, int r, double *ready_s,
                       char *err)
{
    const tg_rank *list = &g->ranks[r];
    int *groups = malloc(((size_t)list->n_tasks + 1) * sizeof *groups);
    int *peers = malloc(((size_t)g->n_ranks + 1) * sizeof *peers);
    if (!groups || !peers) {
        free(groups);
        free(peers);
        return hs_fail(err, HS_EINTERNAL, "out of memory matching the tasks of rank %d", r);
    }
    int n_groups = 0, n_peers = 0;
    for (int t = 0; t < list->n_tasks; t++)
        ready_s[t] = res->task_start_s[r][t];
    for (int t = 0; t < list->n_tasks; t++) {
        const tg_task *task = &list->tasks[t];
        if (task->op == TG_EXEC)
            continue;
        if (is_collective(task)) {
            if (seen_before(groups, &n_groups, task->peer))
                continue;
            const tg_group *grp = &g->groups[task->peer];
            for (int m = 0; m < grp->n; m++)
                if (grp->ranks[m] != r)
                    ready_from(g, res, SM_MATCH_GROUP, task->peer, r, grp->ranks[m], ready_s);
            continue;
        }
        for (int q = 0; q < g->n_ranks; q++) {
            if (q == r || !(sends_to(g, task, q) || receives_from(g, task, q)) ||
                seen_before(peers, &n_peers, q))
                continue;
            ready_from(g, res, SM_MATCH_A_TO_B, -1, r, q, ready_s);
            ready_from(g, res, SM_MATCH_B_TO_A, -1, r, q, ready_s);
        }
    }
    free(groups);
    free(peers);
    return HS_OK;
}

static int fill_terms(const tg_graph *g, const eng_result *res, int crit, int p2,
                      sm_details *d, char *err)
{
    const tg_rank *list = &g->ranks[crit];
    const double *start_s = res->task_start_s[crit], *end_s = res->task_end_s[crit];
    bd_gap *gaps = NULL;
    double *ready_s = malloc(((size_t)list->n_tasks + 1) * sizeof *ready_s);
    int n_gaps = ready_s ? bd_compute_gaps(list, start_s, end_s, res->ranks[crit].end_s, &gaps)
                         : -1;
    if (n_gaps < 0) {
        free(ready_s);
        return hs_fail(err, HS_EINTERNAL, "out of memory for %d tasks", list->n_tasks);
    }
    int status = ready_times(g, res, crit, ready_s, err);
    int first_gap = 0;
    for (int t = 0; status == HS_OK && t < list->n_tasks; t++) {
        const tg_task *task = &list->tasks[t];
        if (task->op == TG_EXEC)
            continue;
        an_comm_kind k = term_of(g, task, p2 > 0 ? p2 : 1);
        double ready = ready_s[t] < end_s[t] ? ready_s[t] : end_s[t];
        int from_gap = first_gap; /* both parts start at the task's start */
        d->term_comm_s[k] += end_s[t] - start_s[t];
        d->term_exposed_s[k] += bd_idle_within(gaps, n_gaps, &first_gap, start_s[t], end_s[t]);
        d->term_waiting_s[k] += bd_idle_within(gaps, n_gaps, &from_gap, start_s[t], ready);
    }
    free(gaps);
    free(ready_s);
    return status;
}

static int fill_details(const wl_workload *wl, const tg_graph *g, const eng_result *res,
                        int crit, int p2, sm_details *d, char *err)
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
    int status = fill_terms(g, res, crit, p2, d, err);
    return status == HS_OK ? bd_from_run(g, res, crit, wl, &d->layers, err) : status;
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
    if (status == HS_OK && opt->links && !opt->links_untraced)
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
            status = fill_details(wl, &graph, &res, crit, st->p2, details, err);
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
