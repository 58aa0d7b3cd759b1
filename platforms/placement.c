/* placement.c: rank-to-GPU maps (placement.h). */
#include "placement.h"

#include <string.h>

static const char *kind_names[PL_KIND_COUNT] = {"packed", "spread", "scatter"};

int pl_parse(const char *text, pl_kind *kind, char *err)
{
    for (int k = 0; k < PL_KIND_COUNT; k++) {
        if (strcmp(text, kind_names[k]) == 0) {
            *kind = (pl_kind)k;
            return HS_OK;
        }
    }
    return hs_fail(err, HS_EINPUT, "--placement: unknown placement '%s' (known: packed, spread, scatter)",
                   text);
}

const char *pl_kind_name(pl_kind kind) { return kind < PL_KIND_COUNT ? kind_names[kind] : "?"; }

/* Node k of the job goes to rack k mod R, at the next free node of that rack. */
static int spread_node(const plat_platform *plat, int job_node)
{
    int per_rack = plat->nodes_per_rack > 0 ? plat->nodes_per_rack : plat->n_nodes;
    int racks = plat->n_nodes / per_rack;
    if (racks < 1)
        racks = 1;
    int rack = job_node % racks;
    int slot = job_node / racks;
    return rack * per_rack + slot;
}

int pl_place(const plat_platform *plat, pl_kind kind, int n_ranks, int *gpu_of_rank, char *err)
{
    if (n_ranks > plat->n_gpus)
        return hs_fail(err, HS_EINPUT, "-g %d: platform %s has only %d GPUs", n_ranks,
                       plat->name, plat->n_gpus);
    int g = plat->gpus_per_node;
    if (kind == PL_SCATTER) {
        if (n_ranks > plat->n_nodes)
            return hs_fail(err, HS_EINPUT,
                           "-g %d with --placement scatter: platform %s has only %d nodes",
                           n_ranks, plat->name, plat->n_nodes);
        for (int r = 0; r < n_ranks; r++)
            gpu_of_rank[r] = r * g;
        return HS_OK;
    }
    for (int r = 0; r < n_ranks; r++) {
        int node = r / g;
        if (kind == PL_SPREAD)
            node = spread_node(plat, node);
        gpu_of_rank[r] = node * g + r % g;
    }
    return HS_OK;
}
