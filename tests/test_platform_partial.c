/* test_platform_partial.c: generated machines whose node count the tree's levels do not divide
 * (platgen.h): the last leaf group and the last rack partly filled, as on real machines.
 *
 * gen:abci:nodes=64 is 4 leaf groups of 17, 17, 17 and 13 nodes in racks of 34 and 30;
 * gen:nvswitch-ndr:nodes=8 one rack holding 2 of its 8 leaf groups. Checked without SimGrid:
 * the zones the XML holds, every route between sampled GPUs the same (links' latency and
 * bottleneck) as on the smallest full machine holding them (a partly filled level keeps a
 * full one's switches and uplinks), the three latency tiers of ABCI's tree, placement (packed,
 * spread dealing nodes over racks until the partial one runs out, scatter), and the analytic
 * model's alpha and beta and its estimate equal to the full machine's on the same GPUs (spread
 * places 256 ranks on other GPUs of the two).
 * test_platform_gen checks SimGrid's routes on these machines (XML, in memory, two racks) and
 * tests/e2e_partial.sh simulates on them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analytic.h"
#include "placement.h"
#include "platform.h"
#include "platgen.h"
#include "strategy.h"
#include "workload.h"

static void open_spec(const char *spec, plat_platform *plat)
{
    char err[HS_ERR_LEN];
    if (plat_open(spec, plat, err) != HS_OK) {
        print_error("%s: %s\n", spec, err);
        fail();
    }
}

/* Occurrences of needle in text. */
static int count(const char *text, const char *needle)
{
    int n = 0;
    for (const char *t = strstr(text, needle); t; t = strstr(t + 1, needle))
        n++;
    return n;
}

/* The XML the generator writes for p (through a file: open_memstream's buffer confuses GCC's
 * dangling-pointer analysis). */
static char *xml_of(const pg_params *p)
{
    char err[HS_ERR_LEN];
    const char *path = HS_TEST_TMP "/test_platform_partial.xml";
    assert_int_equal(pg_write_file(p, path, err), HS_OK);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char *text = calloc(1 << 22, 1);
    assert_non_null(text);
    size_t n = fread(text, 1, (1 << 22) - 1, f);
    assert_true(n > 0 && n < (1 << 22) - 1);
    fclose(f);
    return text;
}

static void test_layout(void **state)
{
    (void)state;
    plat_platform plat;
    open_spec("gen:abci:nodes=64", &plat);
    assert_int_equal(plat.n_gpus, 256);
    assert_int_equal(pg_racks(plat.gen), 2);
    int leaf_nodes[] = {17, 17, 17, 13, 0};
    for (int l = 0; l < 5; l++)
        assert_int_equal(pg_leaf_nodes(plat.gen, l), leaf_nodes[l]);
    assert_int_equal(pg_rack_nodes(plat.gen, 0), 34);
    assert_int_equal(pg_rack_nodes(plat.gen, 1), 30);
    assert_int_equal(pg_rack_of_gpu(plat.gen, 255), 1);
    assert_int_equal(pl_racks(&plat), 2);
    assert_int_equal(pl_rack_nodes(&plat, 1), 30);
    char *xml = xml_of(plat.gen);
    assert_int_equal(count(xml, "<zone id=\"n0"), 64);
    assert_int_equal(count(xml, "-gpu3\" speed"), 64);
    assert_int_equal(count(xml, "-switch\" bandwidth"), 4 + 2 + 1); /* leaves, racks, spine */
    assert_int_equal(count(xml, "<zone id=\"r0"), 2 * 2); /* each rack and its "-sw" zone */
    assert_non_null(strstr(xml, "<zone id=\"l003\""));
    assert_null(strstr(xml, "n0064"));
    free(xml);
    plat_free(&plat);

    open_spec("gen:nvswitch-ndr:nodes=8", &plat);
    assert_int_equal(plat.n_gpus, 64);
    assert_int_equal(pg_racks(plat.gen), 1);
    assert_int_equal(pg_leaf_nodes(plat.gen, 1), 4);
    assert_int_equal(pg_rack_nodes(plat.gen, 0), 8);
    plat_free(&plat);
}

