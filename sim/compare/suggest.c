/* suggest.c: the oracle's candidates (the per-layer search's plan among them), priced,
 * simulated and ranked (suggest.h). oracle.c, above it, asks the question whole. */
#include "suggest_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "an_search.h"
#include "collective.h"
#include "generate.h"

double su__now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Room for the next candidate, or NULL when the list is full. */
static su_candidate *next(su_list *l)
{
    if (l->n >= SU_MAX)
        return NULL;
    su_candidate *c = &l->c[l->n];
    memset(c, 0, sizeof *c);
    return c;
}

void su__train(const rt_runtime *runtime, int overlap, int halo, int filter_rs, st_strategy *st)
{
    if (runtime)
        rt_apply_strategy(runtime, st);
    if (overlap) /* said, it holds against the runtime's, as a single run's flag */
        st->overlap = overlap == JS_ON;
    if (halo && (st_split_bit(st->kind) == WL_SPLIT_SPATIAL || st->plan))
        st->halo_chain = halo == JS_ON;
    if (filter_rs && (st_split_bit(st->kind) == WL_SPLIT_FILTER || st->plan))
        st->filter_rs = filter_rs == JS_ON;
}

void su__rules(const rt_runtime *runtime, int overlap, int halo, int filter_rs, st_plan *plan)
{
    if (runtime) /* its gradient allreduce, bytes and optimizer, as the built-ins' */
        plan->allreduce = runtime->allreduce, plan->train = rt_training(runtime);
    if (runtime) /* its cycle, when the overlap is on (su__train's), as the built-ins' buckets */
        plan->cycle_time_s = (overlap ? overlap == JS_ON : runtime->overlap)
                                 ? runtime->cycle_time_s : 0.0;
    if (runtime || halo) /* its halos as the spatial built-ins' (su__train) */
        plan->halo_sendrecv = halo ? halo == JS_OFF : !runtime->halo_chain;
    if (runtime || filter_rs) /* its gathers as the filter built-ins' */
        plan->filter_allreduce = filter_rs ? filter_rs == JS_OFF : !runtime->filter_rs;
}

/* A built-in strategy: parsed and priced, kept when it runs. */
static void add_builtin(su_list *l, const wl_workload *wl, const kt_compute *kc,
                        const plat_platform *plat, int p, int64_t batch, const char *text,
                        int segments, const char *name)
{
    char why[HS_ERR_LEN];
    su_candidate *c = next(l);
    if (!c || st_parse(text, p, plat->gpus_per_node, segments, &c->st, why) != HS_OK)
        return;
    su__train(l->runtime, l->overlap, l->halo, l->filter_rs, &c->st);
    if (an_estimate_on(wl, kc, plat, &c->st, batch, PL_PACKED, &c->analytic, NULL, why) != HS_OK)
        return;
    snprintf(c->name, sizeof c->name, "%s", name);
    snprintf(c->base, sizeof c->base, "%s", name);
    c->same_as = -1;
    l->n++;
}

/* Candidate c, a variant of candidate b by gradient allreduce `algo`, priced: kept when it runs
 * and the model prices it faster than b's ring, named as the command line runs it. */
static void keep_variant(su_list *l, su_candidate *c, const su_candidate *b, co_algo algo)
{
    if (c->analytic.iteration.total_s >= b->analytic.iteration.total_s * (1 - 1e-9))
        return;
    snprintf(c->name, sizeof c->name, "%.*s --allreduce %s", SU_NAME_LEN - 20, b->name,
             co_algo_name(algo)); /* a candidate's name is far shorter */
    snprintf(c->base, sizeof c->base, "%s", b->base);
    c->same_as = -1;
    l->n++;
}

/* How plan candidate c runs: its plan, under the runtime and --overlap (su__train), with the
 * plan's gradient allreduce. */
