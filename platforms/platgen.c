/* platgen.c: the platform generator behind `hybridsim platform` (contract in platgen.h).
 *
 * It writes nested SimGrid zones rather than one flat zone because the whole ABCI machine has
 * 4352 GPUs: explicit routes between every GPU pair would be 9.5 million, while the hierarchy
 * below needs a few dozen routes per node and loads in a fraction of a second.
 *
 *   machine (Full)                 every link (see write_links); rack-to-rack routes: rack
 *                                  uplink, spine switch, rack uplink
 *    spine (Full)                  router spine-router only, first because of SimGrid's DTD
 *    rNN (Full)                    leaf-to-leaf routes: leaf uplink, rack switch, leaf uplink
 *     lNNN (Full)                  node-to-node routes: the leaf switch
 *      nNNNN (Full)                GPU-GPU: NVLink; GPU-gateway: its PCIe link + its NIC cable;
 *                                  GPU-host memory (host nNNNN-cpu): its PCIe link
 *      lNNN-sw (Full)              a zone holding only router lNNN-up, the leaf's way up
 *     rNN-sw (Full)                holds router rNN-up, the rack's way up
 *
 * SimGrid resolves a route between two zones by the zoneRoute of their common ancestor plus,
 * recursively, the routes from the source to that zoneRoute's gw_src and from its gw_dst to the
 * destination. The tiny "-sw" zones exist because a zoneRoute may only join zones: they give
 * the switch's up side a zone so that leaf and rack routes can end at it. Every switch is a
 * FATPIPE link (non-blocking, but with a latency paid once per crossing); cables and PCIe links
 * are SPLITDUPLEX (full-duplex hardware). See platforms/README.md for the figures. */
#include "platgen.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "units.h"

/* ---------------------------------------------------------------- ABCI */

void pg_abci(pg_params *p)
{
    memset(p, 0, sizeof *p);
    p->nodes = 1088;
    p->gpus_per_node = 4;
    p->gpus_per_pcie_switch = 2;    /* 2 PLX switches per node, 2 GPUs and 1 NIC under each */
    p->nics_per_node = 0;           /* one per PLX switch: 2 */
    p->gpu_speed_flops = 7.8e12;    /* ParaDL's ABCI.plat NODE_SPEED */
    p->gpu_memory_bytes = 16e9;     /* V100 SXM2 16 GB */
    p->gpu_model = "V100-16GB";
    p->nvlink_topology = PG_NVLINK_ALL_TO_ALL;
    p->nvlink_link_bw_Bps = 25e9;   /* NVLink 2 */
    p->nvlink_links_per_pair = 2;   /* a V100's 6 links over its 3 peers: 50 GB/s, the oracle's
                                     * value (the HPDC text says 20 GB/s) */
    p->nvlink_links_per_gpu = 6;    /* a V100's links, were it joined by an NVSwitch (DGX-2) */
    p->nvlink_bw_Bps = 0;           /* derived: 2 x 25 GB/s */
    p->nvlink_latency_s = 9e-6;     /* the oracle's intra-node alpha */
    p->nvswitch_latency_s = 0;      /* no NVSwitch */
    p->pcie_bw_Bps = 16e9;          /* PCIe Gen3 x16 */
    p->pcie_latency_s = 110e-9;     /* the oracle's PLX switch latency */
    p->nic_bw_Bps = 12.5e9;         /* InfiniBand EDR */
    p->nic_latency_s = 15e-6;       /* the oracle's "PLX cable" latency (mostly software) */
    p->nodes_per_leaf = 17;
    p->leaves_per_rack = 2;         /* 34 nodes per rack */
    p->leaf_oversub = 1.0;          /* full bisection inside a rack */
    p->rack_oversub = 3.0;          /* 1:3 between racks */
    p->leaf_latency_s = 0.0;        /* the oracle counts switches, not cables */
    p->spine_latency_s = 0.0;
    p->staging_latency_s = 3e-3;    /* ParaDL's halo latency without GPUDirect */
    p->leaf_switch_latency_s = 90e-9;
    p->rack_switch_latency_s = 90e-9;
    p->spine_switch_latency_s = 400e-9;
}

/* A cluster of DGX-1V-like nodes (platforms/README.md gives the sources). Same V100 SXM2, NVLink
 * 2, PCIe Gen3 and EDR generation as ABCI, so the ABCI oracle's latencies are kept (approx.:
 * measured on ABCI, not on a DGX-1). */
static void pg_dgx1(pg_params *p)
{
    pg_abci(p);
    p->nodes = 128;                 /* 1024 GPUs */
    p->gpus_per_node = 8;
    p->gpus_per_pcie_switch = 2;    /* 4 PLX switches per node, 2 GPUs and 1 EDR NIC under each */
    p->nics_per_node = 4;
    p->gpu_memory_bytes = 32e9;     /* V100 SXM2 32 GB */
    p->gpu_model = "V100-32GB";
    p->nvlink_topology = PG_NVLINK_CUBE_MESH;
    p->nvlink_link_bw_Bps = 25e9;   /* NVLink 2; pairs have the DGX-1V's 1 or 2 links */
    p->nvlink_links_per_pair = 1;   /* only if made all-to-all: 6 links cannot join 7 peers twice */
    p->nvlink_links_per_gpu = 6;    /* only if made nvswitch (a DGX-2-like node) */
    /* A 2-level fat tree of 36-port EDR switches, in the 3-level generator: a leaf takes 4
     * nodes (16 of its 18 down ports) and the single "rack" level is the spine layer. */
    p->nodes_per_leaf = 4;
    p->leaves_per_rack = 32;
    p->leaf_oversub = 1.0;          /* 16 down, 16 up: full bisection */
    p->rack_oversub = 1.0;          /* unused: one rack */
}

/* A cluster of modern 8-GPU NVSwitch nodes, H100-80GB-like, with one NDR NIC per GPU in a
 * full-bisection fat tree without rails (platforms/README.md gives the sources). Latencies are
 * the ABCI oracle's software-dominated alphas (approx.), except the switches'. */
static void pg_nvswitch_ndr(pg_params *p)
{
    pg_abci(p);
    p->nodes = 128;                 /* 1024 GPUs */
    p->gpus_per_node = 8;
    p->gpus_per_pcie_switch = 2;    /* 4 PCIe Gen5 switches, 2 GPUs and 2 NICs under each */
    p->nics_per_node = 8;           /* one 400 Gb/s NIC per GPU */
    p->gpu_memory_bytes = 80e9;     /* H100 SXM5 80 GB */
    p->gpu_model = "H100-80GB";
    p->nvlink_topology = PG_NVLINK_NVSWITCH;
    p->nvlink_link_bw_Bps = 25e9;   /* NVLink 4 */
    p->nvlink_links_per_gpu = 18;   /* H100 SXM5: 18 links, 450 GB/s per direction */
    p->nvlink_links_per_pair = 2;   /* only if made all-to-all: 18 links over 7 peers */
    p->nvswitch_latency_s = 0;      /* no published figure; small next to the 9 us alpha */
    p->pcie_bw_Bps = 64e9;          /* PCIe Gen5 x16 */
    p->nic_bw_Bps = 50e9;           /* InfiniBand NDR, 400 Gb/s */
    /* 64-port NDR switches: a leaf takes 4 nodes (32 ports down, 32 up); a "rack" is a 32-node
     * scalable unit of 8 leaves, as in NVIDIA's DGX SuperPOD; 4 of them. Non-blocking. */
    p->nodes_per_leaf = 4;
    p->leaves_per_rack = 8;
    p->leaf_oversub = 1.0;
    p->rack_oversub = 1.0;
    p->leaf_switch_latency_s = 150e-9; /* approx.: NDR switch port to port */
    p->rack_switch_latency_s = 150e-9;
    p->spine_switch_latency_s = 150e-9;
}

/* Presets by name, for --preset and pg_preset. */
typedef struct {
    const char *name;
    void (*fill)(pg_params *p);
} pg_preset_entry;

