/* links.c: link statistics of a simulated run (links.h).
 *
 * During the run the collector only appends each transfer (hosts as endpoint indices: GPUs,
 * then the nodes' host memories; bytes, start, end, job) to an array: SimGrid calls it from
 * inside its kernel, where less is better. After the run, lk_end resolves each distinct
 * endpoint pair's route once (sg_host_get_route) and charges every transfer to every link of
 * its route. A message staged through host memory is two transfers, the second out of host
 * memory: it loads links but is not counted as another message. Busy time is a sweep over the messages' start and
 * end events in time order, counting per link how many are on it; the same sweep cuts each
 * link's time into busy periods (maximal intervals with a message on it). A message lies
 * wholly inside one busy period of every link it crosses, so the bytes of a period are exact,
 * and the peak utilisation is the fullest period's bytes / (bandwidth x length). SimGrid's
 * link load plugin was the other candidate: in 3.32 it cannot track split-duplex links and
 * samples a link's load only when a message on it starts or ends, missing rate changes caused
 * elsewhere. Memory: 40 bytes per message (a step-by-step ring of 1024 GPUs, about 2 million
 * messages, needs 80 MB).
 *
 * CSV columns (one row per link direction; README "Link statistics"):
 *   link            the platform's link name (SimGrid's _UP/_DOWN suffix removed)
 *   kind            nvlink, pcie, nic, leaf-switch, leaf-up, rack-switch, rack-up, spine, other
 *   direction       up (away from the GPU), down, or both (a switch: one link both ways)
 *   bandwidth_Bps   of this direction
 *   messages        job messages that crossed it
 *   bytes           their payload
 *   background_bytes  background traffic that crossed it
 *   busy_s          time at least one message or background transfer was on it
 *   mean_utilisation  (bytes + background_bytes) / (bandwidth_Bps x iteration time)
 *   peak_utilisation  the fullest busy period: its bytes / (bandwidth_Bps x its length)
 * A switch (FATPIPE) limits each flow to its bandwidth, not their sum, so its utilisations can
 * exceed 1. */
#include "links.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <simgrid/engine.h>
#include <simgrid/host.h>
#include <simgrid/link.h>
#include <xbt/dynar.h>
#include <xbt/sysdep.h>

#include "links_sg.h"

/* SimGrid's default precision/timing: event times are exact to about this much. */
#define LK_TIMING_PRECISION_S 1e-9


/* One message as SimGrid ran it. */
typedef struct {
    double start_s;     /* transfer start (both sides there) */
    double end_s;       /* arrival */
    double bytes;
    int pair;           /* index into the collector's pairs */
    int job;            /* job tag of the sender, -1 for background */
} lk_msg;

/* A GPU pair some message used, and its route. Endpoints are GPU indices, or n_gpus + node
 * for a node's host memory (a staged message's two copies, sim/engine_comm.c). */
typedef struct {
    int src, dst;       /* endpoint indices */
    int first, n;       /* its links at route_links[first .. first+n) */
    double latency_s;   /* plat_route */
    double bandwidth_Bps;
} lk_pair;

/* A host pointer and its endpoint index, sorted by pointer for look-ups. */
typedef struct {
    sg_host_t host;
    int gpu;
} lk_host_ix;

/* A link pointer and its index in the name-ordered list, sorted by pointer. */
typedef struct {
    sg_link_t link;
    int index;
} lk_link_ix;

struct lk_collector {
    const plat_platform *plat;
    int n_jobs;
    int *job_of_gpu;        /* per GPU: job tag */
    lk_host_ix *hosts;      /* n_hosts endpoints, sorted by pointer */
    sg_host_t *endpoint;    /* n_endpoints: the GPUs, then each node's host memory (or NULL) */
    int n_hosts;            /* endpoints that exist */
    int n_endpoints;        /* n_gpus + n_nodes */
    lk_msg *msgs;
    size_t n_msgs, cap_msgs;
    lk_pair *pairs;
    int n_pairs, cap_pairs;
    uint64_t *pair_keys;    /* open addressing: src * n_endpoints + dst + 1; 0 = free */
    int *pair_slot;         /* the pair index in the same slot */
    size_t pair_cap;        /* slots, a power of two */
    bool failed;            /* out of memory or an unknown host while collecting */
};

/* ---- names -------------------------------------------------------------------------------- */

static const char *kind_names[LK_KIND_COUNT] = {
    "nvlink", "pcie", "nic", "leaf-switch", "leaf-up", "rack-switch", "rack-up", "spine", "other"};

