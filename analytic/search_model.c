/* search_model.c: hybridsim's analytic model as the per-layer search's cost provider, the plan a
 * search's answer gives, and the search under a memory limit (an_search.h). */
#include "an_search.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "footprint.h"
#include "analytic_int.h"

sr_options an_search_options(int gpus)
{
    /* PaSE's cutoff (a split keeps at least 4 elements a device); spatial splits of
     * convolutions are candidates because hybridsim prices their halos. */
    sr_options o = {.devices = gpus, .cutoff = 4, .conv_spatial = true, .kernel_splits = false};
    return o;
}

static bool is_reshape(const sr_vertex *v)
{
    return v->op == SR_RAVEL || v->op == SR_UNRAVEL;
}

/* The configuration workload layer `l` takes from configuration c of the vertex it follows: a
 * layer with weights keeps the vertex's filter and channel splits; a weightless layer's one
 * channel axis is the vertex's output channels (a ReLU after a convolution: its filters). The
 * GPUs the group leaves repeat its work. */
static st_layer_config layer_config(const sr_vertex *v, const sr_config *c, const wl_layer *l,
                                    int gpus)
{
    st_layer_config s = st_layer_default();
    bool weights_vertex = v->op == SR_CONV || v->op == SR_FC;
    s.batch = (int)c->b;
    if (v->n_slots > 0) { /* PaSE's attention ops: only their batch split is hybridsim's */
        s.batch = (int)sr_slot(c, v->batch_slot);
        s.replicas = gpus % s.batch == 0 ? gpus / s.batch : 1;
        return s;
    }
    if (st_has_filters(l)) {
        s.filter = (int)c->f;
        s.channel = (int)c->c;
    } else {
        s.channel = (int)(weights_vertex ? c->f : c->c);
    }
    s.height = (int)c->h;
    s.width = (int)c->w;
    s.depth = (int)c->d;
    int q = st_group_size(&s);
    s.replicas = q > 0 && gpus % q == 0 ? gpus / q : 1;
    return s;
}

/* The tensor held split over the batch only, b ways (PaSE's reshapes keep it so). */
static st_layer_config batch_layout(int64_t b, int gpus)
{
    st_layer_config s = st_layer_default();
    s.batch = (int)b;
    s.replicas = gpus % b == 0 ? (int)(gpus / b) : 1;
    return s;
}

/* One past the last workload layer that follows vertex v (its own layer, then the ReLUs,
 * dropouts and LRNs after it, which run in its layout). */
static int followers_end(const sr_graph *g, int v)
{
    int l = g->v[v].layer + 1;
    while (l < g->n_layers && g->vertex_of_layer[l] == v)
        l++;
    return l;
}

/* The gradient bytes every layer would fuse under s's weight split: the buffer a plan that
 * splits every layer as s does reduces at once (an_plan_model fuses per set of ranks). */
static double fused_bytes(const an_search_model *m, const st_layer_config *s)
{
    double elem_bytes = st_gradient_bytes(&m->rules->train, m->kc), sum = 0.0;
    for (int i = 0; i < m->wl->n_layers; i++)
        sum += an__grad_bytes(m->wl, elem_bytes, i, s);
    return sum;
}

/* Layer l alone under s as the job's plan prices it (m->rules: its halos, its gradients'
 * algorithm and bytes), its weight gradients by their bandwidth only: a plan fuses the
 * gradients of every layer reduced over the same ranks into one allreduce (an_plan_model), so
 * an allreduce's latency is paid once per set of ranks, not once per layer as pricing alone
 * would; and NCCL chooses its algorithm (--runtime's allreduce = library) for that buffer, not
 * for one layer's gradients (which would be its tree, every layer paying its latencies). */
static int layer_cost(const an_search_model *m, int l, const st_layer_config *s, double *cost,
                      char *err)
{
    an_price pr;
    int status = an_layer_price(m->net, m->wl, m->kc, m->rules, l, s, m->batch, &pr, err);
    if (status != HS_OK)
        return status;
    const wl_layer *layer = &m->wl->layers[l];
    if (layer->w_elems > 0) {
        an_grad_sets sets = an__grad_sets(s, m->rules->reduce_replicas);
        co_algo algo = m->rules->allreduce;
        double latency[HS_TERM_COUNT] = {0}, choice_bytes = 0.0;
        if (algo == CO_AUTO) { /* priced again with the buffer's choice */
            choice_bytes = fused_bytes(m, s);
            pr.comm_s[HS_TERM_GRAD_GROUP] = pr.comm_s[HS_TERM_GRAD_ACROSS] = 0.0;
            an__grad_price(m->net, sets,
                           an__grad_bytes(m->wl, st_gradient_bytes(&m->rules->train, m->kc), l, s),
                           choice_bytes, algo, pr.comm_s);
        }
        an__grad_price(m->net, sets, 0.0, choice_bytes, algo, latency);
        pr.comm_s[HS_TERM_GRAD_GROUP] -= latency[HS_TERM_GRAD_GROUP];
        pr.comm_s[HS_TERM_GRAD_ACROSS] -= latency[HS_TERM_GRAD_ACROSS];
    }
    *cost = an_price_s(&pr);
    return HS_OK;
}

