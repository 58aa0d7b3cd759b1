/* plan_model.c: a whole per-layer plan priced in closed form (analytic.h's an_plan_model).
 *
 * Without a schedule the layers run one after another, each on its group: the iteration is the
 * sum of every layer's kernels and halos (layerwise.c), of every tensor's redistribution to the
 * layers that read it (redist.c; one redistribution serves every consumer that needs the same
 * layout), and of the weight-gradient allreduces, fused into one buffer per set of ranks as
 * ChainerMN packs gradients (one start-up per set, as ParaDL's data term), launched under a
 * runtime's cycle (st_plan.cycle_time_s) at its first multiple after the backward, as the
 * simulation's TG_FLAG_CYCLE task waits (the wait exposed). With a schedule the
 * stages run GPipe's closed form, as ParaDL writes it: (p+S-1) steps of the slowest stage and
 * 2(p+S-2) of the costliest boundary. Equal configurations give the built-in strategies'
 * numbers: tests/test_layerwise.c checks every one of them. */
#include "analytic_int.h"

#include <stdlib.h>
#include <string.h>

#include "footprint.h"

/* Whether an earlier consumer of u (before v) needs u's output as v does. */
static bool served_before(const wl_workload *wl, const st_plan *plan, int u, int v)
{
    for (int w = u + 1; w < v; w++)
        for (int k = 0; k < wl_n_inputs(&wl->layers[w]); k++)
            if (wl_input_of(wl, w, k) == u &&
                an__same_need(&wl->layers[w], &plan->layers[w], &wl->layers[v],
                              &plan->layers[v]))
                return true;
    return false;
}

static void add_price(an_price *sum, const an_price *pr)
{
    sum->compute_s += pr->compute_s;
    for (int t = 0; t < HS_TERM_COUNT; t++)
        sum->comm_s[t] += pr->comm_s[t];
}

/* Every tensor's redistributions; covered[v]: v's output gradient is reduced at an upstream
 * gather (ParaDL's convention), so a model-split consumer of v charges no reduction of its own. */
static int price_edges(an_net *net, const wl_workload *wl, const kt_compute *kc,
                       const st_plan *plan, double batch, bool *covered, an_price *sum, char *err)
{
    for (int v = 0; v < wl->n_layers; v++) {
        const wl_layer *lv = &wl->layers[v];
        const st_layer_config *cv = &plan->layers[v];
        covered[v] = true;
        for (int k = 0; k < wl_n_inputs(lv); k++) {
            int u = wl_input_of(wl, v, k);
            if (u < 0) {
                covered[v] = false;
                continue;
            }
            if (an__is_projection(wl, v, u))
                continue;
            const st_layer_config *cu = &plan->layers[u];
            covered[v] = covered[v] && (an__is_model_gather(&wl->layers[u], cu, lv, cv) ||
                                        (an__aligned(&wl->layers[u], cu, lv, cv) && covered[u]));
            if (served_before(wl, plan, u, v))
                continue;
            an_price pr;
            int status = an_edge_price(net, wl, kc, plan, u, cu, v, cv, (int64_t)batch,
                                       covered[u], &pr, err);
            if (status != HS_OK)
                return status;
            add_price(sum, &pr);
        }
    }
    return HS_OK;
}

/* A layer no other reads (the loss's input): what its output costs all the same. */
static int price_output(an_net *net, const wl_workload *wl, const kt_compute *kc,
                        const st_plan *plan, int u, double batch, an_price *sum, char *err)
{
    an_price pr;
    int status = an_output_price(net, wl, kc, u, &plan->layers[u], (int64_t)batch, &pr, err);
    if (status == HS_OK)
        add_price(sum, &pr);
    return status;
}

bool an_is_read(const wl_workload *wl, int u)
{
    for (int v = u + 1; v < wl->n_layers; v++)
        for (int k = 0; k < wl_n_inputs(&wl->layers[v]); k++)
            if (wl_input_of(wl, v, k) == u)
                return true;
    return false;
}

/* The weight gradients, one allreduce (or two, inside the group then across) per set of
 * ranks, every layer reduced over the same sets sharing one buffer. */
static int price_gradients(an_net *net, const wl_workload *wl, const kt_compute *kc,
                           const st_plan *plan, double *comm_s, char *err)
{
    an_grad_sets *sets = malloc((size_t)wl->n_layers * sizeof *sets);
    double *bytes = malloc((size_t)wl->n_layers * sizeof *bytes);
    if (!sets || !bytes) {
        free(sets);
        free(bytes);
        return hs_fail(err, HS_EINTERNAL, "out of memory for %d gradient sets", wl->n_layers);
    }
    int n = 0;
    for (int i = 0; i < wl->n_layers; i++) {
        if (wl->layers[i].w_elems == 0)
            continue;
        an_grad_sets g = an__grad_sets(&plan->layers[i], plan->reduce_replicas);
        int k = 0;
        while (k < n && memcmp(&sets[k], &g, sizeof g) != 0)
            k++;
        if (k == n)
            sets[n] = g, bytes[n++] = 0.0;
        bytes[k] += an__grad_bytes(wl, st_gradient_bytes(&plan->train, kc), i, &plan->layers[i]);
    }
    for (int k = 0; k < n; k++)
        an__grad_price(net, sets[k], bytes[k], bytes[k], plan->allreduce, comm_s);
    free(sets);
    free(bytes);
    return HS_OK;
}

