/* test_engine_private.c: messages on private links computed instead of sent give the same run
 * (engine_private.c), and so do the stretches of kernels and private collectives computed
 * ahead (engine_segment.c).
 *
 * Each case expands a strategy into its task graph and runs it twice, each time in a fresh
 * child process (one SimGrid engine per process): once with every message sent through SimGrid
 * (eng_options.exact_messages) and once as the engine runs it by default. The makespan, every
 * rank's statistics and every task's start and end must be equal as doubles, the message counts
 * too; and the default run must have computed some messages (else the case tests nothing) or,
 * where no link is private, none. Some cases may differ in the last bits, within 1e-13: a
 * sent message's progress is revised at every event of the run (network/optim Full), each
 * revision rounding, where the computed one is a single division; a computed message
 * crossing a switch that another message crosses too (step mode);
 * and SimGrid advances its clock by now + (date - now), which rounds when an event comes more
 * than twice as late as the one before, and merges events less than 1 ns apart: a computed
 * message has no latency event of its own, so where events are sparse (the first milliseconds
 * of a run) a later event's clock value can differ by an ulp. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "child_result.h"
#include "engine.h"
#include "expand.h"
#include "strategy.h"
#include "workload.h"

#define MAX_TIMES 200000

/* What a child sends back: the run's figures and every time it produced. */
typedef struct {
    int status;
    char err[HS_ERR_LEN];
    double makespan_s;
    long messages, computed, in_segments;
    double bytes_sent;
    int n_times;
    double times[MAX_TIMES]; /* every rank's stats, then every task's start and end */
} run_out;

/* The case the next child runs (set before forking: the child inherits it). */
static struct {
    const char *workload, *strategy;
    int gpus;
    int64_t batch;
    eng_fidelity fidelity;
    bool overlap, exact;
} the_case;

static void keep(run_out *o, double v)
{
    if (o->n_times < MAX_TIMES)
        o->times[o->n_times++] = v;
}

static void collect(const eng_result *res, const tg_graph *g, run_out *o)
{
    for (int r = 0; r < res->n_ranks; r++) {
        const eng_rank_stats *st = &res->ranks[r];
        keep(o, st->end_s);
        keep(o, st->compute_busy_s);
        keep(o, st->comm_busy_s);
        keep(o, st->exposed_comm_s);
        for (int i = 0; i < g->ranks[r].n_tasks; i++) {
            keep(o, res->task_start_s[r][i]);
            keep(o, res->task_end_s[r][i]);
        }
    }
}

static void child(const plat_platform *plat, void *out)
{
    run_out *o = out;
    wl_workload wl;
    st_strategy st;
    tg_graph g;
    eng_result res;
    ex_options xo = {.overlap = the_case.overlap};
    eng_options eo = {.fidelity = the_case.fidelity, .exec_speed_scale = 1, .record_tasks = true,
                      .exact_messages = the_case.exact};
    if ((o->status = wl_load(the_case.workload, &wl, o->err)) != HS_OK)
        return;
    if ((o->status = st_parse(the_case.strategy, the_case.gpus, plat->gpus_per_node, 0, &st,
                              o->err)) == HS_OK &&
        (o->status = ex_expand_opt(&wl, NULL, &st, the_case.batch, &xo, &g, o->err)) == HS_OK) {
        int gpus[1024];
        for (int r = 0; r < the_case.gpus; r++)
            gpus[r] = r;
        if ((o->status = eng_run(&g, plat, gpus, &eo, &res, o->err)) == HS_OK) {
            o->makespan_s = res.makespan_s;
            o->messages = res.messages;
            o->computed = res.computed;
            o->in_segments = res.in_segments;
            o->bytes_sent = res.bytes_sent;
            collect(&res, &g, o);
            eng_result_free(&res);
        }
        tg_free(&g);
    }
    wl_free(&wl);
}

static void load_failed(void *out, const char *err)
{
    run_out *o = out;
    o->status = HS_EINPUT;
    snprintf(o->err, sizeof o->err, "%s", err);
}

static run_out sent, dflt; /* the two runs of a case (large: static) */

static void run_on(const char *platform, bool exact, run_out *o)
{
    memset(o, 0, sizeof *o);
    the_case.exact = exact;
    child_result_run(platform, child, load_failed, o, sizeof *o);
    if (o->status != HS_OK)
        fail_msg("%s %s on %s: %s", the_case.workload, the_case.strategy, platform, o->err);
    assert_true(o->n_times < MAX_TIMES);
}

