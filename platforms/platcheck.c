/* platcheck.c: reads a platform file with libxml2 before SimGrid does (see platcheck.h).
 *
 * SimGrid 3.32 aborts the whole process on a bad platform file, so everything a hand edit is
 * likely to break is checked here first and reported as "file:line: what". The checks mirror
 * the rules SimGrid enforces with an abort: its DTD's element order, the units of values, that
 * names are unique and declared before use, that a route joins two members of the zone that
 * declares it (a zoneRoute two child zones, through gateways inside them), that a route is not
 * empty nor declared twice, and that split-duplex links are named with a direction. The file
 * is streamed (xmlTextReader), so checking the 4 MB ABCI file costs little memory. */
#include "platcheck.h"

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <libxml/xmlreader.h>

#include "units.h"

/* ---------------------------------------------------------------- a table of names */

/* One declared name: what it is, where it lives and where it was declared. */
typedef struct {
    char *name;   /* NULL in an empty slot */
    int kind;     /* CK_HOST, CK_ROUTER, CK_ZONE, CK_LINK_*, CK_ROUTE */
    int zone;     /* the zone that declares it (for a zone: itself) */
    long line;    /* where it was declared */
} ck_entry;

/* Open addressing, linear probing, never more than half full. */
typedef struct {
    ck_entry *slots;
    size_t cap;   /* a power of two, or 0 before the first insertion */
    size_t count;
} ck_table;

enum { CK_HOST = 1, CK_ROUTER, CK_ZONE, CK_LINK_SHARED, CK_LINK_SPLIT, CK_ROUTE };

static uint64_t hash_name(const char *s)
{
    uint64_t h = 1469598103934665603ULL; /* FNV-1a */
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 1099511628211ULL;
    }
    return h;
}

static ck_entry *table_slot(const ck_table *t, const char *name)
{
    size_t i = hash_name(name) & (t->cap - 1);
    while (t->slots[i].name && strcmp(t->slots[i].name, name) != 0)
        i = (i + 1) & (t->cap - 1);
    return &t->slots[i];
}

static const ck_entry *table_find(const ck_table *t, const char *name)
{
    if (t->cap == 0)
        return NULL;
    const ck_entry *e = table_slot(t, name);
    return e->name ? e : NULL;
}

static int table_grow(ck_table *t)
{
    ck_table bigger = {calloc(t->cap ? t->cap * 2 : 1024, sizeof(ck_entry)),
                       t->cap ? t->cap * 2 : 1024, t->count};
    if (!bigger.slots)
        return -1;
    for (size_t i = 0; i < t->cap; i++)
        if (t->slots[i].name)
            *table_slot(&bigger, t->slots[i].name) = t->slots[i];
    free(t->slots);
    *t = bigger;
    return 0;
}

/* Insert a new name. Returns NULL when out of memory; when the name exists, returns the
 * existing entry with *fresh = 0. */
static const ck_entry *table_add(ck_table *t, const char *name, int kind, int zone, long line,
                                 int *fresh)
{
    if ((t->count + 1) * 2 > t->cap && table_grow(t) != 0)
        return NULL;
    ck_entry *e = table_slot(t, name);
    *fresh = e->name == NULL;
    if (*fresh) {
        if (!(e->name = strdup(name)))
            return NULL;
        e->kind = kind;
        e->zone = zone;
        e->line = line;
        t->count++;
    }
    return e;
}

static void table_free(ck_table *t)
{
    for (size_t i = 0; i < t->cap; i++)
        free(t->slots[i].name);
    free(t->slots);
    memset(t, 0, sizeof *t);
}

/* ---------------------------------------------------------------- checker state */

#define CK_MAX_DEPTH 32
#define CK_VALUE_LEN 512

/* What is known about an open zone while its children are read. SimGrid's DTD allows either
 * zones and links then zoneRoutes, or hosts, routers and links then routes. */
typedef enum { ZM_OPEN = 0, ZM_ZONES, ZM_HOSTS } ck_zone_mode;

typedef struct {
    int id;               /* index of the zone, parent in ck_state.zone_parent */
    ck_zone_mode mode;
    int routes_started;   /* a route was seen: no more declarations */
    int children_started; /* a child other than prop was seen: no more props */
} ck_zone;

