/* suggest.h: the candidates of `hybridsim suggest` (sg_): every strategy the tool knows for a
 * job, priced by the analytic model, the best simulated, ranked, each with why it lost its place.
 * Part of sim/compare (both derivations side by side); the simulation is a callback, so that
 * the front end decides where it runs (hybridsim-sim forks a child per run). */
#ifndef SUGGEST_H
#define SUGGEST_H

#include <stdbool.h>

#include "analytic.h"
#include "runtime.h"

#define SG_MAX 512
#define SG_NAME_LEN 64
#define SG_WHY_LEN 160

typedef struct {
    char name[SG_NAME_LEN];   /* as -s or strategy --generate takes it ("data+filter:16x4",
                               * "splitbrain:4", "searched"), with the gradient allreduce's
                               * algorithm when it is not the ring ("data --allreduce hier") */
    st_strategy st;           /* how it runs (a per-layer one points at plan) */
    st_plan *plan;            /* per-layer candidates: their plan (owned), else NULL */
    hs_estimate analytic;
    hs_estimate sim;
    bool simulated;
    char why[SG_WHY_LEN];     /* why it is not first (empty for the first) */
} sg_candidate;

typedef struct {
    sg_candidate *c;
    int n;
    int fitting;              /* candidates that fit in a GPU's memory */
    int simulated;            /* of them, simulated */
    int *order;               /* the ranking: indices into c */
    const rt_runtime *runtime; /* what every candidate runs under (rt_apply_strategy), or
                                * NULL: hybridsim's defaults */
} sg_list;

/* One strategy simulated (cli_sim's simulate). */
typedef int (*sg_simulate_fn)(const wl_workload *wl, plat_platform *plat,
                              const st_strategy *st, int64_t batch, hs_estimate *est,
                              char *err);

/* Every candidate that runs at p GPUs and this batch, priced (those a strategy cannot run, as
 * a batch that does not divide, are left out). HS_EINPUT when none runs. */
int sg_price_all(const wl_workload *wl, const plat_platform *plat, int p, int64_t batch,
                 sg_list *l, char *err);

/* The same under a runtime (NULL: none): each candidate's allreduce, overlap, halos and filter
 * backward as the runtime sets them (its kernel terms and gradient bytes are wl's: job.h,
 * job_compute_for_pricing_rt); the allreduce variants are those faster than the runtime's. */
int sg_price_all_rt(const wl_workload *wl, const plat_platform *plat, int p, int64_t batch,
                    const rt_runtime *runtime, sg_list *l, char *err);

/* Simulate the top fitting candidates by analytic time. */
int sg_simulate_top(sg_list *l, const wl_workload *wl, plat_platform *plat, int64_t batch,
                    int top, sg_simulate_fn simulate, char *err);

/* The final ranking: simulated ones by simulated time, then the others that fit by analytic
 * time, then those that do not fit; each with its reason. */
void sg_rank(sg_list *l, double gpu_memory_bytes);

void sg_list_free(sg_list *l);

#endif
