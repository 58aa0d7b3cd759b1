/* platgen_walk.c: the generated machine, described once, as a walk over its zones (platgen.h's
 * pg_describe). The XML writer, the in-memory SimGrid builder and the route resolver are its
 * sinks, so they cannot drift apart.
 *
 * Nested zones rather than one flat zone because the whole ABCI machine has 4352 GPUs: explicit
 * routes between every GPU pair would be 9.5 million, while the hierarchy below needs a few
 * dozen routes per node.
 *
 *   machine (star)                 every link (see walk_links); racks joined through their
 *                                  uplinks and the spine switch
 *    spine (Full)                  router spine-router only, first because of SimGrid's DTD
 *    rNN (star)                    leaf groups joined through leaf uplinks and the rack switch
 *     lNNN (star)                  nodes joined through the leaf switch
 *      nNNNN (Full)                GPU-GPU: NVLink, or without it (PCIe boards) PCIe through
 *                                  their switch or the CPUs; GPU-gateway: its PCIe link + its
 *                                  NIC cable (through the CPUs if the NIC is on another switch);
 *                                  GPU-host memory (host nNNNN-cpu): its PCIe link, then its
 *                                  switch's link to the CPU if the machine has one; with two
 *                                  CPUs, each CPU's memory (nNNNN-cpu, nNNNN-cpu1), the other
 *                                  one's across the link between them (nNNNN-cpulink)
 *      lNNN-sw (Full)              a zone holding only router lNNN-up, the leaf's way up
 *     rNN-sw (Full)                holds router rNN-up, the rack's way up
 *
 * SimGrid resolves a route between two zones by the route between their ancestors in the
 * common ancestor, plus, recursively, the routes from the source to that route's source gateway
 * and from its destination gateway to the destination. The tiny "-sw" zones exist because a
 * zone-level route may only join zones: they give a switch's up side a zone of its own. Every
 * switch is a FATPIPE link (non-blocking, but with a latency paid once per crossing); cables
 * and PCIe links are SPLITDUPLEX (full-duplex hardware). platforms/README.md has the figures.
 *
 * All links are declared at the top of the root zone, before any rack. Where a link is
 * declared does not change routing, but it changes load time a lot: SimGrid 3.32 finds a link
 * named in an XML route by searching the zone tree depth-first from the root, and checks every
 * new link's name the same way, so a link declared deep in the tree costs a walk over all the
 * zones before it. In the root's own table each look-up is a single hash probe. */
#include "platgen_int.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* ---------------------------------------------------------------- names */

/* Every name is built here (platgen_int.h). Not snprintf: names are most of the cost of
 * walking a large machine. Widths are at most a few digits (PG_MAX_NODES), so a name always
 * fits PG_NAME_LEN. */
char *pg__compose(char *buf, const char *a, const char *b, int v, int w, const char *c)
{
    size_t na = strlen(a), nb = strlen(b), nc = strlen(c);
    char digits[16], *p = buf;
    int k = 0;
    memcpy(p, a, na);
    memcpy(p += na, b, nb);
    p += nb;
    for (unsigned u = (unsigned)v; v >= 0 && (k == 0 || u > 0); u /= 10)
        digits[k++] = (char)('0' + u % 10);
    while (v >= 0 && k < w && k < (int)sizeof digits)
        digits[k++] = '0';
    while (k > 0)
        *p++ = digits[--k];
    memcpy(p, c, nc + 1);
    return p + nc;
}

static void node_name(const pg_layout *L, int node, char *buf)
{
    pg__compose(buf, "n", "", node, L->node_w, "");
}

static void gpu_name(const pg_layout *L, int node, int gpu, char *buf)
{
    pg__compose(pg__compose(buf, "n", "", node, L->node_w, "-gpu"), "", "", gpu, L->gpu_w, "");
}

static void leaf_name(const pg_layout *L, int leaf, const char *suffix, char *buf)
{
    pg__compose(buf, "l", "", leaf, L->leaf_w, suffix);
}

static void rack_name(const pg_layout *L, int rack, const char *suffix, char *buf)
{
    pg__compose(buf, "r", "", rack, L->rack_w, suffix);
}

void pg_gpu_host(const pg_params *p, int gpu, char *name)
{
    pg_layout L;
    pg_layout_of(p, &L);
    gpu_name(&L, gpu / p->gpus_per_node, gpu % p->gpus_per_node, name);
}

