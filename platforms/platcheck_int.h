/* platcheck_int.h: what the platform checker's files share (platcheck.h is its public face).
 * The files are layers: a file calls only files of the layers below its own (the calls in
 * brackets), never one of its layer or above. Bottom first:
 *   0  platcheck_base.c   the name table, the line, messages, attributes, a count
 *   1  platcheck_facts.c  the hybridsim properties and the GPU hosts -> plat_facts     (base)
 *   2  platcheck_tree.c   zones, hosts, routers, links and the routes between them
 *                                                                            (facts, base)
 *      platcheck_reach.c  every GPU reaches every other (and its node's host memory) the way
 *                         SimGrid resolves routes                                      (base)
 *   3  platcheck.c        the walk over the file, plat_check_file  (tree, reach, facts, base)
 * Nothing here is for use outside platforms/. */
#ifndef PLATCHECK_INT_H
#define PLATCHECK_INT_H

#include <stdbool.h>
#include <stddef.h>

#include <libxml/xmlreader.h>

#include "platcheck.h"

/* ---------------------------------------------------------------- a table of names */

/* One declared name: what it is, where it lives and where it was declared. */
typedef struct {
    char *name;   /* NULL in an empty slot */
    int kind;     /* CK_HOST, CK_ROUTER, CK_ZONE, CK_LINK_*, CK_ROUTE */
    int zone;     /* the zone that declares it (for a zone: itself) */
    long line;    /* where it was declared */
    int point;    /* netpoints: its ck_point number */
} ck_entry;

/* Open addressing, linear probing, never more than half full. */
typedef struct {
    ck_entry *slots;
    size_t cap;   /* a power of two, or 0 before the first insertion */
    size_t count;
} ck_table;

enum { CK_HOST = 1, CK_ROUTER, CK_ZONE, CK_LINK_SHARED, CK_LINK_SPLIT, CK_ROUTE };

#define CK_NPROPS 8 /* the hybridsim properties of the root zone (ck_props in platcheck_facts.c) */

/* ---------------------------------------------------------------- what routing needs */

/* A netpoint (host, router or zone) by number, in declaration order. */
typedef struct {
    const char *name;   /* the netpoints table's copy */
    int kind;           /* CK_HOST, CK_ROUTER or CK_ZONE */
    int zone;           /* the zone declaring it (a zone: itself) */
} ck_point;

/* One direction of a declared route, between two points of one zone (<route>) or two child
 * zones of it (<zoneRoute>, through gateways); a symmetrical route is two. */
typedef struct {
    int src, dst;       /* ck_point numbers */
    int gw_src, gw_dst; /* a zoneRoute's gateways (ck_point numbers); -1 for a <route> */
} ck_edge;

/* A zone as routing sees it. */
typedef struct {
    int point;          /* its netpoint */
    long line;          /* where it was declared */
} ck_zone_info;

/* ---------------------------------------------------------------- the checker's state */

#define CK_MAX_DEPTH 32
#define CK_VALUE_LEN 512
#define CK_PROP_VALUE_LEN 4096

/* What is known about an open zone while its children are read. SimGrid's DTD allows either
 * zones and links then zoneRoutes, or hosts, routers and links then routes. */
typedef enum { ZM_OPEN = 0, ZM_ZONES, ZM_HOSTS } ck_zone_mode;

typedef struct {
    int id;               /* index of the zone, parent in ck_state.zone_parent */
    ck_zone_mode mode;
    int routes_started;   /* a route was seen: no more declarations */
    int children_started; /* a child other than prop was seen: no more props */
} ck_zone;

#define CK_FORMAT "1" /* hybridsim:format this code reads */

/* Largest machine accepted (keeps nodes * gpus_per_node far from overflow). */
#define CK_MAX_NODES 1000000
#define CK_MAX_GPUS_PER_NODE 1024