static const pg_preset_entry pg_presets[] = {
    {"abci", pg_abci},
    {"dgx1", pg_dgx1},
    {"nvswitch-ndr", pg_nvswitch_ndr},
};
#define PG_NPRESETS (sizeof pg_presets / sizeof pg_presets[0])

int pg_preset(const char *name, pg_params *p, char *err)
{
    for (size_t i = 0; i < PG_NPRESETS; i++)
        if (strcmp(pg_presets[i].name, name) == 0) {
            pg_presets[i].fill(p);
            return HS_OK;
        }
    return hs_fail(err, HS_EINPUT, "--preset: unknown preset '%s' (known: abci, dgx1, "
                   "nvswitch-ndr)", name);
}

/* ---------------------------------------------------------------- checks */

/* Limits that keep a file and its load time sane, not physical limits. */
#define PG_MAX_NODES 100000
#define PG_MAX_GPUS_PER_NODE 64
#define PG_MAX_NVLINKS 64           /* links in one bundle */
#define PG_CUBE_MESH_GPUS 8         /* the DGX-1V's GPUs */

static int check_count(const char *flag, int v, int max, char *err)
{
    if (v < 1)
        return hs_fail(err, HS_EINPUT, "--%s: must be at least 1 (got %d)", flag, v);
    if (v > max)
        return hs_fail(err, HS_EINPUT, "--%s: at most %d supported (got %d)", flag, max, v);
    return HS_OK;
}

static int check_positive(const char *flag, double v, char *err)
{
    if (!(v > 0) || !isfinite(v))
        return hs_fail(err, HS_EINPUT, "--%s: must be a positive number (got %g)", flag, v);
    return HS_OK;
}

static int check_latency(const char *flag, double v, char *err)
{
    if (!(v >= 0) || !isfinite(v))
        return hs_fail(err, HS_EINPUT, "--%s: must be a non-negative time (got %g s)", flag, v);
    return HS_OK;
}

/* NICs are spread evenly: every PCIe switch holds the same number, and every NIC serves the
 * same number of GPUs of its own switch (a GPU never crosses to another switch's NIC). */
static int check_nics(const pg_params *p, char *err)
{
    int rc, switches = p->gpus_per_node / p->gpus_per_pcie_switch;
    if (p->nics_per_node == 0)
        return HS_OK; /* one per switch */
    if ((rc = check_count("nics-per-node", p->nics_per_node, PG_MAX_GPUS_PER_NODE, err)))
        return rc;
    if (p->nics_per_node % switches != 0)
        return hs_fail(err, HS_EINPUT,
                       "--nics-per-node: %d NICs cannot be shared evenly by the %d PCIe switches "
                       "of a node (--gpus-per-node %d / --gpus-per-pcie-switch %d)",
                       p->nics_per_node, switches, p->gpus_per_node, p->gpus_per_pcie_switch);
    if (p->gpus_per_node % p->nics_per_node != 0)
        return hs_fail(err, HS_EINPUT,
                       "--nics-per-node: %d does not divide --gpus-per-node %d (a GPU uses one "
                       "NIC, and every NIC serves the same number of GPUs)",
                       p->nics_per_node, p->gpus_per_node);
    return HS_OK;
}

static int check_nvlink(const pg_params *p, char *err)
{
    int rc;
    if ((rc = check_count("nvlink-links-per-pair", p->nvlink_links_per_pair, PG_MAX_NVLINKS,
                          err)) ||
        (rc = check_count("nvlink-links-per-gpu", p->nvlink_links_per_gpu, PG_MAX_NVLINKS, err)))
        return rc;
    if (!(p->nvlink_bw_Bps >= 0) || !isfinite(p->nvlink_bw_Bps))
        return hs_fail(err, HS_EINPUT, "--nvlink-bw: must be a positive bandwidth or auto (got "
                       "%g)", p->nvlink_bw_Bps);
    switch (p->nvlink_topology) {
    case PG_NVLINK_ALL_TO_ALL:
    case PG_NVLINK_NVSWITCH:
        return HS_OK;
    case PG_NVLINK_CUBE_MESH:
        if (p->gpus_per_node != PG_CUBE_MESH_GPUS)
            return hs_fail(err, HS_EINPUT, "--nvlink-topology: cube-mesh is the DGX-1V's "
                           "topology of %d GPUs, but --gpus-per-node is %d", PG_CUBE_MESH_GPUS,
                           p->gpus_per_node);
        /* Its pairs have 1 or 2 links: a single pair bandwidth cannot describe them. */
        if (p->nvlink_bw_Bps > 0)
            return hs_fail(err, HS_EINPUT, "--nvlink-bw: cube-mesh pairs have 1 or 2 links; "
                           "give the bandwidth of one link (--nvlink-link-bw or --nvlink-gen)");
        return HS_OK;
    }
    return hs_fail(err, HS_EINPUT, "--nvlink-topology: unknown topology %d",
                   (int)p->nvlink_topology);
}

int pg_check(const pg_params *p, char *err)
{
    int rc;
    if ((rc = check_count("nodes", p->nodes, PG_MAX_NODES, err)) ||
        (rc = check_count("gpus-per-node", p->gpus_per_node, PG_MAX_GPUS_PER_NODE, err)) ||
        (rc = check_count("gpus-per-pcie-switch", p->gpus_per_pcie_switch, PG_MAX_GPUS_PER_NODE,
                          err)) ||
        (rc = check_count("nodes-per-leaf", p->nodes_per_leaf, PG_MAX_NODES, err)) ||
        (rc = check_count("leaves-per-rack", p->leaves_per_rack, PG_MAX_NODES, err)))
        return rc;
    if (p->gpus_per_node % p->gpus_per_pcie_switch != 0)
        return hs_fail(err, HS_EINPUT,
                       "--gpus-per-pcie-switch: %d does not divide --gpus-per-node %d (each PCIe "
                       "switch has its own NIC, so every switch must hold the same number of GPUs)",
                       p->gpus_per_pcie_switch, p->gpus_per_node);
    if ((rc = check_nics(p, err)))
        return rc;
    if (p->nodes % p->nodes_per_leaf != 0)
        return hs_fail(err, HS_EINPUT, "--nodes-per-leaf: %d does not divide --nodes %d",
                       p->nodes_per_leaf, p->nodes);
    if ((p->nodes / p->nodes_per_leaf) % p->leaves_per_rack != 0)
        return hs_fail(err, HS_EINPUT,
                       "--leaves-per-rack: %d does not divide the %d leaf groups (--nodes %d / "
                       "--nodes-per-leaf %d)",
                       p->leaves_per_rack, p->nodes / p->nodes_per_leaf, p->nodes,
                       p->nodes_per_leaf);
    if ((rc = check_positive("gpu-speed", p->gpu_speed_flops, err)) ||
        (rc = check_positive("gpu-memory", p->gpu_memory_bytes, err)) ||
        (rc = check_positive("nvlink-link-bw", p->nvlink_link_bw_Bps, err)) ||
        (rc = check_positive("pcie-bw", p->pcie_bw_Bps, err)) ||
        (rc = check_positive("nic-bw", p->nic_bw_Bps, err)) ||
        (rc = check_positive("leaf-oversub", p->leaf_oversub, err)) ||
        (rc = check_positive("rack-oversub", p->rack_oversub, err)) ||
        (rc = check_latency("nvlink-latency", p->nvlink_latency_s, err)) ||
        (rc = check_latency("nvswitch-latency", p->nvswitch_latency_s, err)) ||
        (rc = check_latency("pcie-latency", p->pcie_latency_s, err)) ||
        (rc = check_latency("nic-latency", p->nic_latency_s, err)) ||
        (rc = check_latency("leaf-latency", p->leaf_latency_s, err)) ||
        (rc = check_latency("spine-latency", p->spine_latency_s, err)) ||
        (rc = check_latency("leaf-switch-latency", p->leaf_switch_latency_s, err)) ||
        (rc = check_latency("rack-switch-latency", p->rack_switch_latency_s, err)) ||
        (rc = check_latency("spine-switch-latency", p->spine_switch_latency_s, err)) ||
        (rc = check_latency("staging-latency", p->staging_latency_s, err)))
        return rc;
    if (p->gpu_model == NULL || p->gpu_model[0] == '\0')
        return hs_fail(err, HS_EINPUT, "--gpu-model: must not be empty");
    for (const char *c = p->gpu_model; *c; c++)
        if ((unsigned char)*c < 0x20)
            return hs_fail(err, HS_EINPUT, "--gpu-model: control characters are not allowed");
    return check_nvlink(p, err);
}

