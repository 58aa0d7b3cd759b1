/* test_engine_graphs.c: how the engine runs a task graph as given: the order between a rank's
 * two streams and the statistics it keeps, fused kernels' exact times, the same graph giving
 * the same result, a deadlock and bad graphs refused with a message, against times computed by
 * hand on ABCI (as test_engine.c: every case runs in a fork()ed child, engine_helpers.h;
 * staged messages, shifts and link sharing: test_engine_staged.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <simgrid/host.h>

#include "child_result.h"
#include "engine.h"
#include "expand.h"
#include "platform.h"
#include "taskgraph.h"
#include "engine_helpers.h"

/* ---- stream order and statistics ---------------------------------------------------------- */

/* Two ranks on GPUs 0 and 1. Each: [0] EXEC 1 ms; [1] ALLREDUCE of m after [0]; [2] EXEC 2 ms
 * (overlaps the allreduce); [3] EXEC 0.5 ms after [1]. v: task times of rank 0, its stats, and
 * the ring cost of the pair. */
static void child_after(const plat_platform *plat, case_out *out)
{
    tg_graph g;
    tg_init(&g, 2, NULL);
    int ranks[2] = {0, 1};
    int group = tg_add_group(&g, ranks, 2);
    for (int r = 0; r < 2; r++) {
        tg_add(&g, r, exec_task(1e-3, -1));
        tg_add(&g, r, comm_task(TG_ALLREDUCE, group, 2.4e8, 0));
        tg_add(&g, r, exec_task(2e-3, -1));
        tg_add(&g, r, exec_task(0.5e-3, 1));
    }
    int gpus[2] = {0, 1};
    eng_result res;
    if (run(plat, &g, gpus, ENG_FLOW, true, &res, out) == HS_OK) {
        for (int i = 0; i < 4; i++) {
            out->v[2 * i] = res.task_start_s[0][i];
            out->v[2 * i + 1] = res.task_end_s[0][i];
        }
        out->v[10] = res.ranks[0].end_s;
        out->v[11] = res.ranks[0].compute_busy_s;
        out->v[12] = res.ranks[0].comm_busy_s;
        out->v[13] = res.ranks[0].exposed_comm_s;
        out->v[14] = res.makespan_s;
        eng_result_free(&res);
    }
    plat_ring_cost(plat, gpus, 2, &out->v[20], &out->v[21]);
    tg_free(&g);
}

static void test_after_orders_streams_and_stats_add_up(void **state)
{
    (void)state;
    case_out o = run_case(child_after);
    assert_int_equal(o.status, HS_OK);
    double t_ar = 2 * (o.v[20] + 2.4e8 / 2 * o.v[21]);
    assert_true(t_ar > 2e-3); /* so that the allreduce is partly exposed */
    assert_rel(o.v[0], 0, 1e-12);          /* EXEC 1 ms */
    assert_rel(o.v[1], 1e-3, 1e-12);
    assert_rel(o.v[2], 1e-3, 1e-12);       /* allreduce starts after it */
    assert_rel(o.v[3], 1e-3 + t_ar, 1e-9);
    assert_rel(o.v[4], 1e-3, 1e-12);       /* EXEC 2 ms overlaps the allreduce */
    assert_rel(o.v[5], 3e-3, 1e-12);
    assert_rel(o.v[6], o.v[3], 1e-12);     /* EXEC after the allreduce starts at its end */
    assert_rel(o.v[7], o.v[3] + 0.5e-3, 1e-12);
    assert_rel(o.v[10], 1e-3 + t_ar + 0.5e-3, 1e-9);
    assert_rel(o.v[11], 3.5e-3, 1e-12);
    assert_rel(o.v[12], t_ar, 1e-9);
    assert_rel(o.v[13], 1e-3 + t_ar - 3e-3, 1e-9);
    assert_rel(o.v[14], o.v[10], 1e-12);
}

/* Rank 0: ten 1 ms kernels, a SEND after the fifth; rank 1 receives. The kernels run as fused
 * executions, and their times must still be exact. */
static void child_fused(const plat_platform *plat, case_out *out)
{
    tg_graph g;
    tg_init(&g, 2, NULL);
    for (int k = 0; k < 5; k++)
        tg_add(&g, 0, exec_task(1e-3, -1));
    tg_add(&g, 0, comm_task(TG_SEND, 1, P2P_BYTES, 4));
    for (int k = 0; k < 5; k++)
        tg_add(&g, 0, exec_task(1e-3, -1));
    tg_add(&g, 1, comm_task(TG_RECV, 0, P2P_BYTES, -1));
    int gpus[2] = {0, 1};
    eng_result res;
    if (run(plat, &g, gpus, ENG_STEP, true, &res, out) == HS_OK) {
        for (int i = 0; i < 11; i++) {
            out->v[2 * i] = res.task_start_s[0][i];
            out->v[2 * i + 1] = res.task_end_s[0][i];
        }
        out->v[30] = res.ranks[0].compute_busy_s;
        out->v[31] = res.ranks[0].exposed_comm_s;
        out->v[32] = res.ranks[1].end_s;
        out->v[33] = res.ranks[1].exposed_comm_s;
        out->v[34] = res.ranks[1].comm_busy_s;
        eng_result_free(&res);
    }
    plat_route(plat, 0, 1, &out->v[40], &out->v[41]);
    tg_free(&g);
}

