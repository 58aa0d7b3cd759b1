/* platgen_xml.c: the platform generator's writer: the machine's walk (platgen_walk.c) as
 * SimGrid XML (platgen.h's pg_write).
 *
 * The walk describes each level of the fat tree as a star (a child's way up, and down by the
 * same links reversed); XML has no such route between zones, so a star zone is written as a
 * Full zone with a zoneRoute between every pair of its children: child a's way up, then child
 * b's way down, a link met twice written once, exactly the route SimGrid's StarZone computes.
 * Elements are indented one space per level; a zone holding a single router is written on one
 * line. The file ends with the digest of everything before it (platdigest.h), which marks it
 * as the generator's own. */
#include "platgen_int.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hs_grow.h"
#include "hs_out.h"
#include "platdigest.h"

#define XW_MAX_DEPTH 16

/* A child of a star zone, kept until the zone closes: its routes are written then. */
typedef struct {
    char *child, *gateway;
    pg_hop *up;        /* names owned */
    int n;
} xw_star;

/* The writer's state. */
typedef struct {
    FILE *out;
    pd_state digest;          /* of every byte written */
    bool failed;              /* out of memory: the output is incomplete */
    int depth;                /* open zones */
    bool open_pending;        /* "<zone ...>" written, its line not yet ended */
    char pending_router[PG_NAME_LEN]; /* a first child router held back ("" if none) */
    xw_star *stars[XW_MAX_DEPTH];     /* per open zone, its star children */
    int n_stars[XW_MAX_DEPTH];
    size_t cap_stars[XW_MAX_DEPTH];
} xw_state;

/* ---------------------------------------------------------------- output */

static void __attribute__((format(printf, 2, 3))) put(xw_state *x, const char *fmt, ...)
{
    char small[1024], *text = small;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n >= sizeof small) {
        if (!(text = malloc((size_t)n + 1))) {
            x->failed = true;
            return;
        }
        va_start(ap, fmt);
        vsnprintf(text, (size_t)n + 1, fmt, ap);
        va_end(ap);
    }
    pd_add(&x->digest, text, (size_t)n);
    fwrite(text, 1, (size_t)n, x->out);
    if (text != small)
        free(text);
}

static void indent(xw_state *x, int depth)
{
    static const char spaces[] = "                                ";
    put(x, "%.*s", depth < 32 ? depth : 32, spaces);
}

/* Escape an attribute value. */
static void put_attr(xw_state *x, const char *s)
{
    char buf[512];
    size_t n = 0;
    for (; *s; s++) {
        const char *rep = *s == '&' ? "&amp;" : *s == '<' ? "&lt;" : *s == '>' ? "&gt;"
                          : *s == '"' ? "&quot;" : NULL;
        size_t k = rep ? strlen(rep) : 1;
        if (n + k >= sizeof buf) {
            put(x, "%.*s", (int)n, buf);
            n = 0;
        }
        memcpy(buf + n, rep ? rep : s, k);
        n += k;
    }
    put(x, "%.*s", (int)n, buf);
}

/* Before any child element: end the pending "<zone ...>" line (and write a held router). */
static void settle(xw_state *x)
{
    if (!x->open_pending)
        return;
    put(x, "\n");
    x->open_pending = false;
    if (x->pending_router[0]) {
        indent(x, x->depth);
        put(x, "<router id=\"%s\"/>\n", x->pending_router);
        x->pending_router[0] = '\0';
    }
}

/* A new element of the open zone: on a line of its own, indented to its depth. */
static void element(xw_state *x)
{
    settle(x);
    indent(x, x->depth);
}

static void put_ctn(xw_state *x, const pg_hop *h)
{
    if (h->dir == PG_NONE)
        put(x, "<link_ctn id=\"%s\"/>", h->link);
    else
        put(x, "<link_ctn id=\"%s\" direction=\"%s\"/>", h->link, h->dir == PG_UP ? "UP" : "DOWN");
}

/* ---------------------------------------------------------------- the sink */

static void on_zone_open(void *ctx, const char *name, pg_routing routing)
{
    xw_state *x = ctx;
    (void)routing; /* a star is written as Full zoneRoutes */
    element(x);
    put(x, "<zone id=\"%s\" routing=\"Full\">", name);
    x->open_pending = true;
    x->depth++;
    if (x->depth >= XW_MAX_DEPTH)
        x->failed = true;
}