/* ---------------------------------------------------------------- layout */

/* Sizes derived from the parameters, and the digit widths of the names: names are zero-padded
 * to one width per kind so that sorting by name (sg_host_list) gives rank order. */
typedef struct {
    int nics_per_node;
    int leaves;                 /* leaf groups in the machine */
    int racks;
    int node_w, gpu_w, nic_w, leaf_w, rack_w; /* digits in the names */
    double leaf_uplink_bw_Bps;  /* one direction of a leaf group's uplink */
    double rack_uplink_bw_Bps;  /* one direction of a rack's uplink */
    double leaf_switch_bw_Bps;  /* sum of a switch's port bandwidths: FATPIPE, never binding */
    double rack_switch_bw_Bps;
    double spine_switch_bw_Bps;
} pg_layout;

static int digits(int n_items, int at_least)
{
    int d = 1;
    for (int v = n_items - 1; v >= 10; v /= 10)
        d++;
    return d < at_least ? at_least : d;
}

static void layout_of(const pg_params *p, pg_layout *L)
{
    L->nics_per_node = p->nics_per_node ? p->nics_per_node
                                        : p->gpus_per_node / p->gpus_per_pcie_switch;
    L->leaves = p->nodes / p->nodes_per_leaf;
    L->racks = L->leaves / p->leaves_per_rack;
    L->node_w = digits(p->nodes, 4);
    L->gpu_w = digits(p->gpus_per_node, 1);
    L->nic_w = digits(L->nics_per_node, 1);
    L->leaf_w = digits(L->leaves, 3);
    L->rack_w = digits(L->racks, 2);
    /* An uplink carries what the level below can send, divided by the oversubscription:
     * one fat link standing for the bundle of parallel cables, i.e. ideal ECMP spreading. */
    double nics_per_leaf = (double)p->nodes_per_leaf * L->nics_per_node;
    L->leaf_uplink_bw_Bps = nics_per_leaf * p->nic_bw_Bps / p->leaf_oversub;
    L->rack_uplink_bw_Bps = p->leaves_per_rack * L->leaf_uplink_bw_Bps / p->rack_oversub;
    L->leaf_switch_bw_Bps = nics_per_leaf * p->nic_bw_Bps + L->leaf_uplink_bw_Bps;
    L->rack_switch_bw_Bps = p->leaves_per_rack * L->leaf_uplink_bw_Bps + L->rack_uplink_bw_Bps;
    L->spine_switch_bw_Bps = L->racks * L->rack_uplink_bw_Bps;
}

/* ---------------------------------------------------------------- names */

#define PG_NAME_LEN 64

/* Every name is built here. Widths are at most a few digits (PG_MAX_NODES), so a name always
 * fits; a wrapper keeps the compiler from guessing otherwise about each snprintf. */
static void __attribute__((format(printf, 2, 3))) name_of(char *buf, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, PG_NAME_LEN, fmt, ap);
    va_end(ap);
}

static void node_name(const pg_layout *L, int node, char *buf)
{
    name_of(buf, "n%0*d", L->node_w, node);
}

static void gpu_name(const pg_layout *L, int node, int gpu, char *buf)
{
    name_of(buf, "n%0*d-gpu%0*d", L->node_w, node, L->gpu_w, gpu);
}

static void leaf_name(const pg_layout *L, int leaf, const char *suffix, char *buf)
{
    name_of(buf, "l%0*d%s", L->leaf_w, leaf, suffix);
}

static void rack_name(const pg_layout *L, int rack, const char *suffix, char *buf)
{
    name_of(buf, "r%0*d%s", L->rack_w, rack, suffix);
}

/* ---------------------------------------------------------------- XML pieces */

/* Exact decimal text of v (see un_format_exact). */
typedef struct {
    char s[40];
} pg_num;

static pg_num num(double v)
{
    pg_num n;
    un_format_exact(v, n.s, sizeof n.s);
    return n;
}

/* v with a readable unit that reads back exactly ("50GBps", "110ns"). */
static pg_num qty(double v, un_kind kind)
{
    pg_num n;
    un_format(v, kind, n.s, sizeof n.s);
    return n;
}

static void xml_link(FILE *o, const char *indent, const char *id, double bw_Bps, double lat_s,
                     const char *policy)
{
    fprintf(o, "%s<link id=\"%s\" bandwidth=\"%s\" latency=\"%s\" sharing_policy=\"%s\"/>\n",
            indent, id, qty(bw_Bps, UN_BANDWIDTH).s, qty(lat_s, UN_TIME).s, policy);
}

/* One element of a route; dir is "UP"/"DOWN" for a split-duplex link, NULL otherwise. */
static void xml_ctn(FILE *o, const char *id, const char *dir)
{
    if (dir)
        fprintf(o, "<link_ctn id=\"%s\" direction=\"%s\"/>", id, dir);
    else
        fprintf(o, "<link_ctn id=\"%s\"/>", id);
}

static void xml_zone_route_open(FILE *o, const char *indent, const char *src, const char *dst,
                                const char *gw_src, const char *gw_dst)
{
    fprintf(o, "%s<zoneRoute src=\"%s\" dst=\"%s\" gw_src=\"%s\" gw_dst=\"%s\">", indent, src, dst,
            gw_src, gw_dst);
}

static void xml_attr_text(FILE *o, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '&': fputs("&amp;", o); break;
        case '<': fputs("&lt;", o); break;
        case '>': fputs("&gt;", o); break;
        case '"': fputs("&quot;", o); break;
        default: fputc(*s, o);
        }
    }
}

/* ---------------------------------------------------------------- the links */

/* All links are declared at the top of the root zone, before any child zone. Where a link is
 * declared does not change routing, but it changes load time a lot: SimGrid 3.32 finds a link
 * named in a route by searching the zone tree depth-first from the root, and checks every new
 * link's name the same way, so a link declared deep in the tree costs a walk over all the zones
 * before it. In the root's own table each look-up is a single hash probe (ABCI: 2-3 s of
 * loading become 0.25 s). */

/* A zone holding a single router: the up side of a switch, as a zone so zoneRoutes reach it. */
static void write_up_zone(FILE *o, const char *indent, const char *zone, const char *router)
{
    fprintf(o, "%s<zone id=\"%s\" routing=\"Full\"><router id=\"%s\"/></zone>\n", indent, zone,
            router);
}

/* ---------------------------------------------------------------- NVLink */

/* NVLinks between GPUs i and j of a DGX-1 with V100s (DGX-1V), as `nvidia-smi topo -m` shows
 * them (NV1, NV2; NVIDIA's DGX-1 documentation, and NCCL's topology dumps of a DGX-1V): two
 * fully connected quads, 0-3 and 4-7, and GPU i <-> i+4; each GPU uses all 6 of its links. */
static const unsigned char pg_dgx1v_links[PG_CUBE_MESH_GPUS][PG_CUBE_MESH_GPUS] = {
    {0, 1, 1, 2, 2, 0, 0, 0},
    {1, 0, 2, 1, 0, 2, 0, 0},
    {1, 2, 0, 2, 0, 0, 1, 0},
    {2, 1, 2, 0, 0, 0, 0, 1},
    {2, 0, 0, 0, 0, 1, 1, 2},
    {0, 2, 0, 0, 1, 0, 2, 1},
    {0, 0, 1, 0, 1, 2, 0, 2},
    {0, 0, 0, 1, 2, 1, 2, 0},
};

