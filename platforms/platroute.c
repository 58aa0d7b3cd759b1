/* platroute.c: routes of a generated machine without SimGrid (platroute.h).
 *
 * A sink of the machine's walk records what routing needs: every name (hosts, routers, zones,
 * links), which zone holds what, each link direction's latency and bandwidth, the explicit
 * routes of Full zones and the ways up of star zones. Racks are recorded when a GPU of theirs
 * is first asked about, so a job on part of a large machine costs in proportion to its racks.
 * A rack walked again finds the machine level already known: names seen before are skipped.
 * platroute_resolve.c resolves routes from the record. */
#include "platroute_int.h"

#include <stdlib.h>
#include <string.h>

#include "hs_grow.h"
#include "units.h"

/* ---------------------------------------------------------------- tables */

/* Grow an array of `size`-byte items to hold n + 1; false when out of memory. */
static bool room(void **array, int n, size_t *cap, size_t size)
{
    return hs_grow(array, cap, (size_t)n + 1, size);
}

/* FNV-1a, then spread: names differ in their last digits, and the table takes the low bits. */
static uint64_t hash_text(const char *s)
{
    uint64_t h = UINT64_C(1469598103934665603);
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * UINT64_C(1099511628211);
    h ^= h >> 29;
    h *= UINT64_C(0xbf58476d1ce4e5b9);
    return h ^ (h >> 32);
}

static pm_name *name_slot(const plat_machine *m, const char *name, uint64_t h)
{
    size_t i = h & (m->names_cap - 1);
    uint32_t high = (uint32_t)(h >> 32);
    while (m->names[i].text &&
           (m->names[i].hash != high || strcmp(m->text + m->names[i].text - 1, name) != 0))
        i = (i + 1) & (m->names_cap - 1);
    return &m->names[i];
}

static const pm_name *find(const plat_machine *m, const char *name)
{
    if (!m->names_cap)
        return NULL;
    const pm_name *e = name_slot(m, name, hash_text(name));
    return e->text ? e : NULL;
}

static bool names_grow(plat_machine *m, size_t at_least)
{
    size_t cap = m->names_cap ? 2 * m->names_cap : 4096;
    while (cap < at_least)
        cap *= 2;
    pm_name *old = m->names, *fresh = calloc(cap, sizeof *fresh);
    if (!fresh)
        return false;
    size_t old_cap = m->names_cap;
    m->names = fresh;
    m->names_cap = cap;
    for (size_t i = 0; i < old_cap; i++)
        if (old[i].text) {
            const char *text = m->text + old[i].text - 1;
            *name_slot(m, text, hash_text(text)) = old[i];
        }
    free(old);
    return true;
}

/* Add a name; NULL when out of memory (the name must be new). */
static pm_name *add_name(plat_machine *m, const char *name, int kind, int id)
{
    size_t len = strlen(name) + 1;
    if (2 * (m->names_used + 1) > m->names_cap && !names_grow(m, 0))
        return NULL;
    if (m->text_len + len > UINT32_MAX || /* pm_name.text is a uint32_t offset */
        !hs_grow((void **)&m->text, &m->text_cap, m->text_len + len, 1))
        return NULL;
    uint64_t h = hash_text(name);
    pm_name *e = name_slot(m, name, h);
    memcpy(m->text + m->text_len, name, len);
    e->text = (uint32_t)m->text_len + 1;
    m->text_len += len;
    e->hash = (uint32_t)(h >> 32);
    e->kind = (uint8_t)kind;
    e->id = id;
    m->names_used++;
    return e;
}

static size_t route_slot(const plat_machine *m, uint64_t key)
{
    size_t i = (size_t)((key * UINT64_C(0x9E3779B97F4A7C15)) >> 17) & (m->routes_cap - 1);
    while (m->routes[i].key && m->routes[i].key != key)
        i = (i + 1) & (m->routes_cap - 1);
    return i;
}

static uint64_t route_key(int src, int dst)
{
    return ((uint64_t)(uint32_t)src << 32) + (uint64_t)(uint32_t)dst + 1;
}

const pm_route_entry *pm__find_route(const plat_machine *m, int src, int dst)
{
    if (!m->routes_cap)
        return NULL;
    const pm_route_entry *e = &m->routes[route_slot(m, route_key(src, dst))];
    return e->key ? e : NULL;
}

