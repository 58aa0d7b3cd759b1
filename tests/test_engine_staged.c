/* test_engine_staged.c: the engine's staged messages, shifts, a pipeline end to end and link
 * sharing, against times computed by hand on ABCI (as test_engine.c: every case runs in a
 * fork()ed child, engine_helpers.h; stream order and bad graphs: test_engine_graphs.c). */
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

/* ---- staging through host memory ---------------------------------------------------------- */

/* The path of a staged message inside a node: GPU -> the node's host memory -> GPU, both copies
 * at once (engine_p2p.c). Its latency is the slower half's, its bandwidth the narrower half's,
 * read from the platform's routes to the host n<node>-cpu. */
static void staged_path(const plat_platform *plat, int a, int b, double *lat_s, double *bw_Bps)
{
    char name[32];
    snprintf(name, sizeof name, "n%04d-cpu", a / plat->gpus_per_node);
    sg_host_t mem = sg_host_by_name(name);
    *lat_s = *bw_Bps = -1; /* no host memory: the parent's assertions fail */
    if (!mem)
        return;
    double up_s = sg_host_get_route_latency(plat->gpus[a], mem);
    double down_s = sg_host_get_route_latency(mem, plat->gpus[b]);
    double up_Bps = sg_host_get_route_bandwidth(plat->gpus[a], mem);
    double down_Bps = sg_host_get_route_bandwidth(mem, plat->gpus[b]);
    *lat_s = up_s > down_s ? up_s : down_s;
    *bw_Bps = up_Bps < down_Bps ? up_Bps : down_Bps;
}

/* One staged message from GPU 0 to GPU dst, at each fidelity. v[4k..] for k = fidelity,
 * destination (0: GPU 1 of the node, 1: GPU 0 of the next node): makespan, messages, and the
 * path's latency and bandwidth; v[20] the staging latency, v[21..22] the NVLink route. */
static void child_staged_send(const plat_platform *plat, case_out *out)
{
    int dst[2] = {1, plat->gpus_per_node};
    for (int f = 0; f < 2; f++)
        for (int k = 0; k < 2; k++) {
            tg_graph g;
            tg_init(&g, 2, NULL);
            tg_task send = comm_task(TG_SEND, 1, P2P_BYTES, -1), recv = comm_task(TG_RECV, 0,
                                                                                   P2P_BYTES, -1);
            send.flags = recv.flags = TG_FLAG_STAGED;
            tg_add(&g, 0, send);
            tg_add(&g, 1, recv);
            int gpus[2] = {0, dst[k]};
            eng_result res;
            double *v = &out->v[8 * f + 4 * k];
            if (run(plat, &g, gpus, f ? ENG_STEP : ENG_FLOW, false, &res, out) != HS_OK)
                return;
            v[0] = res.makespan_s;
            v[1] = (double)res.messages;
            if (k == 0)
                staged_path(plat, 0, 1, &v[2], &v[3]);
            else
                plat_route(plat, 0, dst[k], &v[2], &v[3]);
            eng_result_free(&res);
            tg_free(&g);
        }
    out->v[20] = plat->staging_latency_s;
    plat_route(plat, 0, 1, &out->v[21], &out->v[22]);
}

static void test_staged_message_pays_staging_and_takes_pcie(void **state)
{
    (void)state;
    case_out o = run_case(child_staged_send);
    assert_int_equal(o.status, HS_OK);
    double stage = o.v[20];
    assert_true(stage > 1e-3); /* ABCI: 3 ms, ParaDL's MPI without GPUDirect */
    for (int f = 0; f < 2; f++)
        for (int k = 0; k < 2; k++) {
            const double *v = &o.v[8 * f + 4 * k];
            assert_true(v[2] > 0 && v[3] > 0);
            assert_rel(v[0], stage + v[2] + P2P_BYTES / v[3], 1e-9);
            assert_rel(v[1], 1, 0); /* a relayed message is still one message */
        }
    /* inside the node the path is PCIe (16 GB/s, 110 ns), not the 50 GB/s NVLink */
    assert_rel(o.v[3], 16e9, 1e-12);
    assert_rel(o.v[2], 110e-9, 1e-9);
    assert_true(o.v[22] > 3 * o.v[3]);
}