/* The GPU that a cube-mesh pair without a link goes through. GPUs do not forward in hardware,
 * but NCCL does: its topology search lets a path cross one intermediate GPU over NVLink
 * (PATH_NVB, src/graph/paths.cc) and prefers it to PCIe and the inter-socket link, which is
 * all these pairs have otherwise. Like NCCL, take the intermediate whose thinner hop has the
 * most links; the lowest-numbered among equals. Every such pair a < b has one: a + 4 or b - 4. */
static int cube_mesh_via(int a, int b)
{
    int via = -1, best = 0;
    for (int m = 0; m < PG_CUBE_MESH_GPUS; m++) {
        int am = pg_dgx1v_links[a][m], mb = pg_dgx1v_links[m][b];
        int links = am < mb ? am : mb;
        if (links > best) {
            via = m;
            best = links;
        }
    }
    return via;
}

/* One direction of a bundle of NVLinks, or the direct bandwidth given in its place. */
static double nvlink_bundle_Bps(const pg_params *p, int links)
{
    return p->nvlink_bw_Bps > 0 ? p->nvlink_bw_Bps : links * p->nvlink_link_bw_Bps;
}

static void nvlink_name(const char *node, int a, int b, char *buf)
{
    name_of(buf, "%s-nvl%d-%d", node, a < b ? a : b, a < b ? b : a);
}

/* The split-duplex NVLink between GPUs a and b, crossed from a to b: UP from the lower. */
static void nvlink_ctn(FILE *o, const char *node, int a, int b)
{
    char link[PG_NAME_LEN];
    nvlink_name(node, a, b, link);
    xml_ctn(o, link, a < b ? "UP" : "DOWN");
}

static void nvswitch_port_name(const pg_layout *L, const char *node, int gpu, char *buf)
{
    name_of(buf, "%s-nvs%0*d", node, L->gpu_w, gpu);
}

/* A node's NVLinks: one per joined pair (nvlA-B, A < B), or one per GPU into the NVSwitch
 * (nvsG) plus the switch itself (a FATPIPE, like the fat tree's switches). */
static void write_nvlinks(FILE *o, const pg_params *p, const pg_layout *L, const char *node)
{
    char link[PG_NAME_LEN];
    int G = p->gpus_per_node;
    switch (p->nvlink_topology) {
    case PG_NVLINK_ALL_TO_ALL:
    case PG_NVLINK_CUBE_MESH:
        for (int a = 0; a < G; a++)
            for (int b = a + 1; b < G; b++) {
                int links = p->nvlink_topology == PG_NVLINK_ALL_TO_ALL ? p->nvlink_links_per_pair
                                                                       : pg_dgx1v_links[a][b];
                if (links == 0)
                    continue;
                nvlink_name(node, a, b, link);
                xml_link(o, " ", link, nvlink_bundle_Bps(p, links), p->nvlink_latency_s,
                         "SPLITDUPLEX");
            }
        break;
    case PG_NVLINK_NVSWITCH:
        /* A pair's route crosses two ports: each carries half of one transfer's latency. */
        for (int g = 0; g < G; g++) {
            nvswitch_port_name(L, node, g, link);
            xml_link(o, " ", link, nvlink_bundle_Bps(p, p->nvlink_links_per_gpu),
                     p->nvlink_latency_s / 2, "SPLITDUPLEX");
        }
        name_of(link, "%s-nvswitch", node);
        xml_link(o, " ", link, G * nvlink_bundle_Bps(p, p->nvlink_links_per_gpu),
                 p->nvswitch_latency_s, "FATPIPE");
        break;
    }
}

/* The links a route from GPU a to GPU b (a < b) of one node takes; SimGrid reverses it for b to
 * a, swapping UP and DOWN. */
static void nvlink_route(FILE *o, const pg_params *p, const pg_layout *L, const char *node,
                         int a, int b)
{
    char link[PG_NAME_LEN];
    switch (p->nvlink_topology) {
    case PG_NVLINK_ALL_TO_ALL:
        nvlink_ctn(o, node, a, b);
        break;
    case PG_NVLINK_CUBE_MESH:
        if (pg_dgx1v_links[a][b] > 0) {
            nvlink_ctn(o, node, a, b);
        } else {
            int via = cube_mesh_via(a, b);
            nvlink_ctn(o, node, a, via);
            nvlink_ctn(o, node, via, b);
        }
        break;
    case PG_NVLINK_NVSWITCH:
        nvswitch_port_name(L, node, a, link);
        xml_ctn(o, link, "UP");
        name_of(link, "%s-nvswitch", node);
        xml_ctn(o, link, NULL);
        nvswitch_port_name(L, node, b, link);
        xml_ctn(o, link, "DOWN");
        break;
    }
}

/* ---------------------------------------------------------------- node links */

static void write_node_links(FILE *o, const pg_params *p, const pg_layout *L, int node)
{
    char nz[PG_NAME_LEN], link[PG_NAME_LEN];
    node_name(L, node, nz);
    write_nvlinks(o, p, L, nz);
    for (int g = 0; g < p->gpus_per_node; g++) {
        name_of(link, "%s-pcie%0*d", nz, L->gpu_w, g);
        xml_link(o, " ", link, p->pcie_bw_Bps, p->pcie_latency_s, "SPLITDUPLEX");
    }
    for (int k = 0; k < L->nics_per_node; k++) {
        name_of(link, "%s-nic%0*d", nz, L->nic_w, k);
        xml_link(o, " ", link, p->nic_bw_Bps, p->nic_latency_s, "SPLITDUPLEX");
    }
}

static void write_links(FILE *o, const pg_params *p, const pg_layout *L)
{
    char link[PG_NAME_LEN];
    /* SimGrid's DTD reads a zone that starts with a link as a zone of hosts, which may then
     * hold no child zone: a first child zone must come before the links. The spine switch's
     * own router is a natural one; no route needs it. */
    write_up_zone(o, " ", "spine", "spine-router");
    fprintf(o, " <!-- Links. Per node: %s, PCIe per GPU, one cable per NIC.\n"
            "      Per leaf group and rack: a switch (FATPIPE) and an uplink. Then the spine. -->\n",
            p->nvlink_topology == PG_NVLINK_NVSWITCH   ? "NVLink per GPU into the NVSwitch (nvsG)"
            : p->nvlink_topology == PG_NVLINK_CUBE_MESH ? "NVLink per joined GPU pair (nvlA-B)"
                                                       : "NVLink per GPU pair (nvlA-B)");
    for (int leaf = 0; leaf < L->leaves; leaf++) {
        for (int i = 0; i < p->nodes_per_leaf; i++)
            write_node_links(o, p, L, leaf * p->nodes_per_leaf + i);
        leaf_name(L, leaf, "-switch", link);
        xml_link(o, " ", link, L->leaf_switch_bw_Bps, p->leaf_switch_latency_s, "FATPIPE");
        leaf_name(L, leaf, "-uplink", link);
        xml_link(o, " ", link, L->leaf_uplink_bw_Bps, p->leaf_latency_s, "SPLITDUPLEX");
    }
    for (int r = 0; r < L->racks; r++) {
        rack_name(L, r, "-switch", link);
        xml_link(o, " ", link, L->rack_switch_bw_Bps, p->rack_switch_latency_s, "FATPIPE");
        rack_name(L, r, "-uplink", link);
        xml_link(o, " ", link, L->rack_uplink_bw_Bps, p->spine_latency_s, "SPLITDUPLEX");
    }
    xml_link(o, " ", "spine-switch", L->spine_switch_bw_Bps, p->spine_switch_latency_s, "FATPIPE");
}

/* ---------------------------------------------------------------- the zones */