/* The hybridsim properties of the root zone, parsed into plat_facts. */
typedef enum { PR_INT, PR_SIZE, PR_TIME, PR_TEXT } ck_prop_type;
static const struct {
    const char *id;
    ck_prop_type type;
    size_t offset; /* into plat_facts */
} ck_props[] = {
    {"hybridsim:nodes", PR_INT, offsetof(plat_facts, nodes)},
    {"hybridsim:gpus_per_node", PR_INT, offsetof(plat_facts, gpus_per_node)},
    {"hybridsim:nodes_per_leaf", PR_INT, offsetof(plat_facts, nodes_per_leaf)},
    {"hybridsim:leaves_per_rack", PR_INT, offsetof(plat_facts, leaves_per_rack)},
    {"hybridsim:gpu_memory_bytes", PR_SIZE, offsetof(plat_facts, gpu_memory_bytes)},
    {"hybridsim:staging_latency_s", PR_TIME, offsetof(plat_facts, staging_latency_s)},
    {"hybridsim:gpu_model", PR_TEXT, offsetof(plat_facts, gpu_model)},
};
#define CK_NPROPS (sizeof ck_props / sizeof ck_props[0])
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
    int n_zones, zone_cap;
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

static long line_of(ck_state *s)
{
    return xmlGetLineNo(xmlTextReaderCurrentNode(s->reader));
}

/* Record the first failure as "file:line: what" (later ones would only repeat it). */
static int __attribute__((format(printf, 3, 4))) fail(ck_state *s, long line, const char *fmt, ...)
{
    char what[HS_ERR_LEN];
    va_list ap;
    if (s->rc != HS_OK)
        return s->rc;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    if (line > 0)
        s->rc = hs_fail(s->err, HS_EINPUT, "%s:%ld: %s", s->path, line, what);
    else
        s->rc = hs_fail(s->err, HS_EINPUT, "%s: %s", s->path, what);
    return s->rc;
}

static int oom(ck_state *s)
{
    if (s->rc == HS_OK)
        s->rc = hs_fail(s->err, HS_EINTERNAL, "%s: out of memory while checking", s->path);
    return s->rc;
}

/* Copy attribute `name` into buf; 0 when absent. A value too long for buf is an error. */
static int attr(ck_state *s, const char *name, char *buf, size_t len)
{
    xmlChar *v = xmlTextReaderGetAttribute(s->reader, (const xmlChar *)name);
    if (!v)
        return 0;
    size_t n = strlen((const char *)v);
    if (n >= len) {
        xmlFree(v);
        fail(s, line_of(s), "attribute %s is too long (%zu characters)", name, n);
        return -1;
    }
    memcpy(buf, v, n + 1);
    xmlFree(v);
    return 1;
}

/* Like attr, but the attribute must be there. */
static int need(ck_state *s, const char *element, const char *name, char *buf, size_t len)
{
    int got = attr(s, name, buf, len);
    if (got == 0)
        fail(s, line_of(s), "<%s> lacks the attribute %s", element, name);
    return got == 1 ? 0 : -1;
}

/* ---------------------------------------------------------------- zones */

static int new_zone_id(ck_state *s, int parent)
{
    if (s->n_zones == s->zone_cap) {
        int cap = s->zone_cap ? s->zone_cap * 2 : 256;
        int *p = realloc(s->zone_parent, cap * sizeof *p);
        if (!p)
            return -1;
        s->zone_parent = p;
        s->zone_cap = cap;
    }
    s->zone_parent[s->n_zones] = parent;
    return s->n_zones++;
}

/* Is zone `inner` zone `outer` or inside it? */
static int zone_within(const ck_state *s, int inner, int outer)
{
    for (int z = inner; z >= 0; z = s->zone_parent[z])
        if (z == outer)
            return 1;
    return 0;
}

/* ---------------------------------------------------------------- properties */

static int parse_count(const char *text, int max, int *v)
{
    char *end;
    errno = 0;
    long x = strtol(text, &end, 10);
    if (end == text || *end != '\0' || errno == ERANGE || x < 1 || x > max)
        return -1;
    *v = (int)x;
    return 0;
}