int pg_socket_of(const pg_params *p, int gpu)
{
    return p->cpu_link_bw_Bps > 0 && gpu % p->gpus_per_node >= p->gpus_per_node / 2;
}

/* The host memory of CPU `socket` of node `node`: "n0003-cpu", the second CPU's "n0003-cpu1". */
static void memory_name(const pg_layout *L, int node, int socket, char *name)
{
    pg__compose(name, "n", "", node, L->node_w, socket ? "-cpu1" : "-cpu");
}

void pg_memory_host(const pg_params *p, int gpu, char *name)
{
    pg_layout L;
    pg_layout_of(p, &L);
    memory_name(&L, gpu / p->gpus_per_node, pg_socket_of(p, gpu), name);
}

/* ---------------------------------------------------------------- the walk's state */

/* The walk: parameters, layout, the sink, and every value's text computed once (un_format is
 * the slow part of writing a large machine). */
typedef struct {
    const pg_params *p;
    pg_layout L;
    const pg_sink *k;
    pg_num gpu_speed, pcie_bw, pcie_lat, nic_bw, nic_lat, nvlink_lat, port_lat, nvswitch_lat;
    pg_num pcie_up_bw, zero_lat, cpu_link_bw, cpu_link_lat, root_p2p_bw;
    pg_num nvlink_bw[3];        /* a bundle of 1 or 2 links (cube mesh), [0]: of a pair or GPU */
    pg_num nvswitch_bw;
    pg_num leaf_sw_bw, leaf_sw_lat, leaf_up_bw, leaf_up_lat;
    pg_num rack_sw_bw, rack_sw_lat, rack_up_bw, rack_up_lat, spine_bw, spine_lat;
} pg_walk;

static void walk_init(pg_walk *w, const pg_params *p, const pg_sink *k)
{
    w->p = p;
    w->k = k;
    pg_layout_of(p, &w->L);
    const pg_layout *L = &w->L;
    int bundle = p->nvlink_topology == PG_NVLINK_NVSWITCH ? p->nvlink_links_per_gpu
                                                           : p->nvlink_links_per_pair;
    w->gpu_speed = pg_qty(p->gpu_speed_flops, UN_SPEED);
    w->pcie_bw = pg_qty(p->pcie_bw_Bps, UN_BANDWIDTH);
    w->pcie_lat = pg_qty(p->pcie_latency_s, UN_TIME);
    w->pcie_up_bw = pg_qty(p->pcie_uplink_bw_Bps, UN_BANDWIDTH);
    w->zero_lat = pg_qty(0, UN_TIME);
    w->cpu_link_bw = pg_qty(p->cpu_link_bw_Bps, UN_BANDWIDTH);
    w->cpu_link_lat = pg_qty(p->cpu_link_latency_s, UN_TIME);
    w->root_p2p_bw = pg_qty(p->root_p2p_bw_Bps, UN_BANDWIDTH);
    w->nic_bw = pg_qty(p->nic_bw_Bps, UN_BANDWIDTH);
    w->nic_lat = pg_qty(p->nic_latency_s, UN_TIME);
    w->nvlink_lat = pg_qty(p->nvlink_latency_s, UN_TIME);
    /* A pair's route crosses two switch ports: each carries half of one transfer's latency. */
    w->port_lat = pg_qty(p->nvlink_latency_s / 2, UN_TIME);
    w->nvswitch_lat = pg_qty(p->nvswitch_latency_s, UN_TIME);
    w->nvlink_bw[0] = pg_qty(pg_nvlink_bundle_Bps(p, bundle), UN_BANDWIDTH);
    w->nvlink_bw[1] = pg_qty(pg_nvlink_bundle_Bps(p, 1), UN_BANDWIDTH);
    w->nvlink_bw[2] = pg_qty(pg_nvlink_bundle_Bps(p, 2), UN_BANDWIDTH);
    w->nvswitch_bw = pg_qty(p->gpus_per_node * pg_nvlink_bundle_Bps(p, bundle), UN_BANDWIDTH);
    w->leaf_sw_bw = pg_qty(L->leaf_switch_bw_Bps, UN_BANDWIDTH);
    w->leaf_sw_lat = pg_qty(p->leaf_switch_latency_s, UN_TIME);
    w->leaf_up_bw = pg_qty(L->leaf_uplink_bw_Bps, UN_BANDWIDTH);
    w->leaf_up_lat = pg_qty(p->leaf_latency_s, UN_TIME);
    w->rack_sw_bw = pg_qty(L->rack_switch_bw_Bps, UN_BANDWIDTH);
    w->rack_sw_lat = pg_qty(p->rack_switch_latency_s, UN_TIME);
    w->rack_up_bw = pg_qty(L->rack_uplink_bw_Bps, UN_BANDWIDTH);
    w->rack_up_lat = pg_qty(p->spine_latency_s, UN_TIME);
    w->spine_bw = pg_qty(L->spine_switch_bw_Bps, UN_BANDWIDTH);
    w->spine_lat = pg_qty(p->spine_switch_latency_s, UN_TIME);
}