/* Both runs of the case; `computes`: the default run must compute some messages; `tolerance`:
 * the largest relative difference allowed between their times (0: none). */
static void same_run(const char *platform, bool computes, double tolerance)
{
    run_on(platform, true, &sent);
    run_on(platform, false, &dflt);
    assert_int_equal(sent.n_times, dflt.n_times);
    double worst = fabs(sent.makespan_s - dflt.makespan_s) / sent.makespan_s;
    for (int i = 0; i < sent.n_times; i++) {
        double d = fabs(sent.times[i] - dflt.times[i]), scale = fabs(sent.times[i]);
        if (d > 0 && (scale == 0 || d / scale > worst))
            worst = scale > 0 ? d / scale : 1;
    }
    if (worst > tolerance)
        fail_msg("%s %s, %d GPUs on %s: times differ by %.3g relative (makespan %.17g sent, "
                 "%.17g computed)", the_case.workload, the_case.strategy, the_case.gpus,
                 platform, worst, sent.makespan_s, dflt.makespan_s);
    assert_int_equal(sent.messages, dflt.messages);
    assert_true(sent.bytes_sent == dflt.bytes_sent);
    assert_int_equal(sent.computed, 0);
    if (computes)
        assert_true(dflt.computed > 0);
    else
        assert_int_equal(dflt.computed, 0);
}

static void set_case(const char *workload, const char *strategy, int gpus, int64_t batch,
                     eng_fidelity fidelity, bool overlap)
{
    the_case.workload = workload;
    the_case.strategy = strategy;
    the_case.gpus = gpus;
    the_case.batch = batch;
    the_case.fidelity = fidelity;
    the_case.overlap = overlap;
}

/* Groups of 4 inside nodes (all NVLink: whole rings computed in flow mode), gradient rings
 * across nodes sent. In flow mode, blocking order, the gathers and the kernels between them
 * are computed ahead in segments (engine_segment.c), every one of the 2 x 53 gathers a rank but
 * the first of each run of them; not in step mode, nor with two actors a rank. */
static void test_data_filter(void **state)
{
    (void)state;
    set_case("resnet50", "data+filter", 32, 512, ENG_FLOW, false);
    same_run("abci", true, 0);
    assert_true(dflt.in_segments > 32 * 90 && sent.in_segments == 0);
    set_case("resnet50", "data+filter", 32, 512, ENG_STEP, false);
    same_run("abci", true, 0);
    assert_true(dflt.in_segments == 0);
    set_case("resnet50", "data+filter", 16, 256, ENG_FLOW, true); /* two actors a rank */
    same_run("abci", true, 0);
    assert_true(dflt.in_segments == 0);
}

/* One ring over nodes: NVLink edges computed step by step, node-to-node edges sent. */
static void test_data_step(void **state)
{
    (void)state;
    set_case("resnet50", "data", 64, 4096, ENG_STEP, false);
    same_run("abci", true, 0);
    set_case("alexnet", "channel", 8, 64, ENG_STEP, false);
    same_run("abci", true, 1e-14); /* 3e-15: see the top comment */
}

/* A group spanning two nodes: its node-to-node edges cross the leaf switch, which the other
 * edge between the nodes crosses too: sent in flow mode, computed in step mode (last bits: see
 * the top comment); the gradient rings of data+filter share NICs, two GPUs a NIC: never
 * computed. */
static void test_rings_across_nodes(void **state)
{
    (void)state;
    set_case("vgg16", "filter", 8, 64, ENG_FLOW, false);
    same_run("abci", false, 0);
    set_case("vgg16", "filter", 8, 64, ENG_STEP, false);
    same_run("abci", true, 1e-14);
}

/* The cube mesh's two-hop routes share NVLinks: only the pairs with a link of their own are
 * private; halos staged through host memory turn computing off. */
static void test_shared_and_staged(void **state)
{
    (void)state;
    set_case("resnet50", "data+filter:2x8", 16, 256, ENG_STEP, false);
    same_run("gen:dgx1:nodes=8,leaves-per-rack=2", true, 1e-13); /* 4e-14: the top comment */
    set_case("resnet50", "data+spatial:2x4", 8, 64, ENG_FLOW, false);
    same_run("abci", false, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_data_filter),
        cmocka_unit_test(test_data_step),
        cmocka_unit_test(test_rings_across_nodes),
        cmocka_unit_test(test_shared_and_staged),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
