/* budget.c: the oracle asked over a GPU budget (suggest.h, su_answer_budget): the GPU counts
 * 1, 2, 4, ... up to the budget, each count's question answered whole (su_answer, the best
 * simulated), and the answer the budget asks for: the fastest simulated epoch (--max-gpus), or
 * the fewest GPUs whose best simulated epoch reaches the target (--target-epoch-s). */
#include "suggest.h"

#include <math.h>
#include <string.h>

int su_budget_limit(const su_budget *b, const plat_platform *plat)
{
    return b->max_gpus ? b->max_gpus : plat->n_gpus;
}

/* Count p: its question answered, the winner into *c. */
static void answer_count(const su_question *base, const su_budget *b, int p, su_count *c)
{
    su_question q = *base;
    q.p = p;
    q.batch = b->batch_per_gpu ? b->batch_per_gpu * p : b->batch;
    memset(c, 0, sizeof *c);
    c->p = p;
    su_list l;
    char why[HS_ERR_LEN];
    if (su_answer(&q, &l, why) != HS_OK)
        return; /* no strategy runs at p: the batch does not divide, ... */
    const su_candidate *w = &l.c[l.order[0]];
    c->runs = true;
    c->simulated = w->simulated;
    snprintf(c->name, sizeof c->name, "%s", w->name);
    c->sim_epoch_s = w->sim.epoch.total_s;
    c->model_epoch_s = w->analytic.epoch.total_s;
    c->memory_bytes = w->analytic.memory_per_gpu_bytes;
    su_list_free(&l);
}

int su_answer_budget(const su_question *q, const su_budget *b, su_count *best, char *err)
{
    int limit = su_budget_limit(b, q->plat);
    double best_s = INFINITY;
    memset(best, 0, sizeof *best);
    for (int p = 1; p <= limit && p <= q->plat->n_gpus;
         p = p < limit && 2 * p > limit ? limit : 2 * p) {
        su_count c;
        answer_count(q, b, p, &c);
        if (b->each)
            b->each(b->ctx, &c);
        bool better = c.simulated && (b->max_gpus ? c.sim_epoch_s < best_s
                                                  : !best->p && c.sim_epoch_s <= b->target_epoch_s);
        if (better)
            *best = c, best_s = c.sim_epoch_s;
        if ((b->target_epoch_s > 0 && best->p) || p == limit)
            break;
    }
    if (!best->p && !(b->target_epoch_s > 0))
        return hs_fail(err, HS_EINPUT, "no strategy runs %s on up to %d GPUs", q->wl->name,
                       limit);
    return HS_OK;
}