double pg_fastest_cable_Bps(const pg_params *p)
{
    pg_walk w;
    walk_init(&w, p, NULL);
    const pg_num *cables[] = {&w.pcie_bw,      &w.nic_bw,       &w.pcie_up_bw,
                              &w.cpu_link_bw,  &w.nvlink_bw[0], &w.nvlink_bw[1],
                              &w.nvlink_bw[2], &w.leaf_up_bw,   &w.rack_up_bw};
    double most = 0, v;
    for (size_t i = 0; i < sizeof cables / sizeof *cables; i++)
        if (un_parse(cables[i]->s, UN_BANDWIDTH, &v) == 0 && v > most)
            most = v;
    return most;
}

/* The sink's callbacks (platgen.h: every one set). */
#define SINK(w, call, ...) ((w)->k->call((w)->k->ctx, __VA_ARGS__))

/* A zone holding a single router: the up side of a switch, as a zone so routes reach it. */
static void walk_up_zone(const pg_walk *w, const char *zone, const char *name)
{
    SINK(w, zone_open, zone, PG_FULL);
    SINK(w, router, name);
    w->k->zone_close(w->k->ctx);
}

/* ---------------------------------------------------------------- NVLink */

#define PG_NODE_HOPS 6 /* the longest route inside a node: PCIe, switch up, CPUs, down, root, PCIe */

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

static void nvlink_name(const char *node, int a, int b, char *buf)
{
    char *end = pg__compose(buf, node, "-nvl", a < b ? a : b, 0, "-");
    pg__compose(end, "", "", a < b ? b : a, 0, "");
}

static void nvswitch_port_name(const pg_layout *L, const char *node, int gpu, char *buf)
{
    pg__compose(buf, node, "-nvs", gpu, L->gpu_w, "");
}

/* A node's NVLinks: one per joined pair (nvlA-B, A < B), or one per GPU into the NVSwitch
 * (nvsG) plus the switch itself (a FATPIPE, like the fat tree's switches). */
static void walk_nvlinks(const pg_walk *w, const char *node)
{
    const pg_params *p = w->p;
    char name[PG_NAME_LEN];
    int G = p->gpus_per_node;
    switch (p->nvlink_topology) {
    case PG_NVLINK_ALL_TO_ALL:
    case PG_NVLINK_CUBE_MESH:
        for (int a = 0; a < G; a++)
            for (int b = a + 1; b < G; b++) {
                bool cube = p->nvlink_topology == PG_NVLINK_CUBE_MESH;
                int links = cube ? pg_dgx1v_links[a][b] : p->nvlink_links_per_pair;
                if (links == 0)
                    continue;
                nvlink_name(node, a, b, name);
                SINK(w, link, name, (cube ? w->nvlink_bw[links] : w->nvlink_bw[0]).s, w->nvlink_lat.s,
                     PG_SPLITDUPLEX);
            }
        break;
    case PG_NVLINK_NVSWITCH:
        for (int g = 0; g < G; g++) {
            nvswitch_port_name(&w->L, node, g, name);
            SINK(w, link, name, w->nvlink_bw[0].s, w->port_lat.s, PG_SPLITDUPLEX);
        }
        pg__compose(name, node, "-nvswitch", -1, 0, "");
        SINK(w, link, name, w->nvswitch_bw.s, w->nvswitch_lat.s, PG_FATPIPE);
        break;
    case PG_NVLINK_NONE: /* the PCIe links, written for every topology, are all */
        break;
    case PG_NVLINK_PAIRS: /* a bridge's bundle between GPUs 2k and 2k+1 */
        for (int a = 0; a + 1 < G; a += 2) {
            nvlink_name(node, a, a + 1, name);
            SINK(w, link, name, w->nvlink_bw[0].s, w->nvlink_lat.s, PG_SPLITDUPLEX);
        }
        break;
    }
}

