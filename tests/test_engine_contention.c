/* test_engine_contention.c: the engine under congestion, simulated values pinned. Step mode
 * (every ring step its own messages) is the reference; flow mode must give the same where the
 * contention moves during a collective (it then runs the ring step by step: engine_exposed.c;
 * over the step budget, in blocks of steps that converge to it) and where it stays (sibling
 * rings: one flow per edge). Jobs sharing a fabric and background
 * traffic are tests/e2e_flow_contention.sh's.
 *
 * Each case runs in a fork()ed child on ABCI (engine_helpers.h). A ring: four ranks on one GPU
 * of nodes 0-3 (one leaf), an allreduce of RING_BYTES; its edge k goes from node k to node k+1
 * through the NICs of both. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "engine_helpers.h"

#include <simgrid/actor.h>
#include <simgrid/engine.h>
#include <simgrid/mailbox.h>

static const double RING_BYTES = 400e6; /* 6 steps of 100 MB: 48 ms alone on EDR */
static const double HOG_BYTES = 300e6;  /* a competing transfer: about half the ring's time */

/* Ranks 0-3: the ring. Rank 4 (GPU 1, node 0) sends to rank 5 (GPU 5, node 1): edge 0's NICs;
 * then rank 5 sends on to rank 6 (GPU 9, node 2): edge 1's NICs. */
static void moving_graph(tg_graph *g)
{
    int ring[4] = {0, 1, 2, 3};
    assert_int_equal(tg_init(g, 7, NULL), HS_OK);
    int group = tg_add_group(g, ring, 4);
    for (int r = 0; r < 4; r++)
        tg_add(g, r, comm_task(TG_ALLREDUCE, group, RING_BYTES, -1));
    tg_add(g, 4, comm_task(TG_SEND, 5, HOG_BYTES, -1));
    tg_add(g, 5, comm_task(TG_RECV, 4, HOG_BYTES, -1));
    tg_add(g, 5, comm_task(TG_SEND, 6, HOG_BYTES, -1));
    tg_add(g, 6, comm_task(TG_RECV, 5, HOG_BYTES, -1));
}

static const int MOVING_GPUS[7] = {0, 4, 8, 12, 1, 5, 9};

/* Run g (and free it): v[0] the makespan, v[10 + r] rank r's end. */
static void run_ends(const plat_platform *plat, tg_graph *g, const int *gpus, eng_fidelity fid,
                     case_out *out)
{
    eng_result res;
    if (run(plat, g, gpus, fid, false, &res, out) == HS_OK) {
        out->v[0] = res.makespan_s;
        for (int r = 0; r < res.n_ranks && 10 + r < MAX_VALUES; r++)
            out->v[10 + r] = res.ranks[r].end_s;
        eng_result_free(&res);
    }
    tg_free(g);
}

static void moving_case(const plat_platform *plat, case_out *out, eng_fidelity fid)
{
    tg_graph g;
    moving_graph(&g);
    run_ends(plat, &g, MOVING_GPUS, fid, out);
}

static void child_moving_step(const plat_platform *p, case_out *o) { moving_case(p, o, ENG_STEP); }
static void child_moving_flow(const plat_platform *p, case_out *o) { moving_case(p, o, ENG_FLOW); }

/* The ring alone: 6 steps of 100 MB at 12.5 GB/s, 48.2 ms. With the transfers, every step has
 * one edge at half the NIC's rate, so the ring takes twice as long: 96.0 ms (SimGrid's value,
 * pinned), and the transfers, at half rate all along, end with it. One flow per edge would
 * give 72.0 ms: edge 0 is slow in the first half only, edge 1 in the second only, and the
 * two halves' slowdowns overlap. Flow mode sees the transfers on the ring's links and runs
 * the ring step by step: the same 96.0 ms, the same messages. */
