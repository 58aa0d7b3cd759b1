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
    for (int r = 0; r < n_ranks; r++)
        g->ranks[r].owner = r;
    return HS_OK;
}

void tg_free(tg_graph *g)
{
    for (int r = 0; r < g->n_ranks; r++)
        if (g->ranks[r].owner == r)
            free(g->ranks[r].tasks);
    free(g->ranks);
    for (int i = 0; i < g->n_groups; i++)
        free(g->groups[i].ranks);
    free(g->groups);
    free(g->slots);
    memset(g, 0, sizeof *g);
}

int tg_init_slots(tg_graph *g, int n_slots, char *err)
{
    size_t n = (size_t)g->n_ranks * (size_t)n_slots;
    g->slots = malloc((n ? n : 1) * sizeof *g->slots);
    if (!g->slots)
        return hs_fail(err, HS_EINTERNAL, "out of memory for %d ranks' slots", g->n_ranks);
    for (size_t i = 0; i < n; i++)
        g->slots[i] = -1;
    g->n_slots = n_slots;
    return HS_OK;
}

/* A shared list becomes the rank's own copy (before it changes). */
static int unshare(tg_graph *g, int rank)
{
    tg_rank *r = &g->ranks[rank];
    size_t n = (size_t)(r->n_tasks ? r->n_tasks : 1);
    tg_task *copy = malloc(n * sizeof *copy);
    if (!copy)
        return -1;
    memcpy(copy, r->tasks, (size_t)r->n_tasks * sizeof *copy);
    r->tasks = copy;
    r->cap_tasks = n;
    r->owner = rank;
    return 0;
}

int tg_add(tg_graph *g, int rank, tg_task task)
{
    tg_rank *r = &g->ranks[rank];
    if (r->lent || (r->owner != rank && unshare(g, rank) != 0))
        return -1;
    if (!hs_grow((void **)&r->tasks, &r->cap_tasks, (size_t)r->n_tasks + 1, sizeof *r->tasks))
        return -1;
    r->tasks[r->n_tasks] = task;
    return r->n_tasks++;
}

/* Rank `rank` takes the array of the earlier rank `from` (its own freed). */
static void borrow(tg_graph *g, int rank, int from)
{
    tg_rank *r = &g->ranks[rank];
    const tg_rank *prev = &g->ranks[from];
    free(r->tasks);
    r->tasks = prev->tasks;
    r->n_tasks = prev->n_tasks;
    r->cap_tasks = 0;
    r->owner = prev->owner;
    g->ranks[r->owner].lent = true;
}

int tg_share(tg_graph *g, int rank)
{
    if (rank < 1 || rank >= g->n_ranks)
        return 0;
    const tg_rank *r = &g->ranks[rank], *prev = &g->ranks[rank - 1];
    if (r->owner != rank || r->lent || r->n_tasks != prev->n_tasks || r->n_tasks == 0 ||
        memcmp(r->tasks, prev->tasks, (size_t)r->n_tasks * sizeof *r->tasks) != 0)
        return 0;
    borrow(g, rank, rank - 1);
    return 1;
}

int tg_borrow(tg_graph *g, int rank, int from)
{
    if (rank < 1 || rank >= g->n_ranks || from < 0 || from >= rank ||
        g->ranks[rank].n_tasks != 0 || g->ranks[rank].owner != rank ||
        g->ranks[from].n_tasks == 0)
        return 0;
    borrow(g, rank, from);
    return 1;
}

void tg_shrink(tg_graph *g)
{
    for (int r = 0; r < g->n_ranks; r++) {
        tg_rank *rk = &g->ranks[r];
        if (rk->owner != r) { /* its owner, earlier, is shrunk already */
            rk->tasks = g->ranks[rk->owner].tasks;
            continue;
        }
        if (rk->n_tasks > 0 && (size_t)rk->n_tasks < rk->cap_tasks) {
            tg_task *t = realloc(rk->tasks, (size_t)rk->n_tasks * sizeof *t);
            if (t)
                rk->tasks = t, rk->cap_tasks = (size_t)rk->n_tasks;
        }
    }
}

int tg_lists(const tg_graph *g)
{
    int n = 0;
    for (int r = 0; r < g->n_ranks; r++)
        n += g->ranks[r].owner == r;
    return n;
}

int tg_add_group(tg_graph *g, const int *ranks, int n)
{
    if (!hs_grow((void **)&g->groups, &g->cap_groups, (size_t)g->n_groups + 1, sizeof *g->groups))
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
    if (all->n_slots != 0)
        return hs_fail(err, HS_EINTERNAL, "tg_append: the merged graph has slots");
    if (g->cycle_time_s > 0 && all->cycle_time_s > 0 && g->cycle_time_s != all->cycle_time_s)
        return hs_fail(err, HS_EINPUT, "jobs whose runtimes have different cycle times (%g s "
                       "and %g s) cannot share a run", all->cycle_time_s, g->cycle_time_s);
    if (g->cycle_time_s > 0)
        all->cycle_time_s = g->cycle_time_s;
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
    for (int r = 0; r < g->n_ranks; r++) {
        for (int i = 0; i < g->ranks[r].n_tasks; i++) {
            tg_task t = g->ranks[r].tasks[i];
            if (t.op != TG_EXEC)
                t.peer = tg_peer(g, r, &t); /* what the slot holds: all has none */
            if (t.op == TG_SEND || t.op == TG_RECV)
                t.peer += rank_offset;  /* a rank */
            else if (t.op != TG_EXEC)
                t.peer += group_offset; /* every other communication task names a group */
            if (tg_add(all, rank_offset + r, t) < 0)
                return hs_fail(err, HS_EINTERNAL, "out of memory merging tasks");
        }
        if (r > 0) /* equal lists stay shared in all */
            tg_share(all, rank_offset + r);
    }
    return HS_OK;
}
