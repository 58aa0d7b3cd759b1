/* test_engine.c: the SimGrid engine against times computed by hand on the ABCI platform.
 *
 * SimGrid allows one engine per process, so every case runs in a fork()ed child that loads the
 * platform, runs one graph and writes what it measured into a pipe; the parent asserts. The
 * expected times come from plat_route / plat_ring_cost (latency + bytes / bandwidth per
 * message, a ring step costing its slowest edge), never from the engine itself. */
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

/* ---- kernels ------------------------------------------------------------------------------ */

static void child_one_exec(const plat_platform *plat, case_out *out)
{
    tg_graph g;
    tg_init(&g, 1, NULL);
    tg_add(&g, 0, exec_task(0.25, -1));
    int gpu = 5;
    eng_options opt = {.fidelity = ENG_FLOW, .exec_speed_scale = 2, .record_tasks = true};
    eng_result res;
    out->status = eng_run(&g, plat, &gpu, &opt, &res, out->err);
    if (out->status == HS_OK) {
        out->v[0] = res.makespan_s;
        out->v[1] = res.ranks[0].compute_busy_s;
        out->v[2] = res.task_start_s[0][0];
        out->v[3] = res.task_end_s[0][0];
        out->messages = res.messages;
        eng_result_free(&res);
    }
    tg_free(&g);
}

static void test_one_exec_takes_amount_times_scale(void **state)
{
    (void)state;
    case_out o = run_case(child_one_exec);
    assert_int_equal(o.status, HS_OK);
    assert_rel(o.v[0], 0.5, 1e-12);
    assert_rel(o.v[1], 0.5, 1e-12);
    assert_rel(o.v[2], 0.0, 1e-12);
    assert_rel(o.v[3], 0.5, 1e-12);
    assert_int_equal(o.messages, 0);
}

/* ---- point to point ----------------------------------------------------------------------- */


/* v[3k] measured, v[3k+1] latency, v[3k+2] bandwidth, for GPU 0 to a GPU in the same node, the
 * same leaf, another leaf of the rack, another rack. */
static void child_send_recv(const plat_platform *plat, case_out *out)
{
    int gpn = plat->gpus_per_node;
    int dst[4] = {1, gpn, gpn * plat->nodes_per_leaf, gpn * plat->nodes_per_rack};
    for (int k = 0; k < 4; k++) {
        tg_graph g;
        tg_init(&g, 2, NULL);
        tg_add(&g, 0, comm_task(TG_SEND, 1, P2P_BYTES, -1));
        tg_add(&g, 1, comm_task(TG_RECV, 0, P2P_BYTES, -1));
        int gpus[2] = {0, dst[k]};
        eng_result res;
        /* one engine per process: later runs start where the previous one ended */
        if (run(plat, &g, gpus, ENG_STEP, false, &res, out) != HS_OK)
            return;
        out->v[3 * k] = res.makespan_s;
        plat_route(plat, 0, dst[k], &out->v[3 * k + 1], &out->v[3 * k + 2]);
        eng_result_free(&res);
        tg_free(&g);
    }
}

static void test_send_recv_is_latency_plus_size_over_bandwidth(void **state)
{
    (void)state;
    case_out o = run_case(child_send_recv);
    assert_int_equal(o.status, HS_OK);
    for (int k = 0; k < 4; k++) {
        assert_true(o.v[3 * k + 1] > 0 && o.v[3 * k + 2] > 0);
        assert_rel(o.v[3 * k], o.v[3 * k + 1] + P2P_BYTES / o.v[3 * k + 2], 1e-9);
    }
    /* farther is slower: the route crosses more switches */
    assert_true(o.v[1] < o.v[4] && o.v[4] < o.v[7] && o.v[7] < o.v[10]);
}

/* ---- rings -------------------------------------------------------------------------------- */

static const double AR_BYTES = 96e6; /* divisible by 4, 8, 16 */


static void child_allreduce_node_step(const plat_platform *plat, case_out *out)
{
    collective_case(plat, out, NODE_GPUS, 4, TG_ALLREDUCE, TG_ALGO_RING, AR_BYTES, ENG_STEP);
}

static void test_ring_allreduce_in_one_node(void **state)
{
    (void)state;
    case_out o = run_case(child_allreduce_node_step);
    assert_int_equal(o.status, HS_OK);
    double n = 4, alpha = o.v[100], beta = o.v[101];
    assert_rel(o.v[0], 2 * (n - 1) * (alpha + AR_BYTES / n * beta), 1e-9);
    for (int r = 0; r < 4; r++)
        assert_rel(o.v[1 + r], o.v[0], 1e-12);
    assert_int_equal(o.messages, 2 * 3 * 4);
    assert_rel(o.bytes_sent, 2 * 3 * 4 * AR_BYTES / 4, 1e-12);
}

