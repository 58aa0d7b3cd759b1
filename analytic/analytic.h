/* analytic.h: ParaDL's closed-form model of one training iteration and epoch (PARADL-MODEL.md).
 *
 * Compute comes from the workload's measured per-sample layer times, communication from the
 * ring/point-to-point alpha-beta costs with alpha and beta taken from the platform's routes
 * between the GPUs that talk, memory from the tensor sizes. No contention, no overlap: this is
 * the baseline the simulator is compared with.
 *
 * Two steps, so that the formulas can be checked by hand: an_links_load() asks the platform
 * for the latency and bandwidth of every group of GPUs the strategy makes talk, and an_model()
 * is then plain arithmetic on those numbers. an_estimate() does both. */
#ifndef ANALYTIC_H
#define ANALYTIC_H

#include <stdint.h>

#include "estimate.h"
#include "platform.h"
#include "strategy.h"
#include "workload.h"

/* Estimate one configuration. Checks the strategy (st_check) and that p fits the platform;
 * returns HS_EINPUT with a message otherwise. */
int an_estimate(const wl_workload *wl, const plat_platform *plat, const st_strategy *st,
                int64_t batch, hs_estimate *est, char *err);

/* The same with rank r on GPU gpu_of_rank[r] (NULL: rank r on GPU r), so that a placement that
 * stretches rings across racks reaches the alphas and betas the model uses. */
int an_estimate_placed(const wl_workload *wl, const plat_platform *plat, const st_strategy *st,
                       int64_t batch, const int *gpu_of_rank, hs_estimate *est, char *err);

/* What the model's communication is for, in the simulator's vocabulary (sim/ maps its tasks
 * onto these), so that `compare` can say which part of the two answers differs. In this order
 * they add up to the iteration's comm_s. */
typedef enum {
    AN_COMM_ACT_ALLGATHER, /* filter: layer outputs allgathered forward; channel: the input
                            * gradients allgathered backward */
    AN_COMM_ACT_ALLREDUCE, /* filter: input gradients allreduced backward; channel: the partial
                            * outputs allreduced forward */
    AN_COMM_HALO,          /* spatial: halo exchanges, forward and backward */
    AN_COMM_SPLIT_GATHER,  /* spatial: the split point's allgather and gradient scatter */
    AN_COMM_PIPELINE,      /* pipeline: the boundary sends and receives */
    AN_COMM_GRAD_GROUP,    /* gradient allreduce inside a model-parallel group (spatial) */
    AN_COMM_GRAD_ACROSS,   /* gradient allreduce among data-parallel replicas (data: all GPUs;
                            * hybrids: across the groups) */
    AN_COMM_COUNT
} an_comm_kind;

/* The model's iteration, told apart. */
typedef struct {
    double comm_s[AN_COMM_COUNT]; /* per an_comm_kind; summed in index order they give
                                   * iteration.comm_s exactly (an_terms_comm_s) */
    double bubble_s;              /* pipeline: the part of iteration.compute_s a stage stands
                                   * idle while the pipeline fills and drains; 0 otherwise */
} an_terms;

/* The sum of terms->comm_s in index order: the model's comm_s. */
double an_terms_comm_s(const an_terms *terms);

/* "gradient_allreduce_across" (JSON keys), and "gradient allreduce across data-parallel
 * groups" (sentences). */
const char *an_comm_key(an_comm_kind kind);
const char *an_comm_label(an_comm_kind kind);

/* The alpha-beta cost of the messages of one collective. */
typedef struct {
    double alpha_s;         /* start-up latency of one message (the slowest pair's) */
    double beta_s_per_byte; /* seconds per byte: 1 / the slowest pair's bottleneck bandwidth */
} an_link;

/* What the strategy's messages cross. Model-parallel group j is ranks j*p2 .. j*p2+p2-1; the
 * data-parallel ring of a hybrid links rank k of every group; rank r runs on GPU r unless a
 * placement says otherwise. */
typedef struct {
    an_link ring;        /* ring over GPUs 0..p-1 (data, filter, channel, spatial) */
    an_link group;       /* ring inside one model-parallel group (GPUs 0..p2-1) */
    an_link across;      /* the data-parallel rings {k, p2+k, 2*p2+k, ...}, slowest k */
    an_link staged;      /* halo message between neighbouring GPUs, staged through host
                          * memory (MPI without GPUDirect, as the oracle measured) */
    int node_sharing;    /* GPUs of one node that take part: they share its PCIe and uplink */
    an_link *stage;      /* pipeline: GPU i to GPU i+1, n_stage_links = p-1 entries */
    int n_stage_links;
} an_links;

/* Ask the platform for the links of this strategy (p must fit the platform). Free with
 * an_links_free. */
int an_links_load(const plat_platform *plat, const st_strategy *st, an_links *links, char *err);

/* The same for rank r on GPU gpu_of_rank[r] (NULL: rank r on GPU r). */
int an_links_load_placed(const plat_platform *plat, const st_strategy *st,
                         const int *gpu_of_rank, an_links *links, char *err);
void an_links_free(an_links *links);

/* The closed forms with the links given: fills *est (iteration, epoch, memory and its parts
 * (est->memory; optimizer state when the workload declares one), fit against
 * gpu_memory_bytes). Checks the strategy against the workload and batch (st_check). */
int an_model(const wl_workload *wl, const st_strategy *st, int64_t batch, const an_links *links,
             double gpu_memory_bytes, hs_estimate *est, char *err);

/* an_model, and with terms non-NULL the iteration told apart into *terms. */
int an_model_terms(const wl_workload *wl, const st_strategy *st, int64_t batch,
                   const an_links *links, double gpu_memory_bytes, hs_estimate *est,
                   an_terms *terms, char *err);

/* an_estimate_placed, and with terms non-NULL the iteration told apart into *terms. */
int an_estimate_terms(const wl_workload *wl, const plat_platform *plat, const st_strategy *st,
                      int64_t batch, const int *gpu_of_rank, hs_estimate *est, an_terms *terms,
                      char *err);

#endif
