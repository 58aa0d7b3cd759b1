/* platform.h: the machine a workload trains on, loaded from SimGrid platform XML.
 *
 * A platform file is ordinary SimGrid XML (as `hybridsim platform` writes it) whose root zone
 * carries hybridsim's properties (GPUs per node, GPU memory, ...). Loading it starts the
 * process's one SimGrid engine with hybridsim's network semantics (see platform.c) and loads the
 * file into it; routes are then SimGrid's own. The analytic model asks this module for the
 * latency and bandwidth between two GPUs, and the simulator runs on the same engine, so a
 * what-if change to the file reaches both.
 *
 * Folder: platforms/ (this is its main header): the machine: platform files loaded (plat_) and
 * checked (platcheck), written by the generator (platgen.h, pg_), and where a job's ranks sit on
 * it (placement.h, pl_). The shipped platform files live beside the code. May include
 * workloads/common/, SimGrid and libxml2. */
#ifndef PLATFORM_H
#define PLATFORM_H

#include <stdbool.h>
#include <stdint.h>

#include <simgrid/forward.h>

#include "hs_error.h"

#define PLAT_NAME_LEN 64

typedef struct {
    char name[PLAT_NAME_LEN];   /* short name, e.g. "abci" (the file's stem) */
    char path[1024];            /* the file it was loaded from */
    int n_gpus;                 /* GPUs in the whole machine */
    int gpus_per_node;
    int n_nodes;
    double gpu_memory_bytes;    /* memory of one GPU */
    double gpu_speed_flops;     /* the GPU host's speed in SimGrid (sets exec durations) */
    char gpu_model[PLAT_NAME_LEN]; /* e.g. "V100-16GB": compared with a workload's device */
    char gpu_device[PLAT_NAME_LEN]; /* the device-table name (device.h) of hybridsim:gpu_device,
                                     * e.g. "v100-sxm2-16gb"; "" when the file has none */
    double staging_latency_s;   /* extra latency of a message staged through host memory
                                 * (MPI without GPUDirect; ParaDL's data+spatial halo) */
    sg_host_t *gpus;            /* n_gpus SimGrid hosts, GPU g of node n at n*gpus_per_node+g */
    int nodes_per_leaf;         /* nodes under one leaf switch group (placement, reports) */
    int nodes_per_rack;         /* nodes under one rack-level switch */
} plat_platform;

/* Load a platform. `spec` is a path or a short name looked up as <dir>/<spec>.xml in the
 * platforms folder. Checks the XML with libxml2 first so that a malformed file is reported as
 * "file:line: what" (HS_EINPUT) instead of aborting inside SimGrid. Creates the SimGrid engine
 * if the process has none yet (one engine per process: call this at most once). */
int plat_load(const char *spec, plat_platform *plat, char *err);

void plat_free(plat_platform *plat);

/* Start the process's SimGrid engine with hybridsim's network semantics (platform.c), once;
 * later calls do nothing. plat_load calls it. Call it yourself before plat_load only to add
 * SimGrid configuration or plugins that must precede the platform (sg_cfg_set_*,
 * sg_link_load_plugin_init, ...). */
void plat_engine_start(void);

/* Latency (sum over the links of the route) and bandwidth (the route's bottleneck) from GPU a
 * to GPU b, both indices into plat->gpus. a == b gives 0 and HUGE_VAL (nothing to cross). */
void plat_route(const plat_platform *plat, int gpu_a, int gpu_b, double *latency_s,
                double *bandwidth_Bps);

/* The cost parameters of a ring over the given GPUs, in order (gpu[i] sends to gpu[i+1], the
 * last to the first): alpha is the largest route latency of a ring edge and beta the largest
 * 1/bandwidth, as the ring's steps wait for their slowest pair. n == 1 gives alpha = beta = 0. */
void plat_ring_cost(const plat_platform *plat, const int *gpu, int n, double *alpha_s,
                    double *beta_s_per_byte);

/* The host standing for the host memory (CPUs, DRAM) of GPU gpu's node: the host named like
 * the node's GPUs with "-cpu" for "-gpu<g>" (n0003-cpu for n0003-gpu1, as the generator writes
 * it; platforms/README.md), or NULL if the platform has none or gpu is out of range. Messages
 * staged without GPUDirect go through it (sim/engine_comm.c). */
sg_host_t plat_host_memory(const plat_platform *plat, int gpu);

/* The folder short names are looked up in ("<home>/platforms"). */
const char *plat_default_dir(void);

#endif