static void plan_strategy(const su_list *l, su_candidate *c)
{
    st_from_plan(c->plan, &c->st);
    su__train(l->runtime, l->overlap, l->halo, l->filter_rs, &c->st);
    c->st.allreduce = c->plan->allreduce;
}

/* c's same_as: the first earlier plan that runs the same (owt is splitbrain:p). */
static void mark_same(su_list *l, su_candidate *c)
{
    for (su_candidate *e = l->c; e < c; e++)
        if (e->plan && e->same_as < 0 && st_plan_same(e->plan, c->plan)) {
            c->same_as = (int)(e - l->c);
            return;
        }
}

static const co_algo other_algos[] = {CO_HIER, CO_TREE, CO_RINGS};
#define N_OTHER_ALGOS ((int)(sizeof other_algos / sizeof other_algos[0]))

/* The gradient allreduce's other algorithms (collective.h) for the candidate at index base: a
 * built-in priced by an_estimate_on, a plan by an_plan_model on net (a copy of its plan with
 * the algorithm set). */
static void add_allreduce_variants(su_list *l, const wl_workload *wl, const kt_compute *kc,
                                   const plat_platform *plat, an_net *net, int64_t batch, int base)
{
    for (int i = 0; i < N_OTHER_ALGOS; i++) {
        char why[HS_ERR_LEN];
        su_candidate *c = next(l);
        if (!c)
            return;
        const su_candidate *b = &l->c[base];
        if (other_algos[i] == b->st.allreduce) /* a runtime's own */
            continue;
        if (!b->plan) {
            c->st = b->st;
            c->st.allreduce = other_algos[i];
            if (an_estimate_on(wl, kc, plat, &c->st, batch, PL_PACKED, &c->analytic, NULL, why) ==
                HS_OK)
                keep_variant(l, c, b, other_algos[i]);
            continue;
        }
        st_plan *plan = malloc(sizeof *plan);
        if (!plan || st_plan_copy(b->plan, plan, why) != HS_OK) {
            free(plan);
            return;
        }
        plan->allreduce = other_algos[i];
        int before = l->n;
        if (an_plan_model(wl, kc, plan, batch, net, plat->gpu_memory_bytes, &c->analytic, NULL,
                          why) == HS_OK)
            keep_variant(l, c, b, other_algos[i]);
        if (l->n == before) {
            st_plan_free(plan);
            free(plan);
            continue;
        }
        c->plan = plan;
        plan_strategy(l, c);
        mark_same(l, c);
    }
}

/* A per-layer plan (a generator's or the search's): priced on net, kept when it is valid, with
 * its allreduce variants. */
void su__add_plan(su_list *l, const wl_workload *wl, const kt_compute *kc,
                  const plat_platform *plat, an_net *net, int64_t batch, st_plan *plan,
                  const char *name)
{
    char why[HS_ERR_LEN];
    su_candidate *c = next(l);
    su__rules(l->runtime, l->overlap, l->halo, l->filter_rs, plan);
    if (!c || an_plan_model(wl, kc, plan, batch, net, plat->gpu_memory_bytes, &c->analytic, NULL,
                            why) != HS_OK) {
        st_plan_free(plan);
        free(plan);
        return;
    }
    c->plan = plan;
    plan_strategy(l, c);
    snprintf(c->name, sizeof c->name, "%s", name);
    snprintf(c->base, sizeof c->base, "%s", name);
    c->same_as = -1;
    mark_same(l, c);
    int at = l->n++;
    add_allreduce_variants(l, wl, kc, plat, net, batch, at);
}

static void add_generated(su_list *l, const wl_workload *wl, const kt_compute *kc,
                          const plat_platform *plat, an_net *net, int p, int64_t batch,
                          const char *spec)
{
    char why[HS_ERR_LEN];
    st_plan *plan = calloc(1, sizeof *plan);
    if (plan && st_generate(spec, wl, kc, p, batch, plat->gpus_per_node, 0, plan, why) == HS_OK)
        su__add_plan(l, wl, kc, plat, net, batch, plan, spec);
    else
        free(plan);
}