/* Rank 0 (GPU 0) exchanges staged halos with ranks 1 and 2 (GPUs 1 and 2) at once: its two
 * copies into host memory share its PCIe link one way, the two coming back share it the other
 * way, so every message moves at half the PCIe bandwidth. The copies out of host memory into
 * GPUs 1 and 2 would be twice as fast, alone on their links: the receivers must wait for the
 * slower half. v[0] makespan, v[1] rank 1's end, v[2..3] the path, v[4] staging. */
static void child_staged_share(const plat_platform *plat, case_out *out, eng_fidelity fid)
{
    tg_graph g;
    tg_init(&g, 3, NULL);
    int both[2] = {1, 2}, zero[1] = {0};
    int g0 = tg_add_group(&g, both, 2), g12 = tg_add_group(&g, zero, 1);
    tg_task t = comm_task(TG_EXCHANGE, g0, P2P_BYTES, -1);
    t.flags = TG_FLAG_STAGED;
    tg_add(&g, 0, t);
    t.peer = g12;
    tg_add(&g, 1, t);
    tg_add(&g, 2, t);
    int gpus[3] = {0, 1, 2};
    eng_result res;
    if (run(plat, &g, gpus, fid, false, &res, out) == HS_OK) {
        out->v[0] = res.makespan_s;
        out->v[1] = res.ranks[1].end_s;
        eng_result_free(&res);
    }
    staged_path(plat, 0, 1, &out->v[2], &out->v[3]);
    out->v[4] = plat->staging_latency_s;
    tg_free(&g);
}
static void child_staged_share_step(const plat_platform *p, case_out *o)
{
    child_staged_share(p, o, ENG_STEP);
}
static void child_staged_share_flow(const plat_platform *p, case_out *o)
{
    child_staged_share(p, o, ENG_FLOW);
}

static void test_staged_copies_share_pcie_and_wait_for_the_slower_half(void **state)
{
    (void)state;
    case_out step = run_case(child_staged_share_step), flow = run_case(child_staged_share_flow);
    assert_int_equal(step.status, HS_OK);
    assert_int_equal(flow.status, HS_OK);
    double want = step.v[4] + step.v[2] + 2 * P2P_BYTES / step.v[3];
    assert_rel(step.v[0], want, 1e-9);
    assert_rel(step.v[1], want, 1e-9);
    assert_rel(flow.v[0], want, 1e-9);
    assert_rel(flow.v[1], want, 1e-9);
}

/* A staged ring allgather inside the node: every step pays the staging and the PCIe path, in
 * both fidelities. v[0] step makespan, v[1] flow makespan, v[2..3] path, v[4] staging. */
static void child_staged_allgather(const plat_platform *plat, case_out *out)
{
    for (int f = 0; f < 2; f++) {
        tg_graph g;
        int ranks[4] = {0, 1, 2, 3};
        tg_init(&g, 4, NULL);
        int group = tg_add_group(&g, ranks, 4);
        for (int r = 0; r < 4; r++) {
            tg_task t = comm_task(TG_ALLGATHER, group, 8e6, -1);
            t.flags = TG_FLAG_STAGED;
            tg_add(&g, r, t);
        }
        eng_result res;
        if (run(plat, &g, NODE_GPUS, f ? ENG_FLOW : ENG_STEP, false, &res, out) != HS_OK)
            return;
        out->v[f] = res.makespan_s;
        eng_result_free(&res);
        tg_free(&g);
    }
    staged_path(plat, 0, 1, &out->v[2], &out->v[3]);
    out->v[4] = plat->staging_latency_s;
}

/* A halo chain inside a node (synchronous staged sends) between staged allgathers on the same
 * ring pairs, the ranks arriving at different times: a synchronous sender that is its own
 * relay (engine_p2p.c) moves its message at exactly the times of a relay actor
 * (eng_options.relay_all). */
