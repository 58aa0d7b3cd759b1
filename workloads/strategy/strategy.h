/* strategy.h: a parallel strategy as the user names it (`-s data+filter:8x4`), parsed and checked.
 *
 * Shared vocabulary of the analytic model and the simulator: which kind of parallelism, on how
 * many GPUs, and for hybrids the group shape p = p1 x p2 (p1 data-parallel groups of p2 GPUs that
 * split the model among themselves, a group inside a node by default).
 *
 * Folder: workloads/strategy/ (this is its main header): how a workload is split over GPUs: the
 * strategy (st_), per-layer plans and their strategy file (plan.h, strategy.dtd), the published
 * schemes and the built-in strategies written as plans (generate.h), and the memory a GPU then
 * holds (footprint.h, fp_). Both derivations take their
 * strategy from here, so neither owns the vocabulary. May include workloads/,
 * workloads/common/ and workloads/compute/ (the footprint's bytes per precision). */
#ifndef STRATEGY_H
#define STRATEGY_H

#include <stdbool.h>
#include <stdint.h>

#include "collective.h"
#include "hs_error.h"
#include "plan.h"
#include "workload.h"

typedef enum {
    ST_SERIAL,
    ST_DATA,
    ST_SPATIAL,
    ST_FILTER,
    ST_CHANNEL,
    ST_PIPELINE,
    ST_DATA_FILTER,
    ST_DATA_SPATIAL,
    ST_LAYERWISE,   /* a per-layer plan (plan.h), from a strategy file: -s FILE.xml */
    ST_KIND_COUNT
} st_kind;

typedef struct {
    st_kind kind;
    int p;          /* GPUs */
    int p1;         /* data-parallel groups (p for data, 1 for pure model parallelism) */
    int p2;         /* GPUs per model-parallel group (1 for data) */
    int segments;   /* pipeline: S micro-batches per mini-batch (GPipe); 1 otherwise */
    const st_plan *plan; /* ST_LAYERWISE: every layer's configuration (owned by the caller);
                          * NULL for the other kinds */
    co_algo allreduce;   /* the gradient allreduce's algorithm (--allreduce; CO_RING, ParaDL's,
                          * unless the user says otherwise: collective.h) */
    bool overlap;        /* --overlap: gradients reduced in buckets while the backward runs
                          * (CO_BUCKET_BYTES); false: one fused allreduce after it */
    double bucket_bytes; /* the overlap's bucket size (a runtime's: DDP's bucket_cap_mb,
                          * Horovod's fusion threshold); 0: CO_BUCKET_BYTES */
    double first_bucket_bytes; /* the size of the first bucket the backward fills (a
                                * runtime's: DDP's 1 MiB); 0: bucket_bytes, as the others */
    double cycle_time_s; /* the overlap's buckets start their allreduce at the next multiple of
                          * it from the iteration's start (a runtime's: Horovod's background
                          * cycle, HOROVOD_CYCLE_TIME); 0: as soon as ready */
    bool after_backward; /* the overlap's buckets are ready when the whole backward is done,
                          * not as their kernels end (a runtime's gradients_ready = backward:
                          * TensorFlow's XLA cluster delivers its outputs together) */
    bool halo_chain;     /* a spatial halo is sent, then received, with synchronous sends
                          * (ChainerMN's halo_exchange over MPI), so the group's messages follow
                          * one another along it (st_parse's default for spatial and
                          * data+spatial); false (--halo sendrecv): each rank sends and receives
                          * at once (MPI_Sendrecv, ParaDL's model) */
    bool filter_rs;      /* filter parallelism reduce-scatters its layers' output gradients:
                          * each GPU needs only its filters' slice (ChainerMN's allgather
                          * backward, an alltoall and a sum; st_parse's default for filter and
                          * data+filter); false (--filter-backward allreduce): allreduced,
                          * ParaDL's model */
    st_training train;   /* the runtime's gradient bytes and optimizer (rt_apply_strategy; a
                          * plan's, st_from_plan); zeroed: the precision's and the workload's */
} st_strategy;

/* Bytes a weight-gradient element travels in for a job timed by kc: its runtime's
 * (t->gradient_bytes), else its precision's (compute.h, kt_gradient_bytes). Both derivations
 * count gradient messages with it. */
double st_gradient_bytes(const st_training *t, const struct kt_compute *kc);

/* Values the job's optimizer keeps per weight: its runtime's (t->optimizer_given), else the
 * workload's own (its optimizer attribute; 0, plain SGD, when it has none). */
int st_optimizer_states(const st_training *t, const wl_workload *wl);

/* Seconds of autocast's weight casts in one pass of layer `index` on a GPU that holds 1/parts
 * of its weights when t->autocast_casts (kt_compute_autocast_s prices them); 0 otherwise or
 * without kc. */
double st_autocast_cast_s(const st_training *t, const struct kt_compute *kc,
                          const wl_workload *wl, int index, double parts);

/* Whether "-s" text names `kind`'s strategy or its hybrid with data ("filter": filter and
 * data+filter:8x4; a strategy file is neither): the runs --filter-backward or --halo reach
 * when given for many runs (a sweep, --job). */
bool st_text_is(const char *text, const char *kind);

/* Parse "-s" text for p GPUs. Hybrids accept ":P1xP2"; without it p2 = gpus_per_node.
 * `segments` is the pipeline's S (0: the default, S = p). HS_EINPUT names the flag and the
 * problem (unknown strategy, p1*p2 != p, ...). */
int st_parse(const char *text, int p, int gpus_per_node, int segments, st_strategy *st,
             char *err);

