/* generate.h: the published parallel schemes written as per-layer plans (plan.h).
 *
 * Every built-in strategy (`-s data`, `-s data+filter:8x4`, ...) is one table of configurations,
 * and so are the schemes of the systems hybridsim is measured against:
 *   owt            Krizhevsky's "one weird trick": convolutions (and every layer before the first
 *                  fully connected one) data-parallel over all GPUs, the fully connected part
 *                  model-parallel over all of them (scheme (a): one allgather of the activations
 *                  at the boundary); it is splitbrain with G = p.
 *   splitbrain:G   SplitBrain (Lai, Kadav, Kruus 2021) as hybridsim reads its abstract: the
 *                  convolutional part data-parallel over all p GPUs, the fully connected part
 *                  sharded on output neurons inside groups of G consecutive GPUs, the groups
 *                  data-parallel across (an allgather inside the group at the boundary).
 *   ghp:G          group hybrid parallelism as hybridsim reads it: model-parallel groups of G
 *                  (every conv and fc layer whose filters G divides split on filters, the rest
 *                  replicated in the group), data-parallel across the p/G groups. The group size
 *                  is chosen by the caller (the command line prices every divisor).
 * The built-in names reproduce the built-in strategies' numbers: the plan puts the layers the
 * workload marks for a split (its layer file) on that split, the others replicated in their
 * group, as ParaDL's model does; for spatial strategies the layers between the split ones keep
 * the slabs but are charged whole (charge="whole"), and the replicas' gradients are reduced in
 * the group (replica_gradients="reduce"), as ParaDL's closed form charges them. */
#ifndef GENERATE_H
#define GENERATE_H

#include <stdint.h>

#include "hs_error.h"
#include "plan.h"
#include "strategy.h"
#include "workload.h"

/* The plan of a built-in strategy (kind other than ST_LAYERWISE), parsed and checked. A
 * pipeline's stages are partitioned as kc times them at `batch` (st_pipeline_partition; kc
 * NULL: the measured times), as the built-in runs them; the other kinds ignore kc and batch. */
int st_plan_of(const wl_workload *wl, const struct kt_compute *kc, const st_strategy *st,
               int64_t batch, st_plan *plan, char *err);

/* The plan a generator spec names: owt, splitbrain:G, ghp:G, or a built-in strategy name with
 * its shape (data+filter:8x4), for p GPUs and batch B; gpus_per_node sizes a hybrid's group
 * when the spec gives no shape (as -s does), micro_batches is the pipeline's S (0: p). The plan
 * is named after the spec and checked (st_plan_check); kc as for st_plan_of. HS_EINPUT naming
 * the flag ("--generate", "-g", "-b") and what is wrong. */
int st_generate(const char *spec, const wl_workload *wl, const struct kt_compute *kc, int p,
                int64_t batch, int gpus_per_node, int micro_batches, st_plan *plan, char *err);

/* A one-paragraph description of what the generator wrote, for the file's <description>. */
const char *st_generate_description(const char *spec);

#endif
