/* search_solve.c: the search itself (search.h): variable elimination of
 *
 *     F = sum_v t_l(v, c_v) + sum_(u,v) t_x(u, v, c_u, c_v)
 *
 * in PaSE's order (search_order.c). The objective is a sum of factors, each a table over a few
 * vertices' candidate indices: one per vertex (t_l), one per edge (t_x). Eliminating v adds up
 * every factor that mentions v and keeps, for each assignment of the other vertices they
 * mention (v's dependent set S), the least sum over v's candidates and which candidate gave it
 * (the first in candidate order, so ties go to the lowest configuration, as in the notes'
 * re-derivation of PaSE). That new factor over S replaces them. When every vertex is gone the
 * factors left are numbers, whose sum is the optimum; walking the order backwards reads each
 * vertex's candidate from its argmin table under its dependent set's choices. This is exactly
 * PaSE's table join (scheduler.py) without carrying the older columns along.
 *
 * Tables are made when needed and freed when used: a vertex's and an edge's when the first of
 * their vertices is eliminated, so memory holds the factors in flight and the argmin tables
 * (4 bytes an entry). Entries of one table are bounded (max_table) and reported. An edge's
 * table prices each pair of its ends' key groups once (sr_costs.edge_key); the minimisation
 * itself is search_minimise.c's. */
#include "search_solve_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SCOPE SR__MAX_SCOPE
typedef sr__factor factor; /* short names for this file */
typedef sr__back back;

/* The search's working state. */
typedef struct {
    const sr_graph *g;
    const sr_costs *costs;
    int64_t max_table;
    int **cand;              /* per vertex: indices of the configurations that fit */
    int *n_cand;
    char *done;              /* per vertex: eliminated */
    factor *f;               /* every factor made; a used one has table NULL */
    int n_f;
    int *pick;               /* the factors the current elimination sums (indices in f) */
    int n_pick;
    back *b;                 /* per vertex */
    int64_t live_bytes;      /* tables alive now */
    sr_result *res;
    char *err;
} solver;

static int oom(solver *s)
{
    return hs_fail(s->err, HS_EINTERNAL, "search: out of memory");
}

static double *new_table(solver *s, int64_t size)
{
    double *t = malloc((size_t)(size ? size : 1) * sizeof *t);
    if (t) {
        s->live_bytes += size * (int64_t)sizeof *t;
        if (s->live_bytes > s->res->peak_bytes)
            s->res->peak_bytes = s->live_bytes;
    }
    return t;
}

static void drop_table(solver *s, factor *f)
{
    s->live_bytes -= f->size * (int64_t)sizeof *f->table;
    free(f->table);
    f->table = NULL;
}

/* The configurations of each vertex that the fits callback accepts. */
static int candidates(solver *s)
{
    const sr_graph *g = s->g;
    for (int v = 0; v < g->n_vertices; v++) {
        const sr_vertex *x = &g->v[v];
        s->cand[v] = malloc((size_t)x->n_configs * sizeof(int));
        if (!s->cand[v])
            return oom(s);
        for (int k = 0; k < x->n_configs; k++) {
            bool ok = true;
            int status = s->costs->fits ? s->costs->fits(s->costs->ctx, g, v, &x->configs[k],
                                                         &ok, s->err) : HS_OK;
            if (status != HS_OK)
                return status;
            if (ok)
                s->cand[v][s->n_cand[v]++] = k;
            else
                s->res->refused++;
        }
        if (s->n_cand[v] == 0)
            return hs_fail(s->err, HS_EINPUT, "search: no configuration of %s (%s) fits: all "
                           "%d refused", x->name, sr_op_name(x->op), x->n_configs);
    }
    return HS_OK;
}

/* v's own costs t_l as a factor over {v}. */
static int vertex_factor(solver *s, int v, factor *out)
{
    const sr_vertex *x = &s->g->v[v];
    *out = (factor){.n = 1, .vars = {v}, .size = s->n_cand[v]};
    if (!(out->table = new_table(s, out->size)))
        return oom(s);
    for (int i = 0; i < s->n_cand[v]; i++) {
        int status = s->costs->vertex(s->costs->ctx, s->g, v, &x->configs[s->cand[v][i]],
                                      &out->table[i], s->err);
        if (status != HS_OK)
            return status;
    }
    return HS_OK;
}

/* A candidate of one end of an edge and its key (sr_costs.edge_key). */
typedef struct {
    int64_t key[SR_EDGE_KEY_WORDS];
    int i;            /* its index among the end's candidates */
} keyed;

