/* links.c: the only place the analytic model reads the machine (analytic.h's an_links).
 *
 * The closed forms need an alpha and a beta per collective; they come from the platform's own
 * routes between the GPUs that take part, never from constants, so a what-if change to the
 * platform file reaches the analytic model and the simulator alike. Rank r runs on GPU r, or
 * where a placement puts it. */
#include "analytic.h"
#include "links_int.h"

#include <stdlib.h>
#include <string.h>

/* alpha/beta of the ring gpu[0] -> gpu[1] -> ... -> gpu[n-1] -> gpu[0]. */
an_link an__ring_link(const plat_platform *plat, const int *gpu, int n)
{
    an_link l;
    plat_ring_cost(plat, gpu, n, &l.alpha_s, &l.beta_s_per_byte);
    return l;
}

an_link an__slowest(an_link a, an_link b)
{
    if (b.alpha_s > a.alpha_s)
        a.alpha_s = b.alpha_s;
    if (b.beta_s_per_byte > a.beta_s_per_byte)
        a.beta_s_per_byte = b.beta_s_per_byte;
    return a;
}

an_link an__pair_link(const plat_platform *plat, int a, int b)
{
    an_link l;
    double bw_Bps;
    plat_route(plat, a, b, &l.alpha_s, &bw_Bps);
    l.beta_s_per_byte = bw_Bps > 0 ? 1.0 / bw_Bps : 0.0;
    return l;
}

/* The link between GPU g and its host memory (its PCIe link): plat_host_link. Returns 0 when
 * the platform has a single node; the caller then falls back on the GPU-to-GPU route. */
static int host_link(const plat_platform *plat, int g, an_link *l)
{
    double bw_Bps;
    if (!plat_host_link(plat, g, &l->alpha_s, &bw_Bps))
        return 0;
    l->beta_s_per_byte = bw_Bps > 0 ? 1.0 / bw_Bps : 0.0;
    return 1;
}

an_link an__staged_link(const plat_platform *plat, int a, int b)
{
    an_link l = an__pair_link(plat, a, b);
    int per_node = plat->gpus_per_node > 0 ? plat->gpus_per_node : 1;
    an_link pcie;
    if (a / per_node == b / per_node && host_link(plat, a, &pcie))
        l = pcie;
    l.alpha_s += plat->staging_latency_s;
    return l;
}

int an_links_load(const plat_platform *plat, const st_strategy *st, an_links *links, char *err)
{
    return an_links_load_placed(plat, st, NULL, links, err);
}

/* The GPU rank r runs on. */
static int gpu_of(const int *gpu_of_rank, int r) { return gpu_of_rank ? gpu_of_rank[r] : r; }

int an_links_load_placed(const plat_platform *plat, const st_strategy *st,
                         const int *gpu_of_rank, an_links *links, char *err)
{
    memset(links, 0, sizeof *links);
    int p = st->p, p1 = st->p1, p2 = st->p2;
    if (p < 1 || p1 < 1 || p2 < 1 || (long long)p1 * p2 != p)
        return hs_fail(err, HS_EINTERNAL, "strategy %s: bad shape p=%d p1=%d p2=%d",
                       st_kind_name(st->kind), p, p1, p2);
    if (p > plat->n_gpus)
        return hs_fail(err, HS_EINPUT, "-g %d: platform %s has only %d GPUs", p, plat->name,
                       plat->n_gpus);
    int *gpu = malloc((size_t)p * sizeof *gpu);
    if (!gpu)
        return hs_fail(err, HS_EINTERNAL, "out of memory for a ring of %d GPUs", p);

    for (int r = 0; r < p; r++)
        gpu[r] = gpu_of(gpu_of_rank, r);
    links->ring = an__ring_link(plat, gpu, p);
    links->group = an__ring_link(plat, gpu, p2);
    /* Data-parallel ring k links GPU k of every group; they all run at once. */
    for (int k = 0; k < p2; k++) {
        for (int j = 0; j < p1; j++)
            gpu[j] = gpu_of(gpu_of_rank, j * p2 + k);
        links->across = an__slowest(links->across, an__ring_link(plat, gpu, p1));
    }
    free(gpu);
    /* Halo neighbours: consecutive GPUs of a group. */
    links->staged = links->group;
    for (int i = 0; i + 1 < p2; i++)
        links->staged = i == 0 ? an__staged_link(plat, gpu_of(gpu_of_rank, 0),
                                                 gpu_of(gpu_of_rank, 1))
                               : an__slowest(links->staged,
                                             an__staged_link(plat, gpu_of(gpu_of_rank, i),
                                                             gpu_of(gpu_of_rank, i + 1)));
    links->node_sharing = plat->gpus_per_node < p ? plat->gpus_per_node : p;
    if (links->node_sharing < 1)
        links->node_sharing = 1;

    if (st->kind == ST_PIPELINE && p > 1) {
        links->stage = malloc((size_t)(p - 1) * sizeof *links->stage);
        if (!links->stage)
            return hs_fail(err, HS_EINTERNAL, "out of memory for %d pipeline links", p - 1);
        links->n_stage_links = p - 1;
        for (int i = 0; i < p - 1; i++)
            links->stage[i] = an__pair_link(plat, gpu_of(gpu_of_rank, i),
                                            gpu_of(gpu_of_rank, i + 1));
    }
    return HS_OK;
}

void an_links_free(an_links *links)
{
    free(links->stage);
    links->stage = NULL;
    links->n_stage_links = 0;
}
