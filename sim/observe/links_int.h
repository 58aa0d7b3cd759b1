/* links_int.h: what the link statistics' files share (links.h is the module's public face).
 *   links.c        link names and kinds; the collector that records every transfer during a run
 *   links_stats.c  after the run: routes resolved, bytes charged, bottlenecks
 *   links_busy.c   after the run: each link's busy periods, busy time and peak utilisation
 *   links_print.c  the CSV and the summaries
 *   links_sg.cpp   the SimGrid signals the collector listens to (links_sg.h)
 * Nothing here is for use outside sim/observe. */
#ifndef LINKS_INT_H
#define LINKS_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <simgrid/forward.h>

#include "links.h"

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

/* A GPU pair some message used, and its route. Endpoints are GPU indices, or n_gpus + g for
 * a host memory (a staged message's two copies, sim/engine/engine_p2p.c; lk_collector). */
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
    sg_host_t *endpoint;    /* n_endpoints: the GPUs, then at n_gpus + g the host memory GPU g
                             * is the first to stage through (else NULL) */
    int n_hosts;            /* endpoints that exist */
    int n_endpoints;        /* 2 n_gpus */
    lk_msg *msgs;
    size_t n_msgs, cap_msgs;
    lk_pair *pairs;
    int n_pairs;
    size_t cap_pairs;
    uint64_t *pair_keys;    /* open addressing: src * n_endpoints + dst + 1; 0 = free */
    int *pair_slot;         /* the pair index in the same slot */
    size_t pair_cap;        /* slots, a power of two */
    bool failed;            /* out of memory or an unknown host while collecting */
};

/* One busy period of one link (a maximal interval with a message on it). */
typedef struct {
    int link;           /* index into lk_stats.links */
    double from_s;      /* its start */
    double util;        /* its bytes / (bandwidth x length), 0 if it lasted no time */
} lk_period;

/* The busy periods of a run, kept for charging waiting to bottlenecks. */
typedef struct {
    lk_period *v;       /* grouped by link, each link's in time order */
    size_t n, cap;
    size_t *first;      /* n_links + 1: link l's periods are v[first[l] .. first[l+1]) */
    bool oom;           /* while collecting */
} lk_periods;

/* The message indices 0 .. n-1 in order of start_s, equal starts in index order (a radix
 * sort, linear in n); NULL when out of memory (links_busy.c). Free with free(). */
uint32_t *lk__order_by_start(const lk_msg *msgs, size_t n);

/* Busy time and peak utilisation of every link of st (links in name order, bandwidths set)
 * from c's messages routed over route_links (lk_pair.first/n), and, if periods is not NULL,
 * every busy period grouped by link (free periods->v and ->first). links_busy.c. */
int lk__sweep_busy(const lk_collector *c, const int *route_links, lk_stats *st,
                   lk_periods *periods, char *err);

/* Fill name, kind, direction and bandwidth of l from SimGrid's link name (links.c); shared:
 * the link is a FATPIPE (one link both ways). */
void lk__describe(const char *sg_name, int shared, lk_link *l);

/* Free a collector and what it recorded (links.c). */
void lk__collector_free(lk_collector *c);

#endif
