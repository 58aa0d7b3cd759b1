/* test_platform_small.c: a small generated machine, 2 racks x 2 leaf groups x 2 nodes x 2 GPUs,
 * with a different latency on every kind of link, so that every route's latency and bandwidth
 * can be predicted from the parameters alone (no number here is copied from the file):
 * one NIC per GPU, 1:2 leaf uplinks, 1:8 rack uplinks, and a 1 ms cable to the spine (a
 * long-haul what-if, where SimGrid's default TCP window would cap the rate: it must not).
 * Simulations check the uplinks' oversubscription. A separate program from test_platform.c
 * because SimGrid allows one platform per process. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "platform.h"
#include "platform_helpers.h"
#include "platgen.h"

#define PATH HS_TEST_TMP "/test_platform_small.xml"

static pg_params P;
static plat_platform plat;

static int setup(void **state)
{
    (void)state;
    pg_abci(&P);
    P.nodes = 8;
    P.gpus_per_node = 2;
    P.gpus_per_pcie_switch = 1;
    P.nodes_per_leaf = 2;
    P.leaves_per_rack = 2;
    P.gpu_model = "TestGPU";
    P.gpu_memory_bytes = 1e9;
    P.gpu_speed_flops = 1e12;
    P.nvlink_bw_Bps = 40e9;
    P.nvlink_latency_s = 1e-6;
    P.pcie_bw_Bps = 16e9;
    P.pcie_latency_s = 100e-9;
    P.nic_bw_Bps = 10e9;
    P.nic_latency_s = 2e-6;
    P.leaf_switch_latency_s = 10e-9;
    P.leaf_latency_s = 20e-9;
    P.rack_switch_latency_s = 40e-9;
    P.spine_latency_s = 1e-3;
    P.spine_switch_latency_s = 160e-9;
    P.leaf_oversub = 2;
    P.rack_oversub = 8;
    P.staging_latency_s = 1e-3;
    return platform_fixture_load(&P, PATH, &plat);
}

static int teardown(void **state)
{
    (void)state;
    plat_free(&plat);
    return 0;
}

/* Uplink bandwidths as the generator defines them: what the level below can send divided by
 * the oversubscription (2 nodes x 2 NICs x 10 GB/s / 2 = 20 GB/s; 2 x 20 / 8 = 5 GB/s). */
static double leaf_uplink_Bps(void)
{
    return P.nodes_per_leaf * (P.gpus_per_node / P.gpus_per_pcie_switch) * P.nic_bw_Bps /
           P.leaf_oversub;
}

static double rack_uplink_Bps(void)
{
    return P.leaves_per_rack * leaf_uplink_Bps() / P.rack_oversub;
}

/* The route between two GPUs, predicted from the parameters. */
static void expected(int a, int b, double *lat, double *bw)
{
    int na = a / P.gpus_per_node, nb = b / P.gpus_per_node;
    int la = na / P.nodes_per_leaf, lb = nb / P.nodes_per_leaf;
    int ra = la / P.leaves_per_rack, rb = lb / P.leaves_per_rack;
    if (na == nb) {
        *lat = P.nvlink_latency_s;
        *bw = P.nvlink_bw_Bps;
        return;
    }
    *lat = 2 * (P.pcie_latency_s + P.nic_latency_s) + P.leaf_switch_latency_s;
    *bw = fmin(P.pcie_bw_Bps, P.nic_bw_Bps);
    if (la == lb)
        return;
    *lat += P.leaf_switch_latency_s + 2 * P.leaf_latency_s + P.rack_switch_latency_s;
    *bw = fmin(*bw, leaf_uplink_Bps());
    if (ra == rb)
        return;
    *lat += P.rack_switch_latency_s + 2 * P.spine_latency_s + P.spine_switch_latency_s;
    *bw = fmin(*bw, rack_uplink_Bps());
}

static void test_facts(void **state)
{
    (void)state;
    assert_int_equal(plat.n_gpus, 16);
    assert_int_equal(plat.n_nodes, 8);
    assert_int_equal(plat.gpus_per_node, 2);
    assert_int_equal(plat.nodes_per_leaf, 2);
    assert_int_equal(plat.nodes_per_rack, 4);
    assert_string_equal(plat.gpu_model, "TestGPU");
    assert_string_equal(plat.name, "test_platform_small");
    assert_true(plat.gpu_memory_bytes == 1e9);
    assert_true(plat.gpu_speed_flops == 1e12);
    assert_true(plat.staging_latency_s == 1e-3);
}

/* All 240 ordered pairs: latency and bandwidth as predicted. */
static void test_every_route(void **state)
{
    (void)state;
    for (int a = 0; a < plat.n_gpus; a++)
        for (int b = 0; b < plat.n_gpus; b++) {
            double lat, bw, want_lat, want_bw;
            if (a == b)
                continue;
            plat_route(&plat, a, b, &lat, &bw);
            expected(a, b, &want_lat, &want_bw);
            if (!close_rel(lat, want_lat, 1e-12) || !close_rel(bw, want_bw, 1e-15)) {
                print_error("%d -> %d: %.17g s %.17g B/s, want %.17g s %.17g B/s\n", a, b, lat,
                            bw, want_lat, want_bw);
                fail();
            }
        }
}

/* One message per tier, alone: latency + n / bandwidth, even over the 1 ms spine cable. */
static void test_single_messages(void **state)
{
    (void)state;
    int dst[] = {1, 2, 4, 8, 15};
    for (size_t i = 0; i < sizeof dst / sizeof dst[0]; i++) {
        transfer t = {.src = 0, .dst = dst[i], .bytes = 5e8};
        double lat, bw;
        run_transfers(&plat, &t, 1);
        expected(t.src, t.dst, &lat, &bw);
        if (!close_rel(t.duration_s, lat + t.bytes / bw, 1e-9)) {
            print_error("0 -> %d: %.17g s, want %.17g s\n", t.dst, t.duration_s,
                        lat + t.bytes / bw);
            fail();
        }
    }
}

/* The 4 NICs of leaf group 0 send to leaf group 1 (same rack), then to rack 1: they share the
 * 20 GB/s leaf uplink (5 GB/s each), then the 5 GB/s rack uplink (1.25 GB/s each). */
static void test_uplinks_are_shared(void **state)
{
    (void)state;
    const double n = 1e8;
    for (int far = 0; far < 2; far++) {
        transfer t[4];
        int offset = far ? 8 : 4; /* GPUs of node 4 (rack 1) or node 2 (leaf 1) onwards */
        double lat, bw;
        for (int i = 0; i < 4; i++)
            t[i] = (transfer){.src = i, .dst = i + offset, .bytes = n};
        run_transfers(&plat, t, 4);
        expected(0, offset, &lat, &bw);
        double share = (far ? rack_uplink_Bps() : leaf_uplink_Bps()) / 4;
        for (int i = 0; i < 4; i++)
            if (!close_rel(t[i].duration_s, lat + n / share, 1e-9)) {
                print_error("%s flow %d: %.17g s, want %.17g s\n", far ? "rack" : "leaf", i,
                            t[i].duration_s, lat + n / share);
                fail();
            }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_facts),
        cmocka_unit_test(test_every_route),
        cmocka_unit_test(test_single_messages),
        cmocka_unit_test(test_uplinks_are_shared),
    };
    return cmocka_run_group_tests_name("small platform", tests, setup, teardown);
}