static int by_key(const void *a, const void *b)
{
    const keyed *x = a, *y = b;
    for (int w = 0; w < SR_EDGE_KEY_WORDS; w++)
        if (x->key[w] != y->key[w])
            return x->key[w] < y->key[w] ? -1 : 1;
    return (x->i > y->i) - (x->i < y->i);
}

/* The candidates of vertex `vertex` (edge e's end `side`) grouped by their keys: cls[i] the
 * group of candidate i, rep[c] a candidate of group c and rep_key[c] its key, *n_cls the
 * groups. Without keys every
 * candidate is its own group. */
static int group_end(solver *s, int e, int side, int vertex, int *cls, int *rep, int *n_cls,
                     int64_t (*rep_key)[SR_EDGE_KEY_WORDS])
{
    int n = s->n_cand[vertex];
    const sr_config *configs = s->g->v[vertex].configs;
    keyed *k = s->costs->edge_key ? calloc((size_t)n, sizeof *k) : NULL;
    *n_cls = 0;
    if (!k) {
        if (s->costs->edge_key)
            return oom(s);
        for (int i = 0; i < n; i++)
            cls[i] = rep[i] = i;
        *n_cls = n;
        return HS_OK;
    }
    for (int i = 0; i < n; i++) {
        k[i].i = i;
        int status = s->costs->edge_key(s->costs->ctx, s->g, e, side,
                                        &configs[s->cand[vertex][i]], k[i].key, s->err);
        if (status != HS_OK) {
            free(k);
            return status;
        }
    }
    qsort(k, (size_t)n, sizeof *k, by_key);
    for (int i = 0; i < n; i++) {
        if (i == 0 || memcmp(k[i].key, k[i - 1].key, sizeof k[i].key) != 0) {
            memcpy(rep_key[*n_cls], k[i].key, sizeof k[i].key);
            rep[(*n_cls)++] = k[i].i;
        }
        cls[k[i].i] = *n_cls - 1;
    }
    free(k);
    return HS_OK;
}

/* The groups of one end of an edge (group_end). */
typedef struct {
    int *cls, *rep;
    int64_t (*key)[SR_EDGE_KEY_WORDS];
    int n;
} end_groups;

/* The cost of every pair of groups of edge e's two ends, into cost[gv * n_gu + gu]. */
static int price_groups(solver *s, int e, const end_groups *gu, const end_groups *gv,
                        double *cost)
{
    const sr_edge *x = &s->g->e[e];
    const sr_config *cu = s->g->v[x->u].configs, *cv = s->g->v[x->v].configs;
    bool keyed = s->costs->edge_key && s->costs->edge_keyed;
    for (int b = 0; b < gv->n; b++)
        for (int a = 0; a < gu->n; a++) {
            double *c = &cost[(int64_t)b * gu->n + a];
            int status = keyed ? s->costs->edge_keyed(s->costs->ctx, s->g, e, gu->key[a],
                                                      gv->key[b], c, s->err)
                               : s->costs->edge(s->costs->ctx, s->g, e,
                                                &cu[s->cand[x->u][gu->rep[a]]],
                                                &cv[s->cand[x->v][gv->rep[b]]], c, s->err);
            if (status != HS_OK)
                return status;
        }
    return HS_OK;
}

/* Edge e's costs t_x as a factor over {u, v}: each pair of key groups priced once. */
static int edge_factor(solver *s, int e, factor *out)
{
    const sr_edge *x = &s->g->e[e];
    int nu = s->n_cand[x->u], nv = s->n_cand[x->v];
    *out = (factor){.n = 2, .vars = {x->u, x->v}, .size = (int64_t)nu * nv};
    int *cls = malloc((size_t)(2 * (nu + nv)) * sizeof *cls);
    int64_t (*keys)[SR_EDGE_KEY_WORDS] = malloc((size_t)(nu + nv) * sizeof *keys);
    end_groups gu = {cls, cls + nu, keys, 0}, gv = {cls + 2 * nu, cls + 2 * nu + nv, keys + nu, 0};
    double *cost = NULL;
    int status = cls && keys ? HS_OK : oom(s);
    if (status == HS_OK)
        status = group_end(s, e, 0, x->u, gu.cls, gu.rep, &gu.n, gu.key);
    if (status == HS_OK)
        status = group_end(s, e, 1, x->v, gv.cls, gv.rep, &gv.n, gv.key);
    if (status == HS_OK && !(cost = malloc((size_t)gu.n * (size_t)gv.n * sizeof *cost)))
        status = oom(s);
    if (status == HS_OK)
        status = price_groups(s, e, &gu, &gv, cost);
    if (status == HS_OK && !(out->table = new_table(s, out->size)))
        status = oom(s);
    for (int j = 0; status == HS_OK && j < nv; j++)
        for (int i = 0; i < nu; i++)
            out->table[(int64_t)j * nu + i] = cost[(int64_t)gv.cls[j] * gu.n + gu.cls[i]];
    free(cls);
    free(keys);
    free(cost);
    return status;
}