static void test_moving_contention(void **state)
{
    (void)state;
    case_out s = run_case(child_moving_step), f = run_case(child_moving_flow);
    if (s.status || f.status)
        fail_msg("%s%s", s.err, f.err);
    double ring_s[2] = {0, 0}; /* the collective ends when its last member does */
    for (int r = 0; r < 4; r++)
        ring_s[0] = fmax(ring_s[0], s.v[10 + r]), ring_s[1] = fmax(ring_s[1], f.v[10 + r]);
    assert_rel(ring_s[0], 0.096000000000000002, 1e-12);
    assert_rel(s.v[16], 0.09587876, 1e-9); /* the second transfer's arrival */
    assert_rel(ring_s[1], ring_s[0], 1e-12);
    assert_rel(f.v[16], s.v[16], 1e-12);
    assert_int_equal(s.messages, 4 * 6 + 2);
    assert_int_equal(f.messages, s.messages);
}

/* The moving case in flow mode with a step budget of `budget` messages (the ring's steps are
 * 24): over it, the ring runs as flows in blocks of steps, as many as the budget pays for. */
static void moving_budget_case(const plat_platform *plat, case_out *out, double budget)
{
    tg_graph g;
    moving_graph(&g);
    eng_options opt = {.fidelity = ENG_FLOW, .exec_speed_scale = 1,
                       .step_budget_messages = budget};
    eng_result res;
    out->status = eng_run(&g, plat, MOVING_GPUS, &opt, &res, out->err);
    if (out->status == HS_OK) {
        out->messages = res.messages;
        out->v[0] = res.rings_over_budget;
        for (int r = 0; r < 4; r++) /* the collective ends when its last member does */
            out->v[1] = fmax(out->v[1], res.ranks[r].end_s);
        eng_result_free(&res);
    }
    tg_free(&g);
}

static void child_budget_4(const plat_platform *p, case_out *o) { moving_budget_case(p, o, 4); }
static void child_budget_12(const plat_platform *p, case_out *o) { moving_budget_case(p, o, 12); }
static void child_budget_23(const plat_platform *p, case_out *o) { moving_budget_case(p, o, 23); }

/* Over the budget, the ring's 6 steps run as B rings of flows one after the other, B = the
 * budget over the 4 members: each block meets the transfers as they are during it, so the
 * moving contention is counted block by block, and more of it the shorter the blocks. Budget
 * 4: one block, one flow per edge, 72.0 ms; 12: three blocks of two steps, 88.1 ms; 23: five
 * blocks (of 2, 1, 1, 1, 1 steps), 96.0 ms, the steps' value here (test_moving_contention),
 * which a budget of 24 runs. SimGrid's values, pinned. */
static void test_moving_contention_blocks(void **state)
{
    (void)state;
    case_out b4 = run_case(child_budget_4), b12 = run_case(child_budget_12),
             b23 = run_case(child_budget_23);
    if (b4.status || b12.status || b23.status)
        fail_msg("%s%s%s", b4.err, b12.err, b23.err);
    assert_int_equal(b4.v[0], 1);
    assert_int_equal(b4.messages, 4 * 1 + 2);
    assert_int_equal(b12.messages, 4 * 3 + 2);
    assert_int_equal(b23.messages, 4 * 5 + 2);
    assert_rel(b4.v[1], 0.07203031, 1e-9);
    assert_rel(b12.v[1], 0.08809093, 1e-9);
    assert_rel(b23.v[1], 0.096, 1e-9);
}

/* Two rings running the same allreduce side by side, on GPUs 0 and 1 of nodes 0-3: every edge
 * of one shares its NICs with an edge of the other, from start to end. */
static void siblings_case(const plat_platform *plat, case_out *out, eng_fidelity fid)
{
    static const int gpus[8] = {0, 4, 8, 12, 1, 5, 9, 13};
    int ring[2][4] = {{0, 1, 2, 3}, {4, 5, 6, 7}};
    tg_graph g;
    assert_int_equal(tg_init(&g, 8, NULL), HS_OK);
    for (int k = 0; k < 2; k++) {
        int group = tg_add_group(&g, ring[k], 4);
        for (int r = 0; r < 4; r++)
            tg_add(&g, ring[k][r], comm_task(TG_ALLREDUCE, group, RING_BYTES, -1));
    }
    run_ends(plat, &g, gpus, fid, out);
}

static void child_siblings_step(const plat_platform *p, case_out *o) { siblings_case(p, o, ENG_STEP); }
static void child_siblings_flow(const plat_platform *p, case_out *o) { siblings_case(p, o, ENG_FLOW); }

/* Contention that stays: each ring at half the NICs' rate all along, twice its time alone
 * (96.2 ms, pinned), and flow mode keeps one message per edge. */