static void write_node(FILE *o, const pg_params *p, const pg_layout *L, int node)
{
    char nz[PG_NAME_LEN], gw[PG_NAME_LEN], g1[PG_NAME_LEN], g2[PG_NAME_LEN];
    char pcie[PG_NAME_LEN], nic[PG_NAME_LEN], cpu[PG_NAME_LEN];
    const char *in = "    ";
    node_name(L, node, nz);
    name_of(gw, "%s-gw", nz);
    fprintf(o, "   <zone id=\"%s\" routing=\"Full\">\n", nz);
    for (int g = 0; g < p->gpus_per_node; g++) {
        gpu_name(L, node, g, g1);
        fprintf(o, "%s<host id=\"%s\" speed=\"%s\"/>\n", in, g1,
                qty(p->gpu_speed_flops, UN_SPEED).s);
    }
    /* The node's host memory (its CPUs and DRAM): where messages staged without GPUDirect go
     * (sim/engine_comm.c), each GPU over its own PCIe link. It never computes: the speed is a
     * placeholder. */
    name_of(cpu, "%s-cpu", nz);
    fprintf(o, "%s<host id=\"%s\" speed=\"1Gf\"/>\n", in, cpu);
    /* The node's gateway: where its NIC cables reach the leaf switch. */
    fprintf(o, "%s<router id=\"%s\"/>\n", in, gw);
    for (int a = 0; a < p->gpus_per_node; a++)
        for (int b = a + 1; b < p->gpus_per_node; b++) {
            gpu_name(L, node, a, g1);
            gpu_name(L, node, b, g2);
            fprintf(o, "%s<route src=\"%s\" dst=\"%s\">", in, g1, g2);
            nvlink_route(o, p, L, nz, a, b);
            fputs("</route>\n", o);
        }
    /* Each GPU leaves the node through its own PCIe link and a NIC of its PCIe switch: NICs are
     * numbered in GPU order and each serves gpus_per_node / nics_per_node GPUs (check_nics). */
    for (int g = 0; g < p->gpus_per_node; g++) {
        gpu_name(L, node, g, g1);
        name_of(pcie, "%s-pcie%0*d", nz, L->gpu_w, g);
        name_of(nic, "%s-nic%0*d", nz, L->nic_w, g / (p->gpus_per_node / L->nics_per_node));
        fprintf(o, "%s<route src=\"%s\" dst=\"%s\">", in, g1, gw);
        xml_ctn(o, pcie, "UP");
        xml_ctn(o, nic, "UP");
        fputs("</route>\n", o);
        fprintf(o, "%s<route src=\"%s\" dst=\"%s\">", in, g1, cpu);
        xml_ctn(o, pcie, "UP");
        fputs("</route>\n", o);
    }
    fputs("   </zone>\n", o);
}

/* A leaf group: its nodes, and routes node-to-node and node-to-up through the leaf switch. */
static void write_leaf(FILE *o, const pg_params *p, const pg_layout *L, int leaf)
{
    char lz[PG_NAME_LEN], up_zone[PG_NAME_LEN], up[PG_NAME_LEN], sw[PG_NAME_LEN];
    char na[PG_NAME_LEN], nb[PG_NAME_LEN], gwa[PG_NAME_LEN], gwb[PG_NAME_LEN];
    int first = leaf * p->nodes_per_leaf, n = p->nodes_per_leaf;
    leaf_name(L, leaf, "", lz);
    leaf_name(L, leaf, "-sw", up_zone);
    leaf_name(L, leaf, "-up", up);
    leaf_name(L, leaf, "-switch", sw);
    fprintf(o, "  <zone id=\"%s\" routing=\"Full\">\n", lz);
    for (int i = 0; i < n; i++)
        write_node(o, p, L, first + i);
    write_up_zone(o, "   ", up_zone, up);
    for (int i = 0; i < n; i++) {
        node_name(L, first + i, na);
        name_of(gwa, "%s-gw", na);
        for (int j = i + 1; j < n; j++) {
            node_name(L, first + j, nb);
            name_of(gwb, "%s-gw", nb);
            xml_zone_route_open(o, "   ", na, nb, gwa, gwb);
            xml_ctn(o, sw, NULL);
            fputs("</zoneRoute>\n", o);
        }
        xml_zone_route_open(o, "   ", na, up_zone, gwa, up);
        xml_ctn(o, sw, NULL);
        fputs("</zoneRoute>\n", o);
    }
    fputs("  </zone>\n", o);
}

/* A rack: its leaf groups, and routes leaf-to-leaf and leaf-to-up through the rack switch. */
static void write_rack(FILE *o, const pg_params *p, const pg_layout *L, int rack)
{
    char rz[PG_NAME_LEN], up_zone[PG_NAME_LEN], up[PG_NAME_LEN], sw[PG_NAME_LEN];
    char la[PG_NAME_LEN], lb[PG_NAME_LEN], upa[PG_NAME_LEN], upb[PG_NAME_LEN];
    char ula[PG_NAME_LEN], ulb[PG_NAME_LEN];
    int first = rack * p->leaves_per_rack, n = p->leaves_per_rack;
    rack_name(L, rack, "", rz);
    rack_name(L, rack, "-sw", up_zone);
    rack_name(L, rack, "-up", up);
    rack_name(L, rack, "-switch", sw);
    fprintf(o, " <zone id=\"%s\" routing=\"Full\">\n", rz);
    for (int i = 0; i < n; i++)
        write_leaf(o, p, L, first + i);
    write_up_zone(o, "  ", up_zone, up);
    for (int i = 0; i < n; i++) {
        leaf_name(L, first + i, "", la);
        leaf_name(L, first + i, "-up", upa);
        leaf_name(L, first + i, "-uplink", ula);
        for (int j = i + 1; j < n; j++) {
            leaf_name(L, first + j, "", lb);
            leaf_name(L, first + j, "-up", upb);
            leaf_name(L, first + j, "-uplink", ulb);
            xml_zone_route_open(o, "  ", la, lb, upa, upb);
            xml_ctn(o, ula, "UP");
            xml_ctn(o, sw, NULL);
            xml_ctn(o, ulb, "DOWN");
            fputs("</zoneRoute>\n", o);
        }
        xml_zone_route_open(o, "  ", la, up_zone, upa, up);
        xml_ctn(o, ula, "UP");
        xml_ctn(o, sw, NULL);
        fputs("</zoneRoute>\n", o);
    }
    fputs(" </zone>\n", o);
}

/* The spine: routes rack-to-rack through both racks' uplinks and the spine switch. */
static void write_spine_routes(FILE *o, const pg_layout *L)
{
    char ra[PG_NAME_LEN], rb[PG_NAME_LEN], upa[PG_NAME_LEN], upb[PG_NAME_LEN];
    char ula[PG_NAME_LEN], ulb[PG_NAME_LEN];
    for (int a = 0; a < L->racks; a++) {
        rack_name(L, a, "", ra);
        rack_name(L, a, "-up", upa);
        rack_name(L, a, "-uplink", ula);
        for (int b = a + 1; b < L->racks; b++) {
            rack_name(L, b, "", rb);
            rack_name(L, b, "-up", upb);
            rack_name(L, b, "-uplink", ulb);
            xml_zone_route_open(o, " ", ra, rb, upa, upb);
            xml_ctn(o, ula, "UP");
            xml_ctn(o, "spine-switch", NULL);
            xml_ctn(o, ulb, "DOWN");
            fputs("</zoneRoute>\n", o);
        }
    }
}

static void prop_int(FILE *o, const char *id, int v)
{
    fprintf(o, " <prop id=\"hybridsim:%s\" value=\"%d\"/>\n", id, v);
}

static void prop_num(FILE *o, const char *id, double v)
{
    fprintf(o, " <prop id=\"hybridsim:%s\" value=\"%s\"/>\n", id, num(v).s);
}

/* The NVLink part of the file's head comment: "50GBps 9us" for all-to-all, as it always was. */
typedef struct {
    char s[160];
} pg_text;

