/* platgen.c: the generator's parameters: the shipped presets with the source of every value
 * (platforms/README.md), and the checks that name the flag of a bad one (platgen.h). Writing
 * the XML is platgen_xml.c's; the command line is platgen_flags.c's. */
#include "platgen.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "device.h"
#include "hs_parse.h"
#include "platgen_int.h"
#include "units.h"

/* ---------------------------------------------------------------- ABCI */

void pg_abci(pg_params *p)
{
    memset(p, 0, sizeof *p);
    p->preset = "abci";
    p->nodes = 1088;
    p->gpus_per_node = 4;
    p->gpus_per_pcie_switch = 2;    /* 2 PLX switches per node, 2 GPUs and 1 NIC under each */
    p->nics_per_node = 0;           /* one per PLX switch: 2 */
    p->gpu_speed_flops = 7.8e12;    /* ParaDL's ABCI.plat NODE_SPEED */
    p->gpu_memory_bytes = 16e9;     /* V100 SXM2 16 GB */
    p->gpu_model = "V100-16GB";
    p->gpu_device = "v100-sxm2-16gb"; /* ABCI's GPUs (Kahira et al. 2020, Sec. V-A) */
    p->nvlink_topology = PG_NVLINK_ALL_TO_ALL;
    p->nvlink_link_bw_Bps = 25e9;   /* NVLink 2 */
    p->nvlink_links_per_pair = 2;   /* a V100's 6 links over its 3 peers: 50 GB/s, the oracle's
                                     * value (the HPDC text says 20 GB/s) */
    p->nvlink_links_per_gpu = 6;    /* a V100's links, were it joined by an NVSwitch (DGX-2) */
    p->nvlink_bw_Bps = 0;           /* derived: 2 x 25 GB/s */
    p->nvlink_latency_s = 9e-6;     /* the oracle's intra-node alpha */
    p->nvswitch_latency_s = 0;      /* no NVSwitch */
    p->pcie_bw_Bps = 16e9;          /* PCIe Gen3 x16, nominal: the oracle's (its halo's 16 GB/s) */
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
    p->preset = "dgx1";
    p->nodes = 128;                 /* 1024 GPUs */
    p->gpus_per_node = 8;
    p->gpus_per_pcie_switch = 2;    /* 4 PLX switches per node, 2 GPUs and 1 EDR NIC under each */
    p->nics_per_node = 4;
    p->gpu_memory_bytes = 32e9;     /* V100 SXM2 32 GB */
    p->gpu_model = "V100-32GB";
    p->gpu_device = "v100-sxm2-32gb";
    p->nvlink_topology = PG_NVLINK_CUBE_MESH;
    p->nvlink_link_bw_Bps = 25e9;   /* NVLink 2; pairs have the DGX-1V's 1 or 2 links */
    p->nvlink_links_per_pair = 1;   /* only if made all-to-all: 6 links cannot join 7 peers twice */
    p->nvlink_links_per_gpu = 6;    /* only if made nvswitch (a DGX-2-like node) */
    p->pcie_bw_Bps = 12e9;          /* PCIe Gen3 x16 at the rate NCCL plans with, 0.75 GB/s a
                                     * lane at 8 GT/s (NVIDIA/nccl v2.11.4 src/graph/topo.cc:373,
                                     * 436; v2.5.6 src/graph/topo.h:16 PCI_WIDTH 12), as the
                                     * validation's DGX-1 (experiments/validation/systems.tsv);
                                     * abci keeps the oracle's nominal 16 GB/s */
    /* A 2-level fat tree of 36-port EDR switches, in the 3-level generator: a leaf takes 4
     * nodes (16 of its 18 down ports) and the single "rack" level is the spine layer. */
    p->nodes_per_leaf = 4;
    p->leaves_per_rack = 32;
    p->leaf_oversub = 1.0;          /* 16 down, 16 up: full bisection */
    p->rack_oversub = 1.0;          /* unused: one rack */
}

/* A cluster of modern 8-GPU NVSwitch nodes, H100-80GB-like, with one NDR NIC per GPU in a
 * full-bisection fat tree without rails (platforms/README.md gives the sources). Latencies are
 * the ABCI oracle's software-dominated alphas (approx.), except the switches'. NCCL's own ring
 * step costs (3.4 us NVLink, 9.6 us network: src/graph/tuning.cc hwLat, v2.7.5-v2.11.4) are
 * not the default: the validation's minimum drops with them (platforms/README.md, "Presets"). */
