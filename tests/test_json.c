/* test_json.c: the JSON writer (workloads/common/hs_json.h): commas between elements at every
 * level and none after a key, ": " after keys, breaks before an element or a closing bracket,
 * strings and keys escaped, numbers with %.17g, values in the caller's format. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "hs_json.h"

/* What the writer wrote into a memory stream. */
typedef struct {
    char *text;
    size_t len;
    FILE *f;
    hs_json j;
} json_buf;

static void open_buf(json_buf *b)
{
    b->f = open_memstream(&b->text, &b->len);
    assert_non_null(b->f);
    hs_json_init(&b->j, b->f);
}

static void expect(json_buf *b, const char *want)
{
    fclose(b->f);
    assert_string_equal(b->text, want);
    free(b->text);
}

static void test_nesting_and_commas(void **state)
{
    (void)state;
    json_buf b;
    open_buf(&b);
    hs_json *j = &b.j;
    hs_json_object(j);
    hs_json_key(j, "a");
    hs_json_int(j, 1);
    hs_json_key(j, "b");
    hs_json_array(j);
    hs_json_number(j, 0.1);
    hs_json_bool(j, true);
    hs_json_object(j);
    hs_json_end(j);
    hs_json_array(j);
    hs_json_end(j);
    hs_json_end(j);
    hs_json_key(j, "c");
    hs_json_str(j, "x");
    hs_json_end(j);
    expect(&b, "{\"a\": 1, \"b\": [0.10000000000000001, true, {}, []], \"c\": \"x\"}");
}

/* A break replaces the blank after the comma, or stands alone before the first element and
 * before a closing bracket; it holds for one element. */
static void test_breaks(void **state)
{
    (void)state;
    json_buf b;
    open_buf(&b);
    hs_json *j = &b.j;
    hs_json_object(j);
    hs_json_key(j, "r");
    hs_json_array(j);
    for (int i = 0; i < 3; i++) {
        hs_json_break(j, "\n  ");
        hs_json_int(j, i);
    }
    hs_json_break(j, "\n");
    hs_json_end(j);
    hs_json_break(j, "\n ");
    hs_json_key(j, "s");
    hs_json_printf(j, "%.3f", 1.0);
    hs_json_key(j, "t");
    hs_json_int(j, -2);
    hs_json_end(j);
    expect(&b, "{\"r\": [\n  0,\n  1,\n  2\n],\n \"s\": 1.000, \"t\": -2}");
}

static void test_escapes(void **state)
{
    (void)state;
    json_buf b;
    open_buf(&b);
    hs_json *j = &b.j;
    hs_json_object(j);
    hs_json_key(j, "k\"ey");
    hs_json_str(j, "a\\b\tc");
    hs_json_end(j);
    expect(&b, "{\"k\\\"ey\": \"a\\\\b\\u0009c\"}");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nesting_and_commas),
        cmocka_unit_test(test_breaks),
        cmocka_unit_test(test_escapes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