static pg_text nvlink_summary(const pg_params *p)
{
    pg_text t;
    switch (p->nvlink_topology) {
    case PG_NVLINK_CUBE_MESH:
        snprintf(t.s, sizeof t.s, "DGX-1V cube-mesh, 1 or 2 links of %s per pair, %s per hop",
                 qty(p->nvlink_link_bw_Bps, UN_BANDWIDTH).s, qty(p->nvlink_latency_s, UN_TIME).s);
        return t;
    case PG_NVLINK_NVSWITCH:
        snprintf(t.s, sizeof t.s, "%s %s per GPU through an NVSwitch (%s)",
                 qty(nvlink_bundle_Bps(p, p->nvlink_links_per_gpu), UN_BANDWIDTH).s,
                 qty(p->nvlink_latency_s, UN_TIME).s, qty(p->nvswitch_latency_s, UN_TIME).s);
        return t;
    case PG_NVLINK_ALL_TO_ALL:
        break;
    }
    snprintf(t.s, sizeof t.s, "%s %s",
             qty(nvlink_bundle_Bps(p, p->nvlink_links_per_pair), UN_BANDWIDTH).s,
             qty(p->nvlink_latency_s, UN_TIME).s);
    return t;
}

/* The file's head: provenance comment and the properties plat_load reads back. */
static void write_head(FILE *o, const pg_params *p, const pg_layout *L)
{
    fputs("<?xml version='1.0'?>\n"
          "<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n", o);
    fprintf(o,
            "<!-- Written by `hybridsim platform` (platforms/README.md explains the structure).\n"
            "     %d nodes x %d GPUs, %d NICs per node; %d leaf groups of %d nodes, %d racks of "
            "%d leaf groups.\n"
            "     NVLink %s; PCIe %s %s; NIC %s %s.\n"
            "     Leaf uplink %s %s (oversubscription %s), rack uplink %s %s "
            "(oversubscription %s).\n"
            "     Switch latencies: leaf %s, rack %s, spine %s. -->\n",
            p->nodes, p->gpus_per_node, L->nics_per_node, L->leaves, p->nodes_per_leaf, L->racks,
            p->leaves_per_rack, nvlink_summary(p).s, qty(p->pcie_bw_Bps, UN_BANDWIDTH).s,
            qty(p->pcie_latency_s, UN_TIME).s, qty(p->nic_bw_Bps, UN_BANDWIDTH).s,
            qty(p->nic_latency_s, UN_TIME).s, qty(L->leaf_uplink_bw_Bps, UN_BANDWIDTH).s,
            qty(p->leaf_latency_s, UN_TIME).s, num(p->leaf_oversub).s,
            qty(L->rack_uplink_bw_Bps, UN_BANDWIDTH).s, qty(p->spine_latency_s, UN_TIME).s,
            num(p->rack_oversub).s, qty(p->leaf_switch_latency_s, UN_TIME).s,
            qty(p->rack_switch_latency_s, UN_TIME).s, qty(p->spine_switch_latency_s, UN_TIME).s);
    fputs("<platform version=\"4.1\">\n<zone id=\"machine\" routing=\"Full\">\n", o);
    prop_int(o, "format", 1);
    prop_int(o, "nodes", p->nodes);
    prop_int(o, "gpus_per_node", p->gpus_per_node);
    prop_int(o, "gpus_per_pcie_switch", p->gpus_per_pcie_switch);
    prop_int(o, "nodes_per_leaf", p->nodes_per_leaf);
    prop_int(o, "leaves_per_rack", p->leaves_per_rack);
    prop_num(o, "gpu_memory_bytes", p->gpu_memory_bytes);
    fputs(" <prop id=\"hybridsim:gpu_model\" value=\"", o);
    xml_attr_text(o, p->gpu_model);
    fputs("\"/>\n", o);
    prop_num(o, "staging_latency_s", p->staging_latency_s);
}

int pg_write(const pg_params *p, FILE *o, char *err)
{
    pg_layout L;
    int rc = pg_check(p, err);
    if (rc)
        return rc;
    layout_of(p, &L);
    write_head(o, p, &L);
    write_links(o, p, &L);
    for (int r = 0; r < L.racks; r++)
        write_rack(o, p, &L, r);
    write_spine_routes(o, &L);
    fputs("</zone>\n</platform>\n", o);
    if (fflush(o) != 0 || ferror(o))
        return hs_fail(err, HS_EINPUT, "cannot write the platform: %s", strerror(errno));
    return HS_OK;
}

int pg_write_file(const pg_params *p, const char *path, char *err)
{
    char tmp[4096];
    int rc = pg_check(p, err);
    if (rc)
        return rc;
    if (snprintf(tmp, sizeof tmp, "%s.tmp", path) >= (int)sizeof tmp)
        return hs_fail(err, HS_EINPUT, "-o: path too long");
    FILE *o = fopen(tmp, "w");
    if (!o)
        return hs_fail(err, HS_EINPUT, "-o: cannot create %s: %s", tmp, strerror(errno));
    rc = pg_write(p, o, err);
    if (fclose(o) != 0 && rc == HS_OK)
        rc = hs_fail(err, HS_EINPUT, "-o: cannot write %s: %s", tmp, strerror(errno));
    if (rc == HS_OK && rename(tmp, path) != 0)
        rc = hs_fail(err, HS_EINPUT, "-o: cannot rename %s to %s: %s", tmp, path, strerror(errno));
    if (rc != HS_OK)
        remove(tmp);
    return rc;
}

/* ---------------------------------------------------------------- command line */

typedef enum { FL_INT, FL_QTY, FL_RATIO, FL_STR, FL_TOPO, FL_CHOICE } pg_flag_type;

/* A word a flag takes in place of a number: --nic-type ndr, --nics-per-node auto. */
typedef struct {
    const char *word;
    double value;       /* what the word sets the field to (SI; 0 means auto) */
} pg_word;

/* Per-link NVLink bandwidth, one direction: P100 (NVLink 1) 20 GB/s; V100 (2), A100 (3) and
 * H100 (4) 25 GB/s, their GPUs differing in links (6, 12, 18), not in a link's speed. */
static const pg_word nvlink_gens[] = {{"1", 20e9}, {"2", 25e9}, {"3", 25e9}, {"4", 25e9}, {0}};
/* PCIe x16, one direction, rounded as vendors quote them (Gen3 is 15.75 GB/s after coding). */
static const pg_word pcie_gens[] = {{"3", 16e9}, {"4", 32e9}, {"5", 64e9}, {0}};
/* InfiniBand 4x ports: 100, 200, 400 Gb/s. */
static const pg_word nic_types[] = {{"edr", 12.5e9}, {"hdr", 25e9}, {"ndr", 50e9}, {0}};
static const pg_word auto_word[] = {{"auto", 0}, {0}};

/* Indexed by pg_nvlink_topology. */
static const char *const topology_names[] = {"all-to-all", "cube-mesh", "nvswitch"};
#define PG_NTOPOLOGIES (sizeof topology_names / sizeof topology_names[0])

/* One flag of `hybridsim platform`, bound to a field of pg_params. */
typedef struct {
    const char *name;     /* without the leading "--" */
    pg_flag_type type;
    un_kind unit;         /* FL_QTY only */
    size_t offset;        /* of the field in pg_params */
    const pg_word *words; /* FL_CHOICE: the words it takes; FL_INT, FL_QTY: words taken too */
    const char *help;
} pg_flag;

