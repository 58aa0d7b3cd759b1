/* platgen.h: writes SimGrid platform XML for a cluster of multi-GPU nodes (`hybridsim platform`).
 *
 * The machine: nodes of G GPUs joined by NVLink (all pairs, the DGX-1V's hybrid cube mesh, or an
 * NVSwitch); PCIe switches each shared by a few GPUs and their NICs; NICs into a 3-level fat
 * tree (leaf switches, rack-level switches, spine) with an oversubscription ratio per level.
 * Every link kind has a latency and a bandwidth.
 * platforms/README.md describes the zones, links and routes that are written and why. */
#ifndef PLATGEN_H
#define PLATGEN_H

#include <stdbool.h>
#include <stdio.h>

#include "hs_error.h"

/* How the GPUs of a node are joined by NVLink (platforms/README.md has the figures). */
typedef enum {
    PG_NVLINK_ALL_TO_ALL = 0, /* a bundle of nvlink_links_per_pair links between every GPU pair */
    PG_NVLINK_CUBE_MESH,      /* DGX-1V hybrid cube mesh (8 GPUs): two fully connected quads
                               * plus GPU i <-> i+4, 1 or 2 links per pair as in the DGX-1V;
                               * a pair without a link goes through one intermediate GPU */
    PG_NVLINK_NVSWITCH,       /* every GPU one bundle of nvlink_links_per_gpu links to a
                               * non-blocking NVSwitch; every pair goes through it */
    PG_NVLINK_NONE,           /* no NVLink (PCIe boards): a pair goes over PCIe, through its
                               * PCIe switch, or up to the CPU and across to the other's */
    PG_NVLINK_PAIRS           /* PCIe boards bridged in pairs: GPUs 2k and 2k+1 joined by a
                               * bundle of nvlink_links_per_pair links, other pairs as NONE */
} pg_nvlink_topology;

#define PG_CUBE_MESH_GPUS 8 /* the DGX-1V's GPUs, the only size its cube mesh comes in */

/* How a flow between nodes is routed over a fat-tree level's uplinks (platforms/README.md).
 * FAT: each uplink is one link with the bundle's bandwidth, so traffic spreads perfectly (the
 * XML can say this). The others split each uplink into its parallel cables and put each flow on
 * one, so flows can collide: DMODK as InfiniBand's deterministic routing (the cable picked by
 * the destination NIC), HASH as Ethernet ECMP (by a hash of the two GPUs). Built in memory only:
 * SimGrid's XML routes by zone, not by flow. */
typedef enum { PG_UPLINKS_FAT = 0, PG_UPLINKS_DMODK, PG_UPLINKS_HASH } pg_uplink_routing;

/* How a GPU's network traffic reaches its NIC. DIRECT: below their PCIe switch when they share
 * one, else through the CPUs (GPUDirect RDMA). HOST: through host memory, as NCCL sends without
 * GPUDirect RDMA (the GPU writes a host buffer the NIC reads; NVIDIA/nccl v2.3.5
 * src/transport/net.cu:216-225): up the GPU's switch link to its CPU and down the NIC's, even
 * under one switch. */
typedef enum { PG_NIC_PATH_DIRECT = 0, PG_NIC_PATH_HOST } pg_nic_path;

/* How two GPUs of a node without an NVLink between them exchange data. P2P: over PCIe, below
 * their switch when they share one, else through the CPUs (NCCL's P2P transport). HOST: through
 * host memory, as NCCL does where CUDA gives the pair no peer access (its SHM transport: the
 * sender writes a host buffer the receiver reads; NVIDIA/nccl v2.3.5 src/transport/p2p.cu:85-92
 * and shm.cu:69-72): up the sender's switch link to its CPU and down the receiver's, even under one
 * switch. */
typedef enum { PG_GPU_PATH_P2P = 0, PG_GPU_PATH_HOST } pg_gpu_path;