/* Every route among `gpus` on the partial machine is the full one's, to the bit. */
static void same_routes(const char *partial, const char *full, const int *gpus, int n)
{
    plat_platform a, b;
    open_spec(partial, &a);
    open_spec(full, &b);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            double la, ba, lb, bb;
            plat_route(&a, gpus[i], gpus[j], &la, &ba);
            plat_route(&b, gpus[i], gpus[j], &lb, &bb);
            if (la != lb || ba != bb) {
                print_error("%s: %d>%d: %a s %a B/s, %s: %a %a\n", partial, gpus[i], gpus[j],
                            la, ba, full, lb, bb);
                fail();
            }
        }
    plat_free(&a);
    plat_free(&b);
}

static void test_routes_as_on_a_full_machine(void **state)
{
    (void)state;
    /* GPUs 0 and 3 of nodes in every leaf group, the partial one's first and last */
    int abci[] = {0, 3, 64, 68, 135, 136, 204, 207, 208, 255};
    same_routes("gen:abci:nodes=64", "gen:abci:nodes=68", abci, 10);
    same_routes("gen:abci:nodes=40", "gen:abci:nodes=68", (int[]){0, 68, 132, 136, 159}, 5);
    int ndr[] = {0, 7, 8, 31, 32, 63};
    same_routes("gen:nvswitch-ndr:nodes=8", "gen:nvswitch-ndr:nodes=32", ndr, 6);

    /* ABCI's three tiers between nodes: PCIe 110 ns and NIC 15 us at both ends and the leaf
     * switch 90 ns; across leaf groups + the other leaf switch and the rack switch; across
     * racks + the other rack switch and the spine's 400 ns. The bottleneck is a NIC. */
    plat_platform plat;
    open_spec("gen:abci:nodes=64", &plat);
    double lat, bw;
    plat_route(&plat, 204, 255, &lat, &bw); /* inside the partial leaf group */
    assert_float_equal(lat, 30.31e-6, 1e-12);
    assert_float_equal(bw, 12.5e9, 1);
    plat_route(&plat, 136, 255, &lat, &bw); /* rack 1's two leaf groups */
    assert_float_equal(lat, 30.49e-6, 1e-12);
    plat_route(&plat, 0, 255, &lat, &bw); /* across the racks */
    assert_float_equal(lat, 30.98e-6, 1e-12);
    assert_float_equal(bw, 12.5e9, 1);
    plat_free(&plat);
}

static void place(const plat_platform *plat, pl_kind kind, int n, int *gpu)
{
    char err[HS_ERR_LEN];
    if (pl_place(plat, kind, n, gpu, err) != HS_OK) {
        print_error("%s, %s, %d ranks: %s\n", plat->name, pl_kind_name(kind), n, err);
        fail();
    }
}

/* Spread deals whole nodes over the racks, one from each in turn; a partly filled rack runs
 * out first and the others go on. */
static void test_placement(void **state)
{
    (void)state;
    plat_platform plat;
    int gpu[320], used[320];
    char err[HS_ERR_LEN];
    open_spec("gen:abci:nodes=80", &plat); /* racks of 34, 34 and 12 nodes */
    place(&plat, PL_SPREAD, 320, gpu);
    memset(used, 0, sizeof used);
    for (int r = 0; r < 320; r++) {
        assert_in_range(gpu[r], 0, 319);
        assert_int_equal(used[gpu[r]]++, 0);
        assert_int_equal(gpu[r] % 4, r % 4); /* a node's GPUs stay together */
    }
    for (int k = 0; k < 80; k++) { /* the job's node k */
        int node = gpu[4 * k] / 4, rack = node / 34;
        int want = k < 36 ? k % 3 : (k - 36) % 2; /* 12 rounds of 3 racks, then 2 */
        assert_int_equal(rack, want);
    }
    assert_int_equal(gpu[4 * 2] / 4, 68);   /* rack 2's first node, third */
    assert_int_equal(gpu[4 * 35] / 4, 79);  /* and its last, the 36th */
    place(&plat, PL_PACKED, 320, gpu);
    for (int r = 0; r < 320; r++)
        assert_int_equal(gpu[r], r);
    place(&plat, PL_SCATTER, 80, gpu);
    for (int r = 0; r < 80; r++)
        assert_int_equal(gpu[r], 4 * r);
    assert_int_equal(pl_place(&plat, PL_SCATTER, 81, gpu, err), HS_EINPUT);
    assert_non_null(strstr(err, "only 80 nodes"));
    assert_int_equal(pl_place(&plat, PL_SPREAD, 321, gpu, err), HS_EINPUT);
    assert_non_null(strstr(err, "only 320 GPUs"));
    plat_free(&plat);

    open_spec("gen:nvswitch-ndr:nodes=8", &plat); /* one rack: spread is packed */
    place(&plat, PL_SPREAD, 64, gpu);
    for (int r = 0; r < 64; r++)
        assert_int_equal(gpu[r], r);
    plat_free(&plat);
}

