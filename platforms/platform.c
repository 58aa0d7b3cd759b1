/* platform.c: loads a platform into the process's SimGrid engine and answers route questions.
 *
 * Network semantics. hybridsim wants plain alpha-beta: one message of n bytes alone on a route
 * takes exactly (sum of the route's latencies) + n / (its bottleneck bandwidth), and what the
 * simulation adds is only the sharing of saturated links. SimGrid's CM02 flow model gives that
 * once its corrections are switched off, which is what engine_configure does:
 *   - network/model CM02: max-min fair sharing, no empirical factors (LV08, the default,
 *     multiplies latencies by 13.01 and bandwidths by 0.97);
 *   - network/latency-factor 1, network/bandwidth-factor 1, network/weight-S 0: CM02's own
 *     defaults, set explicitly so nothing else can change them;
 *   - network/TCP-gamma 1e30: CM02 caps a flow at gamma / (2 latency), a TCP window limit
 *     (with the 4 MiB default an NVLink flow at 9 us would be capped near 233 GB/s);
 *   - network/crosstraffic off: otherwise each flow also loads its reverse route with 5% of
 *     its rate, modelling TCP acks.
 * Sharing: CM02 shares a saturated link among flows in inverse proportion to their route
 * latencies (TCP's RTT unfairness), where ptask_L07 shares equally. We keep CM02: flows that
 * meet on one link have nearly the same latency here (inter-node routes differ by at most
 * 2.2%, 30.31 vs 30.98 us on ABCI, and NVLink flows never share a link with network flows),
 * so its shares are within about 1% of equal ones (except one-hop and two-hop flows on a
 * cube-mesh NVLink: 2/3 and 1/3), and CM02's lazy update is much faster than L07's full one
 * on the millions of messages a step-by-step ring sends. platforms/README.md says the same
 * for users. SimGrid's own log output is silenced (threshold critical). */
#include "platform.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <simgrid/engine.h>
#include <simgrid/host.h>
#include <xbt/config.h>
#include <xbt/log.h>
#include <xbt/sysdep.h>

#include "platcheck.h"

/* SimGrid allows one engine per process and one platform per engine, and cannot be asked
 * whether it has them: this is the module's only global state, forced by that rule. */
static enum { ENGINE_NONE, ENGINE_STARTED, ENGINE_LOADED } engine_state = ENGINE_NONE;

/* A TCP window so large that CM02's window cap never binds (see above). */
#define PLAT_TCP_GAMMA 1e30

void plat_engine_start(void)
{
    if (engine_state != ENGINE_NONE)
        return;
    char name[] = "hybridsim";
    char *argv[] = {name, NULL};
    int argc = 1;
    /* Before simgrid_init, so that its own configuration messages are silenced too. */
    xbt_log_control_set("root.thresh:critical");
    simgrid_init(&argc, argv);
    sg_cfg_set_string("network/model", "CM02");
    sg_cfg_set_double("network/latency-factor", 1.0);
    sg_cfg_set_double("network/bandwidth-factor", 1.0);
    sg_cfg_set_double("network/weight-S", 0.0);
    sg_cfg_set_double("network/TCP-gamma", PLAT_TCP_GAMMA);
    sg_cfg_set_boolean("network/crosstraffic", "no");
    engine_state = ENGINE_STARTED;
}

const char *plat_default_dir(void) { return HYBRIDSIM_SOURCE_DIR "/platforms"; }

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* A path is used as given; a short name ("abci") is looked up as platforms/<name>.xml under
 * HYBRIDSIM_HOME when set, else in the source tree. */
static int resolve(const char *spec, char *path, size_t len, char *err)
{
    const char *home = getenv("HYBRIDSIM_HOME");
    int n;
    if (spec == NULL || spec[0] == '\0')
        return hs_fail(err, HS_EINPUT, "no platform given");
    if (strchr(spec, '/') || ends_with(spec, ".xml"))
        n = snprintf(path, len, "%s", spec);
    else if (home && home[0])
        n = snprintf(path, len, "%s/platforms/%s.xml", home, spec);
    else
        n = snprintf(path, len, "%s/%s.xml", plat_default_dir(), spec);
    if (n < 0 || (size_t)n >= len)
        return hs_fail(err, HS_EINPUT, "platform '%s': path too long", spec);
    return HS_OK;
}

/* "dir/abci.xml" -> "abci" */
static void stem(const char *path, char *name, size_t len)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t n = strlen(base);
    if (ends_with(base, ".xml"))
        n -= 4;
    snprintf(name, len, "%.*s", (int)n, base);
}

/* Find the GPU hosts in rank order. Both SimGrid's host list and the checked GPU names are
 * sorted by name (the names are zero-padded alike), so one merge pass pairs them; looking
 * each name up would walk SimGrid's zone tree once per GPU. */