const char *lk_kind_name(lk_kind kind) { return kind < LK_KIND_COUNT ? kind_names[kind] : "?"; }

const char *lk_direction_name(lk_direction dir)
{
    return dir == LK_UP ? "up" : dir == LK_DOWN ? "down" : "both";
}

/* "<letter><digits>-<rest>": the generator's naming of nodes (n), leaves (l) and racks (r). */
static const char *after_prefix(const char *name, char letter)
{
    if (name[0] != letter || name[1] < '0' || name[1] > '9')
        return NULL;
    const char *p = name + 1;
    while (*p >= '0' && *p <= '9')
        p++;
    return *p == '-' ? p + 1 : NULL;
}

static lk_kind kind_of(const char *name)
{
    const char *rest;
    if ((rest = after_prefix(name, 'n'))) {
        if (strncmp(rest, "nvl", 3) == 0)
            return LK_NVLINK;
        if (strncmp(rest, "pcie", 4) == 0)
            return LK_PCIE;
        if (strncmp(rest, "nic", 3) == 0)
            return LK_NIC;
    } else if ((rest = after_prefix(name, 'l'))) {
        if (strcmp(rest, "switch") == 0)
            return LK_LEAF_SWITCH;
        if (strcmp(rest, "uplink") == 0)
            return LK_LEAF_UP;
    } else if ((rest = after_prefix(name, 'r'))) {
        if (strcmp(rest, "switch") == 0)
            return LK_RACK_SWITCH;
        if (strcmp(rest, "uplink") == 0)
            return LK_RACK_UP;
    } else if (strcmp(name, "spine-switch") == 0) {
        return LK_SPINE;
    }
    return LK_OTHER;
}

/* Fill name, direction and kind from SimGrid's name ("x_UP", "x_DOWN" or "x"). */
static void describe(const char *sg_name, int shared, lk_link *l)
{
    size_t n = strlen(sg_name);
    l->direction = LK_BOTH;
    if (shared && n > 3 && strcmp(sg_name + n - 3, "_UP") == 0) {
        l->direction = LK_UP;
        n -= 3;
    } else if (shared && n > 5 && strcmp(sg_name + n - 5, "_DOWN") == 0) {
        l->direction = LK_DOWN;
        n -= 5;
    }
    if (n >= sizeof l->name)
        n = sizeof l->name - 1;
    memcpy(l->name, sg_name, n);
    l->name[n] = '\0';
    l->kind = kind_of(l->name);
}

/* ---- collecting --------------------------------------------------------------------------- */

static int cmp_host_ix(const void *a, const void *b)
{
    uintptr_t x = (uintptr_t)((const lk_host_ix *)a)->host;
    uintptr_t y = (uintptr_t)((const lk_host_ix *)b)->host;
    return x < y ? -1 : x > y;
}

static int gpu_of_host(const lk_collector *c, sg_host_t host)
{
    lk_host_ix key = {host, -1};
    const lk_host_ix *hit = bsearch(&key, c->hosts, (size_t)c->n_hosts, sizeof key,
                                    cmp_host_ix);
    return hit ? hit->gpu : -1;
}

static size_t pair_hash(uint64_t key, size_t cap)
{
    return (size_t)((key * UINT64_C(0x9E3779B97F4A7C15)) >> 17) & (cap - 1);
}

static int pair_grow(lk_collector *c)
{
    size_t cap = c->pair_cap ? 2 * c->pair_cap : 1024;
    uint64_t *keys = calloc(cap, sizeof *keys);
    int *slot = malloc(cap * sizeof *slot);
    if (!keys || !slot) {
        free(keys);
        free(slot);
        return -1;
    }
    for (size_t i = 0; i < c->pair_cap; i++) {
        if (!c->pair_keys[i])
            continue;
        size_t j = pair_hash(c->pair_keys[i], cap);
        while (keys[j])
            j = (j + 1) & (cap - 1);
        keys[j] = c->pair_keys[i];
        slot[j] = c->pair_slot[i];
    }
    free(c->pair_keys);
    free(c->pair_slot);
    c->pair_keys = keys;
    c->pair_slot = slot;
    c->pair_cap = cap;
    return 0;
}