typedef struct pg_params {
    const char *preset;         /* the preset the parameters started from ("abci" when NULL):
                                 * named in the generated file so that fields without a flag
                                 * come back from it */
    int nodes;                  /* nodes in the machine */
    int gpus_per_node;
    int gpus_per_pcie_switch;   /* GPUs sharing one PCIe switch and its NIC(s) */
    int nics_per_node;          /* 0: one per PCIe switch; else a multiple or a divisor of the
                                 * switches that divides gpus_per_node (GPU g uses NIC
                                 * g / (gpus/nics), on switch k x switches / nics) */
    double gpu_speed_flops;
    double gpu_memory_bytes;
    const char *gpu_model;      /* e.g. "V100-16GB" */
    const char *gpu_device;     /* a name of the device table (device.h), e.g. "v100-sxm2-16gb",
                                 * written as hybridsim:gpu_device; NULL or "": none */
    double nvlink_link_bw_Bps;  /* one NVLink link, one direction (NVLink 1: 20 GB/s, 2-4: 25) */
    int nvlink_links_per_pair;  /* all-to-all: links joining each GPU pair */
    int nvlink_links_per_gpu;   /* nvswitch: links from each GPU into the switch */
    double nvlink_bw_Bps;       /* > 0: one direction of a pair's bundle (all-to-all) or of a
                                 * GPU's way into the switch (nvswitch), replacing links x
                                 * nvlink_link_bw_Bps; 0: derived from them */
    double nvlink_latency_s;    /* one NVLink transfer between two GPUs (per hop in cube-mesh;
                                 * split in two halves around the switch in nvswitch) */
    double nvswitch_latency_s;  /* crossing the NVSwitch (nvswitch only) */
    double pcie_bw_Bps;         /* one direction of a PCIe link */
    double pcie_latency_s;
    double pcie_uplink_bw_Bps;  /* one direction of a PCIe switch's link to its CPU, which the
                                 * switch's GPUs share on their way to host memory; 0: none
                                 * (each GPU reaches host memory over its own link alone) */
    double cpu_link_bw_Bps;     /* one direction of the link between a node's two CPUs (UPI):
                                 * > 0 gives each CPU its own host memory, the first half of
                                 * the PCIe switches on CPU 0, the second on CPU 1; 0: one host
                                 * memory a node */
    double cpu_link_latency_s;  /* crossing that link */
    int cpu_cores;              /* a node's CPU cores, every socket's (the CPUs' spec sheets),
                                 * which its GPUs' input loaders share (sim/run/job_loader.c);
                                 * 0: not said, each loader runs at its own rate */
    int cpu_threads;            /* their hardware threads (two a core with SMT); 0: one a core */
    double root_p2p_bw_Bps;     /* > 0: the most one GPU-to-GPU P2P flow through a CPU's PCIe root
                                 * (between two of its switches) moves a direction: Intel roots
                                 * forward P2P in 64-byte packets (NVIDIA/nccl v2.7.8
                                 * src/graph/topo.h:24-27); 0: the links' rates alone */
    double nic_bw_Bps;          /* one direction of one NIC's cable to its leaf switch */
    double nic_latency_s;
    int nodes_per_leaf;         /* nodes under one leaf group */
    int leaves_per_rack;        /* leaf groups under one rack-level switch */
    double leaf_oversub;        /* leaf uplink oversubscription (1 = full bisection, 3 = 1:3) */
    double rack_oversub;        /* rack uplink oversubscription */
    double leaf_latency_s;      /* cable latency of a leaf group's uplink to its rack switch */
    double spine_latency_s;     /* cable latency of a rack's uplink to the spine */
    double staging_latency_s;   /* see plat_platform.staging_latency_s */
    /* A switch is crossed by every route through it: its latency is paid once per crossing. */
    double leaf_switch_latency_s;
    double rack_switch_latency_s;
    double spine_switch_latency_s;
    pg_nvlink_topology nvlink_topology;
    pg_uplink_routing uplink_routing;
    pg_nic_path nic_path;       /* how a GPU reaches its NIC (needs pcie_uplink_bw_Bps for HOST) */
    pg_gpu_path gpu_path;       /* how GPUs without NVLink talk (needs pcie_uplink_bw_Bps for HOST) */
} pg_params;

/* ---------------------------------------------------------------- the machine as a walk */

