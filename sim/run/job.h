/* job.h: one training job as the user describes it (its settings, js_settings: flags, a
 * --job spec), loaded and checked in the order a user would fix it: the workload and its
 * layer file, then (with the platform loaded) the strategy against the platform, the
 * workload and the batch. The command line and the shared fabric load their jobs through
 * here, so both say the same thing about the same mistake. */
#ifndef JOB_H
#define JOB_H

#include <stdbool.h>
#include <stdint.h>

#include "compute.h"
#include "hs_error.h"
#include "job_keys.h"
#include "platform.h"
#include "runtime.h"
#include "strategy.h"
#include "workload.h"

/* What it means. */
typedef struct {
    wl_workload wl;        /* the workload, layer file applied */
    bool wl_loaded;        /* wl must be freed */
    st_strategy st;        /* the strategy, checked */
    st_plan plan;          /* -s FILE.xml: the per-layer plan st points to */
    bool plan_loaded;      /* plan must be freed */
    int64_t batch;         /* B */
    kt_compute compute;    /* --compute model: the model's state, what kc points to */
    const kt_compute *kc;  /* the kernel-time model the derivations take: &compute under
                            * --compute model, NULL for the measured times */
    js_settings settings;  /* the settings it runs with: the command line's, and a strategy
                            * file's <setting>s for the keys the command line left unsaid */
    int gpus_on_node;      /* the most GPUs running an input loader on a node it uses, every
                            * job's (a fabric run's placement, set before job_load_strategy);
                            * 0: its own GPUs filling nodes. Their loaders share that node's
                            * CPU cores */
    int own_gpus_on_node;  /* the most of its own GPUs on one node (set with gpus_on_node) */
    double input_alone_scale; /* its input pipeline's time alone (own_gpus_on_node) over as
                               * placed (gpus_on_node): a --baseline's; 0: the same */
} job;

/* Load the workload and apply the layer file (j is zeroed first). */
int job_load_workload(const js_settings *spec, job *j, char *err);

/* Parse the strategy for the platform's GPUs and check it against the workload and batch.
 * A runtime (spec->runtime) gives what the flags do not say: the allreduce (built-in
 * strategies), the overlap and its bucket size, the gradients' bytes, the halo (spatial) and
 * the filter backward (filter), and what the framework adds to the kernels (compute.h
 * kt_runtime); HS_EINPUT naming --runtime for a runtime that does not load. Then:
 * HS_EINPUT naming -g when the platform has too few GPUs, else st_parse's and st_check's. A
 * strategy that names a file (st_is_file) is read as a per-layer plan (st_plan_load); its
 * <setting>s (allreduce, overlap, precision, ...) apply where the command line does not give
 * the key (a flag wins over the file), each read by the table's parser with the file's line in
 * messages; --micro-batches replaces its schedule's count. j->settings gets the result.
 * Kernel times: --compute (js_compute); model sets j->kc. */
int job_load_strategy(const js_settings *spec, const plat_platform *plat, job *j, char *err);

/* Whether the job runs an input loader whose workers share its nodes' CPU cores
 * (job_load_strategy prices it; rt_loader_host_share): on its spec with a strategy file's
 * <setting>s under it, its runtime has a worker rate (loader_samples_per_s) and workers (its
 * own or loader-workers=), and its kernels are the compute model's (the loader is a term of
 * the model). False for a runtime or strategy file that does not load (job_load_strategy
 * then says why). */
bool job_runs_loader(const js_settings *spec, const plat_platform *plat,
                     const wl_workload *wl);

/* The plan's <setting>s from s: every key s was given but the job's own (js_key.job_own), as
 * text, so that the file runs as the job did (st_plan_write writes them). */
int job_plan_settings(const js_settings *s, st_plan *plan, char *err);

/* A workload measured on another GPU than the platform's needs its compute said: HS_EINPUT
 * naming --compute unless `compute` says it (or the GPUs compute alike, or the workload has
 * no device: a ParaDL file). */
int job_check_device(const wl_workload *wl, const plat_platform *plat, js_compute compute,
                     char *err);

/* Kernel times for a command that prices many strategies of wl (suggest, strategy --search):
 * the compute model where asked, or its kernels alone by default where it applies (the
 * platform's GPU in the device table), *model then pointing to kc (which must outlive its
 * use); else the measured times (*model NULL), with job_check_device's rule, never for a
 * workload without measured times (every strategy would cost no compute). A runtime
 * (job->runtime) gives its kernel terms
 * (its gradient bytes and optimizer go with each strategy priced: rt_apply_strategy). HS_EINPUT
 * as job_check_device and kt_compute_init, and naming --runtime for a runtime that does not
 * load. */
int job_compute_for_pricing(const wl_workload *wl, const plat_platform *plat,
                            const js_settings *job, kt_compute *kc, const kt_compute **model,
                            char *err);

void job_free(job *j);

#endif
