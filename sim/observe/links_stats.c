/* links_stats.c: a run's link statistics, computed once the run is over (links_int.h): each
 * distinct endpoint pair's route resolved once, every transfer charged to every link of its
 * route, waiting charged to the bottleneck's kind (busy periods: links_busy.c). */
#include "links_int.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <simgrid/engine.h>
#include <simgrid/host.h>
#include <simgrid/link.h>
#include <xbt/dynar.h>
#include <xbt/sysdep.h>

#include "hs_grow.h"
#include "links_sg.h"

/* ---- statistics --------------------------------------------------------------------------- */

static int cmp_link_ix(const void *a, const void *b)
{
    uintptr_t x = (uintptr_t)((const lk_link_ix *)a)->link;
    uintptr_t y = (uintptr_t)((const lk_link_ix *)b)->link;
    return x < y ? -1 : x > y;
}

static int cmp_sg_link_name(const void *a, const void *b)
{
    return strcmp(sg_link_get_name(*(const sg_link_t *)a), sg_link_get_name(*(const sg_link_t *)b));
}

/* The platform's links in name order, described, with a by-pointer index. */
static int list_links(lk_stats *st, sg_link_t **links_out, lk_link_ix **ix_out, char *err)
{
    size_t n = sg_link_count();
    sg_link_t *links = sg_link_list();
    lk_link_ix *ix = malloc((n ? n : 1) * sizeof *ix);
    st->links = calloc(n ? n : 1, sizeof *st->links);
    if (!links || !ix || !st->links) {
        xbt_free(links);
        free(ix);
        return hs_fail(err, HS_EINTERNAL, "out of memory for %zu links", n);
    }
    qsort(links, n, sizeof *links, cmp_sg_link_name);
    for (size_t i = 0; i < n; i++) {
        lk__describe(sg_link_get_name(links[i]), plat_link_is_shared(links[i]), &st->links[i]);
        st->links[i].bandwidth_Bps = plat_link_bandwidth_Bps(links[i]);
        ix[i] = (lk_link_ix){links[i], (int)i};
    }
    qsort(ix, n, sizeof *ix, cmp_link_ix);
    st->n_links = (int)n;
    *links_out = links;
    *ix_out = ix;
    return HS_OK;
}

/* Resolve every pair's route into link indices (route_links) and its alpha-beta cost. */
static int resolve_routes(lk_collector *c, const lk_link_ix *ix, int n_links, int **route_links,
                          char *err)
{
    size_t cap = 0, used = 0;
    int *out = NULL;
    xbt_dynar_t d = xbt_dynar_new(sizeof(sg_link_t), NULL);
    for (int p = 0; p < c->n_pairs; p++) {
        lk_pair *pr = &c->pairs[p];
        xbt_dynar_reset(d);
        sg_host_t from = c->endpoint[pr->src], to = c->endpoint[pr->dst];
        sg_host_get_route(from, to, d);
        /* plat_route's numbers, for any two endpoints */
        pr->latency_s = sg_host_get_route_latency(from, to);
        pr->bandwidth_Bps = sg_host_get_route_bandwidth(from, to);
        pr->first = (int)used;
        pr->n = (int)xbt_dynar_length(d);
        if (!hs_grow((void **)&out, &cap, used + (size_t)pr->n, sizeof *out)) {
            free(out);
            xbt_dynar_free(&d);
            return hs_fail(err, HS_EINTERNAL, "out of memory for routes");
        }
        for (int k = 0; k < pr->n; k++) {
            lk_link_ix key = {xbt_dynar_get_as(d, (unsigned)k, sg_link_t), -1};
            const lk_link_ix *hit = bsearch(&key, ix, (size_t)n_links, sizeof key, cmp_link_ix);
            if (!hit) {
                free(out);
                xbt_dynar_free(&d);
                return hs_fail(err, HS_EINTERNAL, "the route from GPU %d to GPU %d crosses a "
                               "link missing from SimGrid's list", pr->src, pr->dst);
            }
            out[used++] = hit->index;
        }
    }
    xbt_dynar_free(&d);
    *route_links = out;
    return HS_OK;
}

/* A transfer out of host memory is the second leg of a staged message (the engine's relay):
 * it loads its links and its time counts, but it is not another message. */
static double alone_s_of(const lk_msg *m, const lk_pair *pr)
{
    return pr->latency_s + m->bytes / pr->bandwidth_Bps;
}

