/* cli_search.c: `hybridsim strategy --search` with hybridsim's own cost model (cli_int.h).
 *
 * The search (analytic/search) prices every layer configuration and redistribution with the
 * analytic model on the routes of the placed job (an_search.h), within GPU memory; the plan it
 * finds is re-priced exactly (an_plan_model), written as a strategy file, and shown beside the
 * fastest whole-model strategy that fits, analytic and, unless --analytic-only, simulated: the
 * check none of the search tools it follows (PaSE, SplitBrain, GHP) can make. */
#include "cli_int.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "an_search.h"
#include "generate.h"
#include "hs_json.h"
#include "hs_out.h"

/* What the command found, for printing. */
typedef struct {
    const cli_search_options *o;
    const wl_workload *wl;
    const plat_platform *plat;
    const sr_graph *g;
    const sr_result *res;
    const st_plan *plan;
    const char *path;        /* the strategy file written */
    hs_estimate searched;    /* the plan, analytic */
    hs_estimate searched_sim;
    an_polish polish;        /* the search's plan checked with the exact model */
    char seed[32];           /* the published scheme that priced lower still, or "" */
    st_plan alt;             /* else the cheapest published scheme, a finalist */
    bool have_alt;
    char alt_name[32];
    hs_estimate alt_est, alt_sim;
    char overruled_by[40];   /* the finalist the simulation preferred */
    an_uniform uniform;      /* the best whole-model strategy, analytic */
    hs_estimate uniform_sim;
    bool simulated;
    bool overruled;          /* the simulation found the plan slower: the uniform one won */
    hs_estimate overruled_an, overruled_sim; /* the plan it overruled */
    double seconds;          /* the search's wall time */
} search_found;

static double wall_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The answer per search vertex: the configuration its layer has in the final plan. */
static void print_layers(const search_found *f)
{
    const sr_graph *g = f->g;
    printf("  vertex  %-24s %-8s %5s %5s %5s %5s %5s  replicas\n", "layer", "op", "b", "f",
           "c", "h", "w");
    for (int v = 0; v < g->n_vertices; v++) {
        if (g->v[v].op == SR_RAVEL || g->v[v].op == SR_UNRAVEL)
            continue;
        const st_layer_config *c = &f->plan->layers[g->v[v].layer];
        printf("  %6d  %-24s %-8s %5d %5d %5d %5d %5d  %8d\n", v, g->v[v].name,
               sr_op_name(g->v[v].op), c->batch, c->filter, c->channel, c->height, c->width,
               c->replicas);
    }
}

static void print_row(const char *what, const hs_estimate *an, const hs_estimate *sim,
                      bool simulated)
{
    printf("  %-30s %10.6f %10.6f %10.6f", what, an->iteration.compute_s, an->iteration.comm_s,
           an->iteration.total_s);
    if (simulated)
        printf(" %10.6f", sim->iteration.total_s);
    printf(" %9.3f\n", an->memory_per_gpu_bytes / 1e9);
}

static void print_found(const search_found *f)
{
    printf("hybridsim strategy --search: %s on %s, %d GPUs, batch %lld, cost model hybridsim",
           f->wl->name, f->plat->name, f->o->job.gpus, (long long)f->o->job.batch);
    cli_print_kernels(stdout, f->wl);
    putchar('\n');
    print_layers(f);
    printf("  search: %d vertices, %d edges, largest table %lld entries, %.3f s; its sum %.6f s "
           "(gradients unfused, without latency); wrote %s\n", f->g->n_vertices, f->g->n_edges,
           (long long)f->res->largest_table, f->seconds, f->res->total, f->path);
    if (f->polish.reference_kept)
        printf("  exact model: the search's plan %.6f s, polished %.6f s; the best uniform "
               "strategy (%s) is cheaper and is the answer\n", f->polish.searched_s,
               f->polish.polished_s, f->uniform.name);
    else
        printf("  exact model: the search's plan %.6f s; %d layers given %s's configuration "
               "-> %.6f s\n", f->polish.searched_s, f->polish.layers_reverted,
               f->uniform.name, f->polish.polished_s);
    if (f->seed[0])
        printf("  a published scheme prices lower still: %s, %.6f s, is the answer\n",
               f->seed, f->searched.iteration.total_s);
    printf("\n");
    printf("  %-30s %10s %10s %10s%s %9s\n", "per iteration (s)", "compute", "comm", "analytic",
           f->simulated ? "  simulated" : "", "GB a GPU");
    char name[80];
    snprintf(name, sizeof name, "searched (%s)", f->path);
    print_row(name, &f->searched, &f->searched_sim, f->simulated);
    snprintf(name, sizeof name, "best uniform: %s", f->uniform.name);
    print_row(name, &f->uniform.est, &f->uniform_sim, f->simulated);
    if (f->have_alt) {
        snprintf(name, sizeof name, "best published: %s", f->alt_name);
        print_row(name, &f->alt_est, &f->alt_sim, f->simulated);
    }
    if (f->overruled)
        printf("  simulation overruled the model: the search's plan took %.6f s simulated "
               "(%.6f analytic), more than %s; %s is the answer\n",
               f->overruled_sim.iteration.total_s, f->overruled_an.iteration.total_s,
               f->overruled_by, f->overruled_by);
    const hs_estimate *s = f->simulated ? &f->searched_sim : &f->searched;
    const hs_estimate *u = f->simulated ? &f->uniform_sim : &f->uniform.est;
    printf("  searched / best uniform (%s): %.3f\n", f->simulated ? "simulated" : "analytic",
           s->iteration.total_s / u->iteration.total_s);
}