static void on_prop(void *ctx, const char *id, const char *value)
{
    xw_state *x = ctx;
    element(x);
    put(x, "<prop id=\"%s\" value=\"", id);
    put_attr(x, value);
    put(x, "\"/>\n");
}

static void on_note(void *ctx, const char *text)
{
    xw_state *x = ctx;
    element(x);
    put(x, "<!-- %s -->\n", text);
}

static void on_link(void *ctx, const char *name, const char *bw, const char *lat, pg_policy policy)
{
    xw_state *x = ctx;
    element(x);
    put(x, "<link id=\"%s\" bandwidth=\"%s\" latency=\"%s\" sharing_policy=\"%s\"/>\n", name, bw,
        lat, policy == PG_FATPIPE ? "FATPIPE" : "SPLITDUPLEX");
}

static void on_host(void *ctx, const char *name, const char *speed)
{
    xw_state *x = ctx;
    element(x);
    put(x, "<host id=\"%s\" speed=\"%s\"/>\n", name, speed);
}

/* A router as a zone's first child is held back: if the zone then closes, both fit one line. */
static void on_router(void *ctx, const char *name)
{
    xw_state *x = ctx;
    if (x->open_pending && !x->pending_router[0]) {
        snprintf(x->pending_router, sizeof x->pending_router, "%s", name);
        return;
    }
    element(x);
    put(x, "<router id=\"%s\"/>\n", name);
}

static void on_route(void *ctx, const char *src, const char *dst, const pg_hop *hops, int n)
{
    xw_state *x = ctx;
    element(x);
    put(x, "<route src=\"%s\" dst=\"%s\">", src, dst);
    for (int i = 0; i < n; i++)
        put_ctn(x, &hops[i]);
    put(x, "</route>\n");
}

static char *dup_name(xw_state *x, const char *s)
{
    char *d = strdup(s);
    if (!d)
        x->failed = true;
    return d;
}

static void on_star_route(void *ctx, const char *child, const char *gateway, const pg_hop *up,
                          int n)
{
    xw_state *x = ctx;
    int z = x->depth - 1;
    if (!hs_grow((void **)&x->stars[z], &x->cap_stars[z], (size_t)x->n_stars[z] + 1,
                 sizeof *x->stars[z])) {
        x->failed = true;
        return;
    }
    xw_star *st = &x->stars[z][x->n_stars[z]++];
    *st = (xw_star){dup_name(x, child), dup_name(x, gateway), calloc((size_t)n, sizeof(pg_hop)),
                    n};
    if (!st->up)
        x->failed = true;
    for (int i = 0; st->up && i < n; i++)
        st->up[i] = (pg_hop){dup_name(x, up[i].link), up[i].dir};
}

static bool same_hop(const pg_hop *a, const pg_hop *b)
{
    return a->dir == b->dir && a->link && b->link && strcmp(a->link, b->link) == 0;
}

/* The zoneRoute from star child a to star child b: a's way up, then b's way up reversed with
 * directions swapped, skipping links already on the route (as SimGrid's StarZone does). */
static void put_star_pair(xw_state *x, const xw_star *a, const xw_star *b)
{
    indent(x, x->depth);
    put(x, "<zoneRoute src=\"%s\" dst=\"%s\" gw_src=\"%s\" gw_dst=\"%s\">", a->child, b->child,
        a->gateway, b->gateway);
    for (int i = 0; i < a->n; i++)
        put_ctn(x, &a->up[i]);
    for (int j = b->n - 1; j >= 0; j--) {
        pg_hop down = {b->up[j].link, b->up[j].dir == PG_UP     ? PG_DOWN
                                      : b->up[j].dir == PG_DOWN ? PG_UP
                                                                : PG_NONE};
        bool seen = false;
        for (int i = 0; i < a->n && !seen; i++)
            seen = same_hop(&a->up[i], &down);
        if (!seen)
            put_ctn(x, &down);
    }
    put(x, "</zoneRoute>\n");
}