typedef struct {
    const char *path;
    xmlTextReaderPtr reader;
    char *err;
    int rc;                          /* first failure, HS_OK while all is well */
    long xml_line;                   /* libxml2's first error, if any */
    char xml_msg[256];
    ck_table netpoints;              /* hosts, routers, zones */
    ck_table links;
    ck_table routes;                 /* "src\x01dst" of every declared route direction */
    char names[CK_MAX_DEPTH][32];    /* element name at each depth of the open path */
    ck_zone zones[CK_MAX_DEPTH];     /* the zone at each depth, if names[] says zone */
    int *zone_parent;                /* zone id -> parent zone id (-1 for the root) */
    ck_zone_info *zone_info;         /* zone id -> what routing needs of it */
    int n_zones;
    size_t zone_cap, zone_info_cap;  /* room in zone_parent, zone_info */
    ck_point *points;                /* every netpoint, by number */
    int n_points;
    size_t cap_points;
    ck_edge *edges;                  /* every route direction */
    int n_edges;
    size_t cap_edges;
    long root_line;                  /* line of the root zone, 0 until seen */
    char root_name[CK_VALUE_LEN];
    int props_done;                  /* the root's properties were read and checked */
    long prop_line[CK_NPROPS];       /* where each property was given, 0 if absent */
    char prop_value[CK_NPROPS][CK_VALUE_LEN];
    int format_seen;
    long route_line;                 /* open route: its line and link count */
    int route_links;
    plat_facts *facts;
    unsigned char *gpu_seen;         /* per rank */
    int node_w, gpu_w;               /* digits of GPU names, -1 until the first */
    char first_gpu[CK_VALUE_LEN];
} ck_state;

/* ---------------------------------------------------------------- platcheck_base.c */

const ck_entry *ck_table_find(const ck_table *t, const char *name);
/* Add name (copied); *fresh is 0 if it was there already (the old entry is returned). NULL
 * when out of memory. */
ck_entry *ck_table_add(ck_table *t, const char *name, int kind, int zone, long line,
                             int *fresh);
void ck_table_free(ck_table *t);

long ck_line(ck_state *s);                 /* the reader's current line */
/* Record the first failure, "path:line: message"; returns s->rc. */
int ck_fail(ck_state *s, long line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int ck_oom(ck_state *s);
/* The current element's attribute into buf: 1 found, 0 absent, -1 failed (s->rc set). */
int ck_attr(ck_state *s, const char *name, char *buf, size_t len);
/* The same for a required attribute: HS_OK, or the failure. */
int ck_need(ck_state *s, const char *element, const char *name, char *buf, size_t len);
/* text as a count in [1, max] into *v: 0, or -1 if it is not one. */
int ck_parse_count(const char *text, int max, int *v);

/* ---------------------------------------------------------------- platcheck_facts.c */

/* A <prop> at this depth: a hybridsim property of the root zone recorded (checked by
 * ck_finish_props), any other passed over. */
int ck_on_prop(ck_state *s, int depth);
/* Check the root zone's hybridsim properties once they have all been read. */
int ck_finish_props(ck_state *s);
/* A host named like a GPU: its rank is checked and recorded. */
int ck_on_gpu(ck_state *s, const char *name, long line);

/* ---------------------------------------------------------------- platcheck_tree.c */

/* The zone an element at this depth belongs to, and the checks of SimGrid's element order. */
ck_zone *ck_parent_zone(ck_state *s, int depth);
int ck_place_in_zone(ck_state *s, int depth, const char *element);
int ck_on_platform(ck_state *s, int depth);
int ck_on_zone(ck_state *s, int depth);
int ck_on_host(ck_state *s, int depth);
int ck_on_router(ck_state *s, int depth);
int ck_on_link(ck_state *s, int depth);
int ck_on_route(ck_state *s, int depth);
int ck_on_zone_route(ck_state *s, int depth);
int ck_on_link_ctn(ck_state *s, int depth);

/* ---------------------------------------------------------------- platcheck_reach.c */

/* Once the file is read: every ordered pair of GPU hosts has a route, and so has each GPU to
 * and from its node's host memory (n<node>-cpu) when there is one; else the failure naming
 * the two hosts and the zone that lacks a route. */
int ck_check_routes(ck_state *s);

#endif
