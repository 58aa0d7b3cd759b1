/* test_search_engine.c: the search's machinery (analytic/search) apart from PaSE's model: the
 * graph a workload gives (branches, relu folding, reshapes), the candidate rules (all divisors,
 * PaSE's "contiguous" reshapes), the elimination against brute force over every assignment of
 * a small branching graph with arbitrary costs, refusals by the fits callback, infinite costs,
 * the table bound, and what the search refuses to build. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "pase_cost.h"
#include "search.h"

#define TMP HS_TEST_TMP "/test_search_engine"

/* conv -> two convs -> add, a concat with the first conv's output, pool, fc, softmax. */
static const char branchy_xml[] =
    "<?xml version=\"1.0\"?>\n<!DOCTYPE workload SYSTEM \"workload.dtd\">\n"
    "<workload name=\"branchy\">\n"
    "<dataset name=\"toy\" samples=\"100\" sample=\"3x8x8\"/>\n"
    "<calibration device=\"V100-16GB\" sample_time_s=\"0.001\"/>\n<layers>\n"
    "<layer id=\"c1\" type=\"conv\" x=\"3x8x8\" w=\"3x4x3x3\" y=\"4x8x8\" padding=\"1\"/>\n"
    "<layer id=\"r1\" type=\"relu\" x=\"4x8x8\" y=\"4x8x8\"/>\n"
    "<layer id=\"c2\" type=\"conv\" x=\"4x8x8\" w=\"4x4x3x3\" y=\"4x8x8\" padding=\"1\"/>\n"
    "<layer id=\"c3\" type=\"conv\" x=\"4x8x8\" w=\"4x4x1x1\" y=\"4x8x8\" inputs=\"r1\"/>\n"
    "<layer id=\"a\" type=\"add\" x=\"4x8x8\" y=\"4x8x8\" inputs=\"c2 c3\"/>\n"
    "<layer id=\"k\" type=\"concat\" x=\"8x8x8\" y=\"8x8x8\" inputs=\"a r1\"/>\n"
    "<layer id=\"p\" type=\"pool\" x=\"8x8x8\" kernel=\"2x2\" y=\"8x4x4\" stride=\"2\"/>\n"
    "<layer id=\"f\" type=\"fc\" x=\"8x4x4\" w=\"8x10x4x4\" y=\"10x1x1\"/>\n"
    "<layer id=\"s\" type=\"softmax\" x=\"10x1x1\" y=\"10x1x1\"/>\n"
    "</layers>\n</workload>\n";

enum { C1, C2, C3, ADD, CAT, POOL, RAVEL, UNRAVEL, FC, SOFTMAX, BRANCHY_VERTICES };

static wl_workload branchy;

static int load_branchy(void **state)
{
    (void)state;
    char err[HS_ERR_LEN];
    FILE *f = fopen(TMP ".xml", "w");
    if (!f || fputs(branchy_xml, f) < 0 || fclose(f) != 0)
        return -1;
    if (wl_load(TMP ".xml", &branchy, err) != HS_OK) {
        fprintf(stderr, "%s\n", err);
        return -1;
    }
    return 0;
}

static int free_branchy(void **state)
{
    (void)state;
    wl_free(&branchy);
    return 0;
}

static void build(int devices, int64_t cutoff, int64_t batch, sr_graph *g)
{
    char err[HS_ERR_LEN];
    sr_options opt = {.devices = devices, .cutoff = cutoff, .kernel_splits = true};
    if (sr_graph_build(&branchy, batch, &opt, g, err) != HS_OK)
        fail_msg("%s", err);
}

/* ------------------------------------------------------------------ the graph */

static bool has_edge(const sr_graph *g, int u, int v)
{
    for (int i = 0; i < g->n_edges; i++)
        if (g->e[i].u == u && g->e[i].v == v)
            return true;
    return false;
}