static void free_stars(xw_state *x, int z)
{
    for (int i = 0; i < x->n_stars[z]; i++) {
        xw_star *st = &x->stars[z][i];
        for (int h = 0; st->up && h < st->n; h++)
            free((char *)st->up[h].link);
        free(st->up);
        free(st->child);
        free(st->gateway);
    }
    free(x->stars[z]);
    x->stars[z] = NULL;
    x->n_stars[z] = 0;
    x->cap_stars[z] = 0;
}

static void on_zone_close(void *ctx)
{
    xw_state *x = ctx;
    int z = x->depth - 1;
    if (x->open_pending && x->pending_router[0] && x->n_stars[z] == 0) {
        put(x, "<router id=\"%s\"/></zone>\n", x->pending_router); /* the one-line zone */
        x->pending_router[0] = '\0';
        x->open_pending = false;
        x->depth--;
        return;
    }
    settle(x);
    for (int i = 0; i < x->n_stars[z]; i++)
        for (int j = i + 1; j < x->n_stars[z]; j++)
            put_star_pair(x, &x->stars[z][i], &x->stars[z][j]);
    free_stars(x, z);
    x->depth--;
    indent(x, x->depth);
    put(x, "</zone>\n");
}

/* ---------------------------------------------------------------- the file */

/* The NVLink part of the file's head comment: "50 GB/s, 9us" for all-to-all. */
typedef struct {
    char s[160];
} pg_text;

/* A bandwidth for a person, as the tool's reports print one ("283.333 GB/s"); the exact value
 * is in the links below. */
static pg_num gbs(double bw_Bps)
{
    pg_num n;
    snprintf(n.s, sizeof n.s, "%.6g GB/s", bw_Bps / 1e9);
    return n;
}

/* "s" for a count other than one: "1 rack", "2 racks". */
static const char *plural(int n) { return n == 1 ? "" : "s"; }

static pg_text nvlink_summary(const pg_params *p)
{
    pg_text t;
    switch (p->nvlink_topology) {
    case PG_NVLINK_CUBE_MESH:
        snprintf(t.s, sizeof t.s, "DGX-1V cube-mesh, 1 or 2 links of %s per pair, %s per hop",
                 gbs(p->nvlink_link_bw_Bps).s,
                 pg_qty(p->nvlink_latency_s, UN_TIME).s);
        return t;
    case PG_NVLINK_NVSWITCH:
        snprintf(t.s, sizeof t.s, "%s, %s per GPU through an NVSwitch (%s)",
                 gbs(pg_nvlink_bundle_Bps(p, p->nvlink_links_per_gpu)).s,
                 pg_qty(p->nvlink_latency_s, UN_TIME).s,
                 pg_qty(p->nvswitch_latency_s, UN_TIME).s);
        return t;
    case PG_NVLINK_NONE:
        snprintf(t.s, sizeof t.s, "none: GPU pairs over PCIe (%s a GPU), through their switch "
                 "or the CPUs", gbs(p->pcie_bw_Bps).s);
        return t;
    case PG_NVLINK_PAIRS:
        snprintf(t.s, sizeof t.s, "pairs 2k, 2k+1 bridged, %s, %s; other pairs over PCIe",
                 gbs(pg_nvlink_bundle_Bps(p, p->nvlink_links_per_pair)).s,
                 pg_qty(p->nvlink_latency_s, UN_TIME).s);
        return t;
    case PG_NVLINK_ALL_TO_ALL:
        break;
    }
    snprintf(t.s, sizeof t.s, "%s, %s",
             gbs(pg_nvlink_bundle_Bps(p, p->nvlink_links_per_pair)).s,
             pg_qty(p->nvlink_latency_s, UN_TIME).s);
    return t;
}

