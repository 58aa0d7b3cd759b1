/* test_analytic.c: every strategy's closed form on the four-layer workload of tiny_workload.h,
 * with links filled by hand, against numbers worked out in the comments; the epoch rule, the
 * memory verdict, and the errors. (test_conformance.c checks the same code against the ParaDL
 * oracle's logs on the real ABCI platform.) */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "analytic.h"
#include "tiny_workload.h"

static wl_layer tiny_layers[4];
static wl_workload tiny;
static an_link stage_link = {1e-5, 1e-9};
static an_links links;

/* Hand-made links: a slow ring, a fast group (NVLink-like), a slow cross-group ring, a staged
 * path with 3 ms start-up at 16 GB/s, 4 GPUs per node. */
static int setup(void **state)
{
    (void)state;
    tiny_workload(&tiny, tiny_layers);
    memset(&links, 0, sizeof links);
    links.ring = (an_link){1e-5, 1e-9};
    links.group = (an_link){2e-6, 2e-10};
    links.across = (an_link){3e-5, 1e-9};
    links.staged = (an_link){3e-3, 6.25e-11};
    links.node_sharing = 4;
    links.stage = &stage_link;
    links.n_stage_links = 1;
    return 0;
}

static void check_close(double got, double want, const char *what)
{
    double tol = 1e-9 * fabs(want) + 1e-15;
    if (fabs(got - want) > tol)
        fail_msg("%s: got %.12g, expected %.12g", what, got, want);
}

/* Run an_model for `text` on p GPUs with batch B (memory limit 50 kB) and check it. */
static hs_estimate run(const char *text, int p, int segments, int64_t batch)
{
    st_strategy st;
    hs_estimate est;
    char err[HS_ERR_LEN];
    if (st_parse(text, p, 2, segments, &st, err) != HS_OK)
        fail_msg("parse %s: %s", text, err);
    st.filter_rs = st.halo_chain = false; /* ParaDL's collectives: the closed forms below */
    if (an_model(&tiny, NULL, &st, batch, &links, 50000, &est, err) != HS_OK)
        fail_msg("%s on %d: %s", text, p, err);
    check_close(est.iteration.exposed_comm_s, est.iteration.comm_s, "exposed = comm");
    check_close(est.iteration.total_s, est.iteration.compute_s + est.iteration.comm_s, "total");
    return est;
}

static void test_serial(void **state)
{
    (void)state;
    hs_estimate e = run("serial", 1, 0, 8);
    /* 8 samples x 12 ms + weight updates 1 + 2 ms = 99 ms; no communication. */
    check_close(e.iteration.compute_s, 0.099, "compute");
    check_close(e.iteration.comm_s, 0, "comm");
    /* 2 * 4 B * (8 * (512 + 394) + 1640) = 8 * 8888 = 71104 B. */
    check_close(e.memory_per_gpu_bytes, 71104, "memory");
    assert_false(e.fits_in_memory);
}

static void test_data(void **state)
{
    (void)state;
    hs_estimate e = run("data", 4, 0, 64);
    /* 16 samples per GPU x 12 ms + 3 ms of updates = 195 ms. */
    check_close(e.iteration.compute_s, 0.195, "compute");
    /* Ring allreduce of 1640 * 4 B over 4: 2 * 3 * (10 us + 6560 / 4 * 1 ns) = 69.84 us. */
    check_close(e.iteration.comm_s, 6.984e-5, "comm");
    /* 8 * (16 * 906 + 1640) = 129088 B > 50 kB. */
    check_close(e.memory_per_gpu_bytes, 129088, "memory");
    assert_false(e.fits_in_memory);
    /* Epoch: D/B = 1000/64 = 15.625 iterations of compute, ceil = 16 of communication. */
    assert_int_equal(e.iterations_per_epoch, 16);
    check_close(e.epoch.compute_s, 0.195 * 15.625, "epoch compute");
    check_close(e.epoch.comm_s, 6.984e-5 * 16, "epoch comm");
    check_close(e.epoch.total_s, 0.195 * 15.625 + 6.984e-5 * 16, "epoch total");
}

