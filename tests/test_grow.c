/* test_grow.c: workloads/common/hs_grow, the one growable array: appends keep every item,
 * capacity doubles from 16 (so n appends reallocate about log2 n times), a count past an int
 * is a size_t like any other, and a request whose bytes overflow a size_t is refused with the
 * array left as it was. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "hs_grow.h"

/* 100,000 appends: every item kept, capacity a power of two from 16, 14 growths in all. */
static void appends_keep_items(void **state)
{
    (void)state;
    int *v = NULL;
    size_t cap = 0, growths = 0;
    for (int i = 0; i < 100000; i++) {
        size_t before = cap;
        assert_true(hs_grow((void **)&v, &cap, (size_t)i + 1, sizeof *v));
        growths += cap != before;
        v[i] = 3 * i;
    }
    assert_int_equal(cap, 131072); /* 16 * 2^13 */
    assert_int_equal(growths, 14);
    for (int i = 0; i < 100000; i++)
        assert_int_equal(v[i], 3 * i);
    free(v);
}

/* Room already there: nothing moves. */
static void enough_room_is_kept(void **state)
{
    (void)state;
    char *v = NULL;
    size_t cap = 0;
    assert_true(hs_grow((void **)&v, &cap, 100, 1));
    assert_int_equal(cap, 128);
    char *was = v;
    assert_true(hs_grow((void **)&v, &cap, 128, 1));
    assert_ptr_equal(v, was);
    assert_int_equal(cap, 128);
    assert_true(hs_grow((void **)&v, &cap, 0, 1));
    assert_int_equal(cap, 128);
    free(v);
}

/* A capacity counted in size_t: a byte array asked for more than INT_MAX items gets them (the
 * old int form could not say it). Skipped where 2 GB cannot be had. */
static void past_an_int(void **state)
{
    (void)state;
    char *v = NULL;
    size_t cap = 0, need = (size_t)INT32_MAX + 2;
    if (!hs_grow((void **)&v, &cap, need, 1)) {
        assert_null(v);
        assert_int_equal(cap, 0);
        skip();
    }
    assert_true(cap >= need);
    assert_int_equal(cap, (size_t)1 << 32);
    v[need - 1] = 7;
    assert_int_equal(v[need - 1], 7);
    free(v);
}

/* need * size past SIZE_MAX, or need itself past the largest doubling: refused, nothing
 * changed, the old array still there to free. */
static void overflow_refused(void **state)
{
    (void)state;
    double *v = NULL;
    size_t cap = 0;
    assert_true(hs_grow((void **)&v, &cap, 10, sizeof *v));
    v[9] = 2.5;
    double *was = v;
    assert_false(hs_grow((void **)&v, &cap, SIZE_MAX / 4, sizeof *v));
    assert_ptr_equal(v, was);
    assert_int_equal(cap, 16);
    assert_false(hs_grow((void **)&v, &cap, SIZE_MAX, 1));
    assert_false(hs_grow((void **)&v, &cap, SIZE_MAX / 2 + 2, 1));
    assert_ptr_equal(v, was);
    assert_int_equal(cap, 16);
    assert_true(v[9] == 2.5);
    free(v);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(appends_keep_items),
        cmocka_unit_test(enough_room_is_kept),
        cmocka_unit_test(past_an_int),
        cmocka_unit_test(overflow_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
