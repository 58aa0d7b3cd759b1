/* test_platform_abci.c: platforms/abci.xml loaded once (SimGrid allows one engine per process)
 * and checked against the ParaDL oracle's ABCI figures: GPU count and memory, the four latency
 * tiers (9, 30.31, 30.49, 30.98 us), NVLink 50 GB/s and 12.5 GB/s between nodes, ring costs for
 * p = 4, 8, 128, 256, and simulations: one message alone takes latency + n / bandwidth, two
 * GPUs under one PCIe switch share its NIC, and 68 NICs of a rack sending to another rack get a
 * third each (1:3); its switches are seen at their own bandwidth, which caps no flow. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <simgrid/host.h>
#include <simgrid/link.h>
#include <xbt/sysdep.h>

#include "platcheck.h"
#include "platform.h"
#include "platform_helpers.h"
#include "platgen.h"
#include "units.h"

#define TMP HS_TEST_TMP "/test_platform"

/* ---------------------------------------------------------------- ABCI loaded */

static plat_platform abci;

static int load_abci(void **state)
{
    (void)state;
    return platform_fixture_load(NULL, "abci", &abci);
}

static int free_abci(void **state)
{
    (void)state;
    plat_free(&abci);
    return 0;
}

static void test_abci_facts(void **state)
{
    (void)state;
    assert_string_equal(abci.name, "abci");
    assert_int_equal(abci.n_gpus, 4352);
    assert_int_equal(abci.n_nodes, 1088);
    assert_int_equal(abci.gpus_per_node, 4);
    assert_int_equal(abci.nodes_per_leaf, 17);
    assert_int_equal(abci.nodes_per_rack, 34);
    assert_true(abci.gpu_memory_bytes == 16e9);
    assert_true(abci.gpu_speed_flops == 7.8e12);
    assert_true(abci.staging_latency_s == 3e-3);
    assert_string_equal(abci.gpu_model, "V100-16GB");
}

/* Rank r is GPU r%4 of node r/4, and SimGrid's name-sorted host list has the same order, each
 * node's host memory (nNNNN-cpu) sorting just before its GPUs. */
static void test_abci_rank_order(void **state)
{
    (void)state;
    char want[32];
    sg_host_t *hosts = sg_host_list();
    assert_int_equal(sg_host_count(), 4352 + 1088);
    for (int r = 0; r < abci.n_gpus; r++) {
        snprintf(want, sizeof want, "n%04d-gpu%d", r / 4, r % 4);
        assert_string_equal(sg_host_get_name(abci.gpus[r]), want);
        assert_ptr_equal(hosts[r + r / 4 + 1], abci.gpus[r]);
        snprintf(want, sizeof want, "n%04d-cpu", r / 4);
        assert_string_equal(sg_host_get_name(hosts[r / 4 * 5]), want);
    }
    xbt_free(hosts);
}

static void assert_route(int a, int b, double latency_s, double bw_Bps)
{
    double lat, bw;
    for (int dir = 0; dir < 2; dir++) {
        plat_route(&abci, dir ? b : a, dir ? a : b, &lat, &bw);
        if (!close_rel(lat, latency_s, 1e-12) || bw != bw_Bps) {
            print_error("route %d -> %d: %.17g s %.17g B/s, want %.17g s %.17g B/s\n",
                        dir ? b : a, dir ? a : b, lat, bw, latency_s, bw_Bps);
            fail();
        }
    }
}

/* The oracle's alpha tiers: 9 us over NVLink; 2 x (15 us + 110 ns) plus the switches: one leaf
 * (90 ns), leaf + rack + leaf (270 ns), leaf + rack + spine + rack + leaf (760 ns). */