/* 8 GPUs on two nodes; 16 GPUs on four nodes in different leaves and racks, so the ring's
 * slowest edge crosses racks. */
static void spread_gpus(const plat_platform *plat, int n, int *gpus)
{
    int gpn = plat->gpus_per_node;
    int nodes_of16[4] = {0, plat->nodes_per_leaf, plat->nodes_per_rack,
                         plat->nodes_per_rack + 1};
    for (int i = 0; i < n; i++)
        gpus[i] = n == 8 ? i : nodes_of16[i / gpn] * gpn + i % gpn;
}

#define RING_CHILD(name, n, op, fid)                                                           \
    static void name(const plat_platform *plat, case_out *out)                                 \
    {                                                                                          \
        int gpus[16];                                                                          \
        spread_gpus(plat, n, gpus);                                                            \
        collective_case(plat, out, gpus, n, op, TG_ALGO_RING, AR_BYTES, fid);                  \
    }
RING_CHILD(child_ar8_step, 8, TG_ALLREDUCE, ENG_STEP)
RING_CHILD(child_ar8_flow, 8, TG_ALLREDUCE, ENG_FLOW)
RING_CHILD(child_ar16_step, 16, TG_ALLREDUCE, ENG_STEP)
RING_CHILD(child_ar16_flow, 16, TG_ALLREDUCE, ENG_FLOW)
RING_CHILD(child_ag16_step, 16, TG_ALLGATHER, ENG_STEP)
RING_CHILD(child_ag16_flow, 16, TG_ALLGATHER, ENG_FLOW)
RING_CHILD(child_rs16_step, 16, TG_REDUCE_SCATTER, ENG_STEP)
RING_CHILD(child_rs16_flow, 16, TG_REDUCE_SCATTER, ENG_FLOW)

static void check_ring(case_fn step, case_fn flow, int n, double steps, double chunk)
{
    case_out s = run_case(step), f = run_case(flow);
    assert_int_equal(s.status, HS_OK);
    assert_int_equal(f.status, HS_OK);
    double alpha = s.v[100], beta = s.v[101];
    assert_true(alpha > 0 && beta > 0);
    assert_rel(s.v[0], steps * (alpha + chunk * beta), 1e-9);
    assert_rel(f.v[0], s.v[0], 1e-6);
    /* flow: the members meet at the end, so all end with the slowest edge; step: a member
     * between two fast edges may finish its last steps earlier, but never later */
    for (int r = 0; r < n; r++) {
        assert_rel(f.v[1 + r], f.v[0], 1e-12);
        assert_true(s.v[1 + r] <= s.v[0] && s.v[1 + r] > 0);
    }
    assert_int_equal(s.messages, (long)steps * n);
    assert_int_equal(f.messages, n);
    assert_rel(f.bytes_sent, s.bytes_sent, 1e-12);
    assert_rel(s.bytes_sent, steps * n * chunk, 1e-12);
}

static void test_ring_allreduce_across_nodes(void **state)
{
    (void)state;
    check_ring(child_ar8_step, child_ar8_flow, 8, 2 * 7, AR_BYTES / 8);
    check_ring(child_ar16_step, child_ar16_flow, 16, 2 * 15, AR_BYTES / 16);
}

static void test_ring_allgather_and_reduce_scatter(void **state)
{
    (void)state;
    check_ring(child_ag16_step, child_ag16_flow, 16, 15, AR_BYTES);
    check_ring(child_rs16_step, child_rs16_flow, 16, 15, AR_BYTES / 16);
}

static void child_allreduce_one_rank(const plat_platform *plat, case_out *out)
{
    int gpu = 0;
    collective_case(plat, out, &gpu, 1, TG_ALLREDUCE, TG_ALGO_RING, AR_BYTES, ENG_STEP);
}

static void test_collective_of_one_rank_is_free(void **state)
{
    (void)state;
    case_out o = run_case(child_allreduce_one_rank);
    assert_int_equal(o.status, HS_OK);
    assert_rel(o.v[0], 0, 1e-15);
    assert_int_equal(o.messages, 0);
}

/* ---- hierarchical allreduce --------------------------------------------------------------- */

/* Four ranks on GPUs 0 and 2 of nodes 0 and 1: two per node, and the two inter-node rings
 * leave through different PCIe switches, so nothing is shared. v[102..105]: the costs of the
 * intra-node ring {0,2} and the inter-node ring {0, gpn}. */