/* The hops of the route from GPU a to GPU b (a < b) of one node, names in `names` (room for
 * PG_NODE_HOPS); SimGrid reverses it for b to a, swapping UP and DOWN. Returns the hop count. */
static int nvlink_hops(const pg_walk *w, const char *node, int a, int b,
                       char names[][PG_NAME_LEN], pg_hop *hops)
{
    switch (w->p->nvlink_topology) {
    case PG_NVLINK_ALL_TO_ALL:
        break;
    case PG_NVLINK_CUBE_MESH: {
        if (pg_dgx1v_links[a][b] > 0)
            break;
        int via = cube_mesh_via(a, b);
        nvlink_name(node, a, via, names[0]);
        nvlink_name(node, via, b, names[1]);
        hops[0] = (pg_hop){names[0], a < via ? PG_UP : PG_DOWN};
        hops[1] = (pg_hop){names[1], via < b ? PG_UP : PG_DOWN};
        return 2;
    }
    case PG_NVLINK_NVSWITCH:
        nvswitch_port_name(&w->L, node, a, names[0]);
        pg__compose(names[1], node, "-nvswitch", -1, 0, "");
        nvswitch_port_name(&w->L, node, b, names[2]);
        hops[0] = (pg_hop){names[0], PG_UP};
        hops[1] = (pg_hop){names[1], PG_NONE};
        hops[2] = (pg_hop){names[2], PG_DOWN};
        return 3;
    case PG_NVLINK_NONE:
    case PG_NVLINK_PAIRS:
        if (pg__pcie_pair(w->p, a, b))
            return pg__pcie_pair_hops(w->p, &w->L, node, a, b, names, hops);
        break; /* a bridged pair */
    }
    nvlink_name(node, a, b, names[0]); /* the pair's own link, UP from the lower GPU */
    hops[0] = (pg_hop){names[0], a < b ? PG_UP : PG_DOWN};
    return 1;
}

/* ---------------------------------------------------------------- links */

static void walk_node_links(const pg_walk *w, int node)
{
    char nz[PG_NAME_LEN], name[PG_NAME_LEN];
    node_name(&w->L, node, nz);
    walk_nvlinks(w, nz);
    for (int g = 0; g < w->p->gpus_per_node; g++) {
        pg__compose(name, nz, "-pcie", g, w->L.gpu_w, "");
        SINK(w, link, name, w->pcie_bw.s, w->pcie_lat.s, PG_SPLITDUPLEX);
    }
    for (int k = 0; k < w->L.nics_per_node; k++) {
        pg__compose(name, nz, "-nic", k, w->L.nic_w, "");
        SINK(w, link, name, w->nic_bw.s, w->nic_lat.s, PG_SPLITDUPLEX);
    }
    /* The switch crossing's latency is the GPU links' (pcie_latency_s): none of its own. */
    int switches = w->p->gpus_per_node / w->p->gpus_per_pcie_switch;
    for (int s = 0; w->p->pcie_uplink_bw_Bps > 0 && s < switches; s++) {
        pg__compose(name, nz, "-pcieup", s, 1, "");
        SINK(w, link, name, w->pcie_up_bw.s, w->zero_lat.s, PG_SPLITDUPLEX);
    }
    if (w->p->cpu_link_bw_Bps > 0) { /* UP: from CPU 0 to CPU 1 */
        pg__compose(name, nz, "-cpulink", -1, 0, "");
        SINK(w, link, name, w->cpu_link_bw.s, w->cpu_link_lat.s, PG_SPLITDUPLEX);
    }
    /* A CPU's root as P2P flows between its switches see it: a cap on each, shared by none. */
    int sockets = w->p->cpu_link_bw_Bps > 0 ? 2 : 1;
    for (int c = 0; w->p->root_p2p_bw_Bps > 0 && c < sockets; c++) {
        pg__compose(name, nz, "-rootp2p", c, 1, "");
        SINK(w, link, name, w->root_p2p_bw.s, w->zero_lat.s, PG_FATPIPE);
    }
}

static bool rack_wanted(const unsigned char *racks, int r)
{
    return racks == NULL || racks[r];
}