/* The whole-model strategies, pipelines at 2p and 4p micro-batches, the published schemes. */
static void add_known(su_list *l, const wl_workload *wl, const kt_compute *kc,
                      const plat_platform *plat, an_net *net, int p, int64_t batch)
{
    char names[AN_UNIFORM_MAX][AN_UNIFORM_NAME_LEN], spec[SU_NAME_LEN];
    int n = an_uniform_names(p, names, AN_UNIFORM_MAX);
    for (int i = 0; i < n; i++) {
        int before = l->n;
        add_builtin(l, wl, kc, plat, p, batch, names[i], 0, names[i]);
        if (l->n > before)
            add_allreduce_variants(l, wl, kc, plat, net, batch, before);
    }
    for (int k = 2; k <= 4 && p > 1; k *= 2) {
        snprintf(spec, sizeof spec, "pipeline (S=%d)", k * p);
        add_builtin(l, wl, kc, plat, p, batch, "pipeline", k * p, spec);
    }
    add_generated(l, wl, kc, plat, net, p, batch, "owt");
    for (int g = 2; g <= p && p > 1; g *= 2) {
        if (p % g)
            continue;
        snprintf(spec, sizeof spec, "splitbrain:%d", g);
        add_generated(l, wl, kc, plat, net, p, batch, spec);
        snprintf(spec, sizeof spec, "ghp:%d", g);
        add_generated(l, wl, kc, plat, net, p, batch, spec);
    }
}

/* Every candidate priced with its compute: one that costs none (its kernels without a time)
 * would rank first and be wrong, so the answer is refused instead. job_compute_for_pricing
 * refuses the one way known (a workload without measured times, the model out of reach). */
static int check_priced(const su_question *q, const su_list *l, char *err)
{
    for (int i = 0; i < l->n && q->wl->n_layers > 0; i++)
        if (!(l->c[i].analytic.iteration.compute_s > 0))
            return hs_fail(err, HS_EINTERNAL, "%s: %s on %d GPUs not priced: its kernels of %s "
                           "have no time (compute %g s); no ranking is given", q->who,
                           l->c[i].name, q->p, q->wl->name, l->c[i].analytic.iteration.compute_s);
    return HS_OK;
}

/* ---------------------------------------------------------------- the per-layer search */

/* The search's plan polished against the best whole-model strategy (an_search_polish). */
static int polish(const su_question *q, an_search_model *m, st_plan *plan, su_search *s,
                  char *err)
{
    an_uniform uniform;
    st_plan ref;
    hs_estimate est;
    if (an_best_uniform(q->wl, q->kc, m->rules, q->plat, q->p, q->batch, &uniform, s->why) !=
        HS_OK)
        return HS_OK; /* nothing whole-model fits: the plan as found */
    snprintf(s->reference, sizeof s->reference, "%s", uniform.name);
    int status = st_plan_of(q->wl, q->kc, &uniform.st, q->batch, &ref, err);
    if (status == HS_OK) {
        an_plan_rules(m->rules, &ref);
        status = an_search_polish(m, &ref, plan, &est, &s->polish, s->why);
        st_plan_free(&ref);
        if (status == HS_EINPUT) /* neither fits */
            s->ran = false, status = HS_OK;
    }
    return status;
}

