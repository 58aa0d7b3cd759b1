/* test_platform_pcie.c: the generated machines of PCIe boards, loaded into SimGrid.
 *
 * Four small machines of one node shape (two nodes of four GPUs, two a PCIe switch, two CPUs,
 * one NIC a node), each with its own round link figures so that every route is predicted from
 * the parameters: without NVLink (P2P under a switch and across the CPUs), with its boards
 * bridged in pairs, with its GPU pairs and NIC traffic through host memory (--gpu-path host,
 * --nic-path host), and with P2P through a CPU's root capped (--root-p2p-bw). Simulations check
 * what routes alone cannot show: which flows share a link and which a cap holds each alone.
 * SimGrid allows one platform per process, so each machine's group runs in a child process. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "hs_child.h"
#include "platform.h"
#include "platform_helpers.h"
#include "platgen.h"

#define TMP HS_TEST_TMP "/test_platform_pcie"

static pg_params P;
static plat_platform plat;

/* ---------------------------------------------------------------- helpers */

static int write_and_load(const char *path) { return platform_fixture_load(&P, path, &plat); }

static int unload(void **state)
{
    (void)state;
    plat_free(&plat);
    return 0;
}

/* The shared checks (platform_helpers.h) on this file's platform. */
static void assert_route(int a, int b, double latency_s, double bw_Bps)
{
    platform_assert_route(&plat, a, b, latency_s, bw_Bps);
}

static void assert_times(transfer *t, int n, const double *latency_s, const double *rate_Bps)
{
    platform_assert_times(&plat, t, n, latency_s, rate_Bps);
}

/* ---------------------------------------------------------------- no NVLink (PCIe boards) */

/* 2 nodes of 4 GPUs without NVLink, 2 GPUs a PCIe switch (16 GB/s, 100 ns a GPU link), each
 * switch 20 GB/s up to its CPU, the CPUs joined by 12 GB/s and 50 ns; one 8 GB/s NIC a node,
 * on the first switch. */
static void pcie_params(void)
{
    pg_abci(&P);
    P.nodes = 2;
    P.gpus_per_node = 4;
    P.gpus_per_pcie_switch = 2;
    P.nics_per_node = 1;
    P.nodes_per_leaf = 2;
    P.leaves_per_rack = 2;
    P.nvlink_topology = PG_NVLINK_NONE;
    P.pcie_bw_Bps = 16e9;
    P.pcie_latency_s = 100e-9;
    P.pcie_uplink_bw_Bps = 20e9;
    P.cpu_link_bw_Bps = 12e9;
    P.cpu_link_latency_s = 50e-9;
    P.nic_bw_Bps = 8e9;
}

static int setup_pcie(void **state)
{
    (void)state;
    pcie_params();
    return write_and_load(TMP "-pcie.xml");
}

/* Under one switch: P2P through it, two GPU links (NCCL's PATH_PIX). Under switches of two
 * CPUs: up to one CPU, across, down (PATH_SYS), the link between the CPUs the thinnest. */
static void test_pcie_pairs(void **state)
{
    (void)state;
    for (int node = 0; node < 2; node++) {
        int g = node * 4;
        assert_route(g + 0, g + 1, 200e-9, 16e9);
        assert_route(g + 2, g + 3, 200e-9, 16e9);
        for (int a = 0; a < 2; a++)
            for (int b = 2; b < 4; b++)
                assert_route(g + a, g + b, 250e-9, 12e9);
    }
    /* The NIC is on switch 0: GPUs 2 and 3 reach it across the CPUs. */
    double lat = 2 * (100e-9 + 15e-6) + P.leaf_switch_latency_s;
    assert_route(0, 5, lat, 8e9);
    assert_route(2, 6, lat + 2 * 50e-9, 8e9);
}

/* Pairs under their own switches share nothing; pairs across the CPUs share the link between
 * them (and their switches' uplinks). */
static void test_pcie_sharing(void **state)
{
    (void)state;
    const double n = 1e8;
    transfer local[2] = {{.src = 0, .dst = 1, .bytes = n}, {.src = 2, .dst = 3, .bytes = n}};
    assert_times(local, 2, (double[]){200e-9, 200e-9}, (double[]){16e9, 16e9});
    transfer across[2] = {{.src = 0, .dst = 2, .bytes = n}, {.src = 1, .dst = 3, .bytes = n}};
    assert_times(across, 2, (double[]){250e-9, 250e-9}, (double[]){6e9, 6e9});
    transfer duplex[2] = {{.src = 0, .dst = 2, .bytes = n}, {.src = 3, .dst = 1, .bytes = n}};
    assert_times(duplex, 2, (double[]){250e-9, 250e-9}, (double[]){12e9, 12e9});
}