/* The pair's index, added if new; -1 when out of memory. */
static int pair_index(lk_collector *c, int src, int dst)
{
    if (2 * ((size_t)c->n_pairs + 1) > c->pair_cap && pair_grow(c) != 0)
        return -1;
    uint64_t key = (uint64_t)src * (uint64_t)c->n_endpoints + (uint64_t)dst + 1;
    size_t j = pair_hash(key, c->pair_cap);
    while (c->pair_keys[j] && c->pair_keys[j] != key)
        j = (j + 1) & (c->pair_cap - 1);
    if (c->pair_keys[j])
        return c->pair_slot[j];
    if (c->n_pairs == c->cap_pairs) {
        int cap = c->cap_pairs ? 2 * c->cap_pairs : 256;
        lk_pair *p = realloc(c->pairs, (size_t)cap * sizeof *p);
        if (!p)
            return -1;
        c->pairs = p;
        c->cap_pairs = cap;
    }
    c->pairs[c->n_pairs] = (lk_pair){.src = src, .dst = dst};
    c->pair_keys[j] = key;
    c->pair_slot[j] = c->n_pairs;
    return c->n_pairs++;
}

static void note(lk_collector *c, int src, int dst, double bytes, double start_s, double end_s,
                 int job)
{
    if (c->failed)
        return;
    int pair = src >= 0 && dst >= 0 ? pair_index(c, src, dst) : -1;
    if (pair < 0 || (c->n_msgs == c->cap_msgs && c->cap_msgs > SIZE_MAX / 2 / sizeof *c->msgs)) {
        c->failed = true;
        return;
    }
    if (c->n_msgs == c->cap_msgs) {
        size_t cap = c->cap_msgs ? 2 * c->cap_msgs : 4096;
        lk_msg *m = realloc(c->msgs, cap * sizeof *m);
        if (!m) {
            c->failed = true;
            return;
        }
        c->msgs = m;
        c->cap_msgs = cap;
    }
    c->msgs[c->n_msgs++] = (lk_msg){start_s, end_s, bytes, pair, job};
}

static void sink(void *ctx, sg_host_t src, sg_host_t dst, double bytes, double start_s,
                 double end_s)
{
    lk_collector *c = ctx;
    int s = gpu_of_host(c, src), d = gpu_of_host(c, dst), n = c->plat->n_gpus;
    /* a copy out of host memory belongs to the job of the GPU it goes to */
    int job = s >= 0 && s < n ? c->job_of_gpu[s] : d >= 0 && d < n ? c->job_of_gpu[d] : 0;
    note(c, s, d, bytes, start_s, end_s, job);
}

static void collector_free(lk_collector *c)
{
    if (!c)
        return;
    free(c->job_of_gpu);
    free(c->hosts);
    free(c->endpoint);
    free(c->msgs);
    free(c->pairs);
    free(c->pair_keys);
    free(c->pair_slot);
    free(c);
}

int lk_begin(const plat_platform *plat, int n_jobs, lk_collector **col, char *err)
{
    *col = NULL;
    if (n_jobs < 1)
        n_jobs = 1;
    lk_collector *c = calloc(1, sizeof *c);
    int gpn = plat->gpus_per_node > 0 ? plat->gpus_per_node : 1;
    int n_nodes = (plat->n_gpus + gpn - 1) / gpn, n_endpoints = plat->n_gpus + n_nodes;
    if (c) {
        c->job_of_gpu = calloc((size_t)plat->n_gpus, sizeof *c->job_of_gpu);
        c->hosts = malloc((size_t)n_endpoints * sizeof *c->hosts);
        c->endpoint = calloc((size_t)n_endpoints, sizeof *c->endpoint);
    }
    if (!c || !c->job_of_gpu || !c->hosts || !c->endpoint) {
        collector_free(c);
        return hs_fail(err, HS_EINTERNAL, "out of memory for link statistics");
    }
    c->plat = plat;
    c->n_jobs = n_jobs;
    c->n_endpoints = n_endpoints;
    for (int e = 0; e < n_endpoints; e++) {
        c->endpoint[e] = e < plat->n_gpus ? plat->gpus[e]
                                          : plat_host_memory(plat, (e - plat->n_gpus) * gpn);
        if (c->endpoint[e])
            c->hosts[c->n_hosts++] = (lk_host_ix){c->endpoint[e], e};
    }
    qsort(c->hosts, (size_t)c->n_hosts, sizeof *c->hosts, cmp_host_ix);
    if (lk_sg_set_sink(sink, c) != 0) { /* SimGrid's callbacks reach one collector */
        collector_free(c);
        return hs_fail(err, HS_EINTERNAL, "link statistics: another collector is active");
    }
    *col = c;
    return HS_OK;
}

