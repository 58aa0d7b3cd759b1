/* test_platform_nvlink.c: the NVLink topologies and the what-if presets, loaded into SimGrid.
 *
 * Six machines: a small generated cube mesh (DGX-1V), a small generated NVSwitch machine, a
 * small one without NVLink (PCIe boards) and the same with its boards bridged in pairs,
 * each with its own round link figures so that every route is predicted from the parameters
 * (a pair with 2 links, with 1, with none; a pair through the switch), and the shipped
 * platforms/dgx1.xml and platforms/nvswitch-ndr.xml against the figures of platforms/README.md.
 * Simulations check what routes alone cannot show: links shared by routes through an
 * intermediate GPU, a non-blocking NVSwitch whose ports are shared, one NIC per GPU.
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

#define TMP HS_TEST_TMP "/test_platform_nvlink"

static pg_params P;
static plat_platform plat;

/* ---------------------------------------------------------------- helpers */

static int write_and_load(const char *path) { return platform_fixture_load(&P, path, &plat); }

static int load_shipped(const char *name) { return platform_fixture_load(NULL, name, &plat); }

static int unload(void **state)
{
    (void)state;
    plat_free(&plat);
    return 0;
}

/* Both directions of the route between GPUs a and b. */
static void assert_route(int a, int b, double latency_s, double bw_Bps)
{
    double lat, bw;
    for (int dir = 0; dir < 2; dir++) {
        int src = dir ? b : a, dst = dir ? a : b;
        plat_route(&plat, src, dst, &lat, &bw);
        if (!close_rel(lat, latency_s, 1e-9) || !close_rel(bw, bw_Bps, 1e-12)) {
            print_error("route %d -> %d: %.17g s %.17g B/s, want %.17g s %.17g B/s\n", src, dst,
                        lat, bw, latency_s, bw_Bps);
            fail();
        }
    }
}

/* Run the transfers at once; each must take latency + bytes / rate_Bps[i]. */
static void assert_times(transfer *t, int n, const double *latency_s, const double *rate_Bps)
{
    run_transfers(&plat, t, n);
    for (int i = 0; i < n; i++) {
        double want = latency_s[i] + t[i].bytes / rate_Bps[i];
        if (!close_rel(t[i].duration_s, want, 1e-9)) {
            print_error("%d -> %d: %.17g s, want %.17g s\n", t[i].src, t[i].dst,
                        t[i].duration_s, want);
            fail();
        }
    }
}

/* ---------------------------------------------------------------- cube mesh, small */

/* The DGX-1V's NVLinks per GPU pair, transcribed here a second time from `nvidia-smi topo -m`
 * on a DGX-1V (NV1, NV2), so that the test checks the generator's table instead of sharing
 * it. */
static const int dgx1v[8][8] = {
    {0, 1, 1, 2, 2, 0, 0, 0}, {1, 0, 2, 1, 0, 2, 0, 0}, {1, 2, 0, 2, 0, 0, 1, 0},
    {2, 1, 2, 0, 0, 0, 0, 1}, {2, 0, 0, 0, 0, 1, 1, 2}, {0, 2, 0, 0, 1, 0, 2, 1},
    {0, 0, 1, 0, 1, 2, 0, 2}, {0, 0, 0, 1, 2, 1, 2, 0},
};

/* 4 nodes of 8 GPUs, 1 leaf group of 2 nodes each, one rack; NVLink 10 GB/s a link, 1 us. */
static int setup_cube(void **state)
{
    (void)state;
    pg_abci(&P);
    P.nodes = 4;
    P.gpus_per_node = 8;
    P.gpus_per_pcie_switch = 2;
    P.nics_per_node = 4;
    P.nodes_per_leaf = 2;
    P.leaves_per_rack = 2;
    P.nvlink_topology = PG_NVLINK_CUBE_MESH;
    P.nvlink_link_bw_Bps = 10e9;
    P.nvlink_latency_s = 1e-6;
    P.pcie_bw_Bps = 16e9;
    P.nic_bw_Bps = 8e9;
    return write_and_load(TMP "-cube.xml");
}

