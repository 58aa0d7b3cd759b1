/* job.c: a job's inputs loaded and checked (job.h). */
#include "job.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "device.h"

int job_load_workload(const js_settings *spec, job *j, char *err)
{
    memset(j, 0, sizeof *j);
    int status = wl_load(spec->workload, &j->wl, err);
    if (status != HS_OK)
        return status;
    j->wl_loaded = true;
    /* Only the model times such a workload: measured, it would report zero compute. */
    if (j->wl.calibration == WL_CAL_NONE && spec->compute == JS_COMPUTE_MEASURED)
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

int job_check_device(const wl_workload *wl, const plat_platform *plat, js_compute compute,
                     char *err)
{
    const char *gpu = plat_device(plat);
    if (compute == JS_COMPUTE_DEFAULT && wl->calibration != WL_CAL_NONE && gpu[0] &&
        strcmp(wl->device, "unspecified") != 0 && !kt_same_compute(wl->device, gpu))
        return hs_fail(err, HS_EINPUT, "%s was measured on %s, and %s has %s: say how to time "
                       "its kernels, --compute model (the compute model on this GPU) or "
                       "--compute measured (the %s times as they are)", wl->name, wl->device,
                       plat->name, gpu, wl->device);
    return HS_OK;
}

/* Whether the kernel model can time wl on the platform's GPU by default: that GPU is in the
 * device table (the default ignores a measurement, so the GPU it was made on does not
 * matter; --compute model, anchoring on it, checks that GPU itself). */
static bool job_model_applies(const wl_workload *wl, const char *gpu)
{
    (void)wl;
    return dv_find(gpu) != NULL;
}

/* The --compute a run takes: as said, else its runtime's `compute` (paradl: ParaDL's measured
 * times), else the default. */
static js_compute job_compute_of(js_compute said, const rt_runtime *rt)
{
    static const js_compute of_runtime[] = {
        [RT_COMPUTE_UNSAID] = JS_COMPUTE_DEFAULT, [RT_COMPUTE_MEASURED] = JS_COMPUTE_MEASURED,
        [RT_COMPUTE_MODEL] = JS_COMPUTE_MODEL, [RT_COMPUTE_KERNELS] = JS_COMPUTE_KERNELS};
    return said == JS_COMPUTE_DEFAULT && rt ? of_runtime[rt->compute] : said;
}

/* --precision other than fp32 needs the compute model. */
static int job_check_precision(const js_settings *spec, const job *j, bool model, char *err)
{
    if (spec->precision == PR_FP32 || model)
        return HS_OK;
    return hs_fail(err, HS_EINPUT, "--precision %s: %s's measured times are fp32's: time the "
                   "kernels with --compute model", pr_name(spec->precision), j->wl.name);
}

/* What each loader worker keeps of its rate beside the loaders of the other GPUs on its node
 * (rt_loader_host_share): the node's CPUs as the generated platform says them (--cpu-cores,
 * --cpu-threads; a hand-written file says none), the GPUs busy on its busiest node
 * (gpus_on_node, a fabric run's placement; 0: the job's GPUs filling nodes). */
static double loader_share(const plat_platform *plat, const rt_runtime *rt,
                           const kt_runtime *kr, int gpus, int gpus_on_node)
{
    if (!plat->gen || !rt)
        return 1.0;
    int on_node = gpus_on_node > 0                ? gpus_on_node
                  : gpus < plat->gpus_per_node ? gpus
                                               : plat->gpus_per_node;
    return rt_loader_host_share(rt, kr->loader_workers, on_node, plat->gen->cpu_cores,
                                plat->gen->cpu_threads);
}

/* --compute (job_compute_of): the model where asked, by default its kernels alone wherever it
 * can time the run (job_model_applies: every strategy, a pipeline's stages too), since it
 * times the kernels one GPU really runs (a split layer, a replicated one, a micro-batch); the
 * measured times, scaled, where asked or where the model cannot run; a workload measured on another GPU than the
 * platform's, with the model out of reach, needs one said. */
static int job_compute_setup(const js_settings *spec, const plat_platform *plat,
                             const rt_runtime *rt, job *j, char *err)
{
    const wl_workload *wl = &j->wl;
    const char *gpu = plat_device(plat);
    js_compute compute = job_compute_of(spec->compute, rt);
    bool model = compute == JS_COMPUTE_MODEL || compute == JS_COMPUTE_KERNELS ||
                 (compute == JS_COMPUTE_DEFAULT && job_model_applies(wl, gpu));
    int status = model ? HS_OK : job_check_device(wl, plat, compute, err);
    if (status != HS_OK)
        return status;
    if (!model && wl->calibration == WL_CAL_NONE && compute == JS_COMPUTE_MEASURED)
        return hs_fail(err, HS_EINPUT, "%s: the workload has no compute time (calibration "
                       "method=\"none\", or a ParaDL file without times), and %s%s%s asks "
                       "the measured times: time its kernels with --compute kernels",
                       wl->path, spec->compute ? "--compute measured" : "--runtime ",
                       spec->compute ? "" : spec->runtime, spec->compute ? "" : "'s compute");
    if (!model && wl->calibration == WL_CAL_NONE)
        return hs_fail(err, HS_EINPUT, "%s: the workload has no compute time (calibration "
                       "method=\"none\", or a ParaDL file without times), and %s cannot be "
                       "timed by the compute model here (the platform's GPU is not in the "
                       "device table): give it a measured per-sample time (sample_time_s; "
                       "import.py --sample-time-s)", wl->path, st_name(&j->st));
    if (!model && spec->optimizer_every > 0)
        return hs_fail(err, HS_EINPUT, "--optimizer-every %d: spaces out the compute model's "
                       "weight updates, and this run takes the measured times: time the "
                       "kernels with --compute model", spec->optimizer_every);
    if (!model && spec->loader_workers > 0)
        return hs_fail(err, HS_EINPUT, "--loader-workers %d: the input pipeline is a runtime "
                       "term of the compute model, and this run takes the measured times: "
                       "time the kernels with --compute model", spec->loader_workers);
    if ((status = job_check_precision(spec, j, model, err)) != HS_OK || !model)
        return status;
    kt_options opt = kt_options_default();
    opt.anchor = compute == JS_COMPUTE_MODEL;
    opt.precision = (pr_precision)spec->precision;
    if (rt)
        opt.runtime = rt->kernels;
    opt.runtime.optimizer_every = spec->optimizer_every;
    if (spec->loader_workers > 0 && !(opt.runtime.loader_samples_per_s > 0))
        return hs_fail(err, HS_EINPUT, "--loader-workers %d: the runtime says no worker's rate "
                       "(loader_samples_per_s): give a --runtime that does (pytorch-ddp)",
                       spec->loader_workers);
    if (spec->loader_workers > 0)
        opt.runtime.loader_workers = spec->loader_workers;
    double placed = loader_share(plat, rt, &opt.runtime, spec->gpus, j->gpus_on_node);
    double alone = loader_share(plat, rt, &opt.runtime, spec->gpus, j->own_gpus_on_node);
    j->input_alone_scale = placed / alone; /* the input time goes as 1 / the rate */
    opt.runtime.loader_samples_per_s *= placed;
    status = kt_compute_init_with(&j->compute, wl, gpu, &opt, err);
    if (status == HS_OK)
        j->kc = &j->compute;
    return status;
}

/* What the runtime says and the flags do not (job.h): the flags said are applied after. */
static void job_apply_runtime(const js_settings *spec, const rt_runtime *rt, job *j)
{
    co_algo said = j->st.allreduce;
    rt_apply_strategy(rt, &j->st);
    if (js_given(spec, "allreduce"))
        j->st.allreduce = said;
    if (js_given(spec, "overlap")) /* --overlap=off holds against the runtime's too */
        j->st.overlap = spec->overlap;
}

/* The keys a strategy file may set, ", " between, into buf. */
static const char *file_keys(char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int k = 0; k < js_n_keys && used < len; k++)
        if (!js_keys[k].job_own)
            used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? ", " : "",
                                     js_keys[k].name);
    return buf;
}