static bool routes_grow(plat_machine *m, size_t at_least)
{
    size_t cap = m->routes_cap ? 2 * m->routes_cap : 4096, old_cap = m->routes_cap;
    while (cap < at_least)
        cap *= 2;
    pm_route_entry *old = m->routes, *fresh = calloc(cap, sizeof *fresh);
    if (!fresh)
        return false;
    m->routes = fresh;
    m->routes_cap = cap;
    for (size_t i = 0; i < old_cap; i++)
        if (old[i].key)
            m->routes[route_slot(m, old[i].key)] = old[i];
    free(old);
    return true;
}

/* ---------------------------------------------------------------- the recording sink */

static int add_point(plat_machine *m, int zone)
{
    if (!room((void **)&m->points, m->n_points, &m->cap_points, sizeof *m->points)) {
        m->failed = true;
        return -1;
    }
    m->points[m->n_points] = (pm_point){zone, -1};
    return m->n_points++;
}

static int current_zone(const plat_machine *m)
{
    return m->depth > 0 ? m->stack[m->depth - 1] : -1;
}

/* A netpoint in the current zone, unless the name is known already. */
static void rec_point(plat_machine *m, const char *name)
{
    if (find(m, name))
        return;
    int id = add_point(m, current_zone(m));
    if (id >= 0 && !add_name(m, name, PM_POINT, id))
        m->failed = true;
}

static void rec_zone_open(void *ctx, const char *name, pg_routing routing)
{
    plat_machine *m = ctx;
    const pm_name *e = find(m, name);
    int zone;
    if (m->depth >= PM_MAX_DEPTH) {
        m->failed = true;
        return;
    }
    if (e && e->kind == PM_POINT) { /* walked before: enter it again */
        for (zone = 0; zone < m->n_zones && m->zones[zone].point != e->id; zone++)
            ;
    } else {
        rec_point(m, name);
        if (m->failed || !room((void **)&m->zones, m->n_zones, &m->cap_zones, sizeof *m->zones)) {
            m->failed = true;
            return;
        }
        zone = m->n_zones++;
        m->zones[zone] = (pm_zone){current_zone(m), find(m, name)->id, routing};
    }
    m->stack[m->depth++] = zone;
}

static void rec_zone_close(void *ctx)
{
    plat_machine *m = ctx;
    if (m->depth > 0)
        m->depth--;
}

static void rec_link(void *ctx, const char *name, const char *bw, const char *lat,
                     pg_policy policy)
{
    plat_machine *m = ctx;
    pm_link l;
    if (find(m, name))
        return;
    if (un_parse(bw, UN_BANDWIDTH, &l.bandwidth_Bps) != 0 ||
        un_parse(lat, UN_TIME, &l.latency_s) != 0) {
        m->failed = true;
        return;
    }
    int dirs = policy == PG_SPLITDUPLEX ? 2 : 1, first = m->n_links;
    for (int d = 0; d < dirs; d++) {
        if (!room((void **)&m->links, m->n_links, &m->cap_links, sizeof *m->links)) {
            m->failed = true;
            return;
        }
        l.reverse = first + (dirs - 1 - d);
        m->links[m->n_links++] = l;
    }
    pm_name *e = add_name(m, name, PM_LINK, first);
    if (!e) {
        m->failed = true;
        return;
    }
    e->split = dirs == 2;
    for (int d = 0; d < dirs; d++)
        m->links[first + d].name = e->text;
}

/* What routing does not need. */
static void rec_prop(void *ctx, const char *id, const char *value)
{
    (void)ctx, (void)id, (void)value;
}

static void rec_note(void *ctx, const char *text)
{
    (void)ctx, (void)text;
}

static void rec_host(void *ctx, const char *name, const char *speed)
{
    (void)speed;
    rec_point(ctx, name);
}

static void rec_router(void *ctx, const char *name)
{
    rec_point(ctx, name);
}

/* The link direction a hop crosses, -1 if the link is unknown. */
static int hop_id(const plat_machine *m, const pg_hop *h)
{
    const pm_name *e = find(m, h->link);
    if (!e || e->kind != PM_LINK)
        return -1;
    return e->split && h->dir == PG_DOWN ? e->id + 1 : e->id;
}

/* Append the hops' link directions, in order or reversed with directions swapped. */
static pm_span add_hops(plat_machine *m, const pg_hop *hops, int n, bool reverse)
{
    pm_span s = {m->n_hops, 0};
    for (int i = 0; i < n; i++) {
        int id = hop_id(m, &hops[reverse ? n - 1 - i : i]);
        if (id >= 0 && reverse)
            id = m->links[id].reverse;
        if (id < 0 || !room((void **)&m->hops, m->n_hops, &m->cap_hops, sizeof *m->hops)) {
            m->failed = true;
            return s;
        }
        m->hops[m->n_hops++] = id;
        s.n++;
    }
    return s;
}

