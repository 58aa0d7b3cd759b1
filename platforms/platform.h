/* platform.h: the machine a workload trains on: a generated machine or SimGrid platform XML.
 *
 * A platform is named by a spec: a short name ("abci": platforms/abci.xml), a path to SimGrid
 * XML whose root zone carries hybridsim's properties, or "gen:PRESET[:FLAG=VALUE,...]" (a
 * machine of `hybridsim platform`'s parameters, never written to a file). plat_open reads what
 * the machine is without starting SimGrid. A file written by `hybridsim platform` records its
 * parameters and a digest (platdigest.h): when the digest holds, the machine is rebuilt from
 * the parameters, not parsed, and its routes are computed without SimGrid (platroute.h), the
 * way SimGrid computes them, from the same text values; any other file is checked with libxml2
 * (platcheck.h) and its routes are SimGrid's own once it is loaded. plat_engine_load then puts
 * the machine into the process's SimGrid engine with hybridsim's network semantics
 * (platform_sg.c): a generated machine is built in memory, only the racks a job uses; a file
 * is loaded whole. The analytic model asks this module for the latency and bandwidth between
 * two GPUs, and the simulator runs on the same machine, so a what-if change reaches both.
 *
 * Folder: platforms/ (this is its main header): the machine: platforms opened (plat_), checked
 * (platcheck), generated (platgen.h, pg_), put into SimGrid (platform_sg.c, platbuild_sg.cpp;
 * platrouted_sg.cpp for uplinks routed a cable a flow),
 * and where a job's ranks sit on it (placement.h, pl_). The shipped platform files live beside
 * the code. May include workloads/common/, SimGrid and libxml2; the files a process without
 * SimGrid uses (everything but *_sg.*) include no SimGrid header but simgrid/forward.h. */
#ifndef PLATFORM_H
#define PLATFORM_H

#include <stdbool.h>
#include <stdint.h>

#include <simgrid/forward.h>

#include "hs_error.h"
#include "platgen.h"

#define PLAT_NAME_LEN 64
#define PLAT_SPEC_LEN 1024 /* a platform's name: a file's stem or a gen: spec */

struct plat_machine; /* platroute.h */
struct pm_link_use;  /* platroute.h */
struct plat_facts;   /* platcheck.h */
typedef struct plat_platform plat_platform;

/* Routes through SimGrid (platform_sg.c), for a platform whose routes only SimGrid knows:
 * latency and bandwidth of the route from GPU a to GPU b and of its first link. */
typedef int (*plat_route_fn)(const plat_platform *plat, int gpu_a, int gpu_b, double *latency_s,
                             double *bandwidth_Bps, double *first_latency_s,
                             double *first_bandwidth_Bps);

/* A route's link directions through SimGrid (platform_sg.c), as pm_route_links gives a
 * generated machine's: at most max into use, the route's latency; their number, or -1. */
typedef int (*plat_links_fn)(const plat_platform *plat, int gpu_a, int gpu_b,
                             struct pm_link_use *use, int max, double *latency_s);

struct plat_platform {
    char name[PLAT_SPEC_LEN];   /* short name, e.g. "abci" (the file's stem), or the gen: spec */
    char path[1024];            /* the file it was read from ("" for a gen: spec) */
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
    int nodes_per_leaf;         /* nodes under one leaf switch group (placement, reports) */
    int nodes_per_rack;         /* nodes under one rack-level switch */
    pg_params *gen;             /* a generated machine's parameters; NULL: a hand-written file */
    struct plat_machine *machine; /* generated: its routes, computed without SimGrid */
    struct plat_facts *facts;   /* hand-written: what the check read, kept until loaded */
    /* Set by plat_engine_load: */
    bool in_engine;             /* the machine is in SimGrid */
    bool whole;                 /* every rack of it is */
    sg_host_t *gpus;            /* n_gpus SimGrid hosts, GPU g of node n at n*gpus_per_node+g;
                                 * NULL for the GPUs of racks not built */
    sg_host_t *host_mem;        /* per GPU: the host memory it stages through (its node's
                                 * n<node>-cpu, or its CPU's: pg_memory_host), or NULL */
    bool host_memory_out;       /* host memories left out (plat_engine_load_job) */
    plat_route_fn engine_route; /* a hand-written file's routes, through SimGrid */
    plat_links_fn engine_links; /* and their link directions (rings: plat_ring_cost) */
    int file_nics_per_node;     /* a hand-written file's NICs a node (plat_nics_per_node),
                                 * counted on its routes; 0 before it is loaded */
};

/* What the machine is, without SimGrid: the spec's parameters, or a generated file's (digest
 * checked), or a hand-written file checked in full. HS_EINPUT with file:line or the flag of
 * the spec when something is wrong. Free with plat_free. */
int plat_open(const char *spec, plat_platform *plat, char *err);

/* Can plat_route answer without SimGrid (a generated machine), or once loaded? */
bool plat_routes_known(const plat_platform *plat);

/* Put the opened machine into the process's SimGrid engine (started if needed; one platform
 * per process): a generated machine is built in memory, only the racks holding the listed GPUs
 * (all when gpus is NULL), with the routes the whole machine has; a file is loaded whole. */
int plat_engine_load(plat_platform *plat, const int *gpus, int n_gpus, char *err);

