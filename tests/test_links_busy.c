/* test_links_busy.c: the links' busy periods (sim/observe/links_busy.c) against a sweep over
 * every start and end event sorted by comparison (time, starts first, message index), on
 * random messages whose times are drawn from a coarse grid, so that starts tie, messages touch
 * end to start and some last no time. Busy time, peak utilisation and every period (link,
 * start, utilisation) must be equal as doubles: the report's figures may not move with the
 * algorithm. Also the order by start against a stable comparison sort. No SimGrid: the
 * collector's messages, pairs and routes are written by hand. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "links_int.h"

/* ---- the reference: the comparison sort of 2n events ---- */

typedef struct {
    double t_s;
    int delta;
    int msg;
} ref_event;

static int cmp_ref_event(const void *a, const void *b)
{
    const ref_event *x = a, *y = b;
    if (x->t_s != y->t_s)
        return x->t_s < y->t_s ? -1 : 1;
    if (x->delta != y->delta)
        return x->delta > y->delta ? -1 : 1;
    return x->msg - y->msg;
}

static int cmp_ref_period(const void *a, const void *b)
{
    const lk_period *x = a, *y = b;
    if (x->link != y->link)
        return x->link - y->link;
    return (x->from_s > y->from_s) - (x->from_s < y->from_s);
}

/* Busy time and peak into st's links, the periods (sorted by link, start) into *out. */
static size_t ref_sweep(const lk_collector *c, const int *route, lk_stats *st, lk_period **out)
{
    size_t n_ev = 2 * c->n_msgs, n_per = 0;
    ref_event *ev = malloc((n_ev + 1) * sizeof *ev);
    int *on = calloc((size_t)st->n_links, sizeof *on);
    double *since = calloc((size_t)st->n_links, sizeof *since);
    double *bytes = calloc((size_t)st->n_links, sizeof *bytes);
    lk_period *per = malloc((n_ev + 1) * 4 * sizeof *per);
    assert_non_null(ev), assert_non_null(on), assert_non_null(since), assert_non_null(bytes);
    assert_non_null(per);
    for (size_t i = 0; i < c->n_msgs; i++) {
        ev[2 * i] = (ref_event){c->msgs[i].start_s, +1, (int)i};
        ev[2 * i + 1] = (ref_event){c->msgs[i].end_s, -1, (int)i};
    }
    qsort(ev, n_ev, sizeof *ev, cmp_ref_event);
    for (size_t e = 0; e < n_ev; e++) {
        const lk_msg *m = &c->msgs[ev[e].msg];
        const lk_pair *pr = &c->pairs[m->pair];
        for (int k = 0; k < pr->n; k++) {
            int l = route[pr->first + k];
            lk_link *link = &st->links[l];
            if (ev[e].delta > 0) {
                if (on[l]++ == 0)
                    since[l] = ev[e].t_s, bytes[l] = 0;
                bytes[l] += m->bytes;
            } else if (--on[l] == 0) {
                double length_s = ev[e].t_s - since[l], u = 0;
                link->busy_s += length_s;
                if (length_s > 0 && link->bandwidth_Bps > 0) {
                    u = bytes[l] / (link->bandwidth_Bps * length_s);
                    if (u > link->peak_util)
                        link->peak_util = u;
                }
                per[n_per++] = (lk_period){l, since[l], u};
            }
        }
    }
    qsort(per, n_per, sizeof *per, cmp_ref_period);
    free(ev), free(on), free(since), free(bytes);
    *out = per;
    return n_per;
}

/* ---- random runs ---- */

#define N_LINKS 7
#define N_PAIRS 5

/* Pairs' routes over 7 links: shared links, one route of one link, one crossing a link twice. */
static const int route_links[] = {0, 1, 2, /* pair 0 */ 0, 3, /* pair 1 */ 4, /* pair 2 */
                                  1, 3, 5, 2, /* pair 3 */ 6, 6 /* pair 4: twice */};
static const int route_first[N_PAIRS + 1] = {0, 3, 5, 6, 10, 12};

static double grid(unsigned *seed, int steps, double step_s)
{
    return (rand_r(seed) % steps) * step_s;
}