static void test_filter_and_channel(void **state)
{
    (void)state;
    static const char *const kinds[] = {"filter", "channel"};
    for (int k = 0; k < 2; k++) {
        hs_estimate e = run(kinds[k], 2, 0, 8);
        /* 8 x (9 ms / 2 + 3 ms) + 1 ms / 2 + 2 ms = 62.5 ms. */
        check_close(e.iteration.compute_s, 0.0625, "compute");
        /* Both convolutions exchange (neither is the last layer): 2 start-ups, 8 x (256 + 128)
         * x 4 B = 12288 B; allgather + allreduce on the group link:
         * 3 * 1 * (2 * 2 us + 12288 / 2 * 0.2 ns) = 15.6864 us. */
        check_close(e.iteration.comm_s, 1.56864e-5, "comm");
        /* Every GPU holds all activations, half the split weights, the replicated ones:
         * 8 * (8 * 906 + 72/2 + 288/2 + 1280) = 69664 B. */
        check_close(e.memory_per_gpu_bytes, 69664, "memory");
    }
}

static void test_data_filter(void **state)
{
    (void)state;
    hs_estimate e = run("data+filter:2x2", 4, 0, 16);
    /* Each group takes 8 samples: as filter on 2 GPUs, 62.5 ms. */
    check_close(e.iteration.compute_s, 0.0625, "compute");
    /* Inside the group as filter: 15.6864 us. Across: each GPU reduces what it holds,
     * 36 + 144 + 1280 = 1460 weights = 5840 B, over 2 groups, 4 rings sharing the uplink:
     * 2 * 1 * (30 us + 5840 / 2 * 4 ns) = 83.36 us. */
    check_close(e.iteration.comm_s, 1.56864e-5 + 8.336e-5, "comm");
    check_close(e.memory_per_gpu_bytes, 69664, "memory");
}

/* data+filter:2x2 at B = 16 in the overlap order (--overlap): the backward as the simulation
 * orders it (analytic/overlap.c). A rank's kernels (4 samples of a split layer, 8 of the
 * others; half of a backward the input gradient, half the weight gradient): L3 bx 4 dw 4 ms,
 * L2 bx 8 dw 8, L1 4, L0 bx 4 dw 4. The filter collectives on the group link (2 us, 0.2 ns/B):
 * L2's output gradient (8 x 128 x 4 B) allreduced in 2 x (2 us + 2048 x 0.2 ns) = 4.8192 us,
 * L0's (8 x 256 x 4 B) in 5.6384 us; the forward's allgathers 2.4096 + 2.8192 = 5.2288 us,
 * exposed. L3's and L2's weight kernels wait behind the next collective and run while it
 * does. Each layer's gradients (5120, 576, 144 B) fill a bucket of their own (1 byte), its
 * allreduce across the 2 groups on the shared uplink (30 us, 4 ns/B): 6e-5 + bytes x 4e-9 s. */
static hs_estimate run_overlap(double bucket_bytes, double cycle_time_s)
{
    st_strategy st;
    hs_estimate est;
    char err[HS_ERR_LEN];
    assert_int_equal(st_parse("data+filter:2x2", 4, 2, 0, &st, err), HS_OK);
    st.filter_rs = st.halo_chain = false;
    st.overlap = true;
    st.bucket_bytes = bucket_bytes;
    st.cycle_time_s = cycle_time_s;
    if (an_model(&tiny, NULL, &st, 16, &links, 50000, &est, err) != HS_OK)
        fail_msg("data+filter:2x2 --overlap: %s", err);
    check_close(est.iteration.compute_s, 0.0625, "compute"); /* as blocking */
    check_close(est.iteration.total_s, est.iteration.compute_s + est.iteration.exposed_comm_s,
                "total");
    return est;
}

static void test_data_filter_overlap(void **state)
{
    (void)state;
    hs_estimate e = run_overlap(1, 0);
    /* Backward, from its start (compute stream c, communication f): L3 bx to 4 ms; L2's
     * collective 4 - 4.0048 ms, L3's dw 4 - 8 ms, its bucket 8 - 8.08048 ms; L2 bx 8 - 16;
     * L1 16 - 20; L0's collective 20 - 20.0056, L2's dw 20 - 28, its bucket 28 - 28.0623;
     * L0's kernels 28 - 36, its bucket 36 - 36.060576 ms: 60.576 us past the kernels. */
    check_close(e.iteration.exposed_comm_s, 5.2288e-6 + 6.0576e-5, "exposed");
    /* The activation terms as blocking, the three buckets' allreduces instead of one. */
    check_close(e.iteration.comm_s, 1.56864e-5 + 8.048e-5 + 6.2304e-5 + 6.0576e-5, "comm");
    /* One bucket (25 MiB) at the end, under a 10 ms cycle counted from the iteration's start:
     * the forward's 24 ms of kernels and 5.2288 us of allgathers, the backward's 36 ms, the
     * allreduce (5840 B: 83.36 us) launched at 70 ms: 10 ms and 83.36 us exposed in all. */
    e = run_overlap(0, 0.01);
    check_close(e.iteration.exposed_comm_s, 0.01 + 8.336e-5, "exposed, cycle");
    check_close(e.iteration.comm_s, 1.56864e-5 + 8.336e-5, "comm, cycle");
}