static void hier_case(const plat_platform *plat, case_out *out, eng_fidelity fid)
{
    int gpn = plat->gpus_per_node;
    int gpus[4] = {0, 2, gpn, gpn + 2};
    collective_case(plat, out, gpus, 4, TG_ALLREDUCE, TG_ALGO_HIER, AR_BYTES, fid);
    int intra[2] = {0, 2}, inter[2] = {0, gpn}, inter2[2] = {2, gpn + 2};
    plat_ring_cost(plat, intra, 2, &out->v[102], &out->v[103]);
    plat_ring_cost(plat, inter, 2, &out->v[104], &out->v[105]);
    plat_ring_cost(plat, inter2, 2, &out->v[106], &out->v[107]);
}
static void child_hier_step(const plat_platform *p, case_out *o) { hier_case(p, o, ENG_STEP); }
static void child_hier_flow(const plat_platform *p, case_out *o) { hier_case(p, o, ENG_FLOW); }

static void test_hierarchical_allreduce(void **state)
{
    (void)state;
    case_out s = run_case(child_hier_step), f = run_case(child_hier_flow);
    assert_int_equal(s.status, HS_OK);
    assert_int_equal(f.status, HS_OK);
    double k = 2, nodes = 2, m = AR_BYTES;
    double a_in = s.v[102], b_in = s.v[103], a_x = s.v[104], b_x = s.v[105];
    assert_rel(s.v[106], a_x, 1e-12); /* both inter-node rings cost the same */
    assert_rel(s.v[107], b_x, 1e-12);
    double expect = 2 * (k - 1) * (a_in + m / k * b_in)           /* reduce-scatter, allgather */
                    + 2 * (nodes - 1) * (a_x + m / k / nodes * b_x); /* allreduce of m/k */
    assert_rel(s.v[0], expect, 1e-9);
    assert_rel(f.v[0], s.v[0], 1e-6);
    /* step: 4 ranks x (1 + 2 + 1) steps; flow: 4 x 3 phases */
    assert_int_equal(s.messages, 16);
    assert_int_equal(f.messages, 12);
}

/* Eight ranks on two whole nodes: the four inter-node rings (one per local index) leave
 * through the node's two NICs, two rings per NIC, so each gets half of the NIC's bandwidth. */
static void hier_full_case(const plat_platform *plat, case_out *out, eng_fidelity fid)
{
    int gpn = plat->gpus_per_node;
    assert_int_equal(gpn, 4);
    int gpus[8] = {0, 1, 2, 3, 4, 5, 6, 7};
    collective_case(plat, out, gpus, 8, TG_ALLREDUCE, TG_ALGO_HIER, AR_BYTES, fid);
    int inter[2] = {0, 4};
    plat_ring_cost(plat, gpus, 4, &out->v[102], &out->v[103]);
    plat_ring_cost(plat, inter, 2, &out->v[104], &out->v[105]);
}
static void child_hier8_step(const plat_platform *p, case_out *o) { hier_full_case(p, o, ENG_STEP); }
static void child_hier8_flow(const plat_platform *p, case_out *o) { hier_full_case(p, o, ENG_FLOW); }

static void test_hierarchical_allreduce_shares_nics(void **state)
{
    (void)state;
    case_out s = run_case(child_hier8_step), f = run_case(child_hier8_flow);
    assert_int_equal(s.status, HS_OK);
    assert_int_equal(f.status, HS_OK);
    double k = 4, nodes = 2, m = AR_BYTES;
    double a_in = s.v[102], b_in = s.v[103], a_x = s.v[104], b_x = s.v[105];
    double expect = 2 * (k - 1) * (a_in + m / k * b_in)
                    + 2 * (nodes - 1) * (a_x + 2 * (m / k / nodes) * b_x);
    assert_rel(s.v[0], expect, 1e-9);
    assert_rel(f.v[0], s.v[0], 1e-6);
}

/* ---- NCCL's rings over every NIC ---------------------------------------------------------- */

/* Eight ranks on two whole abci nodes (4 GPUs, 2 NICs): two rings, ring 0 entering each node at
 * local GPU 0 (NIC 0) and leaving from 3 (NIC 1), ring 1 entering at 2 (NIC 1) and leaving from
 * 1 (NIC 0), each carrying m/2. Inside a node the pairs 0->1 and 2->3 carry both rings, 1->2
 * and 3->0 one; every NIC direction one. By hand from the routes: v[102], the slowest edge's
 * bytes of a step; v[104], the rings' longest chain of the 14 steps' latencies, each step its
 * own edge's (the 14 edges before two in a row, ring 0 in order 0..7, ring 1 2,3,0,1,6,7,4,5);
 * v[103]: a step of the ring in rank order (m/8 over its slowest edge). */