static double waiting_s_of(const lk_msg *m, const lk_pair *pr)
{
    double waiting_s = (m->end_s - m->start_s) - alone_s_of(m, pr);
    /* SimGrid times events to within its precision/timing (1e-9 s): a message alone may end
     * a little early, or late, and that is not congestion */
    return fabs(waiting_s) < LK_TIMING_PRECISION_S ? 0 : waiting_s;
}

static void add_traffic(lk_traffic *t, const lk_msg *m, const lk_pair *pr, bool second_leg)
{
    double actual_s = m->end_s - m->start_s;
    double alone_s = alone_s_of(m, pr);
    double waiting_s = waiting_s_of(m, pr);
    if (!second_leg) {
        t->messages++;
        t->bytes += m->bytes;
    }
    t->route_bytes += m->bytes * pr->n;
    t->actual_s += actual_s;
    t->alone_s += alone_s;
    t->waiting_s += waiting_s;
}

static void finish_traffic(lk_traffic *t)
{
    t->congestion_share = t->actual_s > 0 ? t->waiting_s / t->actual_s : 0;
}

/* Bytes and messages per link, traffic per job. */
static void charge(const lk_collector *c, const int *route_links, lk_stats *st)
{
    for (size_t i = 0; i < c->n_msgs; i++) {
        const lk_msg *m = &c->msgs[i];
        const lk_pair *pr = &c->pairs[m->pair];
        for (int k = 0; k < pr->n; k++) {
            lk_link *l = &st->links[route_links[pr->first + k]];
            if (m->job < 0) {
                l->background_bytes += m->bytes;
            } else {
                l->bytes += m->bytes;
                l->messages++;
            }
        }
        bool second_leg = pr->src >= c->plat->n_gpus;
        if (m->job < 0) {
            add_traffic(&st->background, m, pr, second_leg);
            continue;
        }
        add_traffic(&st->all, m, pr, second_leg);
        add_traffic(&st->jobs[m->job], m, pr, second_leg);
    }
    finish_traffic(&st->all);
    finish_traffic(&st->background);
    for (int j = 0; j < st->n_jobs; j++)
        finish_traffic(&st->jobs[j]);
}

/* ---- waiting per bottleneck kind --------------------------------------------------------- */

/* The utilisation of link l's busy period that holds a message starting at start_s: the last
 * period of l (periods[first[l] .. first[l+1])) opened no later. */
static double util_at(const lk_period *periods, const size_t *first, int l, double start_s)
{
    size_t lo = first[l], hi = first[l + 1];
    if (lo == hi)
        return 0;
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (periods[mid].from_s <= start_s)
            lo = mid;
        else
            hi = mid;
    }
    return periods[lo].util;
}

/* The link that held a message back: the fullest link of its route while it was on it (the
 * utilisation of the busy period that holds it); on a tie the slower link, then the one that
 * carried more, then the first by name. A switch (FATPIPE, not shared) caps each flow alone
 * and never makes messages wait on one another, so it counts only on a route of switches.
 * (The lowest bandwidth on the route would be simpler, but it names the NIC on every ABCI
 * route out of a node, even where the 1:3 rack uplinks are the ones full.) */
static int bottleneck_of(const lk_msg *m, const lk_pair *pr, const int *route_links,
                         const lk_stats *st, const sg_link_t *sg_links,
                         const lk_period *periods, const size_t *first)
{
    int best = -1;
    double best_u = 0;
    for (int pass = 0; pass < 2 && best < 0; pass++) /* pass 1: switches too */
        for (int k = 0; k < pr->n; k++) {
            int l = route_links[pr->first + k];
            if (pass == 0 && !plat_link_is_shared(sg_links[l]))
                continue;
            double u = util_at(periods, first, l, m->start_s);
            const lk_link *a = &st->links[l];
            const lk_link *b = best >= 0 ? &st->links[best] : NULL;
            bool better = !b || u > best_u;
            if (b && u == best_u) {
                double load_a = a->bytes + a->background_bytes;
                double load_b = b->bytes + b->background_bytes;
                better = a->bandwidth_Bps < b->bandwidth_Bps ||
                         (a->bandwidth_Bps == b->bandwidth_Bps &&
                          (load_a > load_b || (load_a == load_b && l < best)));
            }
            if (better)
                best = l, best_u = u;
        }
    return best;
}

/* Whether some job message waited (waiting_s_of not 0): else no busy period is kept. */
static bool any_waiting(const lk_collector *c)
{
    for (size_t i = 0; i < c->n_msgs; i++)
        if (c->msgs[i].job >= 0 && waiting_s_of(&c->msgs[i], &c->pairs[c->msgs[i].pair]) != 0)
            return true;
    return false;
}