void lk_set_job(lk_collector *col, int gpu, int job)
{
    if (col && gpu >= 0 && gpu < col->plat->n_gpus && job >= 0 && job < col->n_jobs)
        col->job_of_gpu[gpu] = job;
}

void lk_background_send(lk_collector *col, sg_mailbox_t mailbox, int from_gpu, int to_gpu,
                        double bytes, double rate_Bps)
{
    double start_s, end_s;
    lk_sg_send_capped(mailbox, bytes, rate_Bps, &start_s, &end_s);
    if (col)
        note(col, from_gpu, to_gpu, bytes, start_s, end_s, -1);
}

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
        describe(sg_link_get_name(links[i]), sg_link_is_shared(links[i]), &st->links[i]);
        st->links[i].bandwidth_Bps = sg_link_get_bandwidth(links[i]);
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
    size_t cap = 64, used = 0;
    int *out = malloc(cap * sizeof *out);
    xbt_dynar_t d = xbt_dynar_new(sizeof(sg_link_t), NULL);
    if (!out)
        return hs_fail(err, HS_EINTERNAL, "out of memory for routes");
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
        if (used + (size_t)pr->n > cap) {
            while (used + (size_t)pr->n > cap)
                cap *= 2;
            int *grown = realloc(out, cap * sizeof *out);
            if (!grown) {
                free(out);
                xbt_dynar_free(&d);
                return hs_fail(err, HS_EINTERNAL, "out of memory for routes");
            }
            out = grown;
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

/* A message's start (+1) or end (-1), for the busy-time sweep. */
typedef struct {
    double t_s;
    int delta;
    int msg;
} lk_event;

static int cmp_event(const void *a, const void *b)
{
    const lk_event *x = a, *y = b;
    if (x->t_s != y->t_s)
        return x->t_s < y->t_s ? -1 : 1;
    if (x->delta != y->delta) /* starts first: touching intervals stay one busy period */
        return x->delta > y->delta ? -1 : 1;
    return x->msg - y->msg;
}

/* One busy period of one link (a maximal interval with a message on it). */
typedef struct {
    int link;           /* index into lk_stats.links */
    double from_s;      /* its start */
    double util;        /* its bytes / (bandwidth x length), 0 if it lasted no time */
} lk_period;

/* The busy periods of a run, kept for charging waiting to bottlenecks. */
typedef struct {
    lk_period *v;
    size_t n, cap;
    bool oom;
} lk_periods;

static void period_add(lk_periods *p, lk_period period)
{
    if (p->n == p->cap) {
        size_t cap = p->cap ? 2 * p->cap : 1024;
        lk_period *v = realloc(p->v, cap * sizeof *v);
        if (!v) {
            p->oom = true;
            return;
        }
        p->v = v, p->cap = cap;
    }
    p->v[p->n++] = period;
}

/* Busy time and busy periods per link: sweep the events, counting messages on each link. */
static int sweep_busy(const lk_collector *c, const int *route_links, lk_stats *st,
                      lk_periods *periods, char *err)
{
    size_t n_ev = 2 * c->n_msgs;
    lk_event *ev = malloc((n_ev ? n_ev : 1) * sizeof *ev);
    int *on = calloc((size_t)st->n_links + 1, sizeof *on);
    double *since = calloc((size_t)st->n_links + 1, sizeof *since);
    double *period_bytes = calloc((size_t)st->n_links + 1, sizeof *period_bytes);
    if (!ev || !on || !since || !period_bytes) {
        free(ev);
        free(on);
        free(since);
        free(period_bytes);
        return hs_fail(err, HS_EINTERNAL, "out of memory for %zu message events", n_ev);
    }
    for (size_t i = 0; i < c->n_msgs; i++) {
        ev[2 * i] = (lk_event){c->msgs[i].start_s, +1, (int)i};
        ev[2 * i + 1] = (lk_event){c->msgs[i].end_s, -1, (int)i};
    }
    qsort(ev, n_ev, sizeof *ev, cmp_event);
    for (size_t e = 0; e < n_ev; e++) {
        const lk_msg *m = &c->msgs[ev[e].msg];
        const lk_pair *pr = &c->pairs[m->pair];
        double t = ev[e].t_s;
        for (int k = 0; k < pr->n; k++) {
            int l = route_links[pr->first + k];
            lk_link *link = &st->links[l];
            if (ev[e].delta > 0) {
                if (on[l]++ == 0) {
                    since[l] = t;
                    period_bytes[l] = 0;
                }
                period_bytes[l] += m->bytes;
            } else if (--on[l] == 0) {
                double length_s = t - since[l];
                double u = 0;
                link->busy_s += length_s;
                if (length_s > 0 && link->bandwidth_Bps > 0) {
                    u = period_bytes[l] / (link->bandwidth_Bps * length_s);
                    if (u > link->peak_util)
                        link->peak_util = u;
                }
                period_add(periods, (lk_period){l, since[l], u});
            }
        }
    }
    free(ev);
    free(on);
    free(since);
    free(period_bytes);
    return periods->oom ? hs_fail(err, HS_EINTERNAL, "out of memory for busy periods") : HS_OK;
}

/* ---- waiting per bottleneck kind --------------------------------------------------------- */

static int cmp_period(const void *a, const void *b)
{
    const lk_period *x = a, *y = b;
    if (x->link != y->link)
        return x->link - y->link;
    return (x->from_s > y->from_s) - (x->from_s < y->from_s);
}

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
            if (pass == 0 && !sg_link_is_shared(sg_links[l]))
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

/* Charge every job message's waiting to its bottleneck's kind (after sweep_busy, whose
 * periods are sorted here). */
static int wait_by_kind(const lk_collector *c, const int *route_links, lk_stats *st,
                        const sg_link_t *sg_links, lk_periods *periods, char *err)
{
    size_t *first = calloc((size_t)st->n_links + 2, sizeof *first);
    if (!first)
        return hs_fail(err, HS_EINTERNAL, "out of memory for %d links", st->n_links);
    if (periods->n)
        qsort(periods->v, periods->n, sizeof *periods->v, cmp_period);
    for (size_t i = 0; i < periods->n; i++)
        first[periods->v[i].link + 1]++;
    for (int l = 0; l < st->n_links; l++)
        first[l + 1] += first[l];
    for (size_t i = 0; i < c->n_msgs; i++) {
        const lk_msg *m = &c->msgs[i];
        const lk_pair *pr = &c->pairs[m->pair];
        double waiting_s = m->job >= 0 ? waiting_s_of(m, pr) : 0;
        if (waiting_s == 0)
            continue;
        int l = bottleneck_of(m, pr, route_links, st, sg_links, periods->v, first);
        st->waiting_by_kind_s[l < 0 ? LK_OTHER : st->links[l].kind] += waiting_s;
    }
    free(first);
    return HS_OK;
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
    if (status == HS_OK) {
        charge(c, route_links, st);
        status = sweep_busy(c, route_links, st, &periods, err);
    }
    if (status == HS_OK)
        status = wait_by_kind(c, route_links, st, links, &periods, err);
    if (status == HS_OK)
        summarise(st);
    xbt_free(links);
    free(ix);
    free(route_links);
    free(periods.v);
    collector_free(c);
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

/* ---- output ------------------------------------------------------------------------------- */

/* Link names come from the platform file: quote them where the format needs it. */
static void print_csv_name(FILE *f, const char *s)
{
    if (!strpbrk(s, ",\"\n")) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

static void print_json_name(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            fputc('\\', f);
        if ((unsigned char)*s >= 0x20)
            fputc(*s, f);
    }
    fputc('"', f);
}

/* Open PATH.tmp for writing into tmp (LK_TMP_LEN bytes): the CSV is written there and renamed
 * into place, and the early check opens the very same file, so both fail alike. */
#define LK_TMP_LEN 1100
static int open_tmp(const char *path, char *tmp, FILE **f, char *err)
{
    if (snprintf(tmp, LK_TMP_LEN, "%s.tmp", path) >= LK_TMP_LEN)
        return hs_fail(err, HS_EINPUT, "--links: path '%s' is too long", path);
    *f = fopen(tmp, "w");
    if (!*f)
        return hs_fail(err, HS_EINPUT, "--links: cannot write '%s'", tmp);
    return HS_OK;
}

int lk_csv_check(const char *path, char *err)
{
    char tmp[LK_TMP_LEN];
    FILE *f = NULL;
    int status = open_tmp(path, tmp, &f, err);
    if (status != HS_OK)
        return status;
    fclose(f);
    remove(tmp);
    return HS_OK;
}

int lk_write_csv(const lk_stats *st, const char *path, bool all_links, char *err)
{
    char tmp[LK_TMP_LEN];
    FILE *f = NULL;
    int status = open_tmp(path, tmp, &f, err);
    if (status != HS_OK)
        return status;
    fprintf(f, "link,kind,direction,bandwidth_Bps,messages,bytes,background_bytes,busy_s,"
               "mean_utilisation,peak_utilisation\n");
    for (int i = 0; i < st->n_links; i++) {
        const lk_link *l = &st->links[i];
        if (!all_links && !(l->bytes + l->background_bytes > 0))
            continue;
        print_csv_name(f, l->name);
        fprintf(f, ",%s,%s,%.17g,%ld,%.17g,%.17g,%.17g,%.17g,%.17g\n", lk_kind_name(l->kind), lk_direction_name(l->direction), l->bandwidth_Bps,
                l->messages, l->bytes, l->background_bytes, l->busy_s, l->mean_util,
                l->peak_util);
    }
    int bad = ferror(f);
    if (fclose(f) != 0 || bad || rename(tmp, path) != 0) {
        remove(tmp);
        return hs_fail(err, HS_EINPUT, "--links: cannot write '%s'", path);
    }
    return HS_OK;
}

static const lk_traffic *traffic_of(const lk_stats *st, int job)
{
    return job >= 0 && job < st->n_jobs ? &st->jobs[job] : &st->all;
}

void lk_print_summary_table(FILE *out, const lk_stats *st, int job)
{
    const lk_traffic *t = traffic_of(st, job);
    fprintf(out, "  links (link directions that carried traffic, over %.6g s):\n", st->makespan_s);
    fprintf(out, "    %-12s %6s %14s %10s %10s %10s\n", "kind", "used", "bytes", "mean util",
            "max mean", "peak util");
    for (int k = 0; k < LK_KIND_COUNT; k++) {
        const lk_kind_stats *ks = &st->by_kind[k];
        if (ks->links_used)
            fprintf(out, "    %-12s %6d %14.6g %10.4f %10.4f %10.4f\n", kind_names[k],
                    ks->links_used, ks->bytes, ks->mean_util, ks->max_mean_util, ks->peak_util);
    }
    fprintf(out, "  most utilised links (mean over the iteration, peak):\n");
    for (int i = 0; i < LK_TOP && st->top[i] >= 0; i++) {
        const lk_link *l = &st->links[st->top[i]];
        fprintf(out, "    %-20s %-4s %-11s %8.4f %8.4f\n", l->name, lk_direction_name(l->direction),
                kind_names[l->kind], l->mean_util, l->peak_util);
    }
    fprintf(out, "  congestion share: %.4f (%.6g s of %.6g s of message time waiting on shared "
            "links, %ld messages)\n",
            t->congestion_share, t->waiting_s, t->actual_s, t->messages);
}

void lk_print_summary_json(FILE *out, const lk_stats *st, int job)
{
    const lk_traffic *t = traffic_of(st, job);
    fprintf(out, "{\"by_kind\": {");
    const char *sep = "";
    for (int k = 0; k < LK_KIND_COUNT; k++) {
        const lk_kind_stats *ks = &st->by_kind[k];
        if (!ks->links_used)
            continue;
        fprintf(out, "%s\"%s\": {\"links\": %d, \"bytes\": %.17g, \"mean_utilisation\": %.17g, "
                "\"max_mean_utilisation\": %.17g, \"peak_utilisation\": %.17g}",
                sep, kind_names[k], ks->links_used, ks->bytes, ks->mean_util, ks->max_mean_util,
                ks->peak_util);
        sep = ", ";
    }
    fprintf(out, "}, \"top\": [");
    for (int i = 0; i < LK_TOP && st->top[i] >= 0; i++) {
        const lk_link *l = &st->links[st->top[i]];
        fprintf(out, "%s{\"link\": ", i ? ", " : "");
        print_json_name(out, l->name);
        fprintf(out, ", \"direction\": \"%s\", \"kind\": \"%s\", "
                "\"bytes\": %.17g, \"busy_s\": %.17g, \"mean_utilisation\": %.17g, "
                "\"peak_utilisation\": %.17g}",
                lk_direction_name(l->direction), kind_names[l->kind],
                l->bytes + l->background_bytes, l->busy_s, l->mean_util, l->peak_util);
    }
    fprintf(out, "], \"congestion_share\": %.17g, \"messages\": %ld, \"bytes\": %.17g, "
            "\"route_bytes\": %.17g, \"message_time_s\": %.17g, \"waiting_time_s\": %.17g}",
            t->congestion_share, t->messages, t->bytes, t->route_bytes, t->actual_s,
            t->waiting_s);
}