/* platgen_walk.c describes the machine ONCE, as a walk over its zones that calls a sink per
 * element; every consumer is a sink: the XML writer (pg_write), the in-memory SimGrid builder
 * (platform_sg) and the route resolver that answers without SimGrid (platroute.c). So a change
 * to the machine's structure reaches all three, and tests compare their routes.
 *
 * Zones route either by explicit routes between their hosts and routers (PG_FULL), or as a
 * star (PG_STAR): each child zone has a gateway and a way up (a list of links); the route from
 * child a to child b is a's way up then b's way down (b's way up reversed, directions swapped),
 * a link met twice counted once (SimGrid's StarZone; the XML writes the same routes as a Full
 * zone's zoneRoutes between every pair of children). */
typedef enum { PG_FULL, PG_STAR } pg_routing;
typedef enum { PG_SPLITDUPLEX, PG_FATPIPE } pg_policy;
typedef enum { PG_NONE, PG_UP, PG_DOWN } pg_direction;

/* One link of a route: a split-duplex link is crossed UP or DOWN, a FATPIPE link NONE. */
typedef struct {
    const char *link;
    pg_direction dir;
} pg_hop;

/* What the walk calls, in document order. Values are text with units ("50GBps", "9us"): the
 * exact text the XML carries, so that every sink gives SimGrid (or computes) the same doubles.
 * Every callback must be set. Names stay valid during the call only. */
typedef struct {
    void *ctx;
    void (*zone_open)(void *ctx, const char *name, pg_routing routing);
    void (*zone_close)(void *ctx);
    void (*prop)(void *ctx, const char *id, const char *value);   /* of the zone just opened */
    void (*note)(void *ctx, const char *text);                    /* a comment for XML readers */
    void (*link)(void *ctx, const char *name, const char *bandwidth, const char *latency,
                 pg_policy policy);
    void (*host)(void *ctx, const char *name, const char *speed);
    void (*router)(void *ctx, const char *name);
    /* PG_FULL zones: a route between two of the zone's hosts or routers (symmetrical). */
    void (*route)(void *ctx, const char *src, const char *dst, const pg_hop *hops, int n);
    /* PG_STAR zones, after the children: child zone `child`, its gateway and its way up. */
    void (*star_route)(void *ctx, const char *child, const char *gateway, const pg_hop *up,
                       int n);
    /* Leave out the host memories (pg_memory_host) and their routes: for a job that stages
     * nothing, whose every other route is the same without them. */
    bool no_host_memory;
} pg_sink;

/* The largest bandwidth of the machine's split-duplex links (cables, PCIe, NVLink; B/s, as
 * SimGrid reads their text): every route crosses at least one of them, so a FATPIPE switch at
 * least this fast never sets a flow's bound, the smallest bandwidth of its route. */
double pg_fastest_cable_Bps(const pg_params *params);

/* Walk the machine of checked parameters into the sink: every rack when `racks` is NULL, else
 * the racks r with racks[r] != 0 (with what the machine level holds: the spine and its switch,
 * whose bandwidth stays the whole machine's). Routes between the racks walked are the same as
 * in the whole machine. */
void pg_describe(const pg_params *params, const unsigned char *racks, const pg_sink *sink);

/* The machine's racks (the units pg_describe selects), and the rack of GPU gpu (node-major:
 * GPU g of node n is gpu n * gpus_per_node + g). Nodes fill leaf groups and leaf groups fill
 * racks in order, so only the last leaf group and the last rack may be partly filled. */
int pg_racks(const pg_params *params);
int pg_rack_of_gpu(const pg_params *params, int gpu);

/* The nodes of leaf group `leaf` and of rack `rack`: nodes_per_leaf, nodes_per_leaf x
 * leaves_per_rack, or fewer for the last one of a machine they do not divide. */
int pg_leaf_nodes(const pg_params *params, int leaf);
int pg_rack_nodes(const pg_params *params, int rack);

/* The host name of GPU gpu, and of the host memory it stages through: its node's, or with two
 * CPUs (cpu_link_bw_Bps) its own CPU's ("n0003-gpu1", "n0003-cpu", "n0003-cpu1"). */
#define PG_NAME_LEN 64
void pg_gpu_host(const pg_params *params, int gpu, char *name);
void pg_memory_host(const pg_params *params, int gpu, char *name);