/* The strategy file's <setting>s into *s, each read by the table's parser, under the command
 * line's: a key given there wins over the file's value. */
static int job_file_settings(const st_plan *plan, js_settings *s, char *err)
{
    js_settings file;
    memset(&file, 0, sizeof file);
    for (int i = 0; i < plan->n_settings; i++) {
        const st_setting *set = &plan->settings[i];
        int k = js_find(set->key);
        char where[1200], keys[512];
        snprintf(where, sizeof where, "%s:%d: setting %s", plan->path, set->line, set->key);
        if (k < 0 || js_keys[k].job_own)
            return hs_fail(err, HS_EINPUT, "%s: not a setting a strategy file carries (it "
                           "carries: %s)", where, file_keys(keys, sizeof keys));
        if (js_keys[k].type != JS_SWITCH && !set->value[0]) /* a switch: "", on or off */
            return hs_fail(err, HS_EINPUT, "%s: needs a value", where);
        int status = js_set(&file, k, set->value, where, err);
        if (status != HS_OK)
            return status;
    }
    for (int k = 0; k < js_n_keys; k++)
        if (!(s->given & (1u << k)))
            js_take(s, &file, k);
    return HS_OK;
}

int job_plan_settings(const js_settings *s, st_plan *plan, char *err)
{
    plan->n_settings = 0;
    for (int k = 0; k < js_n_keys; k++) {
        char buf[24];
        const char *v = js_keys[k].job_own ? NULL : js_value_text(s, k, buf);
        int status = v ? st_plan_add_setting(plan, js_keys[k].name, v, err) : HS_OK;
        if (status != HS_OK)
            return status;
    }
    return HS_OK;
}