static int collect_gpus(const plat_facts *facts, plat_platform *plat, char *err)
{
    size_t n_hosts = sg_host_count();
    sg_host_t *hosts = sg_host_list();
    int rank = 0;
    plat->gpus = calloc(facts->n_gpus, sizeof *plat->gpus);
    if (!plat->gpus) {
        xbt_free(hosts);
        return hs_fail(err, HS_EINTERNAL, "out of memory for %d GPUs", facts->n_gpus);
    }
    for (size_t i = 0; i < n_hosts && rank < facts->n_gpus; i++)
        if (strcmp(sg_host_get_name(hosts[i]), facts->gpu_names[rank]) == 0)
            plat->gpus[rank++] = hosts[i];
    xbt_free(hosts);
    if (rank < facts->n_gpus)
        return hs_fail(err, HS_EINTERNAL, "%s: SimGrid has no host '%s' although the file "
                       "declares it", plat->path, facts->gpu_names[rank]);
    return HS_OK;
}

int plat_load(const char *spec, plat_platform *plat, char *err)
{
    plat_facts facts;
    int rc;
    memset(plat, 0, sizeof *plat);
    if ((rc = resolve(spec, plat->path, sizeof plat->path, err)))
        return rc;
    if (engine_state == ENGINE_LOADED)
        return hs_fail(err, HS_EINTERNAL, "%s: a platform is already loaded, and SimGrid allows "
                       "one per process", plat->path);
    if ((rc = plat_check_file(plat->path, &facts, err)))
        return rc;
    plat_engine_start();
    simgrid_load_platform(plat->path);
    engine_state = ENGINE_LOADED;
    stem(plat->path, plat->name, sizeof plat->name);
    plat->n_nodes = facts.nodes;
    plat->gpus_per_node = facts.gpus_per_node;
    plat->n_gpus = facts.n_gpus;
    plat->nodes_per_leaf = facts.nodes_per_leaf;
    plat->nodes_per_rack = facts.nodes_per_leaf * facts.leaves_per_rack;
    plat->gpu_memory_bytes = facts.gpu_memory_bytes;
    plat->staging_latency_s = facts.staging_latency_s;
    snprintf(plat->gpu_model, sizeof plat->gpu_model, "%s", facts.gpu_model);
    snprintf(plat->gpu_device, sizeof plat->gpu_device, "%s", facts.gpu_device);
    rc = collect_gpus(&facts, plat, err);
    plat_facts_free(&facts);
    if (rc) {
        plat_free(plat);
        return rc;
    }
    plat->gpu_speed_flops = sg_host_get_speed(plat->gpus[0]);
    return HS_OK;
}

void plat_free(plat_platform *plat)
{
    free(plat->gpus);
    plat->gpus = NULL;
    plat->n_gpus = 0;
}

void plat_route(const plat_platform *plat, int a, int b, double *latency_s, double *bandwidth_Bps)
{
    if (a < 0 || b < 0 || a >= plat->n_gpus || b >= plat->n_gpus) {
        *latency_s = NAN; /* a caller's bug: make it show in every number it touches */
        *bandwidth_Bps = NAN;
        return;
    }
    if (a == b) { /* nothing crosses a link */
        *latency_s = 0;
        *bandwidth_Bps = HUGE_VAL;
        return;
    }
    *latency_s = sg_host_get_route_latency(plat->gpus[a], plat->gpus[b]);
    *bandwidth_Bps = sg_host_get_route_bandwidth(plat->gpus[a], plat->gpus[b]);
}

sg_host_t plat_host_memory(const plat_platform *plat, int gpu)
{
    if (gpu < 0 || gpu >= plat->n_gpus)
        return NULL;
    const char *name = sg_host_get_name(plat->gpus[gpu]), *tail = strrchr(name, '-');
    if (!tail || strncmp(tail, "-gpu", 4) != 0)
        return NULL;
    char mem[256];
    int len = snprintf(mem, sizeof mem, "%.*s-cpu", (int)(tail - name), name);
    return len > 0 && (size_t)len < sizeof mem ? sg_host_by_name(mem) : NULL;
}

void plat_ring_cost(const plat_platform *plat, const int *gpu, int n, double *alpha_s,
                    double *beta_s_per_byte)
{
    *alpha_s = 0;
    *beta_s_per_byte = 0;
    if (n < 2)
        return;
    for (int i = 0; i < n; i++) {
        double lat_s, bw_Bps;
        plat_route(plat, gpu[i], gpu[(i + 1) % n], &lat_s, &bw_Bps);
        if (lat_s > *alpha_s || isnan(lat_s))
            *alpha_s = lat_s;
        double beta = 1.0 / bw_Bps;
        if (beta > *beta_s_per_byte || isnan(beta))
            *beta_s_per_byte = beta;
    }
}
