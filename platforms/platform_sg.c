/* platform_sg.c: the machine in the process's SimGrid engine (platform.h): the engine started
 * with hybridsim's network semantics and context settings, the user's SimGrid settings, the
 * platform built or loaded, and the routes of hand-written files (their link directions too,
 * for rings: plat_ring_cost).
 *
 * Network semantics. hybridsim wants plain alpha-beta: one message of n bytes alone on a route
 * takes exactly (sum of the route's latencies) + n / (its bottleneck bandwidth), and what the
 * simulation adds is only the sharing of saturated links. SimGrid's CM02 flow model gives that
 * once its corrections are switched off:
 *   - network/model CM02: max-min fair sharing, no empirical factors (LV08, the default,
 *     multiplies latencies by 13.01 and bandwidths by 0.97);
 *   - network/latency-factor 1, network/bandwidth-factor 1, network/weight-S 0: CM02's own
 *     defaults, set explicitly so nothing else can change them;
 *   - network/TCP-gamma 1e30: CM02 caps a flow at gamma / (2 latency), a TCP window limit
 *     (with the 4 MiB default an NVLink flow at 9 us would be capped near 233 GB/s);
 *   - network/crosstraffic off: otherwise each flow also loads its reverse route with 5% of
 *     its rate, modelling TCP acks;
 *   - network/optim Full: every flow's rate revised at every event. SimGrid 3.32's default,
 *     Lazy (only the flows of the constraints an event touched), let flows finish sooner than
 *     their links allow when the engine's kernels and sleeps ran beside them: in ResNet-50's
 *     1024-GPU channel trees on abci at rack oversubscription 1:200, 20 flows of 22.7 MB
 *     sharing one 4.25 GB/s rack uplink from one instant took 0.072-0.092 s instead of the
 *     0.107 s max-min fair sharing gives (4.9 GB/s through the link); replaying the same
 *     messages without the kernels gave 0.107 s, and so do Full, cpu/optim Full, and an extra
 *     actor waking every 2 ms (a missed revision; test: e2e_links). The cause, read in
 *     SimGrid 3.32's lmm code: a flow enabled when its latency ends marks only the first link
 *     of its route as modified, and nothing more when an earlier change of the same event
 *     marked that link already, so the rest of its route is not re-solved; the selective
 *     update (network/maxmin-selective-update) has the same fault. Cost: 0-10% on flow runs; 1.7x on a step run whose 2 million messages all
 *     go through SimGrid (experiments/bench: eng_bench).
 * Sharing: CM02 shares a saturated link among flows in inverse proportion to their route
 * latencies (TCP's RTT unfairness), where ptask_L07 shares equally. We keep CM02: flows that
 * meet on one link have nearly the same latency here (inter-node routes differ by at most
 * 2.2%, 30.31 vs 30.98 us on ABCI, and NVLink flows never share a link with network flows),
 * so its shares are within about 1% of equal ones (except one-hop and two-hop flows on a
 * cube-mesh NVLink: 2/3 and 1/3), and CM02 is SimGrid's standard flow model, the one its
 * SMPI runs on (tests/e2e_smpi compares with it). platforms/README.md says the same for
 * users. SimGrid's own log output is silenced (threshold critical).
 *
 * Contexts. Actors run on the "raw" context factory (SimGrid's fastest here; named explicitly)
 * with 256 KiB stacks (contexts/stack-size, in KiB: every strategy runs in 32). The engine
 * decides guard pages per run (sim/engine: they cost two memory mappings an actor). malloc is
 * told to map every block of 128 KiB or more on its own and without limit of count (glibc),
 * so that a stack without a guard page is untouched memory, not a zeroed heap block. Such a
 * block is its size plus 24 bytes rounded up to pages, malloc's header in its first page: a
 * 256 KiB stack took 65 pages, the top of the stack 16 bytes into the last one, so a
 * data-parallel actor, whose stack stays under 4 KiB, touched three: the header's and two at
 * the top. A stack 32 bytes short of the KiB asked (psg_stack_fit_pages) takes 64 pages and
 * such an actor touches two: 8 KiB resident, not 12 (read from /proc/PID/pagemap at 32,768
 * actors; 131,072 GPUs of ResNet-50 data parallelism peak at 2,493,096 KiB instead of
 * 3,017,688, /usr/bin/time -v). With guard pages the stack's top is page-aligned instead, 32 bytes above
 * the end of its used part now: the same single page at 4,096 actors (pagemap).
 *
 * The user's --cfg settings (platcfg.c, checked there) are applied after hybridsim's own, the
 * factory through simgrid_init's arguments (it cannot change later), the rest through
 * SimGrid's C++ configuration API, whose exceptions become messages (platbuild_sg.cpp). */