/* Check the root zone's hybridsim properties once they have all been read. */
static int finish_props(ck_state *s)
{
    plat_facts *f = s->facts;
    if (s->props_done)
        return s->rc;
    s->props_done = 1;
    if (!s->format_seen)
        return fail(s, s->root_line, "root zone '%s' lacks <prop id=\"hybridsim:format\" "
                    "value=\"" CK_FORMAT "\"/>: write hybridsim platforms with `hybridsim "
                    "platform`, or add the hybridsim properties (platforms/README.md)",
                    s->root_name);
    for (size_t i = 0; i < CK_NPROPS; i++) {
        const char *v = s->prop_value[i];
        char *field = (char *)f + ck_props[i].offset;
        long line = s->prop_line[i];
        if (line == 0)
            return fail(s, s->root_line, "root zone '%s' lacks the property %s", s->root_name,
                        ck_props[i].id);
        int max = strcmp(ck_props[i].id, "hybridsim:gpus_per_node") == 0 ? CK_MAX_GPUS_PER_NODE
                                                                          : CK_MAX_NODES;
        switch (ck_props[i].type) {
        case PR_INT:
            if (parse_count(v, max, (int *)field) != 0)
                return fail(s, line, "%s: '%s' is not a count between 1 and %d", ck_props[i].id,
                            v, max);
            break;
        case PR_SIZE:
            if (un_parse(v, UN_SIZE, (double *)field) != 0 || !(*(double *)field > 0))
                return fail(s, line, "%s: '%s' is not a positive size (%s)", ck_props[i].id, v,
                            un_hint(UN_SIZE));
            break;
        case PR_TIME:
            if (un_parse(v, UN_TIME, (double *)field) != 0 || *(double *)field < 0)
                return fail(s, line, "%s: '%s' is not a time (%s)", ck_props[i].id, v,
                            un_hint(UN_TIME));
            break;
        case PR_TEXT:
            if (v[0] == '\0' || strlen(v) >= PLAT_NAME_LEN)
                return fail(s, line, "%s: must be 1 to %d characters", ck_props[i].id,
                            PLAT_NAME_LEN - 1);
            snprintf(field, PLAT_NAME_LEN, "%s", v);
            break;
        }
    }
    f->n_gpus = f->nodes * f->gpus_per_node; /* both bounded: no overflow */
    f->gpu_names = calloc(f->n_gpus, sizeof *f->gpu_names);
    s->gpu_seen = calloc(f->n_gpus, 1);
    if (!f->gpu_names || !s->gpu_seen)
        return oom(s);
    return HS_OK;
}

static int on_prop(ck_state *s, int depth)
{
    char id[CK_VALUE_LEN], value[CK_VALUE_LEN];
    long line = line_of(s);
    if (need(s, "prop", "id", id, sizeof id) || need(s, "prop", "value", value, sizeof value))
        return s->rc;
    /* Only the root zone's own properties describe the machine. */
    if (depth != 2 || strcmp(s->names[1], "zone") != 0 || strncmp(id, "hybridsim:", 10) != 0)
        return HS_OK;
    if (strcmp(id, "hybridsim:format") == 0) {
        if (strcmp(value, CK_FORMAT) != 0)
            return fail(s, line, "hybridsim:format is '%s'; this hybridsim reads format "
                        CK_FORMAT, value);
        s->format_seen = 1;
        return HS_OK;
    }
    for (size_t i = 0; i < CK_NPROPS; i++)
        if (strcmp(id, ck_props[i].id) == 0) {
            if (s->prop_line[i])
                return fail(s, line, "%s is given twice (also at line %ld)", id,
                            s->prop_line[i]);
            s->prop_line[i] = line;
            memcpy(s->prop_value[i], value, sizeof value);
        }
    return HS_OK; /* other hybridsim:* properties are informative */
}

/* ---------------------------------------------------------------- GPU hosts */

/* Read "<digits>" at *p: value and width; -1 when there are none or too many. */
static int read_number(const char **p, int *value, int *width)
{
    int v = 0, w = 0;
    while (**p >= '0' && **p <= '9') {
        if (++w > 9)
            return -1;
        v = v * 10 + (**p - '0');
        (*p)++;
    }
    if (w == 0)
        return -1;
    *value = v;
    *width = w;
    return 0;
}

/* A GPU host is named n<node>-gpu<g>; other hosts may exist and are not GPUs. */
static int gpu_name(const char *name, int *node, int *node_w, int *gpu, int *gpu_w)
{
    const char *p = name;
    if (*p++ != 'n' || read_number(&p, node, node_w) != 0 || strncmp(p, "-gpu", 4) != 0)
        return 0;
    p += 4;
    return read_number(&p, gpu, gpu_w) == 0 && *p == '\0';
}