/* What job_runs_loader decides, on the settings in force. */
static bool settings_run_loader(const js_settings *spec, const plat_platform *plat,
                                const wl_workload *wl)
{
    rt_runtime rt;
    char ignored[HS_ERR_LEN]; /* a runtime that does not load: job_load_strategy says so */
    if (!spec->runtime || rt_load(spec->runtime, &rt, ignored) != HS_OK)
        return false;
    js_compute compute = job_compute_of(spec->compute, &rt);
    bool model = compute == JS_COMPUTE_MODEL || compute == JS_COMPUTE_KERNELS ||
                 (compute == JS_COMPUTE_DEFAULT && job_model_applies(wl, plat_device(plat)));
    double workers = spec->loader_workers > 0 ? spec->loader_workers
                                               : rt.kernels.loader_workers;
    return model && rt.kernels.loader_samples_per_s > 0 && workers > 0;
}

bool job_runs_loader(const js_settings *given, const plat_platform *plat,
                     const wl_workload *wl)
{
    if (!given->strategy || !st_is_file(given->strategy))
        return settings_run_loader(given, plat, wl);
    /* a strategy file's <setting>s may say the runtime, compute or workers (job_load_plan) */
    js_settings spec = *given;
    st_plan *plan = calloc(1, sizeof *plan);
    char ignored[HS_ERR_LEN]; /* a file that does not load: job_load_strategy says so */
    bool runs = plan && st_plan_load(spec.strategy, wl, plan, ignored) == HS_OK &&
                job_file_settings(plan, &spec, ignored) == HS_OK &&
                settings_run_loader(&spec, plat, wl);
    if (plan)
        st_plan_free(plan);
    free(plan);
    return runs;
}

/* A strategy file into j->plan, its settings into *s (job_file_settings); --micro-batches
 * replaces the file's schedule's count. */
static int job_load_plan(js_settings *s, job *j, char *err)
{
    int status = st_plan_load(s->strategy, &j->wl, &j->plan, err);
    if (status != HS_OK)
        return status;
    j->plan_loaded = true;
    if (s->micro_batches > 0 && j->plan.micro_batches == 0)
        return hs_fail(err, HS_EINPUT, "--micro-batches %d: the strategy file %s has no "
                       "schedule (<schedule micro_batches=...>) whose count it would replace",
                       s->micro_batches, s->strategy);
    if (s->micro_batches > 0)
        j->plan.micro_batches = s->micro_batches;
    if ((status = job_file_settings(&j->plan, s, err)) != HS_OK)
        return status;
    j->plan.allreduce = (co_algo)s->allreduce;
    st_from_plan(&j->plan, &j->st);
    j->st.p = s->gpus; /* -g: st_check holds it against the file's gpus= */
    return HS_OK;
}

