/* links.c: link statistics of a simulated run (links.h).
 *
 * During the run the collector only appends each transfer (hosts as endpoint indices: GPUs,
 * then the nodes' host memories; bytes, start, end, job) to an array: SimGrid calls it from
 * inside its kernel, where less is better. After the run, lk_end resolves each distinct
 * endpoint pair's route once (sg_host_get_route) and charges every transfer to every link of
 * its route. A message staged through host memory is two transfers, the second out of host
 * memory: it loads links but is not counted as another message. Busy time comes from one walk
 * over the messages in order of their start (links_busy.c), which cuts each link's time into
 * busy periods (maximal intervals with a message on it). A message lies wholly inside one busy
 * period of every link it crosses, so the bytes of a period are exact, and the peak
 * utilisation is the fullest period's bytes / (bandwidth x length). SimGrid's link load plugin
 * was the other candidate: in 3.32 it cannot track split-duplex links and samples a link's
 * load only when a message on it starts or ends, missing rate changes caused elsewhere.
 * Memory: 32 bytes per message recorded, 24 more while the walk orders them (a step-by-step
 * ring of 2048 GPUs, about 8.4 million messages, needs 470 MB at the end).
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
#include "links_int.h"

#include <math.h>
#include <stdbool.h>
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

/* ---- names -------------------------------------------------------------------------------- */

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

/* "uplink", or one of its cables under routed uplinks ("uplink-c07"). */
static bool is_uplink(const char *rest)
{
    if (strncmp(rest, "uplink", 6) != 0)
        return false;
    rest += 6;
    if (*rest == '\0')
        return true;
    if (rest[0] != '-' || rest[1] != 'c' || rest[2] < '0' || rest[2] > '9')
        return false;
    for (rest += 2; *rest >= '0' && *rest <= '9'; rest++)
        ;
    return *rest == '\0';
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
        if (is_uplink(rest))
            return LK_LEAF_UP;
    } else if ((rest = after_prefix(name, 'r'))) {
        if (strcmp(rest, "switch") == 0)
            return LK_RACK_SWITCH;
        if (is_uplink(rest))
            return LK_RACK_UP;
    } else if (strcmp(name, "spine-switch") == 0) {
        return LK_SPINE;
    }
    return LK_OTHER;
}

/* Fill name, direction and kind from SimGrid's name ("x_UP", "x_DOWN" or "x"). */
void lk__describe(const char *sg_name, int shared, lk_link *l)
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
    if (!hs_grow((void **)&c->pairs, &c->cap_pairs, (size_t)c->n_pairs + 1, sizeof *c->pairs))
        return -1;
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
    if (pair < 0 || !hs_grow((void **)&c->msgs, &c->cap_msgs, c->n_msgs + 1, sizeof *c->msgs)) {
        c->failed = true;
        return;
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

void lk__collector_free(lk_collector *c)
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
    int n_endpoints = 2 * plat->n_gpus;
    if (c) {
        c->job_of_gpu = calloc((size_t)plat->n_gpus, sizeof *c->job_of_gpu);
        c->hosts = malloc((size_t)n_endpoints * sizeof *c->hosts);
        c->endpoint = calloc((size_t)n_endpoints, sizeof *c->endpoint);
    }
    if (!c || !c->job_of_gpu || !c->hosts || !c->endpoint) {
        lk__collector_free(c);
        return hs_fail(err, HS_EINTERNAL, "out of memory for link statistics");
    }
    c->plat = plat;
    c->n_jobs = n_jobs;
    c->n_endpoints = n_endpoints;
    for (int e = 0; e < n_endpoints; e++) {
        int g = e - plat->n_gpus; /* host memory: at the first GPU staging through it */
        sg_host_t mem = g >= 0 ? plat_host_memory(plat, g) : NULL;
        c->endpoint[e] = e < plat->n_gpus ? plat->gpus[e]
                         : g == 0 || mem != plat_host_memory(plat, g - 1) ? mem : NULL;
        if (c->endpoint[e])
            c->hosts[c->n_hosts++] = (lk_host_ix){c->endpoint[e], e};
    }
    qsort(c->hosts, (size_t)c->n_hosts, sizeof *c->hosts, cmp_host_ix);
    if (lk_sg_set_sink(sink, c) != 0) { /* SimGrid's callbacks reach one collector */
        lk__collector_free(c);
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

void lk_computed_message(void *col, int from_gpu, int to_gpu, double bytes, double start_s,
                         double end_s)
{
    lk_collector *c = col;
    note(c, from_gpu, to_gpu, bytes, start_s, end_s, c->job_of_gpu[from_gpu]);
}

void lk_background_send(lk_collector *col, sg_mailbox_t mailbox, int from_gpu, int to_gpu,
                        double bytes, double rate_Bps)
{
    double start_s, end_s;
    lk_sg_send_capped(mailbox, bytes, rate_Bps, &start_s, &end_s);
    if (col)
        note(col, from_gpu, to_gpu, bytes, start_s, end_s, -1);
}
