/* plan.h: a per-layer strategy (a "plan"): every layer of a workload gets its own configuration.
 *
 * A configuration says how many ways a layer's work is split along each of its parallel
 * dimensions (the batch, the output channels or filters, the input channels, the output's height,
 * width and depth), how many ranks repeat the same work (replicas) and where its group of ranks
 * starts (base). The product of the factors is the group's size q; the group is the ranks
 * base .. base+q-1, and rank coordinates inside it are row-major with the batch slowest:
 *
 *   rank = base + ((((((i_b r + i_r) c + i_c) f + i_f) d + i_d) h + i_h) w + i_w)
 *
 * so data+filter P1xP2 is (batch P1, filter P2): rank g*P2 + k, data-parallel rings {k, P2+k, ..}
 * as the built-in strategies number them. Every published scheme (data, filter, channel, spatial,
 * the data+ hybrids, pipelines, OWT, SplitBrain, group hybrids, PaSE's strategies) is a table of
 * configurations; plan_xml.c reads and writes it as a strategy file (strategy.dtd), generate.c
 * writes the published schemes.
 *
 * The plan only says who holds what. What it costs is derived twice, independently: analytic/
 * prices configurations with closed forms, sim/expand expands them into messages from the data
 * layout. Both take the rank coordinates from here, so neither owns the vocabulary. */
#ifndef PLAN_H
#define PLAN_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "collective.h"
#include "hs_error.h"
#include "workload.h"

struct kt_compute; /* the job's kernel-time model (workloads/compute/compute.h) */

#define ST_PLAN_NAME_LEN 64
#define ST_MAX_SETTINGS 32   /* <setting>s in one strategy file */
#define ST_SETTING_LEN 64    /* a setting's key or value, with its NUL */

/* One layer's configuration. Weightless layers (pool, relu, bnorm, add, dropout, softmax, lrn,
 * concat) have one channel axis, split by `channel`; `filter` is for conv and fc only. */
typedef struct {
    int batch;      /* p_b: ways the mini-batch is split (data parallelism) */
    int filter;     /* p_f: ways the output channels (conv filters, fc outputs) are split */
    int channel;    /* p_c: ways the input channels are split (conv and fc then hold partial
                     * sums of their output, reduced over the p_c ranks) */
    int height;     /* p_h: ways the output height (wl_shape spatial[1]) is split */
    int width;      /* p_w: ways the output width (spatial[0]) is split */
    int depth;      /* p_d: ways the output depth (spatial[2], volumes) is split */
    int replicas;   /* r: ranks that repeat the same work (a layer run whole on every GPU of a
                     * group; ParaDL's layers its layer file leaves unmarked) */
    int base;       /* first rank of the layer's group */
    bool whole;     /* charged as an unsplit layer (compute, memory, no halo) although it keeps
                     * its neighbours' layout: ParaDL's convention for the unmarked layers
                     * inside a spatially split region (strategy file: charge="whole"); the
                     * compute model (--compute model) times the slab the GPU computes */
    int line;       /* the strategy file's line that set it (0: not from a file) */
} st_layer_config;

/* A rank's coordinates in its layer's group. */
typedef struct {
    int b, r, c, f, d, h, w;
} st_coords;

/* A job setting the file carries (<setting key="allreduce" value="hier"/>): a key of the job's
 * table (sim/run/job_keys.h), kept as text here and read by the table's own parser where the
 * job is put together (sim/run/job.c), so that every key of the table can be written. */
typedef struct {
    char key[ST_SETTING_LEN];        /* the key's long name ("allreduce"), as written */
    char value[ST_SETTING_LEN];      /* as written; "", on or off for a switch (overlap) */
    int line;                        /* the file's line (0: not from a file) */
} st_setting;

/* How a job trains beyond its split, as its runtime says (workloads/runtime, rt_apply_strategy);
 * zeroed: the job's precision's gradients and the workload's own optimizer. Read through
 * st_gradient_bytes and st_optimizer_states (strategy.h). */
typedef struct {
    double gradient_bytes;  /* bytes a weight-gradient element travels in (the runtime's
                             * gradient precision); 0: the job's precision's */
    bool optimizer_given;   /* the runtime names its optimizer: optimizer_states holds, not the
                             * workload's own (wl_workload.optimizer_states) */
    int optimizer_states;   /* values that optimizer keeps per weight (0 SGD, 1 momentum, 2 Adam) */
    bool autograd_memory;   /* activation memory as PyTorch's autograd keeps it, every layer
                             * (the runtime's activation_memory = autograd); false: ParaDL's
                             * |x| + |y| beside its gradient (footprint.h) */
    bool autocast_casts;    /* the runtime's autocast_weight_casts = on: in a precision whose
                             * weights are an FP32 master copy, each convolution's and fully
                             * connected layer's weights cast to 2 bytes in its forward and
                             * their gradient back in its backward (st_autocast_cast_s) */
} st_training;

