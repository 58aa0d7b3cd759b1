/* test_expand_model.c: the expansion against the analytic model (the same messages and
 * volumes, priced with the same alpha and beta) and on real networks (ResNet-50, data
 * parallelism on 1024 ranks; EfficientNet-B0's pipeline under the kernel model). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <math.h>
#include <string.h>

#include <cmocka.h>

#include "shared_helpers.h"

#include "analytic.h"
#include "compute.h"
#include "expand.h"

/* Equal to rounding: 1e-12 absolute or 1e-9 relative (cmocka's float assert is single precision). */
#define assert_close(a, b) assert_close_at((a), (b), __FILE__, __LINE__)
#include "expand_helpers.h"

/* ---------------------------------------------------------------- against the model */

/* What a rank's communication costs on a network where every pair has the same alpha and
 * beta and nothing is shared: the ring formulas of PARADL-MODEL.md, applied to the graph.
 * Staged tasks cost alpha_st and beta_st instead. A shift costs one message: its send and
 * receive overlap. */
static double alpha_beta_comm_s(const tg_graph *g, int rank, double alpha_pl, double beta_pl,
                                double alpha_st, double beta_st)
{
    double s = 0;
    const tg_rank *rk = &g->ranks[rank];
    for (int i = 0; i < rk->n_tasks; i++) {
        const tg_task *t = &rk->tasks[i];
        int n = t->op == TG_EXEC || t->op == TG_SEND || t->op == TG_RECV || t->op == TG_SHIFT
                    ? 0 : g->groups[tg_peer(g, rank, t)].n;
        bool staged = t->flags & TG_FLAG_STAGED;
        double alpha = staged ? alpha_st : alpha_pl, beta = staged ? beta_st : beta_pl;
        switch (t->op) {
        case TG_ALLREDUCE: s += 2.0 * (n - 1) * (alpha + t->amount / n * beta); break;
        case TG_ALLGATHER: s += (n - 1) * (alpha + t->amount * beta); break;
        case TG_REDUCE_SCATTER: s += (n - 1) * (alpha + t->amount / n * beta); break;
        case TG_EXCHANGE: s += n * (alpha + t->amount * beta); break;
        case TG_SEND: case TG_SHIFT: s += alpha + t->amount * beta; break;
        /* a receive costs what the matching send does (every receive of these graphs
         * has its size) */
        case TG_RECV: s += alpha + t->amount * beta; break;
        default: break;
        }
    }
    return s;
}

/* The graph's kernels add up to the compute analytic/analytic.c charges, and its collectives,
 * costed with the model's own ring formulas on one uniform link, to the communication it
 * charges: the two derivations describe the same iteration. */
static void test_matches_analytic_model(void **state)
{
    (void)state;
    wl_workload wl = tiny();
    const double alpha = 7e-6, beta = 1.0 / 12.5e9, alpha_st = 3e-3, beta_st = 1.0 / 16e9;
    an_link link = {.alpha_s = alpha, .beta_s_per_byte = beta};
    /* The model divides the staged link (halo, split-point gather) and the across link of
     * data+spatial by its contention factors, 2 each with node_sharing = 1 (data+filter's
     * across link by node_sharing, 1): give it links twice as fast there, so that every
     * message costs alpha + m * beta as the graph is costed. */
    an_link twice = {.alpha_s = alpha, .beta_s_per_byte = beta / 2};
    an_links links = {.ring = link, .group = link, .across = link, .node_sharing = 1,
                      .staged = {.alpha_s = alpha_st, .beta_s_per_byte = beta_st / 2}};
    struct { st_strategy st; int64_t batch; } cases[] = {
        {strat(ST_SERIAL, 1, 1, 1, 1), 8},
        {strat(ST_DATA, 4, 4, 1, 1), 32},
        {strat(ST_FILTER, 4, 1, 4, 1), 8},
        {strat(ST_CHANNEL, 2, 1, 2, 1), 8},
        {strat(ST_DATA_FILTER, 8, 4, 2, 1), 32},
        {strat(ST_DATA_FILTER, 6, 2, 3, 1), 12},
        {strat(ST_SPATIAL, 3, 1, 3, 1), 6},
        {strat(ST_SPATIAL, 4, 1, 4, 1), 8},
        {strat(ST_DATA_SPATIAL, 4, 2, 2, 1), 8},
        {strat(ST_DATA_SPATIAL, 12, 3, 4, 1), 24},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char err[HS_ERR_LEN] = "";
        hs_estimate est;
        links.across = cases[i].st.kind == ST_DATA_SPATIAL ? twice : link;
        int rc = an_model(&wl, NULL, &cases[i].st, cases[i].batch, &links, 16e9, &est, err);
        if (rc != HS_OK)
            print_error("an_model: %s\n", err);
        assert_int_equal(rc, HS_OK);
        tg_graph g = expand_ok(&wl, cases[i].st, cases[i].batch, false);
        for (int r = 0; r < g.n_ranks; r++) {
            assert_close(exec_s(&g.ranks[r]), est.iteration.compute_s);
            assert_close(alpha_beta_comm_s(&g, r, alpha, beta, alpha_st, beta_st),
                         est.iteration.comm_s);
        }
        tg_free(&g);
    }
}

/* ---------------------------------------------------------------- a real network */

