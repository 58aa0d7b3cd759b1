/* estimate.h: the answer hybridsim gives, whichever way it was derived.
 *
 * The analytic model and the simulator both fill an hs_estimate, so the command line prints,
 * compares and serialises them the same way (the JSON schema of DESIGN.md); and both tell their
 * communication apart by what it is for (hs_term), so that `compare` can set each part of one
 * answer beside the same part of the other. */
#ifndef ESTIMATE_H
#define ESTIMATE_H

#include <stdbool.h>
#include <stdint.h>

typedef struct {
    double compute_s;       /* time a GPU computes (the busiest GPU's, for the simulator) */
    double comm_s;          /* time spent communicating */
    double exposed_comm_s;  /* communication not hidden behind compute */
    double total_s;         /* wall time */
} hs_times;

/* What the memory of one GPU holds; the four add up to memory_per_gpu_bytes. */
typedef struct {
    double weights_bytes;         /* the weights the GPU holds */
    double gradients_bytes;       /* their gradients */
    double activations_bytes;     /* layer inputs and outputs kept for the backward pass, and
                                   * their gradients */
    double master_bytes;          /* mixed precision: the FP32 master copy of the weights the
                                   * optimizer updates (0 in fp32) */
    double optimizer_state_bytes; /* per-weight optimizer values (momentum 1, Adam 2), 0 for
                                   * plain SGD or when the workload does not say */
} hs_memory;

typedef struct {
    int64_t iterations_per_epoch; /* I = ceil(D / B) */
    hs_times iteration;           /* one training iteration */
    hs_times epoch;               /* I iterations */
    double memory_per_gpu_bytes;
    hs_memory memory;             /* memory_per_gpu_bytes broken down */
    bool fits_in_memory;          /* memory_per_gpu_bytes <= the platform's GPU memory */
    double input_s;               /* seconds one GPU's input pipeline takes for its samples of
                                   * an iteration (the runtime's loader; 0: no limit) */
    double input_wait_s;          /* seconds an iteration's GPUs wait for that pipeline beyond
                                   * their own work (0: it is not the bound) */
    double host_step_s;           /* seconds a step's host spends with the GPUs idle (the
                                   * runtime's step_host_s), in iteration.total_s; 0: none */
} hs_estimate;

/* What communication is for, in the order the parts of an iteration add up (the analytic model
 * names its closed-form terms so; the simulator charges each communication task to one). */
typedef enum {
    HS_TERM_ACT_ALLGATHER, /* filter: layer outputs allgathered forward; channel: the input
                            * gradients allgathered backward */
    HS_TERM_ACT_ALLREDUCE, /* filter: input gradients allreduced (or reduce-scattered)
                            * backward; channel: the partial outputs allreduced forward */
    HS_TERM_HALO,          /* spatial: halo exchanges, forward and backward */
    HS_TERM_SPLIT_GATHER,  /* spatial: the split point's allgather and gradient scatter */
    HS_TERM_PIPELINE,      /* pipeline: the boundary sends and receives */
    HS_TERM_GRAD_GROUP,    /* gradient allreduce inside a model-parallel group (spatial) */
    HS_TERM_GRAD_ACROSS,   /* gradient allreduce among data-parallel replicas (data: all GPUs;
                            * hybrids: across the groups) */
    HS_TERM_COUNT
} hs_term;

/* "gradient_allreduce_across" (JSON keys), and "the gradient allreduce across data-parallel
 * groups" (sentences). */
const char *hs_term_key(hs_term term);
const char *hs_term_label(hs_term term);

/* Fill iterations_per_epoch and the epoch from the iteration times, with ParaDL's rule: compute
 * scales with the samples (D/B iterations, the last one partial), communication with the
 * I = ceil(D/B) iterations (a partial batch still exchanges every gradient). The epoch's exposed
 * communication scales like communication. */
void hs_estimate_scale_epoch(hs_estimate *est, int64_t samples, int64_t batch);

/* The input pipeline's floor, before hs_estimate_scale_epoch: a GPU's loader workers prepare
 * the next batches while the GPUs compute (a DataLoader's prefetch), so in the steady state an
 * iteration lasts the longer of the GPUs' own iteration and input_s, the time the loader takes
 * for one GPU's samples (kt_compute_input_s). Sets input_s and input_wait_s; the wait counts as
 * idle time, which the epoch scales with the samples. Both answers call it alike. */
void hs_estimate_input_floor(hs_estimate *est, double input_s);

/* The same floor on one iteration's times alone: total_s becomes at least input_s. Returns the
 * seconds the GPUs wait for their data (0 when they are the slower). */
double hs_times_input_floor(hs_times *it, double input_s);

/* Host time a step spends with the GPUs idle (kt_compute_step_host_s), before the input floor
 * and hs_estimate_scale_epoch: total_s grows by host_s (idle time, which the epoch scales with
 * the samples). Nothing for host_s <= 0. */
void hs_times_host_step(hs_times *it, double host_s);

/* The same on est's iteration, host_step_s set to what it added (0 for host_s <= 0). */
void hs_estimate_host_step(hs_estimate *est, double host_s);

/* HS_OK when every number of est is finite, else HS_EINTERNAL naming the first that is not
 * ("what: the iteration's comm_s is inf"): no report, JSON or CSV may carry inf or NaN (the
 * platform's ranges, units.h, keep bad input from getting this far). */
int hs_estimate_check(const hs_estimate *est, const char *what, char *err);

#endif
