/* ghp.c: GHP's group size chosen on the machine (suggest.h, su_choose_ghp): every divisor G of
 * the GPUs written as ghp:G (workloads/strategy/generate.h), priced by the analytic model on the
 * platform's routes (packed), and, with the simulator, every one that fits simulated; the
 * choice is the simulated time where both sides were simulated. The closed form charges the
 * gradient rings across groups with ParaDL's divisor, which a node with several NICs does not
 * share as much (compare -s shows it), so the model alone picks too small a G. */
#include "suggest.h"

#include <stdio.h>
#include <string.h>

#include "generate.h"
#include "job.h"

/* One group size's plan and times, for the choice. */
typedef struct {
    int g;
    st_plan plan;
    hs_estimate est, sim;
    bool simulated;
} ghp_option;

#define GHP_MAX_OPTIONS 64

/* The analytic iteration of ghp:G, or HS_EINPUT when G cannot be used. */
static int price_ghp(const wl_workload *wl, const kt_compute *kc, const plat_platform *plat,
                     int gpus, int64_t batch, int g, st_plan *plan, hs_estimate *est, char *err)
{
    char spec[32];
    snprintf(spec, sizeof spec, "ghp:%d", g);
    int status = st_generate(spec, wl, kc, gpus, batch, plat->gpus_per_node, 0, plan, err);
    if (status != HS_OK)
        return status;
    an_net *net = NULL;
    status = an_net_open(plat, gpus, NULL, &net, err);
    if (status == HS_OK)
        status = an_plan_model(wl, kc, plan, batch, net, plat->gpu_memory_bytes, est, NULL, err);
    an_net_close(net);
    if (status != HS_OK)
        st_plan_free(plan);
    return status;
}

/* Whether a is the better choice than b: one that fits first, then the simulated time where
 * both were simulated, else the analytic one. */
static bool ghp_better(const ghp_option *a, const ghp_option *b)
{
    if (a->est.fits_in_memory != b->est.fits_in_memory)
        return a->est.fits_in_memory;
    if (a->simulated && b->simulated)
        return a->sim.iteration.total_s < b->sim.iteration.total_s;
    return a->est.iteration.total_s < b->est.iteration.total_s;
}

/* What was priced and simulated, for the file's description and the command's line. */
static void ghp_why(const ghp_option *opt, int n, const plat_platform *plat, bool simulated,
                    const kt_compute *kc, char *why, size_t why_len)
{
    size_t used = (size_t)snprintf(why, why_len,
                                   "G chosen by the %s on %s, %s (iteration "
                                   "seconds, analytic%s):",
                                   simulated ? "simulation" : "analytic model", plat->name,
                                   kc ? "kernels from the compute model" : "measured kernels",
                                   simulated ? " / simulated" : "");
    for (int i = 0; i < n; i++) {
        if (used < why_len)
            used += (size_t)snprintf(why + used, why_len - used, " G=%d %.6g%s", opt[i].g,
                                     opt[i].est.iteration.total_s, opt[i].est.fits_in_memory
                                     ? "" : " (does not fit)");
        if (opt[i].simulated && used < why_len)
            used += (size_t)snprintf(why + used, why_len - used, " / %.6g",
                                     opt[i].sim.iteration.total_s);
    }
}

int su_choose_ghp(const wl_workload *wl, plat_platform *plat, int gpus, int64_t batch,
                  su_simulate_fn simulate, st_plan *best, char *why, size_t why_len, char *err)
{
    kt_compute state;            /* the compute model's, when kc points to it */
    const kt_compute *kc = NULL; /* the kernel times' source (NULL: the measured times) */
    js_settings defaults = {0};
    int status = job_compute_for_pricing(wl, plat, &defaults, &state, &kc, err);
    if (status != HS_OK)
        return status;
    ghp_option opt[GHP_MAX_OPTIONS];
    int n = 0, pick = -1;
    for (int g = 1; g <= gpus && n < GHP_MAX_OPTIONS && status == HS_OK; g++) {
        char skip[HS_ERR_LEN];
        ghp_option *x = &opt[n];
        memset(x, 0, sizeof *x);
        x->g = g;
        if (gpus % g || price_ghp(wl, kc, plat, gpus, batch, g, &x->plan, &x->est, skip) != HS_OK)
            continue;
        if (simulate && x->est.fits_in_memory) {
            st_strategy st;
            st_from_plan(&x->plan, &st);
            fprintf(stderr, "strategy --generate ghp: simulating G=%d\n", g);
            status = simulate(wl, kc, plat, &st, batch, &x->sim, err);
            x->simulated = status == HS_OK;
        }
        pick = pick < 0 || ghp_better(x, &opt[pick]) ? n : pick;
        n++;
    }
    ghp_why(opt, n, plat, simulate != NULL, kc, why, why_len);
    for (int i = 0; i < n; i++)
        if (i != pick || status != HS_OK)
            st_plan_free(&opt[i].plan);
    if (status != HS_OK)
        return status;
    if (pick < 0)
        return hs_fail(err, HS_EINPUT, "--generate ghp: no group size G dividing -g %d gives a "
                       "plan for %s at -b %lld", gpus, wl->name, (long long)batch);
    *best = opt[pick].plan;
    return HS_OK;
}
