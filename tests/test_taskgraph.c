/* test_taskgraph.c: ranks that run the same tasks share one list (taskgraph.h: tg_share,
 * tg_borrow), and sharing never lets one rank's change reach another.
 *
 * Checked: equal lists are shared and unequal ones (one field apart) are not; a rank borrowing
 * a list gets a copy of its own when a task is added to it, the lender refuses to grow; lists
 * stay correct through tg_shrink (which moves arrays) and tg_append (several jobs' graphs); a
 * task naming a slot reads its own rank's (tg_peer), a slot that does not exist reads -1, and
 * tg_append writes what the slots hold; the expansion shares data parallelism's and
 * data+filter's lists (one array for all ranks) and data+spatial's by role (test_expand checks
 * every rank's tasks, shared or not). tg_free frees each array once (the sanitized build would
 * see a double free). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <math.h>
#include <string.h>

#include <cmocka.h>

#include "expand.h"
#include "taskgraph.h"

#define assert_close(a, b) assert_close_at((a), (b), __FILE__, __LINE__)
#include "expand_helpers.h"

static tg_task exec_task(double s) { return (tg_task){.op = TG_EXEC, .layer = 0, .after = -1,
                                                      .amount = s}; }

/* n ranks, each with the tasks 1 s, 2 s, 3 s (rank `odd` with 2.5 s in the middle). */
static void fill(tg_graph *g, int n, int odd)
{
    assert_int_equal(tg_init(g, n, NULL), HS_OK);
    for (int r = 0; r < n; r++)
        for (int i = 1; i <= 3; i++)
            assert_true(tg_add(g, r, exec_task(r == odd && i == 2 ? 2.5 : i)) >= 0);
}

static void test_share(void **state)
{
    (void)state;
    tg_graph g;
    fill(&g, 5, 3);
    assert_int_equal(tg_share(&g, 0), 0);   /* no rank before */
    assert_int_equal(tg_share(&g, 1), 1);
    assert_int_equal(tg_share(&g, 2), 1);   /* from rank 1, which borrows rank 0's */
    assert_int_equal(tg_share(&g, 3), 0);   /* one amount apart */
    assert_int_equal(tg_share(&g, 4), 0);   /* equal to 0..2, but not to rank 3 before it */
    assert_ptr_equal(g.ranks[2].tasks, g.ranks[0].tasks);
    assert_int_equal(g.ranks[2].owner, 0);
    assert_int_equal(tg_lists(&g), 3);
    assert_true(g.ranks[0].lent);
    assert_int_equal(tg_add(&g, 0, exec_task(4)), -1); /* lent: cannot grow */
    /* a borrower that grows gets a copy: the others keep the three tasks */
    assert_int_equal(tg_add(&g, 1, exec_task(4)), 3);
    assert_int_equal(g.ranks[1].owner, 1);
    assert_int_equal(g.ranks[1].n_tasks, 4);
    assert_true(g.ranks[1].tasks != g.ranks[0].tasks);
    assert_int_equal(g.ranks[0].n_tasks, 3);
    assert_int_equal(g.ranks[2].n_tasks, 3);
    assert_true(g.ranks[2].tasks[2].amount == 3);
    assert_true(g.ranks[1].tasks[3].amount == 4);
    tg_shrink(&g); /* arrays may move: borrowers follow their owner */
    assert_ptr_equal(g.ranks[2].tasks, g.ranks[0].tasks);
    assert_true(g.ranks[3].tasks[1].amount == 2.5);
    tg_free(&g);
}

static void test_borrow(void **state)
{
    (void)state;
    tg_graph g;
    assert_int_equal(tg_init(&g, 3, NULL), HS_OK);
    assert_int_equal(tg_borrow(&g, 1, 0), 0); /* rank 0 has nothing to lend */
    assert_true(tg_add(&g, 0, exec_task(1)) >= 0);
    assert_true(tg_add(&g, 2, exec_task(1)) >= 0);
    assert_int_equal(tg_borrow(&g, 1, 0), 1);
    assert_int_equal(g.ranks[1].n_tasks, 1);
    assert_int_equal(tg_borrow(&g, 2, 1), 0); /* rank 2 has a list of its own */
    assert_int_equal(tg_lists(&g), 2);
    tg_free(&g);
}

