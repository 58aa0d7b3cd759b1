/* test_platform_nvlink.c: the NVLink topologies and the what-if presets, loaded into SimGrid.
 *
 * Four machines: a small generated cube mesh (DGX-1V) and a small generated NVSwitch machine,
 * each with its own round link figures so that every route is predicted from the parameters
 * (a pair with 2 links, with 1, with none; a pair through the switch), and the shipped
 * platforms/dgx1.xml and platforms/nvswitch-ndr.xml against the figures of platforms/README.md.
 * The machines of PCIe boards (no NVLink, bridged pairs) are test_platform_pcie.c's.
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

/* The shared checks (platform_helpers.h) on this file's platform. */
static void assert_route(int a, int b, double latency_s, double bw_Bps)
{
    platform_assert_route(&plat, a, b, latency_s, bw_Bps);
}

static void assert_times(transfer *t, int n, const double *latency_s, const double *rate_Bps)
{
    platform_assert_times(&plat, t, n, latency_s, rate_Bps);
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

/* NVLink 2 at 25 GB/s a link, 9 us a hop; between nodes ABCI's latencies, at the 12 GB/s of
 * the GPU's PCIe link (NCCL's Gen3 x16, below EDR's 12.5), and one rack: the farthest GPU is a
 * leaf-rack-leaf crossing away (30.49 us), never the spine. */
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
    assert_route(0, 8, 30.31e-6, 12e9);  /* node 1, same leaf group */
    assert_route(7, 31, 30.31e-6, 12e9); /* node 3: last of leaf group 0 */
    assert_route(0, 32, 30.49e-6, 12e9); /* node 4: leaf group 1 */
    assert_route(0, 1023, 30.49e-6, 12e9);
    /* the GPUs' own PCIe links against the NICs and fabric between (hier's NIC sharing) */
    double ends_Bps = 0, between_Bps = 0;
    assert_int_equal(plat_route_ends(&plat, 0, 8, &ends_Bps, &between_Bps), 0);
    assert_true(ends_Bps == 12e9 && between_Bps == 12.5e9);
    assert_int_equal(plat_route_ends(&plat, 0, 5, &ends_Bps, &between_Bps), -1); /* 2 NVLinks */
}

/* A ring over the 8 GPUs of a node in rank order crosses two unlinked pairs (3 -> 4, 7 -> 0),
 * so its alpha is two hops; its slowest edge is a 1-link pair. Over two nodes, the PCIe link
 * on the way to the EDR NIC. */
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
    assert_true(close_rel(alpha, 30.31e-6, 1e-9) && close_rel(beta, 1 / 12e9, 1e-12));
}

/* Two GPUs per PCIe switch share its EDR NIC; apart, each has its PCIe link's 12 GB/s. */
static void test_dgx1_nic_sharing(void **state)
{
    (void)state;
    const double n = 1e8, lat = 30.31e-6;
    transfer same[2] = {{.src = 0, .dst = 8, .bytes = n}, {.src = 1, .dst = 9, .bytes = n}};
    assert_times(same, 2, (double[]){lat, lat}, (double[]){6.25e9, 6.25e9});
    transfer apart[2] = {{.src = 0, .dst = 8, .bytes = n}, {.src = 6, .dst = 14, .bytes = n}};
    assert_times(apart, 2, (double[]){lat, lat}, (double[]){12e9, 12e9});
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

/* 450 GB/s through the NVSwitch; between nodes the GPU's PCIe link's 48 GB/s (NCCL's Gen5 x16,
 * below NDR's 50) on the way to its NIC; 2 x (110 ns + 15 us) plus 150 ns
 * per switch: leaf (30.37 us), leaf-rack-leaf (30.67), leaf-rack-spine-rack-leaf (30.97). */
static void test_ndr_routes(void **state)
{
    (void)state;
    assert_route(0, 1, 9e-6, 450e9);
    assert_route(0, 7, 9e-6, 450e9);
    assert_route(1021, 1022, 9e-6, 450e9);
    assert_route(0, 8, 30.37e-6, 48e9);     /* node 1 */
    assert_route(0, 32, 30.67e-6, 48e9);    /* node 4: leaf group 1 */
    assert_route(0, 256, 30.97e-6, 48e9);   /* node 32: rack 1 */
    assert_route(3, 1023, 30.97e-6, 48e9);
}

/* Eight GPUs of a node send to the next node at once: each has its own NDR NIC, so each moves
 * its PCIe link's 48 GB/s (two on one NIC would have 25). */
static void test_ndr_nic_per_gpu(void **state)
{
    (void)state;
    const double n = 1e8;
    transfer t[8];
    double lat[8], rate[8];
    for (int g = 0; g < 8; g++) {
        t[g] = (transfer){.src = g, .dst = 8 + g, .bytes = n};
        lat[g] = 30.37e-6;
        rate[g] = 48e9;
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

int main(void)
{
    int failed = 0;
    failed += platform_in_child(group_cube);
    failed += platform_in_child(group_nvswitch);
    failed += platform_in_child(group_dgx1);
    failed += platform_in_child(group_ndr);
    return failed;
}
