/* test_invariants.c: the checks every simulated run passes before it is reported
 * (sm_check_run, sim/run/invariants.c), on results written by hand: a sound one passes, and
 * each broken invariant is refused with HS_EINTERNAL and a message naming it. (That real runs
 * pass them is what every simulating test shows: they would fail otherwise.) */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "simulate.h"

/* Two ranks: rank 0 computes 1 s and waits 0.5 s for communication; rank 1 computes 1.5 s. */
static eng_rank_stats ranks[2];

static eng_result sound_run(void)
{
    ranks[0] = (eng_rank_stats){.end_s = 1.5, .compute_busy_s = 1.0, .comm_busy_s = 0.75,
                                .exposed_comm_s = 0.5};
    ranks[1] = (eng_rank_stats){.end_s = 1.5, .compute_busy_s = 1.5, .comm_busy_s = 0.25,
                                .exposed_comm_s = 0.0};
    return (eng_result){.makespan_s = 1.5, .ranks = ranks, .n_ranks = 2, .messages = 4,
                        .bytes_sent = 4096, .messages_received = 4, .bytes_received = 4096};
}

/* sm_check_run refuses res with a message containing `needle`. */
static void assert_broken(const eng_result *res, const lk_stats *links, const char *needle)
{
    char err[HS_ERR_LEN] = "";
    assert_int_equal(sm_check_run(res, links, err), HS_EINTERNAL);
    if (!strstr(err, needle) || !strstr(err, "invariant"))
        fail_msg("message lacks '%s': %s", needle, err);
}

static void test_a_sound_run_passes(void **state)
{
    (void)state;
    char err[HS_ERR_LEN] = "";
    eng_result res = sound_run();
    lk_stats links = {.all = {.messages = 4, .bytes = 4096}};
    assert_int_equal(sm_check_run(&res, NULL, err), HS_OK);
    assert_int_equal(sm_check_run(&res, &links, err), HS_OK);
    /* rounding of SimGrid's clock is not a broken invariant */
    ranks[0].exposed_comm_s += 1e-12;
    assert_int_equal(sm_check_run(&res, NULL, err), HS_OK);
}

static void test_bad_times(void **state)
{
    (void)state;
    eng_result res = sound_run();
    res.makespan_s = NAN;
    assert_broken(&res, NULL, "makespan is nan");
    res = sound_run();
    ranks[1].comm_busy_s = -0.25;
    assert_broken(&res, NULL, "rank 1's communication time is -0.25 s");
    res = sound_run();
    ranks[0].exposed_comm_s = INFINITY;
    assert_broken(&res, NULL, "rank 0's exposed communication time is inf");
}

static void test_iteration_at_least_its_compute(void **state)
{
    (void)state;
    eng_result res = sound_run();
    ranks[1].end_s = 1.25; /* shorter than its 1.5 s of kernels */
    assert_broken(&res, NULL, "rank 1's iteration (1.25 s) is shorter than its compute (1.5 s)");
    res = sound_run();
    ranks[0].exposed_comm_s = 0.4; /* 1 + 0.4 != 1.5 */
    assert_broken(&res, NULL, "is not its compute (1 s) plus its exposed communication (0.4 s)");
}

static void test_bytes_sent_are_received(void **state)
{
    (void)state;
    eng_result res = sound_run();
    res.bytes_received = 4000;
    assert_broken(&res, NULL, "bytes sent (4096 in 4 messages) != bytes received (4000 in 4");
    res = sound_run();
    res.messages_received = 3;
    assert_broken(&res, NULL, "!= bytes received (4096 in 3 messages)");
    res = sound_run();
    lk_stats links = {.all = {.messages = 4, .bytes = 2048}};
    assert_broken(&res, &links, "!= bytes SimGrid delivered (2048 in 4 messages)");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a_sound_run_passes),
        cmocka_unit_test(test_bad_times),
        cmocka_unit_test(test_iteration_at_least_its_compute),
        cmocka_unit_test(test_bytes_sent_are_received),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
