/* an_search.h: hybridsim's own cost model for the per-layer search (analytic/search), and the
 * bridge from a search's answer to a per-layer plan (plan.h).
 *
 * PaSE's dynamic programme (search.h) takes any cost provider. This one prices a vertex's
 * configuration with an_layer_price (kernels, halos, its weight-gradient allreduce) summed over
 * the workload layers that follow the vertex (a ReLU after a convolution runs in its layout), and
 * an edge with an_edge_price (the redistribution between two layouts, forward and backward), on
 * the routes of the placed job (an_net): seconds per iteration, under the job's settings (halos,
 * filter backward, gradient allreduce and bytes) as an_plan_model prices the plan written. A configuration is a candidate
 * when its group size divides the GPUs (the rest of the GPUs repeat its work as replicas, as a
 * plan says) and the layer's own memory fits a GPU. The whole plan's memory is the sum of its
 * layers' (footprint.h); when the cheapest plan does not fit, an_search_fitted searches again
 * with memory priced (a Lagrange multiplier in seconds per byte, raised until the plan fits), so
 * that memory is traded for time where it costs least.
 *
 * What the search sums is an approximation of what the plan costs: weight gradients are priced
 * per layer (a plan fuses them per set of ranks) and a fully connected layer fed by an image is
 * reached through PaSE's reshape vertices, priced as a batch-split layout in between. The plan
 * the search returns is therefore re-priced exactly by an_plan_model before it is reported. */
#ifndef AN_SEARCH_H
#define AN_SEARCH_H

#include "analytic.h"
#include "search.h"

/* The context of the provider: owned by the caller, valid while the search runs. */
typedef struct {
    an_net *net;                 /* routes of the placed job (an_net_open) */
    const wl_workload *wl;
    const kt_compute *kc;        /* the job's kernel-time model (NULL: measured times) */
    const st_plan *rules;        /* the job's settings every candidate is priced under, as
                                  * an_plan_model prices the plan written (its halos, filter
                                  * backward, gradient allreduce's algorithm, bytes and
                                  * optimizer; its layers unused): set on every plan found
                                  * (an_plan_rules) */
    int64_t batch;               /* global mini-batch */
    int gpus;                    /* p */
    double gpu_memory_bytes;     /* a configuration whose layer alone exceeds it is refused */
    double memory_s_per_byte;    /* Lagrange multiplier: memory priced in the vertex cost */
} an_search_model;

/* The candidates hybridsim's model knows: every divisor split of batch, filters, channels and
 * (for convolutions, where halos are priced) height and width, no window splits, at most p
 * devices. */
sr_options an_search_options(int gpus);

/* The provider of m (m must outlive its use). */
sr_costs an_search_costs(an_search_model *m);

/* The plan a search's choice gives: every layer the configuration of the vertex it follows,
 * replicated over the GPUs its group leaves. Free with st_plan_free. */
int an_search_plan(const sr_graph *g, const int *choice, const wl_workload *wl, int gpus,
                   st_plan *plan, char *err);

/* Search g under m; when the plan found does not fit in memory, search again with memory
 * priced until it does (or say that nothing fits). res and plan as sr_solve and
 * an_search_plan give them. */
int an_search_fitted(const sr_graph *g, an_search_model *m, int64_t max_table, sr_result *res,
                     st_plan *plan, char *err);

/* What polishing did. */
typedef struct {
    double searched_s;      /* the search's plan, priced exactly (INFINITY: does not fit) */
    double polished_s;      /* after layers were given the reference's configuration */
    int layers_reverted;    /* how many */
    bool reference_kept;    /* the reference plan itself was cheaper: it is the answer */
} an_polish;

/* Check the search's plan against the exact model (search_polish.c): layers that differ from
 * the reference plan ref (the best whole-model strategy as a plan) take its configuration where
 * that prices lower, and ref itself is the answer when it is cheaper still; both are priced
 * under m->rules (an_plan_rules), as the plan written is. est gets the exact estimate of the
 * plan returned; HS_EINPUT when neither fits. */
int an_search_polish(const an_search_model *m, const st_plan *ref, st_plan *plan,
                     hs_estimate *est, an_polish *what, char *err);

/* ---- the best whole-model strategy, for comparison */

#define AN_UNIFORM_NAME_LEN 40
#define AN_UNIFORM_MAX 256

/* The fastest uniform strategy that fits. */
typedef struct {
    bool found;
    char name[AN_UNIFORM_NAME_LEN]; /* as -s takes it: "data", "data+filter:16x4" */
    st_strategy st;
    hs_estimate est;               /* its analytic estimate (packed placement) */
    int tried;                     /* candidates: data, filter, channel, spatial, pipeline,
                                    * data+filter and data+spatial at every shape p1 x p2 */
    int too_big;                   /* of them, possible but beyond a GPU's memory */
} an_uniform;

/* The uniform strategies tried on p GPUs, as -s names them; returns how many (at most max). */
int an_uniform_names(int p, char names[][AN_UNIFORM_NAME_LEN], int max);

/* The fastest uniform strategy for wl on p GPUs of plat at this batch, by the analytic model,
 * among those that run and fit, each run with the job's settings of `rules` (an_plan_rules: its
 * gradient allreduce, gradient bytes and optimizer, halos, filter backward); HS_EINPUT when
 * none does. */
int an_best_uniform(const wl_workload *wl, const kt_compute *kc, const st_plan *rules,
                    const plat_platform *plat, int p, int64_t batch, an_uniform *best, char *err);

#endif
