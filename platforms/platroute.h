/* platroute.h: the routes of a generated machine, computed without SimGrid (private to
 * platforms/; plat_route is the public face).
 *
 * The machine's walk (pg_describe) is recorded, rack by rack as GPUs are asked about, and a
 * route is resolved the way SimGrid 3.32 resolves it (NetZoneImpl::get_global_route): the local
 * route between the two ancestors in the common ancestor zone first, then recursively from the
 * source to that route's source gateway and from its destination gateway to the destination.
 * Latencies are summed in exactly SimGrid's order from the same text values (un_parse reads
 * them as SimGrid does), so the doubles are identical; test_platform_gen compares them with
 * SimGrid's on every preset. */
#ifndef PLATROUTE_H
#define PLATROUTE_H

#include <stdbool.h>
#include <stdint.h>

#include "platgen.h"

typedef struct plat_machine plat_machine;

/* An empty record of the machine of checked parameters (kept by pointer). */
int pm_open(const pg_params *params, plat_machine **m, char *err);
void pm_free(plat_machine *m);

/* The route from GPU a to GPU b (rank-order indices, a != b): its latency (sum over its links),
 * bandwidth (its bottleneck) and first link's latency and bandwidth. -1 when the machine cannot
 * be recorded (out of memory) or has no such route (a bug). */
int pm_route(plat_machine *m, int gpu_a, int gpu_b, double *latency_s, double *bandwidth_Bps,
             double *first_latency_s, double *first_bandwidth_Bps);

/* One link direction of a route: an id the same for every route crossing it, its bandwidth,
 * and whether flows crossing it share it (a split-duplex link's direction: SimGrid divides
 * its bandwidth among them; a FATPIPE gives each flow the whole). */
typedef struct pm_link_use {
    uintptr_t id;         /* a generated machine's link index, or a SimGrid link's address */
    double bandwidth_Bps; /* the direction's bandwidth */
    bool shared;          /* its flows divide its bandwidth (not a FATPIPE) */
} pm_link_use;

/* The route from GPU a to GPU b (a != b) as its link directions in order into use (at most
 * max), and its latency as pm_route's. The number of links, or -1 as pm_route (or more than
 * max). */
int pm_route_links(plat_machine *m, int gpu_a, int gpu_b, pm_link_use *use, int max,
                   double *latency_s);

/* The route from host host_a to host host_b (GPUs or host memories, a GPU index of each one's
 * node for the racks to record), as SimGrid builds it from the zones: its link directions in
 * order into hops (at most max; names valid until the next call) and its latency summed in
 * SimGrid's order. The number of hops, or -1 (out of memory, no such route, more than max). */
#define PM_MAX_ROUTE 64
int pm_hops(plat_machine *m, int gpu_a, const char *host_a, int gpu_b, const char *host_b,
            pg_hop *hops, int max, double *latency_s);

#endif