static void walk_links(const pg_walk *w, const unsigned char *racks)
{
    const pg_params *p = w->p;
    char name[PG_NAME_LEN];
    for (int leaf = 0; leaf < w->L.leaves; leaf++) {
        if (!rack_wanted(racks, leaf / p->leaves_per_rack))
            continue;
        for (int i = 0; i < pg_leaf_nodes(p, leaf); i++)
            walk_node_links(w, leaf * p->nodes_per_leaf + i);
        leaf_name(&w->L, leaf, "-switch", name);
        SINK(w, link, name, w->leaf_sw_bw.s, w->leaf_sw_lat.s, PG_FATPIPE);
        leaf_name(&w->L, leaf, "-uplink", name); /* the name pg_uplink_cables recognises */
        SINK(w, link, name, w->leaf_up_bw.s, w->leaf_up_lat.s, PG_SPLITDUPLEX);
    }
    for (int r = 0; r < w->L.racks; r++) {
        if (!rack_wanted(racks, r))
            continue;
        rack_name(&w->L, r, "-switch", name);
        SINK(w, link, name, w->rack_sw_bw.s, w->rack_sw_lat.s, PG_FATPIPE);
        rack_name(&w->L, r, "-uplink", name);
        SINK(w, link, name, w->rack_up_bw.s, w->rack_up_lat.s, PG_SPLITDUPLEX);
    }
    SINK(w, link, "spine-switch", w->spine_bw.s, w->spine_lat.s, PG_FATPIPE);
}

/* ---------------------------------------------------------------- zones */

/* GPU g's routes to host memory: its PCIe link, then its switch's link to its CPU when the
 * machine has one; with two CPUs (cpu_link_bw_Bps), to its own CPU's memory and over the link
 * between the CPUs to the other's. */
static void walk_memory_routes(const pg_walk *w, int node, const char *nz, int g)
{
    const pg_params *p = w->p;
    char gpu[PG_NAME_LEN], mem[PG_NAME_LEN], names[3][PG_NAME_LEN];
    pg_hop hops[3];
    int n = 0, mine = pg_socket_of(p, node * p->gpus_per_node + g);
    gpu_name(&w->L, node, g, gpu);
    pg__compose(names[0], nz, "-pcie", g, w->L.gpu_w, "");
    hops[n++] = (pg_hop){names[0], PG_UP};
    if (p->pcie_uplink_bw_Bps > 0) {
        pg__compose(names[1], nz, "-pcieup", g / p->gpus_per_pcie_switch, 1, "");
        hops[n++] = (pg_hop){names[1], PG_UP};
    }
    memory_name(&w->L, node, mine, mem);
    SINK(w, route, gpu, mem, hops, n);
    if (p->cpu_link_bw_Bps <= 0)
        return;
    pg__compose(names[2], nz, "-cpulink", -1, 0, "");
    hops[n++] = (pg_hop){names[2], mine == 0 ? PG_UP : PG_DOWN};
    memory_name(&w->L, node, !mine, mem);
    SINK(w, route, gpu, mem, hops, n);
}