static void test_resnet50_data_1024(void **state)
{
    (void)state;
    wl_workload wl;
    char err[HS_ERR_LEN];
    if (wl_load("resnet50", &wl, err) != HS_OK &&
        wl_load(HS_SHARED_DIR "/reference/paradl/model/RESNET50_ImageNet_profall.net_sc", &wl,
                err) != HS_OK) {
        print_message("resnet50 not loadable yet: %s\n", err);
        skip();
    }
    const int p = 1024, B = 64 * p;
    tg_graph g = expand_ok(&wl, strat(ST_DATA, p, p, 1, 1), B, false);
    int weighted = 0, updates = 0;
    double one_sample = 0;
    for (int l = 0; l < wl.n_layers; l++) {
        weighted += wl.layers[l].w_elems > 0;
        updates += wl.layers[l].wu_s > 0;
        one_sample += wl.layers[l].fw_s + wl.layers[l].bw_s;
    }
    size_t bytes = sizeof g + (size_t)g.n_ranks * sizeof(tg_rank);
    for (int r = 0; r < p; r++) {
        assert_int_equal(g.ranks[r].n_tasks, 2 * wl.n_layers + weighted + updates + 1);
        bytes += (size_t)g.ranks[r].cap_tasks * sizeof(tg_task);
    }
    for (int i = 0; i < g.n_groups; i++)
        bytes += sizeof(tg_group) + (size_t)g.groups[i].n * sizeof(int);
    assert_close(exec_s(&g.ranks[7]) - update_s(&wl, 1), 64 * one_sample);
    print_message("resnet50 data p=%d: %d layers, %d tasks per rank, %d groups, graph %.1f MB "
                  "(%zu bytes per task)\n", p, wl.n_layers, g.ranks[0].n_tasks, g.n_groups,
                  bytes / 1e6, sizeof(tg_task));
    assert_true(bytes < 64u << 20);
    tg_free(&g);
    wl_free(&wl);
}

/* ---------------------------------------------------------------- a pipeline's kernels */

/* One layer whole at `samples` on the model: its three passes, as the model times each alone
 * (kt_compute_pass_s), not through the strategy module that the expansion calls. */
static double whole_layer_s(const kt_compute *kc, const wl_workload *wl, int l, int64_t samples)
{
    lw_split cut = lw_whole(samples);
    double sum_s = 0;
    for (int pass = 0; pass < LW_PASS_COUNT; pass++) {
        double t = 0;
        char err[HS_ERR_LEN] = "";
        if (kt_compute_pass_s(kc, wl, l, &cut, (lw_pass)pass, &t, err) != HS_OK)
            fail_msg("layer %d pass %d: %s", l, pass, err);
        sum_s += t;
    }
    return sum_s;
}

/* EfficientNet-B0 has no measured time: under the kernel model a pipeline of 4 stages and 8
 * micro-batches of 8 samples runs, on each rank, 8 times its stage's layers' kernels at 8
 * samples (each layer whole: forward, input and weight gradient), and nothing else (no
 * update is timed); the stages, balanced on those kernels, are no heavier than an even share
 * plus one layer (the measured times, all 0, would give one stage almost every layer). */
static void test_pipeline_runs_its_stages_kernels(void **state)
{
    (void)state;
    wl_workload wl;
    kt_compute kc;
    char err[HS_ERR_LEN] = "";
    if (wl_load("efficientnet-b0", &wl, err) != HS_OK)
        fail_msg("efficientnet-b0: %s", err);
    kt_options opt = kt_options_default();
    opt.anchor = 0;
    assert_int_equal(kt_compute_init_with(&kc, &wl, "v100-sxm2-16gb", &opt, err), HS_OK);
    const int p = 4, S = 8, micro = 8;
    st_strategy st = strat(ST_PIPELINE, p, 1, p, S);
    tg_graph g;
    assert_int_equal(ex_expand(&wl, &kc, &st, (int64_t)S * micro, &g, err), HS_OK);
    int first[5];
    assert_int_equal(st_pipeline_partition(&wl, &kc, micro, p, first, err), HS_OK);
    double total_s = 0, largest_s = 0, layer_max_s = 0;
    for (int s = 0; s < p; s++) {
        double stage_s = 0;
        for (int l = first[s]; l < first[s + 1]; l++) {
            double t = whole_layer_s(&kc, &wl, l, micro);
            stage_s += t;
            layer_max_s = t > layer_max_s ? t : layer_max_s;
        }
        assert_true(stage_s > 0);
        assert_close(exec_s(&g.ranks[s]), S * stage_s);
        total_s += stage_s;
        largest_s = stage_s > largest_s ? stage_s : largest_s;
    }
    assert_true(largest_s <= total_s / p + layer_max_s);
    print_message("efficientnet-b0 pipeline 4x8: stages %d %d %d %d layers, slowest %.6f s a "
                  "micro-batch of %.6f s in all\n", first[1] - first[0], first[2] - first[1],
                  first[3] - first[2], first[4] - first[3], largest_s, total_s);
    tg_free(&g);
    wl_free(&wl);
}

int main(void)
{
    if (!hs_shared_present())
        return HS_SKIPPED;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_matches_analytic_model),
        cmocka_unit_test(test_resnet50_data_1024),
        cmocka_unit_test(test_pipeline_runs_its_stages_kernels),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