/* Charge every job message's waiting to its bottleneck's kind (periods from lk__sweep_busy). */
static void wait_by_kind(const lk_collector *c, const int *route_links, lk_stats *st,
                         const sg_link_t *sg_links, const lk_periods *periods)
{
    for (size_t i = 0; i < c->n_msgs; i++) {
        const lk_msg *m = &c->msgs[i];
        const lk_pair *pr = &c->pairs[m->pair];
        double waiting_s = m->job >= 0 ? waiting_s_of(m, pr) : 0;
        if (waiting_s == 0)
            continue;
        int l = bottleneck_of(m, pr, route_links, st, sg_links, periods->v, periods->first);
        st->waiting_by_kind_s[l < 0 ? LK_OTHER : st->links[l].kind] += waiting_s;
    }
}

/* Mean utilisation per link, the per-kind summary and the top links. */
static void summarise(lk_stats *st)
{
    for (int i = 0; i < LK_TOP; i++)
        st->top[i] = -1;
    for (int i = 0; i < st->n_links; i++) {
        lk_link *l = &st->links[i];
        double carried = l->bytes + l->background_bytes;
        if (l->bandwidth_Bps > 0 && st->makespan_s > 0)
            l->mean_util = carried / (l->bandwidth_Bps * st->makespan_s);
        if (!(carried > 0))
            continue;
        lk_kind_stats *k = &st->by_kind[l->kind];
        k->links_used++;
        k->bytes += carried;
        k->mean_util += l->mean_util;
        if (l->mean_util > k->max_mean_util)
            k->max_mean_util = l->mean_util;
        if (l->peak_util > k->peak_util)
            k->peak_util = l->peak_util;
        /* Insert into the top list: higher mean first; links come in name order, so on a tie
         * the earlier name stays ahead. */
        int pos = LK_TOP;
        while (pos > 0 && (st->top[pos - 1] < 0 || st->links[st->top[pos - 1]].mean_util <
                                                      l->mean_util))
            pos--;
        if (pos < LK_TOP) {
            memmove(&st->top[pos + 1], &st->top[pos], (size_t)(LK_TOP - 1 - pos) * sizeof(int));
            st->top[pos] = i;
        }
    }
    for (int k = 0; k < LK_KIND_COUNT; k++)
        if (st->by_kind[k].links_used)
            st->by_kind[k].mean_util /= st->by_kind[k].links_used;
}

int lk_end(lk_collector *c, double makespan_s, lk_stats *st, char *err)
{
    memset(st, 0, sizeof *st);
    long lost = lk_sg_lost(); /* before the sink goes: that forgets what is in flight */
    lk_sg_set_sink(NULL, NULL);
    int status = HS_OK;
    sg_link_t *links = NULL;
    lk_link_ix *ix = NULL;
    int *route_links = NULL;
    lk_periods periods = {0};
    if (c->failed)
        status = hs_fail(err, HS_EINTERNAL, "link statistics: out of memory (or a message "
                         "between hosts that are not GPUs) after %zu messages", c->n_msgs);
    else if (lost)
        status = hs_fail(err, HS_EINTERNAL, "link statistics: %ld message(s) posted but never "
                         "reported complete by SimGrid", lost);
    st->makespan_s = makespan_s;
    st->n_jobs = c->n_jobs;
    if (status == HS_OK) {
        st->jobs = calloc((size_t)c->n_jobs, sizeof *st->jobs);
        if (!st->jobs)
            status = hs_fail(err, HS_EINTERNAL, "out of memory for link statistics");
    }
    if (status == HS_OK)
        status = list_links(st, &links, &ix, err);
    if (status == HS_OK)
        status = resolve_routes(c, ix, st->n_links, &route_links, err);
    bool waited = status == HS_OK && any_waiting(c);
    if (status == HS_OK) {
        charge(c, route_links, st);
        status = lk__sweep_busy(c, route_links, st, waited ? &periods : NULL, err);
    }
    if (status == HS_OK && waited)
        wait_by_kind(c, route_links, st, links, &periods);
    if (status == HS_OK)
        summarise(st);
    xbt_free(links);
    free(ix);
    free(route_links);
    free(periods.v);
    free(periods.first);
    lk__collector_free(c);
    if (status != HS_OK)
        lk_stats_free(st);
    return status;
}

void lk_stats_free(lk_stats *st)
{
    free(st->links);
    free(st->jobs);
    memset(st, 0, sizeof *st);
}