static void rings_case(const plat_platform *plat, case_out *out, eng_fidelity fid)
{
    int gpn = plat->gpus_per_node;
    assert_int_equal(gpn, 4);
    int gpus[8] = {0, 1, 2, 3, 4, 5, 6, 7};
    collective_case(plat, out, gpus, 8, TG_ALLREDUCE, TG_ALGO_RINGS, AR_BYTES, fid);
    double chunk = AR_BYTES / 2 / 8, step_s = 0;
    for (int c = 0; c < 2; c++)
        for (int l = 0; l < 4; l++) {
            double lat, bw, through = l == 0 || l == 2 ? 2 : 1;
            plat_route(plat, 4 * c + l, 4 * c + (l + 1) % 4, &lat, &bw);
            step_s = fmax(step_s, chunk * through / bw);
        }
    int exits[2][2] = {{3, 4}, {1, 6}}; /* node 0 to node 1; and back: {7, 0}, {5, 2} */
    for (int j = 0; j < 2; j++)
        for (int back = 0; back < 2; back++) {
            double lat, bw;
            int a = exits[j][0] + 4 * back, b = (exits[j][1] + 4 * back) % 8;
            plat_route(plat, a, b, &lat, &bw);
            step_s = fmax(step_s, chunk / bw);
        }
    int order[2][8] = {{0, 1, 2, 3, 4, 5, 6, 7}, {2, 3, 0, 1, 6, 7, 4, 5}};
    double chain_s = 0;
    for (int j = 0; j < 2; j++) {
        double lat[8], bw, lap_s = 0, pair_s = INFINITY;
        for (int q = 0; q < 8; q++) {
            plat_route(plat, order[j][q], order[j][(q + 1) % 8], &lat[q], &bw);
            lap_s += lat[q];
        }
        for (int q = 0; q < 8; q++)
            pair_s = fmin(pair_s, lat[q] + lat[(q + 1) % 8]);
        chain_s = fmax(chain_s, 2 * lap_s - pair_s);
    }
    out->v[102] = step_s;
    out->v[104] = chain_s;
    out->v[103] = out->v[100] + AR_BYTES / 8 * out->v[101];
}
static void child_rings_step(const plat_platform *p, case_out *o)
{
    rings_case(p, o, ENG_STEP);
}
static void child_rings_flow(const plat_platform *p, case_out *o)
{
    rings_case(p, o, ENG_FLOW);
}

static void test_rings_use_every_nic(void **state)
{
    (void)state;
    case_out s = run_case(child_rings_step), f = run_case(child_rings_flow);
    assert_int_equal(s.status, HS_OK);
    assert_int_equal(f.status, HS_OK);
    double steps = 2 * (8 - 1);
    /* flow: NCCL's latency plus bytes over bandwidth; step: its pipeline, which overlaps the
     * chain's latencies with the bytes */
    assert_rel(f.v[0], f.v[104] + steps * f.v[102], 1e-9);
    assert_true(s.v[0] <= f.v[0] && s.v[0] > steps * s.v[102]);
    assert_true(f.v[0] < 0.6 * steps * s.v[103]); /* the NICs' bandwidth doubles */
    /* step: 8 ranks x 14 steps x 2 rings; flow: 8 x 2 */
    assert_int_equal(s.messages, 224);
    assert_int_equal(f.messages, 16);
}

/* ---- exchange ----------------------------------------------------------------------------- */

/* Four ranks in one node, each exchanging with both ring neighbours at once. */
static void child_exchange(const plat_platform *plat, case_out *out)
{
    tg_graph g;
    tg_init(&g, 4, NULL);
    for (int r = 0; r < 4; r++) {
        int peers[2] = {(r + 3) % 4, (r + 1) % 4};
        int group = tg_add_group(&g, peers, 2);
        tg_add(&g, r, comm_task(TG_EXCHANGE, group, P2P_BYTES, -1));
    }
    eng_result res;
    if (run(plat, &g, NODE_GPUS, ENG_STEP, false, &res, out) == HS_OK) {
        out->v[0] = res.makespan_s;
        eng_result_free(&res);
    }
    double worst = 0;
    for (int r = 0; r < 4; r++)
        for (int d = 1; d <= 3; d += 2) {
            double lat, bw;
            plat_route(plat, r, (r + d) % 4, &lat, &bw);
            if (lat + P2P_BYTES / bw > worst)
                worst = lat + P2P_BYTES / bw;
        }
    out->v[1] = worst;
    tg_free(&g);
}

