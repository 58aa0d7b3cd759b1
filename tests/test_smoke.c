/* test_smoke.c: the test harness itself builds and runs (CMocka + the core library link). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "hs_error.h"

static void test_hs_fail_formats_and_returns_status(void **state)
{
    (void)state;
    char err[HS_ERR_LEN];
    assert_int_equal(hs_fail(err, HS_EINPUT, "%s:%d: bad", "f.xml", 3), HS_EINPUT);
    assert_string_equal(err, "f.xml:3: bad");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hs_fail_formats_and_returns_status),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
