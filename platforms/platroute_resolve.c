/* platroute_resolve.c: routes resolved from the recorded walk (platroute.h), the way SimGrid
 * 3.32 resolves them (NetZoneImpl::get_global_route): the local route between the two
 * ancestors in the common ancestor zone first, then recursively from the source to that
 * route's source gateway and from its destination gateway to the destination, latencies summed
 * in SimGrid's order so that the doubles are the same. */
#include "platroute_int.h"

/* ---------------------------------------------------------------- resolving, as SimGrid */

/* A route being built: link directions in SimGrid's order, and the latency summed in SimGrid's
 * order (each local route's links when that local route is found). */
typedef struct {
    int link[PM_MAX_HOPS];
    int n;
    double latency_s;
    bool failed;
} pm_path;

static void take(const plat_machine *m, pm_path *out, int id)
{
    if (out->n == PM_MAX_HOPS) {
        out->failed = true;
        return;
    }
    out->link[out->n++] = id;
    out->latency_s += m->links[id].latency_s;
}

/* The local route from a to b in zone z, appended to `local` (latencies added now), and its
 * gateways (-1 for none). Full: the recorded route, or the reverse of b to a's (SimGrid stores
 * both directions of a symmetrical route). Star: a's way up, then b's way down, each link once. */
static void local_route(const plat_machine *m, int z, int a, int b, pm_path *local, int *gw_a,
                        int *gw_b)
{
    *gw_a = *gw_b = -1;
    if (m->zones[z].routing == PG_STAR) {
        int sa = m->points[a].star, sb = m->points[b].star;
        if (sa < 0 || sb < 0) {
            local->failed = true;
            return;
        }
        const pm_star *up = &m->stars[sa], *down = &m->stars[sb];
        int start = local->n;
        for (int i = 0; i < up->up.n; i++)
            take(m, local, m->hops[up->up.first + i]);
        for (int i = 0; i < down->down.n; i++) {
            int id = m->hops[down->down.first + i];
            bool seen = false;
            for (int k = start; k < local->n && !seen; k++)
                seen = local->link[k] == id;
            if (!seen)
                take(m, local, id);
        }
        *gw_a = up->gateway;
        *gw_b = down->gateway;
        return;
    }
    const pm_route_entry *e = pm__find_route(m, a, b);
    if (e) {
        for (int i = 0; i < e->hops.n; i++)
            take(m, local, m->hops[e->hops.first + i]);
        return;
    }
    /* The reverse of b to a: the hops were recorded forward; the other direction of each
     * split-duplex link is the id next to it. */
    if (!(e = pm__find_route(m, b, a))) {
        local->failed = true;
        return;
    }
    for (int i = e->hops.n - 1; i >= 0; i--)
        take(m, local, m->links[m->hops[e->hops.first + i]].reverse);
}

/* SimGrid's find_common_ancestors: the zone where the routes of src and dst meet, and its
 * children on each side (all three the same zone when src and dst share one). */
static bool common_ancestors(const plat_machine *m, int src, int dst, int *common, int *sa,
                             int *da)
{
    int zs = m->points[src].zone, zd = m->points[dst].zone;
    if (zs == zd) {
        *common = *sa = *da = zs;
        return zs >= 0;
    }
    int path_s[PM_MAX_DEPTH], path_d[PM_MAX_DEPTH], ns = 0, nd = 0, parent = -1;
    for (int z = zs; z >= 0 && ns < PM_MAX_DEPTH; z = m->zones[z].parent)
        path_s[ns++] = z;
    for (int z = zd; z >= 0 && nd < PM_MAX_DEPTH; z = m->zones[z].parent)
        path_d[nd++] = z;
    if (ns == 0 || nd == 0 || path_s[ns - 1] != path_d[nd - 1])
        return false;
    while (ns > 1 && nd > 1 && path_s[ns - 1] == path_d[nd - 1]) {
        parent = path_s[ns - 1];
        ns--, nd--;
    }
    *sa = path_s[ns - 1];
    *da = path_d[nd - 1];
    *common = *sa == *da ? *sa : parent;
    return *common >= 0;
}

/* SimGrid's get_global_route_with_netzones: the local route between the ancestors, whose
 * latency is added first, then the way from src to its source gateway, the local route's links,
 * and the way from its destination gateway to dst. */