/* A ring over a node in rank order crosses the CPUs (1 -> 2, 3 -> 0): their link sets its
 * alpha and beta. */
static void test_pcie_rings(void **state)
{
    (void)state;
    int gpu[4] = {0, 1, 2, 3};
    double alpha, beta;
    plat_ring_cost(&plat, gpu, 4, &alpha, &beta);
    assert_true(close_rel(alpha, 250e-9, 1e-9) && close_rel(beta, 1 / 12e9, 1e-12));
    plat_ring_cost(&plat, gpu, 2, &alpha, &beta);
    assert_true(close_rel(alpha, 200e-9, 1e-9) && close_rel(beta, 1 / 16e9, 1e-12));
}

/* The same node with its boards bridged in pairs (0-1, 2-3) by 3 links of 20 GB/s, 2 us: a
 * bridged pair over its bridge, every other pair over PCIe as before. */
static int setup_pairs(void **state)
{
    (void)state;
    pcie_params();
    P.nvlink_topology = PG_NVLINK_PAIRS;
    P.nvlink_link_bw_Bps = 20e9;
    P.nvlink_links_per_pair = 3;
    P.nvlink_latency_s = 2e-6;
    return write_and_load(TMP "-pairs.xml");
}

static void test_pairs_routes(void **state)
{
    (void)state;
    assert_route(0, 1, 2e-6, 60e9);
    assert_route(2, 3, 2e-6, 60e9);
    assert_route(4, 5, 2e-6, 60e9);
    assert_route(0, 2, 250e-9, 12e9);
    assert_route(1, 3, 250e-9, 12e9);
    /* a bridged pair's traffic leaves the PCIe links free */
    const double n = 1e8;
    transfer t[2] = {{.src = 0, .dst = 1, .bytes = n}, {.src = 0, .dst = 2, .bytes = n}};
    assert_times(t, 2, (double[]){2e-6, 250e-9}, (double[]){60e9, 12e9});
}

static int group_pairs(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pairs_routes),
    };
    return cmocka_run_group_tests_name("bridged pairs (small)", tests, setup_pairs, unload);
}

static int group_pcie(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pcie_pairs),
        cmocka_unit_test(test_pcie_sharing),
        cmocka_unit_test(test_pcie_rings),
    };
    return cmocka_run_group_tests_name("no NVLink (small)", tests, setup_pcie, unload);
}

/* The no-NVLink node with its GPUs talking through host memory (--gpu-path host) and reaching
 * the NIC that way (--nic-path host), its switches' links to the CPU at 6 GB/s, under the GPU
 * links' 16 and the NIC's 8: every route crosses one, even under one switch, where P2P and
 * GPUDirect RDMA would not; a ring of two under one switch crosses it up and down twice. */
static int setup_host(void **state)
{
    (void)state;
    pcie_params();
    P.pcie_uplink_bw_Bps = 6e9;
    P.gpu_path = PG_GPU_PATH_HOST;
    P.nic_path = PG_NIC_PATH_HOST;
    return write_and_load(TMP "-host.xml");
}

static void test_host_routes(void **state)
{
    (void)state;
    assert_route(0, 1, 200e-9, 6e9);
    assert_route(0, 2, 250e-9, 6e9);
    double lat = 2 * (100e-9 + 15e-6) + P.leaf_switch_latency_s;
    assert_route(0, 4, lat, 6e9);
    assert_route(3, 7, lat + 2 * 50e-9, 6e9);
    const double n = 1e8;
    transfer pair[2] = {{.src = 0, .dst = 1, .bytes = n}, {.src = 1, .dst = 0, .bytes = n}};
    assert_times(pair, 2, (double[]){200e-9, 200e-9}, (double[]){3e9, 3e9});
}

/* The no-NVLink node with P2P through a CPU's root capped at 5 GB/s a flow (--root-p2p-bw):
 * pairs under one switch keep their 16, pairs through the CPUs get 5 each, the cap shared by
 * none (two such flows get 5 each where the CPU link alone would give them 6). */
static int setup_root(void **state)
{
    (void)state;
    pcie_params();
    P.root_p2p_bw_Bps = 5e9;
    return write_and_load(TMP "-root.xml");
}