#define _GNU_SOURCE
#include "platform.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include <simgrid/engine.h>
#include <simgrid/host.h>
#include <simgrid/link.h>
#include <xbt/config.h>
#include <xbt/dynar.h>
#include <xbt/log.h>
#include <xbt/sysdep.h>

#include "hs_out.h"
#include "platbuild_sg.h"
#include "platcfg.h"
#include "platcheck.h"
#include "platroute.h"

/* SimGrid allows one engine per process and one platform per engine, and cannot be asked
 * whether it has them: the module's global state, forced by that rule. */
static enum { ENGINE_NONE, ENGINE_STARTED, ENGINE_LOADED } engine_state = ENGINE_NONE;

/* A TCP window so large that CM02's window cap never binds (see above). */
#define PLAT_TCP_GAMMA 1e30
#define PLAT_STACK_KIB 256
#ifdef HS_SANITIZE /* ASan cannot follow SimGrid's swapped stacks: actors on threads */
#define PLAT_FACTORY "thread"
#else
#define PLAT_FACTORY "raw"
#endif

/* The user's settings, after hybridsim's own (so that theirs win where allowed). */
static int apply_user_cfg(char *err)
{
    const char *cfg;
    for (int i = 0; (cfg = plat_cfg_at(i)) != NULL; i++) {
        char name[128], why[256];
        const char *colon = strchr(cfg, ':');
        snprintf(name, sizeof name, "%.*s", (int)(colon - cfg), cfg);
        if (strcmp(name, "contexts/factory") == 0)
            continue; /* given to simgrid_init */
        if (psg_cfg_set(name, colon + 1, why, sizeof why) != 0)
            return hs_fail(err, HS_EINPUT, "--cfg %s: %s", cfg, why);
    }
    return HS_OK;
}

int plat_engine_start(char *err)
{
    if (engine_state != ENGINE_NONE)
        return HS_OK;
#ifdef __GLIBC__
    mallopt(M_MMAP_THRESHOLD, 128 * 1024);
    mallopt(M_MMAP_MAX, 1 << 30);
#endif
    const char *factory = plat_cfg_value("contexts/factory");
    char name[] = "hybridsim", cfg[64];
    snprintf(cfg, sizeof cfg, "--cfg=contexts/factory:%s", factory ? factory : PLAT_FACTORY);
    char *argv[] = {name, cfg, NULL};
    int argc = 2;
    /* Before simgrid_init, so that its own configuration messages are silenced too. */
    xbt_log_control_set("root.thresh:critical");
    simgrid_init(&argc, argv);
    hs_out_trap_signals(); /* SimGrid's SIGINT handler exits 1 from inside the handler */
    engine_state = ENGINE_STARTED;
    sg_cfg_set_string("network/model", "CM02");
    sg_cfg_set_double("network/latency-factor", 1.0);
    sg_cfg_set_double("network/bandwidth-factor", 1.0);
    sg_cfg_set_double("network/weight-S", 0.0);
    sg_cfg_set_double("network/TCP-gamma", PLAT_TCP_GAMMA);
    sg_cfg_set_boolean("network/crosstraffic", "no");
    sg_cfg_set_string("network/optim", "Full"); /* Lazy lets flows outrun a link: see the top */
    sg_cfg_set_int("contexts/stack-size", PLAT_STACK_KIB);
    int status = apply_user_cfg(err);
    /* The stack size is final (the user's or ours); threads take no such stack. */
    if (status == HS_OK && strcmp(factory ? factory : PLAT_FACTORY, "thread") != 0)
        psg_stack_fit_pages();
    return status;
}

int plat_link_is_shared(const_sg_link_t link)
{
    return sg_link_is_shared(link) && psg_switch_Bps(link) == 0;
}

double plat_link_bandwidth_Bps(const_sg_link_t link)
{
    double switch_Bps = psg_switch_Bps(link);
    return switch_Bps > 0 ? switch_Bps : sg_link_get_bandwidth(link);
}