static void halo_chain_graph(tg_graph *g)
{
    int ranks[4] = {0, 1, 2, 3};
    tg_init(g, 4, NULL);
    int group = tg_add_group(g, ranks, 4);
    for (int k = 0; k < 4; k++) {
        int last = tg_add(g, k, exec_task(1e-3 * (k + 1), -1));
        tg_task t = comm_task(TG_ALLGATHER, group, 8e6, last);
        t.flags = TG_FLAG_STAGED;
        tg_add(g, k, t);
        for (int up = 1; up >= 0; up--) {
            int to = up ? k + 1 : k - 1, from = up ? k - 1 : k + 1;
            last = tg_add(g, k, exec_task(0.5e-3 * (up ? 4 - k : k + 1), -1));
            tg_task send = comm_task(TG_SEND, to, P2P_BYTES / 8, last);
            send.flags = TG_FLAG_STAGED | TG_FLAG_SYNC;
            if (to >= 0 && to < 4)
                tg_add(g, k, send);
            tg_task recv = comm_task(TG_RECV, from, P2P_BYTES / 8, to >= 0 && to < 4 ? -1 : last);
            recv.flags = TG_FLAG_STAGED;
            if (from >= 0 && from < 4)
                tg_add(g, k, recv);
        }
        tg_add(g, k, t);
    }
}

/* Both fidelities, one after the other in one process (so that the two cases' clocks agree):
 * v[100f] the makespan, v[100f + 1] the messages their sender relayed, v[100f + 2] the
 * messages, then every task's start and end, rank by rank. */
static void halo_case(const plat_platform *plat, case_out *out, bool relay_all)
{
    for (int f = 0; f < 2; f++) {
        tg_graph g;
        halo_chain_graph(&g);
        eng_result res;
        eng_options opt = {.fidelity = f ? ENG_STEP : ENG_FLOW, .exec_speed_scale = 1,
                           .record_tasks = true, .relay_all = relay_all};
        out->status = eng_run(&g, plat, NODE_GPUS, &opt, &res, out->err);
        if (out->status != HS_OK)
            return;
        double *v = &out->v[100 * f];
        v[0] = res.makespan_s;
        v[1] = (double)res.self_relayed;
        v[2] = (double)res.messages;
        for (int r = 0, k = 3; r < 4; r++)
            for (int i = 0; i < g.ranks[r].n_tasks && k < 99; i++) {
                v[k++] = res.task_start_s[r][i];
                v[k++] = res.task_end_s[r][i];
            }
        eng_result_free(&res);
        tg_free(&g);
    }
}

static void child_self_relayed_halo(const plat_platform *plat, case_out *out)
{
    halo_case(plat, out, false);
}

static void child_relayed_halo(const plat_platform *plat, case_out *out)
{
    halo_case(plat, out, true);
}

static void test_sync_sender_as_relay_keeps_its_times(void **state)
{
    (void)state;
    case_out self = run_case(child_self_relayed_halo), relayed = run_case(child_relayed_halo);
    assert_int_equal(self.status, HS_OK);
    assert_int_equal(relayed.status, HS_OK);
    for (int f = 0; f < 2; f++) {
        const double *d = &self.v[100 * f], *r = &relayed.v[100 * f];
        assert_true(d[0] > 0);
        assert_true(d[1] == 6); /* the chain's 6 halos, each relayed by its sender */
        assert_true(r[1] == 0); /* relay_all: none */
        assert_true(d[2] == r[2]);
        assert_memory_equal(d + 3, r + 3, 96 * sizeof *d); /* every task, to the bit */
    }
}

static void test_staged_ring_pays_every_step(void **state)
{
    (void)state;
    case_out o = run_case(child_staged_allgather);
    assert_int_equal(o.status, HS_OK);
    /* a ring step: each GPU's PCIe link carries one copy out and one in, no sharing */
    double want = 3 * (o.v[4] + o.v[2] + 8e6 / o.v[3]);
    assert_rel(o.v[0], want, 1e-9);
    assert_rel(o.v[1], want, 1e-9);
}

/* ---- shift -------------------------------------------------------------------------------- */

/* Three ranks on GPUs 0, 1, 2 of a node in a chain: rank 0 sends to 1, rank 1 shifts (sends
 * to 2 while receiving from 0), rank 2 receives; then ranks 0 and 2 swap with each other by a
 * shift whose send and receive peer is the same rank. v[0] rank 1's end after the chain, v[1]
 * the swap's end (from its start), v[2..3] the route 0 -> 1; per fidelity at v[4f]. */