/* The transcription itself: 6 links per GPU, two full quads, and i <-> i+4. */
static void test_cube_table_is_a_dgx1v(void **state)
{
    (void)state;
    for (int a = 0; a < 8; a++) {
        int links = 0;
        for (int b = 0; b < 8; b++) {
            assert_int_equal(dgx1v[a][b], dgx1v[b][a]);
            links += dgx1v[a][b];
            if (a != b && a / 4 == b / 4)
                assert_true(dgx1v[a][b] > 0);
        }
        assert_int_equal(links, 6);
        assert_true(dgx1v[a][(a + 4) % 8] > 0);
    }
}

/* Hand-picked pairs: 2 links, 1 link, 2 and 1 link across the quads, no link. */
static void test_cube_pairs(void **state)
{
    (void)state;
    assert_route(0, 3, 1e-6, 20e9);  /* NV2 in a quad */
    assert_route(0, 1, 1e-6, 10e9);  /* NV1 in a quad */
    assert_route(0, 4, 1e-6, 20e9);  /* NV2 across */
    assert_route(2, 6, 1e-6, 10e9);  /* NV1 across */
    /* No link: one intermediate GPU, two hops. 0 -> 5 has only 1-link hops (via 1 or 4);
     * 0 -> 7 via 4 has two 2-link hops. */
    assert_route(0, 5, 2e-6, 10e9);
    assert_route(0, 7, 2e-6, 20e9);
    assert_route(8 + 1, 8 + 7, 2e-6, 10e9); /* node 1: 1 -> 7 via 3 or 5, 1 link at best */
}

/* Every pair of node 2: a direct link when the DGX-1V has one, else the best two hops. */
static void test_cube_every_pair(void **state)
{
    (void)state;
    int unlinked = 0, base = 16;
    for (int a = 0; a < 8; a++)
        for (int b = a + 1; b < 8; b++) {
            if (dgx1v[a][b]) {
                assert_route(base + a, base + b, 1e-6, dgx1v[a][b] * 10e9);
                continue;
            }
            int best = 0;
            for (int m = 0; m < 8; m++) {
                int thin = dgx1v[a][m] < dgx1v[m][b] ? dgx1v[a][m] : dgx1v[m][b];
                best = thin > best ? thin : best;
            }
            assert_true(best > 0);
            assert_route(base + a, base + b, 2e-6, best * 10e9);
            unlinked++;
        }
    assert_int_equal(unlinked, 12);
}

/* Routes through an intermediate GPU load real links: 0 -> 7 (via 4) and 3 -> 4 (via 0) both
 * cross the 2-link NVLink 0-4 from 0 to 4, and get half of it each; alone, each gets all.
 * Both are two hops, so CM02's latency weighting shares equally. */
static void test_cube_intermediate_hops_share_links(void **state)
{
    (void)state;
    const double n = 1e8;
    transfer alone = {.src = 0, .dst = 7, .bytes = n};
    assert_times(&alone, 1, (double[]){2e-6}, (double[]){20e9});
    transfer both[2] = {{.src = 0, .dst = 7, .bytes = n}, {.src = 3, .dst = 4, .bytes = n}};
    assert_times(both, 2, (double[]){2e-6, 2e-6}, (double[]){10e9, 10e9});
    /* The other direction of NVLink 0-4 is free: 4 -> 0 at full speed beside 0 -> 7. */
    transfer duplex[2] = {{.src = 0, .dst = 7, .bytes = n}, {.src = 4, .dst = 0, .bytes = n}};
    assert_times(duplex, 2, (double[]){2e-6, 1e-6}, (double[]){20e9, 20e9});
}