static int on_gpu(ck_state *s, const char *name, long line)
{
    int node, node_w, g, g_w;
    plat_facts *f = s->facts;
    if (!gpu_name(name, &node, &node_w, &g, &g_w))
        return HS_OK;
    if (s->node_w < 0) {
        s->node_w = node_w;
        s->gpu_w = g_w;
        snprintf(s->first_gpu, sizeof s->first_gpu, "%s", name);
    } else if (node_w != s->node_w || g_w != s->gpu_w) {
        return fail(s, line, "GPU host '%s' is numbered with other widths than '%s': GPU "
                    "names must be zero-padded alike so that name order is rank order",
                    name, s->first_gpu);
    }
    if (node >= f->nodes)
        return fail(s, line, "GPU host '%s': node %d, but hybridsim:nodes is %d", name, node,
                    f->nodes);
    if (g >= f->gpus_per_node)
        return fail(s, line, "GPU host '%s': GPU %d, but hybridsim:gpus_per_node is %d", name,
                    g, f->gpus_per_node);
    int rank = node * f->gpus_per_node + g;
    s->gpu_seen[rank] = 1;
    if (!(f->gpu_names[rank] = strdup(name)))
        return oom(s);
    return HS_OK;
}

static int check_all_gpus(ck_state *s)
{
    plat_facts *f = s->facts;
    for (int r = 0; r < f->n_gpus; r++)
        if (!s->gpu_seen[r])
            return fail(s, s->prop_line[0],
                        "no GPU host for node %d GPU %d (expected hosts n<node>-gpu<g> for "
                        "hybridsim:nodes %d x hybridsim:gpus_per_node %d)",
                        r / f->gpus_per_node, r % f->gpus_per_node, f->nodes,
                        f->gpus_per_node);
    return HS_OK;
}

/* ---------------------------------------------------------------- declarations */

/* The zone a child at `depth` belongs to, or NULL when its parent is not a zone. */
static ck_zone *parent_zone(ck_state *s, int depth)
{
    if (depth < 1 || strcmp(s->names[depth - 1], "zone") != 0)
        return NULL;
    return &s->zones[depth - 1];
}

/* Where in its zone an element may come, by SimGrid's DTD. */
static int place_in_zone(ck_state *s, int depth, const char *element)
{
    ck_zone *z = parent_zone(s, depth);
    long line = line_of(s);
    if (!z)
        return fail(s, line, "<%s> inside <%s>: it belongs in a <zone> (is a tag above left "
                    "open?)", element, depth > 0 ? s->names[depth - 1] : "nothing");
    int is_route = strcmp(element, "route") == 0 || strcmp(element, "zoneRoute") == 0;
    int wants_zones = strcmp(element, "zone") == 0 || strcmp(element, "zoneRoute") == 0;
    int wants_hosts = strcmp(element, "host") == 0 || strcmp(element, "router") == 0 ||
                      strcmp(element, "route") == 0;
    z->children_started = 1;
    if (z->routes_started && !is_route)
        return fail(s, line, "<%s> after a route: declarations must come before the routes of "
                    "a zone", element);
    if (is_route)
        z->routes_started = 1;
    if (z->mode == ZM_OPEN) {
        /* SimGrid's parser decides what a zone holds from its first child: a link first
         * makes it a zone of hosts. */
        z->mode = wants_zones ? ZM_ZONES : ZM_HOSTS;
        return HS_OK;
    }
    if (z->mode == ZM_HOSTS && wants_zones)
        return fail(s, line, "<%s> in a zone that holds hosts, routers or starts with a link: "
                    "a zone holds either child zones (first child a zone) or hosts", element);
    if (z->mode == ZM_ZONES && wants_hosts)
        return fail(s, line, "<%s> in a zone that holds child zones: hosts, routers and "
                    "routes go in a zone of their own", element);
    return HS_OK;
}

/* Declare a netpoint (host, router, zone) in zone `zone`. */
static int declare(ck_state *s, const char *element, const char *id, int kind, int zone,
                   long line)
{
    int fresh;
    const ck_entry *e = table_add(&s->netpoints, id, kind, zone, line, &fresh);
    if (!e)
        return oom(s);
    if (!fresh)
        return fail(s, line, "<%s> '%s': the name is already used (line %ld)", element, id,
                    e->line);
    return HS_OK;
}