static void test_fused_kernels_keep_exact_times(void **state)
{
    (void)state;
    case_out o = run_case(child_fused);
    assert_int_equal(o.status, HS_OK);
    for (int k = 0; k < 10; k++) {
        int i = k < 5 ? k : k + 1;
        assert_rel(o.v[2 * i], k * 1e-3, 1e-12);
        assert_rel(o.v[2 * i + 1], (k + 1) * 1e-3, 1e-12);
    }
    double send = o.v[40] + P2P_BYTES / o.v[41];
    assert_rel(o.v[10], 5e-3, 1e-12); /* the send waits for the fifth kernel only */
    assert_rel(o.v[11], 5e-3 + send, 1e-9);
    assert_rel(o.v[32], 5e-3 + send, 1e-9);
    /* rank 1 only receives: its whole time is exposed communication, the wait included */
    assert_rel(o.v[33], o.v[32], 1e-12);
    assert_rel(o.v[34], o.v[32], 1e-12);
    assert_rel(o.v[30], 10e-3, 1e-12);
    assert_rel(o.v[31], 0, 1e-15);
}

/* ---- determinism -------------------------------------------------------------------------- */

/* 16 ranks on 4 nodes: kernels, an allreduce and exchanges that contend for NICs. */
static void child_mixed(const plat_platform *plat, case_out *out)
{
    tg_graph g;
    int n = 16, ranks[16], gpus[16];
    tg_init(&g, n, NULL);
    for (int r = 0; r < n; r++)
        ranks[r] = gpus[r] = r;
    int all = tg_add_group(&g, ranks, n);
    for (int r = 0; r < n; r++) {
        int peers[2] = {(r + 4) % n, (r + n - 4) % n};
        int ex = tg_add_group(&g, peers, 2);
        tg_add(&g, r, exec_task(1e-3 * (1 + r % 3), -1));
        tg_add(&g, r, comm_task(TG_EXCHANGE, ex, 8e6 * (1 + r % 2), 0));
        tg_add(&g, r, exec_task(2e-3, 1));
        tg_add(&g, r, comm_task(TG_ALLREDUCE, all, 64e6, 2));
        tg_add(&g, r, exec_task(1e-4, 3));
    }
    eng_result res;
    if (run(plat, &g, gpus, ENG_STEP, false, &res, out) == HS_OK) {
        out->v[0] = res.makespan_s;
        for (int r = 0; r < n; r++) {
            out->v[1 + 4 * r] = res.ranks[r].end_s;
            out->v[2 + 4 * r] = res.ranks[r].compute_busy_s;
            out->v[3 + 4 * r] = res.ranks[r].comm_busy_s;
            out->v[4 + 4 * r] = res.ranks[r].exposed_comm_s;
        }
        eng_result_free(&res);
    }
    tg_free(&g);
}

static void test_same_graph_same_result(void **state)
{
    (void)state;
    case_out a = run_case(child_mixed), b = run_case(child_mixed);
    assert_int_equal(a.status, HS_OK);
    assert_int_equal(b.status, HS_OK);
    assert_true(a.v[0] > 0);
    assert_memory_equal(a.v, b.v, sizeof a.v);
    assert_int_equal(a.messages, b.messages);
    /* a compute stream is either busy or waiting for communication */
    for (int r = 0; r < 16; r++)
        assert_rel(a.v[1 + 4 * r], a.v[2 + 4 * r] + a.v[4 + 4 * r], 1e-12);
}

/* ---- failures ----------------------------------------------------------------------------- */

static void child_deadlock(const plat_platform *plat, case_out *out)
{
    /* rank 0 sends to 1, which waits for a message from 2 that never comes */
    tg_graph g;
    tg_init(&g, 3, NULL);
    tg_add(&g, 0, comm_task(TG_SEND, 1, 1e6, -1));
    tg_add(&g, 1, comm_task(TG_RECV, 2, 1e6, -1));
    tg_add(&g, 2, exec_task(1e-3, -1));
    int gpus[3] = {0, 1, 2};
    eng_result res;
    run(plat, &g, gpus, ENG_STEP, false, &res, out);
    out->v[0] = res.ranks == NULL; /* nothing to free on failure */
    tg_free(&g);
}

