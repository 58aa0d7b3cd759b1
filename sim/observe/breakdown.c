/* breakdown.c: per-layer, per-phase account of one rank's simulated iteration (breakdown.h).
 *
 * Exposed communication is found by geometry rather than by asking the engine who waited for
 * what: the gaps of the compute stream (before its first kernel, between kernels, after its
 * last up to the rank's end) are intervals, and every communication task is charged the part
 * of itself that overlaps them. Both lists are sorted in time (each stream runs its tasks in
 * list order), so one merge pass does it. */
#include "breakdown.h"

#include <stdlib.h>
#include <string.h>

static bd_cell *cell_of(bd_breakdown *bd, const tg_task *t)
{
    int phase = t->phase < TG_PHASE_COUNT ? t->phase : TG_FORWARD;
    return t->layer < 0 ? &bd->shared[phase] : &bd->layers[t->layer][phase];
}

/* Charge every task to its cell; `gaps` turns communication into exposed communication. */
static void charge_tasks(bd_breakdown *bd, const tg_rank *list, const double *start_s,
                         const double *end_s, const bd_gap *gaps, int n_gaps)
{
    int first = 0; /* the first gap that may still overlap a communication task */
    for (int t = 0; t < list->n_tasks; t++) {
        const tg_task *task = &list->tasks[t];
        bd_cell *c = cell_of(bd, task);
        double from = start_s[t], to = end_s[t];
        if (tg_stream(task) == 0) {
            c->compute_s += to - from;
            continue;
        }
        c->comm_s += to - from;
        c->exposed_comm_s += bd_idle_within(gaps, n_gaps, &first, from, to);
    }
}

int bd_from_run(const tg_graph *g, const eng_result *res, int rank, const wl_workload *wl,
                bd_breakdown *bd, char *err)
{
    memset(bd, 0, sizeof *bd);
    if (!res->task_start_s || !res->task_end_s)
        return hs_fail(err, HS_EINTERNAL, "breakdown: the run recorded no task times");
    if (rank < 0 || rank >= g->n_ranks || rank >= res->n_ranks)
        return hs_fail(err, HS_EINTERNAL, "breakdown: no rank %d in a run of %d", rank,
                       g->n_ranks);
    const tg_rank *list = &g->ranks[rank];
    for (int t = 0; t < list->n_tasks; t++)
        if (list->tasks[t].layer >= wl->n_layers)
            return hs_fail(err, HS_EINTERNAL, "breakdown: rank %d task %d names layer %d of "
                           "%d", rank, t, list->tasks[t].layer, wl->n_layers);
    bd->layers = calloc((size_t)wl->n_layers, sizeof *bd->layers);
    bd_gap *gaps = NULL;
    int n_gaps = bd->layers ? bd_compute_gaps(list, res->task_start_s[rank],
                                              res->task_end_s[rank], res->ranks[rank].end_s,
                                              &gaps)
                            : -1;
    if (n_gaps < 0) {
        bd_free(bd);
        return hs_fail(err, HS_EINTERNAL, "breakdown: out of memory for %d layers",
                       wl->n_layers);
    }
    bd->rank = rank;
    bd->layer_info = wl->layers;
    bd->n_layers = wl->n_layers;
    charge_tasks(bd, list, res->task_start_s[rank], res->task_end_s[rank], gaps, n_gaps);
    free(gaps);
    return HS_OK;
}

int bd_compute_gaps(const tg_rank *list, const double *start_s, const double *end_s,
                    double rank_end_s, bd_gap **out)
{
    bd_gap *gaps = malloc(((size_t)list->n_tasks + 1) * sizeof *gaps);
    if (!gaps)
        return -1;
    int n = 0;
    double idle_from = 0.0;
    for (int t = 0; t < list->n_tasks; t++) {
        if (tg_stream(&list->tasks[t]) != 0)
            continue;
        if (start_s[t] > idle_from)
            gaps[n++] = (bd_gap){idle_from, start_s[t]};
        if (end_s[t] > idle_from)
            idle_from = end_s[t];
    }
    if (rank_end_s > idle_from)
        gaps[n++] = (bd_gap){idle_from, rank_end_s};
    *out = gaps;
    return n;
}

double bd_idle_within(const bd_gap *gaps, int n_gaps, int *first, double from_s, double to_s)
{
    while (*first < n_gaps && gaps[*first].to_s <= from_s)
        (*first)++;
    double idle_s = 0;
    for (int k = *first; k < n_gaps && gaps[k].from_s < to_s; k++) {
        double a = gaps[k].from_s > from_s ? gaps[k].from_s : from_s;
        double b = gaps[k].to_s < to_s ? gaps[k].to_s : to_s;
        if (b > a)
            idle_s += b - a;
    }
    return idle_s;
}

void bd_free(bd_breakdown *bd)
{
    free(bd->layers);
    memset(bd, 0, sizeof *bd);
}

static void add_cell(bd_cell *sum, const bd_cell *c)
{
    sum->compute_s += c->compute_s;
    sum->comm_s += c->comm_s;
    sum->exposed_comm_s += c->exposed_comm_s;
}

bd_cell bd_layer_sum(const bd_breakdown *bd, int layer)
{
    bd_cell sum = {0, 0, 0};
    const bd_cell *row = layer < 0 ? bd->shared : bd->layers[layer];
    for (int p = 0; p < TG_PHASE_COUNT; p++)
        add_cell(&sum, &row[p]);
    return sum;
}

bd_cell bd_total(const bd_breakdown *bd)
{
    bd_cell sum = bd_layer_sum(bd, -1);
    for (int l = 0; l < bd->n_layers; l++) {
        bd_cell c = bd_layer_sum(bd, l);
        add_cell(&sum, &c);
    }
    return sum;
}

double bd_layer_time_s(const bd_breakdown *bd, int layer)
{
    bd_cell c = bd_layer_sum(bd, layer);
    return c.compute_s + c.exposed_comm_s;
}

/* Sort key: time descending, then index ascending, so that the order is deterministic. */
typedef struct {
    double time_s;
    int layer;
} bd_rank_key;

static int by_time_desc(const void *a, const void *b)
{
    const bd_rank_key *x = a, *y = b;
    if (x->time_s != y->time_s)
        return x->time_s > y->time_s ? -1 : 1;
    return (x->layer > y->layer) - (x->layer < y->layer);
}

void bd_rank_layers(const bd_breakdown *bd, int *order)
{
    bd_rank_key *keys = malloc((size_t)bd->n_layers * sizeof *keys);
    if (!keys) { /* keep layer order rather than fail a report */
        for (int l = 0; l < bd->n_layers; l++)
            order[l] = l;
        return;
    }
    for (int l = 0; l < bd->n_layers; l++)
        keys[l] = (bd_rank_key){bd_layer_time_s(bd, l), l};
    qsort(keys, (size_t)bd->n_layers, sizeof *keys, by_time_desc);
    for (int l = 0; l < bd->n_layers; l++)
        order[l] = keys[l].layer;
    free(keys);
}