static void random_run(unsigned seed, size_t n, int steps)
{
    lk_pair pairs[N_PAIRS];
    for (int p = 0; p < N_PAIRS; p++)
        pairs[p] = (lk_pair){.src = p, .dst = p + 1, .first = route_first[p],
                             .n = route_first[p + 1] - route_first[p]};
    lk_msg *msgs = malloc((n + 1) * sizeof *msgs);
    assert_non_null(msgs);
    for (size_t i = 0; i < n; i++) {
        double start_s = grid(&seed, steps, 0.125);
        double length_s = rand_r(&seed) % 4 == 0 ? 0 : grid(&seed, 6, 0.125) + 1e-3 * (i % 3);
        msgs[i] = (lk_msg){start_s, start_s + length_s, 1e6 * (1 + rand_r(&seed) % 50),
                           rand_r(&seed) % N_PAIRS, 0};
    }
    lk_collector c = {.msgs = msgs, .n_msgs = n, .pairs = pairs, .n_pairs = N_PAIRS};
    lk_link fast[N_LINKS], ref[N_LINKS];
    memset(fast, 0, sizeof fast);
    for (int l = 0; l < N_LINKS; l++)
        fast[l].bandwidth_Bps = l == 5 ? 0 : 1e9 * (l + 1); /* one link of no bandwidth */
    memcpy(ref, fast, sizeof ref);
    lk_stats st_fast = {.links = fast, .n_links = N_LINKS};
    lk_stats st_ref = {.links = ref, .n_links = N_LINKS};
    lk_periods periods = {0};
    char err[HS_ERR_LEN];
    assert_int_equal(lk__sweep_busy(&c, route_links, &st_fast, &periods, err), HS_OK);
    lk_period *ref_per = NULL;
    size_t n_ref = ref_sweep(&c, route_links, &st_ref, &ref_per);
    for (int l = 0; l < N_LINKS; l++) {
        assert_true(fast[l].busy_s == ref[l].busy_s);
        assert_true(fast[l].peak_util == ref[l].peak_util);
    }
    assert_int_equal(periods.n, n_ref);
    for (size_t i = 0; i < n_ref; i++) {
        assert_int_equal(periods.v[i].link, ref_per[i].link);
        assert_true(periods.v[i].from_s == ref_per[i].from_s);
        assert_true(periods.v[i].util == ref_per[i].util);
    }
    for (int l = 0; l < N_LINKS; l++) /* first[] delimits each link's periods */
        for (size_t i = periods.first[l]; i < periods.first[l + 1]; i++)
            assert_int_equal(periods.v[i].link, l);
    assert_int_equal(periods.first[N_LINKS], periods.n);
    /* without periods kept: the same busy time and peaks */
    lk_link again[N_LINKS];
    memcpy(again, ref, sizeof again);
    for (int l = 0; l < N_LINKS; l++)
        again[l].busy_s = 0, again[l].peak_util = 0;
    lk_stats st_again = {.links = again, .n_links = N_LINKS};
    assert_int_equal(lk__sweep_busy(&c, route_links, &st_again, NULL, err), HS_OK);
    for (int l = 0; l < N_LINKS; l++)
        assert_true(again[l].busy_s == ref[l].busy_s && again[l].peak_util == ref[l].peak_util);
    free(periods.v), free(periods.first), free(ref_per), free(msgs);
}

static void test_sweep_dense(void **state)
{
    (void)state;
    for (unsigned seed = 1; seed <= 20; seed++)
        random_run(seed, 400, 40); /* crowded: long periods, many ties */
}

static void test_sweep_sparse(void **state)
{
    (void)state;
    for (unsigned seed = 100; seed <= 120; seed++)
        random_run(seed, 300, 4000); /* mostly apart: many short periods */
}

static void test_sweep_empty(void **state)
{
    (void)state;
    random_run(7, 0, 10);
    random_run(8, 1, 10);
}

/* ---- the order by start ---- */

static const lk_msg *cmp_base;

static int cmp_stable_start(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    double sx = cmp_base[x].start_s, sy = cmp_base[y].start_s;
    if (sx != sy)
        return sx < sy ? -1 : 1;
    return (x > y) - (x < y);
}

static void check_order(const lk_msg *msgs, size_t n)
{
    uint32_t *got = lk__order_by_start(msgs, n);
    uint32_t *want = malloc((n + 1) * sizeof *want);
    assert_non_null(got), assert_non_null(want);
    for (size_t i = 0; i < n; i++)
        want[i] = (uint32_t)i;
    cmp_base = msgs;
    qsort(want, n, sizeof *want, cmp_stable_start);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(got[i], want[i]);
    free(got), free(want);
}

static void test_order(void **state)
{
    (void)state;
    size_t n = 5000;
    lk_msg *m = calloc(n, sizeof *m);
    assert_non_null(m);
    unsigned seed = 3;
    /* times from 1e-300 to 1e6 s, zeros of both signs and negatives, many equal */
    for (size_t i = 0; i < n; i++) {
        int pick = rand_r(&seed) % 5;
        m[i].start_s = pick == 0   ? (i % 2 ? 0.0 : -0.0)
                       : pick == 1 ? (rand_r(&seed) % 7) * 0.1
                       : pick == 2 ? -(double)(rand_r(&seed) % 5)
                       : pick == 3 ? 1e-300 * (rand_r(&seed) % 9)
                                   : (double)rand_r(&seed) / RAND_MAX * 1e6;
    }
    check_order(m, n);
    for (size_t i = 0; i < n; i++) /* already in order: returned as is */
        m[i].start_s = (double)(i / 3);
    check_order(m, n);
    for (size_t i = 0; i < n; i++) /* all equal: index order */
        m[i].start_s = 2.5;
    check_order(m, n);
    check_order(m, 0);
    free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_order),
        cmocka_unit_test(test_sweep_dense),
        cmocka_unit_test(test_sweep_sparse),
        cmocka_unit_test(test_sweep_empty),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
