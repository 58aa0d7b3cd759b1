/* platgen.h: writes SimGrid platform XML for a cluster of multi-GPU nodes (`hybridsim platform`).
 *
 * The machine: nodes of G GPUs; NVLink between GPU pairs; PCIe switches each shared by a few
 * GPUs and one NIC; NICs into a 3-level fat tree (leaf switches, rack-level switches, spine)
 * with an oversubscription ratio per level. Every link kind has a latency and a bandwidth.
 * platforms/README.md describes the zones, links and routes that are written and why. */
#ifndef PLATGEN_H
#define PLATGEN_H

#include <stdio.h>

#include "hs_error.h"

/* Which GPU pairs of a node have a direct NVLink. Only all-to-all so far; a topology such as
 * DGX-1's hybrid cube mesh would add a value here and a case in platgen.c's pair routing. */
typedef enum {
    PG_NVLINK_ALL_TO_ALL = 0 /* one NVLink (bundle) between every GPU pair */
} pg_nvlink_topology;

typedef struct {
    int nodes;                  /* nodes in the machine */
    int gpus_per_node;
    int gpus_per_pcie_switch;   /* GPUs sharing one PCIe switch and its NIC */
    double gpu_speed_flops;
    double gpu_memory_bytes;
    const char *gpu_model;      /* e.g. "V100-16GB" */
    double nvlink_bw_Bps;       /* one direction of one GPU pair's NVLink */
    double nvlink_latency_s;
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
