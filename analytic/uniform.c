/* uniform.c: the fastest whole-model strategy (ParaDL's: every layer split alike) that fits, by
 * the analytic model: what a per-layer strategy must beat (an_search.h). */
#include "an_search.h"

#include <stdio.h>
#include <string.h>

#include "compute.h"

/* The pure strategies, then each hybrid shape p1 x p2 with 1 < p2 < p. */
int an_uniform_names(int p, char names[][AN_UNIFORM_NAME_LEN], int max)
{
    static const char *pure[] = {"data", "filter", "channel", "spatial", "pipeline"};
    int n = 0;
    if (p == 1 && max > 0) {
        snprintf(names[n++], AN_UNIFORM_NAME_LEN, "serial");
        return n;
    }
    for (size_t i = 0; i < sizeof pure / sizeof *pure && n < max; i++)
        snprintf(names[n++], AN_UNIFORM_NAME_LEN, "%s", pure[i]);
    for (int p2 = 2; p2 < p && n + 1 < max; p2++) {
        if (p % p2)
            continue;
        snprintf(names[n++], AN_UNIFORM_NAME_LEN, "data+filter:%dx%d", p / p2, p2);
        snprintf(names[n++], AN_UNIFORM_NAME_LEN, "data+spatial:%dx%d", p / p2, p2);
    }
    return n;
}

int an_best_uniform(const wl_workload *wl, const kt_compute *kc, const st_plan *rules,
                    const plat_platform *plat, int p, int64_t batch, an_uniform *best, char *err)
{
    char names[AN_UNIFORM_MAX][AN_UNIFORM_NAME_LEN], why[HS_ERR_LEN];
    int n = an_uniform_names(p, names, AN_UNIFORM_MAX);
    memset(best, 0, sizeof *best);
    best->tried = n;
    for (int i = 0; i < n; i++) {
        st_strategy st;
        hs_estimate est;
        if (st_parse(names[i], p, plat->gpus_per_node, 0, &st, why) != HS_OK)
            continue;
        unsigned bit = st_split_bit(st.kind); /* the settings as a runtime applies them */
        st.train = rules->train;
        st.allreduce = rules->allreduce;
        if (bit == WL_SPLIT_SPATIAL)
            st.halo_chain = !rules->halo_sendrecv;
        if (bit == WL_SPLIT_FILTER)
            st.filter_rs = !rules->filter_allreduce;
        if (an_estimate_on(wl, kc, plat, &st, batch, PL_PACKED, &est, NULL, why) != HS_OK)
            continue; /* not possible at this p and batch (the batch does not divide, ...) */
        if (!est.fits_in_memory) {
            best->too_big++;
            continue;
        }
        if (best->found && est.iteration.total_s >= best->est.iteration.total_s)
            continue;
        best->found = true;
        best->st = st;
        best->est = est;
        snprintf(best->name, sizeof best->name, "%.*s", AN_UNIFORM_NAME_LEN - 1, names[i]);
    }
    if (!best->found)
        return hs_fail(err, HS_EINPUT, "no whole-model strategy runs %s on %d GPUs at batch %lld "
                       "within a GPU's memory (%d tried, %d too big)", wl->name, p,
                       (long long)batch, best->tried, best->too_big);
    return HS_OK;
}
