/* platroute_int.h: what platroute.c (the walk recorded) and platroute_resolve.c (routes
 * resolved from the record, as SimGrid does) share; private to them (platroute.h is the face). */
#ifndef PLATROUTE_INT_H
#define PLATROUTE_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "platroute.h"

#define PM_MAX_DEPTH 16
#define PM_MAX_HOPS PM_MAX_ROUTE /* links of one route, over every level */

enum { PM_POINT = 1, PM_LINK }; /* what a name is */

/* One name: a netpoint (host, router or zone) or a link. 16 bytes: the table of a whole
 * machine's 50,000 names is looked up about 150,000 times and must stay small. */
typedef struct {
    uint32_t text;   /* the name's offset + 1 in plat_machine.text; 0: free slot */
    uint32_t hash;   /* the high half of hash_text(name): compared before the text */
    int32_t id;      /* into points, or the link's first direction in links */
    uint8_t kind;    /* PM_POINT or PM_LINK */
    bool split;      /* a split-duplex link: id is UP, id + 1 DOWN */
} pm_name;

typedef struct {
    int zone;        /* the zone holding it (for a zone: its parent, -1 for the root) */
    int star;        /* a star zone's child: its entry in stars, else -1 */
} pm_point;

typedef struct {
    int parent;      /* -1 for the root */
    int point;       /* the zone's own netpoint */
    pg_routing routing;
} pm_zone;

typedef struct {
    double latency_s, bandwidth_Bps;
    int reverse;     /* the other direction of a split-duplex link; itself for a FATPIPE */
    uint32_t name;   /* the link's name: its offset + 1 in plat_machine.text */
} pm_link;

/* A list of link directions in hops[first .. first + n). */
typedef struct {
    int first, n;
} pm_span;

typedef struct {
    int gateway;     /* netpoint */
    pm_span up, down;
} pm_star;

/* An explicit route of a Full zone, between two of its hosts or routers. */
typedef struct {
    uint64_t key;    /* src * 2^32 + dst + 1; 0: free slot */
    pm_span hops;
} pm_route_entry;

struct plat_machine {
    const pg_params *p;
    unsigned char *recorded;     /* per rack */
    bool failed;
    pm_name *names;              /* open addressing, at most half full */
    size_t names_cap, names_used;
    char *text;                  /* every name, '\0'-terminated, one after the other */
    size_t text_len, text_cap;
    pm_point *points;
    int n_points;
    size_t cap_points;
    pm_zone *zones;
    int n_zones;
    size_t cap_zones;
    pm_link *links;              /* link directions */
    int n_links;
    size_t cap_links;
    int *hops;                   /* link directions of routes and stars */
    int n_hops;
    size_t cap_hops;
    pm_star *stars;
    int n_stars;
    size_t cap_stars;
    pm_route_entry *routes;      /* open addressing */
    size_t routes_cap, routes_used;
    int stack[PM_MAX_DEPTH];     /* the open zones while recording */
    int depth;
};

/* The explicit route of a Full zone from netpoint src to dst, or NULL. */
const pm_route_entry *pm__find_route(const plat_machine *m, int src, int dst);

/* The netpoint called name, or -1. */
int pm__point_of(const plat_machine *m, const char *name);

/* Record the racks of gpus[0 .. n) not recorded yet: 0, or -1 when out of memory. */
int pm__record(plat_machine *m, const int *gpus, int n);

#endif