static void test_sibling_rings_stay_flows(void **state)
{
    (void)state;
    case_out s = run_case(child_siblings_step), f = run_case(child_siblings_flow);
    if (s.status || f.status)
        fail_msg("%s%s", s.err, f.err);
    assert_rel(s.v[0], 0.09618186, 1e-9);
    assert_rel(f.v[0], s.v[0], 1e-9);
    assert_int_equal(s.messages, 2 * 4 * 6);
    assert_int_equal(f.messages, 2 * 4);
}

/* ---- how SimGrid shares a link between a short and a long route ----------------------------- */

static const double SHARE_BYTES = 64e6;
static double share_end_s[2]; /* per flow: when its receiver had it */

static void share_receiver(int argc, char **argv)
{
    int k = atoi(argv[argc - 1]);
    sg_mailbox_get(sg_mailbox_by_name(k ? "long" : "short"));
    share_end_s[k] = simgrid_get_clock();
}

static void share_sender(int argc, char **argv)
{
    int k = atoi(argv[argc - 1]);
    static char payload;
    sg_mailbox_put(sg_mailbox_by_name(k ? "long" : "short"), &payload, SHARE_BYTES);
}

/* Two flows of 64 MB leave GPU 0 at once through its PCIe link: one to its node's host memory
 * (a staged copy's first half, route latency 110 ns), one to a GPU of node 1 (30 us, capped by
 * its NICs at 12.5 GB/s). */
static void child_sharing(const plat_platform *plat, case_out *out)
{
    sg_host_t gpu0 = plat->gpus[0], mem = plat_host_memory(plat, 0), far = plat->gpus[4];
    const char *k0[] = {"share", "0"}, *k1[] = {"share", "1"};
    sg_actor_create_("send-short", gpu0, share_sender, 2, k0);
    sg_actor_create_("recv-short", mem, share_receiver, 2, k0);
    sg_actor_create_("send-long", gpu0, share_sender, 2, k1);
    sg_actor_create_("recv-long", far, share_receiver, 2, k1);
    simgrid_run();
    out->v[0] = share_end_s[0];
    out->v[1] = share_end_s[1];
    out->v[2] = sg_host_get_route_latency(gpu0, mem);
    out->v[3] = sg_host_get_route_latency(gpu0, far);
}

/* CM02, the model hybridsim runs, shares a link between flows in inverse proportion to their
 * routes' latencies (as TCP shares by round-trip time), not equally as PCIe, NVLink and
 * InfiniBand arbitration do per packet. The bound this test pins: the short flow takes the
 * link's 16 GB/s but for a lat_short / lat_long part of it, and the long flow waits for it,
 * 4.0 ms and 9.1 ms where equal shares would end both near 8 ms (sim/README.md, "How a
 * shared link is divided"). */
static void test_sharing_favours_short_routes(void **state)
{
    (void)state;
    case_out o = run_case(child_sharing);
    if (o.status)
        fail_msg("%s", o.err);
    double lat_short = o.v[2], lat_long = o.v[3], pcie_Bps = 16e9, nic_Bps = 12.5e9;
    assert_rel(lat_short, 110e-9, 1e-9);
    assert_true(lat_long > 250 * lat_short);
    /* the short flow: the whole link until the long one starts (after its latency), then the
     * link less the long flow's share, lat_short / (lat_short + lat_long) */
    double short_Bps = pcie_Bps * lat_long / (lat_short + lat_long);
    double alone = pcie_Bps * (lat_long - lat_short);
    assert_rel(o.v[0], lat_long + (SHARE_BYTES - alone) / short_Bps, 1e-6);
    /* the long flow: what it got meanwhile, then the rest at its NICs' rate */
    double got = (pcie_Bps - short_Bps) * (o.v[0] - lat_long);
    assert_rel(o.v[1], o.v[0] + (SHARE_BYTES - got) / nic_Bps, 1e-6);
    printf("sharing: short %.6f ms, long %.6f ms\n", o.v[0] * 1e3, o.v[1] * 1e3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_moving_contention),
        cmocka_unit_test(test_moving_contention_blocks),
        cmocka_unit_test(test_sibling_rings_stay_flows),
        cmocka_unit_test(test_sharing_favours_short_routes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