/* The vertex cost: every layer that follows v priced under its configuration, the tensors
 * between them (a channel-split convolution's partial sums are reduced before its ReLU), plus
 * their memory at the multiplier's price. */
static int vertex_cost(void *ctx, const sr_graph *g, int v, const sr_config *c, double *cost,
                       char *err)
{
    an_search_model *m = ctx;
    const sr_vertex *vx = &g->v[v];
    *cost = 0.0;
    if (is_reshape(vx))
        return HS_OK;
    int64_t batch = vx->n_slots > 0 ? sr_slot(c, vx->batch_slot) : c->b;
    bool batch_only = vx->op == SR_EMBED || vx->op == SR_LSTM || vx->n_slots > 0;
    if ((batch_only && sr_devices(c) != batch) || (vx->op == SR_LNORM && c->c > 1)) {
        /* hybridsim splits a table lookup, a recurrence and attention's products (whose
         * output has another shape than their input) by batch only, and never a layernorm's
         * channels (its statistics span them: st_plan_check refuses it) */
        *cost = INFINITY;
        return HS_OK;
    }
    for (int l = vx->layer; l < followers_end(g, v); l++) {
        const wl_layer *layer = &m->wl->layers[l];
        st_layer_config s = layer_config(vx, c, layer, m->gpus);
        an_price pr;
        double alone;
        int status = layer_cost(m, l, &s, &alone, err);
        if (status != HS_OK)
            return status;
        *cost += alone;
        if (l > vx->layer) {
            st_layer_config before = layer_config(vx, c, &m->wl->layers[l - 1], m->gpus);
            status = an_edge_price(m->net, m->wl, m->kc, m->rules, l - 1, &before, l, &s,
                                   m->batch, false, &pr, err);
            if (status != HS_OK)
                return status;
            *cost += an_price_s(&pr);
        }
        if (m->memory_s_per_byte > 0)
            *cost += m->memory_s_per_byte *
                     fp_layer_bytes(layer, &s, (double)m->batch,
                                    st_optimizer_states(&m->rules->train, m->wl),
                                    m->rules->train.autograd_memory);
    }
    return HS_OK;
}

/* A candidate: its group divides the GPUs and its layers alone fit a GPU. */
static int fits(void *ctx, const sr_graph *g, int v, const sr_config *c, bool *ok, char *err)
{
    an_search_model *m = ctx;
    const sr_vertex *vx = &g->v[v];
    int64_t q = sr_devices(c);
    *ok = q > 0 && m->gpus % q == 0;
    if (!*ok || is_reshape(vx))
        return HS_OK;
    double bytes = 0.0;
    for (int l = vx->layer; l < followers_end(g, v); l++) {
        st_layer_config s = layer_config(vx, c, &m->wl->layers[l], m->gpus);
        bytes += fp_layer_bytes(&m->wl->layers[l], &s, (double)m->batch,
                                st_optimizer_states(&m->rules->train, m->wl),
                                m->rules->train.autograd_memory);
    }
    *ok = m->gpu_memory_bytes <= 0 || bytes <= m->gpu_memory_bytes;
    (void)err;
    return HS_OK;
}

/* The vertex feeding vertex v (its first in-edge), or -1. */
static int producer(const sr_graph *g, int v)
{
    for (int e = 0; e < g->n_edges; e++)
        if (g->e[e].v == v)
            return g->e[e].u;
    return -1;
}

/* The two layers edge e prices between and what each end's configuration makes of them (the
 * edge cost is a function of ul, *su, vl, *sv alone). Into PaSE's reshapes, the tensor goes to
 * the fully connected layer's batch-split layout; out of them, from that layout. *none: the
 * edge costs nothing (an unravel with nothing before its ravel). */
