/* search_run.c: a whole search with hybridsim's model for one job, its plan only (an_search.h):
 * what `suggest` needs of the search; `strategy --search` runs the same steps and prints them. */
#include "an_search.h"

#include <stdlib.h>
#include <string.h>

#include "generate.h"

/* The search's plan for the placed job on net, polished against the best uniform plan. */
static int search_on(an_net *net, const wl_workload *wl, const plat_platform *plat, int p,
                     int64_t batch, st_plan *plan, hs_estimate *est, char *err)
{
    sr_options opt = an_search_options(p);
    an_search_model m = {.net = net, .wl = wl, .batch = batch, .gpus = p,
                         .gpu_memory_bytes = plat->gpu_memory_bytes};
    sr_graph g;
    sr_result res;
    an_uniform uniform;
    st_plan ref;
    an_polish what;
    int status = sr_graph_build(wl, batch, &opt, &g, err);
    if (status != HS_OK)
        return status;
    status = an_search_fitted(&g, &m, 0, &res, plan, err);
    sr_graph_free(&g);
    if (status != HS_OK)
        return status;
    sr_result_free(&res);
    status = an_best_uniform(wl, plat, p, batch, &uniform, err);
    if (status == HS_OK && (status = st_plan_of(wl, &uniform.st, &ref, err)) == HS_OK) {
        status = an_search_polish(&m, &ref, plan, est, &what, err);
        st_plan_free(&ref);
    }
    char seed[32];
    st_plan best;
    hs_estimate best_est;
    if (status == HS_OK && an_search_seeds(&m, plat->gpus_per_node, &best, &best_est, seed,
                                           sizeof seed)) {
        if (best_est.iteration.total_s < est->iteration.total_s) /* a scheme prices lower */
            st_plan_free(plan), *plan = best, *est = best_est;
        else
            st_plan_free(&best);
    }
    if (status != HS_OK)
        st_plan_free(plan);
    return status;
}

int an_search_run(const wl_workload *wl, const plat_platform *plat, int p, int64_t batch,
                  st_plan *plan, hs_estimate *est, char *err)
{
    int *gpus = malloc((size_t)p * sizeof *gpus);
    an_net *net = NULL;
    if (!gpus)
        return hs_fail(err, HS_EINTERNAL, "out of memory placing %d ranks", p);
    int status = pl_place(plat, PL_PACKED, p, gpus, err);
    if (status == HS_OK)
        status = an_net_open(plat, p, gpus, &net, err);
    if (status == HS_OK)
        status = search_on(net, wl, plat, p, batch, plan, est, err);
    if (net)
        an_net_close(net);
    free(gpus);
    return status;
}