typedef struct {
    char name[ST_PLAN_NAME_LEN];     /* what it is called in reports ("owt", "data+filter:8x4") */
    char workload[WL_NAME_LEN];      /* the workload it was written for (its name) */
    char path[1024];                 /* the file it was read from ("" if built in memory) */
    int gpus;                        /* the GPUs it runs on: -g must match */
    int n_layers;                    /* one configuration per workload layer, in its order */
    st_layer_config *layers;
    int micro_batches;               /* > 0: a GPipe schedule with this many micro-batches; the
                                      * stages are the runs of consecutive layers on one rank */
    bool reduce_replicas;            /* replicas' weight gradients are allreduced too, as a
                                      * framework's optimizer over the group does (ParaDL's
                                      * spatial strategies); otherwise only over the ranks that
                                      * saw different data */
    int line;                        /* the file's <strategy> line, for messages */
    st_setting settings[ST_MAX_SETTINGS]; /* the job settings it carries, in file order */
    int n_settings;                  /* how many of settings[] are used */
    co_algo allreduce;               /* the weight gradients' allreduces (CO_RING: ParaDL's),
                                      * from the job's settings (job.c) or the oracle's choice */
    bool halo_sendrecv;              /* halos sent and received at once (--halo sendrecv,
                                      * ParaDL's); false: in a chain, the default (job.c) */
    bool filter_allreduce;           /* a gather of filter blocks allreduced back (ParaDL's,
                                      * --filter-backward allreduce); false: reduce-scattered,
                                      * the default (job.c) */
    st_training train;               /* the job's runtime's gradients and optimizer, set with
                                      * allreduce (st_from_plan carries both to the strategy) */
    double cycle_time_s;             /* the job's runtime's background cycle when its overlap is
                                      * on (st_strategy.cycle_time_s, Horovod's): the first
                                      * gradient allreduce after the backward launches at its
                                      * next multiple; 0: at once (job.c, the oracle's rules) */
} st_plan;

/* A configuration with every factor 1 on rank 0. */
st_layer_config st_layer_default(void);

/* Ranks in the layer's group: the product of its factors. */
int st_group_size(const st_layer_config *c);

/* The position of rank (relative to the group's base) along each factor, and back. */
st_coords st_coords_of(const st_layer_config *c, int rank_in_group);
int st_rank_in_group(const st_layer_config *c, st_coords k);

/* Distance in ranks between neighbours along each coordinate (row-major, batch slowest). */
st_coords st_strides(const st_layer_config *c);

/* The product of the model splits (filter x channel x height x width x depth): how many ways the
 * layer's work per sample is cut (1 when whole). */
int st_model_ways(const st_layer_config *c);

/* The kernels one rank runs for layer l under c at global batch `batch`, in seconds: forward,
 * input gradient, weight gradient (0 without weights). Measured per-sample times scaled
 * linearly by the rank's samples and split (kc NULL), or with --compute model (kc) each at the
 * rank's real shape (plan_kernels.c). Errors are the compute model's (compute.h). */
int st_layer_kernels_s(const wl_workload *wl, const struct kt_compute *kc, int l,
                       const st_layer_config *c, double batch, double *fw_s, double *bx_s,
                       double *bw_s, char *err);

/* A deep copy of from into to (free with st_plan_free). */
int st_plan_copy(const st_plan *from, st_plan *to, char *err);

/* Whether two plans run the same: the same configurations, schedule, replicas' gradients and
 * gradient allreduce (names, settings and lines aside). */
bool st_plan_same(const st_plan *a, const st_plan *b);

/* Allocate n_layers configurations, all st_layer_default (free with st_plan_free). */
int st_plan_init(st_plan *plan, int n_layers, int gpus, char *err);
void st_plan_free(st_plan *plan);

/* Whether a layer's kind has weights (conv and fc), the dimension `filter` splits. */
bool st_has_filters(const wl_layer *l);

/* Check every configuration against the workload, the GPUs and the batch: factors at least 1,
 * the dimensions a layer type has, batch, filter and channel factors that divide their extents
 * (a layer reading the network's input may split its few input channels more ways than it has:
 * the oracle's channel strategy leaves the extra GPUs idle), spatial factors no larger than the
 * extents (slabs may differ by one), groups inside the -g GPUs, a schedule whose stages are
 * runs of consecutive layers on one rank each. Messages name the file and line (or the layer)
 * and what is wrong. */
int st_plan_check(const st_plan *plan, const wl_workload *wl, int gpus, int64_t batch,
                  char *err);

/* The stages of a plan with a schedule: first[s] is stage s's first layer, first[n] =
 * n_layers; *n_stages gets n (first has room for n_layers + 1). rank_of_stage (n entries,
 * may be NULL) gets each stage's rank. */
void st_plan_stages(const st_plan *plan, int *first, int *rank_of_stage, int *n_stages);

/* Read a strategy file (strategy.dtd, README "Strategy files") for the workload wl: validated
 * against the DTD, then every <layer ref> must name a layer of wl once, every layer must get a
 * configuration (from its <layer> or the <default>), and the numbers must parse. Checks against
 * -g and -b come later (st_plan_check). HS_EINPUT with "file:line: what is wrong"; on failure
 * *plan is empty. */
int st_plan_load(const char *path, const wl_workload *wl, st_plan *plan, char *err);

/* Write the plan as a strategy file, its settings first, every layer on its own line with the
 * attributes that are not their default; description (may be NULL) becomes the <description>.
 * Returns HS_OK, or
 * HS_EINTERNAL when writing fails. */
int st_plan_write(FILE *out, const st_plan *plan, const wl_workload *wl,
                  const char *description, char *err);

/* Append a setting to the plan (the writer's); HS_EINPUT when full or too long. */
int st_plan_add_setting(st_plan *plan, const char *key, const char *value, char *err);

/* Whether -s text names a strategy file rather than a built-in strategy: it ends in ".xml" or
 * contains a '/'. */
bool st_is_file(const char *text);

/* The model-parallel width of the plan (the largest r f c h w d of a layer) and how many groups
 * of that width the GPUs hold: the plan's p2 and p1 in reports (a schedule: 1 x stages). */
void st_plan_shape(const st_plan *plan, int *p1, int *p2);

#endif