static void edge_ends(const an_search_model *m, const sr_graph *g, int e, const sr_config *cu,
                      const sr_config *cv, int *ul, st_layer_config *su, int *vl,
                      st_layer_config *sv, bool *none)
{
    const sr_vertex *U = &g->v[g->e[e].u], *V = &g->v[g->e[e].v];
    *none = false;
    *vl = V->layer;
    if (V->op == SR_UNRAVEL) { /* ravel -> unravel: one batch-split layout to another */
        *vl = U->layer;
        *ul = m->wl->layers[*vl].inputs[0] >= 0 ? m->wl->layers[*vl].inputs[0] : *vl - 1;
        *su = batch_layout(cu->b, m->gpus);
    } else if (U->op == SR_UNRAVEL) {
        int ravel = producer(g, g->e[e].u), before = ravel < 0 ? -1 : producer(g, ravel);
        *none = before < 0;
        *ul = before < 0 ? 0 : followers_end(g, before) - 1;
        *su = batch_layout(cu->b, m->gpus);
    } else {
        *ul = followers_end(g, g->e[e].u) - 1;
        *su = layer_config(U, cu, &m->wl->layers[*ul], m->gpus);
    }
    *sv = is_reshape(V) ? batch_layout(cv->b, m->gpus)
                        : layer_config(V, cv, &m->wl->layers[*vl], m->gpus);
}

/* The edge cost: the tensor from u's layout to v's. */
static int edge_cost(void *ctx, const sr_graph *g, int e, const sr_config *cu,
                     const sr_config *cv, double *cost, char *err)
{
    an_search_model *m = ctx;
    int ul, vl;
    st_layer_config su, sv;
    bool none;
    edge_ends(m, g, e, cu, cv, &ul, &su, &vl, &sv, &none);
    *cost = 0.0;
    if (none)
        return HS_OK;
    an_price pr;
    int status = an_edge_price(m->net, m->wl, m->kc, m->rules, ul, &su, vl, &sv, m->batch, false,
                               &pr, err);
    if (status == HS_OK)
        *cost = an_price_s(&pr);
    return status;
}

/* What edge_cost sees of one end's configuration: that end's layer and its configuration,
 * field by field; the producer's end says too whether the edge costs nothing. */
static int edge_key(void *ctx, const sr_graph *g, int e, int side, const sr_config *c,
                    int64_t key[SR_EDGE_KEY_WORDS], char *err)
{
    const an_search_model *m = ctx;
    int ul, vl;
    st_layer_config su, sv;
    bool none;
    edge_ends(m, g, e, c, c, &ul, &su, &vl, &sv, &none);
    const st_layer_config *s = side == 0 ? &su : &sv;
    int64_t fields[] = {s->batch, s->filter, s->channel, s->height, s->width, s->depth,
                        s->replicas, s->base, s->whole, s->line, side == 0 ? ul : vl,
                        side == 0 && none};
    _Static_assert(sizeof fields / sizeof fields[0] <= SR_EDGE_KEY_WORDS, "key too short");
    memcpy(key, fields, sizeof fields);
    (void)err;
    return HS_OK;
}

/* A layer configuration back from edge_key's words (the fields it holds; the others as
 * st_layer_default has them, as layer_config and batch_layout leave them). */
static st_layer_config unkey(const int64_t *key)
{
    st_layer_config s = st_layer_default();
    s.batch = (int)key[0], s.filter = (int)key[1], s.channel = (int)key[2];
    s.height = (int)key[3], s.width = (int)key[4], s.depth = (int)key[5];
    s.replicas = (int)key[6], s.base = (int)key[7], s.whole = key[8] != 0, s.line = (int)key[9];
    return s;
}

/* edge_cost from the two ends' keys: the same layers and configurations, not remade. */
static int edge_keyed(void *ctx, const sr_graph *g, int e, const int64_t key_u[SR_EDGE_KEY_WORDS],
                      const int64_t key_v[SR_EDGE_KEY_WORDS], double *cost, char *err)
{
    an_search_model *m = ctx;
    (void)g, (void)e;
    *cost = 0.0;
    if (key_u[11])
        return HS_OK;
    st_layer_config su = unkey(key_u), sv = unkey(key_v);
    an_price pr;
    int status = an_edge_price(m->net, m->wl, m->kc, m->rules, (int)key_u[10], &su,
                               (int)key_v[10], &sv, m->batch, false, &pr, err);
    if (status == HS_OK)
        *cost = an_price_s(&pr);
    return status;
}

sr_costs an_search_costs(an_search_model *m)
{
    sr_costs c = {.vertex = vertex_cost, .edge = edge_cost, .fits = fits, .edge_key = edge_key,
                  .edge_keyed = edge_keyed, .ctx = m};
    return c;
}

