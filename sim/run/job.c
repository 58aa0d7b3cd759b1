/* job.c: a job's inputs loaded and checked (job.h). */
#include "job.h"

#include <string.h>

int job_load_workload(const job_spec *spec, job *j, char *err)
{
    memset(j, 0, sizeof *j);
    int status = wl_load(spec->workload, &j->wl, err);
    if (status != HS_OK)
        return status;
    j->wl_loaded = true;
    /* Only the model times such a workload: measured, it would report zero compute. */
    if (j->wl.calibration == WL_CAL_NONE && spec->compute != JOB_COMPUTE_MODEL)
        return hs_fail(err, HS_EINPUT, "%s: the workload has no compute time (calibration "
                       "method=\"none\", or a ParaDL file without times): time it with "
                       "--compute model, or give it a measured per-sample time (sample_time_s; "
                       "import.py --sample-time-s)", j->wl.path);
    if (spec->layers)
        status = wl_apply_layer_file(&j->wl, spec->layers, err);
    return status;
}

/* The platform's GPU, as the device table names it, or its model label. */
static const char *plat_device(const plat_platform *plat)
{
    return plat->gpu_device[0] ? plat->gpu_device : plat->gpu_model;
}

int job_check_device(const wl_workload *wl, const plat_platform *plat, job_compute compute,
                     char *err)
{
    const char *gpu = plat_device(plat);
    if (compute == JOB_COMPUTE_DEFAULT && wl->calibration != WL_CAL_NONE && gpu[0] &&
        strcmp(wl->device, "unspecified") != 0 && !kt_same_compute(wl->device, gpu))
        return hs_fail(err, HS_EINPUT, "%s was measured on %s, and %s has %s: say how to time "
                       "its kernels, --compute model (the compute model on this GPU) or "
                       "--compute measured (the %s times as they are)", wl->name, wl->device,
                       plat->name, gpu, wl->device);
    return HS_OK;
}

/* --compute: the measured times where they were measured on this GPU (or the user says so),
 * the model where asked; a workload measured on another GPU needs one said. */
static int job_compute_setup(const job_spec *spec, const plat_platform *plat, job *j,
                             char *err)
{
    const wl_workload *wl = &j->wl;
    const char *gpu = plat_device(plat);
    int status = job_check_device(wl, plat, spec->compute, err);
    if (status != HS_OK)
        return status;
    if (spec->precision != PR_FP32 && spec->compute != JOB_COMPUTE_MODEL)
        return hs_fail(err, HS_EINPUT, "--precision %s: %s's measured times are fp32's: time "
                       "the kernels with --compute model", pr_name(spec->precision), wl->name);
    if (spec->compute != JOB_COMPUTE_MODEL)
        return HS_OK;
    if (st_is_pipelined(&j->st) || (j->st.kind == ST_LAYERWISE && spec->precision != PR_FP32))
        return hs_fail(err, HS_EINPUT, "--compute model%s: for the layer-wise strategies (the "
                       "built-in ones%s); %s still uses the measured times in fp32",
                       spec->precision ? " and --precision" : "",
                       spec->precision ? "" : " and strategy files without a schedule",
                       st_name(&j->st));
    j->wl.precision = spec->precision;
    status = kt_compute_init(&j->compute, wl, gpu, err);
    if (status == HS_OK)
        j->wl.compute = &j->compute;
    return status;
}

int job_load_strategy(const job_spec *spec, const plat_platform *plat, job *j, char *err)
{
    if (spec->gpus > plat->n_gpus)
        return hs_fail(err, HS_EINPUT, "-g %d: platform %s has only %d GPUs", spec->gpus,
                       plat->name, plat->n_gpus);
    int status;
    if (spec->strategy && st_is_file(spec->strategy)) {
        if (spec->micro_batches > 0)
            return hs_fail(err, HS_EINPUT, "--micro-batches %d: the strategy file %s carries its "
                           "own schedule (<schedule micro_batches=...>)", spec->micro_batches,
                           spec->strategy);
        if (spec->allreduce != CO_RING)
            return hs_fail(err, HS_EINPUT, "--allreduce %s: a strategy file's gradient "
                           "allreduces are ParaDL's ring; the other algorithms are for the "
                           "built-in strategies", co_algo_name(spec->allreduce));
        status = st_plan_load(spec->strategy, &j->wl, &j->plan, err);
        if (status != HS_OK)
            return status;
        j->plan_loaded = true;
        st_from_plan(&j->plan, &j->st);
        j->st.p = spec->gpus; /* -g: st_check holds it against the file's gpus= */
    } else {
        status = st_parse(spec->strategy, spec->gpus, plat->gpus_per_node, spec->micro_batches,
                          &j->st, err);
        if (status != HS_OK)
            return status;
    }
    status = job_compute_setup(spec, plat, j, err);
    if (status != HS_OK)
        return status;
    j->st.allreduce = spec->allreduce;
    j->st.overlap = spec->overlap;
    j->st.filter_rs = spec->filter_rs;
    j->st.halo_chain = spec->halo_chain;
    if (spec->halo_chain && j->st.kind != ST_SPATIAL && j->st.kind != ST_DATA_SPATIAL)
        return hs_fail(err, HS_EINPUT, "--halo: for spatial and data+spatial, not %s",
                       st_name(&j->st));
    if (spec->filter_rs && j->st.kind != ST_FILTER && j->st.kind != ST_DATA_FILTER)
        return hs_fail(err, HS_EINPUT, "--filter-backward: for filter and data+filter, not %s",
                       st_name(&j->st));
    j->batch = spec->batch;
    return st_check(&j->st, &j->wl, spec->batch, err);
}

void job_free(job *j)
{
    if (j->plan_loaded)
        st_plan_free(&j->plan);
    j->plan_loaded = false;
    if (j->wl_loaded)
        wl_free(&j->wl);
    j->wl_loaded = false;
}