static void child_shift(const plat_platform *plat, case_out *out)
{
    for (int f = 0; f < 2; f++) {
        tg_graph g;
        tg_init(&g, 3, NULL);
        int up[2] = {2, 0}, to2[2] = {2, 2}, to0[2] = {0, 0};
        int g_up = tg_add_group(&g, up, 2), g_to2 = tg_add_group(&g, to2, 2);
        int g_to0 = tg_add_group(&g, to0, 2);
        tg_add(&g, 0, comm_task(TG_SEND, 1, P2P_BYTES, -1));
        tg_add(&g, 1, comm_task(TG_SHIFT, g_up, P2P_BYTES, -1));
        tg_add(&g, 2, comm_task(TG_RECV, 1, P2P_BYTES, -1));
        tg_add(&g, 0, comm_task(TG_SHIFT, g_to2, P2P_BYTES, -1));
        tg_add(&g, 2, comm_task(TG_SHIFT, g_to0, P2P_BYTES, -1));
        eng_result res;
        if (run(plat, &g, NODE_GPUS, f ? ENG_FLOW : ENG_STEP, true, &res, out) != HS_OK)
            return;
        out->v[4 * f] = res.ranks[1].end_s;
        out->v[4 * f + 1] = res.task_end_s[0][1] - res.task_start_s[0][1];
        out->v[4 * f + 2] = res.task_start_s[0][1];
        out->v[4 * f + 3] = res.task_end_s[2][1] - res.task_start_s[2][1];
        eng_result_free(&res);
        tg_free(&g);
    }
    plat_route(plat, 0, 1, &out->v[10], &out->v[11]);
}

static void test_shift_posts_send_and_receive_at_once(void **state)
{
    (void)state;
    case_out o = run_case(child_shift);
    assert_int_equal(o.status, HS_OK);
    double one = o.v[10] + P2P_BYTES / o.v[11]; /* every NVLink pair of ABCI is alike */
    for (int f = 0; f < 2; f++) {
        /* the middle rank's receive and send overlap: one message time, not two */
        assert_rel(o.v[4 * f], one, 1e-9);
        /* the swap: both directions of the pair's link at once */
        assert_rel(o.v[4 * f + 1], one, 1e-9);
        assert_rel(o.v[4 * f + 2], one, 1e-9); /* it began when the chain had delivered */
        assert_rel(o.v[4 * f + 3], one, 1e-9);
    }
}

/* ---- a pipeline, end to end --------------------------------------------------------------- */

/* Four identical layers make four identical stages; on one node every boundary is an NVLink
 * hop of the same size. Per micro-batch a stage computes F forward and G backward and a
 * message costs C; GPipe's blocking schedule then takes (p+S-1)(F+G) + 2(p+S-2)C + WU: the
 * first micro-batch crosses p stages and p-1 links forward, the other S-1 follow one F+C apart,
 * and the backward mirrors it. v[0..1] makespan step/flow, v[2..3] the route's latency and
 * bandwidth, for S = 4 (v[0..]) and S = 8 (v[10..]). */
static wl_layer pipe_layers[4];
static void child_pipeline(const plat_platform *plat, case_out *out)
{
    for (int l = 0; l < 4; l++) {
        wl_layer *ly = &pipe_layers[l];
        memset(ly, 0, sizeof *ly);
        snprintf(ly->name, sizeof ly->name, "L%d", l);
        ly->type = WL_CONV;
        ly->x = ly->y = (wl_shape){.channels = 8, .spatial = {8, 8, 1}, .n_spatial = 2};
        ly->x_elems = ly->y_elems = 512;
        ly->w_kernel[0] = ly->w_kernel[1] = 3;
        ly->w_elems = 576;
        ly->fw_s = 1e-4, ly->bw_s = 2e-4, ly->wu_s = 1e-5;
    }
    wl_workload wl = {.name = "pipe", .samples = 1000, .layers = pipe_layers, .n_layers = 4,
                      .w_total = 4 * 576};
    for (int k = 0; k < 2; k++) {
        st_strategy st = {.kind = ST_PIPELINE, .p = 4, .p1 = 1, .p2 = 4, .segments = 4 << k};
        for (int f = 0; f < 2; f++) {
            tg_graph g;
            if ((out->status = ex_expand(&wl, NULL, &st, 64, &g, out->err)) != HS_OK)
                return;
            eng_result res;
            if (run(plat, &g, NODE_GPUS, f ? ENG_FLOW : ENG_STEP, false, &res, out) != HS_OK)
                return;
            out->v[10 * k + f] = res.makespan_s;
            eng_result_free(&res);
            tg_free(&g);
        }
    }
    plat_route(plat, 0, 1, &out->v[2], &out->v[3]);
}