static void test_abci_route_tiers(void **state)
{
    (void)state;
    assert_route(0, 1, 9e-6, 50e9);
    assert_route(0, 3, 9e-6, 50e9);
    assert_route(4, 7, 9e-6, 50e9);
    assert_route(0, 4, 30.31e-6, 12.5e9);     /* nodes 0, 1 */
    assert_route(1, 67, 30.31e-6, 12.5e9);    /* node 16: last of leaf group 0 */
    assert_route(0, 68, 30.49e-6, 12.5e9);    /* node 17: other leaf group, same rack */
    assert_route(3, 135, 30.49e-6, 12.5e9);   /* node 33: last of rack 0 */
    assert_route(0, 136, 30.98e-6, 12.5e9);   /* node 34: rack 1 */
    assert_route(2, 4351, 30.98e-6, 12.5e9);  /* the last GPU */
    double lat, bw;
    plat_route(&abci, 5, 5, &lat, &bw);
    assert_true(lat == 0 && isinf(bw));
}

static void assert_ring(int p, double alpha_s, double bw_Bps)
{
    int gpu[256];
    double alpha, beta;
    for (int i = 0; i < p; i++)
        gpu[i] = i;
    plat_ring_cost(&abci, gpu, p, &alpha, &beta);
    if (!close_rel(alpha, alpha_s, 1e-12) || !close_rel(beta, 1 / bw_Bps, 1e-15)) {
        print_error("ring of %d: alpha %.17g beta %.17g\n", p, alpha, beta);
        fail();
    }
}

static void test_abci_ring_tiers(void **state)
{
    (void)state;
    assert_ring(4, 9e-6, 50e9);
    assert_ring(8, 30.31e-6, 12.5e9);
    assert_ring(128, 30.49e-6, 12.5e9);
    assert_ring(256, 30.98e-6, 12.5e9);
    double alpha, beta;
    int one = 7;
    plat_ring_cost(&abci, &one, 1, &alpha, &beta);
    assert_true(alpha == 0 && beta == 0);
}

/* One message alone on its route takes exactly latency + bytes / bandwidth: the alpha-beta
 * semantics both the simulator and the analytic model rely on. */
static void test_abci_single_message_is_alpha_beta(void **state)
{
    (void)state;
    int pairs[][2] = {{0, 1}, {0, 4}, {0, 68}, {0, 136}, {4351, 3}};
    double sizes[] = {1e3, 1e8};
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++)
        for (size_t k = 0; k < 2; k++) {
            transfer t = {.src = pairs[i][0], .dst = pairs[i][1], .bytes = sizes[k]};
            double lat, bw;
            run_transfers(&abci, &t, 1);
            plat_route(&abci, t.src, t.dst, &lat, &bw);
            double want = lat + t.bytes / bw;
            if (!close_rel(t.duration_s, want, 1e-9)) {
                print_error("%d -> %d, %g B: %.17g s, want %.17g s\n", t.src, t.dst, t.bytes,
                            t.duration_s, want);
                fail();
            }
        }
}

/* GPUs 0 and 1 sit under one PCIe switch and leave the node through its one NIC; GPU 2 has
 * the other NIC. Cables are full duplex. */
static void test_abci_gpus_share_their_switch_nic(void **state)
{
    (void)state;
    const double n = 1e8, lat = 30.31e-6;
    transfer same[2] = {{.src = 0, .dst = 4, .bytes = n}, {.src = 1, .dst = 5, .bytes = n}};
    run_transfers(&abci, same, 2);
    for (int i = 0; i < 2; i++)
        assert_true(close_rel(same[i].duration_s, lat + 2 * n / 12.5e9, 1e-9));
    transfer apart[2] = {{.src = 0, .dst = 4, .bytes = n}, {.src = 2, .dst = 6, .bytes = n}};
    run_transfers(&abci, apart, 2);
    for (int i = 0; i < 2; i++)
        assert_true(close_rel(apart[i].duration_s, lat + n / 12.5e9, 1e-9));
    /* Full duplex: opposite flows on one cable do not slow each other (no TCP-ack
     * cross-traffic). */
    transfer both_ways[2] = {{.src = 0, .dst = 4, .bytes = n}, {.src = 4, .dst = 0, .bytes = n}};
    run_transfers(&abci, both_ways, 2);
    for (int i = 0; i < 2; i++)
        assert_true(close_rel(both_ways[i].duration_s, lat + n / 12.5e9, 1e-9));
}