static void test_graph(void **state)
{
    (void)state;
    static const sr_op ops[] = {SR_CONV, SR_CONV, SR_CONV, SR_ADD, SR_CONCAT, SR_POOL,
                                SR_RAVEL, SR_UNRAVEL, SR_FC, SR_SOFTMAX};
    static const int edges[][2] = {{C1, C2}, {C1, C3}, {C2, ADD}, {C3, ADD}, {ADD, CAT},
                                   {C1, CAT}, {CAT, POOL}, {POOL, RAVEL}, {RAVEL, UNRAVEL},
                                   {UNRAVEL, FC}, {FC, SOFTMAX}};
    sr_graph g;
    build(2, 1, 2, &g);
    assert_int_equal(g.n_vertices, BRANCHY_VERTICES);
    for (int v = 0; v < BRANCHY_VERTICES; v++)
        assert_int_equal(g.v[v].op, ops[v]);
    assert_int_equal(g.n_edges, 11);
    for (size_t i = 0; i < sizeof edges / sizeof edges[0]; i++)
        assert_true(has_edge(&g, edges[i][0], edges[i][1]));
    assert_int_equal(g.v[C1].pw, 1); /* r1 */
    assert_int_equal(g.vertex_of_layer[1], C1);
    assert_int_equal(g.v[CAT].dom.c, 1); /* never split */
    assert_int_equal(g.v[FC].dom.c, 128);
    /* the concat's tensor has both inputs' channels; the pool halos read 8x8 */
    assert_int_equal(g.e[6].shape[1], 8);
    assert_int_equal(g.v[POOL].in_h, 8);
    assert_int_equal(g.v[POOL].win_w, 2);
    sr_graph_free(&g);
}

static bool candidate(const sr_vertex *v, sr_config want)
{
    for (int k = 0; k < v->n_configs; k++)
        if (memcmp(&v->configs[k], &want, sizeof want) == 0)
            return true;
    return false;
}

static void test_candidates(void **state)
{
    (void)state;
    sr_graph g;
    build(4, 1, 2, &g);
    /* a reshape splits its leading dimensions first: the batch whole, then the channels */
    assert_true(candidate(&g.v[RAVEL], (sr_config){2, 1, 2, 1, 1, 1, 1, 1}));
    assert_false(candidate(&g.v[RAVEL], (sr_config){1, 1, 2, 1, 1, 1, 1, 1}));
    assert_true(candidate(&g.v[UNRAVEL], (sr_config){2, 1, 2, 1, 1, 1, 1, 1}));
    /* convolutions never split h and w when conv_spatial is off; the window can split */
    for (int k = 0; k < g.v[C2].n_configs; k++)
        assert_true(g.v[C2].configs[k].h == 1 && g.v[C2].configs[k].w == 1);
    assert_true(candidate(&g.v[C2], (sr_config){1, 1, 1, 1, 1, 1, 3, 1}));
    for (int v = 0; v < g.n_vertices; v++)
        for (int k = 0; k < g.v[v].n_configs; k++)
            assert_true(sr_devices(&g.v[v].configs[k]) <= 4);
    sr_graph_free(&g);

    /* PaSE's AlexNet at p = 8: all divisors, not powers of two (96 filters: 3 and 6) */
    wl_workload wl;
    char err[HS_ERR_LEN];
    assert_int_equal(wl_load("pase-alexnet", &wl, err), HS_OK);
    sr_options opt = pase_options(&wl, 8);
    assert_int_equal(sr_graph_build(&wl, 128, &opt, &g, err), HS_OK);
    assert_true(candidate(&g.v[0], (sr_config){1, 3, 1, 1, 1, 1, 1, 1}));
    assert_true(candidate(&g.v[0], (sr_config){1, 6, 1, 1, 1, 1, 1, 1}));
    assert_false(candidate(&g.v[0], (sr_config){1, 1, 3, 1, 1, 1, 1, 1})); /* 3 channels */
    assert_true(candidate(&g.v[1], (sr_config){1, 1, 1, 3, 1, 1, 1, 1}));  /* 27 rows */
    assert_false(candidate(&g.v[1], (sr_config){1, 1, 1, 9, 1, 1, 1, 1})); /* 3 < cutoff */
    sr_graph_free(&g);
    wl_free(&wl);
}