static void test_deadlock_is_an_internal_error(void **state)
{
    (void)state;
    case_out o = run_case(child_deadlock);
    assert_int_equal(o.status, HS_EINTERNAL);
    assert_non_null(strstr(o.err, "deadlock"));
    assert_non_null(strstr(o.err, "rank 0"));
    assert_true(o.v[0] == 1);
}

/* Graphs that are wrong before anything runs; v[i] = status of case i, err of the last. */
static void child_bad_graphs(const plat_platform *plat, case_out *out)
{
    eng_options opt = {.fidelity = ENG_STEP, .exec_speed_scale = 1};
    eng_result res;
    int k = 0;
    char msgs[8][HS_ERR_LEN];
    tg_graph g;

    tg_init(&g, 2, NULL);                 /* 0: a GPU that does not exist */
    tg_add(&g, 0, exec_task(1, -1));
    int off[2] = {0, plat->n_gpus};
    out->v[k] = eng_run(&g, plat, off, &opt, &res, msgs[k]), k++;
    int same[2] = {3, 3};                 /* 1: two ranks on one GPU */
    out->v[k] = eng_run(&g, plat, same, &opt, &res, msgs[k]), k++;
    tg_free(&g);

    int gpus[4] = {0, 1, 2, 4};
    tg_init(&g, 2, NULL);                 /* 2: `after` naming a task of the same stream */
    tg_add(&g, 0, exec_task(1, -1));
    tg_add(&g, 0, exec_task(1, 0));
    out->v[k] = eng_run(&g, plat, gpus, &opt, &res, msgs[k]), k++;
    tg_free(&g);

    tg_init(&g, 2, NULL);                 /* 3: a collective over a group without the rank */
    int one[1] = {1};
    int grp = tg_add_group(&g, one, 1);
    tg_add(&g, 0, comm_task(TG_ALLREDUCE, grp, 1, -1));
    out->v[k] = eng_run(&g, plat, gpus, &opt, &res, msgs[k]), k++;
    tg_free(&g);

    tg_init(&g, 4, NULL);                 /* 4: hierarchical over 3 + 1 GPUs per node */
    int four[4] = {0, 1, 2, 3};
    grp = tg_add_group(&g, four, 4);
    for (int r = 0; r < 4; r++) {
        tg_task t = comm_task(TG_ALLREDUCE, grp, 1e6, -1);
        t.algo = TG_ALGO_HIER;
        tg_add(&g, r, t);
    }
    int gpus_3_1[4] = {0, 1, 2, plat->gpus_per_node};
    out->v[k] = eng_run(&g, plat, gpus_3_1, &opt, &res, msgs[k]), k++;
    tg_free(&g);

    tg_init(&g, 1, NULL);                 /* 5: a negative kernel time */
    tg_add(&g, 0, exec_task(-1, -1));
    out->v[k] = eng_run(&g, plat, gpus, &opt, &res, msgs[k]), k++;
    tg_free(&g);

    tg_init(&g, 2, NULL);                 /* 6: a send to itself */
    tg_add(&g, 0, comm_task(TG_SEND, 0, 1, -1));
    out->v[k] = eng_run(&g, plat, gpus, &opt, &res, msgs[k]), k++;
    tg_free(&g);

    out->v[50] = k;
    /* the three messages the parent checks, each cut to a third of the buffer */
    snprintf(out->err, sizeof out->err, "%.160s|%.160s|%.160s", msgs[0], msgs[1], msgs[4]);
}

static void test_bad_graphs_are_refused(void **state)
{
    (void)state;
    case_out o = run_case(child_bad_graphs);
    assert_int_equal(o.status, HS_OK); /* plat_load's */
    assert_int_equal((int)o.v[50], 7);
    int expect[7] = {HS_EINPUT, HS_EINPUT, HS_EINTERNAL, HS_EINTERNAL, HS_EINPUT, HS_EINTERNAL,
                     HS_EINTERNAL};
    for (int k = 0; k < 7; k++)
        assert_int_equal((int)o.v[k], expect[k]);
    assert_non_null(strstr(o.err, "rank 1 is placed on GPU"));
    assert_non_null(strstr(o.err, "already uses"));
    assert_non_null(strstr(o.err, "same number on every node"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_after_orders_streams_and_stats_add_up),
        cmocka_unit_test(test_fused_kernels_keep_exact_times),
        cmocka_unit_test(test_same_graph_same_result),
        cmocka_unit_test(test_deadlock_is_an_internal_error),
        cmocka_unit_test(test_bad_graphs_are_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