/* The search under m (its rules set), its plan added as "searched" unless polished away. */
static int search_rules(const su_question *q, an_search_model *m, su_list *l, char *err)
{
    su_search *s = &l->search;
    sr_options opt = an_search_options(q->p);
    sr_graph g;
    sr_result res;
    st_plan *plan = calloc(1, sizeof *plan);
    if (!plan)
        return hs_fail(err, HS_EINTERNAL, "%s: out of memory", q->who);
    if (sr_graph_build(q->wl, q->batch, &opt, &g, s->why) != HS_OK) {
        free(plan);
        return HS_OK;
    }
    fprintf(stderr, "%s: searching per-layer plans (PaSE's dynamic programme, %d vertices)\n",
            q->who, g.n_vertices);
    double start = su__now_s();
    int status = an_search_fitted(&g, m, q->max_table, &res, plan, s->why);
    s->seconds = su__now_s() - start;
    if (s->seconds > 2.0)
        fprintf(stderr, "%s: searched in %.0f s\n", q->who, s->seconds);
    s->vertices = g.n_vertices, s->edges = g.n_edges;
    sr_graph_free(&g);
    if (status != HS_OK) {
        free(plan);
        return status == HS_EINPUT ? HS_OK : hs_fail(err, status, "%s", s->why);
    }
    s->ran = true;
    s->largest_table = res.largest_table, s->total_s = res.total;
    sr_result_free(&res);
    status = polish(q, m, plan, s, err);
    if (status == HS_OK && s->ran && !s->polish.reference_kept) {
        snprintf(plan->name, sizeof plan->name, "searched");
        su__add_plan(l, q->wl, q->kc, q->plat, m->net, q->batch, plan, "searched");
        return HS_OK;
    }
    st_plan_free(plan);
    free(plan);
    return status;
}

int su__search(const su_question *q, an_net *net, su_list *l, char *err)
{
    st_plan *rules = calloc(1, sizeof *rules); /* the job's settings, as the plan written's */
    if (!rules)
        return hs_fail(err, HS_EINTERNAL, "%s: out of memory", q->who);
    su__rules(q->runtime, q->overlap, q->halo, q->filter_rs, rules);
    an_search_model m = {.net = net, .wl = q->wl, .kc = q->kc, .rules = rules, .batch = q->batch,
                         .gpus = q->p, .gpu_memory_bytes = q->plat->gpu_memory_bytes};
    int status = search_rules(q, &m, l, err);
    free(rules);
    return status;
}

int su_price_all(const su_question *q, su_list *l, char *err)
{
    memset(l, 0, sizeof *l);
    l->runtime = q->runtime;
    l->overlap = q->overlap;
    l->halo = q->halo;
    l->filter_rs = q->filter_rs;
    l->c = calloc(SU_MAX, sizeof *l->c);
    l->order = calloc(SU_MAX, sizeof *l->order);
    int *gpus = malloc((size_t)q->p * sizeof *gpus);
    an_net *net = NULL;
    int status = l->c && l->order && gpus ? pl_place(q->plat, PL_PACKED, q->p, gpus, err)
                                          : hs_fail(err, HS_EINTERNAL, "%s: out of memory",
                                                    q->who);
    if (status == HS_OK)
        status = an_net_open(q->plat, q->p, gpus, &net, err);
    if (status == HS_OK) {
        add_known(l, q->wl, q->kc, q->plat, net, q->p, q->batch);
        status = su__search(q, net, l, err);
        an_net_close(net);
    }
    free(gpus);
    if (status == HS_OK && l->n == 0)
        status = hs_fail(err, HS_EINPUT, "no strategy runs %s on %d GPUs at batch %lld",
                         q->wl->name, q->p, (long long)q->batch);
    if (status == HS_OK)
        status = check_priced(q, l, err);
    for (int i = 0; status == HS_OK && i < l->n; i++)
        l->fitting += l->c[i].analytic.fits_in_memory;
    if (status != HS_OK)
        su_list_free(l);
    return status;
}

/* ---------------------------------------------------------------- simulation and ranking */

static const su_list *sort_list; /* qsort has no context argument */