/* ------------------------------------------------------------------ against brute force */

/* Arbitrary whole-number costs from the configuration's position; fits refuses what `refuse`
 * says. */
typedef struct {
    int refuse_vertex;  /* -1: none; else refuse this vertex's candidates... */
    int64_t refuse_b;   /* ... whose batch split is this (0: all of them) */
    int infinite_edge;  /* -1: none; else this edge costs INFINITY */
    bool zero;          /* every cost 0 instead */
} toy;

static uint64_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= UINT64_C(0xff51afd7ed558ccd);
    x ^= x >> 33;
    return x;
}

static int toy_vertex(void *ctx, const sr_graph *g, int v, const sr_config *c, double *cost,
                      char *err)
{
    (void)err;
    *cost = (double)(mix((uint64_t)v * 1000 + (uint64_t)(c - g->v[v].configs)) % 997);
    if (((const toy *)ctx)->zero)
        *cost = 0.0;
    return HS_OK;
}

static int toy_edge(void *ctx, const sr_graph *g, int e, const sr_config *cu,
                    const sr_config *cv, double *cost, char *err)
{
    (void)err;
    const toy *t = ctx;
    uint64_t ku = (uint64_t)(cu - g->v[g->e[e].u].configs);
    uint64_t kv = (uint64_t)(cv - g->v[g->e[e].v].configs);
    *cost = e == t->infinite_edge ? INFINITY
                                  : (double)(mix(((uint64_t)e * 1000 + ku) * 1000 + kv) % 997);
    if (t->zero)
        *cost = 0.0;
    return HS_OK;
}

static int toy_fits(void *ctx, const sr_graph *g, int v, const sr_config *c, bool *ok,
                    char *err)
{
    (void)g, (void)err;
    const toy *t = ctx;
    *ok = !(v == t->refuse_vertex && (t->refuse_b == 0 || c->b == t->refuse_b));
    return HS_OK;
}

/* The least total over every assignment the fits callback accepts. */
static double brute_force(const sr_graph *g, const sr_costs *costs)
{
    int choice[BRANCHY_VERTICES] = {0};
    double best = INFINITY, total;
    char err[HS_ERR_LEN];
    for (;;) {
        bool ok = true;
        for (int v = 0; v < g->n_vertices && ok; v++)
            toy_fits(costs->ctx, g, v, &g->v[v].configs[choice[v]], &ok, err);
        if (ok && sr_price(g, costs, choice, NULL, NULL, &total, err) == HS_OK && total < best)
            best = total;
        int v = 0;
        while (v < g->n_vertices && ++choice[v] == g->v[v].n_configs)
            choice[v++] = 0;
        if (v == g->n_vertices)
            return best;
    }
}

static void test_brute_force(void **state)
{
    (void)state;
    sr_graph g;
    build(2, 1, 2, &g);
    toy t = {.refuse_vertex = -1, .infinite_edge = -1};
    sr_costs costs = {.vertex = toy_vertex, .edge = toy_edge, .ctx = &t};
    sr_result res;
    char err[HS_ERR_LEN];
    double want = brute_force(&g, &costs);
    assert_int_equal(sr_solve(&g, &costs, 0, &res, err), HS_OK);
    assert_true(res.total == want);
    double priced = 0.0;
    assert_int_equal(sr_price(&g, &costs, res.choice, NULL, NULL, &priced, err), HS_OK);
    assert_true(priced == want); /* the strategy read back costs what the tables said */
    assert_true(res.largest_dependent_set >= 2); /* the branches made wider tables */
    assert_int_equal(res.refused, 0);
    sr_result_free(&res);

    /* the fits callback: conv c2 may not split the batch 2 ways */
    t.refuse_vertex = C2;
    t.refuse_b = 2;
    costs.fits = toy_fits;
    want = brute_force(&g, &costs);
    assert_int_equal(sr_solve(&g, &costs, 0, &res, err), HS_OK);
    assert_true(res.total == want);
    assert_int_not_equal(g.v[C2].configs[res.choice[C2]].b, 2);
    assert_int_equal(res.refused, 1); /* (2, 1, 1, ...) is c2's only batch-2 candidate at p 2 */
    sr_result_free(&res);
    sr_graph_free(&g);
}