int an_search_plan(const sr_graph *g, const int *choice, const wl_workload *wl, int gpus,
                   st_plan *plan, char *err)
{
    int status = st_plan_init(plan, wl->n_layers, gpus, err);
    if (status != HS_OK)
        return status;
    snprintf(plan->name, sizeof plan->name, "searched");
    snprintf(plan->workload, sizeof plan->workload, "%s", wl->name);
    for (int l = 0; l < wl->n_layers; l++) {
        int v = g->vertex_of_layer[l];
        if (v < 0) /* follows the input data: the first vertex's layout */
            v = g->vertex_of_layer[0] >= 0 ? g->vertex_of_layer[0] : 0;
        const sr_vertex *vx = &g->v[v];
        plan->layers[l] = layer_config(vx, &vx->configs[choice[v]], &wl->layers[l], gpus);
    }
    return HS_OK;
}

/* Solve g under m and read the plan off; *bytes gets its memory per GPU. */
static int solve_once(const sr_graph *g, an_search_model *m, int64_t max_table, sr_result *res,
                      st_plan *plan, double *bytes, char *err)
{
    sr_costs costs = an_search_costs(m);
    int status = sr_solve(g, &costs, max_table, res, err);
    if (status != HS_OK)
        return status;
    status = an_search_plan(g, res->choice, m->wl, m->gpus, plan, err);
    st_strategy st;
    hs_memory mem;
    if (status == HS_OK) {
        an_plan_rules(m->rules, plan);
        st_from_plan(plan, &st);
        status = fp_memory(m->wl, m->kc, &st, m->batch, &mem, err);
        if (status != HS_OK)
            st_plan_free(plan);
    }
    if (status != HS_OK) {
        sr_result_free(res);
        return status;
    }
    *bytes = fp_total(&mem);
    return HS_OK;
}

/* Keep the better of two answers (the new one if best is empty). */
static void keep(sr_result *best, st_plan *best_plan, sr_result *res, st_plan *plan)
{
    if (best->choice) {
        sr_result_free(best);
        st_plan_free(best_plan);
    }
    *best = *res;
    *best_plan = *plan;
}

int an_search_fitted(const sr_graph *g, an_search_model *m, int64_t max_table, sr_result *res,
                     st_plan *plan, char *err)
{
    double bytes, limit = m->gpu_memory_bytes;
    m->memory_s_per_byte = 0.0;
    int status = solve_once(g, m, max_table, res, plan, &bytes, err);
    if (status != HS_OK || limit <= 0 || bytes <= limit)
        return status;
    /* Raise the price of memory until the plan fits (a GB at 1 ms first, doubling), then halve
     * the interval a few times to pay no more time than fitting needs. */
    sr_result best = {0}, r;
    st_plan best_plan, p;
    memset(&best_plan, 0, sizeof best_plan);
    double lo = 0.0, hi = 1e-12, tight = bytes;
    for (int i = 0; i < 40 && status == HS_OK; i++, hi *= 4) {
        m->memory_s_per_byte = hi;
        status = solve_once(g, m, max_table, &r, &p, &bytes, err);
        if (status == HS_OK && bytes <= limit) {
            keep(&best, &best_plan, &r, &p);
            break;
        }
        if (status == HS_OK) {
            lo = hi, tight = bytes < tight ? bytes : tight;
            sr_result_free(&r);
            st_plan_free(&p);
        }
    }
    for (int i = 0; i < 10 && status == HS_OK && best.choice; i++) {
        m->memory_s_per_byte = 0.5 * (lo + hi);
        status = solve_once(g, m, max_table, &r, &p, &bytes, err);
        if (status == HS_OK && bytes <= limit)
            hi = m->memory_s_per_byte, keep(&best, &best_plan, &r, &p);
        else if (status == HS_OK)
            lo = m->memory_s_per_byte, sr_result_free(&r), st_plan_free(&p);
    }
    sr_result_free(res);
    st_plan_free(plan);
    if (status == HS_OK && !best.choice)
        status = hs_fail(err, HS_EINPUT, "no per-layer strategy fits in %.1f GB a GPU (the "
                         "smallest found needs %.1f GB)", limit / 1e9, tight / 1e9);
    if (status != HS_OK) {
        if (best.choice)
            sr_result_free(&best), st_plan_free(&best_plan);
        return status;
    }
    *res = best;
    *plan = best_plan;
    return HS_OK;
}
