/* platgen.h: writes SimGrid platform XML for a cluster of multi-GPU nodes (`hybridsim platform`).
 *
 * The machine: nodes of G GPUs; NVLink between GPU pairs; PCIe switches each shared by a few
 * GPUs and one NIC; NICs into a 3-level fat tree (leaf switches, rack-level switches, spine)
 * with an oversubscription ratio per level. Every link kind has a latency and a bandwidth. */
#ifndef PLATGEN_H
#define PLATGEN_H

#include <stdio.h>

#include "hs_error.h"

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
    double leaf_latency_s;      /* latency of a leaf-to-rack-switch link */
    double spine_latency_s;     /* latency of a rack-switch-to-spine link */
    double staging_latency_s;   /* see plat_platform.staging_latency_s */
} pg_params;

/* The parameters of ABCI (the README says where each value comes from). */
void pg_abci(pg_params *params);

/* Check the parameters (HS_EINPUT naming the bad one) and write the XML to out. */
int pg_write(const pg_params *params, FILE *out, char *err);

/* `hybridsim platform [flags] -o FILE`: parse flags (argv[0] is "platform"), write the file. */
int pg_main(int argc, char **argv, char *err);

#endif