static void test_exchange_posts_all_messages_at_once(void **state)
{
    (void)state;
    case_out o = run_case(child_exchange);
    assert_int_equal(o.status, HS_OK);
    /* NVLink pairs are separate links: the eight messages do not share anything */
    assert_rel(o.v[0], o.v[1], 1e-9);
    assert_int_equal(o.messages, 8);
    assert_rel(o.bytes_sent, 8 * P2P_BYTES, 1e-12);
}

/* ---- Horovod's background cycle ----------------------------------------------------------- */

/* Two ranks of a node, each: a 3 ms kernel, its gradients' allreduce (TG_FLAG_CYCLE), a 4 ms
 * kernel, the next allreduce (TG_FLAG_CYCLE), a 0.1 ms update after it. v[4k..4k+3], run k:
 * rank 0's allreduces' starts and ends. Run 0: a 5 ms cycle, 1 MB allreduces; run 1: the same
 * graph without a cycle; run 2: the cycle, the first allreduce 1 GB (it outlasts the cycle). */
static void child_cycle(const plat_platform *plat, case_out *out)
{
    const double period[3] = {5e-3, 0, 5e-3}, first[3] = {1e6, 1e6, 1e9};
    int gpus[2] = {0, 1};
    for (int k = 0; k < 3; k++) {
        tg_graph g;
        tg_init(&g, 2, NULL);
        int group = tg_add_group(&g, gpus, 2);
        g.cycle_time_s = period[k];
        for (int r = 0; r < 2; r++) {
            tg_task a = comm_task(TG_ALLREDUCE, group, first[k], 0);
            tg_task b = comm_task(TG_ALLREDUCE, group, 1e6, 2);
            a.flags = b.flags = TG_FLAG_CYCLE;
            tg_add(&g, r, exec_task(3e-3, -1));
            tg_add(&g, r, a);
            tg_add(&g, r, exec_task(4e-3, -1));
            tg_add(&g, r, b);
            tg_add(&g, r, exec_task(1e-4, 3));
        }
        eng_result res;
        if (run(plat, &g, gpus, ENG_FLOW, true, &res, out) != HS_OK)
            return;
        out->v[4 * k] = res.task_start_s[0][1];
        out->v[4 * k + 1] = res.task_end_s[0][1];
        out->v[4 * k + 2] = res.task_start_s[0][3];
        out->v[4 * k + 3] = res.task_end_s[0][3];
        eng_result_free(&res);
        tg_free(&g);
    }
}

/* horovod/common/operations.cc (v0.19) RunLoopOnce: the background thread wakes every cycle
 * and launches what is ready then. A gradient ready at 3 ms is reduced at 5 ms, one ready at
 * 7 ms at 10 ms; without a cycle at 3 and 7 ms; an allreduce queued behind a longer one starts
 * when that one ends, not at the cycle after. */
static void test_cycle_delays_allreduces(void **state)
{
    (void)state;
    case_out o = run_case(child_cycle);
    assert_int_equal(o.status, HS_OK);
    assert_rel(o.v[0], 5e-3, 1e-9);
    assert_rel(o.v[2], 10e-3, 1e-9);
    assert_rel(o.v[4], 3e-3, 1e-9);
    assert_rel(o.v[6], 7e-3, 1e-9);
    assert_rel(o.v[1] - o.v[0], o.v[5] - o.v[4], 1e-9); /* the same allreduce, later */
    assert_true(o.v[9] > 10e-3);                        /* the 1 GB allreduce ends after 10 ms */
    assert_rel(o.v[8], 5e-3, 1e-9);
    assert_rel(o.v[10], o.v[9], 1e-9);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_one_exec_takes_amount_times_scale),
        cmocka_unit_test(test_send_recv_is_latency_plus_size_over_bandwidth),
        cmocka_unit_test(test_ring_allreduce_in_one_node),
        cmocka_unit_test(test_ring_allreduce_across_nodes),
        cmocka_unit_test(test_ring_allgather_and_reduce_scatter),
        cmocka_unit_test(test_collective_of_one_rank_is_free),
        cmocka_unit_test(test_hierarchical_allreduce),
        cmocka_unit_test(test_hierarchical_allreduce_shares_nics),
        cmocka_unit_test(test_rings_use_every_nic),
        cmocka_unit_test(test_exchange_posts_all_messages_at_once),
        cmocka_unit_test(test_cycle_delays_allreduces),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
