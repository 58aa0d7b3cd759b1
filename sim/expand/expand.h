/* expand.h: turns (workload, strategy, batch) into the task graph every rank runs.
 *
 * For every layer: the forward kernel, the backward kernels (input gradient, weight gradient)
 * and the weight update, with durations from the workload's calibration split as the strategy
 * splits the work (batch, space, filters, channels, layers); and the communication the strategy
 * needs (PARADL-MODEL.md): gradient allreduce, activation allgather / input-gradient allreduce,
 * halo exchanges and the spatial split-point gather (staged through host memory, as the model
 * charges them), pipeline sends and shifts, hierarchical groups. A per-layer plan (ST_LAYERWISE,
 * plan.h) is expanded from its data layout: each tensor's redistribution between two layers'
 * configurations becomes the messages that bring every rank the slice it needs, grouped into
 * allgathers or pairwise rounds. Independent of placement: ranks only.
 *
 * Two orderings of a rank's two streams (ex_options.overlap):
 *   blocking (the default)  every task waits for the task written just before it, whichever
 *                           stream it is on: compute and communication never overlap, as in
 *                           ParaDL's model and in ChainerMN's blocking collectives and sends;
 *   overlap                 a task waits only for the task that produces its data (a collective
 *                           for the kernel that wrote its buffer, a kernel for the message that
 *                           brings its input), so pipeline sends do not hold the next
 *                           micro-batch back; in the backward of the layer-wise strategies a
 *                           layer's weight-gradient kernel is written after the next collective
 *                           on the data path, so it runs while that collective does, and the
 *                           weight gradients are reduced in buckets (ex_options.bucket_bytes,
 *                           the first one ex_options.first_bucket_bytes where said) as they
 *                           are produced, as PyTorch DDP and Horovod do; with
 *                           ex_options.cycle_time_s each bucket's allreduce is flagged
 *                           TG_FLAG_CYCLE (Horovod launches it in its next cycle), and so is
 *                           the first of a per-layer plan's fused allreduces; with
 *                           ex_options.after_backward the buckets' allreduces all wait for
 *                           the backward's last kernel (a framework that hands every
 *                           gradient over at once: TensorFlow's XLA cluster).
 *
 * Folder: sim/expand/ (this is its main header): strategy -> per-rank task graphs (ex_), and the
 * task graph itself (taskgraph.h, tg_), which the engine runs and the observers read. May include
 * workloads/ (strategy/, compute/, common/); never analytic/ nor SimGrid. */
#ifndef EXPAND_H
#define EXPAND_H

#include <stdbool.h>
#include <stdint.h>

#include "compute.h"
#include "hs_error.h"
#include "strategy.h"
#include "taskgraph.h"
#include "workload.h"

typedef struct {
    bool overlap;   /* false: blocking order (mirrors the analytic model); true: data order */
    double bucket_bytes; /* overlap order: gradient bucket size, 0 for CO_BUCKET_BYTES */
    double first_bucket_bytes; /* the first bucket's size (PyTorch DDP's 1 MiB), 0: as the
                                * others */
    double cycle_time_s; /* overlap order: a bucket's allreduce waits for the next multiple of
                          * it (Horovod's background cycle; g->cycle_time_s), 0: none */
    bool after_backward; /* overlap order: every bucket's allreduce waits for the backward's
                          * last kernel (TensorFlow's XLA cluster), not for its own */
} ex_options;

/* Build the graph (g is initialised by the call; free with tg_free) in the blocking order.
 * HS_EINPUT for a strategy the expansion cannot honour (p1 * p2 != p, a pipeline with more
 * stages than layers, a batch < 1, ...); on any failure g is left empty. */
int ex_expand(const wl_workload *wl, const kt_compute *kc, const st_strategy *st, int64_t batch,
              tg_graph *g, char *err);

/* The same with options (opt == NULL: the defaults). */
int ex_expand_opt(const wl_workload *wl, const kt_compute *kc, const st_strategy *st, int64_t batch,
                  const ex_options *opt, tg_graph *g, char *err);

/* The options st's runtime keys set (its buckets, cycle and gradients' readiness), in the
 * overlap order when st's overlap is on (a runtime's or a strategy file's) or `overlap` (the
 * command line's --overlap): what a job runs with (sm_run, the fabric's jobs). */
ex_options ex_options_of(const st_strategy *st, bool overlap);

/* May the strategy's graph stage a message through host memory (TG_FLAG_STAGED)? Only
 * spatial cuts do (halos, the split point's gather): spatial, data+spatial and per-layer
 * plans. A job of any other strategy needs no host memory on its platform. */
bool ex_may_stage(const st_strategy *st);

#endif
