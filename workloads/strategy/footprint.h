/* footprint.h: what one GPU's memory holds under a strategy, and whether it fits.
 *
 * ParaDL's footprint (PARADL-MODEL.md's memory column): 2 x delta x (activations + weights),
 * each tensor beside its gradient, delta = 4 bytes per element; plus the optimizer state
 * (momentum 1, Adam 2 values per weight held) of the job's runtime or, without one, of the
 * workload's optimizer attribute (st_optimizer_states). Both derivations report this
 * one footprint: memory is arithmetic on the strategy and the shapes, not a matter of timing,
 * so the analytic model and the simulator must never disagree on it. */
#ifndef FOOTPRINT_H
#define FOOTPRINT_H

#include <stdbool.h>
#include <stdint.h>

#include "estimate.h"
#include "precision.h"
#include "strategy.h"
#include "workload.h"

/* The memory of the busiest GPU of a run of `st` on `batch` samples timed by kc (the job's
 * compute model, compute.h; NULL: the measured times): in its precision (kt_precision, bytes
 * per value: precision.h), told apart into *mem.
 * Activations, by the rule of st->train (its runtime's activation_memory): ParaDL's (the
 * default), the samples a GPU processes through every layer that holds its output (ReLU and
 * batch normalisation work in place; the token layers what autograd saves), each beside its
 * gradient; or autograd's, what autograd saves for every layer (workload_saved.c), once, and
 * the largest layer's input and output live beside it. A split layer's tensors cut among the
 * GPUs that split it
 * where the strategy cuts activations (spatial), whole otherwise; weights: its share of the
 * split layers where the strategy cuts weights (filter, channel), all of the others; pipeline:
 * the stage that needs most, its stages partitioned as kc times them (st_pipeline_partition).
 * HS_EINPUT if the pipeline cannot be partitioned; the compute model's errors. */
int fp_memory(const wl_workload *wl, const struct kt_compute *kc, const st_strategy *st,
              int64_t batch, hs_memory *mem, char *err);

/* weights + gradients + activations + optimizer state, in that order. */
double fp_total(const hs_memory *mem);

/* fp_memory into est->memory, est->memory_per_gpu_bytes and est->fits_in_memory (against a GPU
 * of gpu_memory_bytes). */
int fp_fill(const wl_workload *wl, const struct kt_compute *kc, const st_strategy *st,
            int64_t batch, double gpu_memory_bytes, hs_estimate *est, char *err);

/* The bytes a GPU of layer l's group holds for it under configuration c of a plan (plan.h):
 * its batch share of the layer's activations (cut by the spatial split) and its share of the
 * weights (cut by filter and channel), with gradients and the optimizer's states, in FP32 (a
 * plan's footprint is about the sum over its layers). Activations by ParaDL's rule, |x| + |y|
 * beside their gradients; with `autograd`, what autograd keeps for the layer and the layer's
 * own input and output live beside it (fp_memory takes the largest layer's once a GPU). */
double fp_layer_bytes(const wl_layer *l, const st_layer_config *c, double batch,
                      int optimizer_states, bool autograd);

#endif