static void test_root_routes(void **state)
{
    (void)state;
    assert_route(0, 1, 200e-9, 16e9);
    assert_route(0, 2, 250e-9, 5e9);
    const double n = 1e8;
    transfer across[2] = {{.src = 0, .dst = 2, .bytes = n}, {.src = 1, .dst = 3, .bytes = n}};
    assert_times(across, 2, (double[]){250e-9, 250e-9}, (double[]){5e9, 5e9});
    /* the way to the NIC does not cross the root's cap */
    double lat = 2 * (100e-9 + 15e-6) + P.leaf_switch_latency_s;
    assert_route(2, 6, lat + 2 * 50e-9, 8e9);
}

/* pg_check refuses q (HS_EINPUT), naming --root-p2p-bw. */
static void assert_root_refused(const pg_params *q)
{
    char err[HS_ERR_LEN] = "";
    assert_int_equal(pg_check(q, err), HS_EINPUT);
    assert_non_null(strstr(err, "--root-p2p-bw"));
}

/* A root cap that no route would cross is refused by pg_check itself, not only by the flags:
 * every pair over NVLink, every pair through host memory, one switch a node, a bridged pair
 * alone across two switches. */
static void test_root_refused(void **state)
{
    (void)state;
    char err[HS_ERR_LEN];
    pg_params q = P;
    assert_int_equal(pg_check(&q, err), HS_OK);
    q.nvlink_topology = PG_NVLINK_ALL_TO_ALL;
    assert_root_refused(&q);
    q = P;
    q.gpu_path = PG_GPU_PATH_HOST;
    assert_root_refused(&q);
    q = P;
    q.gpus_per_pcie_switch = 4;
    q.cpu_link_bw_Bps = 0;
    assert_root_refused(&q);
    q = P;
    q.nvlink_topology = PG_NVLINK_PAIRS;
    q.gpus_per_node = 2;
    q.gpus_per_pcie_switch = 1;
    assert_root_refused(&q);
    q.gpus_per_node = 4; /* 0 and 2: unbridged, across the switches */
    assert_int_equal(pg_check(&q, err), HS_OK);
}

static int group_root(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_root_routes),
        cmocka_unit_test(test_root_refused),
    };
    return cmocka_run_group_tests_name("P2P through a CPU's root (small)", tests, setup_root,
                                       unload);
}

/* A ring's steps run every edge at once, so its beta is set by the link direction most of its
 * edges cross: the two of a pair under one switch both climb the switch's link to the CPU, and
 * so do 0 -> 1 and 1 -> 2 of the node's ring (2 -> 3 and 3 -> 0 the other switch's), 2/6 GB/s
 * where each edge's own route says 1/6; the ring's edges simulated at once take alpha + n beta,
 * the slowest of them (SimGrid gives the shorter routes a little more than their share). */
static void test_host_rings(void **state)
{
    (void)state;
    int gpu[4] = {0, 1, 2, 3};
    double alpha, beta;
    plat_ring_cost(&plat, gpu, 2, &alpha, &beta);
    assert_true(close_rel(alpha, 200e-9, 1e-9) && close_rel(beta, 2 / 6e9, 1e-12));
    plat_ring_cost(&plat, gpu, 4, &alpha, &beta);
    assert_true(close_rel(alpha, 250e-9, 1e-9) && close_rel(beta, 2 / 6e9, 1e-12));
    const double n = 1e8;
    transfer ring[4] = {{.src = 0, .dst = 1, .bytes = n}, {.src = 1, .dst = 2, .bytes = n},
                        {.src = 2, .dst = 3, .bytes = n}, {.src = 3, .dst = 0, .bytes = n}};
    run_transfers(&plat, ring, 4);
    double step_s = 0;
    for (int i = 0; i < 4; i++)
        step_s = ring[i].duration_s > step_s ? ring[i].duration_s : step_s;
    assert_true(close_rel(step_s, alpha + n * beta, 1e-5)); /* latencies overlap a little */
}

static int group_host(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_host_routes),
        cmocka_unit_test(test_host_rings),
    };
    return cmocka_run_group_tests_name("through host memory (small)", tests, setup_host, unload);
}
/* ---------------------------------------------------------------- main */

int main(void)
{
    int failed = 0;
    failed += platform_in_child(group_pcie);
    failed += platform_in_child(group_pairs);
    failed += platform_in_child(group_host);
    failed += platform_in_child(group_root);
    return failed;
}