/* tg_append keeps equal lists shared in the merged graph, with the ranks and groups offset. */
static void test_append(void **state)
{
    (void)state;
    tg_graph a, all;
    fill(&a, 4, -1);
    int ranks[4] = {0, 1, 2, 3};
    assert_int_equal(tg_add_group(&a, ranks, 4), 0);
    for (int r = 0; r < 4; r++)
        assert_true(tg_add(&a, r, (tg_task){.op = TG_ALLREDUCE, .layer = -1, .peer = 0,
                                            .after = -1, .amount = 8}) >= 0);
    for (int r = 1; r < 4; r++)
        tg_share(&a, r);
    assert_int_equal(tg_init(&all, 8, NULL), HS_OK);
    assert_int_equal(tg_append(&all, &a, 0, NULL), HS_OK);
    assert_int_equal(tg_append(&all, &a, 4, NULL), HS_OK);
    assert_int_equal(tg_lists(&all), 2); /* one a job: their groups differ */
    assert_int_equal(all.ranks[5].tasks[3].peer, 1);
    assert_int_equal(all.ranks[1].tasks[3].peer, 0);
    assert_int_equal(all.groups[1].ranks[0], 4);
    tg_free(&a);
    tg_free(&all);
}

/* Two ranks run one list of a send to slot 1 and an allreduce on slot 0; each slot row holds
 * the rank's own group and neighbour. */
static void test_slots(void **state)
{
    (void)state;
    tg_graph g, all;
    assert_int_equal(tg_init(&g, 2, NULL), HS_OK);
    int ranks[2] = {0, 1};
    assert_int_equal(tg_add_group(&g, ranks, 2), 0);
    assert_int_equal(tg_add_group(&g, ranks, 2), 1);
    assert_int_equal(tg_init_slots(&g, 2, NULL), HS_OK);
    assert_int_equal(g.slots[0], -1);
    int32_t rows[4] = {0, 1, 1, 0}; /* rank 0: group 0, peer 1; rank 1: group 1, peer 0 */
    memcpy(g.slots, rows, sizeof rows);
    tg_task send = {.op = TG_SEND, .layer = -1, .peer = 1, .after = -1, .amount = 8};
    tg_task ar = {.op = TG_ALLREDUCE, .layer = -1, .peer = 0, .after = -1, .amount = 8};
    assert_true(tg_add(&g, 0, send) >= 0 && tg_add(&g, 0, ar) >= 0);
    assert_int_equal(tg_borrow(&g, 1, 0), 1);
    assert_int_equal(tg_peer(&g, 0, &g.ranks[0].tasks[0]), 1);
    assert_int_equal(tg_peer(&g, 1, &g.ranks[1].tasks[0]), 0);
    assert_int_equal(tg_peer(&g, 0, &g.ranks[0].tasks[1]), 0);
    assert_int_equal(tg_peer(&g, 1, &g.ranks[1].tasks[1]), 1);
    tg_task bad = {.op = TG_SEND, .peer = 2};
    assert_int_equal(tg_peer(&g, 0, &bad), -1);
    assert_int_equal(tg_init(&all, 4, NULL), HS_OK); /* the merged graph has no slots */
    assert_int_equal(tg_append(&all, &g, 2, NULL), HS_OK);
    assert_int_equal(all.n_slots, 0);
    assert_int_equal(all.ranks[3].tasks[0].peer, 2); /* its slot's rank 0, + 2 (not slot 1 + 2) */
    assert_int_equal(all.ranks[3].tasks[1].peer, 1); /* its slot's group 1 (not slot 0) */
    assert_int_equal(all.ranks[2].tasks[0].peer, 3);
    tg_free(&g);
    tg_free(&all);
}

/* The expansion's lists: want_lists arrays, every rank's tasks valid for that rank
 * (check_invariants: each collective's group holds the rank, sends meet their receives). */
static void expect_lists(st_strategy st, int64_t batch, bool overlap, int want_lists)
{
    wl_workload wl = tiny();
    tg_graph g = expand_ok(&wl, st, batch, overlap);
    assert_int_equal(tg_lists(&g), want_lists);
    for (int r = 1; r < g.n_ranks; r++) /* a borrowed list is its owner's, an earlier rank's */
        if (g.ranks[r].owner != r) {
            assert_true(g.ranks[r].owner < r);
            assert_ptr_equal(g.ranks[r].tasks, g.ranks[g.ranks[r].owner].tasks);
        }
    tg_free(&g);
}

static void test_expansion(void **state)
{
    (void)state;
    expect_lists(strat(ST_DATA, 8, 8, 1, 1), 32, false, 1);
    expect_lists(strat(ST_DATA, 8, 8, 1, 1), 32, true, 1);
    /* the lists name their groups and neighbours by slot (tg_peer): every rank of data+filter
     * runs one list; data+spatial's first, middle and last ranks of a group one each */
    expect_lists(strat(ST_DATA_FILTER, 8, 4, 2, 1), 32, false, 1);
    expect_lists(strat(ST_DATA_SPATIAL, 8, 2, 4, 1), 32, false, 3);
    expect_lists(strat(ST_DATA_SPATIAL, 16, 4, 4, 1), 32, true, 3);
    expect_lists(strat(ST_DATA_SPATIAL, 8, 4, 2, 1), 32, false, 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_share),
        cmocka_unit_test(test_borrow),
        cmocka_unit_test(test_append),
        cmocka_unit_test(test_slots),
        cmocka_unit_test(test_expansion),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
