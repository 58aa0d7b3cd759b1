/* taskgraph.c: storage for per-rank task lists and communicator groups (taskgraph.h). */
#include "taskgraph.h"

#include "hs_grow.h"

#include <stdlib.h>
#include <string.h>

int tg_init(tg_graph *g, int n_ranks, char *err)
{
    memset(g, 0, sizeof *g);
    g->ranks = calloc((size_t)n_ranks, sizeof *g->ranks);
    if (!g->ranks)
        return hs_fail(err, HS_EINTERNAL, "out of memory for %d ranks", n_ranks);
    g->n_ranks = n_ranks;
    return HS_OK;
}

void tg_free(tg_graph *g)
{
    for (int r = 0; r < g->n_ranks; r++)
        free(g->ranks[r].tasks);
    free(g->ranks);
    for (int i = 0; i < g->n_groups; i++)
        free(g->groups[i].ranks);
    free(g->groups);
    memset(g, 0, sizeof *g);
}

int tg_add(tg_graph *g, int rank, tg_task task)
{
    tg_rank *r = &g->ranks[rank];
    if (r->n_tasks == r->cap_tasks &&
        !hs_grow((void **)&r->tasks, &r->cap_tasks, r->n_tasks + 1, sizeof *r->tasks))
        return -1;
    r->tasks[r->n_tasks] = task;
    return r->n_tasks++;
}

int tg_add_group(tg_graph *g, const int *ranks, int n)
{
    if (!hs_grow((void **)&g->groups, &g->cap_groups, g->n_groups + 1, sizeof *g->groups))
        return -1;
    int *copy = malloc((size_t)n * sizeof *copy);
    if (!copy)
        return -1;
    memcpy(copy, ranks, (size_t)n * sizeof *copy);
    g->groups[g->n_groups] = (tg_group){.n = n, .ranks = copy};
    return g->n_groups++;
}

const char *tg_op_name(tg_op op)
{
    static const char *names[TG_OP_COUNT] = {"exec", "allreduce", "allgather", "reduce-scatter",
                                             "send", "recv", "exchange", "shift"};
    return op < TG_OP_COUNT ? names[op] : "?";
}

const char *tg_phase_name(tg_phase phase)
{
    static const char *names[TG_PHASE_COUNT] = {"forward", "backward-input", "backward-weight",
                                                "update", "gradient"};
    return phase < TG_PHASE_COUNT ? names[phase] : "?";
}

int tg_append(tg_graph *all, const tg_graph *g, int rank_offset, char *err)
{
    int group_offset = all->n_groups;
    for (int gi = 0; gi < g->n_groups; gi++) {
        const tg_group *gr = &g->groups[gi];
        int *ranks = malloc((size_t)(gr->n ? gr->n : 1) * sizeof *ranks);
        if (!ranks)
            return hs_fail(err, HS_EINTERNAL, "out of memory merging groups");
        for (int i = 0; i < gr->n; i++)
            ranks[i] = gr->ranks[i] + rank_offset;
        int added = tg_add_group(all, ranks, gr->n);
        free(ranks);
        if (added < 0)
            return hs_fail(err, HS_EINTERNAL, "out of memory merging groups");
    }
    for (int r = 0; r < g->n_ranks; r++)
        for (int i = 0; i < g->ranks[r].n_tasks; i++) {
            tg_task t = g->ranks[r].tasks[i];
            if (t.op == TG_SEND || t.op == TG_RECV)
                t.peer += rank_offset;  /* a rank */
            else if (t.op != TG_EXEC)
                t.peer += group_offset; /* every other communication task names a group */
            if (tg_add(all, rank_offset + r, t) < 0)
                return hs_fail(err, HS_EINTERNAL, "out of memory merging tasks");
        }
    return HS_OK;
}
