/* test_collective.c: the shapes both derivations build their allreduces from (collective.h):
 * NCCL's double binary tree (a tree over every node, the two trees complementary), the load it
 * puts on a node's NIC, the pipeline's chunks, NCCL 2.4's choice of its rings or tree against
 * the thresholds worked out by hand from NCCL's constants (issue research, 4-GPU nodes with two
 * NICs: 7.7, 18.4, 40.5, 85.7 and 360 MB at 32 to 1024 GPUs), and how many rings it runs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "collective.h"

/* Tree t over n nodes: children name their parent, one root, every node reaches it. */
static void check_tree(int t, int n)
{
    int roots = 0;
    for (int r = 0; r < n; r++) {
        int up, c[2];
        co_btree(t, n, r, &up, &c[0], &c[1]);
        roots += up < 0;
        for (int i = 0; i < 2; i++) {
            if (c[i] < 0)
                continue;
            assert_true(c[i] < n && c[i] != r);
            int cu, x, y;
            co_btree(t, n, c[i], &cu, &x, &y);
            assert_int_equal(cu, r);
        }
        int steps = 0;
        for (int v = r; up >= 0 && steps <= n; steps++) {
            v = up;
            co_btree(t, n, v, &up, &c[0], &c[1]);
        }
        assert_true(steps <= n); /* no cycle */
    }
    assert_int_equal(roots, 1);
}

static void trees_are_trees(void **state)
{
    (void)state;
    for (int n = 1; n <= 70; n++)
        for (int t = 0; t < 2; t++)
            check_tree(t, n);
}

/* With an even number of nodes no node has children in both trees (NCCL's point: each node
 * sends and receives about as much as in a ring), so a NIC carries two halves at once. */
static void trees_complement(void **state)
{
    (void)state;
    for (int n = 4; n <= 256; n += 2) {
        for (int r = 0; r < n; r++) {
            int inner = 0;
            for (int t = 0; t < 2; t++) {
                int up, c0, c1;
                co_btree(t, n, r, &up, &c0, &c1);
                inner += c0 >= 0 || c1 >= 0;
            }
            assert_true(inner <= 1);
        }
        assert_int_equal(co_tree_node_share(n), 2);
    }
    assert_int_equal(co_tree_node_share(2), 1); /* two nodes: each tree one edge, opposite ways */
    assert_int_equal(co_tree_node_share(1), 0);
    assert_int_equal(co_btree_depth(0, 256), 8); /* root, its one child, then 7 levels */
    assert_int_equal(co_btree_depth(0, 4), 2);
}

static void chunks(void **state)
{
    (void)state;
    assert_int_equal(co_tree_chunks(0), 1);
    assert_int_equal(co_tree_chunks(2 * CO_TREE_CHUNK_BYTES), 1);
    assert_int_equal(co_tree_chunks(2 * CO_TREE_CHUNK_BYTES + 1), 2);
    assert_int_equal(co_tree_chunks(90.9e6), 87); /* 45.45 MB a tree in 512 KiB chunks */
}

/* Just under NCCL's threshold the tree, just over it its rings (one ring: CO_RING). */
static void expect_threshold(int n, int nodes, int nics, double mb)
{
    co_algo ring = co_ring_count(n / nodes, nodes, nics) > 1 ? CO_RINGS : CO_RING;
    assert_int_equal(co_nccl_choice(n, nodes, nics, mb * 0.999e6), CO_TREE);
    assert_int_equal(co_nccl_choice(n, nodes, nics, mb * 1.001e6), ring);
}

static void nccl_choice(void **state)
{
    (void)state;
    expect_threshold(32, 8, 2, 7.74);
    expect_threshold(64, 16, 2, 18.36);
    expect_threshold(128, 32, 2, 40.5);
    expect_threshold(256, 64, 2, 85.68);
    expect_threshold(1024, 256, 2, 360.36);
    expect_threshold(16, 16, 2, 0.9); /* one GPU a node: one ring, two channels */
    assert_int_equal(co_nccl_choice(8, 1, 2, 1e3), CO_RING); /* one node: always the ring */
    assert_int_equal(co_nccl_choice(32, 8, 2, 1e9), CO_RINGS); /* 4 GPUs, 2 NICs: two rings */
    assert_int_equal(co_nccl_choice(8, 2, 2, 1e12), CO_TREE); /* two nodes: tree bandwidth x2 */
}

/* A ring per two of a node's members, at most one per NIC, dividing the members; one node or
 * one member a node: the ring. */
static void ring_count(void **state)
{
    (void)state;
    assert_int_equal(co_ring_count(4, 8, 2), 2);   /* abci: 4 GPUs, 2 NICs */
    assert_int_equal(co_ring_count(8, 8, 4), 4);   /* dgx1 */
    assert_int_equal(co_ring_count(8, 8, 8), 4);   /* nvswitch-ndr: NCCL 2.4's two per ring */
    assert_int_equal(co_ring_count(2, 8, 2), 1);   /* two GPUs: one ring enters and leaves */
    assert_int_equal(co_ring_count(6, 8, 4), 3);   /* 3 would be 6/2: divides */
    assert_int_equal(co_ring_count(10, 8, 4), 2);  /* 4 does not divide 10, nor 3: 2 */
    assert_int_equal(co_ring_count(4, 1, 2), 1);   /* one node */
    assert_int_equal(co_ring_count(1, 8, 2), 1);
    assert_int_equal(co_ring_count(64, 8, 32), CO_RINGS_MAX); /* 32 would be one a NIC */
    /* where each channel enters a node, and the pairs that carry one channel fewer */
    assert_int_equal(co_channel_entry(1, 4, 2), 2);   /* abci: rings enter at GPUs 0 and 2 */
    assert_int_equal(co_channel_entry(3, 8, 4), 6);   /* dgx1: 0, 2, 4, 6 */
    assert_true(co_channel_enters_at(2, 4, 2) && !co_channel_enters_at(1, 4, 2));
    assert_true(co_channel_enters_at(0, 4, 1) && !co_channel_enters_at(3, 4, 1));
}

static void names(void **state)
{
    (void)state;
    co_algo a;
    assert_int_equal(co_algo_parse("tree", &a), 0);
    assert_int_equal(a, CO_TREE);
    assert_int_equal(co_algo_parse("Tree", &a), -1);
    assert_int_equal(co_algo_parse("rings", &a), 0);
    assert_int_equal(a, CO_RINGS);
    assert_string_equal(co_algo_name(CO_HIER), "hier");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(trees_are_trees), cmocka_unit_test(trees_complement),
        cmocka_unit_test(chunks), cmocka_unit_test(nccl_choice), cmocka_unit_test(ring_count),
        cmocka_unit_test(names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