static bool mentions(const factor *f, int v)
{
    for (int i = 0; i < f->n; i++)
        if (f->vars[i] == v)
            return true;
    return false;
}

/* Appends a factor to s->f and picks it for the sum. */
static void pick(solver *s, const factor *f)
{
    s->pick[s->n_pick++] = s->n_f;
    s->f[s->n_f++] = *f;
}

/* The factors v's elimination sums, into s->pick: the made ones that mention v, then v's own
 * and one per edge to a vertex not yet eliminated (made here). The other vertices they
 * mention, ascending, into scope: v's dependent set. */
static int gather(solver *s, int v, back *scope)
{
    const sr_graph *g = s->g;
    s->n_pick = 0;
    for (int i = 0; i < s->n_f; i++)
        if (s->f[i].table && mentions(&s->f[i], v))
            s->pick[s->n_pick++] = i;
    factor f;
    int status = vertex_factor(s, v, &f);
    if (status != HS_OK)
        return status;
    pick(s, &f);
    for (int e = 0; e < g->n_edges; e++) {
        const sr_edge *x = &g->e[e];
        if ((x->u == v && !s->done[x->v]) || (x->v == v && !s->done[x->u])) {
            if ((status = edge_factor(s, e, &f)) != HS_OK)
                return status;
            pick(s, &f);
        }
    }
    memset(scope, 0, sizeof *scope);
    for (int w = 0; w < g->n_vertices; w++) {
        bool in = false;
        for (int i = 0; i < s->n_pick && !in && w != v; i++)
            in = mentions(&s->f[s->pick[i]], w);
        if (!in)
            continue;
        if (scope->n == MAX_SCOPE)
            return hs_fail(s->err, HS_EINPUT, "search: eliminating %s would key a table by "
                           "more than %d vertices", g->v[v].name, MAX_SCOPE);
        scope->vars[scope->n++] = w;
    }
    return HS_OK;
}

/* Sizes the table keyed by scope, checks the bound; fills the strides. */
static int size_scope(solver *s, int v, back *scope, int64_t *size)
{
    *size = 1;
    for (int i = 0; i < scope->n; i++) {
        scope->stride[i] = *size;
        int64_t n = s->n_cand[scope->vars[i]];
        if (*size > s->max_table / n)
            return hs_fail(s->err, HS_EINPUT, "search: the table for %s would exceed %lld "
                           "entries (keyed by the candidates of %d vertices): too many for "
                           "the bound on tables", s->g->v[v].name, (long long)s->max_table,
                           scope->n);
        *size *= n;
    }
    return HS_OK;
}

/* Sum the picked factors and minimise v out into a new factor over scope. */
static int reduce(solver *s, int v, back *scope, int64_t size, factor *out)
{
    int k = s->n_pick;
    const factor **picked = malloc((size_t)k * sizeof *picked);
    *out = (factor){.n = scope->n, .size = size};
    memcpy(out->vars, scope->vars, sizeof out->vars);
    out->table = new_table(s, size);
    scope->argmin = malloc((size_t)size * sizeof *scope->argmin);
    if (!picked || !out->table || !scope->argmin) {
        free(picked);
        if (out->table)
            drop_table(s, out);
        return oom(s);
    }
    s->live_bytes += size * (int64_t)sizeof *scope->argmin; /* kept for the walk back */
    for (int j = 0; j < k; j++)
        picked[j] = &s->f[s->pick[j]];
    int status = sr__minimise(picked, k, v, s->n_cand, scope, size, out->table, s->err);
    s->res->rows += size * s->n_cand[v];
    free(picked);
    if (status != HS_OK)
        drop_table(s, out);
    return status;
}

static int eliminate(solver *s, int v)
{
    back *scope = &s->b[v];
    int64_t size = 0;
    int status = gather(s, v, scope);
    if (status == HS_OK)
        status = size_scope(s, v, scope, &size);
    factor made;
    if (status == HS_OK)
        status = reduce(s, v, scope, size, &made);
    for (int j = 0; j < s->n_pick; j++)
        if (s->f[s->pick[j]].table)
            drop_table(s, &s->f[s->pick[j]]);
    if (status != HS_OK)
        return status;
    if (scope->n > s->res->largest_dependent_set)
        s->res->largest_dependent_set = scope->n;
    if (size > s->res->largest_table)
        s->res->largest_table = size;
    s->f[s->n_f++] = made;
    s->done[v] = 1;
    return HS_OK;
}

