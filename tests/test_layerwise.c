/* test_layerwise.c: every built-in strategy written as a strategy file gives the built-in
 * numbers, analytic and simulated (issue 9's first "done when").
 *
 * For ResNet-50 and VGG16 at 4, 8, 16, 32 and 64 GPUs (and serial on 1), every strategy the
 * workload allows there is turned into a plan (st_plan_of), written as a strategy file
 * (st_plan_write), read back (st_plan_load), and run both ways:
 *   analytic   in this process on the full ABCI platform: iteration, epoch, memory and its
 *              parts, fit, and the model's communication per term, to 1e-9 relative;
 *   simulated  each run in a fork()ed child (SimGrid: one engine per process) on one ABCI leaf
 *              group (17 nodes, 68 GPUs: every route of a packed job of up to 64 GPUs is the
 *              full machine's, and it loads in milliseconds): iteration and memory to 1e-6.
 * The plan's numbers come from code that never sees the strategy's kind (analytic/plan_model.c,
 * sim/expand/expand_plan.c), so agreement here is two derivations agreeing twice.
 * HS_TEST_SMALL=1 (the sanitized build) simulates up to 16 GPUs only (test_each). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analytic.h"
#include "child_result.h"
#include "generate.h"
#include "platgen.h"
#include "simulate.h"

#define LEAF_PLATFORM HS_TEST_TMP "/layerwise-abci-leaf.xml"
#define PLAN_FILE HS_TEST_TMP "/layerwise-plan.xml"

typedef struct {
    const char *strategy;
    int gpus;
    int64_t batch;
} lw_case;

static plat_platform abci;
static bool abci_loaded;

/* ------------------------------------------------------------------ comparing */

static void expect_close(double got, double want, double tol, const char *what, const char *run)
{
    double scale = fabs(want) > 0 ? fabs(want) : 1;
    if (fabs(got - want) > tol * scale)
        fail_msg("%s: %s: plan %.17g, built-in %.17g", run, what, got, want);
}

static void expect_same_estimate(const hs_estimate *plan, const hs_estimate *builtin,
                                 double tol, const char *run)
{
    const hs_times *a = &plan->iteration, *b = &builtin->iteration;
    expect_close(a->compute_s, b->compute_s, tol, "iteration compute", run);
    expect_close(a->comm_s, b->comm_s, tol, "iteration comm", run);
    expect_close(a->exposed_comm_s, b->exposed_comm_s, tol, "iteration exposed comm", run);
    expect_close(a->total_s, b->total_s, tol, "iteration total", run);
    expect_close(plan->epoch.total_s, builtin->epoch.total_s, tol, "epoch total", run);
    expect_close(plan->memory_per_gpu_bytes, builtin->memory_per_gpu_bytes, tol, "memory", run);
    expect_close(plan->memory.weights_bytes, builtin->memory.weights_bytes, tol, "weights", run);
    expect_close(plan->memory.activations_bytes, builtin->memory.activations_bytes, tol,
                 "activations", run);
    assert_int_equal(plan->fits_in_memory, builtin->fits_in_memory);
    assert_int_equal(plan->iterations_per_epoch, builtin->iterations_per_epoch);
}

/* ------------------------------------------------------------------ the cases */

/* The strategy of a case as a plan, through a strategy file. */
static void plan_through_file(const wl_workload *wl, const st_strategy *st, st_plan *plan)
{
    char err[HS_ERR_LEN] = "";
    st_plan made;
    if (st_plan_of(wl, NULL, st, 0, &made, err) != HS_OK)
        fail_msg("st_plan_of(%s): %s", st_kind_name(st->kind), err);
    snprintf(made.name, sizeof made.name, "%s", st_kind_name(st->kind));
    FILE *f = fopen(PLAN_FILE, "w");
    assert_non_null(f);
    assert_int_equal(st_plan_write(f, &made, wl, "test", err), HS_OK);
    assert_int_equal(fclose(f), 0);
    st_plan_free(&made);
    if (st_plan_load(PLAN_FILE, wl, plan, err) != HS_OK)
        fail_msg("st_plan_load: %s", err);
}