/* 4 NICs per node on 4 PCIe switches: GPUs 0 and 1 share NIC 0, GPU 2 has NIC 1. */
static void test_cube_nics(void **state)
{
    (void)state;
    const double n = 1e8, lat = 2 * (P.pcie_latency_s + P.nic_latency_s) +
                                P.leaf_switch_latency_s;
    assert_route(0, 8, lat, 8e9);
    transfer same[2] = {{.src = 0, .dst = 8, .bytes = n}, {.src = 1, .dst = 9, .bytes = n}};
    assert_times(same, 2, (double[]){lat, lat}, (double[]){4e9, 4e9});
    transfer apart[2] = {{.src = 0, .dst = 8, .bytes = n}, {.src = 2, .dst = 10, .bytes = n}};
    assert_times(apart, 2, (double[]){lat, lat}, (double[]){8e9, 8e9});
}

static int group_cube(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cube_table_is_a_dgx1v),
        cmocka_unit_test(test_cube_pairs),
        cmocka_unit_test(test_cube_every_pair),
        cmocka_unit_test(test_cube_intermediate_hops_share_links),
        cmocka_unit_test(test_cube_nics),
    };
    return cmocka_run_group_tests_name("cube mesh (small)", tests, setup_cube, unload);
}

/* ---------------------------------------------------------------- NVSwitch, small */

/* 4 nodes of 4 GPUs; 3 links of 20 GB/s per GPU into the switch; 2 us per transfer and 300 ns
 * in the switch; 2 PCIe switches per node with 2 NICs each (one per GPU). */
static int setup_nvswitch(void **state)
{
    (void)state;
    pg_abci(&P);
    P.nodes = 4;
    P.gpus_per_node = 4;
    P.gpus_per_pcie_switch = 2;
    P.nics_per_node = 4;
    P.nodes_per_leaf = 2;
    P.leaves_per_rack = 2;
    P.nvlink_topology = PG_NVLINK_NVSWITCH;
    P.nvlink_link_bw_Bps = 20e9;
    P.nvlink_links_per_gpu = 3;
    P.nvlink_latency_s = 2e-6;
    P.nvswitch_latency_s = 300e-9;
    P.pcie_bw_Bps = 16e9;
    P.nic_bw_Bps = 8e9;
    return write_and_load(TMP "-nvswitch.xml");
}

/* Every pair of a node: one transfer's latency plus the switch's, a GPU's 60 GB/s. */
static void test_nvswitch_pairs(void **state)
{
    (void)state;
    for (int node = 0; node < 4; node++)
        for (int a = 0; a < 4; a++)
            for (int b = a + 1; b < 4; b++)
                assert_route(node * 4 + a, node * 4 + b, 2.3e-6, 60e9);
}

/* Non-blocking: disjoint pairs get full speed; two senders to one GPU share its port. */
static void test_nvswitch_sharing(void **state)
{
    (void)state;
    const double n = 1e8;
    transfer disjoint[2] = {{.src = 0, .dst = 1, .bytes = n}, {.src = 2, .dst = 3, .bytes = n}};
    assert_times(disjoint, 2, (double[]){2.3e-6, 2.3e-6}, (double[]){60e9, 60e9});
    transfer incast[2] = {{.src = 0, .dst = 1, .bytes = n}, {.src = 2, .dst = 1, .bytes = n}};
    assert_times(incast, 2, (double[]){2.3e-6, 2.3e-6}, (double[]){30e9, 30e9});
    transfer duplex[2] = {{.src = 0, .dst = 1, .bytes = n}, {.src = 1, .dst = 0, .bytes = n}};
    assert_times(duplex, 2, (double[]){2.3e-6, 2.3e-6}, (double[]){60e9, 60e9});
}

/* One NIC per GPU: two GPUs of one PCIe switch leave the node at full NIC speed each. */
static void test_nvswitch_nic_per_gpu(void **state)
{
    (void)state;
    const double n = 1e8, lat = 2 * (P.pcie_latency_s + P.nic_latency_s) +
                                P.leaf_switch_latency_s;
    transfer t[2] = {{.src = 0, .dst = 4, .bytes = n}, {.src = 1, .dst = 5, .bytes = n}};
    assert_times(t, 2, (double[]){lat, lat}, (double[]){8e9, 8e9});
}

