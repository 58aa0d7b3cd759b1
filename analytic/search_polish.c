/* search_polish.c: the search's plan checked against the exact analytic model (an_search.h).
 *
 * The dynamic programme minimises a sum that approximates what a plan costs (gradients priced
 * per layer without their ring latency, PaSE's reshapes in front of fully connected layers); a
 * plan's exact price is an_plan_model's. So the answer is polished with the exact model: every
 * layer whose configuration differs from a reference plan (the best whole-model strategy) is
 * tried with the reference's configuration and kept so where that is cheaper, pass after pass;
 * the reference itself wins when it is cheaper still. The result is never dearer than the
 * reference by the model that reports it. */
#include "an_search.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>


/* The plan's exact time, or INFINITY when it is not a valid plan or does not fit. */
static double exact_s(const an_search_model *m, const st_plan *plan, hs_estimate *est)
{
    char why[HS_ERR_LEN];
    if (an_plan_model(m->wl, m->kc, plan, m->batch, m->net, m->gpu_memory_bytes, est, NULL, why) !=
            HS_OK ||
        !est->fits_in_memory)
        return INFINITY;
    return est->iteration.total_s;
}

static bool same_config(const st_layer_config *a, const st_layer_config *b)
{
    return a->batch == b->batch && a->filter == b->filter && a->channel == b->channel &&
           a->height == b->height && a->width == b->width && a->depth == b->depth &&
           a->replicas == b->replicas && a->base == b->base && a->whole == b->whole;
}

/* One pass: each differing layer tried with the reference's configuration. */
static int polish_pass(const an_search_model *m, const st_plan *ref, st_plan *plan,
                       double *best_s, hs_estimate *est)
{
    int kept = 0;
    hs_estimate e;
    for (int l = 0; l < plan->n_layers; l++) {
        if (same_config(&plan->layers[l], &ref->layers[l]))
            continue;
        st_layer_config mine = plan->layers[l];
        plan->layers[l] = ref->layers[l];
        double t = exact_s(m, plan, &e);
        if (t < *best_s)
            *best_s = t, *est = e, kept++;
        else
            plan->layers[l] = mine;
    }
    return kept;
}

int an_search_polish(const an_search_model *m, const st_plan *ref, st_plan *plan,
                     hs_estimate *est, an_polish *what, char *err)
{
    hs_estimate ref_est;
    memset(what, 0, sizeof *what);
    what->searched_s = exact_s(m, plan, est);
    double best_s = what->searched_s, ref_s = exact_s(m, ref, &ref_est);
    bool schedules = plan->micro_batches > 0 || ref->micro_batches > 0;
    for (int pass = 0; pass < 4 && !schedules && ref->n_layers == plan->n_layers; pass++) {
        int kept = polish_pass(m, ref, plan, &best_s, est);
        what->layers_reverted += kept;
        if (!kept)
            break;
    }
    what->polished_s = best_s;
    if (ref_s < best_s) { /* the reference, whole */
        for (int l = 0; l < plan->n_layers && l < ref->n_layers; l++)
            plan->layers[l] = ref->layers[l];
        plan->micro_batches = ref->micro_batches;
        plan->reduce_replicas = ref->reduce_replicas;
        *est = ref_est;
        best_s = ref_s;
        what->reference_kept = true;
    }
    if (best_s == INFINITY)
        return hs_fail(err, HS_EINPUT, "the search's plan does not fit in a GPU's memory (%.1f "
                       "GB), nor does the best whole-model strategy",
                       m->gpu_memory_bytes / 1e9);
    return HS_OK;
}