static int parse_case(const wl_workload *wl, const lw_case *c, st_strategy *st)
{
    char err[HS_ERR_LEN] = "";
    if (st_parse(c->strategy, c->gpus, 4, 0, st, err) != HS_OK ||
        st_check(st, wl, c->batch, err) != HS_OK)
        fail_msg("%s %s -g %d -b %lld: %s", wl->name, c->strategy, c->gpus,
                 (long long)c->batch, err);
    return 0;
}

static const char *shape_text(const lw_case *c, char *buf, size_t len);

/* Every strategy the workload allows at p GPUs (spatial only up to the narrowest split
 * layer's width: 7 columns for ResNet-50, 8 for VGG16; a pipeline up to one layer a stage). */
static int cases_for(const wl_workload *wl, int p, lw_case *out)
{
    static const char *const kinds[] = {"data", "filter", "channel", "pipeline", "data+filter",
                                        "data+spatial", "data+filter:2x0", "spatial"};
    int n = 0;
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        lw_case c = {kinds[k], p, strcmp(kinds[k], "spatial") ? 16 * (int64_t)p : 64};
        char text[64], err[HS_ERR_LEN];
        st_strategy st;
        if (st_parse(shape_text(&c, text, sizeof text), p, 4, 0, &st, err) == HS_OK &&
            st_check(&st, wl, c.batch, err) == HS_OK)
            out[n++] = c;
    }
    return n;
}

static const char *shape_text(const lw_case *c, char *buf, size_t len)
{
    if (strcmp(c->strategy, "data+filter:2x0") != 0)
        return c->strategy;
    snprintf(buf, len, "data+filter:%dx2", c->gpus / 2);
    return buf;
}

/* A case's built-in strategy and the same as a plan read back from a file. */
typedef struct {
    char text[64];           /* the strategy as typed */
    char run[160];           /* the case, for messages */
    st_strategy builtin, planned;
    st_plan plan;
} lw_pair;

static void pair_of(const wl_workload *wl, lw_case c, const char *how, lw_pair *p)
{
    c.strategy = shape_text(&c, p->text, sizeof p->text);
    snprintf(p->run, sizeof p->run, "%s %s %s -g %d -b %lld", how, wl->name, c.strategy, c.gpus,
             (long long)c.batch);
    parse_case(wl, &c, &p->builtin);
    plan_through_file(wl, &p->builtin, &p->plan);
    st_from_plan(&p->plan, &p->planned);
}

/* ------------------------------------------------------------------ analytic */

static void analytic_case(const wl_workload *wl, lw_case c)
{
    lw_pair p;
    pair_of(wl, c, "analytic", &p);
    hs_estimate a, b;
    an_terms ta, tb;
    char err[HS_ERR_LEN] = "";
    if (an_estimate_on(wl, NULL, &abci, &p.builtin, c.batch, PL_PACKED, &b, &tb, err) != HS_OK ||
        an_estimate_on(wl, NULL, &abci, &p.planned, c.batch, PL_PACKED, &a, &ta, err) != HS_OK)
        fail_msg("%s: %s", p.run, err);
    expect_same_estimate(&a, &b, 1e-9, p.run);
    for (int k = 0; k < HS_TERM_COUNT; k++)
        expect_close(ta.comm_s[k], tb.comm_s[k], 1e-9, hs_term_key((hs_term)k), p.run);
    expect_close(ta.bubble_s, tb.bubble_s, 1e-9, "bubble", p.run);
    st_plan_free(&p.plan);
}

/* Serial on 1 GPU, then every strategy the workload allows at 4 to max_gpus GPUs, through fn. */
static void each_case(const char *net, void (*fn)(const wl_workload *, lw_case),
                      const char *how, int max_gpus)
{
    wl_workload wl;
    char err[HS_ERR_LEN] = "";
    assert_int_equal(wl_load(net, &wl, err), HS_OK);
    fn(&wl, (lw_case){"serial", 1, 64});
    int runs = 1;
    for (int p = 4; p <= max_gpus; p *= 2) {
        lw_case cases[16];
        int n = cases_for(&wl, p, cases);
        for (int i = 0; i < n; i++)
            fn(&wl, cases[i]);
        runs += n;
    }
    print_message("%s: %d strategies %s alike\n", net, runs, how);
    wl_free(&wl);
}


/* ------------------------------------------------------------------ simulated */

/* What a child simulates, set before the fork. */
static struct {
    const wl_workload *wl;
    const st_strategy *st;
    int64_t batch;
} sim_in;

