/* analytic.h: ParaDL's closed-form model of one training iteration and epoch (PARADL-MODEL.md).
 *
 * Compute comes from the workload's measured per-sample layer times, communication from the
 * ring/point-to-point alpha-beta costs with alpha and beta taken from the platform's routes
 * between the GPUs that talk, memory from the tensor sizes. No contention, and no overlap but
 * the overlap order's backward of the layer-wise strategies (--overlap, overlap.c): this is
 * the baseline the simulator is compared with.
 *
 * Two steps, so that the formulas can be checked by hand: an_links_load() asks the platform
 * for the latency and bandwidth of every group of GPUs the strategy makes talk, and an_model()
 * is then plain arithmetic on those numbers. an_estimate() does both. Every derivation takes
 * the job's kernel-time model `kc` beside the workload (compute.h): NULL for the workload's
 * measured times in fp32, else the --compute model, whose precision also sizes the messages and
 * the memory.
 *
 * Folder: analytic/ (this is its main header): the closed-form derivation, ParaDL's model (an_).
 * May include workloads/ (and its strategy/, compute/ and common/), platforms/ and
 * analytic/search (whose cost provider an_search.h implements); never sim/: the simulator is
 * the other, independent derivation. */
#ifndef ANALYTIC_H
#define ANALYTIC_H

#include <stdbool.h>
#include <stdint.h>

#include "compute.h"
#include "estimate.h"
#include "placement.h"
#include "platform.h"
#include "strategy.h"
#include "workload.h"

/* Estimate one configuration. Checks the strategy (st_check) and that p fits the platform;
 * returns HS_EINPUT with a message otherwise. */
int an_estimate(const wl_workload *wl, const kt_compute *kc, const plat_platform *plat,
                const st_strategy *st, int64_t batch, hs_estimate *est, char *err);

/* The same with rank r on GPU gpu_of_rank[r] (NULL: rank r on GPU r), so that a placement that
 * stretches rings across racks reaches the alphas and betas the model uses. */
int an_estimate_placed(const wl_workload *wl, const kt_compute *kc, const plat_platform *plat,
                       const st_strategy *st, int64_t batch, const int *gpu_of_rank,
                       hs_estimate *est, char *err);

/* The model's iteration, told apart. */
typedef struct {
    double comm_s[HS_TERM_COUNT]; /* per hs_term; summed in index order they give
                                   * iteration.comm_s exactly (an_terms_comm_s) */
    double bubble_s;              /* pipeline: the part of iteration.compute_s a stage stands
                                   * idle while the pipeline fills and drains; 0 otherwise */
} an_terms;

/* The sum of terms->comm_s in index order: the model's comm_s. */
double an_terms_comm_s(const an_terms *terms);

/* The alpha-beta cost of the messages of one collective. */
typedef struct {
    double alpha_s;         /* start-up latency of one message (the slowest pair's) */
    double beta_s_per_byte; /* seconds per byte: 1 / the slowest pair's bottleneck bandwidth */
} an_link;

/* Edges of distinct (alpha, beta) an_layout keeps for a closed form that takes its slowest
 * edge at the message size (a node's NVLink pairs of one and two links, two-hop pairs); more
 * are merged term by term, an upper bound. */
#define AN_EDGE_KINDS 4

/* A group of ranks laid out by node, for the allreduce algorithms beyond the ring
 * (collective.h): nodes in order of first appearance, members of a node in group order. */
typedef struct {
    int per_node;        /* members on every node the group spans; 0: not the same on all */
    int n_nodes;         /* nodes it spans */
    an_link intra;       /* the slowest ring among one node's members */
    an_link inter;       /* the slowest ring across the nodes among members of equal local
                          * index (hier), whose local-0 members are the tree's masters */
    int nic_share;       /* inter-node rings leaving a node through one NIC, all groups of the
                          * strategy running at once (hier) */
    int masters_per_nic; /* the groups' masters behind one NIC (tree) */
    int nics;            /* NICs of a node (NCCL's choice: co_nccl_choice) */
    an_link chain[AN_EDGE_KINDS]; /* tree: the intra-node chains' edges (local j to j - 1 and
                          * back), one of each kind no other is slower than in both terms */
    int n_chain;
    an_link chain_slowest; /* and their slowest latency and bandwidth (the pipeline's fill) */
    an_link hier_intra[AN_EDGE_KINDS]; /* hier: the intra-node rings' edges, one of each kind
                          * no other is slower than in both terms */
    int n_hier_intra;
    an_link hier_inter[AN_EDGE_KINDS]; /* and the inter-node rings' edges, likewise, beta
                          * that of the links between the GPUs' own (plat_route_ends), which
                          * the rings through one NIC share */
    int n_hier_inter;
    double hier_own_beta_s_per_byte; /* the slowest of those edges' own links (a GPU's PCIe
                          * link): each carries one ring, whatever the NIC's sharing */
    int rings;           /* NCCL's rings over every NIC: rings at once (co_ring_count) */
    an_link rings_intra[AN_EDGE_KINDS]; /* their edges inside a node, beta times the rings
                          * through the pair: one of each kind no other is slower than in
                          * both terms (the slowest of them depends on the message size) */
    int n_rings_intra;
    an_link rings_inter[AN_EDGE_KINDS]; /* and from node to node, likewise */
    int n_rings_inter;
    int rings_nic_share; /* the most of the rings' node-to-node messages, all groups', that
                          * leave or enter a node through one NIC */
    double rings_chain_s; /* the longest chain of edge latencies the rings' 2(n-1) steps
                          * cross (co_ring_chain_s); their edges' alpha is 0 */
} an_layout;

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
    an_layout grad_across; /* the gradient allreduce across the groups (all p for data) */
    an_layout grad_group;  /* and inside group 0 (spatial's replicated weights) */
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
int an_model(const wl_workload *wl, const kt_compute *kc, const st_strategy *st, int64_t batch,
             const an_links *links, double gpu_memory_bytes, hs_estimate *est, char *err);

