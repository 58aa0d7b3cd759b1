/* placement.c: rank-to-GPU maps (placement.h). */
#include "placement.h"

#include <stdbool.h>
#include <stdlib.h>
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

/* Nodes a rack holds when full: every node when the platform says nothing. */
static int full_rack(const plat_platform *plat)
{
    return plat->nodes_per_rack > 0 ? plat->nodes_per_rack : plat->n_nodes;
}

int pl_racks(const plat_platform *plat)
{
    int per_rack = full_rack(plat);
    int racks = per_rack > 0 ? (plat->n_nodes + per_rack - 1) / per_rack : 0;
    return racks > 0 ? racks : 1;
}

int pl_rack_nodes(const plat_platform *plat, int rack)
{
    int per_rack = full_rack(plat), left = plat->n_nodes - rack * per_rack;
    return left < per_rack ? (left > 0 ? left : 0) : per_rack;
}

static bool node_free(const plat_platform *plat, const int *taken, int node)
{
    for (int g = 0; taken && g < plat->gpus_per_node; g++)
        if (taken[node * plat->gpus_per_node + g])
            return false;
    return true;
}

/* Up to `need` free nodes, rack by rack, node by node. */
static int claim_packed(const plat_platform *plat, const int *rack, int n_racks,
                        const int *taken, int need, int *nodes)
{
    int per_rack = full_rack(plat), got = 0;
    for (int i = 0; i < n_racks && got < need; i++)
        for (int c = 0; c < pl_rack_nodes(plat, rack[i]) && got < need; c++)
            if (node_free(plat, taken, rack[i] * per_rack + c))
                nodes[got++] = rack[i] * per_rack + c;
    return got;
}

/* Up to `need` free nodes, one from each rack in turn (a partly filled rack runs out
 * first); cursor[i] = -1 once rack i has none. */
static int claim_spread(const plat_platform *plat, const int *rack, int n_racks,
                        const int *taken, int need, int *nodes, int *cursor)
{
    int per_rack = full_rack(plat), got = 0;
    for (int turn = 0, full = 0; got < need && full < n_racks; turn++) {
        int i = turn % n_racks, base = rack[i] * per_rack, here = pl_rack_nodes(plat, rack[i]);
        if (cursor[i] < 0)
            continue;
        while (cursor[i] < here && !node_free(plat, taken, base + cursor[i]))
            cursor[i]++;
        if (cursor[i] == here) {
            cursor[i] = -1;
            full++;
            continue;
        }
        nodes[got++] = base + cursor[i]++;
    }
    return got;
}

int pl_claim_nodes(const plat_platform *plat, pl_kind kind, const int *racks, int n_racks,
                   const int *taken, int n_ranks, int *gpu_of_rank)
{
    int gpn = plat->gpus_per_node, need = (n_ranks + gpn - 1) / gpn;
    if (!racks)
        n_racks = pl_racks(plat);
    int *rack = malloc((size_t)n_racks * sizeof *rack);
    int *cursor = calloc((size_t)n_racks, sizeof *cursor);
    int *nodes = malloc((size_t)(need ? need : 1) * sizeof *nodes);
    int got = -1;
    if (rack && cursor && nodes) {
        for (int i = 0; i < n_racks; i++)
            rack[i] = racks ? racks[i] : i;
        got = kind == PL_SPREAD ? claim_spread(plat, rack, n_racks, taken, need, nodes, cursor)
                                : claim_packed(plat, rack, n_racks, taken, need, nodes);
        for (int r = 0; got == need && r < n_ranks; r++)
            gpu_of_rank[r] = nodes[r / gpn] * gpn + r % gpn;
    }
    free(rack);
    free(cursor);
    free(nodes);
    return got;
}

int pl_place(const plat_platform *plat, pl_kind kind, int n_ranks, int *gpu_of_rank, char *err)
{
    if (n_ranks > plat->n_gpus)
        return hs_fail(err, HS_EINPUT, "-g %d: platform %s has only %d GPUs", n_ranks,
                       plat->name, plat->n_gpus);
    if (kind == PL_SCATTER) {
        if (n_ranks > plat->n_nodes)
            return hs_fail(err, HS_EINPUT,
                           "-g %d with --placement scatter: platform %s has only %d nodes",
                           n_ranks, plat->name, plat->n_nodes);
        for (int r = 0; r < n_ranks; r++)
            gpu_of_rank[r] = r * plat->gpus_per_node;
        return HS_OK;
    }
    if (kind == PL_PACKED) { /* node order: the same as pl_claim_nodes on whole racks */
        for (int r = 0; r < n_ranks; r++)
            gpu_of_rank[r] = r;
        return HS_OK;
    }
    int need = (n_ranks + plat->gpus_per_node - 1) / plat->gpus_per_node;
    int got = pl_claim_nodes(plat, kind, NULL, 0, NULL, n_ranks, gpu_of_rank);
    if (got < 0)
        return hs_fail(err, HS_EINTERNAL, "out of memory placing %d ranks", n_ranks);
    if (got < need) /* every node is claimable: the caller checked the GPUs */
        return hs_fail(err, HS_EINTERNAL, "-g %d with --placement %s: found %d of %d nodes",
                       n_ranks, pl_kind_name(kind), got, need);
    return HS_OK;
}
