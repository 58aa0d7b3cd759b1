/* links_int.h: what the link statistics' files share (links.h is the module's public face).
 *   links.c        link names and kinds; the collector that records every transfer during a run
 *   links_stats.c  after the run: routes resolved, bytes charged, busy periods, bottlenecks
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
 * a host memory (a staged message's two copies, sim/engine/engine_comm.c; lk_collector). */
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
    int n_pairs, cap_pairs;
    uint64_t *pair_keys;    /* open addressing: src * n_endpoints + dst + 1; 0 = free */
    int *pair_slot;         /* the pair index in the same slot */
    size_t pair_cap;        /* slots, a power of two */
    bool failed;            /* out of memory or an unknown host while collecting */
};

/* Fill name, kind, direction and bandwidth of l from SimGrid's link name (links.c); shared:
 * the link is a FATPIPE (one link both ways). */
void lk__describe(const char *sg_name, int shared, lk_link *l);

/* Free a collector and what it recorded (links.c). */
void lk__collector_free(lk_collector *c);

#endif