static void print_json(const search_found *f)
{
    printf("{\"mode\": \"search\", \"cost_model\": \"hybridsim\", \"workload\": ");
    hs_json_string(stdout, f->wl->name);
    printf(", \"platform\": ");
    hs_json_string(stdout, f->plat->name);
    printf(", \"gpus\": %d, \"batch\": %lld", f->o->job.gpus, (long long)f->o->job.batch);
    cli_json_kernels(stdout, f->wl);
    printf(", \"strategy_file\": ");
    hs_json_string(stdout, f->path);
    printf(", \"search_s\": %.6f,\n \"searched\": {\"analytic_s\": %.17g, \"memory_bytes\": "
           "%.17g", f->seconds, f->searched.iteration.total_s, f->searched.memory_per_gpu_bytes);
    if (f->simulated)
        printf(", \"simulated_s\": %.17g", f->searched_sim.iteration.total_s);
    printf(", \"layers_reverted\": %d, \"uniform_kept_by_model\": %s, \"seed\": ",
           f->polish.layers_reverted, f->polish.reference_kept ? "true" : "false");
    hs_json_string(stdout, f->seed);
    if (f->overruled)
        printf(", \"overruled_plan\": {\"analytic_s\": %.17g, \"simulated_s\": %.17g, "
               "\"by\": \"%s\"}", f->overruled_an.iteration.total_s,
               f->overruled_sim.iteration.total_s, f->overruled_by);
    printf("},\n \"best_uniform\": {\"strategy\": ");
    hs_json_string(stdout, f->uniform.name);
    printf(", \"analytic_s\": %.17g, \"memory_bytes\": %.17g", f->uniform.est.iteration.total_s,
           f->uniform.est.memory_per_gpu_bytes);
    if (f->simulated)
        printf(", \"simulated_s\": %.17g", f->uniform_sim.iteration.total_s);
    printf("}}\n");
}

/* The strategy file, written whole or not at all. */
static int write_plan(const search_found *f, char *err)
{
    char description[2048];
    snprintf(description, sizeof description, "searched by hybridsim strategy --search (cost "
             "model hybridsim) for %s on %s, %d GPUs, batch %lld", f->wl->name, f->plat->name,
             f->o->job.gpus, (long long)f->o->job.batch);
    hs_out out;
    int status = hs_out_open(&out, "-o", f->path, err);
    if (status != HS_OK)
        return status;
    status = st_plan_write(out.f, f->plan, f->wl, description, err);
    if (status != HS_OK) {
        hs_out_abort(&out);
        return status;
    }
    return hs_out_commit(&out, err);
}

/* Make finalist `name` (plan, its estimates) the answer in place of *plan, remembering the
 * plan it replaces when the simulation overruled the model. */
static void take(search_found *f, st_plan *plan, st_plan *winner, const char *name,
                 const hs_estimate *an, const hs_estimate *sim)
{
    f->overruled_an = f->searched, f->overruled_sim = f->searched_sim, f->overruled = true;
    snprintf(f->overruled_by, sizeof f->overruled_by, "%s", name);
    snprintf(winner->name, sizeof winner->name, "%s", name);
    st_plan_free(plan);
    *plan = *winner;
    f->searched = *an, f->searched_sim = *sim;
}

/* The finalists simulated: the searched plan, the best uniform strategy and the cheapest
 * published scheme. Where the simulation finds another faster than the searched plan (a
 * contention or latency the closed form does not see), it is the answer, and the report says
 * so with both times. */
static int simulate_finalists(search_found *f, const cli_sim *sim, st_plan *plan, char *err)
{
    st_strategy st, alt;
    st_from_plan(plan, &st);
    plat_platform *plat = (plat_platform *)f->plat;
    int64_t b = f->o->job.batch;
    int status = sim->simulate(f->wl, plat, &st, b, &f->searched_sim, err);
    if (status == HS_OK)
        status = sim->simulate(f->wl, plat, &f->uniform.st, b, &f->uniform_sim, err);
    if (status == HS_OK && f->have_alt) {
        st_from_plan(&f->alt, &alt);
        status = sim->simulate(f->wl, plat, &alt, b, &f->alt_sim, err);
    }
    f->simulated = status == HS_OK;
    if (status != HS_OK)
        return status;
    double best_s = f->searched_sim.iteration.total_s;
    if (f->have_alt && f->alt_sim.iteration.total_s < best_s &&
        f->alt_sim.iteration.total_s <= f->uniform_sim.iteration.total_s) {
        take(f, plan, &f->alt, f->alt_name, &f->alt_est, &f->alt_sim);
        f->have_alt = false; /* now the plan */
    } else if (f->uniform_sim.iteration.total_s < best_s) {
        st_plan ref;
        if ((status = st_plan_of(f->wl, &f->uniform.st, &ref, err)) != HS_OK)
            return status;
        take(f, plan, &ref, f->uniform.name, &f->uniform.est, &f->uniform_sim);
    }
    return HS_OK;
}