/* The wait of the gradients for the runtime's cycle (plan->cycle_time_s, Horovod's) when there
 * is an allreduce: the backward ends at ready_s into the iteration (the layers' kernels but
 * their updates, and every communication before the gradients'), the first allreduce launches
 * at the cycle's next multiple and the others follow it, as the simulation's TG_FLAG_CYCLE
 * task and the built-ins' buckets (overlap.c) wait. */
static double cycle_wait_s(const st_plan *plan, double ready_s, double grad_s)
{
    if (plan->cycle_time_s <= 0 || grad_s <= 0)
        return 0.0;
    return an__cycle_launch_s(ready_s, 0.0, plan->cycle_time_s) - ready_s;
}

/* The layers one after another; *wait_s the gradients' wait for the cycle (cycle_wait_s). */
static int layers_model(an_net *net, const wl_workload *wl, const kt_compute *kc,
                        const st_plan *plan, double batch, hs_times *it, an_terms *terms,
                        double *wait_s, char *err)
{
    double update_s = 0;
    bool *covered = calloc((size_t)wl->n_layers, sizeof *covered);
    if (!covered)
        return hs_fail(err, HS_EINTERNAL, "out of memory for %d layers", wl->n_layers);
    int status = HS_OK;
    for (int i = 0; i < wl->n_layers && status == HS_OK; i++) {
        double compute_s = 0;
        status = an__layer_compute_s(wl, kc, i, &plan->layers[i], batch, &compute_s, err);
        it->compute_s += compute_s;
        update_s += an__layer_update_s(wl, kc, i, &plan->layers[i]);
        terms->comm_s[HS_TERM_HALO] += an__halo_s(net, wl, kc, i, &plan->layers[i], batch,
                                                  !plan->halo_sendrecv);
    }
    an_price moves = {0};
    if (status == HS_OK)
        status = price_edges(net, wl, kc, plan, batch, covered, &moves, err);
    for (int u = 0; u < wl->n_layers && status == HS_OK; u++)
        if (!an_is_read(wl, u))
            status = price_output(net, wl, kc, plan, u, batch, &moves, err);
    it->compute_s += moves.compute_s; /* layout copies */
    for (int t = 0; t < HS_TERM_COUNT; t++)
        terms->comm_s[t] += moves.comm_s[t];
    double before_s = an_terms_comm_s(terms);
    if (status == HS_OK)
        status = price_gradients(net, wl, kc, plan, terms->comm_s, err);
    *wait_s = cycle_wait_s(plan, it->compute_s - update_s + before_s,
                           an_terms_comm_s(terms) - before_s);
    free(covered);
    return status;
}

/* GPipe over the plan's stages (one rank each), each stage's kernels on a micro-batch
 * (an__gpipe), each boundary the route from a stage's rank to the next's. */
static int pipeline_model(an_net *net, const wl_workload *wl, const kt_compute *kc,
                          const st_plan *plan, double batch, hs_times *it, an_terms *terms,
                          char *err)
{
    int *first = malloc((size_t)(wl->n_layers + 1) * sizeof *first);
    int *rank = malloc((size_t)(wl->n_layers + 1) * sizeof *rank);
    an_link *link = malloc((size_t)(wl->n_layers + 1) * sizeof *link);
    int n = 0, status = HS_OK;
    if (!first || !rank || !link)
        status = hs_fail(err, HS_EINTERNAL, "out of memory for the stages of %d layers",
                         wl->n_layers);
    if (status == HS_OK) {
        st_plan_stages(plan, first, rank, &n);
        for (int g = 0; g + 1 < n; g++)
            link[g] = an__rank_pair(net, rank[g], rank[g + 1]);
        status = an__gpipe(wl, kc, first, n, plan->micro_batches,
                           batch / plan->micro_batches, link, it, terms, err);
    }
    free(first);
    free(rank);
    free(link);
    return status;
}

int an_plan_model(const wl_workload *wl, const kt_compute *kc, const st_plan *plan, int64_t batch,
                  an_net *net, double gpu_memory_bytes, hs_estimate *est, an_terms *terms,
                  char *err)
{
    memset(est, 0, sizeof *est);
    an_terms local;
    if (!terms)
        terms = &local;
    memset(terms, 0, sizeof *terms);
    int status = st_plan_check(plan, wl, plan->gpus, batch, err);
    if (status != HS_OK)
        return status;
    hs_times *it = &est->iteration;
    double wait_s = 0; /* a schedule's stages reduce no gradients */
    status = plan->micro_batches > 0
                 ? pipeline_model(net, wl, kc, plan, (double)batch, it, terms, err)
                 : layers_model(net, wl, kc, plan, (double)batch, it, terms, &wait_s, err);
    if (status != HS_OK)
        return status;
    it->comm_s = an_terms_comm_s(terms);
    it->exposed_comm_s = it->comm_s + wait_s;
    it->total_s = it->compute_s + it->exposed_comm_s;
    st_strategy st;
    st_from_plan(plan, &st);
    hs_estimate_host_step(est, kt_compute_step_host_s(kc));
    hs_estimate_input_floor(est, kt_compute_input_s(kc, batch, st_input_groups(&st)));
    hs_estimate_scale_epoch(est, wl->samples, batch);
    return fp_fill(wl, kc, &st, batch, gpu_memory_bytes, est, err);
}
