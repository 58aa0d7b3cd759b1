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
    /* Nothing times such a workload yet: running it would report zero compute. */
    if (j->wl.calibration == WL_CAL_NONE)
        return hs_fail(err, HS_EINPUT, "%s: the workload has no compute time (calibration "
                       "method=\"none\", or a ParaDL file without times): give it a measured "
                       "per-sample time (sample_time_s; import.py --sample-time-s)", j->wl.path);
    if (spec->layers)
        status = wl_apply_layer_file(&j->wl, spec->layers, err);
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
                           "allreduces are rings; the other algorithms are for the built-in "
                           "strategies", co_algo_name(spec->allreduce));
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
    j->st.allreduce = spec->allreduce;
    j->st.overlap = spec->overlap;
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