typedef struct {
    int failed;
    char msg[512];
    hs_estimate est;
} sim_out;

static void simulate_child(const plat_platform *plat, void *out)
{
    sim_out *o = out;
    sm_options opt = {.fidelity = ENG_FLOW, .placement = PL_PACKED};
    char err[HS_ERR_LEN] = "";
    if (sm_run(sim_in.wl, NULL, plat, sim_in.st, sim_in.batch, &opt, &o->est, NULL, err) != HS_OK) {
        o->failed = 1;
        snprintf(o->msg, sizeof o->msg, "%s", err);
    }
}

static void load_failed(void *out, const char *err)
{
    sim_out *o = out;
    o->failed = 1;
    snprintf(o->msg, sizeof o->msg, "plat_load: %s", err);
}

static hs_estimate simulate_in_child(const wl_workload *wl, const st_strategy *st,
                                     int64_t batch, const char *run)
{
    sim_in.wl = wl, sim_in.st = st, sim_in.batch = batch;
    sim_out out;
    memset(&out, 0, sizeof out);
    child_result_run(LEAF_PLATFORM, simulate_child, load_failed, &out, sizeof out);
    if (out.failed)
        fail_msg("%s: %s", run, out.msg);
    return out.est;
}

static void simulated_case(const wl_workload *wl, lw_case c)
{
    lw_pair p;
    pair_of(wl, c, "simulate", &p);
    hs_estimate b = simulate_in_child(wl, &p.builtin, c.batch, p.run);
    hs_estimate a = simulate_in_child(wl, &p.planned, c.batch, p.run);
    expect_same_estimate(&a, &b, 1e-6, p.run);
    st_plan_free(&p.plan);
}

/* One network through one derivation (the test's state). */
typedef struct {
    const char *net;
    void (*fn)(const wl_workload *, lw_case);
    const char *how;
} lw_run;

static void test_each(void **state)
{
    const lw_run *r = *state;
    /* HS_TEST_SMALL=1 (the sanitized build, tests/CMakeLists.txt): the simulations up to 16
     * GPUs, where every kind of strategy already runs (spatial only to 8), through the same
     * expansion and engine; the analytic side, cheap, always to 64. */
    const char *small = getenv("HS_TEST_SMALL");
    bool only_small = small && strcmp(small, "1") == 0 && r->fn == simulated_case;
    each_case(r->net, r->fn, r->how, only_small ? 16 : 64);
}

/* ------------------------------------------------------------------ setup */

static int setup(void **state)
{
    (void)state;
    char err[HS_ERR_LEN] = "";
    pg_params leaf;
    pg_abci(&leaf);
    leaf.nodes = leaf.nodes_per_leaf; /* one leaf group: 17 nodes, 68 GPUs */
    leaf.leaves_per_rack = 1;
    if (pg_write_file(&leaf, LEAF_PLATFORM, err) != HS_OK) {
        fprintf(stderr, "pg_write_file: %s\n", err);
        return -1;
    }
    /* The simulations fork before this process loads a platform (one SimGrid engine each). */
    return 0;
}

static int load_abci(void **state)
{
    (void)state;
    char err[HS_ERR_LEN] = "";
    if (!abci_loaded && plat_load("abci", &abci, err) != HS_OK) {
        fprintf(stderr, "plat_load: %s\n", err);
        return -1;
    }
    abci_loaded = true;
    return 0;
}

int main(void)
{
    /* Simulations first: their children must not inherit a started engine. */
    static lw_run runs[] = {{"resnet50", simulated_case, "simulated"},
                            {"vgg16", simulated_case, "simulated"},
                            {"resnet50", analytic_case, "analytic"},
                            {"vgg16", analytic_case, "analytic"}};
    const struct CMUnitTest simulated[] = {
        cmocka_unit_test_prestate(test_each, &runs[0]),
        cmocka_unit_test_prestate(test_each, &runs[1]),
    };
    const struct CMUnitTest analytic[] = {
        cmocka_unit_test_prestate(test_each, &runs[2]),
        cmocka_unit_test_prestate(test_each, &runs[3]),
    };
    int failed = cmocka_run_group_tests_name("simulated", simulated, setup, NULL);
    failed += cmocka_run_group_tests_name("analytic", analytic, load_abci, NULL);
    return failed;
}
