/* platcheck_tree.c: the platform checker's view of the tree of zones (platcheck_int.h): every
 * declaration (zone, host, router, link) in the place SimGrid's DTD allows it, named once, and
 * every route joining two members of the zone that declares it (a zoneRoute two child zones,
 * through gateways inside them), not empty and not declared twice. */
#include "platcheck_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "hs_grow.h"
#include "units.h"

/* ---------------------------------------------------------------- zones */

static int new_zone_id(ck_state *s, int parent, long line)
{
    size_t need = (size_t)s->n_zones + 1;
    if (!hs_grow((void **)&s->zone_parent, &s->zone_cap, need, sizeof *s->zone_parent) ||
        !hs_grow((void **)&s->zone_info, &s->zone_info_cap, need, sizeof *s->zone_info))
        return -1;
    s->zone_parent[s->n_zones] = parent;
    s->zone_info[s->n_zones] = (ck_zone_info){.point = -1, .line = line};
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

/* ---------------------------------------------------------------- declarations */

/* The zone a child at `depth` belongs to, or NULL when its parent is not a zone. */
ck_zone *ck_parent_zone(ck_state *s, int depth)
{
    if (depth < 1 || strcmp(s->names[depth - 1], "zone") != 0)
        return NULL;
    return &s->zones[depth - 1];
}

/* Where in its zone an element may come, by SimGrid's DTD. */
int ck_place_in_zone(ck_state *s, int depth, const char *element)
{
    ck_zone *z = ck_parent_zone(s, depth);
    long line = ck_line(s);
    if (!z)
        return ck_fail(s, line, "<%s> inside <%s>: it belongs in a <zone> (is a tag above left "
                       "open?)", element, depth > 0 ? s->names[depth - 1] : "nothing");
    int is_route = strcmp(element, "route") == 0 || strcmp(element, "zoneRoute") == 0;
    int wants_zones = strcmp(element, "zone") == 0 || strcmp(element, "zoneRoute") == 0;
    int wants_hosts = strcmp(element, "host") == 0 || strcmp(element, "router") == 0 ||
                      strcmp(element, "route") == 0;
    z->children_started = 1;
    if (z->routes_started && !is_route)
        return ck_fail(s, line, "<%s> after a route: declarations must come before the routes of "
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
        return ck_fail(s, line, "<%s> in a zone that holds hosts, routers or starts with a link: "
                       "a zone holds either child zones (first child a zone) or hosts", element);
    if (z->mode == ZM_ZONES && wants_hosts)
        return ck_fail(s, line, "<%s> in a zone that holds child zones: hosts, routers and "
                       "routes go in a zone of their own", element);
    return HS_OK;
}

/* Declare a netpoint (host, router, zone) in zone `zone`. */
static int declare(ck_state *s, const char *element, const char *id, int kind, int zone,
                   long line)
{
    int fresh;
    ck_entry *e = ck_table_add(&s->netpoints, id, kind, zone, line, &fresh);
    if (!e)
        return ck_oom(s);
    if (!fresh)
        return ck_fail(s, line, "<%s> '%s': the name is already used (line %ld)", element, id,
                       e->line);
    if (!hs_grow((void **)&s->points, &s->cap_points, (size_t)s->n_points + 1, sizeof *s->points))
        return ck_oom(s);
    s->points[s->n_points] = (ck_point){.name = e->name, .kind = kind, .zone = zone};
    e->point = s->n_points++;
    if (kind == CK_ZONE)
        s->zone_info[zone].point = e->point;
    return HS_OK;
}

int ck_on_platform(ck_state *s, int depth)
{
    char version[64];
    if (depth != 0)
        return ck_fail(s, ck_line(s), "<platform> must be the root element");
    if (ck_attr(s, "version", version, sizeof version) != 1 || strcmp(version, "4.1") != 0)
        return ck_fail(s, ck_line(s), "SimGrid 3.32 needs <platform version=\"4.1\">");
    return HS_OK;
}

int ck_on_zone(ck_state *s, int depth)
{
    char id[CK_VALUE_LEN], routing[64];
    long line = ck_line(s);
    int parent = -1, zid;
    if (ck_need(s, "zone", "id", id, sizeof id) ||
        ck_need(s, "zone", "routing", routing, sizeof routing))
        return s->rc;
    if (depth == 1) {
        if (strcmp(s->names[0], "platform") != 0)
            return ck_fail(s, line, "<zone> must be inside <platform>");
        if (s->root_line)
            return ck_fail(s, line, "a second root zone '%s' (the first is '%s', line %ld): one "
                           "root zone holds the whole machine", id, s->root_name, s->root_line);
        s->root_line = line;
        snprintf(s->root_name, sizeof s->root_name, "%s", id);
    } else {
        if (ck_place_in_zone(s, depth, "zone"))
            return s->rc;
        parent = s->zones[depth - 1].id;
    }
    /* SimGrid 3.32's Dijkstra zones abort on the first route asked of them once loaded from a
     * file (a graph index never set: "dynar is not that long. You asked -1"). */
    if (strcasecmp(routing, "Full") != 0 && strcasecmp(routing, "Floyd") != 0)
        return ck_fail(s, line, "zone '%s': routing '%s' is not supported here (use Full or "
                       "Floyd)", id, routing);
    if ((zid = new_zone_id(s, parent, line)) < 0)
        return ck_oom(s);
    memset(&s->zones[depth], 0, sizeof s->zones[depth]);
    s->zones[depth].id = zid;
    return declare(s, "zone", id, CK_ZONE, zid, line);
}

int ck_on_host(ck_state *s, int depth)
{
    char id[CK_VALUE_LEN], speed[CK_VALUE_LEN], core[64], pstate[64];
    long line = ck_line(s);
    int n_speeds = 0;
    if (ck_need(s, "host", "id", id, sizeof id) || ck_need(s, "host", "speed", speed, sizeof speed))
        return s->rc;
    if (ck_place_in_zone(s, depth, "host"))
        return s->rc;
    /* One speed per power state, comma-separated. */
    char *save = NULL;
    for (char *tok = strtok_r(speed, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        double v;
        while (*tok == ' ')
            tok++;
        if (un_parse(tok, UN_SPEED, &v) != 0 || !(v > 0))
            return ck_fail(s, line, "host '%s': speed '%s' is not a positive speed (%s)", id, tok,
                           un_hint(UN_SPEED));
        if (!un_in_range(UN_SPEED, v)) /* units.h: else times would not be finite */
            return ck_fail(s, line, "host '%s': speed '%s' must be %s", id, tok,
                           un_range_text(UN_SPEED));
        n_speeds++;
    }
    if (n_speeds == 0)
        return ck_fail(s, line, "host '%s': no speed (%s)", id, un_hint(UN_SPEED));
    int p; /* a power state: a speed's index */
    if (ck_attr(s, "pstate", pstate, sizeof pstate) == 1 && strcmp(pstate, "0") != 0 &&
        (n_speeds < 2 || ck_parse_count(pstate, n_speeds - 1, &p) != 0))
        return ck_fail(s, line, "host '%s': pstate '%s' is not one of its %d speeds (0 to %d)",
                       id, pstate, n_speeds, n_speeds - 1);
    int cores;
    if (ck_attr(s, "core", core, sizeof core) == 1 && ck_parse_count(core, 1 << 20, &cores) != 0)
        return ck_fail(s, line, "host '%s': core '%s' is not a positive count", id, core);
    if (declare(s, "host", id, CK_HOST, s->zones[depth - 1].id, line))
        return s->rc;
    if (!s->props_done && ck_finish_props(s))
        return s->rc;
    return ck_on_gpu(s, id, line);
}

int ck_on_router(ck_state *s, int depth)
{
    char id[CK_VALUE_LEN];
    long line = ck_line(s);
    if (ck_need(s, "router", "id", id, sizeof id) || ck_place_in_zone(s, depth, "router"))
        return s->rc;
    return declare(s, "router", id, CK_ROUTER, s->zones[depth - 1].id, line);
}

int ck_on_link(ck_state *s, int depth)
{
    char id[CK_VALUE_LEN], bw[CK_VALUE_LEN], lat[CK_VALUE_LEN], policy[64];
    long line = ck_line(s);
    double v;
    int kind = CK_LINK_SHARED, fresh;
    if (ck_need(s, "link", "id", id, sizeof id) || ck_need(s, "link", "bandwidth", bw, sizeof bw) ||
        ck_place_in_zone(s, depth, "link"))
        return s->rc;
    if (un_parse(bw, UN_BANDWIDTH, &v) != 0 || !(v > 0))
        return ck_fail(s, line, "link '%s': bandwidth '%s' is not a positive bandwidth (%s)", id,
                       bw, un_hint(UN_BANDWIDTH));
    if (!un_in_range(UN_BANDWIDTH, v)) /* units.h: else times would not be finite */
        return ck_fail(s, line, "link '%s': bandwidth '%s' must be %s", id, bw,
                       un_range_text(UN_BANDWIDTH));
    if (ck_attr(s, "latency", lat, sizeof lat) == 1 && (un_parse(lat, UN_TIME, &v) != 0 || v < 0))
        return ck_fail(s, line, "link '%s': latency '%s' is not a time (%s)", id, lat,
                       un_hint(UN_TIME));
    if (ck_attr(s, "latency", lat, sizeof lat) == 1 && !un_in_range(UN_TIME, v))
        return ck_fail(s, line, "link '%s': latency '%s' must be %s", id, lat,
                       un_range_text(UN_TIME));
    if (ck_attr(s, "sharing_policy", policy, sizeof policy) == 1) {
        if (strcmp(policy, "SPLITDUPLEX") == 0 || strcmp(policy, "FULLDUPLEX") == 0)
            kind = CK_LINK_SPLIT;
        else if (strcmp(policy, "SHARED") != 0 && strcmp(policy, "FATPIPE") != 0)
            return ck_fail(s, line, "link '%s': sharing_policy '%s' is not SHARED, SPLITDUPLEX or "
                           "FATPIPE", id, policy);
    }
    const ck_entry *e = ck_table_add(&s->links, id, kind, s->zones[depth - 1].id, line, &fresh);
    if (!e)
        return ck_oom(s);
    if (!fresh)
        return ck_fail(s, line, "link '%s' is declared twice (also at line %ld)", id, e->line);
    return HS_OK;
}

/* ---------------------------------------------------------------- routes */

static const ck_entry *netpoint(ck_state *s, const char *what, const char *name, long line)
{
    const ck_entry *e = ck_table_find(&s->netpoints, name);
    if (!e)
        ck_fail(s, line, "%s '%s' is not declared before this route", what, name);
    return e;
}

/* Keep a route's direction(s) for platcheck_reach.c (gateways -1 for a <route>). */
static int add_edges(ck_state *s, const ck_entry *a, const ck_entry *b, const ck_entry *ga,
                     const ck_entry *gb, int symmetrical)
{
    if (!hs_grow((void **)&s->edges, &s->cap_edges, (size_t)s->n_edges + 2, sizeof *s->edges))
        return ck_oom(s);
    int gs = ga ? ga->point : -1, gd = gb ? gb->point : -1;
    s->edges[s->n_edges++] = (ck_edge){a->point, b->point, gs, gd};
    if (symmetrical)
        s->edges[s->n_edges++] = (ck_edge){b->point, a->point, gd, gs};
    return HS_OK;
}

/* Remember the direction(s) a route declares; a second declaration is SimGrid's abort. */
static int declare_route(ck_state *s, const char *src, const char *dst, int symmetrical,
                         long line)
{
    char key[2 * CK_VALUE_LEN + 2];
    int fresh;
    for (int back = 0; back <= (symmetrical && strcmp(src, dst) != 0); back++) {
        snprintf(key, sizeof key, "%s\x01%s", back ? dst : src, back ? src : dst);
        const ck_entry *e = ck_table_add(&s->routes, key, CK_ROUTE, 0, line, &fresh);
        if (!e)
            return ck_oom(s);
        if (!fresh)
            return ck_fail(s, line, "the route from '%s' to '%s' is already declared (line %ld; "
                           "routes are symmetrical unless symmetrical=\"NO\")",
                           back ? dst : src, back ? src : dst, e->line);
    }
    return HS_OK;
}

static int symmetrical(ck_state *s, long line, int *sym)
{
    char v[16];
    *sym = 1;
    if (ck_attr(s, "symmetrical", v, sizeof v) != 1)
        return s->rc;
    if (strcasecmp(v, "NO") == 0)
        *sym = 0;
    else if (strcasecmp(v, "YES") != 0)
        return ck_fail(s, line, "symmetrical must be YES or NO, not '%s'", v);
    return HS_OK;
}

int ck_on_route(ck_state *s, int depth)
{
    char src[CK_VALUE_LEN], dst[CK_VALUE_LEN];
    long line = ck_line(s);
    int sym;
    const ck_entry *a, *b;
    if (ck_need(s, "route", "src", src, sizeof src) ||
        ck_need(s, "route", "dst", dst, sizeof dst) ||
        ck_place_in_zone(s, depth, "route") || symmetrical(s, line, &sym))
        return s->rc;
    if (!(a = netpoint(s, "src", src, line)) || !(b = netpoint(s, "dst", dst, line)))
        return s->rc;
    int zone = s->zones[depth - 1].id;
    if (a->kind == CK_ZONE || b->kind == CK_ZONE)
        return ck_fail(s, line, "route %s -> %s: a <route> joins hosts or routers; zones are "
                       "joined by <zoneRoute>", src, dst);
    if (a->zone != zone || b->zone != zone)
        return ck_fail(s, line, "route %s -> %s: both ends must be declared in the zone of the "
                       "route", src, dst);
    if (a == b) /* SimGrid's Floyd zones abort on it; a host reaches itself without a route */
        return ck_fail(s, line, "route %s -> %s: a route from a host or router to itself", src,
                       dst);
    s->route_line = line;
    s->route_links = 0;
    if (declare_route(s, src, dst, sym, line))
        return s->rc;
    return add_edges(s, a, b, NULL, NULL, sym);
}

int ck_on_zone_route(ck_state *s, int depth)
{
    char src[CK_VALUE_LEN], dst[CK_VALUE_LEN], gw_src[CK_VALUE_LEN], gw_dst[CK_VALUE_LEN];
    long line = ck_line(s);
    int sym;
    const ck_entry *a, *b, *ga, *gb;
    if (ck_need(s, "zoneRoute", "src", src, sizeof src) ||
        ck_need(s, "zoneRoute", "dst", dst, sizeof dst) ||
        ck_need(s, "zoneRoute", "gw_src", gw_src, sizeof gw_src) ||
        ck_need(s, "zoneRoute", "gw_dst", gw_dst, sizeof gw_dst) ||
        ck_place_in_zone(s, depth, "zoneRoute") || symmetrical(s, line, &sym))
        return s->rc;
    if (!(a = netpoint(s, "src", src, line)) || !(b = netpoint(s, "dst", dst, line)) ||
        !(ga = netpoint(s, "gw_src", gw_src, line)) || !(gb = netpoint(s, "gw_dst", gw_dst, line)))
        return s->rc;
    int zone = s->zones[depth - 1].id;
    if (a->kind != CK_ZONE || b->kind != CK_ZONE)
        return ck_fail(s, line, "zoneRoute %s -> %s: src and dst must be zones", src, dst);
    if (a == b)
        return ck_fail(s, line, "zoneRoute %s -> %s: a route from a zone to itself", src, dst);
    if (s->zone_parent[a->zone] != zone || s->zone_parent[b->zone] != zone)
        return ck_fail(s, line, "zoneRoute %s -> %s: both must be child zones of the zone of the "
                       "route", src, dst);
    if (ga->kind == CK_ZONE || gb->kind == CK_ZONE)
        return ck_fail(s, line, "zoneRoute %s -> %s: gateways must be hosts or routers", src, dst);
    if (!zone_within(s, ga->zone, a->zone))
        return ck_fail(s, line, "zoneRoute %s -> %s: gw_src '%s' is not inside zone '%s'", src,
                       dst, gw_src, src);
    if (!zone_within(s, gb->zone, b->zone))
        return ck_fail(s, line, "zoneRoute %s -> %s: gw_dst '%s' is not inside zone '%s'", src,
                       dst, gw_dst, dst);
    if (strcmp(gw_src, gw_dst) == 0)
        return ck_fail(s, line, "zoneRoute %s -> %s: gw_src and gw_dst are the same", src, dst);
    s->route_line = line;
    s->route_links = 0;
    if (declare_route(s, src, dst, sym, line))
        return s->rc;
    return add_edges(s, a, b, ga, gb, sym);
}

int ck_on_link_ctn(ck_state *s, int depth)
{
    char id[CK_VALUE_LEN], dir[16];
    long line = ck_line(s);
    if (depth < 1 || (strcmp(s->names[depth - 1], "route") != 0 &&
                      strcmp(s->names[depth - 1], "zoneRoute") != 0))
        return ck_fail(s, line, "<link_ctn> must be inside a <route> or <zoneRoute>");
    if (ck_need(s, "link_ctn", "id", id, sizeof id))
        return s->rc;
    const ck_entry *e = ck_table_find(&s->links, id);
    if (!e)
        return ck_fail(s, line, "link '%s' is not declared before this route", id);
    int directed = ck_attr(s, "direction", dir, sizeof dir) == 1 && strcmp(dir, "NONE") != 0;
    if (directed && strcmp(dir, "UP") != 0 && strcmp(dir, "DOWN") != 0)
        return ck_fail(s, line, "link '%s': direction must be UP, DOWN or NONE, not '%s'", id, dir);
    if (directed && e->kind != CK_LINK_SPLIT)
        return ck_fail(s, line, "link '%s' is not SPLITDUPLEX: it takes no direction", id);
    if (!directed && e->kind == CK_LINK_SPLIT)
        return ck_fail(s, line, "link '%s' is SPLITDUPLEX: say direction=\"UP\" or \"DOWN\"", id);
    s->route_links++;
    return HS_OK;
}