/* The file's head: the XML declaration and a comment saying what the machine is. */
static void write_head(xw_state *x, const pg_params *p)
{
    pg_layout L;
    pg_layout_of(p, &L);
    /* a machine the levels do not divide says what its last leaf group and rack hold */
    char partial[96] = "";
    int last_leaf = pg_leaf_nodes(p, L.leaves - 1), last_rack = pg_rack_nodes(p, L.racks - 1);
    if (last_leaf != p->nodes_per_leaf || last_rack != p->nodes_per_leaf * p->leaves_per_rack)
        snprintf(partial, sizeof partial, " (partly filled: the last leaf group %d node%s, "
                 "the last rack %d)", last_leaf, plural(last_leaf), last_rack);
    put(x, "<?xml version='1.0'?>\n"
           "<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n");
    put(x,
        "<!-- Written by `hybridsim platform` (platforms/README.md explains the structure).\n"
        "     %d node%s x %d GPU%s, %d NIC%s per node; %d leaf group%s of %d node%s, %d rack%s of "
        "%d leaf group%s%s.\n"
        "     NVLink %s; PCIe %s, %s; NIC %s, %s.\n"
        "     Leaf uplink %s, %s (oversubscription %s), rack uplink %s, %s "
        "(oversubscription %s).\n"
        "     Switch latencies: leaf %s, rack %s, spine %s. -->\n",
        p->nodes, plural(p->nodes), p->gpus_per_node, plural(p->gpus_per_node), L.nics_per_node,
        plural(L.nics_per_node), L.leaves, plural(L.leaves), p->nodes_per_leaf,
        plural(p->nodes_per_leaf), L.racks, plural(L.racks), p->leaves_per_rack,
        plural(p->leaves_per_rack), partial, nvlink_summary(p).s, gbs(p->pcie_bw_Bps).s,
        pg_qty(p->pcie_latency_s, UN_TIME).s, gbs(p->nic_bw_Bps).s,
        pg_qty(p->nic_latency_s, UN_TIME).s, gbs(L.leaf_uplink_bw_Bps).s,
        pg_qty(p->leaf_latency_s, UN_TIME).s, pg_exact(p->leaf_oversub).s,
        gbs(L.rack_uplink_bw_Bps).s, pg_qty(p->spine_latency_s, UN_TIME).s,
        pg_exact(p->rack_oversub).s, pg_qty(p->leaf_switch_latency_s, UN_TIME).s,
        pg_qty(p->rack_switch_latency_s, UN_TIME).s, pg_qty(p->spine_switch_latency_s, UN_TIME).s);
    put(x, "<platform version=\"4.1\">\n");
}

/* The checked parameters, and whether SimGrid's XML can express them: it routes between zones
 * by zone, so a cable chosen per flow cannot be written. */
static int check_writable(const pg_params *p, char *err)
{
    int rc = pg_check(p, err);
    if (rc == HS_OK && p->uplink_routing != PG_UPLINKS_FAT)
        rc = hs_fail(err, HS_EINPUT, "--uplink-routing: only 'fat' can be written as SimGrid "
                     "XML (its routes are chosen by zone, not by flow); give the machine as a "
                     "spec instead, e.g. -p gen:abci:uplink-routing=hash");
    return rc;
}

int pg_write(const pg_params *p, FILE *o, char *err)
{
    int rc = check_writable(p, err);
    if (rc)
        return rc;
    xw_state x = {.out = o};
    pd_init(&x.digest);
    pg_sink sink = {.ctx = &x, .zone_open = on_zone_open, .zone_close = on_zone_close,
                    .prop = on_prop, .note = on_note, .link = on_link, .host = on_host,
                    .router = on_router, .route = on_route, .star_route = on_star_route};
    write_head(&x, p);
    pg_describe(p, NULL, &sink);
    put(&x, "</platform>\n");
    for (int z = 0; z < XW_MAX_DEPTH; z++)
        free_stars(&x, z);
    if (x.failed)
        return hs_fail(err, HS_EINTERNAL, "out of memory writing the platform");
    fprintf(o, PD_OPEN "%016llx" PD_CLOSE, (unsigned long long)pd_final(&x.digest));
    if (fflush(o) != 0 || ferror(o))
        return hs_fail(err, HS_EINTERNAL, "writing the platform failed: %s", strerror(errno));
    return HS_OK;
}

int pg_write_file(const pg_params *p, const char *path, char *err)
{
    hs_out out;
    int rc = check_writable(p, err);
    if (rc == HS_OK)
        rc = hs_out_open(&out, "-o", path, err);
    if (rc != HS_OK)
        return rc;
    rc = pg_write(p, out.f, err);
    if (rc != HS_OK) { /* a write failed (the parameters were checked): name the file */
        char why[HS_ERR_LEN];
        snprintf(why, sizeof why, "%s", err);
        hs_out_abort(&out);
        return hs_fail(err, rc, "-o %s: %s", path, why);
    }
    return hs_out_commit(&out, err);
}
