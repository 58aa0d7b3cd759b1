/* platgen_xml.c: the platform generator's writer: parameters -> SimGrid XML (platgen.h).
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

#include "hs_parse.h"
#include "units.h"

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
    if (p->gpu_device && p->gpu_device[0]) /* a device-table name: nothing to escape */
        fprintf(o, " <prop id=\"hybridsim:gpu_device\" value=\"%s\"/>\n", p->gpu_device);
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
