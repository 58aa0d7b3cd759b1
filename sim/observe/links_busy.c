/* links_busy.c: each link's busy periods (maximal intervals with a message on it), its busy
 * time and peak utilisation, in time linear in the messages and their routes (links_int.h).
 *
 * The messages are put in order of their start by a radix sort on the bits of start_s (ties
 * kept in arrival order, so the order is that of (start_s, index)), then walked once: on each
 * link of a message's route, a message that starts no later than the link's open period ends
 * joins it (a message starting the instant another ends keeps the link busy), else the period
 * closes and the message opens the next. The result is that of a sweep over every start and
 * end event in time order with starts first, to the bit: a period's bytes are added in the
 * same (start_s, index) order, its length is its last end minus its first start, and a link's
 * periods close in time order. A comparison sort of the 2n events cost O(n log n) and twice
 * the events' memory; this costs 24 bytes a message while it runs. */
#include "links_int.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hs_grow.h"

#define LK_RADIX_BITS 11
#define LK_RADIX_SIZE (1u << LK_RADIX_BITS)
#define LK_RADIX_PASSES 6 /* 6 x 11 >= 64 bits */

/* A double's bits as an unsigned key that orders as the doubles do (NaN aside; -0 is 0). */
static uint64_t order_key(double x)
{
    uint64_t u;
    if (x == 0)
        x = 0; /* -0.0 == 0.0: one key, so that their index decides */
    memcpy(&u, &x, sizeof u);
    return u >> 63 ? ~u : u | UINT64_C(1) << 63;
}

/* The histograms of every digit, in one pass; false if no pass is needed (keys in order). */
static bool count_digits(const uint64_t *key, size_t n, size_t (*count)[LK_RADIX_SIZE])
{
    bool sorted = true;
    for (size_t i = 0; i < n; i++) {
        for (int p = 0; p < LK_RADIX_PASSES; p++)
            count[p][(key[i] >> (p * LK_RADIX_BITS)) & (LK_RADIX_SIZE - 1)]++;
        if (i > 0 && key[i] < key[i - 1])
            sorted = false;
    }
    return !sorted;
}

uint32_t *lk__order_by_start(const lk_msg *msgs, size_t n)
{
    if (n > UINT32_MAX)
        return NULL;
    size_t (*count)[LK_RADIX_SIZE] = calloc(LK_RADIX_PASSES, sizeof *count);
    uint64_t *key = malloc((n ? n : 1) * sizeof *key), *key2 = malloc((n ? n : 1) * sizeof *key2);
    uint32_t *ix = malloc((n ? n : 1) * sizeof *ix), *ix2 = malloc((n ? n : 1) * sizeof *ix2);
    if (!count || !key || !key2 || !ix || !ix2) {
        free(count), free(key), free(key2), free(ix), free(ix2);
        return NULL;
    }
    for (size_t i = 0; i < n; i++) {
        key[i] = order_key(msgs[i].start_s);
        ix[i] = (uint32_t)i;
    }
    bool unsorted = count_digits(key, n, count);
    for (int p = 0; unsorted && p < LK_RADIX_PASSES; p++) {
        size_t *c = count[p];
        int shift = p * LK_RADIX_BITS;
        if (c[(key[0] >> shift) & (LK_RADIX_SIZE - 1)] == n)
            continue; /* every key has this digit: the pass would move nothing */
        size_t sum = 0;
        for (unsigned d = 0; d < LK_RADIX_SIZE; d++) {
            size_t here = c[d];
            c[d] = sum;
            sum += here;
        }
        for (size_t i = 0; i < n; i++) { /* stable: equal digits keep their order */
            size_t to = c[(key[i] >> shift) & (LK_RADIX_SIZE - 1)]++;
            key2[to] = key[i];
            ix2[to] = ix[i];
        }
        uint64_t *tk = key;
        key = key2, key2 = tk;
        uint32_t *ti = ix;
        ix = ix2, ix2 = ti;
    }
    free(count), free(key), free(key2), free(ix2);
    return ix;
}

/* A link's period in the making. */
typedef struct {
    double since_s;     /* its first start */
    double until_s;     /* the latest end of its messages so far */
    double bytes;       /* their bytes, added in start order */
    bool open;
} lk_open;

static void close_period(lk_stats *st, int l, const lk_open *o, lk_periods *periods)
{
    lk_link *link = &st->links[l];
    double length_s = o->until_s - o->since_s;
    double u = 0;
    link->busy_s += length_s;
    if (length_s > 0 && link->bandwidth_Bps > 0) {
        u = o->bytes / (link->bandwidth_Bps * length_s);
        if (u > link->peak_util)
            link->peak_util = u;
    }
    if (!periods)
        return;
    if (!hs_grow((void **)&periods->v, &periods->cap, periods->n + 1, sizeof *periods->v)) {
        periods->oom = true;
        return;
    }
    periods->v[periods->n++] = (lk_period){l, o->since_s, u};
}

/* periods->v grouped by link (a stable counting sort: each link's stay in time order), and
 * first[l] .. first[l+1] the periods of link l. */
static int group_by_link(lk_periods *periods, int n_links, char *err)
{
    size_t *first = calloc((size_t)n_links + 2, sizeof *first);
    lk_period *v = malloc((periods->n ? periods->n : 1) * sizeof *v);
    if (!first || !v) {
        free(first), free(v);
        return hs_fail(err, HS_EINTERNAL, "out of memory for %zu busy periods", periods->n);
    }
    for (size_t i = 0; i < periods->n; i++)
        first[periods->v[i].link + 1]++;
    for (int l = 0; l < n_links; l++)
        first[l + 1] += first[l];
    for (size_t i = 0; i < periods->n; i++)
        v[first[periods->v[i].link]++] = periods->v[i];
    for (int l = n_links; l > 0; l--) /* each first[l] advanced to first[l+1]: shift back */
        first[l] = first[l - 1];
    first[0] = 0;
    free(periods->v);
    periods->v = v;
    periods->cap = periods->n;
    periods->first = first;
    return HS_OK;
}

int lk__sweep_busy(const lk_collector *c, const int *route_links, lk_stats *st,
                   lk_periods *periods, char *err)
{
    uint32_t *order = lk__order_by_start(c->msgs, c->n_msgs);
    lk_open *open = calloc((size_t)st->n_links + 1, sizeof *open);
    if (!order || !open) {
        free(order), free(open);
        return hs_fail(err, HS_EINTERNAL, "out of memory ordering %zu messages", c->n_msgs);
    }
    for (size_t e = 0; e < c->n_msgs; e++) {
        const lk_msg *m = &c->msgs[order[e]];
        const lk_pair *pr = &c->pairs[m->pair];
        for (int k = 0; k < pr->n; k++) {
            int l = route_links[pr->first + k];
            lk_open *o = &open[l];
            if (o->open && m->start_s <= o->until_s) {
                o->bytes += m->bytes;
                if (m->end_s > o->until_s)
                    o->until_s = m->end_s;
                continue;
            }
            if (o->open)
                close_period(st, l, o, periods);
            *o = (lk_open){m->start_s, m->end_s, m->bytes, true};
        }
    }
    for (int l = 0; l < st->n_links; l++)
        if (open[l].open)
            close_period(st, l, &open[l], periods);
    free(order);
    free(open);
    if (periods && periods->oom)
        return hs_fail(err, HS_EINTERNAL, "out of memory for busy periods");
    return periods ? group_by_link(periods, st->n_links, err) : HS_OK;
}
