/* oracle.c: the strategy oracle's question asked whole, and its answer as a strategy file
 * (suggest.h).
 *
 * One function answers for `suggest` and `strategy --search`: every built-in strategy with
 * every gradient-allreduce algorithm, the published per-layer schemes (OWT, SplitBrain and GHP
 * at every group size) and the plan of the per-layer search (PaSE's dynamic programme with
 * hybridsim's cost model, polished with the exact model), each priced by the analytic model;
 * the fastest few simulated; the ranking by simulated time. So both commands give the same
 * answer, and the file written says which candidate won and how. */
#include "suggest_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "collective.h"
#include "generate.h"
#include "job.h"

double su__now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

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
    su__rules(q->runtime, q->halo, q->filter_rs, rules);
    an_search_model m = {.net = net, .wl = q->wl, .kc = q->kc, .rules = rules, .batch = q->batch,
                         .gpus = q->p, .gpu_memory_bytes = q->plat->gpu_memory_bytes};
    int status = search_rules(q, &m, l, err);
    free(rules);
    return status;
}

int su_answer(const su_question *q, su_list *l, char *err)
{
    double start = su__now_s();
    fprintf(stderr, "%s: pricing every strategy for %s on %d GPUs by the model\n", q->who,
            q->wl->name, q->p);
    int status = su_price_all(q, l, err);
    if (status != HS_OK)
        return status;
    fprintf(stderr, "%s: %d strategies priced, %d fit (%.1f s)\n", q->who, l->n, l->fitting,
            su__now_s() - start);
    if (q->simulate && (status = su_simulate_top(q, l, err)) != HS_OK) {
        su_list_free(l);
        return status;
    }
    su_rank(l, q->plat->gpu_memory_bytes);
    return HS_OK;
}

int su_answer_plan(const su_list *l, int i, const su_question *q, const js_settings *job,
                   st_plan *plan, char *err)
{
    const su_candidate *c = &l->c[i];
    int status = c->plan ? st_plan_copy(c->plan, plan, err)
                         : st_plan_of(q->wl, q->kc, &c->st, q->batch, plan, err);
    if (status != HS_OK)
        return status;
    if (!c->plan) /* a built-in's, as su__train ran it */
        su__rules(q->runtime, q->halo, q->filter_rs, plan);
    plan->allreduce = c->st.allreduce;
    snprintf(plan->name, sizeof plan->name, "%s", c->base);
    js_settings s = *job; /* the command's keys, and the algorithm the oracle chose */
    unsigned bit = 1u << js_find("allreduce");
    s.allreduce = c->st.allreduce;
    s.given = c->st.allreduce != CO_RING ? s.given | bit : s.given & ~bit;
    status = job_plan_settings(&s, plan, err);
    if (status != HS_OK)
        st_plan_free(plan);
    return status;
}

int su_simulate_plan(const su_question *q, const st_plan *plan, hs_estimate *est, char *err)
{
    st_strategy st;
    st_from_plan(plan, &st);
    su__train(q->runtime, q->overlap, q->halo, q->filter_rs, &st);
    st.allreduce = plan->allreduce;
    fprintf(stderr, "%s: simulating the answer as the file runs it\n", q->who);
    return q->simulate(q->wl, q->kc, q->plat, &st, q->batch, est, err);
}

void su_describe(const su_question *q, const su_list *l, int i, const hs_estimate *file,
                 char *buf, size_t len)
{
    const su_candidate *c = &l->c[i];
    char what[160], how[240];
    if (!c->plan)
        snprintf(what, sizeof what, "the built-in strategy %s written as a per-layer plan",
                 c->base);
    else if (strcmp(c->base, "searched") == 0)
        snprintf(what, sizeof what, "searched by PaSE's dynamic programme with hybridsim's "
                 "cost model, polished with the exact model");
    else
        snprintf(what, sizeof what, "generated by %s (hybridsim strategy --generate)", c->base);
    if (c->st.allreduce != CO_RING)
        snprintf(what + strlen(what), sizeof what - strlen(what), ", %s gradient allreduce",
                 co_algo_name(c->st.allreduce));
    if (c->simulated && file && file->iteration.total_s != c->sim.iteration.total_s)
        snprintf(how, sizeof how, "ranked by the analytic model (%.6f s), the %d fastest "
                 "simulated; simulated %.6f s an iteration as the built-in, %.6f s as this "
                 "file", c->analytic.iteration.total_s, l->simulated, c->sim.iteration.total_s,
                 file->iteration.total_s);
    else if (c->simulated)
        snprintf(how, sizeof how, "ranked by the analytic model (%.6f s), the %d fastest "
                 "simulated; simulated %.6f s an iteration", c->analytic.iteration.total_s,
                 l->simulated, c->sim.iteration.total_s);
    else
        snprintf(how, sizeof how, "ranked by the analytic model, not simulated: %.6f s an "
                 "iteration", c->analytic.iteration.total_s);
    snprintf(buf, len, "%s; chosen by hybridsim's oracle (suggest, strategy --search) over %d "
             "candidates for %s on %s, %d GPUs, batch %lld: %s", what, l->n, q->wl->name,
             q->plat->name, q->p, (long long)q->batch, how);
}