static void test_spatial(void **state)
{
    (void)state;
    hs_estimate e = run("spatial", 2, 0, 8);
    /* 8 x (9 ms / 2 + 3 ms) + all 3 ms of updates = 63 ms. */
    check_close(e.iteration.compute_s, 0.063, "compute");
    /* Halo, staged at 6.25e-11 s/B shared 2 x 4 ways = 5e-10 s/B: one column of every
     * channel (K = 3) of 8 samples, 4 messages per layer:
     *   L0: 2 ch x 8 rows = 16 elements: 4 * (3 ms + 8 * 16 * 4 * 5e-10) = 12.001024 ms
     *   L2: 4 ch x 8 rows = 32 elements: 4 * (3 ms + 8 * 32 * 4 * 5e-10) = 12.002048 ms
     * Split point L2 (|y| = 128), allgather forward and back at 1.25e-10 s/B:
     *   2 * 1 * (3 ms + 8 * 128 * 4 / 2 * 1.25e-10) = 6.000512 ms
     * Weight allreduce on the group: 2 * (2 us + 6560 / 2 * 0.2 ns) = 5.312 us. */
    check_close(e.iteration.comm_s, 0.012001024 + 0.012002048 + 0.006000512 + 5.312e-6, "comm");
    /* Split layers hold half their activations: (64 + 128) + (128 + 64) = 384, replicated
     * FC 128 + 10 (ReLU in place): 8 * (8 * 522 + 1640) = 46528 B, fits in 50 kB. */
    check_close(e.memory_per_gpu_bytes, 46528, "memory");
    assert_true(e.fits_in_memory);
}

static void test_data_spatial(void **state)
{
    (void)state;
    hs_estimate e = run("data+spatial:2x2", 4, 0, 16);
    check_close(e.iteration.compute_s, 0.063, "compute");
    /* As spatial for 8 samples, plus the allreduce among groups, 8 ways shared:
     * 2 * (30 us + 6560 / 2 * 8 ns) = 112.48 us. */
    check_close(e.iteration.comm_s,
                0.012001024 + 0.012002048 + 0.006000512 + 5.312e-6 + 1.1248e-4, "comm");
    check_close(e.memory_per_gpu_bytes, 46528, "memory");
}

static void test_pipeline(void **state)
{
    (void)state;
    hs_estimate e = run("pipeline", 2, 2, 8);
    /* Stages {L0, L1} (fw 1.5, bw 2.5 ms) and {L2, L3} (fw 3, bw 5 ms, updates 3 ms).
     * 2 micro-batches of 4: 4 x (2 + 2 - 1) x (3 + 5 ms) + 3 ms = 99 ms. */
    check_close(e.iteration.compute_s, 0.099, "compute");
    /* Stage 0 sends L1's output (256 elements) per micro-batch: 10 us + 4 * 256 * 4 * 1 ns
     * = 14.096 us; 2 * (2 + 2 - 2) sends = 56.384 us. */
    check_close(e.iteration.comm_s, 5.6384e-5, "comm");
    /* Stage 1: 8 * (256 + 128) + 288 + 8 * (128 + 10) + 1280 = 5744 elements = 45952 B. */
    check_close(e.memory_per_gpu_bytes, 45952, "memory");
}

static void test_memory_verdict_follows_the_limit(void **state)
{
    (void)state;
    st_strategy st;
    hs_estimate e;
    char err[HS_ERR_LEN];
    assert_int_equal(st_parse("spatial", 2, 2, 0, &st, err), HS_OK);
    assert_int_equal(an_model(&tiny, NULL, &st, 8, &links, 46528, &e, err), HS_OK);
    assert_true(e.fits_in_memory); /* exactly the limit fits */
    assert_int_equal(an_model(&tiny, NULL, &st, 8, &links, 46527, &e, err), HS_OK);
    assert_false(e.fits_in_memory);
}

static void test_more_gpus_less_compute(void **state)
{
    (void)state;
    /* Data parallelism at a fixed batch: compute halves with p, communication grows. */
    hs_estimate a = run("data", 2, 0, 64), b = run("data", 4, 0, 64);
    check_close(a.iteration.compute_s - 0.003, 2 * (b.iteration.compute_s - 0.003), "halves");
    assert_true(b.iteration.comm_s > a.iteration.comm_s);
}

