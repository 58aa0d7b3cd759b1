/* test_search_minimise.c: the search's minimisation (analytic/search/search_minimise.c, its
 * prefix, ordered scan with a bound, and rows scanned once) against the plain candidate-by-
 * candidate minimisation, bit for bit, values and argmins: random factors over dependent sets
 * of 1 to 3 vertices in every order of mention, with many ties (costs from a few values),
 * repeated rows, INFINITY entries, fractions that round, and a NaN (which takes the plain
 * path). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "search_solve_int.h"

#define V 0          /* test_all_ties: the vertex eliminated */
#define MAX_K 6

static uint64_t state = 88172645463325252u;

static uint64_t next(void)
{
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
}

/* An entry: few distinct values (ties), sometimes a fraction that rounds, sometimes INFINITY. */
static double entry(int flavour)
{
    uint64_t r = next();
    if (flavour == 2 && r % 17 == 0)
        return INFINITY;
    if (flavour == 1)
        return (double)(r % 5) * 0.1 + (double)(r >> 40 & 3) * 1e16;
    return (double)(r % 4);
}

/* A factor over v and the scope vertices whose bits are in `mask` (vars ascending, as the
 * search makes them); when `same`, an entry depends on v's candidate only (equal rows). */
static sr__factor make(int v, unsigned mask, const int *n_cand, int flavour, bool same)
{
    sr__factor f = {.n = 0, .size = 1};
    int64_t sv = 0;
    for (int w = 0; w <= 3; w++)
        if (w == v || (mask >> w & 1)) {
            if (w == v)
                sv = f.size;
            f.vars[f.n++] = w;
            f.size *= n_cand[w];
        }
    f.table = malloc((size_t)f.size * sizeof *f.table);
    assert_non_null(f.table);
    double first[64]; /* n_cand[v] <= 64 */
    for (int x = 0; x < n_cand[v]; x++)
        first[x] = entry(flavour);
    for (int64_t e = 0; e < f.size; e++)
        f.table[e] = same ? first[(e / sv) % n_cand[v]] : entry(flavour);
    return f;
}

/* One random case: the same sums by both, entry by entry. */
static void one_case(int n_scope, int k, int flavour, bool nan)
{
    int n_cand[4] = {1 + (int)(next() % 9), 1 + (int)(next() % 9), 1 + (int)(next() % 7),
                     1 + (int)(next() % 5)};
    int v = (int)(next() % (uint64_t)(n_scope + 1)); /* the vertex eliminated, among 0..n_scope */
    n_cand[v] = 1 + (int)(next() % 64); /* past 32: rows longer than scan_two's least entries,
                                         * and sorts past insertion */
    sr__back scope = {.n = 0};
    int64_t size = 1;
    unsigned all = 0;
    for (int w = 0; w <= n_scope; w++)
        if (w != v) {
            scope.vars[scope.n] = w;
            scope.stride[scope.n++] = size;
            size *= n_cand[w];
            all |= 1u << w;
        }
    sr__factor fs[MAX_K];
    const sr__factor *f[MAX_K];
    for (int j = 0; j < k; j++) {
        unsigned mask = (unsigned)next() & all;
        if (j == k - 1) /* every scope vertex mentioned somewhere */
            mask = all;
        fs[j] = make(v, mask, n_cand, flavour, next() % 3 == 0);
        f[j] = &fs[j];
    }
    if (nan)
        fs[0].table[0] = NAN;
    double *fast = malloc((size_t)size * sizeof *fast), *slow = malloc((size_t)size * sizeof *slow);
    int32_t *arg_fast = malloc((size_t)size * sizeof *arg_fast);
    int32_t *arg_slow = malloc((size_t)size * sizeof *arg_slow);
    assert_true(fast && slow && arg_fast && arg_slow);
    char err[HS_ERR_LEN];
    scope.argmin = arg_fast;
    assert_int_equal(sr__minimise(f, k, v, n_cand, &scope, size, fast, err), HS_OK);
    scope.argmin = arg_slow;
    assert_int_equal(sr__minimise_plain(f, k, v, n_cand, &scope, size, slow, err), HS_OK);
    for (int64_t a = 0; a < size; a++) {
        assert_memory_equal(&fast[a], &slow[a], sizeof fast[a]);
        assert_int_equal(arg_fast[a], arg_slow[a]);
    }
    for (int j = 0; j < k; j++)
        free(fs[j].table);
    free(fast), free(slow), free(arg_fast), free(arg_slow);
}

static void test_against_plain(void **st)
{
    (void)st;
    for (int n_scope = 1; n_scope <= 3; n_scope++)
        for (int k = 1; k <= MAX_K; k++)
            for (int flavour = 0; flavour < 3; flavour++)
                for (int rep = 0; rep < 20; rep++)
                    one_case(n_scope, k, flavour, false);
}

static void test_nan_plain(void **st)
{
    (void)st;
    for (int rep = 0; rep < 20; rep++)
        one_case(2, 3, 0, true);
}

/* Every entry equal: the first candidate everywhere, as the plain minimisation. */
static void test_all_ties(void **st)
{
    (void)st;
    int n_cand[4] = {7, 3, 4, 1};
    sr__factor a = {.n = 2, .vars = {V, 1}, .size = 21}, b = {.n = 2, .vars = {V, 2}, .size = 28};
    double ta[21] = {0}, tb[28] = {0};
    a.table = ta, b.table = tb;
    const sr__factor *f[2] = {&a, &b};
    int32_t arg[12];
    double out[12];
    sr__back scope = {.n = 2, .vars = {1, 2}, .stride = {1, 3}, .argmin = arg};
    char err[HS_ERR_LEN];
    assert_int_equal(sr__minimise(f, 2, V, n_cand, &scope, 12, out, err), HS_OK);
    for (int i = 0; i < 12; i++) {
        assert_int_equal(arg[i], 0);
        assert_true(out[i] == 0.0);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_against_plain),
        cmocka_unit_test(test_nan_plain),
        cmocka_unit_test(test_all_ties),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
