/* placement.h: which GPU of the platform each rank of a run uses.
 *
 * packed: rank r on GPU r (node order), so a model-parallel group sits in a node and consecutive
 *         nodes share leaf switches and racks, as a scheduler that packs a job does.
 * spread: whole nodes dealt round-robin over the racks (node k of the job in rack k mod R), GPUs
 *         inside a node still packed: the same job, but every data-parallel ring edge between
 *         nodes crosses the oversubscribed inter-rack links.
 * scatter: one rank per node (rank r on the first GPU of node r): every message between ranks
 *         leaves its node, as for a job given one GPU on each of many nodes. */
#ifndef PLACEMENT_H
#define PLACEMENT_H

#include "hs_error.h"
#include "platform.h"

typedef enum { PL_PACKED, PL_SPREAD, PL_SCATTER, PL_KIND_COUNT } pl_kind;

/* Parse "--placement" text. */
int pl_parse(const char *text, pl_kind *kind, char *err);
const char *pl_kind_name(pl_kind kind);

/* Fill gpu_of_rank[0..n_ranks-1]. HS_EINPUT if the platform cannot hold the ranks that way. */
int pl_place(const plat_platform *plat, pl_kind kind, int n_ranks, int *gpu_of_rank, char *err);

#endif
