/* platcheck_reach.c: does every GPU of a checked file reach every other? (platcheck_int.h)
 *
 * SimGrid resolves the route from a to b (NetZoneImpl::get_global_route) in the lowest zone C
 * holding both: in a zone of hosts, that zone's route a -> b; else the route between the
 * children A and B of C holding them, whose gateways gw_src (in A) and gw_dst (in B) are then
 * reached from a, and reach b, the same way. A piece missing is an abort in the middle of a run
 * ("no connecting path", "Bad gateways", "No route"). A zone's route x -> y is a declared one
 * (or the reverse of a symmetrical one), in Floyd zones too: SimGrid 3.32 loading a file never
 * completes their paths (a Floyd zone with routes a -> c -> b and none a -> b stops the run
 * with "No route from a to b"). The check follows that resolution by structure, not pair by
 * pair: inside each zone of hosts every ordered pair of its GPUs; in each zone of zones every
 * ordered pair of its children holding GPUs once, and every GPU of a child to its gateway and
 * back once per distinct gateway. A file of N GPUs costs about N x (GPUs a zone + gateways
 * above it) lookups, not N^2 resolutions. */
#include "platcheck_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A GPU host. */
typedef struct {
    int zone;        /* the zone declaring it */
    int point;       /* its ck_point */
    int rank;        /* its rank (plat_facts.gpu_names) */
} ck_gpu;

typedef struct {
    ck_state *s;
    int *first;      /* per point: its first edge in s->edges (sorted by src, dst); n + 1 */
    ck_gpu *gpu;     /* the GPUs by (zone, rank) */
    int *zone_end;   /* per zone: one past the last zone of its subtree (zones are numbered in
                      * document order, so a subtree is a range) */
    int *up_checked;   /* per zone: the gateway its GPUs were last checked to reach */
    int *down_checked; /* per zone: the gateway last checked to reach its GPUs */
    int miss_zone, miss_from, miss_to; /* the missing piece of the last failure */
} ck_reach;

static int by_edge(const void *x, const void *y)
{
    const ck_edge *a = x, *b = y;
    return a->src != b->src ? (a->src > b->src) - (a->src < b->src)
                            : (a->dst > b->dst) - (a->dst < b->dst);
}

static int by_zone(const void *x, const void *y)
{
    const ck_gpu *a = x, *b = y;
    return a->zone != b->zone ? (a->zone > b->zone) - (a->zone < b->zone)
                              : (a->rank > b->rank) - (a->rank < b->rank);
}

static const char *gpu_name(const ck_reach *r, int i)
{
    return r->s->facts->gpu_names[r->gpu[i].rank];
}

static int miss(ck_reach *r, int zone, int from, int to)
{
    r->miss_zone = zone, r->miss_from = from, r->miss_to = to;
    return 0;
}

/* The declared route x -> y (an edge index), or -1. */
static int edge_of(const ck_reach *r, int x, int y)
{
    int lo = r->first[x], hi = r->first[x + 1];
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2, d = r->s->edges[mid].dst;
        if (d == y)
            return mid;
        if (d < y)
            lo = mid + 1;
        else
            hi = mid;
    }
    return -1;
}

/* Zone z's own route x -> y: 1 with its gateways (if asked), or 0 with the missing piece. */
static int local(ck_reach *r, int z, int x, int y, int *gw_src, int *gw_dst)
{
    int k = edge_of(r, x, y);
    if (k < 0)
        return miss(r, z, x, y);
    if (gw_src)
        *gw_src = r->s->edges[k].gw_src, *gw_dst = r->s->edges[k].gw_dst;
    return 1;
}