static void global_route(const plat_machine *m, int src, int dst, pm_path *out, int depth)
{
    int common, sa, da, gw_a, gw_b;
    if (depth > PM_MAX_DEPTH || !common_ancestors(m, src, dst, &common, &sa, &da)) {
        out->failed = true;
        return;
    }
    if (sa == da) {
        local_route(m, common, src, dst, out, &gw_a, &gw_b);
        return;
    }
    pm_path zr = {.latency_s = out->latency_s};
    local_route(m, common, m->zones[sa].point, m->zones[da].point, &zr, &gw_a, &gw_b);
    if (zr.failed || gw_a < 0 || gw_b < 0) {
        out->failed = true;
        return;
    }
    out->latency_s = zr.latency_s;
    if (src != gw_a)
        global_route(m, src, gw_a, out, depth + 1);
    for (int i = 0; i < zr.n && !out->failed; i++) {
        if (out->n == PM_MAX_HOPS)
            out->failed = true;
        else
            out->link[out->n++] = zr.link[i];
    }
    if (gw_b != dst)
        global_route(m, gw_b, dst, out, depth + 1);
}

/* The route from host name_a (of GPU a's rack) to host name_b (of GPU b's), SimGrid's way. */
static int resolve(plat_machine *m, int a, const char *name_a, int b, const char *name_b,
                   pm_path *path)
{
    int gpus[2] = {a, b};
    if (pm__record(m, gpus, 2) != 0)
        return -1;
    int src = pm__point_of(m, name_a), dst = pm__point_of(m, name_b);
    if (src < 0 || dst < 0)
        return -1;
    *path = (pm_path){.n = 0};
    global_route(m, src, dst, path, 0);
    return path->failed || path->n == 0 ? -1 : 0;
}

int pm_route(plat_machine *m, int a, int b, double *latency_s, double *bandwidth_Bps,
             double *first_latency_s, double *first_bandwidth_Bps)
{
    char name_a[PG_NAME_LEN], name_b[PG_NAME_LEN];
    pm_path path;
    pg_gpu_host(m->p, a, name_a);
    pg_gpu_host(m->p, b, name_b);
    if (resolve(m, a, name_a, b, name_b, &path) != 0)
        return -1;
    double bw = m->links[path.link[0]].bandwidth_Bps;
    for (int i = 1; i < path.n; i++)
        if (m->links[path.link[i]].bandwidth_Bps < bw)
            bw = m->links[path.link[i]].bandwidth_Bps;
    *latency_s = path.latency_s;
    *bandwidth_Bps = bw;
    *first_latency_s = m->links[path.link[0]].latency_s;
    *first_bandwidth_Bps = m->links[path.link[0]].bandwidth_Bps;
    return 0;
}

int pm_route_links(plat_machine *m, int a, int b, pm_link_use *use, int max, double *latency_s)
{
    char name_a[PG_NAME_LEN], name_b[PG_NAME_LEN];
    pm_path path;
    pg_gpu_host(m->p, a, name_a);
    pg_gpu_host(m->p, b, name_b);
    if (resolve(m, a, name_a, b, name_b, &path) != 0 || path.n > max)
        return -1;
    for (int i = 0; i < path.n; i++) {
        const pm_link *l = &m->links[path.link[i]];
        use[i] = (pm_link_use){path.link[i], l->bandwidth_Bps, l->reverse != path.link[i]};
    }
    *latency_s = path.latency_s;
    return path.n;
}

int pm_hops(plat_machine *m, int a, const char *host_a, int b, const char *host_b,
            pg_hop *hops, int max, double *latency_s)
{
    pm_path path;
    if (resolve(m, a, host_a, b, host_b, &path) != 0 || path.n > max)
        return -1;
    for (int i = 0; i < path.n; i++) {
        const pm_link *l = &m->links[path.link[i]];
        hops[i].link = m->text + l->name - 1;
        /* A split-duplex link's UP direction is recorded first, its reverse next to it. */
        hops[i].dir = l->reverse == path.link[i] ? PG_NONE
                      : l->reverse > path.link[i] ? PG_UP : PG_DOWN;
    }
    *latency_s = path.latency_s;
    return path.n;
}