/* Every NIC of rack 0 (34 nodes x 2) sends to its twin in rack 1 at once: inside a rack the
 * tree is full bisection, so the rack uplink (68 x 12.5 GB/s / 3) is the bottleneck and each
 * flow gets a third of its NIC. The same flows to the other leaf group of the rack get all. */
static void test_abci_rack_uplink_is_one_to_three(void **state)
{
    (void)state;
    const double n = 1e8;
    transfer t[68];
    for (int node = 0; node < 34; node++)
        for (int k = 0; k < 2; k++) {
            int src = node * 4 + 2 * k;
            t[node * 2 + k] = (transfer){.src = src, .dst = src + 34 * 4, .bytes = n};
        }
    run_transfers(&abci, t, 68);
    for (int i = 0; i < 68; i++)
        if (!close_rel(t[i].duration_s, 30.98e-6 + 3 * n / 12.5e9, 1e-9)) {
            print_error("flow %d: %.17g s\n", i, t[i].duration_s);
            fail();
        }
    for (int node = 0; node < 17; node++)
        for (int k = 0; k < 2; k++) {
            int src = node * 4 + 2 * k;
            t[node * 2 + k] = (transfer){.src = src, .dst = src + 17 * 4, .bytes = n};
        }
    run_transfers(&abci, t, 34);
    for (int i = 0; i < 34; i++)
        assert_true(close_rel(t[i].duration_s, 30.49e-6 + n / 12.5e9, 1e-9));
}

/* A switch faster than every cable caps no flow: SimGrid gets it as a shared link far too fast
 * to fill (not a FATPIPE, whose solve costs the square of its flows: platrouted_sg.hpp), and
 * hybridsim still sees a switch at its own bandwidth, 17 NICs and the leaf uplink: 850 GB/s. */
static void test_abci_switch_is_unfilled_link(void **state)
{
    (void)state;
    sg_link_t sw = sg_link_by_name("l000-switch"), nic = sg_link_by_name("n0000-nic0_UP");
    assert_non_null(sw);
    assert_non_null(nic);
    assert_true(sg_link_is_shared(sw));
    assert_true(sg_link_get_bandwidth(sw) >= 1e3 * 850e9);
    assert_false(plat_link_is_shared(sw));
    assert_true(plat_link_bandwidth_Bps(sw) == 850e9);
    assert_true(plat_link_is_shared(nic));
    assert_true(plat_link_bandwidth_Bps(nic) == 12.5e9);
}

static void test_second_load_is_refused(void **state)
{
    (void)state;
    char err[HS_ERR_LEN] = "";
    plat_platform again;
    assert_int_equal(plat_load("abci", &again, err), HS_EINTERNAL);
    assert_non_null(strstr(err, "one per process"));
}

int main(void)
{
    const struct CMUnitTest loaded[] = {
        cmocka_unit_test(test_abci_facts),
        cmocka_unit_test(test_abci_rank_order),
        cmocka_unit_test(test_abci_route_tiers),
        cmocka_unit_test(test_abci_ring_tiers),
        cmocka_unit_test(test_abci_single_message_is_alpha_beta),
        cmocka_unit_test(test_abci_gpus_share_their_switch_nic),
        cmocka_unit_test(test_abci_rack_uplink_is_one_to_three),
        cmocka_unit_test(test_abci_switch_is_unfilled_link),
        cmocka_unit_test(test_second_load_is_refused),
    };
    return cmocka_run_group_tests_name("platform abci", loaded, load_abci, free_abci);
}