/* The cheapest published scheme: the answer if it prices lower than the searched plan, else a
 * finalist beside it. */
static void seed(search_found *f, const an_search_model *m, st_plan *plan)
{
    f->have_alt = an_search_seeds(m, f->plat->gpus_per_node, &f->alt, &f->alt_est,
                                  f->alt_name, sizeof f->alt_name);
    if (!f->have_alt || f->alt_est.iteration.total_s >= f->searched.iteration.total_s)
        return;
    snprintf(f->seed, sizeof f->seed, "%s", f->alt_name);
    snprintf(f->alt.name, sizeof f->alt.name, "%s", f->alt_name);
    st_plan_free(plan);
    *plan = f->alt;
    f->searched = f->alt_est;
    f->have_alt = false;
}

/* Search, re-price, compare: everything but the printing. */
static int find(search_found *f, an_net *net, const cli_sim *sim, sr_graph *g, sr_result *res,
                st_plan *plan, bool *have, char *err)
{
    an_search_model m = {.net = net, .wl = f->wl, .batch = f->o->job.batch, .gpus = f->o->job.gpus,
                         .gpu_memory_bytes = f->plat->gpu_memory_bytes};
    double start = wall_s();
    int status = an_search_fitted(g, &m, f->o->max_table, res, plan, err);
    if (status != HS_OK)
        return status;
    *have = true; /* res and plan are the caller's to free */
    f->seconds = wall_s() - start;
    status = an_best_uniform(f->wl, f->plat, f->o->job.gpus, f->o->job.batch, &f->uniform, err);
    st_plan ref;
    if (status == HS_OK && (status = st_plan_of(f->wl, &f->uniform.st, &ref, err)) == HS_OK) {
        status = an_search_polish(&m, &ref, plan, &f->searched, &f->polish, err);
        st_plan_free(&ref);
    }
    if (status == HS_OK)
        seed(f, &m, plan);
    if (status == HS_OK && !f->o->analytic_only)
        status = simulate_finalists(f, sim, plan, err);
    if (f->have_alt)
        st_plan_free(&f->alt);
    return status == HS_OK ? write_plan(f, err) : status;
}

/* The job's ranks on the machine (packed), its routes, the search graph. */
static int run(search_found *f, plat_platform *plat, const cli_sim *sim, char *err)
{
    const cli_search_options *o = f->o;
    if (o->job.gpus > plat->n_gpus)
        return hs_fail(err, HS_EINPUT, "-g %d: the platform %s has %d GPUs", o->job.gpus, plat->name,
                       plat->n_gpus);
    int *gpus = malloc((size_t)o->job.gpus * sizeof *gpus);
    if (!gpus)
        return hs_fail(err, HS_EINTERNAL, "out of memory placing %d ranks", o->job.gpus);
    an_net *net = NULL;
    sr_graph g;
    sr_result res;
    st_plan plan;
    sr_options opt = an_search_options(o->job.gpus);
    int status = pl_place(plat, PL_PACKED, o->job.gpus, gpus, err);
    if (status == HS_OK)
        status = an_net_open(plat, o->job.gpus, gpus, &net, err);
    if (status == HS_OK && (status = sr_graph_build(f->wl, o->job.batch, &opt, &g, err)) == HS_OK) {
        bool have = false;
        f->g = &g, f->res = &res, f->plan = &plan;
        if ((status = find(f, net, sim, &g, &res, &plan, &have, err)) == HS_OK)
            (o->json ? print_json : print_found)(f);
        if (have)
            sr_result_free(&res), st_plan_free(&plan);
        sr_graph_free(&g);
    }
    if (net)
        an_net_close(net);
    free(gpus);
    return status;
}

int cli_search_hybridsim(const cli_search_options *o, const cli_sim *sim, char *err)
{
    if (!o->analytic_only && !sim)
        return cli_exec_full(err); /* the simulations need SimGrid: hybridsim-sim */
    wl_workload wl;
    plat_platform plat;
    kt_compute kc; /* the compute model's state, when wl.compute points to it */
    char path[1024];
    int status = wl_load(o->job.workload, &wl, err);
    if (status != HS_OK)
        return status;
    if ((status = cli_open_routes(o->platform, sim, &plat, err)) == HS_OK &&
        (status = job_compute_for_pricing(&wl, &plat, &o->job, &kc, err)) != HS_OK)
        plat_free(&plat);
    else if (status == HS_OK) {
        if (o->out)
            snprintf(path, sizeof path, "%s", o->out);
        else
            snprintf(path, sizeof path, "searched-%s-g%d-b%lld.xml", wl.name, o->job.gpus,
                     (long long)o->job.batch);
        search_found f = {.o = o, .wl = &wl, .plat = &plat, .path = path};
        status = run(&f, &plat, sim, err);
        plat_free(&plat);
    }
    wl_free(&wl);
    return status;
}