#define F(field) offsetof(pg_params, field)
static const pg_flag pg_flags[] = {
    {"nodes", FL_INT, 0, F(nodes), NULL, "nodes in the machine"},
    {"gpus-per-node", FL_INT, 0, F(gpus_per_node), NULL, "GPUs per node"},
    {"gpus-per-pcie-switch", FL_INT, 0, F(gpus_per_pcie_switch), NULL,
     "GPUs sharing one PCIe switch and its NICs"},
    {"nics-per-node", FL_INT, 0, F(nics_per_node), auto_word,
     "NICs per node, spread over the PCIe switches (auto: 1 a switch)"},
    {"gpu-speed", FL_QTY, UN_SPEED, F(gpu_speed_flops), NULL, "speed of a GPU host"},
    {"gpu-memory", FL_QTY, UN_SIZE, F(gpu_memory_bytes), NULL, "memory of one GPU"},
    {"gpu-model", FL_STR, 0, F(gpu_model), NULL, "GPU model, compared with a workload's device"},
    {"nvlink-topology", FL_TOPO, 0, F(nvlink_topology), NULL,
     "all-to-all, cube-mesh (DGX-1V, 8 GPUs) or nvswitch"},
    {"nvlink-gen", FL_CHOICE, 0, F(nvlink_link_bw_Bps), nvlink_gens,
     "1 (20GBps a link), 2, 3, 4 (25GBps): sets --nvlink-link-bw"},
    {"nvlink-link-bw", FL_QTY, UN_BANDWIDTH, F(nvlink_link_bw_Bps), NULL,
     "one NVLink link, one direction"},
    {"nvlink-links-per-pair", FL_INT, 0, F(nvlink_links_per_pair), NULL,
     "all-to-all: links joining each GPU pair"},
    {"nvlink-links-per-gpu", FL_INT, 0, F(nvlink_links_per_gpu), NULL,
     "nvswitch: links from each GPU into the switch"},
    {"nvlink-bw", FL_QTY, UN_BANDWIDTH, F(nvlink_bw_Bps), auto_word,
     "all-to-all: a pair, nvswitch: a GPU (auto: links x link bw)"},
    {"nvlink-latency", FL_QTY, UN_TIME, F(nvlink_latency_s), NULL,
     "one NVLink transfer (cube-mesh: per hop)"},
    {"nvswitch-latency", FL_QTY, UN_TIME, F(nvswitch_latency_s), NULL,
     "nvswitch: crossing the switch"},
    {"pcie-gen", FL_CHOICE, 0, F(pcie_bw_Bps), pcie_gens,
     "3, 4, 5 (16, 32, 64GBps x16): sets --pcie-bw"},
    {"pcie-bw", FL_QTY, UN_BANDWIDTH, F(pcie_bw_Bps), NULL, "one direction of a GPU's PCIe link"},
    {"pcie-latency", FL_QTY, UN_TIME, F(pcie_latency_s), NULL,
     "latency of a PCIe link and switch"},
    {"nic-type", FL_CHOICE, 0, F(nic_bw_Bps), nic_types,
     "InfiniBand edr, hdr, ndr (12.5, 25, 50GBps): sets --nic-bw"},
    {"nic-bw", FL_QTY, UN_BANDWIDTH, F(nic_bw_Bps), NULL, "one direction of a NIC's cable"},
    {"nic-latency", FL_QTY, UN_TIME, F(nic_latency_s), NULL, "latency of a NIC and its cable"},
    {"nodes-per-leaf", FL_INT, 0, F(nodes_per_leaf), NULL, "nodes under one leaf switch group"},
    {"leaves-per-rack", FL_INT, 0, F(leaves_per_rack), NULL, "leaf groups under one rack switch"},
    {"leaf-oversub", FL_RATIO, 0, F(leaf_oversub), NULL,
     "leaf uplink oversubscription (3 or 1:3)"},
    {"rack-oversub", FL_RATIO, 0, F(rack_oversub), NULL,
     "rack uplink oversubscription (3 or 1:3)"},
    {"leaf-latency", FL_QTY, UN_TIME, F(leaf_latency_s), NULL,
     "cable latency, leaf to rack switch"},
    {"spine-latency", FL_QTY, UN_TIME, F(spine_latency_s), NULL,
     "cable latency, rack switch to spine"},
    {"leaf-switch-latency", FL_QTY, UN_TIME, F(leaf_switch_latency_s), NULL,
     "crossing a leaf switch"},
    {"rack-switch-latency", FL_QTY, UN_TIME, F(rack_switch_latency_s), NULL,
     "crossing a rack switch"},
    {"spine-switch-latency", FL_QTY, UN_TIME, F(spine_switch_latency_s), NULL,
     "crossing the spine"},
    {"staging-latency", FL_QTY, UN_TIME, F(staging_latency_s), NULL,
     "extra latency of a message staged through host memory"},
};
#undef F
#define PG_NFLAGS (sizeof pg_flags / sizeof pg_flags[0])

/* Pairs of flags that set one quantity: given both, which wins would depend on their order. */
static const char *const pg_conflicts[][2] = {
    {"nvlink-gen", "nvlink-link-bw"},       {"pcie-gen", "pcie-bw"},
    {"nic-type", "nic-bw"},                 {"nvlink-bw", "nvlink-gen"},
    {"nvlink-bw", "nvlink-link-bw"},        {"nvlink-bw", "nvlink-links-per-pair"},
    {"nvlink-bw", "nvlink-links-per-gpu"},
};
#define PG_NCONFLICTS (sizeof pg_conflicts / sizeof pg_conflicts[0])

/* Flags that one NVLink topology alone reads: with another they would silently do nothing. */
static const struct {
    const char *flag;
    pg_nvlink_topology topology;
} pg_topology_flags[] = {
    {"nvlink-links-per-pair", PG_NVLINK_ALL_TO_ALL},
    {"nvlink-links-per-gpu", PG_NVLINK_NVSWITCH},
    {"nvswitch-latency", PG_NVLINK_NVSWITCH},
};
#define PG_NTOPOLOGY_FLAGS (sizeof pg_topology_flags / sizeof pg_topology_flags[0])

/* "3" or "1:3" (one uplink unit per three downlink units) -> 3. */
static int parse_ratio(const char *s, double *v)
{
    char *end;
    double a = strtod(s, &end);
    if (end == s)
        return -1;
    if (*end == '\0') {
        *v = a;
        return isfinite(a) ? 0 : -1;
    }
    if (*end != ':')
        return -1;
    const char *rest = end + 1;
    double b = strtod(rest, &end);
    if (end == rest || *end != '\0' || !(a > 0) || !isfinite(a) || !isfinite(b))
        return -1;
    *v = b / a;
    return 0;
}

static int parse_int(const char *s, int *v)
{
    char *end;
    errno = 0;
    long x = strtol(s, &end, 10);
    if (end == s || *end != '\0' || errno == ERANGE || x < INT_MIN || x > INT_MAX)
        return -1;
    *v = (int)x;
    return 0;
}

static const pg_word *find_word(const pg_word *words, const char *value)
{
    for (; words && words->word; words++)
        if (strcmp(words->word, value) == 0)
            return words;
    return NULL;
}

/* "1, 2, 3, 4" for messages. */
static void list_words(const pg_word *words, char *buf, size_t len)
{
    size_t n = 0;
    buf[0] = '\0';
    for (; words->word && n < len; words++)
        n += snprintf(buf + n, len - n, "%s%s", n ? ", " : "", words->word);
}

static int set_flag(const pg_flag *f, const char *value, pg_params *p, char *err)
{
    char *field = (char *)p + f->offset;
    char known[128];
    const pg_word *w = find_word(f->words, value);
    switch (f->type) {
    case FL_INT:
        if (w)
            *(int *)field = (int)w->value;
        else if (parse_int(value, (int *)field) != 0)
            return hs_fail(err, HS_EINPUT, "--%s: '%s' is not a whole number", f->name, value);
        return HS_OK;
    case FL_QTY:
        if (w)
            *(double *)field = w->value;
        else if (un_parse(value, f->unit, (double *)field) != 0)
            return hs_fail(err, HS_EINPUT, "--%s: cannot read '%s': expected %s", f->name, value,
                           un_hint(f->unit));
        return HS_OK;
    case FL_CHOICE:
        if (!w) {
            list_words(f->words, known, sizeof known);
            return hs_fail(err, HS_EINPUT, "--%s: unknown value '%s' (known: %s)", f->name,
                           value, known);
        }
        *(double *)field = w->value;
        return HS_OK;
    case FL_RATIO:
        if (parse_ratio(value, (double *)field) != 0)
            return hs_fail(err, HS_EINPUT, "--%s: cannot read '%s': expected a ratio such as 3 "
                           "or 1:3", f->name, value);
        return HS_OK;
    case FL_STR:
        *(const char **)field = value;
        return HS_OK;
    case FL_TOPO:
        for (size_t t = 0; t < PG_NTOPOLOGIES; t++)
            if (strcmp(value, topology_names[t]) == 0) {
                *(pg_nvlink_topology *)field = (pg_nvlink_topology)t;
                return HS_OK;
            }
        return hs_fail(err, HS_EINPUT, "--%s: unknown topology '%s' (known: all-to-all, "
                       "cube-mesh, nvswitch)", f->name, value);
    }
    return hs_fail(err, HS_EINTERNAL, "--%s: unhandled flag type", f->name);
}

