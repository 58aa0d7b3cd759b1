/* cli_run.c: one run of analytic, simulate or compare (cli_int.h): load the job, call the
 * derivation(s), print.
 *
 * Inputs are loaded and checked in the order a user would fix them: the --links path, the
 * workload (and layer file), the platform, the strategy against the platform, the strategy
 * against the workload and batch. The first problem ends the run with HS_EINPUT. */
#include "cli_int.h"

#include <string.h>

#include "sim.h"

/* The inputs of a run, loaded. */
typedef struct {
    job job;
    plat_platform plat;
    bool plat_loaded;
} cli_inputs;

static int load_inputs(const cli_options *o, cli_inputs *in, char *err)
{
    int status = o->links_path ? lk_csv_check(o->links_path, err) : HS_OK;
    if (status == HS_OK)
        status = job_load_workload(&o->job, &in->job, err);
    if (status == HS_OK) {
        status = plat_load(o->platform, &in->plat, err);
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

/* One estimate as a table, a row or JSON. */
static void print_one(const cli_options *o, const rp_run *run, const hs_estimate *est)
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

static int run_analytic(const cli_options *o, const cli_inputs *in, rp_run *run, char *err)
{
    hs_estimate est;
    const job *j = &in->job;
    int status = an_estimate_on(&j->wl, &in->plat, &j->st, j->batch, o->sim.placement, &est,
                                NULL, err);
    if (status == HS_OK)
        print_one(o, run, &est);
    return status;
}

/* simulate: --links writes the CSV and adds the summary to the report. */
static int run_simulate(const cli_options *o, const cli_inputs *in, rp_run *run, char *err)
{
    hs_estimate est;
    memset(&est, 0, sizeof est);
    cr_details details; /* the per-layer breakdown; one-line rows have no room for it */
    memset(&details, 0, sizeof details);
    lk_stats links;
    memset(&links, 0, sizeof links);
    sm_options opt = o->sim;
    opt.links = o->links_path || o->links_summary ? &links : NULL;
    opt.links_untraced = !o->links_path;
    const job *j = &in->job;
    int status = sm_run(&j->wl, &in->plat, &j->st, j->batch, &opt, &est,
                        o->output != OUT_ROW ? &details : NULL, err);
    if (details.layers.layers)
        run->layers = &details.layers;
    if (status == HS_OK && opt.links)
        run->links = &links;
    if (status == HS_OK && o->links_path)
        status = lk_write_csv(&links, o->links_path, o->links_all, err);
    if (status == HS_OK)
        print_one(o, run, &est);
    cr_details_free(&details);
    lk_stats_free(&links);
    return status;
}

/* compare: both answers, and what accounts for their difference. */
static int run_compare(const cli_options *o, const cli_inputs *in, rp_run *run, char *err)
{
    cmp_result r;
    sm_options opt = o->sim;
    opt.links_untraced = !o->links_path;
    int status = cmp_run(&in->job, &in->plat, &opt, &r, err);
    if (r.details.layers.layers)
        run->layers = &r.details.layers;
    if (status == HS_OK && (o->links_path || o->links_summary))
        run->links = &r.links;
    if (status == HS_OK && o->links_path)
        status = lk_write_csv(&r.links, o->links_path, o->links_all, err);
    if (status == HS_OK) {
        rp_difference diff = cmp_difference(&r);
        if (o->output == OUT_JSON) {
            rp_print_compare_json(stdout, run, &r.analytic, &r.simulated, &diff);
            fputc('\n', stdout);
        } else {
            rp_print_compare_table(stdout, run, &r.analytic, &r.simulated, &diff);
        }
    }
    cmp_free(&r);
    return status;
}

int cli_run_single(const cli_options *o, char *err)
{
    cli_inputs in;
    memset(&in, 0, sizeof in);
    int status = load_inputs(o, &in, err);
    if (status == HS_OK) {
        rp_run run = {.mode = cli_command_name(o->command),
                      .workload = in.job.wl.name,
                      .platform = in.plat.name,
                      .strategy = in.job.st,
                      .batch = in.job.batch,
                      .gpu_memory_bytes = in.plat.gpu_memory_bytes,
                      .layers_top = o->layers_top,
                      .links_job = -1};
        if (o->command == CMD_ANALYTIC)
            status = run_analytic(o, &in, &run, err);
        else if (o->command == CMD_SIMULATE)
            status = run_simulate(o, &in, &run, err);
        else
            status = run_compare(o, &in, &run, err);
    }
    free_inputs(&in);
    return status;
}