/* A strategy of kind ST_LAYERWISE for a plan already read (plan must outlive st): p is the
 * plan's GPUs, p1 x p2 its shape (st_plan_shape), segments its micro-batches (1 without a
 * schedule). */
void st_from_plan(const st_plan *plan, st_strategy *st);

/* The ways the batch is split where it enters the network: a GPU's input pipeline loads
 * batch / this many samples an iteration (kt_compute_input_s). A plan's first layer's data
 * split (GPUs that split that layer's work otherwise load the same samples); the data-parallel
 * groups for the other kinds and for a plan with a schedule (its first stage loads them all). */
int st_input_groups(const st_strategy *st);

/* Whether the batch flows through stages in micro-batches: the pipeline, or a plan with a
 * schedule. */
bool st_is_pipelined(const st_strategy *st);

/* The strategy's name in reports: the kind ("data+filter"), or the plan's name. */
const char *st_name(const st_strategy *st);

/* Check the strategy against the workload and the batch: the limit on p (PARADL-MODEL.md),
 * a batch that divides among data-parallel groups and micro-batches. HS_EINPUT names the limit. */
int st_check(const st_strategy *st, const wl_workload *wl, int64_t batch, char *err);

/* The largest p the strategy allows for this workload and batch. */
int64_t st_limit_p(const st_strategy *st, const wl_workload *wl, int64_t batch);

/* The split bit (WL_SPLIT_*) the strategy's model-parallel part uses, 0 if none. */
unsigned st_split_bit(st_kind kind);

const char *st_kind_name(st_kind kind); /* "data+filter" */

/* The kernels one rank of a built-in layer-wise strategy of `kind` runs for layer l under --compute
 * model (kc, the job's kernel-time model: compute.h), in seconds: forward, input gradient, weight
 * gradient (0 without weights), at its group's `samples` and the strategy's dimension cut p2 ways
 * where the strategy splits the layer (filter: output channels; channel: input channels; spatial:
 * the width). Spatial parallelism also cuts the unmarked layers between its first and last split
 * layer (batch normalisation, ReLU, adds, pooling): their input stays in slabs, so each GPU
 * computes its slab (ParaDL's accounting charges them whole; with measured times hybridsim keeps
 * it). Filter and channel parallelism also copy activations in GPU memory: a collective joins or
 * splits rank-sized blocks, but a tensor of several samples keeps each sample's channels together,
 * so gathered channel slices are put in place after an allgather (filter forward, channel backward)
 * and packed before a reduce-scatter (filter backward with filter_rs; an allreduce needs none): one
 * copy of the group's output each, in the forward or input-gradient kernel of the layer (compute.h,
 * kt_compute_copy_s); the reduce-scatter also sums what arrives (st_scatter_copies_s). The
 * simulator and the analytic model both time kernels here (plan_kernels.c). Errors are the compute
 * model's (compute.h). */
int st_builtin_kernels_s(const wl_workload *wl, const struct kt_compute *kc, st_kind kind, int p2,
                         bool filter_rs, double samples, int l, double *fw_s, double *dx_s,
                         double *dw_s, char *err);

/* Seconds of one such layout copy of `elems` elements on a rank whose block holds `samples`
 * samples: 0 when it holds one (its channels are in one piece) or the kernels are measured
 * (kc NULL); else the compute model's copy (compute.h, kt_compute_copy_s). Strategy
 * files charge theirs at their gathers with it. Errors are the compute model's. */
int st_layout_copy_s(const wl_workload *wl, const struct kt_compute *kc, double elems,
                     double samples, double *seconds, char *err);

/* The element-wise kernels around a reduce-scatter of channel slices over p ranks, `elems`
 * elements the whole tensor, as ChainerMN runs it (the backward of its allgather: an alltoall,
 * then `xp.stack(gxs).sum(axis=0)`): the slices packed into one buffer before (a layout copy),
 * the p slices that arrive stacked after (another) and summed (a read of the whole and a write
 * of 1/p of it); each as st_layout_copy_s, so 0 under measured kernels or one sample. Built-in
 * strategies and strategy files charge it wherever they reduce-scatter gathered slices. */
int st_scatter_copies_s(const wl_workload *wl, const struct kt_compute *kc, double elems, int p,
                        double samples, double *seconds, char *err);

/* The kernels one pipeline stage runs for layer l on a micro-batch of micro_samples samples, in
 * seconds: forward, input gradient, weight gradient (0 without weights). Every layer is whole
 * on its stage's GPU: under kc (the job's compute model, compute.h) each kernel at that shape;
 * with measured times (kc NULL) the per-sample times scaled, the backward half input gradient,
 * half weight gradient. The expansion, the closed form and the partition below all time a
 * stage with it. Errors are the compute model's. */
int st_pipeline_kernels_s(const wl_workload *wl, const struct kt_compute *kc,
                          double micro_samples, int l, double *fw_s, double *bx_s, double *bw_s,
                          char *err);

/* The pipeline's stages: contiguous layer groups, stage i (on GPU i) running layers
 * first[i] .. first[i+1]-1, so first[] has stages+1 entries and first[stages] = n_layers.
 * Balanced by compute: the partition minimises the largest stage's forward+backward time
 * (every stage gets at least one layer), the times being the kernels under kc at
 * micro_samples (st_pipeline_kernels_s), or without kc the measured times per sample. HS_EINPUT
 * if stages exceeds the layers; the compute model's errors. */
int st_pipeline_partition(const wl_workload *wl, const struct kt_compute *kc,
                          double micro_samples, int stages, int *first, char *err);

#endif