static void test_rejects_what_the_strategy_cannot_do(void **state)
{
    (void)state;
    st_strategy st;
    hs_estimate e;
    char err[HS_ERR_LEN];
    assert_int_equal(st_parse("filter", 8, 4, 0, &st, err), HS_OK);
    assert_int_equal(an_model(&tiny, NULL, &st, 8, &links, 1e9, &e, err), HS_EINPUT);
    assert_non_null(strstr(err, "-g 8"));
    assert_int_equal(st_parse("data", 4, 4, 0, &st, err), HS_OK);
    assert_int_equal(an_model(&tiny, NULL, &st, 6, &links, 1e9, &e, err), HS_EINPUT);
    assert_non_null(strstr(err, "-b 6"));
}

/* an_links_load on the shipped ABCI platform: the oracle's alphas and betas come out of the
 * platform's routes (PARADL-MODEL.md: 9 us / 50 GB/s inside a node; 2 x (15 us + 110 ns) +
 * the switches between nodes at 12.5 GB/s; a halo staged through host memory pays 3 ms and
 * the 110 ns PCIe switch at 16 GB/s). */
static void test_links_from_abci(void **state)
{
    (void)state;
    plat_platform plat;
    st_strategy st;
    an_links ln;
    char err[HS_ERR_LEN];
    if (plat_load("abci", &plat, err) != HS_OK)
        fail_msg("%s", err);
    assert_int_equal(st_parse("data+filter:64x4", 256, plat.gpus_per_node, 0, &st, err), HS_OK);
    assert_int_equal(an_links_load(&plat, &st, &ln, err), HS_OK);
    check_close(ln.group.alpha_s, 9e-6, "NVLink alpha");
    check_close(ln.group.beta_s_per_byte, 1 / 50e9, "NVLink beta");
    /* 256 GPUs = 64 nodes span two racks: the spine (400 ns) and 4 leaf/rack switches. */
    check_close(ln.ring.alpha_s, 30.98e-6, "inter-rack alpha");
    check_close(ln.ring.beta_s_per_byte, 1 / 12.5e9, "EDR beta");
    check_close(ln.across.alpha_s, 30.98e-6, "data-parallel rings' alpha");
    check_close(ln.staged.alpha_s, 3e-3 + 110e-9, "staged alpha");
    check_close(ln.staged.beta_s_per_byte, 1 / 16e9, "PCIe beta");
    assert_int_equal(ln.node_sharing, 4);
    an_links_free(&ln);
    /* 8 GPUs: two nodes under one leaf switch. */
    assert_int_equal(st_parse("data", 8, plat.gpus_per_node, 0, &st, err), HS_OK);
    assert_int_equal(an_links_load(&plat, &st, &ln, err), HS_OK);
    check_close(ln.ring.alpha_s, 30.31e-6, "same-leaf alpha");
    an_links_free(&ln);
    /* Pipeline: one link per stage boundary, NVLink inside the node, EDR across. */
    assert_int_equal(st_parse("pipeline", 6, plat.gpus_per_node, 0, &st, err), HS_OK);
    assert_int_equal(an_links_load(&plat, &st, &ln, err), HS_OK);
    assert_int_equal(ln.n_stage_links, 5);
    check_close(ln.stage[0].alpha_s, 9e-6, "stage 0-1");
    check_close(ln.stage[3].alpha_s, 30.31e-6, "stage 3-4");
    an_links_free(&ln);
    /* More GPUs than the machine has. */
    assert_int_equal(st_parse("data", 8192, plat.gpus_per_node, 0, &st, err), HS_OK);
    assert_int_equal(an_links_load(&plat, &st, &ln, err), HS_EINPUT);
    assert_non_null(strstr(err, "-g 8192"));
    plat_free(&plat);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_serial),
        cmocka_unit_test(test_data),
        cmocka_unit_test(test_filter_and_channel),
        cmocka_unit_test(test_data_filter),
        cmocka_unit_test(test_data_filter_overlap),
        cmocka_unit_test(test_spatial),
        cmocka_unit_test(test_data_spatial),
        cmocka_unit_test(test_pipeline),
        cmocka_unit_test(test_memory_verdict_follows_the_limit),
        cmocka_unit_test(test_more_gpus_less_compute),
        cmocka_unit_test(test_rejects_what_the_strategy_cannot_do),
        cmocka_unit_test(test_links_from_abci),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