/* The words of a choice flag that give the field's value, "2/3/4"; "-" when none does. */
static void show_words(const pg_word *words, double v, char *buf, size_t len)
{
    size_t n = 0;
    buf[0] = '\0';
    for (; words->word && n < len; words++)
        if (words->value == v)
            n += snprintf(buf + n, len - n, "%s%s", n ? "/" : "", words->word);
    if (n == 0)
        snprintf(buf, len, "-");
}

/* A default value as the user would type it. */
static void show_default(const pg_flag *f, const pg_params *p, char *buf, size_t len)
{
    const char *field = (const char *)p + f->offset;
    switch (f->type) {
    case FL_INT:
        if (f->words && *(const int *)field == 0)
            snprintf(buf, len, "auto");
        else
            snprintf(buf, len, "%d", *(const int *)field);
        return;
    case FL_RATIO:
        snprintf(buf, len, "%s", num(*(const double *)field).s);
        return;
    case FL_STR:
        snprintf(buf, len, "%s", *(const char *const *)field);
        return;
    case FL_TOPO: {
        size_t t = (size_t) * (const pg_nvlink_topology *)field;
        snprintf(buf, len, "%s", t < PG_NTOPOLOGIES ? topology_names[t] : "?");
        return;
    }
    case FL_CHOICE:
        show_words(f->words, *(const double *)field, buf, len);
        return;
    case FL_QTY:
        if (f->words && *(const double *)field == 0)
            snprintf(buf, len, "auto");
        else
            snprintf(buf, len, "%s", qty(*(const double *)field, f->unit).s);
        return;
    }
    snprintf(buf, len, "?");
}

/* Help with the defaults of `preset` (the preset given before --help, else abci). */
static void usage(FILE *o, const pg_params *d, const char *preset)
{
    char def[64];
    fputs("usage: hybridsim platform [--preset abci|dgx1|nvswitch-ndr] [--FLAG VALUE ...] "
          "[-o FILE.xml]\n"
          "Writes a SimGrid platform: nodes of GPUs joined by NVLink (all pairs, the DGX-1V's\n"
          "hybrid cube mesh, or an NVSwitch), PCIe switches with their NICs, and a 3-level fat\n"
          "tree (leaf groups, racks, spine). Without -o, writes to stdout. Values take units\n"
          "(SI when bare): times 9us 110ns 3ms, bandwidths 50GBps 100Gbps (bits), sizes 16GB\n"
          "16GiB, speeds 7.8Tf. Flags override the preset in any order; two flags that set one\n"
          "quantity (--nic-type and --nic-bw, ...) cannot both be given. Defaults shown are the\n",
          o);
    fprintf(o, "%s preset's (`hybridsim platform --preset NAME --help` shows another's).\n\n",
            preset);
    fprintf(o, "  %-24s %-12s %s\n", "--preset NAME", preset,
            "abci, dgx1 or nvswitch-ndr (README: sources)");
    for (size_t i = 0; i < PG_NFLAGS; i++) {
        char name[64];
        snprintf(name, sizeof name, "--%s", pg_flags[i].name);
        show_default(&pg_flags[i], d, def, sizeof def);
        fprintf(o, "  %-24s %-12s %s\n", name, def, pg_flags[i].help);
    }
    fprintf(o, "  %-24s %-12s %s\n", "-o, --output FILE", "stdout",
            "write atomically to FILE (via FILE.tmp)");
    fprintf(o, "  %-24s %-12s %s\n", "-h, --help", "", "print this help");
}

static const pg_flag *find_flag(const char *name)
{
    for (size_t i = 0; i < PG_NFLAGS; i++)
        if (strcmp(pg_flags[i].name, name) == 0)
            return &pg_flags[i];
    return NULL;
}

/* Whether the flag called `name` was given (given[] is indexed like pg_flags). */
static int was_given(const unsigned char *given, const char *name)
{
    const pg_flag *f = find_flag(name);
    return f && given[f - pg_flags];
}

/* Refuse flags that contradict each other or that the chosen NVLink topology would ignore. */
static int check_given(const unsigned char *given, const pg_params *p, char *err)
{
    for (size_t i = 0; i < PG_NCONFLICTS; i++)
        if (was_given(given, pg_conflicts[i][0]) && was_given(given, pg_conflicts[i][1]))
            return hs_fail(err, HS_EINPUT, "--%s: cannot be combined with --%s, which sets the "
                           "same bandwidth: give one of them", pg_conflicts[i][0],
                           pg_conflicts[i][1]);
    for (size_t i = 0; i < PG_NTOPOLOGY_FLAGS; i++)
        if (was_given(given, pg_topology_flags[i].flag) &&
            p->nvlink_topology != pg_topology_flags[i].topology)
            return hs_fail(err, HS_EINPUT, "--%s: only --nvlink-topology %s uses it (the "
                           "topology is %s)", pg_topology_flags[i].flag,
                           topology_names[pg_topology_flags[i].topology],
                           topology_names[p->nvlink_topology]);
    return HS_OK;
}

/* Split "--name=value" or "--name value" (consuming argv[i+1]); -1 when the value is missing. */
static int flag_value(int argc, char **argv, int *i, char *name, size_t len, const char **value)
{
    const char *arg = argv[*i] + 2;
    const char *eq = strchr(arg, '=');
    if (eq) {
        snprintf(name, len, "%.*s", (int)(eq - arg), arg);
        *value = eq + 1;
        return 0;
    }
    snprintf(name, len, "%s", arg);
    if (*i + 1 >= argc)
        return -1;
    *value = argv[++*i];
    return 0;
}

int pg_main(int argc, char **argv, char *err)
{
    pg_params p;
    const char *out = NULL, *preset = "abci";
    unsigned char given[PG_NFLAGS] = {0};
    char name[64];
    const char *value;
    int rc, help = 0;
    pg_abci(&p);
    /* The preset first, wherever it is, so that flags override it in any order. */
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            help = 1;
            continue;
        }
        if (strncmp(argv[i], "--preset", 8) == 0 && (argv[i][8] == '\0' || argv[i][8] == '=')) {
            if (flag_value(argc, argv, &i, name, sizeof name, &value) != 0)
                return hs_fail(err, HS_EINPUT, "--preset: needs a value");
            if ((rc = pg_preset(value, &p, err)))
                return rc;
            preset = value;
        }
    }
    if (help) {
        usage(stdout, &p, preset);
        return HS_OK;
    }
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (strcmp(arg, "-o") == 0 || strcmp(arg, "--output") == 0) {
            if (i + 1 >= argc)
                return hs_fail(err, HS_EINPUT, "%s: needs a file name", arg);
            out = argv[++i];
            continue;
        }
        if (strncmp(arg, "--", 2) != 0 || arg[2] == '\0')
            return hs_fail(err, HS_EINPUT, "platform: unexpected argument '%s' (see hybridsim "
                           "platform --help)", arg);
        if (flag_value(argc, argv, &i, name, sizeof name, &value) != 0)
            return hs_fail(err, HS_EINPUT, "--%s: needs a value", name);
        if (strcmp(name, "output") == 0) {
            out = value;
            continue;
        }
        if (strcmp(name, "preset") == 0)
            continue; /* applied above */
        const pg_flag *f = find_flag(name);
        if (!f)
            return hs_fail(err, HS_EINPUT, "platform: unknown flag '--%s' (see hybridsim "
                           "platform --help)", name);
        if ((rc = set_flag(f, value, &p, err)))
            return rc;
        given[f - pg_flags] = 1;
    }
    if ((rc = check_given(given, &p, err)))
        return rc;
    if (out)
        return pg_write_file(&p, out, err);
    return pg_write(&p, stdout, err);
}