/* an_model, and with terms non-NULL the iteration told apart into *terms. */
int an_model_terms(const wl_workload *wl, const kt_compute *kc, const st_strategy *st,
                   int64_t batch, const an_links *links, double gpu_memory_bytes, hs_estimate *est,
                   an_terms *terms, char *err);

/* an_estimate_placed, and with terms non-NULL the iteration told apart into *terms. */
int an_estimate_terms(const wl_workload *wl, const kt_compute *kc, const plat_platform *plat,
                      const st_strategy *st, int64_t batch, const int *gpu_of_rank,
                      hs_estimate *est, an_terms *terms, char *err);

/* ---------------------------------------------------------------- per-layer strategies
 *
 * A per-layer plan (plan.h) is priced layer by layer and edge by edge on the routes of the
 * placed job, read from the platform once (an_net): every family of rings is asked for on first
 * use and kept, so pricing thousands of configurations (a search) calls SimGrid only for the
 * families it has not met. The pieces a search adds up:
 *   an_layer_price  one layer under one configuration: its kernels, its halo exchanges and its
 *                   weight-gradient allreduce priced alone (a plan fuses them per rank set);
 *   an_edge_price   the redistribution of layer u's output to layer v between their
 *                   configurations, forward and backward (redist.c lists the patterns);
 *   an_plan_model   a whole plan, exactly as `analytic -s FILE.xml` reports it.
 * A built-in strategy written as a plan (generate.h) prices to its built-in numbers. */

/* The links of p ranks placed on GPUs gpu_of_rank (NULL: rank r on GPU r). */
typedef struct an_net an_net;
int an_net_open(const plat_platform *plat, int p, const int *gpu_of_rank, an_net **net,
                char *err);
void an_net_close(an_net *net);

/* What a layer or an edge costs in one iteration, told apart like an_terms. */
typedef struct {
    double compute_s;                /* kernels */
    double comm_s[HS_TERM_COUNT];    /* communication per hs_term */
} an_price;

/* compute_s + every comm_s. */
double an_price_s(const an_price *pr);

/* Layer `layer` of wl under configuration c at global batch `batch`: kernels (its batch share
 * of the per-sample time, cut by its model splits), halo exchanges of a spatial split with a
 * window wider than 1 (staged, as ParaDL), and its weight gradients allreduced alone over the
 * ranks that saw different data, all as a plan with the settings of `rules` prices them (its
 * layers are not read): its halos (halo_sendrecv), its gradients' algorithm (allreduce), bytes
 * (train; zeroed: the precision's) and sets (reduce_replicas). No checks beyond the layer
 * index: check the configuration first (st_plan_check). */
int an_layer_price(an_net *net, const wl_workload *wl, const kt_compute *kc,
                   const st_plan *rules, int layer, const st_layer_config *c, int64_t batch,
                   an_price *out, char *err);

/* The output of layer u (configuration cu) redistributed to layer v (cv), v > u, forward and
 * backward, as a plan with the settings of `rules` prices it (a gather of filter blocks
 * reduce-scattered back, or allreduced with rules->filter_allreduce). covered: u's output
 * gradient is reduced at an upstream gather (a replicated layer after a model-split one,
 * ParaDL's convention), so a model-split v adds no reduction of its own; an_plan_model works it
 * out along the graph, a search on a chain can pass whether u's input edge was a gather. An
 * input an omitted projection resizes costs nothing. */
int an_edge_price(an_net *net, const wl_workload *wl, const kt_compute *kc, const st_plan *rules,
                  int u, const st_layer_config *cu, int v, const st_layer_config *cv,
                  int64_t batch, bool covered, an_price *out, char *err);

/* The job's settings of `rules` copied onto plan (its layers, schedule and reduce_replicas
 * kept): the gradient allreduce's algorithm, its bytes and optimizer (train), the halos, the
 * filter backward and the runtime's cycle, what a job's keys set on a plan (job.c, the
 * oracle). */
void an_plan_rules(const st_plan *rules, st_plan *plan);

/* The output of layer u when no layer reads it (the loss's input): a conv or fc split on input
 * channels reduces its partial sums all the same, allreduce forward and the input gradient's
 * slices gathered backward, as at a gather (the simulator does so whatever reads it). */
int an_output_price(an_net *net, const wl_workload *wl, const kt_compute *kc, int u,
                    const st_layer_config *cu, int64_t batch, an_price *out, char *err);

/* Whether any later layer reads layer u's output. */
bool an_is_read(const wl_workload *wl, int u);

/* A whole plan: the iteration (kernels, halos, redistributions, weight gradients fused per set
 * of ranks; or GPipe's closed form with a schedule), the epoch, the memory per GPU (fp_fill),
 * and with terms non-NULL the iteration told apart. Checks the plan (st_plan_check). */
int an_plan_model(const wl_workload *wl, const kt_compute *kc, const st_plan *plan, int64_t batch,
                  an_net *net, double gpu_memory_bytes, hs_estimate *est, an_terms *terms,
                  char *err);

/* an_estimate_terms with the ranks where `placement` puts them on the platform (placement.h):
 * what `analytic` and `compare` report. */
int an_estimate_on(const wl_workload *wl, const kt_compute *kc, const plat_platform *plat,
                   const st_strategy *st, int64_t batch, pl_kind placement, hs_estimate *est,
                   an_terms *terms, char *err);

#endif