/* Under routed uplinks (uplink_routing not FAT), the parallel cables the uplink link `name`
 * stands for, each of 1/cables of its bandwidth: as many as the uplink holds NIC cables (at
 * least one), so that no flow alone is slower than on the fat link. 0 when the link is not an
 * uplink, or uplinks are fat. *level: 0 a leaf group's uplink, 1 a rack's. */
int pg_uplink_cables(const pg_params *params, const char *name, int *level);

/* The cable a flow from GPU src to GPU dst takes at an uplink level (0 leaf, 1 rack) of
 * `cables` cables; the same index going up and coming down (cable c of every bundle of a level
 * reaches the same switch above). */
int pg_uplink_cable(const pg_params *params, int level, int cables, int src_gpu, int dst_gpu);

/* The name of cable `cable` of uplink `uplink` ("l003-uplink-c07"; PG_NAME_LEN bytes). */
void pg_uplink_cable_name(const char *uplink, int cable, int cables, char *name);

/* The CPU of GPU gpu's node it hangs off: 0, or 1 for the second half of a node's GPUs when
 * the node has two CPUs (cpu_link_bw_Bps). */
int pg_socket_of(const pg_params *params, int gpu);

/* The version of what pg_describe emits. A file written by the generator records it (with its
 * parameters, hybridsim:generator); a file of another version is read as any hand-written file.
 * Bump it with every change to the walk's output (test_platform_gen holds the digests). */
#define PG_LAYOUT_VERSION 1

/* ---------------------------------------------------------------- parameters as text */

/* A platform spec naming a generated machine: "gen:PRESET[:FLAG=VALUE,...]" with the flags of
 * `hybridsim platform` (without "--"), e.g. "gen:abci:nodes=4352,rack-oversub=1:6". */
#define PG_SPEC_PREFIX "gen:"

/* Parse a spec (with or without "gen:") into params: the preset, then the flags. Values are
 * copied into store (len bytes), which params' text fields then point into. strict: refuse
 * flags that set one quantity twice or that the NVLink topology ignores, as the command line
 * does (a spec written by pg_spec_format is read with strict off). HS_EINPUT naming the flag. */
int pg_spec_parse(const char *spec, pg_params *params, char *store, size_t len, int strict,
                  char *err);

/* Every parameter that shapes the machine as a spec that pg_spec_parse reads back to the same
 * doubles, bit for bit. HS_EINPUT if it does not fit in len. */
int pg_spec_format(const pg_params *params, char *buf, size_t len, char *err);

/* The parameters of ABCI (platforms/README.md says where each value comes from). */
void pg_abci(pg_params *params);

/* The parameters of a named preset: "abci", "dgx1" (DGX-1V nodes: 8 V100, hybrid cube mesh,
 * 4 EDR NICs), "nvswitch-ndr" (H100-like NVSwitch nodes, 8 NDR NICs). HS_EINPUT naming
 * --preset when the name is unknown. */
int pg_preset(const char *name, pg_params *params, char *err);

/* Check the parameters: HS_EINPUT with a message naming the flag of the bad one. */
int pg_check(const pg_params *params, char *err);

/* Check the parameters and write the XML to out. */
int pg_write(const pg_params *params, FILE *out, char *err);

/* Check and write to path as hs_out.h says: a temp renamed over a regular file only when
 * complete, so a failure never leaves a half-written platform behind; a device in place. */
int pg_write_file(const pg_params *params, const char *path, char *err);

/* The flags of `hybridsim platform` (argv[0] is "platform") into params (the preset, the GPU,
 * then every flag), without writing anything: *out gets -o's path (NULL: stdout), *help 1 when
 * -h or --help is among them (then the flags after the preset and GPU are not read). HS_EINPUT
 * naming the flag. pg_main's parser; the fuzz harness's too. */
int pg_parse_args(int argc, char **argv, pg_params *params, const char **out, int *help,
                  char *err);

/* `hybridsim platform [flags] -o FILE`: parse flags (argv[0] is "platform"), write the file. */
int pg_main(int argc, char **argv, char *err);

#endif