static int group_nvswitch(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nvswitch_pairs),
        cmocka_unit_test(test_nvswitch_sharing),
        cmocka_unit_test(test_nvswitch_nic_per_gpu),
    };
    return cmocka_run_group_tests_name("nvswitch (small)", tests, setup_nvswitch, unload);
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

static int group_root(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_root_routes),
    };
    return cmocka_run_group_tests_name("P2P through a CPU's root (small)", tests, setup_root,
                                       unload);
}

static int group_host(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_host_routes),
    };
    return cmocka_run_group_tests_name("through host memory (small)", tests, setup_host, unload);
}

/* ---------------------------------------------------------------- platforms/dgx1.xml */

static int setup_dgx1(void **state)
{
    (void)state;
    return load_shipped("dgx1");
}

static void test_dgx1_facts(void **state)
{
    (void)state;
    assert_int_equal(plat.n_gpus, 1024);
    assert_int_equal(plat.n_nodes, 128);
    assert_int_equal(plat.gpus_per_node, 8);
    assert_int_equal(plat.nodes_per_leaf, 4);
    assert_int_equal(plat.nodes_per_rack, 128);
    assert_string_equal(plat.gpu_model, "V100-32GB");
    assert_true(plat.gpu_memory_bytes == 32e9);
}

/* NVLink 2 at 25 GB/s a link, 9 us a hop; EDR between nodes with ABCI's latencies, and one
 * rack: the farthest GPU is a leaf-rack-leaf crossing away (30.49 us), never the spine. */
static void test_dgx1_routes(void **state)
{
    (void)state;
    assert_route(0, 3, 9e-6, 50e9);
    assert_route(0, 1, 9e-6, 25e9);
    assert_route(1, 5, 9e-6, 50e9);
    assert_route(3, 7, 9e-6, 25e9);
    assert_route(0, 5, 18e-6, 25e9);
    assert_route(0, 7, 18e-6, 50e9);
    assert_route(1016, 1023, 18e-6, 50e9); /* the last node's GPUs 0 and 7 */
    assert_route(0, 8, 30.31e-6, 12.5e9);  /* node 1, same leaf group */
    assert_route(7, 31, 30.31e-6, 12.5e9); /* node 3: last of leaf group 0 */
    assert_route(0, 32, 30.49e-6, 12.5e9); /* node 4: leaf group 1 */
    assert_route(0, 1023, 30.49e-6, 12.5e9);
}

/* A ring over the 8 GPUs of a node in rank order crosses two unlinked pairs (3 -> 4, 7 -> 0),
 * so its alpha is two hops; its slowest edge is a 1-link pair. Over two nodes, EDR. */
static void test_dgx1_rings(void **state)
{
    (void)state;
    int gpu[16];
    double alpha, beta;
    for (int i = 0; i < 16; i++)
        gpu[i] = i;
    plat_ring_cost(&plat, gpu, 8, &alpha, &beta);
    assert_true(close_rel(alpha, 18e-6, 1e-9) && close_rel(beta, 1 / 25e9, 1e-12));
    plat_ring_cost(&plat, gpu, 16, &alpha, &beta);
    assert_true(close_rel(alpha, 30.31e-6, 1e-9) && close_rel(beta, 1 / 12.5e9, 1e-12));
}

/* Two GPUs per PCIe switch share its EDR NIC. */
static void test_dgx1_nic_sharing(void **state)
{
    (void)state;
    const double n = 1e8, lat = 30.31e-6;
    transfer same[2] = {{.src = 0, .dst = 8, .bytes = n}, {.src = 1, .dst = 9, .bytes = n}};
    assert_times(same, 2, (double[]){lat, lat}, (double[]){6.25e9, 6.25e9});
    transfer apart[2] = {{.src = 0, .dst = 8, .bytes = n}, {.src = 6, .dst = 14, .bytes = n}};
    assert_times(apart, 2, (double[]){lat, lat}, (double[]){12.5e9, 12.5e9});
}