int job_load_strategy(const js_settings *given, const plat_platform *plat, job *j, char *err)
{
    if (given->gpus > plat->n_gpus)
        return hs_fail(err, HS_EINPUT, "-g %d: platform %s has only %d GPUs", given->gpus,
                       plat->name, plat->n_gpus);
    int status;
    j->settings = *given;
    const js_settings *spec = &j->settings;
    if (spec->strategy && st_is_file(spec->strategy)) {
        if ((status = job_load_plan(&j->settings, j, err)) != HS_OK)
            return status;
    } else {
        status = st_parse(spec->strategy, spec->gpus, plat->gpus_per_node, spec->micro_batches,
                          &j->st, err);
        if (status != HS_OK)
            return status;
    }
    rt_runtime rt_file, *rt = spec->runtime ? &rt_file : NULL;
    if (rt && (status = rt_load(spec->runtime, rt, err)) != HS_OK)
        return status;
    status = job_compute_setup(spec, plat, rt, j, err);
    if (status != HS_OK)
        return status;
    j->st.allreduce = (co_algo)spec->allreduce;
    j->st.overlap = spec->overlap;
    unsigned bit = st_split_bit(j->st.kind);
    if (rt)
        job_apply_runtime(spec, rt, j);
    if (spec->halo_chain && bit != WL_SPLIT_SPATIAL && !j->plan_loaded)
        return hs_fail(err, HS_EINPUT, "--halo: for spatial, data+spatial and strategy files, "
                       "not %s", st_name(&j->st));
    if (spec->filter_rs && bit != WL_SPLIT_FILTER && !j->plan_loaded)
        return hs_fail(err, HS_EINPUT, "--filter-backward: for filter, data+filter and "
                       "strategy files, not %s", st_name(&j->st));
    if (spec->filter_rs)
        j->st.filter_rs = spec->filter_rs == JS_ON;
    if (spec->halo_chain)
        j->st.halo_chain = spec->halo_chain == JS_ON;
    if (j->plan_loaded) { /* the expansion and the closed form read the plan's (an_plan_model) */
        j->plan.allreduce = j->st.allreduce, j->plan.train = j->st.train;
        j->plan.halo_sendrecv = !j->st.halo_chain;
        j->plan.filter_allreduce = !j->st.filter_rs;
        j->plan.cycle_time_s = j->st.overlap ? j->st.cycle_time_s : 0.0; /* as the buckets' */
    }
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

int job_compute_for_pricing(const wl_workload *wl, const plat_platform *plat,
                            const js_settings *job, kt_compute *kc, const kt_compute **model,
                            char *err)
{
    rt_runtime rt;
    int rc = job->runtime ? rt_load(job->runtime, &rt, err) : HS_OK;
    if (rc != HS_OK)
        return rc;
    const char *gpu = plat_device(plat);
    js_compute compute = job_compute_of(job->compute, job->runtime ? &rt : NULL);
    *model = NULL;
    if (compute == JS_COMPUTE_MEASURED ||
        (compute == JS_COMPUTE_DEFAULT && !job_model_applies(wl, gpu))) {
        if (job->precision != PR_FP32)
            return hs_fail(err, HS_EINPUT, "--precision %s: %s's measured times are fp32's: "
                           "time the kernels with --compute model", pr_name(job->precision),
                           wl->name);
        if (wl->calibration == WL_CAL_NONE) /* every strategy would be priced at 0 compute */
            return hs_fail(err, HS_EINPUT, "%s: the workload has no compute time (calibration "
                           "method=\"none\"), and %s: no strategy can be priced with its "
                           "compute (time its kernels with the model on a GPU of the device "
                           "table, or give it a measured per-sample time)", wl->path,
                           compute == JS_COMPUTE_MEASURED
                               ? "the measured times are asked (--compute measured, or the "
                                 "runtime's compute)"
                               : "the platform's GPU is not in the device table");
        return job_check_device(wl, plat, compute, err);
    }
    kt_options opt = kt_options_default();
    opt.anchor = compute == JS_COMPUTE_MODEL;
    opt.precision = (pr_precision)job->precision;
    if (job->runtime)
        opt.runtime = rt.kernels;
    opt.runtime.optimizer_every = job->optimizer_every;
    if (job->loader_workers > 0)
        opt.runtime.loader_workers = job->loader_workers;
    opt.runtime.loader_samples_per_s *= loader_share(plat, job->runtime ? &rt : NULL,
                                                     &opt.runtime, job->gpus, 0);
    int status = kt_compute_init_with(kc, wl, gpu, &opt, err);
    if (status == HS_OK)
        *model = kc;
    return status;
}