/* Walk the order backwards: each vertex's best candidate under its dependent set's. */
static void walk_back(solver *s, int *chosen)
{
    const sr_graph *g = s->g;
    for (int i = g->n_vertices - 1; i >= 0; i--) {
        int v = s->res->order[i];
        const back *b = &s->b[v];
        int64_t at = 0;
        for (int j = 0; j < b->n; j++)
            at += chosen[b->vars[j]] * b->stride[j];
        chosen[v] = b->argmin[at];
    }
    for (int v = 0; v < g->n_vertices; v++)
        s->res->choice[v] = s->cand[v][chosen[v]];
}

static int run(solver *s)
{
    const sr_graph *g = s->g;
    int status = candidates(s);
    if (status == HS_OK)
        status = sr_order(g, s->res->order, s->err);
    for (int i = 0; i < g->n_vertices && status == HS_OK; i++)
        status = eliminate(s, s->res->order[i]);
    if (status != HS_OK)
        return status;
    double total = 0.0;
    for (int i = 0; i < s->n_f; i++)
        if (s->f[i].table) /* what is left are numbers: one per connected part */
            total += s->f[i].table[0];
    if (!isfinite(total))
        return hs_fail(s->err, HS_EINPUT, "search: every strategy was refused (no finite cost)");
    s->res->total = total;
    int *chosen = calloc((size_t)g->n_vertices + 1, sizeof *chosen);
    if (!chosen)
        return oom(s);
    walk_back(s, chosen);
    free(chosen);
    return HS_OK;
}

static void free_solver(solver *s)
{
    for (int v = 0; s->cand && v < s->g->n_vertices; v++)
        free(s->cand[v]);
    for (int v = 0; s->b && v < s->g->n_vertices; v++)
        free(s->b[v].argmin);
    for (int i = 0; s->f && i < s->n_f; i++)
        free(s->f[i].table);
    free(s->cand);
    free(s->n_cand);
    free(s->done);
    free(s->f);
    free(s->pick);
    free(s->b);
}

void sr_result_free(sr_result *res)
{
    free(res->choice);
    free(res->order);
    memset(res, 0, sizeof *res);
}

int sr_solve(const sr_graph *g, const sr_costs *costs, int64_t max_table, sr_result *res,
             char *err)
{
    memset(res, 0, sizeof *res);
    size_t n = (size_t)g->n_vertices + 1, n_factors = 3 * n + (size_t)g->n_edges;
    solver s = {.g = g, .costs = costs, .res = res, .err = err,
                .max_table = max_table > 0 ? max_table : SR_MAX_TABLE_DEFAULT};
    s.cand = calloc(n, sizeof *s.cand);
    s.n_cand = calloc(n, sizeof *s.n_cand);
    s.done = calloc(n, 1);
    s.f = calloc(n_factors, sizeof *s.f);
    s.pick = calloc(n_factors, sizeof *s.pick);
    s.b = calloc(n, sizeof *s.b);
    res->choice = calloc(n, sizeof *res->choice);
    res->order = calloc(n, sizeof *res->order);
    int status = s.cand && s.n_cand && s.done && s.f && s.pick && s.b && res->choice &&
                 res->order ? run(&s) : oom(&s);
    free_solver(&s);
    if (status != HS_OK)
        sr_result_free(res);
    return status;
}

int sr_price(const sr_graph *g, const sr_costs *costs, const int *choice, double *vertex_cost,
             double *edge_cost, double *total, char *err)
{
    double sum = 0.0, x;
    for (int v = 0; v < g->n_vertices; v++) {
        int status = costs->vertex(costs->ctx, g, v, &g->v[v].configs[choice[v]], &x, err);
        if (status != HS_OK)
            return status;
        if (vertex_cost)
            vertex_cost[v] = x;
        sum += x;
    }
    for (int i = 0; i < g->n_edges; i++) {
        const sr_edge *e = &g->e[i];
        int status = costs->edge(costs->ctx, g, i, &g->v[e->u].configs[choice[e->u]],
                                 &g->v[e->v].configs[choice[e->v]], &x, err);
        if (status != HS_OK)
            return status;
        if (edge_cost)
            edge_cost[i] = x;
        sum += x;
    }
    *total = sum;
    return HS_OK;
}