static int group_dgx1(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dgx1_facts),
        cmocka_unit_test(test_dgx1_routes),
        cmocka_unit_test(test_dgx1_rings),
        cmocka_unit_test(test_dgx1_nic_sharing),
    };
    return cmocka_run_group_tests_name("platforms/dgx1.xml", tests, setup_dgx1, unload);
}

/* ---------------------------------------------------------------- platforms/nvswitch-ndr.xml */

static int setup_ndr(void **state)
{
    (void)state;
    return load_shipped("nvswitch-ndr");
}

static void test_ndr_facts(void **state)
{
    (void)state;
    assert_int_equal(plat.n_gpus, 1024);
    assert_int_equal(plat.n_nodes, 128);
    assert_int_equal(plat.gpus_per_node, 8);
    assert_int_equal(plat.nodes_per_leaf, 4);
    assert_int_equal(plat.nodes_per_rack, 32);
    assert_string_equal(plat.gpu_model, "H100-80GB");
    assert_true(plat.gpu_memory_bytes == 80e9);
}

/* 450 GB/s through the NVSwitch; NDR 50 GB/s between nodes; 2 x (110 ns + 15 us) plus 150 ns
 * per switch: leaf (30.37 us), leaf-rack-leaf (30.67), leaf-rack-spine-rack-leaf (30.97). */
static void test_ndr_routes(void **state)
{
    (void)state;
    assert_route(0, 1, 9e-6, 450e9);
    assert_route(0, 7, 9e-6, 450e9);
    assert_route(1021, 1022, 9e-6, 450e9);
    assert_route(0, 8, 30.37e-6, 50e9);     /* node 1 */
    assert_route(0, 32, 30.67e-6, 50e9);    /* node 4: leaf group 1 */
    assert_route(0, 256, 30.97e-6, 50e9);   /* node 32: rack 1 */
    assert_route(3, 1023, 30.97e-6, 50e9);
}

/* Eight GPUs of a node send to the next node at once: each has its own NDR NIC. */
static void test_ndr_nic_per_gpu(void **state)
{
    (void)state;
    const double n = 1e8;
    transfer t[8];
    double lat[8], rate[8];
    for (int g = 0; g < 8; g++) {
        t[g] = (transfer){.src = g, .dst = 8 + g, .bytes = n};
        lat[g] = 30.37e-6;
        rate[g] = 50e9;
    }
    assert_times(t, 8, lat, rate);
}

static int group_ndr(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ndr_facts),
        cmocka_unit_test(test_ndr_routes),
        cmocka_unit_test(test_ndr_nic_per_gpu),
    };
    return cmocka_run_group_tests_name("platforms/nvswitch-ndr.xml", tests, setup_ndr, unload);
}

/* ---------------------------------------------------------------- main */

/* In the child (hs_child_work): run the group, its result the answer. */
static void group_work(void *arg, void *answer)
{
    int (*const *group)(void) = arg;
    *(int *)answer = (*group)();
    fflush(NULL); /* the child ends with _exit: cmocka's report must not stay in a buffer */
}

/* Run one group in a child process (its own SimGrid engine, hs_child.h); nonzero if it failed
 * or died. */
static int in_child(int (*group)(void))
{
    hs_child_spec s = {.work = group_work, .arg = &group, .answer_bytes = sizeof(int),
                       .what = "a test group"};
    hs_child_end end;
    char err[HS_ERR_LEN];
    int failed = 1;
    if (hs_child_run(&s, &failed, &end, err) != HS_OK) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    if (end.exit_status != 0 || !end.answered || failed) {
        fprintf(stderr, "a test group failed or crashed (exit status %d, signal %d)\n",
                end.exit_status, end.signal);
        return 1;
    }
    return 0;
}

int main(void)
{
    int failed = 0;
    failed += in_child(group_cube);
    failed += in_child(group_nvswitch);
    failed += in_child(group_pcie);
    failed += in_child(group_pairs);
    failed += in_child(group_host);
    failed += in_child(group_root);
    failed += in_child(group_dgx1);
    failed += in_child(group_ndr);
    return failed;
}
