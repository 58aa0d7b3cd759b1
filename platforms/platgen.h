/* platgen.h: writes SimGrid platform XML for a cluster of multi-GPU nodes (`hybridsim platform`).
 *
 * The machine: nodes of G GPUs joined by NVLink (all pairs, the DGX-1V's hybrid cube mesh, or an
 * NVSwitch); PCIe switches each shared by a few GPUs and their NICs; NICs into a 3-level fat
 * tree (leaf switches, rack-level switches, spine) with an oversubscription ratio per level.
 * Every link kind has a latency and a bandwidth.
 * platforms/README.md describes the zones, links and routes that are written and why. */
#ifndef PLATGEN_H
#define PLATGEN_H

#include <stdio.h>

#include "hs_error.h"

/* How the GPUs of a node are joined by NVLink (platforms/README.md has the figures). */
typedef enum {
    PG_NVLINK_ALL_TO_ALL = 0, /* a bundle of nvlink_links_per_pair links between every GPU pair */
    PG_NVLINK_CUBE_MESH,      /* DGX-1V hybrid cube mesh (8 GPUs): two fully connected quads
                               * plus GPU i <-> i+4, 1 or 2 links per pair as in the DGX-1V;
                               * a pair without a link goes through one intermediate GPU */
    PG_NVLINK_NVSWITCH        /* every GPU one bundle of nvlink_links_per_gpu links to a
                               * non-blocking NVSwitch; every pair goes through it */
} pg_nvlink_topology;

#define PG_CUBE_MESH_GPUS 8 /* the DGX-1V's GPUs, the only size its cube mesh comes in */

typedef struct {
    int nodes;                  /* nodes in the machine */
    int gpus_per_node;
    int gpus_per_pcie_switch;   /* GPUs sharing one PCIe switch and its NIC(s) */
    int nics_per_node;          /* 0: one per PCIe switch; else a multiple of the switches that
                                 * divides gpus_per_node (GPU g uses NIC g / (gpus/nics)) */
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
} pg_params;

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

/* Check and write to path atomically: into path.tmp, renamed over path only when complete, so a
 * failure never leaves a half-written platform behind. */
int pg_write_file(const pg_params *params, const char *path, char *err);

/* `hybridsim platform [flags] -o FILE`: parse flags (argv[0] is "platform"), write the file. */
int pg_main(int argc, char **argv, char *err);

#endif