static int on_platform(ck_state *s, int depth)
{
    char version[64];
    if (depth != 0)
        return fail(s, line_of(s), "<platform> must be the root element");
    if (attr(s, "version", version, sizeof version) != 1 || strcmp(version, "4.1") != 0)
        return fail(s, line_of(s), "SimGrid 3.32 needs <platform version=\"4.1\">");
    return HS_OK;
}

static int on_zone(ck_state *s, int depth)
{
    char id[CK_VALUE_LEN], routing[64];
    long line = line_of(s);
    int parent = -1, zid;
    if (need(s, "zone", "id", id, sizeof id) || need(s, "zone", "routing", routing, sizeof routing))
        return s->rc;
    if (depth == 1) {
        if (strcmp(s->names[0], "platform") != 0)
            return fail(s, line, "<zone> must be inside <platform>");
        if (s->root_line)
            return fail(s, line, "a second root zone '%s' (the first is '%s', line %ld): one "
                        "root zone holds the whole machine", id, s->root_name, s->root_line);
        s->root_line = line;
        snprintf(s->root_name, sizeof s->root_name, "%s", id);
    } else {
        if (place_in_zone(s, depth, "zone"))
            return s->rc;
        parent = s->zones[depth - 1].id;
    }
    if (strcasecmp(routing, "Full") != 0 && strcasecmp(routing, "Floyd") != 0 &&
        strcasecmp(routing, "Dijkstra") != 0 && strcasecmp(routing, "DijkstraCache") != 0)
        return fail(s, line, "zone '%s': routing '%s' is not supported here (use Full, Floyd, "
                    "Dijkstra or DijkstraCache)", id, routing);
    if ((zid = new_zone_id(s, parent)) < 0)
        return oom(s);
    memset(&s->zones[depth], 0, sizeof s->zones[depth]);
    s->zones[depth].id = zid;
    return declare(s, "zone", id, CK_ZONE, zid, line);
}