static void walk_node(const pg_walk *w, int node)
{
    const pg_params *p = w->p;
    char nz[PG_NAME_LEN], gw[PG_NAME_LEN], g1[PG_NAME_LEN], g2[PG_NAME_LEN], cpu[PG_NAME_LEN];
    char names[PG_NODE_HOPS][PG_NAME_LEN];
    pg_hop hops[PG_NODE_HOPS];
    node_name(&w->L, node, nz);
    pg__compose(gw, nz, "-gw", -1, 0, "");
    SINK(w, zone_open, nz, PG_FULL);
    for (int g = 0; g < p->gpus_per_node; g++) {
        gpu_name(&w->L, node, g, g1);
        SINK(w, host, g1, w->gpu_speed.s);
    }
    /* The node's host memory (its CPUs and DRAM), or each CPU's: where messages staged without
     * GPUDirect go (sim/engine/engine_p2p.c). It never computes: the speed is a placeholder. */
    int sockets = w->k->no_host_memory ? 0 : p->cpu_link_bw_Bps > 0 ? 2 : 1;
    for (int socket = 0; socket < sockets; socket++) {
        memory_name(&w->L, node, socket, cpu);
        SINK(w, host, cpu, "1Gf");
    }
    SINK(w, router, gw); /* the node's gateway: where its NIC cables reach the leaf switch */
    for (int a = 0; a < p->gpus_per_node; a++)
        for (int b = a + 1; b < p->gpus_per_node; b++) {
            gpu_name(&w->L, node, a, g1);
            gpu_name(&w->L, node, b, g2);
            SINK(w, route, g1, g2, hops, nvlink_hops(w, nz, a, b, names, hops));
        }
    /* Each GPU leaves the node through its own PCIe link and a NIC: NICs are numbered in GPU
     * order and each serves gpus_per_node / nics_per_node GPUs (check_nics); NIC k is on switch
     * k x switches / nics, the GPU's own unless a node has fewer NICs than switches. Through
     * host memory (--nic-path host) the way crosses the CPUs' side even under one switch. */
    int switches = p->gpus_per_node / p->gpus_per_pcie_switch;
    for (int g = 0; g < p->gpus_per_node; g++) {
        int n = 0, nic = g / (p->gpus_per_node / w->L.nics_per_node);
        int own = g / p->gpus_per_pcie_switch, theirs = nic * switches / w->L.nics_per_node;
        gpu_name(&w->L, node, g, g1);
        pg__compose(names[n], nz, "-pcie", g, w->L.gpu_w, "");
        hops[n] = (pg_hop){names[n], PG_UP};
        n++;
        if (own != theirs || p->nic_path == PG_NIC_PATH_HOST)
            pg__switch_hops(w->p, nz, own, theirs, names, hops, &n);
        pg__compose(names[n], nz, "-nic", nic, w->L.nic_w, "");
        hops[n] = (pg_hop){names[n], PG_UP};
        SINK(w, route, g1, gw, hops, n + 1);
        if (!w->k->no_host_memory)
            walk_memory_routes(w, node, nz, g);
    }
    w->k->zone_close(w->k->ctx);
}

/* A leaf group: its nodes, each joined through the leaf switch, the switch's up side too. */
static void walk_leaf(const pg_walk *w, int leaf)
{
    char lz[PG_NAME_LEN], up_zone[PG_NAME_LEN], up[PG_NAME_LEN], sw[PG_NAME_LEN];
    char nz[PG_NAME_LEN], gw[PG_NAME_LEN];
    int first = leaf * w->p->nodes_per_leaf, n = pg_leaf_nodes(w->p, leaf);
    leaf_name(&w->L, leaf, "", lz);
    leaf_name(&w->L, leaf, "-sw", up_zone);
    leaf_name(&w->L, leaf, "-up", up);
    leaf_name(&w->L, leaf, "-switch", sw);
    pg_hop through_switch = {sw, PG_NONE};
    SINK(w, zone_open, lz, PG_STAR);
    for (int i = 0; i < n; i++)
        walk_node(w, first + i);
    walk_up_zone(w, up_zone, up);
    for (int i = 0; i < n; i++) {
        node_name(&w->L, first + i, nz);
        pg__compose(gw, nz, "-gw", -1, 0, "");
        SINK(w, star_route, nz, gw, &through_switch, 1);
    }
    SINK(w, star_route, up_zone, up, &through_switch, 1);
    w->k->zone_close(w->k->ctx);
}

/* A rack: its leaf groups, each joined through its uplink and the rack switch, the switch's up
 * side too. */
static void walk_rack(const pg_walk *w, int rack)
{
    char rz[PG_NAME_LEN], up_zone[PG_NAME_LEN], up[PG_NAME_LEN], sw[PG_NAME_LEN];
    char lz[PG_NAME_LEN], lup[PG_NAME_LEN], uplink[PG_NAME_LEN];
    int first = rack * w->p->leaves_per_rack;
    int n = pg__filled(first, w->p->leaves_per_rack, w->L.leaves);
    rack_name(&w->L, rack, "", rz);
    rack_name(&w->L, rack, "-sw", up_zone);
    rack_name(&w->L, rack, "-up", up);
    rack_name(&w->L, rack, "-switch", sw);
    pg_hop hops[2] = {{uplink, PG_UP}, {sw, PG_NONE}};
    SINK(w, zone_open, rz, PG_STAR);
    for (int i = 0; i < n; i++)
        walk_leaf(w, first + i);
    walk_up_zone(w, up_zone, up);
    for (int i = 0; i < n; i++) {
        leaf_name(&w->L, first + i, "", lz);
        leaf_name(&w->L, first + i, "-up", lup);
        leaf_name(&w->L, first + i, "-uplink", uplink);
        SINK(w, star_route, lz, lup, hops, 2);
    }
    SINK(w, star_route, up_zone, up, &hops[1], 1);
    w->k->zone_close(w->k->ctx);
}