static void pg_nvswitch_ndr(pg_params *p)
{
    pg_abci(p);
    p->preset = "nvswitch-ndr";
    p->nodes = 128;                 /* 1024 GPUs */
    p->gpus_per_node = 8;
    p->gpus_per_pcie_switch = 2;    /* 4 PCIe Gen5 switches, 2 GPUs and 2 NICs under each */
    p->nics_per_node = 8;           /* one 400 Gb/s NIC per GPU */
    p->gpu_memory_bytes = 80e9;     /* H100 SXM5 80 GB */
    p->gpu_model = "H100-80GB";
    p->gpu_device = "h100-sxm5";
    p->nvlink_topology = PG_NVLINK_NVSWITCH;
    p->nvlink_link_bw_Bps = 25e9;   /* NVLink 4 */
    p->nvlink_links_per_gpu = 18;   /* H100 SXM5: 18 links, 450 GB/s per direction */
    p->nvlink_links_per_pair = 2;   /* only if made all-to-all: 18 links over 7 peers */
    p->nvswitch_latency_s = 0;      /* no published figure; small next to the 9 us alpha */
    p->pcie_bw_Bps = 48e9;          /* PCIe Gen5 x16 at the rate NCCL plans with, 3 GB/s a lane
                                     * at 32 GT/s (NVIDIA/nccl v2.11.4 src/graph/topo.cc:373, 436;
                                     * v2.30.7 :554, 657), as the validation's Gen3 and Gen4
                                     * machines (experiments/validation/systems.tsv) */
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

/* ABCI with the bandwidths one stream achieves, each from a microbenchmark (platforms/README.md,
 * "Presets"), instead of the nominal ones the oracle uses. */
static void pg_abci_achieved(pg_params *p)
{
    pg_abci(p);
    p->preset = "abci-achieved";
    p->nvlink_link_bw_Bps = 23.95e9; /* 47.9 GB/s a pair of links (p2pBandwidthLatencyTest) */
    p->pcie_bw_Bps = 12.15e9;        /* pinned host copies, Gen3 x16 (bandwidthTest) */
    p->nic_bw_Bps = 12.2e9;          /* EDR, NCCL's ring bus bandwidth on one NIC */
}

/* ABCI's node as built: each of its two PCIe switches joins two GPUs and one NIC and reaches
 * its CPU, where host memory is, by one x16 Gen3 link (platforms/README.md, "Presets"): the two
 * GPUs' copies to host memory share it; the two CPUs, each with its own memory, are joined by
 * UPI. */
static void pg_abci_built(pg_params *p)
{
    pg_abci(p);
    p->preset = "abci-built";
    p->pcie_uplink_bw_Bps = 16e9; /* PCIe Gen3 x16, one direction, at its GPUs' links' rate
                                   * (abci's: the oracle's nominal 16 GB/s) */
    p->cpu_link_bw_Bps = 41.6e9;  /* two UPI links at 10.4 GT/s, 20.8 GB/s each a direction */
    p->cpu_link_latency_s = 50e-9; /* remote against local DRAM on Skylake-SP, approx. */
}

static const pg_preset_entry pg_presets[] = {
    {"abci", pg_abci},
    {"abci-achieved", pg_abci_achieved},
    {"abci-built", pg_abci_built},
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
    return hs_fail(err, HS_EINPUT, "--preset: unknown preset '%s' (known: abci, "
                   "abci-achieved, abci-built, dgx1, nvswitch-ndr)", name);
}

/* ---------------------------------------------------------------- checks */

/* Limits that keep a file and its load time sane, not physical limits. */
#define PG_MAX_NODES 100000
#define PG_MAX_GPUS_PER_NODE 64
#define PG_MAX_NVLINKS 64           /* links in one bundle */
#define PG_MAX_CPU_CORES 4096       /* a node's CPU cores */

static int check_count(const char *flag, int v, int max, char *err)
{
    if (v < 1)
        return hs_fail(err, HS_EINPUT, "--%s: must be at least 1 (got %d)", flag, v);
    if (v > max)
        return hs_fail(err, HS_EINPUT, "--%s: at most %d supported (got %d)", flag, max, v);
    return HS_OK;
}

/* A quantity of a machine within its kind's physical range (units.h), which also keeps
 * every time computed from it finite: 1e-300Bps would make a transfer take forever. */
static int check_quantity(const char *flag, un_kind kind, double v, char *err)
{
    char got[64];
    un_format(v, kind, got, sizeof got);
    if (!un_in_range(kind, v))
        return hs_fail(err, HS_EINPUT, "--%s: must be %s (got %s)", flag, un_range_text(kind),
                       isfinite(v) ? got : "not a number");
    return HS_OK;
}

/* An oversubscription: a ratio of bandwidths, so within what the bandwidths' range allows. */
static int check_positive(const char *flag, double v, char *err)
{
    if (!(v >= 1e-6 && v <= 1e6))
        return hs_fail(err, HS_EINPUT, "--%s: must be between 1e-06 and 1e+06 (got %g)", flag,
                       v);
    return HS_OK;
}

static int check_latency(const char *flag, double v, char *err)
{
    return check_quantity(flag, UN_TIME, v, err);
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
    /* Fewer NICs than switches: NIC k on switch k x switches / nics, reached from the others
     * through the CPUs (platgen_pcie.c, pg__switch_hops). */
    if (p->nics_per_node % switches != 0 && switches % p->nics_per_node != 0)
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
    if (p->nvlink_bw_Bps != 0 && (rc = check_quantity("nvlink-bw", UN_BANDWIDTH,
                                                      p->nvlink_bw_Bps, err)))
        return rc;
    switch (p->nvlink_topology) {
    case PG_NVLINK_ALL_TO_ALL:
    case PG_NVLINK_NVSWITCH:
    case PG_NVLINK_NONE:
        return HS_OK;
    case PG_NVLINK_PAIRS:
        if (p->gpus_per_node % 2 != 0)
            return hs_fail(err, HS_EINPUT, "--nvlink-topology: pairs joins GPUs two by two, "
                           "but --gpus-per-node is %d", p->gpus_per_node);
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

/* The device must be in the table, and a model label naming another device of the table
 * would make the file say two things about its GPU. */
static int check_device(const pg_params *p, char *err)
{
    char names[256];
    if (!p->gpu_device || !p->gpu_device[0])
        return HS_OK;
    const dv_device *d = dv_find(p->gpu_device), *labelled = dv_find(p->gpu_model);
    if (!d) {
        dv_names(names, sizeof names);
        return hs_fail(err, HS_EINPUT, "--gpu: unknown device '%s' (known: %s)", p->gpu_device,
                       names);
    }
    if (labelled && labelled != d)
        return hs_fail(err, HS_EINPUT, "--gpu-model: '%s' is the %s's label, but the GPU is the "
                       "%s: give --gpu %s instead", p->gpu_model, labelled->name, d->name,
                       labelled->name);
    return HS_OK;
}

/* The machine's shape: counts in range, a node's GPUs divided among its PCIe switches and
 * NICs. */
static int check_shape(const pg_params *p, char *err)
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
    return HS_OK; /* the levels need not divide: the last leaf group and rack fill partly */
}

/* Rates positive, latencies times. */
static int check_rates(const pg_params *p, char *err)
{
    int rc;
    if ((rc = check_quantity("gpu-speed", UN_SPEED, p->gpu_speed_flops, err)) ||
        (rc = check_quantity("gpu-memory", UN_SIZE, p->gpu_memory_bytes, err)) ||
        (rc = check_quantity("nvlink-link-bw", UN_BANDWIDTH, p->nvlink_link_bw_Bps, err)) ||
        (rc = check_quantity("pcie-bw", UN_BANDWIDTH, p->pcie_bw_Bps, err)) ||
        (rc = check_quantity("nic-bw", UN_BANDWIDTH, p->nic_bw_Bps, err)) ||
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
    return HS_OK;
}

/* Whether some GPU pair of a node goes over PCIe between two switches (pg__pcie_pair_hops),
 * where --root-p2p-bw caps it. */
static bool p2p_between_switches(const pg_params *p)
{
    int per = p->gpus_per_pcie_switch;
    for (int a = 0; a < p->gpus_per_node; a++)
        for (int b = a + 1; b < p->gpus_per_node; b++)
            if (a / per != b / per && pg__pcie_pair(p, a, b))
                return true;
    return false;
}

/* The node as built (optional): the PCIe switches' uplinks and the link between the CPUs. */
static int check_host_links(const pg_params *p, char *err)
{
    int rc;
    if (p->pcie_uplink_bw_Bps != 0 && (rc = check_quantity("pcie-uplink-bw", UN_BANDWIDTH,
                                                           p->pcie_uplink_bw_Bps, err)))
        return rc;
    if (p->cpu_link_bw_Bps != 0 && (rc = check_quantity("cpu-link-bw", UN_BANDWIDTH,
                                                        p->cpu_link_bw_Bps, err)))
        return rc;
    rc = check_latency("cpu-link-latency", p->cpu_link_latency_s, err);
    if (rc)
        return rc;
    if (p->root_p2p_bw_Bps != 0 && (rc = check_quantity("root-p2p-bw", UN_BANDWIDTH,
                                                        p->root_p2p_bw_Bps, err)))
        return rc;
    if (p->nic_path == PG_NIC_PATH_HOST && p->pcie_uplink_bw_Bps <= 0)
        return hs_fail(err, HS_EINPUT, "--nic-path host: needs --pcie-uplink-bw (the PCIe "
                       "switches' links to their CPU, which the staged traffic crosses)");
    if (p->gpu_path == PG_GPU_PATH_HOST && p->pcie_uplink_bw_Bps <= 0)
        return hs_fail(err, HS_EINPUT, "--gpu-path host: needs --pcie-uplink-bw (the PCIe "
                       "switches' links to their CPU, which the staged traffic crosses)");
    int switches = p->gpus_per_node / p->gpus_per_pcie_switch;
    if (p->root_p2p_bw_Bps > 0 && p->gpu_path == PG_GPU_PATH_HOST)
        return hs_fail(err, HS_EINPUT, "--root-p2p-bw: caps P2P through a CPU's root, but "
                       "--gpu-path host sends every GPU pair through host memory");
    if (p->root_p2p_bw_Bps > 0 && !p2p_between_switches(p))
        return hs_fail(err, HS_EINPUT, "--root-p2p-bw: no GPU pair goes over PCIe between two "
                       "switches, through a CPU's root (--gpus-per-node %d, --gpus-per-pcie-switch "
                       "%d; NVLink and bridged pairs do not)", p->gpus_per_node,
                       p->gpus_per_pcie_switch);
    if (p->cpu_link_bw_Bps > 0 && switches % 2 != 0)
        return hs_fail(err, HS_EINPUT, "--cpu-link-bw: the node's %d PCIe switch%s cannot be "
                       "shared evenly by its two CPUs (--gpus-per-node %d / "
                       "--gpus-per-pcie-switch %d)", switches, switches == 1 ? "" : "es",
                       p->gpus_per_node, p->gpus_per_pcie_switch);
    return HS_OK;
}

/* A node's CPUs (optional): cores, and at most two hardware threads a core. */
static int check_cpus(const pg_params *p, char *err)
{
    if (p->cpu_cores < 0 || p->cpu_cores > PG_MAX_CPU_CORES)
        return hs_fail(err, HS_EINPUT, "--cpu-cores: must be 0 (not said) to %d (got %d)",
                       PG_MAX_CPU_CORES, p->cpu_cores);
    if (p->cpu_threads != 0 && p->cpu_cores == 0)
        return hs_fail(err, HS_EINPUT, "--cpu-threads %d: needs --cpu-cores (the cores they run "
                       "on)", p->cpu_threads);
    if (p->cpu_threads != 0 && (p->cpu_threads < p->cpu_cores ||
                                p->cpu_threads > 2 * p->cpu_cores))
        return hs_fail(err, HS_EINPUT, "--cpu-threads: must be --cpu-cores (%d) to twice it, "
                       "one or two a core (got %d)", p->cpu_cores, p->cpu_threads);
    return HS_OK;
}

int pg_check(const pg_params *p, char *err)
{
    int rc;
    if ((rc = check_shape(p, err)) || (rc = check_rates(p, err)) ||
        (rc = check_host_links(p, err)) || (rc = check_cpus(p, err)))
        return rc;
    if (p->gpu_model == NULL || p->gpu_model[0] == '\0')
        return hs_fail(err, HS_EINPUT, "--gpu-model: must not be empty");
    for (const char *c = p->gpu_model; *c; c++)
        if ((unsigned char)*c < 0x20)
            return hs_fail(err, HS_EINPUT, "--gpu-model: control characters are not allowed");
    if ((rc = check_device(p, err)))
        return rc;
    return check_nvlink(p, err);
}
