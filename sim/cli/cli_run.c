/* cli_run.c: one run of analytic, simulate or compare (cli_int.h): load the job, call the
 * derivation(s), print.
 *
 * Inputs are loaded and checked in the order a user would fix them: the --links path, the
 * workload (and layer file), the platform, the strategy against the platform, the strategy
 * against the workload and batch. The first problem ends the run with HS_EINPUT. The platform
 * is opened without SimGrid; simulate and compare load it into SimGrid (cli_sim.c), and so does
 * analytic on a hand-written platform, whose routes only SimGrid knows. */
#include "cli_int.h"

#include "precision.h"

#include <string.h>

#include "analytic.h"
#include "hs_out.h"
#include "links.h"

static int load_inputs(const cli_options *o, cli_inputs *in, char *err)
{
    int status = o->links_path ? lk_csv_check(o->links_path, err) : HS_OK;
    if (status == HS_OK && o->sim.trace_path) /* refused before loading; named if interrupted */
        status = hs_out_check("--trace", o->sim.trace_path, err);
    if (status == HS_OK)
        status = job_load_workload(&o->job, &in->job, err);
    if (status == HS_OK) {
        status = plat_open(o->platform, &in->plat, err);
        in->plat_loaded = status == HS_OK;
    }
    return status == HS_OK ? job_load_strategy(&o->job, &in->plat, &in->job, err) : status;
}

static void free_inputs(cli_inputs *in)
{
    job_free(&in->job);
    if (in->plat_loaded)
        plat_free(&in->plat);
}

void cli_print_one(const cli_options *o, const rp_run *run, const hs_estimate *est)
{
    if (o->output == OUT_JSON) {
        rp_print_json(stdout, run, est);
        fputc('\n', stdout);
    } else if (o->output == OUT_ROW) {
        if (o->row_header)
            rp_print_row_header(stdout);
        rp_print_row(stdout, run, est);
    } else {
        rp_print_table(stdout, run, est);
    }
}

static int run_analytic(const cli_options *o, cli_inputs *in, const cli_sim *sim, rp_run *run,
                        char *err)
{
    hs_estimate est;
    const job *j = &in->job;
    int status = HS_OK;
    /* --overlap said; a runtime's overlap leaves the analytic model's pipeline as it is
     * (blocking) */
    if (o->job.overlap && j->st.kind == ST_PIPELINE)
        return hs_fail(err, HS_EINPUT, "--overlap: the analytic model's overlap order is the "
                       "layer-wise strategies' (data, filter, channel, spatial and their "
                       "hybrids); simulate or compare shows how %s overlaps", st_name(&j->st));
    if (!plat_routes_known(&in->plat))
        status = sim ? sim->load(&in->plat, err) : cli_exec_full(err);
    if (status == HS_OK)
        status = an_estimate_on(&j->wl, j->kc, &in->plat, &j->st, j->batch, o->sim.placement,
                                &est, NULL, err);
    if (status == HS_OK)
        status = hs_estimate_check(&est, "the analytic model", err);
    if (status == HS_OK)
        cli_print_one(o, run, &est);
    return status;
}

int cli_run_single(const cli_options *o, const cli_sim *sim, char *err)
{
    cli_inputs in;
    memset(&in, 0, sizeof in);
    if (o->command != CMD_ANALYTIC && !sim)
        return cli_exec_full(err);
    int status = load_inputs(o, &in, err);
    if (status == HS_OK) {
        rp_run run = {.mode = cli_command_name(o->command),
                      .workload = in.job.wl.name,
                      .platform = in.plat.name,
                      .strategy = in.job.st,
                      .batch = in.job.batch,
                      .samples = in.job.wl.samples,
                      .gpu_memory_bytes = in.plat.gpu_memory_bytes,
                      .layers_top = o->layers_top,
                      .links_job = -1,
                      .compute = in.job.kc ? kt_compute_name(in.job.kc) : "measured",
                      .precision = kt_precision(in.job.kc) != PR_FP32
                                       ? pr_name(kt_precision(in.job.kc)) : NULL,
                      .runtime = in.job.settings.runtime, /* a file's <setting> too */
                      .device = in.job.kc ? in.job.compute.device.device->name
                                          : in.job.wl.device};
        if (o->command == CMD_ANALYTIC)
            status = run_analytic(o, &in, sim, &run, err);
        else
            status = sim->run(o, &in, &run, err);
    }
    free_inputs(&in);
    return status;
}