/* ---------------------------------------------------------------- the machine */

static void prop(const pg_walk *w, const char *id, const char *value)
{
    SINK(w, prop, id, value);
}

static void prop_int(const pg_walk *w, const char *id, int v)
{
    char text[16];
    snprintf(text, sizeof text, "%d", v);
    prop(w, id, text);
}

/* The root zone's properties: what plat_load reads back (platforms/README.md), and the
 * parameters themselves, so that a file can be rebuilt without being parsed. */
static void walk_props(const pg_walk *w)
{
    const pg_params *p = w->p;
    char spec[2048], err[HS_ERR_LEN];
    prop(w, "hybridsim:format", "1");
    prop_int(w, "hybridsim:nodes", p->nodes);
    prop_int(w, "hybridsim:gpus_per_node", p->gpus_per_node);
    prop_int(w, "hybridsim:gpus_per_pcie_switch", p->gpus_per_pcie_switch);
    prop_int(w, "hybridsim:nodes_per_leaf", p->nodes_per_leaf);
    prop_int(w, "hybridsim:leaves_per_rack", p->leaves_per_rack);
    prop(w, "hybridsim:gpu_memory_bytes", pg_exact(p->gpu_memory_bytes).s);
    prop(w, "hybridsim:gpu_model", p->gpu_model);
    if (p->gpu_device && p->gpu_device[0]) /* a device-table name (device.h) */
        prop(w, "hybridsim:gpu_device", p->gpu_device);
    prop(w, "hybridsim:staging_latency_s", pg_exact(p->staging_latency_s).s);
    prop_int(w, "hybridsim:generator_layout", PG_LAYOUT_VERSION);
    if (pg_spec_format(p, spec, sizeof spec, err) == HS_OK) /* else the file is read in full */
        prop(w, "hybridsim:generator", spec);
}

/* What the links are, for readers of the XML. */
static void walk_note(const pg_walk *w)
{
    char note[320];
    snprintf(note, sizeof note, "Links. Per node: %s, PCIe per GPU, one cable per NIC.\n"
             "      Per leaf group and rack: a switch (FATPIPE) and an uplink. Then the spine.",
             w->p->nvlink_topology == PG_NVLINK_NVSWITCH ? "NVLink per GPU into the NVSwitch (nvsG)"
             : w->p->nvlink_topology == PG_NVLINK_CUBE_MESH ? "NVLink per joined GPU pair (nvlA-B)"
             : w->p->nvlink_topology == PG_NVLINK_NONE ? "no NVLink (GPU pairs over PCIe)"
             : w->p->nvlink_topology == PG_NVLINK_PAIRS ? "NVLink per bridged pair (nvlA-B)"
                                                       : "NVLink per GPU pair (nvlA-B)");
    SINK(w, note, note);
}

void pg_describe(const pg_params *p, const unsigned char *racks, const pg_sink *sink)
{
    pg_walk w;
    char name[PG_NAME_LEN], up[PG_NAME_LEN], uplink[PG_NAME_LEN];
    pg_hop hops[2] = {{uplink, PG_UP}, {"spine-switch", PG_NONE}};
    walk_init(&w, p, sink);
    SINK(&w, zone_open, "machine", PG_STAR);
    walk_props(&w);
    /* SimGrid's DTD reads a zone that starts with a link as a zone of hosts, which may then
     * hold no child zone: a first child zone must come before the links. The spine switch's
     * own router is a natural one; no route needs it. */
    walk_up_zone(&w, "spine", "spine-router");
    walk_note(&w);
    walk_links(&w, racks);
    for (int r = 0; r < w.L.racks; r++)
        if (rack_wanted(racks, r))
            walk_rack(&w, r);
    for (int r = 0; r < w.L.racks; r++) {
        if (!rack_wanted(racks, r))
            continue;
        rack_name(&w.L, r, "", name);
        rack_name(&w.L, r, "-up", up);
        rack_name(&w.L, r, "-uplink", uplink);
        SINK(&w, star_route, name, up, hops, 2);
    }
    w.k->zone_close(w.k->ctx);
}
