/* placement.h: which GPU of the platform each rank of a run uses.
 *
 * packed: rank r on GPU r (node order), so a model-parallel group sits in a node and consecutive
 *         nodes share leaf switches and racks, as a scheduler that packs a job does.
 * spread: whole nodes dealt round-robin over the racks (node k of the job in rack k mod R), GPUs
 *         inside a node still packed: the same job, but every data-parallel ring edge between
 *         nodes crosses the oversubscribed inter-rack links.
 * scatter: one rank per node (rank r on the first GPU of node r): every message between ranks
 *         leaves its node, as for a job given one GPU on each of many nodes.
 * A job on a machine shared with other jobs takes whole free nodes of some racks, packed or
 * spread the same way (pl_claim_nodes). */
#ifndef PLACEMENT_H
#define PLACEMENT_H

#include "hs_error.h"
#include "platform.h"

typedef enum { PL_PACKED, PL_SPREAD, PL_SCATTER, PL_KIND_COUNT } pl_kind;

/* Parse "--placement" text. */
int pl_parse(const char *text, pl_kind *kind, char *err);
const char *pl_kind_name(pl_kind kind);

/* Fill gpu_of_rank[0..n_ranks-1] on the whole (empty) machine. HS_EINPUT if the platform
 * cannot hold the ranks that way. */
int pl_place(const plat_platform *plat, pl_kind kind, int n_ranks, int *gpu_of_rank, char *err);

/* The machine's racks (of nodes_per_rack nodes, the last one possibly partly filled; at
 * least 1) and the nodes of rack `rack` (0 beyond the last). */
int pl_racks(const plat_platform *plat);
int pl_rack_nodes(const plat_platform *plat, int rack);

/* Whole nodes for n_ranks ranks (rank r on GPU r % G of the job's node r / G), taken from the
 * racks listed (racks == NULL: every rack in order) among the nodes none of whose GPUs is
 * taken (taken: per GPU, nonzero when used; NULL: none), in node order rack by rack (PL_PACKED)
 * or one node from each rack in turn (PL_SPREAD). Returns how many nodes it found: fewer than
 * needed means the racks are too full, and gpu_of_rank is then incomplete. */
int pl_claim_nodes(const plat_platform *plat, pl_kind kind, const int *racks, int n_racks,
                   const int *taken, int n_ranks, int *gpu_of_rank);

#endif