static void test_balanced_pipeline_is_gpipe(void **state)
{
    (void)state;
    case_out o = run_case(child_pipeline);
    assert_int_equal(o.status, HS_OK);
    const double p = 4, B = 64;
    for (int k = 0; k < 2; k++) {
        double S = 4 << k, micro = B / S;
        double F = micro * 1e-4, G = micro * 2e-4, WU = 1e-5;
        double C = o.v[2] + micro * 512 * 4 / o.v[3];
        double want = (p + S - 1) * (F + G) + 2 * (p + S - 2) * C + WU;
        assert_rel(o.v[10 * k], want, 1e-9);
        assert_rel(o.v[10 * k + 1], want, 1e-9);
    }
}

/* ---- contention --------------------------------------------------------------------------- */

/* Two messages of P2P_BYTES from GPUs src[0], src[1] of node 0 to the same GPUs of node 1, at
 * the same time. v[0] makespan, v[1..2] route latency and bandwidth of the first pair. */
static void two_flows(const plat_platform *plat, case_out *out, int a, int b)
{
    int gpn = plat->gpus_per_node;
    tg_graph g;
    tg_init(&g, 4, NULL);
    tg_add(&g, 0, comm_task(TG_SEND, 2, P2P_BYTES, -1));
    tg_add(&g, 1, comm_task(TG_SEND, 3, P2P_BYTES, -1));
    tg_add(&g, 2, comm_task(TG_RECV, 0, P2P_BYTES, -1));
    tg_add(&g, 3, comm_task(TG_RECV, 1, P2P_BYTES, -1));
    int gpus[4] = {a, b, gpn + a, gpn + b};
    eng_result res;
    if (run(plat, &g, gpus, ENG_STEP, false, &res, out) == HS_OK) {
        out->v[0] = res.makespan_s;
        eng_result_free(&res);
    }
    plat_route(plat, a, gpn + a, &out->v[1], &out->v[2]);
    tg_free(&g);
}
static void child_flows_shared_switch(const plat_platform *p, case_out *o) { two_flows(p, o, 0, 1); }
static void child_flows_two_switches(const plat_platform *p, case_out *o) { two_flows(p, o, 0, 2); }

static void test_two_flows_through_one_nic_share_it(void **state)
{
    (void)state;
    case_out shared = run_case(child_flows_shared_switch);
    case_out apart = run_case(child_flows_two_switches);
    assert_int_equal(shared.status, HS_OK);
    assert_int_equal(apart.status, HS_OK);
    double lat = shared.v[1], bw = shared.v[2];
    /* GPUs 2 and 3 have their own switch and NIC: no sharing */
    assert_rel(apart.v[0], lat + P2P_BYTES / bw, 1e-9);
    /* GPUs 0 and 1 share their switch's NIC, the route's bottleneck: each gets half of it */
    assert_rel(shared.v[0], lat + 2 * P2P_BYTES / bw, 1e-9);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_staged_message_pays_staging_and_takes_pcie),
        cmocka_unit_test(test_staged_copies_share_pcie_and_wait_for_the_slower_half),
        cmocka_unit_test(test_staged_ring_pays_every_step),
        cmocka_unit_test(test_sync_sender_as_relay_keeps_its_times),
        cmocka_unit_test(test_shift_posts_send_and_receive_at_once),
        cmocka_unit_test(test_balanced_pipeline_is_gpipe),
        cmocka_unit_test(test_two_flows_through_one_nic_share_it),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