double plat_engine_stack_bytes(void)
{
    const char *given = plat_engine_cfg("contexts/stack-size"); /* KiB, checked by platcfg.c */
    return (given ? atof(given) : PLAT_STACK_KIB) * 1024;
}

/* ---------------------------------------------------------------- loading */

/* The routes of a hand-written file, through SimGrid. */
static int sg_route(const plat_platform *plat, int a, int b, double *latency_s,
                    double *bandwidth_Bps, double *first_latency_s, double *first_bandwidth_Bps)
{
    sg_host_t ha = plat->gpus[a], hb = plat->gpus[b];
    if (!ha || !hb)
        return -1;
    *latency_s = sg_host_get_route_latency(ha, hb);
    *bandwidth_Bps = sg_host_get_route_bandwidth(ha, hb);
    xbt_dynar_t route = xbt_dynar_new(sizeof(sg_link_t), NULL);
    sg_host_get_route(ha, hb, route);
    int found = xbt_dynar_length(route) > 0;
    if (found) {
        sg_link_t first = xbt_dynar_get_as(route, 0, sg_link_t);
        *first_latency_s = sg_link_get_latency(first);
        *first_bandwidth_Bps = plat_link_bandwidth_Bps(first);
    }
    xbt_dynar_free(&route);
    return found ? 0 : -1;
}

/* A hand-written file's route as its link directions (plat_links_fn): a split-duplex link's
 * two directions are two SimGrid links, so a link's address names one direction. */
static int sg_links(const plat_platform *plat, int a, int b, pm_link_use *use, int max,
                    double *latency_s)
{
    sg_host_t ha = plat->gpus[a], hb = plat->gpus[b];
    if (!ha || !hb)
        return -1;
    xbt_dynar_t route = xbt_dynar_new(sizeof(sg_link_t), NULL);
    sg_host_get_route(ha, hb, route);
    int n = (int)xbt_dynar_length(route);
    if (n == 0 || n > max)
        n = -1;
    for (int i = 0; i < n; i++) {
        sg_link_t link = xbt_dynar_get_as(route, i, sg_link_t);
        use[i] = (pm_link_use){(uintptr_t)link, plat_link_bandwidth_Bps(link),
                               plat_link_is_shared(link) != 0};
    }
    xbt_dynar_free(&route);
    *latency_s = sg_host_get_route_latency(ha, hb);
    return n;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(sg_host_get_name(*(const sg_host_t *)a), sg_host_get_name(*(const sg_host_t *)b));
}

/* Find the GPU hosts in rank order and each node's host memory. SimGrid's host list is sorted
 * by name, as are the checked GPU names (zero-padded alike), so one merge pass pairs them;
 * looking each name up would walk SimGrid's zone tree once per GPU. */
static int collect_hosts(plat_platform *plat, char *err)
{
    const plat_facts *facts = plat->facts;
    size_t n_hosts = sg_host_count();
    sg_host_t *hosts = sg_host_list();
    int rank = 0;
    qsort(hosts, n_hosts, sizeof *hosts, by_name);
    for (size_t i = 0; i < n_hosts && rank < facts->n_gpus; i++)
        if (strcmp(sg_host_get_name(hosts[i]), facts->gpu_names[rank]) == 0)
            plat->gpus[rank++] = hosts[i];
    for (int node = 0; rank == facts->n_gpus && node < plat->n_nodes; node++) {
        /* n0003-gpu1 -> n0003-cpu */
        const char *gpu = facts->gpu_names[node * plat->gpus_per_node];
        char mem[256];
        snprintf(mem, sizeof mem, "%.*s-cpu", (int)(strrchr(gpu, '-') - gpu), gpu);
        for (size_t lo = 0, hi = n_hosts; lo < hi;) {
            size_t mid = lo + (hi - lo) / 2;
            int c = strcmp(sg_host_get_name(hosts[mid]), mem);
            for (int g = 0; c == 0 && g < plat->gpus_per_node; g++) /* one memory a node */
                plat->host_mem[node * plat->gpus_per_node + g] = hosts[mid];
            if (c == 0)
                break;
            if (c < 0)
                lo = mid + 1;
            else
                hi = mid;
        }
    }
    xbt_free(hosts);
    if (rank < facts->n_gpus)
        return hs_fail(err, HS_EINTERNAL, "%s: SimGrid has no host '%s' although the file "
                       "declares it", plat->path, facts->gpu_names[rank]);
    return HS_OK;
}