/* The same for one job, which stages through host memory or not (host_memory): a generated
 * machine built for listed GPUs leaves its host memories out when the job does not (their
 * hosts and routes, a fifth of a 4-GPU node's hosts: 67 MiB at 131,072 GPUs); host_mem is then
 * NULL and host_memory_out set. */
int plat_engine_load_job(plat_platform *plat, const int *gpus, int n_gpus, bool host_memory,
                         char *err);

/* How many GPUs plat_engine_load(plat, gpus, n) would put into SimGrid. */
long plat_engine_gpus(const plat_platform *plat, const int *gpus, int n_gpus);

/* plat_open and plat_engine_load of the whole machine. */
int plat_load(const char *spec, plat_platform *plat, char *err);

void plat_free(plat_platform *plat);

/* SimGrid settings given by the user (--cfg NAME:VALUE), applied when the engine starts.
 * HS_EINPUT for a malformed one or one that hybridsim's semantics depend on (network and
 * model settings): the message names it. Call before the engine starts. */
int plat_engine_settings(const char *const *cfg, int n, char *err);

/* The settings plat_engine_settings takes, ", " between ("contexts/factory, ..."): for --help
 * and messages. */
const char *plat_engine_cfg_names(void);

/* The value the user gave SimGrid setting `name` (plat_engine_settings), or NULL. */
const char *plat_engine_cfg(const char *name);

/* The stack an actor maps, in bytes: contexts/stack-size, the user's or hybridsim's. */
double plat_engine_stack_bytes(void);

/* Start the process's SimGrid engine with hybridsim's network semantics and context settings
 * (platform_sg.c), once; later calls do nothing. plat_engine_load calls it. Call it yourself
 * first only to add SimGrid configuration or plugins that must precede the platform. */
int plat_engine_start(char *err);

/* Is a link of the loaded machine shared among its flows? A switch is not: a FATPIPE, or a
 * generated machine's switch built as a link too fast to fill (platrouted_sg.hpp, psg_fatpipe).
 * Use this and plat_link_bandwidth_Bps, not sg_link_is_shared and sg_link_get_bandwidth. */
int plat_link_is_shared(const_sg_link_t link);

/* A link's bandwidth (B/s): a switch's nominal one. */
double plat_link_bandwidth_Bps(const_sg_link_t link);

/* Latency (sum over the links of the route) and bandwidth (the route's bottleneck) from GPU a
 * to GPU b. a == b gives 0 and HUGE_VAL (nothing to cross); NaN when the route is unknown (a
 * hand-written platform not yet loaded into SimGrid, a GPU out of range: a caller's bug). */
void plat_route(const plat_platform *plat, int gpu_a, int gpu_b, double *latency_s,
                double *bandwidth_Bps);

/* The route from GPU a to GPU b split at its ends: the bandwidth of the slower of its first and
 * last links (the two GPUs' own: their PCIe links on a generated machine) into *ends_bw_Bps and
 * of the slowest link between (NICs, the fabric), which other GPUs' flows through the same NIC
 * share, into *between_bw_Bps. 0 with both; -1 when the route's links are unknown or fewer
 * than three (the caller then takes the whole route as shared). */
int plat_route_ends(const plat_platform *plat, int gpu_a, int gpu_b, double *ends_bw_Bps,
                    double *between_bw_Bps);

/* The cost parameters of a ring over the given GPUs, in order (gpu[i] sends to gpu[i+1], the
 * last to the first): alpha is the largest route latency of a ring edge, as the ring's steps
 * wait for their slowest pair; beta, as a step runs every edge at once, the largest
 * (edges crossing it) / bandwidth over the link directions the edges cross (a generated
 * machine's routes computed, a hand-written file's from SimGrid: the same links either way).
 * n == 1 gives alpha = beta = 0. */
void plat_ring_cost(const plat_platform *plat, const int *gpu, int n, double *alpha_s,
                    double *beta_s_per_byte);

/* The link between GPU g and its host memory: the first link of a route from g out of its node
 * (its PCIe link, platforms/README.md). 0 when the machine has a single node, so no such route
 * exists; 1 with its latency and bandwidth. */
int plat_host_link(const plat_platform *plat, int gpu, double *latency_s, double *bandwidth_Bps);

/* The host standing for the host memory (CPUs, DRAM) GPU gpu stages through: its node's, the
 * host named like the node's GPUs with "-cpu" for "-gpu<g>" (n0003-cpu for n0003-gpu1, as the
 * generator writes it; platforms/README.md), or on a generated machine with two CPUs a node
 * its own CPU's (n0003-cpu1 for the second half of the GPUs); NULL if the platform has none,
 * gpu is out of range or its rack was not built. Messages staged without GPUDirect go through
 * it (sim/engine/engine_p2p.c). */
sg_host_t plat_host_memory(const plat_platform *plat, int gpu);

/* The NICs of one node: a generated machine's (one per PCIe switch unless it says otherwise);
 * for a hand-written file once loaded, the distinct links named <node>-nic<k> (as the
 * generator names them; platforms/README.md) that node 0's GPUs leave the node through, and 1
 * when it names none, or before it is loaded (ParaDL's one NIC a node). NCCL's choice of
 * algorithm and the rings' and trees' channels depend on it (collective.h, co_nccl_choice). */
int plat_nics_per_node(const plat_platform *plat);

/* The folder short names are looked up in ("<home>/platforms"). */
const char *plat_default_dir(void);

#endif
