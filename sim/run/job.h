/* job.h: one training job as the user describes it (-w -l -s -g -b -S, or a --job spec),
 * loaded and checked in the order a user would fix it: the workload and its layer file, then
 * (with the platform loaded) the strategy against the platform, the workload and the batch.
 * The command line and the shared fabric load their jobs through here, so both say the same
 * thing about the same mistake. */
#ifndef JOB_H
#define JOB_H

#include <stdbool.h>
#include <stdint.h>

#include "compute.h"
#include "hs_error.h"
#include "platform.h"
#include "strategy.h"
#include "workload.h"

/* Where kernel times come from (--compute). */
typedef enum {
    JOB_COMPUTE_DEFAULT = 0, /* the model wherever it can time the run (job.c), else the
                              * measured times where the workload was measured on the
                              * platform's GPU, else an input error naming --compute */
    JOB_COMPUTE_MEASURED,    /* the measured per-sample times, whatever the GPU */
    JOB_COMPUTE_MODEL,       /* the compute model (compute.h, kt_compute), anchored on the
                              * workload's measurement where it has one */
    JOB_COMPUTE_KERNELS      /* the compute model's kernels alone, a measurement ignored */
} job_compute;

/* A choice between a mechanism and ParaDL's assumption, or not said (the strategy's default). */
enum { JOB_ON = 1, JOB_OFF = 2 };

/* What the user typed. */
typedef struct {
    const char *workload;  /* -w: a path or a short name */
    const char *layers;    /* --layers: a ParaDL layer file, or NULL */
    const char *strategy;  /* -s */
    int gpus;              /* -g */
    int64_t batch;         /* -b: global mini-batch */
    int micro_batches;     /* --micro-batches: pipeline S, 0 = the default */
    co_algo allreduce;     /* --allreduce: the gradient allreduce's algorithm (CO_RING) */
    bool overlap;          /* --overlap: gradients in buckets behind the backward */
    job_compute compute;   /* --compute */
    int precision;         /* --precision: pr_precision (0: fp32) */
    int filter_rs;         /* --filter-backward: JOB_ON reduce-scatter, JOB_OFF allreduce,
                            * 0 not said (the strategy's default, st_parse) */
    int halo_chain;        /* --halo: JOB_ON chain, JOB_OFF sendrecv, 0 not said */
} job_spec;

/* What it means. */
typedef struct {
    wl_workload wl;        /* the workload, layer file applied */
    bool wl_loaded;        /* wl must be freed */
    st_strategy st;        /* the strategy, checked */
    st_plan plan;          /* -s FILE.xml: the per-layer plan st points to */
    bool plan_loaded;      /* plan must be freed */
    int64_t batch;         /* B */
    kt_compute compute;    /* --compute model: what wl.compute points to */
} job;

/* Load the workload and apply the layer file (j is zeroed first). */
int job_load_workload(const job_spec *spec, job *j, char *err);

/* Parse the strategy for the platform's GPUs and check it against the workload and batch:
 * HS_EINPUT naming -g when the platform has too few GPUs, else st_parse's and st_check's. A
 * strategy that names a file (st_is_file) is read as a per-layer plan (st_plan_load), which
 * carries its own schedule, so --micro-batches is refused with it, and its gradients are
 * rings, so --allreduce other than ring is refused with it too. Kernel times: --compute
 * (job_compute); model sets j->wl.compute, for the built-in layer-wise strategies only. */
int job_load_strategy(const job_spec *spec, const plat_platform *plat, job *j, char *err);

/* A workload measured on another GPU than the platform's needs its compute said: HS_EINPUT
 * naming --compute unless `compute` says it (or the GPUs compute alike, or the workload has
 * no device: a ParaDL file). */
int job_check_device(const wl_workload *wl, const plat_platform *plat, job_compute compute,
                     char *err);

/* Kernel times for a command that prices many strategies of wl (suggest, strategy --search):
 * the compute model where asked or by default where it applies (both GPUs in the device
 * table), wl->compute then pointing to kc (which must outlive its use); else the measured
 * times, with job_check_device's rule. HS_EINPUT as job_check_device and kt_compute_init. */
int job_compute_for_pricing(wl_workload *wl, const plat_platform *plat, job_compute compute,
                            kt_compute *kc, char *err);

void job_free(job *j);

#endif