/* The model's alpha and beta come from the placed GPUs' routes: the same tiers as on the full
 * machine, and the same estimate. */
static void test_analytic(void **state)
{
    (void)state;
    char err[HS_ERR_LEN];
    wl_workload wl;
    assert_int_equal(wl_load("resnet50", &wl, err), HS_OK);
    plat_platform part, full;
    open_spec("gen:abci:nodes=64", &part);
    open_spec("gen:abci:nodes=68", &full);
    st_strategy st;
    struct { const char *strategy; int p; double across_alpha_s; } cases[] = {
        {"data", 68, 30.31e-6},           /* 17 nodes: leaf group 0 */
        {"data", 136, 30.49e-6},          /* 34 nodes: both leaf groups of rack 0 */
        {"data", 256, 30.98e-6},          /* across the racks */
        {"data+filter:64x4", 256, 30.98e-6},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        assert_int_equal(st_parse(cases[i].strategy, cases[i].p, 4, 0, &st, err), HS_OK);
        an_links lp, lf;
        assert_int_equal(an_links_load(&part, &st, &lp, err), HS_OK);
        assert_int_equal(an_links_load(&full, &st, &lf, err), HS_OK);
        assert_float_equal(lp.across.alpha_s, cases[i].across_alpha_s, 1e-12);
        assert_true(lp.across.alpha_s == lf.across.alpha_s);
        assert_true(lp.across.beta_s_per_byte == lf.across.beta_s_per_byte);
        assert_true(lp.group.alpha_s == lf.group.alpha_s);
        assert_true(lp.group.beta_s_per_byte == lf.group.beta_s_per_byte);
        an_links_free(&lp);
        an_links_free(&lf);
        hs_estimate ep, ef;
        int64_t batch = 64 * cases[i].p;
        static int gp[256], gf[256];
        for (int k = 0; k < PL_KIND_COUNT; k++) {
            if (k == PL_SCATTER)
                continue; /* 256 ranks, 64 nodes */
            /* Spread deals 256 ranks' nodes 30 + 34 over racks of 30 and 34, 32 + 32 over two
             * of 34: other GPUs, whose ring crosses the racks' uplinks other times. */
            place(&part, (pl_kind)k, cases[i].p, gp);
            place(&full, (pl_kind)k, cases[i].p, gf);
            if (memcmp(gp, gf, (size_t)cases[i].p * sizeof *gp) != 0) {
                assert_true(k == PL_SPREAD && cases[i].p == 256);
                continue;
            }
            assert_int_equal(
                an_estimate_on(&wl, NULL, &part, &st, batch, (pl_kind)k, &ep, NULL, err), HS_OK);
            assert_int_equal(
                an_estimate_on(&wl, NULL, &full, &st, batch, (pl_kind)k, &ef, NULL, err), HS_OK);
            assert_true(ep.iteration.total_s == ef.iteration.total_s);
        }
    }
    plat_free(&part);
    plat_free(&full);
    wl_free(&wl);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_layout),
        cmocka_unit_test(test_routes_as_on_a_full_machine),
        cmocka_unit_test(test_placement),
        cmocka_unit_test(test_analytic),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