/* SimGrid's resolution of a -> b (hosts or routers), as in the comment at the top. */
static int route_ok(ck_reach *r, int a, int b)
{
    const ck_state *s = r->s;
    int up_a[CK_MAX_DEPTH + 1], up_b[CK_MAX_DEPTH + 1], na = 0, nb = 0, gs, gd;
    if (a == b)
        return 1;
    for (int z = s->points[a].zone; z >= 0 && na <= CK_MAX_DEPTH; z = s->zone_parent[z])
        up_a[na++] = z;
    for (int z = s->points[b].zone; z >= 0 && nb <= CK_MAX_DEPTH; z = s->zone_parent[z])
        up_b[nb++] = z;
    while (na > 1 && nb > 1 && up_a[na - 1] == up_b[nb - 1])
        na--, nb--;
    int za = up_a[na - 1], zb = up_b[nb - 1];
    if (za == zb) /* one zone holds both */
        return local(r, za, a, b, NULL, NULL);
    int c = s->zone_parent[za];
    if (!local(r, c, s->zone_info[za].point, s->zone_info[zb].point, &gs, &gd))
        return 0;
    return route_ok(r, a, gs) && route_ok(r, gd, b);
}

/* The failure naming the hosts a and b (GPUs, or a GPU and its host memory) and what of their
 * route is missing. */
static int fail_pair(ck_reach *r, const char *a, const char *b)
{
    ck_state *s = r->s;
    const char *zone = s->points[s->zone_info[r->miss_zone].point].name;
    const char *from = s->points[r->miss_from].name, *to = s->points[r->miss_to].name;
    long line = s->zone_info[r->miss_zone].line;
    if (strcmp(from, a) == 0 && strcmp(to, b) == 0)
        return ck_fail(s, line, "no route from host '%s' to host '%s' in zone '%s' (each "
                       "direction needs a <route>, or a symmetrical one the other way): SimGrid "
                       "would stop the run", a, b, zone);
    return ck_fail(s, line, "no route from host '%s' to host '%s': on the way, zone '%s' has "
                   "no route from '%s' to '%s': SimGrid would stop the run", a, b, zone, from,
                   to);
}

/* Every ordered pair of GPUs inside one zone of hosts: [lo, hi) of r->gpu. */
static int within_zone(ck_reach *r, int z, int lo, int hi)
{
    for (int i = lo; i < hi; i++)
        for (int j = lo; j < hi; j++)
            if (i != j && !local(r, z, r->gpu[i].point, r->gpu[j].point, NULL, NULL))
                return fail_pair(r, gpu_name(r, i), gpu_name(r, j));
    return HS_OK;
}

/* The range of r->gpu whose zone is in [zlo, zhi). */
static void gpus_in(const ck_reach *r, int zlo, int zhi, int *lo, int *hi)
{
    int n = r->s->facts->n_gpus, a = 0, b = n;
    while (a < b) {
        int mid = a + (b - a) / 2;
        if (r->gpu[mid].zone < zlo)
            a = mid + 1;
        else
            b = mid;
    }
    *lo = a;
    for (b = n; a < b;) {
        int mid = a + (b - a) / 2;
        if (r->gpu[mid].zone < zhi)
            a = mid + 1;
        else
            b = mid;
    }
    *hi = a;
}

/* Zone c holds child zones: each ordered pair of those holding GPUs has a route, and every
 * GPU of the one reaches its gateway, and the other's gateway every GPU of it. */
static int between_children(ck_reach *r, int c)
{
    ck_state *s = r->s;
    for (int za = c + 1; za < r->zone_end[c]; za = r->zone_end[za]) {
        int alo, ahi, gs, gd;
        gpus_in(r, za, r->zone_end[za], &alo, &ahi);
        for (int zb = c + 1; alo < ahi && zb < r->zone_end[c]; zb = r->zone_end[zb]) {
            int blo, bhi;
            gpus_in(r, zb, r->zone_end[zb], &blo, &bhi);
            if (zb == za || blo == bhi)
                continue;
            const char *a = gpu_name(r, alo), *b = gpu_name(r, blo);
            if (!local(r, c, s->zone_info[za].point, s->zone_info[zb].point, &gs, &gd))
                return fail_pair(r, a, b);
            /* a child's gateway is usually the same for every other child: checked once */
            for (int i = alo; gs != r->up_checked[za] && i < ahi; i++)
                if (!route_ok(r, r->gpu[i].point, gs))
                    return fail_pair(r, gpu_name(r, i), b);
            for (int j = blo; gd != r->down_checked[zb] && j < bhi; j++)
                if (!route_ok(r, gd, r->gpu[j].point))
                    return fail_pair(r, a, gpu_name(r, j));
            r->up_checked[za] = gs, r->down_checked[zb] = gd;
        }
    }
    return HS_OK;
}