/* Equal costs: every vertex keeps its first candidate, the one that splits nothing. */
static void test_ties(void **state)
{
    (void)state;
    sr_graph g;
    sr_result res;
    char err[HS_ERR_LEN];
    build(4, 1, 2, &g);
    toy t = {.refuse_vertex = -1, .infinite_edge = -1, .zero = true};
    sr_costs costs = {.vertex = toy_vertex, .edge = toy_edge, .ctx = &t};
    assert_int_equal(sr_solve(&g, &costs, 0, &res, err), HS_OK);
    for (int v = 0; v < g.n_vertices; v++) {
        assert_int_equal(res.choice[v], 0);
        assert_int_equal(sr_devices(&g.v[v].configs[0]), 1);
    }
    sr_result_free(&res);
    sr_graph_free(&g);
}

static void expect_error(int status, const char *err, const char *needle)
{
    assert_int_equal(status, HS_EINPUT);
    if (!strstr(err, needle))
        fail_msg("message \"%s\" does not mention \"%s\"", err, needle);
}

static void test_refusals(void **state)
{
    (void)state;
    sr_graph g;
    sr_result res;
    char err[HS_ERR_LEN];
    build(2, 1, 2, &g);
    toy t = {.refuse_vertex = ADD, .refuse_b = 0, .infinite_edge = -1};
    sr_costs costs = {.vertex = toy_vertex, .edge = toy_edge, .fits = toy_fits, .ctx = &t};
    expect_error(sr_solve(&g, &costs, 0, &res, err), err, "no configuration of a (add) fits");
    assert_null(res.choice);
    t.refuse_vertex = -1;
    t.infinite_edge = 3;
    expect_error(sr_solve(&g, &costs, 0, &res, err), err, "no finite cost");
    t.infinite_edge = -1;
    expect_error(sr_solve(&g, &costs, 3, &res, err), err, "would exceed 3 entries");
    sr_graph_free(&g);
}

static void test_unsupported(void **state)
{
    (void)state;
    char err[HS_ERR_LEN];
    sr_graph g;
    sr_options opt = pase_options(&branchy, 4);
    /* a softmax straight after an image tensor */
    wl_workload wl = branchy;
    wl_layer layers[BRANCHY_VERTICES + 2];
    memcpy(layers, branchy.layers, sizeof(wl_layer) * (size_t)branchy.n_layers);
    layers[6].type = WL_SOFTMAX; /* the pool */
    layers[6].y = layers[6].x;
    wl.layers = layers;
    expect_error(sr_graph_build(&wl, 2, &opt, &g, err), err, "layer p (softmax)");
    /* PaSE's model has no 3-D operations */
    assert_int_equal(wl_load("cosmoflow-256", &wl, err), HS_OK);
    assert_int_equal(sr_graph_build(&wl, 8, &opt, &g, err), HS_OK);
    assert_int_equal(g.n_spatial, 3);
    expect_error(pase_check(&g, err), err, "2-D images only");
    sr_graph_free(&g);
    wl_free(&wl);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_graph),
        cmocka_unit_test(test_candidates),
        cmocka_unit_test(test_brute_force),
        cmocka_unit_test(test_ties),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_unsupported),
    };
    return cmocka_run_group_tests_name("search (engine)", tests, load_branchy, free_branchy);
}