/* A hand-written file's NICs a node (plat_nics_per_node): the distinct links named
 * <node>-nic<k> on the routes from each GPU g of node 0 to GPU g of node 1, which leave node 0
 * through the NIC GPU g uses; 1 when there is one node or the routes name no such link. */
static int count_file_nics(const plat_platform *plat)
{
    const char *gpu = plat->facts->gpu_names[0];
    char prefix[256];
    int n_seen = 0, per = plat->gpus_per_node;
    sg_link_t *seen = calloc((size_t)per, sizeof *seen); /* a GPU leaves through one NIC */
    /* platcheck has made every GPU host n<node>-gpu<g>: the node's prefix ends at its '-' */
    snprintf(prefix, sizeof prefix, "%.*s-nic", (int)(strrchr(gpu, '-') - gpu), gpu);
    for (int g = 0; seen && plat->n_nodes > 1 && g < per; g++) {
        xbt_dynar_t route = xbt_dynar_new(sizeof(sg_link_t), NULL);
        sg_host_get_route(plat->gpus[g], plat->gpus[per + g], route);
        for (unsigned long i = 0; i < xbt_dynar_length(route); i++) {
            sg_link_t link = xbt_dynar_get_as(route, i, sg_link_t);
            int k = 0;
            if (strncmp(sg_link_get_name(link), prefix, strlen(prefix)) != 0)
                continue;
            while (k < n_seen && seen[k] != link)
                k++;
            if (k == n_seen && n_seen < per)
                seen[n_seen++] = link;
        }
        xbt_dynar_free(&route);
    }
    free(seen);
    return n_seen > 0 ? n_seen : 1;
}

/* The racks holding the listed GPUs (NULL: all of them). */
static unsigned char *racks_of(const plat_platform *plat, const int *gpus, int n)
{
    if (!gpus)
        return NULL;
    unsigned char *racks = calloc((size_t)pg_racks(plat->gen), 1);
    for (int i = 0; racks && i < n; i++)
        if (gpus[i] >= 0 && gpus[i] < plat->n_gpus)
            racks[pg_rack_of_gpu(plat->gen, gpus[i])] = 1;
    return racks;
}

int plat_engine_load(plat_platform *plat, const int *gpus, int n, char *err)
{
    return plat_engine_load_job(plat, gpus, n, true, err);
}

int plat_engine_load_job(plat_platform *plat, const int *gpus, int n, bool host_memory,
                         char *err)
{
    if (engine_state == ENGINE_LOADED)
        return hs_fail(err, HS_EINTERNAL, "%s: a platform is already loaded, and SimGrid allows "
                       "one per process", plat->name);
    plat->gpus = calloc((size_t)plat->n_gpus, sizeof *plat->gpus);
    plat->host_mem = calloc((size_t)plat->n_gpus, sizeof *plat->host_mem);
    if (!plat->gpus || !plat->host_mem)
        return hs_fail(err, HS_EINTERNAL, "out of memory for %d GPUs", plat->n_gpus);
    int rc = plat_engine_start(err);
    if (rc != HS_OK)
        return rc;
    engine_state = ENGINE_LOADED;
    if (plat->gen) {
        unsigned char *racks = racks_of(plat, gpus, n);
        if (gpus && !racks)
            return hs_fail(err, HS_EINTERNAL, "out of memory for the racks");
        host_memory = host_memory || !racks || plat->gen->uplink_routing != PG_UPLINKS_FAT;
        rc = psg_build(plat->gen, racks, host_memory, plat->gpus, plat->host_mem, err);
        plat->whole = racks == NULL;
        plat->host_memory_out = !host_memory;
        free(racks);
    } else {
        simgrid_load_platform(plat->path);
        rc = collect_hosts(plat, err);
        plat->whole = true;
        plat->engine_route = sg_route;
        plat->engine_links = sg_links;
        if (rc == HS_OK) {
            plat->gpu_speed_flops = sg_host_get_speed(plat->gpus[0]);
            plat->file_nics_per_node = count_file_nics(plat);
        }
    }
    plat->in_engine = rc == HS_OK;
    return rc;
}

int plat_load(const char *spec, plat_platform *plat, char *err)
{
    int rc = plat_open(spec, plat, err);
    if (rc == HS_OK && (rc = plat_engine_load(plat, NULL, 0, err)) != HS_OK)
        plat_free(plat);
    return rc;
}