/* Fitting before not fitting; then simulated ones by simulated time; then by analytic time. */
static int by_rank(const void *a, const void *b)
{
    const su_candidate *x = &sort_list->c[*(const int *)a], *y = &sort_list->c[*(const int *)b];
    if (x->analytic.fits_in_memory != y->analytic.fits_in_memory)
        return x->analytic.fits_in_memory ? -1 : 1;
    if (x->simulated != y->simulated)
        return x->simulated ? -1 : 1;
    double tx = x->simulated ? x->sim.epoch.total_s : x->analytic.epoch.total_s;
    double ty = y->simulated ? y->sim.epoch.total_s : y->analytic.epoch.total_s;
    return tx < ty ? -1 : tx > ty ? 1 : (*(const int *)a - *(const int *)b);
}

static void sort(su_list *l)
{
    for (int i = 0; i < l->n; i++)
        l->order[i] = i;
    sort_list = l;
    qsort(l->order, (size_t)l->n, sizeof *l->order, by_rank);
    sort_list = NULL;
}

/* Simulate candidate c (or copy the result of the one it repeats). */
static int simulate_one(const su_question *q, su_list *l, su_candidate *c, int k, int of,
                        char *err)
{
    if (c->same_as >= 0 && l->c[c->same_as].simulated) {
        c->sim = l->c[c->same_as].sim;
    } else {
        double start = su__now_s();
        fprintf(stderr, "%s: simulating %d of %d: %s (model %.6f s)\n", q->who, k, of, c->name,
                c->analytic.iteration.total_s);
        int status = q->simulate(q->wl, q->kc, q->plat, &c->st, q->batch, &c->sim, err);
        if (status != HS_OK)
            return status;
        double took_s = su__now_s() - start;
        if (took_s > 2.0)
            fprintf(stderr, "%s: simulated %s: %.6f s an iteration (%.0f s)\n", q->who, c->name,
                    c->sim.iteration.total_s, took_s);
    }
    c->simulated = true;
    l->simulated++;
    return HS_OK;
}

/* Whether a candidate of the same strategy (another gradient allreduce) is among chosen[n]. */
static bool base_chosen(const su_list *l, const int *chosen, int n, const su_candidate *c)
{
    for (int k = 0; k < n; k++)
        if (strcmp(l->c[chosen[k]].base, c->base) == 0)
            return true;
    return false;
}

/* The K fastest strategies by the model, each with the algorithm the model prices fastest for
 * it: the closed forms of the algorithms are the simulator's on a free network, so the model
 * ranks one strategy's algorithms as the simulation does, and what the simulation must check
 * is contention between different strategies. That halves the simulations of large jobs,
 * whose per-layer plans take seconds each to simulate. */
int su_simulate_top(const su_question *q, su_list *l, char *err)
{
    sort(l); /* none simulated yet: fitting ones by analytic time */
    int chosen[SU_MAX], n = 0, builtin = -1;
    for (int i = 0; i < l->n && n < q->top; i++) {
        const su_candidate *c = &l->c[l->order[i]];
        if (!c->analytic.fits_in_memory)
            break;
        if (base_chosen(l, chosen, n, c))
            continue;
        chosen[n++] = l->order[i];
        builtin = builtin < 0 && !c->plan ? l->order[i] : builtin;
    }
    for (int i = 0; i < l->n && builtin < 0 && n > 0; i++) /* the best whole-model one too */
        if (!l->c[l->order[i]].plan && l->c[l->order[i]].analytic.fits_in_memory)
            chosen[n++] = builtin = l->order[i];
    for (int i = 0; i < n; i++) {
        int status = simulate_one(q, l, &l->c[chosen[i]], i + 1, n, err);
        if (status != HS_OK)
            return status;
    }
    return HS_OK;
}

int su_best_builtin(const su_list *l)
{
    for (int i = 0; i < l->n; i++)
        if (!l->c[l->order[i]].plan)
            return l->order[i];
    return -1;
}