/* Each GPU to and from its node's host memory (n0003-cpu for n0003-gpu1), when the file has
 * one: messages staged without GPUDirect go through it (platform.h, plat_host_memory). */
static int to_host_memory(ck_reach *r)
{
    ck_state *s = r->s;
    const plat_facts *f = s->facts;
    for (int i = 0; i < f->n_gpus; i++) {
        const char *gpu = gpu_name(r, i);
        char mem[CK_VALUE_LEN + 8];
        snprintf(mem, sizeof mem, "%.*s-cpu", (int)(strrchr(gpu, '-') - gpu), gpu);
        const ck_entry *e = ck_table_find(&s->netpoints, mem);
        if (!e || e->kind != CK_HOST)
            continue;
        if (!route_ok(r, r->gpu[i].point, e->point))
            return fail_pair(r, gpu, mem);
        if (!route_ok(r, e->point, r->gpu[i].point))
            return fail_pair(r, mem, gpu);
    }
    return HS_OK;
}

/* The tables of r: edges sorted, each point's first edge, GPUs by zone, zone subtrees. */
static int prepare(ck_reach *r)
{
    ck_state *s = r->s;
    int n = s->n_points, z_n = s->n_zones, g_n = s->facts->n_gpus;
    r->first = calloc((size_t)n + 1, sizeof *r->first);
    r->gpu = malloc((size_t)g_n * sizeof *r->gpu);
    r->zone_end = malloc((size_t)z_n * sizeof *r->zone_end);
    r->up_checked = malloc((size_t)z_n * sizeof *r->up_checked);
    r->down_checked = malloc((size_t)z_n * sizeof *r->down_checked);
    if (!r->first || !r->gpu || !r->zone_end ||
        !r->up_checked || !r->down_checked)
        return ck_oom(s);
    qsort(s->edges, (size_t)s->n_edges, sizeof *s->edges, by_edge);
    for (int e = 0; e < s->n_edges; e++)
        r->first[s->edges[e].src + 1]++;
    for (int p = 0; p < n; p++)
        r->first[p + 1] += r->first[p];
    for (int z = 0; z < z_n; z++)
        r->zone_end[z] = z + 1, r->up_checked[z] = r->down_checked[z] = -2;
    for (int z = z_n - 1; z > 0; z--) /* a child's id is above its parent's */
        if (r->zone_end[s->zone_parent[z]] < r->zone_end[z])
            r->zone_end[s->zone_parent[z]] = r->zone_end[z];
    for (int g = 0; g < g_n; g++) {
        int p = ck_table_find(&s->netpoints, s->facts->gpu_names[g])->point;
        r->gpu[g] = (ck_gpu){.zone = s->points[p].zone, .point = p, .rank = g};
    }
    qsort(r->gpu, (size_t)g_n, sizeof *r->gpu, by_zone);
    return HS_OK;
}

int ck_check_routes(ck_state *s)
{
    ck_reach r = {.s = s};
    int g_n = s->facts->n_gpus;
    if (prepare(&r) == HS_OK)
        for (int lo = 0, hi; lo < g_n && s->rc == HS_OK; lo = hi) {
            int z = r.gpu[lo].zone;
            for (hi = lo + 1; hi < g_n && r.gpu[hi].zone == z; hi++)
                ;
            within_zone(&r, z, lo, hi);
        }
    for (int c = 0; c < s->n_zones && s->rc == HS_OK; c++)
        if (r.zone_end[c] > c + 1)
            between_children(&r, c);
    if (s->rc == HS_OK)
        to_host_memory(&r);
    free(r.first), free(r.gpu);
    free(r.zone_end), free(r.up_checked), free(r.down_checked);
    return s->rc;
}
