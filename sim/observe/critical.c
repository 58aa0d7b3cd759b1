/* critical.c: the rank that finished last and what its iteration consisted of (critical.h).
 *
 * Per analytic term, the critical rank's communication tasks are measured against the gaps of
 * its compute stream (breakdown.h): the exposed part, and within it the part spent before the
 * ranks it exchanges with had started their side (waiting, not transferring). */
#include "critical.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

int cr_rank(const eng_result *res, int first, int n)
{
    int crit = first;
    for (int r = first + 1; r < first + n; r++)
        if (res->ranks[r].end_s > res->ranks[crit].end_s)
            crit = r;
    return crit;
}

hs_times cr_times(const eng_result *res, int first, int n)
{
    const eng_rank_stats *c = &res->ranks[cr_rank(res, first, n)];
    return (hs_times){.compute_s = c->compute_busy_s, .comm_s = c->comm_busy_s,
                      .exposed_comm_s = c->exposed_comm_s, .total_s = c->end_s};
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
static hs_term term_of(const tg_graph *g, int rank, const tg_task *t, int p2)
{
    bool staged = (t->flags & TG_FLAG_STAGED) != 0;
    if (t->phase == TG_GRADIENT && t->op == TG_ALLREDUCE) {
        const tg_group *grp = &g->groups[tg_peer(g, rank, t)];
        for (int i = 1; i < grp->n; i++)
            if (grp->ranks[i] / p2 != grp->ranks[0] / p2)
                return HS_TERM_GRAD_ACROSS;
        return HS_TERM_GRAD_GROUP;
    }
    if (is_collective(t)) {
        if (staged)
            return HS_TERM_SPLIT_GATHER;
        /* the reductions of partial sums: allreduces, and filter's output gradients
         * reduce-scattered (--filter-backward reduce-scatter) */
        bool reduces = t->op == TG_ALLREDUCE ||
                       (t->op == TG_REDUCE_SCATTER && t->phase == TG_BACKWARD_INPUT);
        return reduces ? HS_TERM_ACT_ALLREDUCE : HS_TERM_ACT_ALLGATHER;
    }
    return staged || t->op == TG_EXCHANGE ? HS_TERM_HALO : HS_TERM_PIPELINE;
}

/* Whether a point-to-point task of rank `rank` sends to / receives from rank q (a shift's
 * group is {send peer, receive peer}; an exchange's its peers, both ways). */
static bool sends_to(const tg_graph *g, int rank, const tg_task *t, int q)
{
    int peer = tg_peer(g, rank, t);
    if (t->op == TG_SEND)
        return peer == q;
    if (t->op == TG_SHIFT)
        return g->groups[peer].ranks[0] == q;
    if (t->op == TG_EXCHANGE)
        for (int i = 0; i < g->groups[peer].n; i++)
            if (g->groups[peer].ranks[i] == q)
                return true;
    return false;
}

static bool receives_from(const tg_graph *g, int rank, const tg_task *t, int q)
{
    if (t->op == TG_RECV)
        return tg_peer(g, rank, t) == q;
    if (t->op == TG_SHIFT)
        return g->groups[tg_peer(g, rank, t)].ranks[1] == q;
    return t->op == TG_EXCHANGE && sends_to(g, rank, t, q);
}

/* Does task t of rank a match task u of rank b: the collective a's k-th on a group matches
 * b's k-th on it; a's k-th message to b matches b's k-th message from a. */
typedef enum { CR_MATCH_GROUP, CR_MATCH_A_TO_B, CR_MATCH_B_TO_A } cr_match;

static bool matches(const tg_graph *g, const tg_task *t, cr_match how, int key, int a, int b,
                    bool on_a)
{
    int own = on_a ? a : b; /* the rank whose task t is */
    switch (how) {
    case CR_MATCH_GROUP:
        return is_collective(t) && tg_peer(g, own, t) == key;
    case CR_MATCH_A_TO_B:
        return on_a ? sends_to(g, own, t, b) : receives_from(g, own, t, a);
    default:
        return on_a ? receives_from(g, own, t, b) : sends_to(g, own, t, a);
    }
}

/* Walk rank a's and rank b's lists side by side over the matching tasks: a's task is ready
 * no earlier than its partner on b has started. */
static void ready_from(const tg_graph *g, const eng_result *res, cr_match how, int key, int a,
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
            int gi = tg_peer(g, r, task);
            if (seen_before(groups, &n_groups, gi))
                continue;
            const tg_group *grp = &g->groups[gi];
            for (int m = 0; m < grp->n; m++)
                if (grp->ranks[m] != r)
                    ready_from(g, res, CR_MATCH_GROUP, gi, r, grp->ranks[m], ready_s);
            continue;
        }
        for (int q = 0; q < g->n_ranks; q++) {
            if (q == r || !(sends_to(g, r, task, q) || receives_from(g, r, task, q)) ||
                seen_before(peers, &n_peers, q))
                continue;
            ready_from(g, res, CR_MATCH_A_TO_B, -1, r, q, ready_s);
            ready_from(g, res, CR_MATCH_B_TO_A, -1, r, q, ready_s);
        }
    }
    free(groups);
    free(peers);
    return HS_OK;
}

static int fill_terms(const tg_graph *g, const eng_result *res, int crit, int p2,
                      cr_details *d, char *err)
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
        hs_term k = term_of(g, crit, task, p2 > 0 ? p2 : 1);
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

int cr_details_fill(const wl_workload *wl, const tg_graph *g, const eng_result *res, int crit,
                    int p2, cr_details *d, char *err)
{
    memset(d, 0, sizeof *d);
    d->critical_rank = crit;
    d->messages = res->messages;
    d->rings_stepped = res->rings_stepped;
    d->rings_over_budget = res->rings_over_budget;
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

void cr_details_free(cr_details *details)
{
    bd_free(&details->layers);
}