int pm__point_of(const plat_machine *m, const char *name)
{
    const pm_name *e = find(m, name);
    return e && e->kind == PM_POINT ? e->id : -1;
}

static void rec_route(void *ctx, const char *src, const char *dst, const pg_hop *hops, int n)
{
    plat_machine *m = ctx;
    int a = pm__point_of(m, src), b = pm__point_of(m, dst);
    if (a < 0 || b < 0) {
        m->failed = true;
        return;
    }
    if (pm__find_route(m, a, b))
        return;
    if (2 * (m->routes_used + 1) > m->routes_cap && !routes_grow(m, 0)) {
        m->failed = true;
        return;
    }
    pm_route_entry *e = &m->routes[route_slot(m, route_key(a, b))];
    e->key = route_key(a, b);
    e->hops = add_hops(m, hops, n, false);
    m->routes_used++;
}

static void rec_star_route(void *ctx, const char *child, const char *gateway, const pg_hop *up,
                           int n)
{
    plat_machine *m = ctx;
    int c = pm__point_of(m, child), gw = pm__point_of(m, gateway);
    if (c < 0 || gw < 0 || !room((void **)&m->stars, m->n_stars, &m->cap_stars, sizeof *m->stars)) {
        m->failed = true;
        return;
    }
    if (m->points[c].star >= 0)
        return;
    pm_star st = {gw, add_hops(m, up, n, false), add_hops(m, up, n, true)};
    m->points[c].star = m->n_stars;
    m->stars[m->n_stars++] = st;
}

/* Record the racks of the given GPUs that are not yet. */
int pm__record(plat_machine *m, const int *gpus, int n)
{
    int racks = pg_racks(m->p), wanted = 0;
    unsigned char *sel = calloc((size_t)racks, 1);
    if (!sel)
        return -1;
    for (int i = 0; i < n; i++) {
        int r = pg_rack_of_gpu(m->p, gpus[i]);
        if (r >= 0 && r < racks && !m->recorded[r] && !sel[r]) {
            sel[r] = 1;
            wanted++;
        }
    }
    /* The tables sized once for what comes: rehashing a growing table is what costs. */
    const pg_params *p = m->p;
    size_t g = (size_t)p->gpus_per_node, nodes = (size_t)wanted * p->nodes_per_leaf *
                                                   p->leaves_per_rack;
    size_t names = nodes * (g * (g + 5) / 2 + 8) + (size_t)wanted * p->leaves_per_rack * 6 + 16;
    size_t routes = nodes * (g * (g - 1) / 2 + 2 * g);
    if ((2 * (m->names_used + names) > m->names_cap &&
         !names_grow(m, 2 * (m->names_used + names))) ||
        (2 * (m->routes_used + routes) > m->routes_cap &&
         !routes_grow(m, 2 * (m->routes_used + routes))))
        wanted = 0, m->failed = true;
    if (wanted) {
        pg_sink sink = {.ctx = m, .zone_open = rec_zone_open, .zone_close = rec_zone_close,
                        .prop = rec_prop, .note = rec_note, .link = rec_link, .host = rec_host,
                        .router = rec_router, .route = rec_route, .star_route = rec_star_route};
        pg_describe(m->p, sel, &sink);
        for (int r = 0; r < racks; r++)
            m->recorded[r] |= sel[r];
    }
    free(sel);
    return m->failed ? -1 : 0;
}

/* ---------------------------------------------------------------- the interface */

int pm_open(const pg_params *p, plat_machine **out, char *err)
{
    plat_machine *m = calloc(1, sizeof *m);
    if (m)
        m->recorded = calloc((size_t)pg_racks(p), 1);
    if (!m || !m->recorded) {
        free(m);
        return hs_fail(err, HS_EINTERNAL, "out of memory for the machine's routes");
    }
    m->p = p;
    *out = m;
    return HS_OK;
}

void pm_free(plat_machine *m)
{
    if (!m)
        return;
    free(m->names);
    free(m->text);
    free(m->points);
    free(m->zones);
    free(m->links);
    free(m->hops);
    free(m->stars);
    free(m->routes);
    free(m->recorded);
    free(m);
}