int su_model_choice(const su_list *l)
{
    if (l->n == 0 || !l->c[l->order[0]].simulated)
        return -1;
    int cheapest = -1; /* the first in the ranking on a tie */
    for (int i = 0; i < l->n; i++) {
        const su_candidate *c = &l->c[l->order[i]];
        if (c->simulated && (cheapest < 0 || c->analytic.iteration.total_s <
                                                 l->c[cheapest].analytic.iteration.total_s))
            cheapest = l->order[i];
    }
    const su_candidate *a = &l->c[l->order[0]];
    return l->c[cheapest].analytic.iteration.total_s < a->analytic.iteration.total_s ? cheapest
                                                                                     : -1;
}

/* Why candidate c is behind the first one, f, in words (sibling: another gradient allreduce of
 * its strategy was simulated instead). */
static void reason(su_candidate *c, const su_candidate *f, bool sibling, double gpu_memory_bytes)
{
    const hs_estimate *ce = c->simulated ? &c->sim : &c->analytic;
    const hs_estimate *fe = f->simulated ? &f->sim : &f->analytic;
    const hs_times *ct = &ce->iteration, *ft = &fe->iteration;
    /* the GPUs' wait for the input loader is neither compute nor communication */
    double input = ce->input_wait_s - fe->input_wait_s;
    double comm = ct->total_s - ct->compute_s - (ft->total_s - ft->compute_s) - input;
    double compute = ct->compute_s - ft->compute_s, late = ct->total_s / ft->total_s - 1;
    double congestion = c->simulated ? c->sim.iteration.comm_s - c->analytic.iteration.comm_s : 0;
    if (!c->analytic.fits_in_memory)
        snprintf(c->why, sizeof c->why, "does not fit: %.1f GB of %.1f",
                 c->analytic.memory_per_gpu_bytes / 1e9, gpu_memory_bytes / 1e9);
    else if (!c->simulated && sibling) /* the model ranks a strategy's algorithms */
        snprintf(c->why, sizeof c->why, "not simulated: another allreduce of %s was; by the "
                 "model %.6f s", c->base, c->analytic.iteration.total_s);
    else if (late < 1e-9)
        snprintf(c->why, sizeof c->why, "ties with %s%s", f->name,
                 c->simulated ? "" : " by the model (not simulated)");
    else if (c->simulated && congestion > 0.5 * (ct->total_s - ft->total_s) &&
             congestion > 0.01 * c->analytic.iteration.comm_s)
        snprintf(c->why, sizeof c->why, "congestion: +%.0f%% communication simulated over the "
                 "model; %.1f%% slower", 100 * congestion / c->analytic.iteration.comm_s,
                 100 * late);
    else {
        const char *part = comm >= compute ? "communication" : "compute";
        double by = comm >= compute ? comm : compute;
        if (input > by)
            part = "waiting for the input loader", by = input;
        snprintf(c->why, sizeof c->why, "%s%.1f%% slower: %s %+.4f s", c->simulated ? "" :
                 "not simulated (beyond --top); by the model ", 100 * late, part, by);
    }
}

/* Whether another gradient allreduce of c's strategy was simulated. */
static bool sibling_simulated(const su_list *l, const su_candidate *c)
{
    for (int i = 0; i < l->n; i++)
        if (l->c[i].simulated && &l->c[i] != c && strcmp(l->c[i].base, c->base) == 0)
            return true;
    return false;
}

void su_rank(su_list *l, double gpu_memory_bytes)
{
    sort(l);
    if (l->n == 0)
        return;
    const su_candidate *first = &l->c[l->order[0]];
    snprintf(l->c[l->order[0]].why, SU_WHY_LEN, "%s",
             first->simulated ? "fastest simulated" : "fastest by the model (none simulated)");
    for (int i = 1; i < l->n; i++)
        reason(&l->c[l->order[i]], first, sibling_simulated(l, &l->c[l->order[i]]),
               gpu_memory_bytes);
}

void su_list_free(su_list *l)
{
    for (int i = 0; l->c && i < l->n; i++)
        if (l->c[i].plan) {
            st_plan_free(l->c[i].plan);
            free(l->c[i].plan);
        }
    free(l->c);
    free(l->order);
    memset(l, 0, sizeof *l);
}