static int on_host(ck_state *s, int depth)
{
    char id[CK_VALUE_LEN], speed[CK_VALUE_LEN], core[64];
    long line = line_of(s);
    if (need(s, "host", "id", id, sizeof id) || need(s, "host", "speed", speed, sizeof speed))
        return s->rc;
    if (place_in_zone(s, depth, "host"))
        return s->rc;
    /* One speed per power state, comma-separated. */
    char *save = NULL;
    for (char *tok = strtok_r(speed, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        double v;
        while (*tok == ' ')
            tok++;
        if (un_parse(tok, UN_SPEED, &v) != 0 || !(v > 0))
            return fail(s, line, "host '%s': speed '%s' is not a positive speed (%s)", id, tok,
                        un_hint(UN_SPEED));
    }
    int cores;
    if (attr(s, "core", core, sizeof core) == 1 && parse_count(core, 1 << 20, &cores) != 0)
        return fail(s, line, "host '%s': core '%s' is not a positive count", id, core);
    if (declare(s, "host", id, CK_HOST, s->zones[depth - 1].id, line))
        return s->rc;
    if (!s->props_done && finish_props(s))
        return s->rc;
    return on_gpu(s, id, line);
}

static int on_router(ck_state *s, int depth)
{
    char id[CK_VALUE_LEN];
    long line = line_of(s);
    if (need(s, "router", "id", id, sizeof id) || place_in_zone(s, depth, "router"))
        return s->rc;
    return declare(s, "router", id, CK_ROUTER, s->zones[depth - 1].id, line);
}

static int on_link(ck_state *s, int depth)
{
    char id[CK_VALUE_LEN], bw[CK_VALUE_LEN], lat[CK_VALUE_LEN], policy[64];
    long line = line_of(s);
    double v;
    int kind = CK_LINK_SHARED, fresh;
    if (need(s, "link", "id", id, sizeof id) || need(s, "link", "bandwidth", bw, sizeof bw) ||
        place_in_zone(s, depth, "link"))
        return s->rc;
    if (un_parse(bw, UN_BANDWIDTH, &v) != 0 || !(v > 0))
        return fail(s, line, "link '%s': bandwidth '%s' is not a positive bandwidth (%s)", id,
                    bw, un_hint(UN_BANDWIDTH));
    if (attr(s, "latency", lat, sizeof lat) == 1 && (un_parse(lat, UN_TIME, &v) != 0 || v < 0))
        return fail(s, line, "link '%s': latency '%s' is not a time (%s)", id, lat,
                    un_hint(UN_TIME));
    if (attr(s, "sharing_policy", policy, sizeof policy) == 1) {
        if (strcmp(policy, "SPLITDUPLEX") == 0 || strcmp(policy, "FULLDUPLEX") == 0)
            kind = CK_LINK_SPLIT;
        else if (strcmp(policy, "SHARED") != 0 && strcmp(policy, "FATPIPE") != 0)
            return fail(s, line, "link '%s': sharing_policy '%s' is not SHARED, SPLITDUPLEX or "
                        "FATPIPE", id, policy);
    }
    const ck_entry *e = table_add(&s->links, id, kind, s->zones[depth - 1].id, line, &fresh);
    if (!e)
        return oom(s);
    if (!fresh)
        return fail(s, line, "link '%s' is declared twice (also at line %ld)", id, e->line);
    return HS_OK;
}

/* ---------------------------------------------------------------- routes */

static const ck_entry *netpoint(ck_state *s, const char *what, const char *name, long line)
{
    const ck_entry *e = table_find(&s->netpoints, name);
    if (!e)
        fail(s, line, "%s '%s' is not declared before this route", what, name);
    return e;
}

/* Remember the direction(s) a route declares; a second declaration is SimGrid's abort. */
static int declare_route(ck_state *s, const char *src, const char *dst, int symmetrical,
                         long line)
{
    char key[2 * CK_VALUE_LEN + 2];
    int fresh;
    for (int back = 0; back <= (symmetrical && strcmp(src, dst) != 0); back++) {
        snprintf(key, sizeof key, "%s\x01%s", back ? dst : src, back ? src : dst);
        const ck_entry *e = table_add(&s->routes, key, CK_ROUTE, 0, line, &fresh);
        if (!e)
            return oom(s);
        if (!fresh)
            return fail(s, line, "the route from '%s' to '%s' is already declared (line %ld; "
                        "routes are symmetrical unless symmetrical=\"NO\")",
                        back ? dst : src, back ? src : dst, e->line);
    }
    return HS_OK;
}

static int symmetrical(ck_state *s, long line, int *sym)
{
    char v[16];
    *sym = 1;
    if (attr(s, "symmetrical", v, sizeof v) != 1)
        return s->rc;
    if (strcasecmp(v, "NO") == 0)
        *sym = 0;
    else if (strcasecmp(v, "YES") != 0)
        return fail(s, line, "symmetrical must be YES or NO, not '%s'", v);
    return HS_OK;
}

static int on_route(ck_state *s, int depth)
{
    char src[CK_VALUE_LEN], dst[CK_VALUE_LEN];
    long line = line_of(s);
    int sym;
    const ck_entry *a, *b;
    if (need(s, "route", "src", src, sizeof src) || need(s, "route", "dst", dst, sizeof dst) ||
        place_in_zone(s, depth, "route") || symmetrical(s, line, &sym))
        return s->rc;
    if (!(a = netpoint(s, "src", src, line)) || !(b = netpoint(s, "dst", dst, line)))
        return s->rc;
    int zone = s->zones[depth - 1].id;
    if (a->kind == CK_ZONE || b->kind == CK_ZONE)
        return fail(s, line, "route %s -> %s: a <route> joins hosts or routers; zones are "
                    "joined by <zoneRoute>", src, dst);
    if (a->zone != zone || b->zone != zone)
        return fail(s, line, "route %s -> %s: both ends must be declared in the zone of the "
                    "route", src, dst);
    s->route_line = line;
    s->route_links = 0;
    return declare_route(s, src, dst, sym, line);
}

static int on_zone_route(ck_state *s, int depth)
{
    char src[CK_VALUE_LEN], dst[CK_VALUE_LEN], gw_src[CK_VALUE_LEN], gw_dst[CK_VALUE_LEN];
    long line = line_of(s);
    int sym;
    const ck_entry *a, *b, *ga, *gb;
    if (need(s, "zoneRoute", "src", src, sizeof src) ||
        need(s, "zoneRoute", "dst", dst, sizeof dst) ||
        need(s, "zoneRoute", "gw_src", gw_src, sizeof gw_src) ||
        need(s, "zoneRoute", "gw_dst", gw_dst, sizeof gw_dst) ||
        place_in_zone(s, depth, "zoneRoute") || symmetrical(s, line, &sym))
        return s->rc;
    if (!(a = netpoint(s, "src", src, line)) || !(b = netpoint(s, "dst", dst, line)) ||
        !(ga = netpoint(s, "gw_src", gw_src, line)) || !(gb = netpoint(s, "gw_dst", gw_dst, line)))
        return s->rc;
    int zone = s->zones[depth - 1].id;
    if (a->kind != CK_ZONE || b->kind != CK_ZONE)
        return fail(s, line, "zoneRoute %s -> %s: src and dst must be zones", src, dst);
    if (s->zone_parent[a->zone] != zone || s->zone_parent[b->zone] != zone)
        return fail(s, line, "zoneRoute %s -> %s: both must be child zones of the zone of the "
                    "route", src, dst);
    if (ga->kind == CK_ZONE || gb->kind == CK_ZONE)
        return fail(s, line, "zoneRoute %s -> %s: gateways must be hosts or routers", src, dst);
    if (!zone_within(s, ga->zone, a->zone))
        return fail(s, line, "zoneRoute %s -> %s: gw_src '%s' is not inside zone '%s'", src,
                    dst, gw_src, src);
    if (!zone_within(s, gb->zone, b->zone))
        return fail(s, line, "zoneRoute %s -> %s: gw_dst '%s' is not inside zone '%s'", src,
                    dst, gw_dst, dst);
    if (strcmp(gw_src, gw_dst) == 0)
        return fail(s, line, "zoneRoute %s -> %s: gw_src and gw_dst are the same", src, dst);
    s->route_line = line;
    s->route_links = 0;
    return declare_route(s, src, dst, sym, line);
}

static int on_link_ctn(ck_state *s, int depth)
{
    char id[CK_VALUE_LEN], dir[16];
    long line = line_of(s);
    if (depth < 1 || (strcmp(s->names[depth - 1], "route") != 0 &&
                      strcmp(s->names[depth - 1], "zoneRoute") != 0))
        return fail(s, line, "<link_ctn> must be inside a <route> or <zoneRoute>");
    if (need(s, "link_ctn", "id", id, sizeof id))
        return s->rc;
    const ck_entry *e = table_find(&s->links, id);
    if (!e)
        return fail(s, line, "link '%s' is not declared before this route", id);
    int directed = attr(s, "direction", dir, sizeof dir) == 1 && strcmp(dir, "NONE") != 0;
    if (directed && strcmp(dir, "UP") != 0 && strcmp(dir, "DOWN") != 0)
        return fail(s, line, "link '%s': direction must be UP, DOWN or NONE, not '%s'", id, dir);
    if (directed && e->kind != CK_LINK_SPLIT)
        return fail(s, line, "link '%s' is not SPLITDUPLEX: it takes no direction", id);
    if (!directed && e->kind == CK_LINK_SPLIT)
        return fail(s, line, "link '%s' is SPLITDUPLEX: say direction=\"UP\" or \"DOWN\"", id);
    s->route_links++;
    return HS_OK;
}

/* ---------------------------------------------------------------- the walk */

static int on_element(ck_state *s, const char *name, int depth)
{
    if (depth >= CK_MAX_DEPTH)
        return fail(s, line_of(s), "elements nested more than %d deep", CK_MAX_DEPTH);
    snprintf(s->names[depth], sizeof s->names[depth], "%s", name);
    if (strcmp(name, "prop") != 0 && depth == 2 && s->root_line && !s->props_done &&
        finish_props(s))
        return s->rc;
    if (strcmp(name, "prop") == 0) {
        ck_zone *z = parent_zone(s, depth);
        if (z && z->children_started)
            return fail(s, line_of(s), "<prop> must come before the other children of <zone>");
        return on_prop(s, depth);
    }
    if (strcmp(name, "platform") == 0)
        return on_platform(s, depth);
    if (depth == 0)
        return fail(s, line_of(s), "the root element is <%s>, not <platform>", name);
    if (strcmp(name, "zone") == 0)
        return on_zone(s, depth);
    if (strcmp(name, "host") == 0)
        return on_host(s, depth);
    if (strcmp(name, "router") == 0)
        return on_router(s, depth);
    if (strcmp(name, "link") == 0)
        return on_link(s, depth);
    if (strcmp(name, "route") == 0)
        return on_route(s, depth);
    if (strcmp(name, "zoneRoute") == 0)
        return on_zone_route(s, depth);
    if (strcmp(name, "link_ctn") == 0)
        return on_link_ctn(s, depth);
    if (strcmp(name, "config") == 0)
        return fail(s, line_of(s), "<config> is not allowed: hybridsim sets SimGrid's network "
                    "model itself (platforms/README.md)");
    return fail(s, line_of(s), "<%s> is not supported in a hybridsim platform (known: zone, "
                "host, router, link, route, zoneRoute, link_ctn, prop)", name);
}

/* End of a route: SimGrid forbids empty routes. */
static int on_end(ck_state *s, const char *name, int depth)
{
    if ((strcmp(name, "route") == 0 || strcmp(name, "zoneRoute") == 0) && s->route_links == 0)
        return fail(s, s->route_line, "this <%s> has no link: SimGrid forbids empty routes",
                    name);
    if (strcmp(name, "zone") == 0 && depth == 1)
        return finish_props(s);
    return HS_OK;
}

static void on_xml_error(void *arg, xmlErrorPtr error)
{
    ck_state *s = arg;
    if (error->level < XML_ERR_ERROR || s->xml_line != 0)
        return;
    s->xml_line = error->line > 0 ? error->line : -1;
    snprintf(s->xml_msg, sizeof s->xml_msg, "%s", error->message ? error->message : "?");
    size_t n = strlen(s->xml_msg);
    while (n > 0 && (s->xml_msg[n - 1] == '\n' || s->xml_msg[n - 1] == ' '))
        s->xml_msg[--n] = '\0';
}

static void walk(ck_state *s)
{
    int ret;
    while (s->rc == HS_OK && (ret = xmlTextReaderRead(s->reader)) == 1) {
        int type = xmlTextReaderNodeType(s->reader);
        int depth = xmlTextReaderDepth(s->reader);
        const char *name = (const char *)xmlTextReaderConstName(s->reader);
        if (type == XML_READER_TYPE_ELEMENT) {
            if (on_element(s, name, depth) == HS_OK && xmlTextReaderIsEmptyElement(s->reader))
                on_end(s, name, depth);
        } else if (type == XML_READER_TYPE_END_ELEMENT) {
            on_end(s, name, depth);
        }
    }
    if (s->rc == HS_OK && (ret < 0 || s->xml_line != 0))
        fail(s, s->xml_line, "malformed XML: %s", s->xml_line ? s->xml_msg : "read error");
}

int plat_check_file(const char *path, plat_facts *facts, char *err)
{
    ck_state s;
    memset(&s, 0, sizeof s);
    memset(facts, 0, sizeof *facts);
    s.path = path;
    s.err = err;
    s.facts = facts;
    s.node_w = s.gpu_w = -1;
    FILE *probe = fopen(path, "r");
    if (!probe)
        return hs_fail(err, HS_EINPUT, "%s: cannot open: %s", path, strerror(errno));
    fclose(probe);
    s.reader = xmlReaderForFile(path, NULL, XML_PARSE_NONET);
    if (!s.reader)
        return hs_fail(err, HS_EINPUT, "%s: cannot read as XML", path);
    xmlTextReaderSetStructuredErrorHandler(s.reader, on_xml_error, &s);
    walk(&s);
    if (s.rc == HS_OK && !s.root_line)
        fail(&s, 0, "no <zone> inside <platform>");
    if (s.rc == HS_OK)
        finish_props(&s);
    if (s.rc == HS_OK)
        check_all_gpus(&s);
    xmlFreeTextReader(s.reader);
    table_free(&s.netpoints);
    table_free(&s.links);
    table_free(&s.routes);
    free(s.zone_parent);
    free(s.gpu_seen);
    if (s.rc != HS_OK)
        plat_facts_free(facts);
    return s.rc;
}

void plat_facts_free(plat_facts *f)
{
    if (f->gpu_names)
        for (int r = 0; r < f->n_gpus; r++)
            free(f->gpu_names[r]);
    free(f->gpu_names);
    memset(f, 0, sizeof *f);
}
