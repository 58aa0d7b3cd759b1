/* cli_sim.c: the commands that need SimGrid (cli.h's cli_sim_full), linked into hybridsim-sim
 * only: simulate and compare of one job, several jobs on one fabric, and a hand-written
 * platform loaded for the analytic model's routes (the user's --cfg settings are with the
 * platform module already: cli_options.c).
 *
 * A single job's platform is loaded with its GPUs only: a generated machine is then built rack
 * by rack for what the job uses (platform.h), so a 1024-GPU job on a 17,408-GPU machine builds
 * 8 racks, not 128. --links-all lists every link of the machine, so it builds all of it. */
#include "cli_int.h"

#include <stdlib.h>
#include <string.h>

#include "expand.h"
#include "hs_child.h"
#include "placement.h"
#include "sim.h"

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
    int status = sm_run(&j->wl, j->kc, &in->plat, &j->st, j->batch, &opt, &est,
                        o->output != OUT_ROW ? &details : NULL, err);
    if (details.layers.layers)
        run->layers = &details.layers;
    run->rings_stepped = details.rings_stepped;
    run->rings_over_budget = details.rings_over_budget;
    if (status == HS_OK)
        status = hs_estimate_check(&est, "the simulation", err);
    if (status == HS_OK && opt.links)
        run->links = &links;
    if (status == HS_OK && o->links_path)
        status = lk_write_csv(&links, o->links_path, o->links_all, err);
    if (status == HS_OK)
        cli_print_one(o, run, &est);
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
    run->rings_stepped = r.details.rings_stepped;
    run->rings_over_budget = r.details.rings_over_budget;
    if (status == HS_OK)
        status = hs_estimate_check(&r.analytic, "the analytic model", err);
    if (status == HS_OK)
        status = hs_estimate_check(&r.simulated, "the simulation", err);
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

/* Load the job's platform into SimGrid: the racks its ranks are placed on. */
static int load_for_job(const cli_options *o, cli_inputs *in, char *err)
{
    int p = in->job.st.p, *gpus = malloc((size_t)p * sizeof *gpus);
    if (!gpus)
        return hs_fail(err, HS_EINTERNAL, "out of memory placing %d ranks", p);
    int status = pl_place(&in->plat, o->sim.placement, p, gpus, err);
    const int *built = o->links_all ? NULL : gpus;
    if (status == HS_OK) /* refused before anything is built when it cannot fit */
        status = eng_fit_job(plat_engine_gpus(&in->plat, built, p), p, err);
    if (status == HS_OK)
        status = plat_engine_load_job(&in->plat, built, p, ex_may_stage(&in->job.st), err);
    free(gpus);
    return status;
}

static int sim_run(const cli_options *o, cli_inputs *in, rp_run *run, char *err)
{
    int status = load_for_job(o, in, err);
    if (status != HS_OK)
        return status;
    return o->command == CMD_SIMULATE ? run_simulate(o, in, run, err)
                                      : run_compare(o, in, run, err);
}

static int sim_fabric(const cli_options *o, char *err)
{
    fb_request req = {.platform = o->platform, .fidelity = o->sim.fidelity,
                      .step_budget_messages = o->sim.step_budget_messages, .jobs = o->jobs,
                      .n_jobs = o->n_jobs, .backgrounds = o->backgrounds,
                      .n_backgrounds = o->n_backgrounds, .baseline = o->baseline,
                      .json = o->output == OUT_JSON, .links_path = o->links_path,
                      .links_all = o->links_all, .run_wide = &o->job};
    return fb_run(&req, stdout, err);
}

static int sim_load(plat_platform *plat, char *err)
{
    return plat_engine_load(plat, NULL, 0, err);
}

/* What a simulating child is given, and what it sends back. */
typedef struct {
    const wl_workload *wl;
    const kt_compute *kc;
    const plat_platform *plat;
    const st_strategy *st;
    int64_t batch;
} sim_child_in;

typedef struct {
    int status;
    char err[HS_ERR_LEN];
    hs_estimate est;
} sim_child_out;

static void sim_child(void *arg, void *answer)
{
    const sim_child_in *in = arg;
    sim_child_out *out = answer;
    sm_options opt = {.fidelity = ENG_FLOW, .placement = PL_PACKED};
    out->status = sm_run(in->wl, in->kc, in->plat, in->st, in->batch, &opt, &out->est, NULL,
                         out->err);
}

/* One simulation in a child (hs_child.h): SimGrid runs one simulation per process, and the
 * machine loaded before the fork serves every child. Packed placement, flow collectives,
 * blocking order. */
static int sim_simulate(const wl_workload *wl, const kt_compute *kc, plat_platform *plat,
                        const st_strategy *st, int64_t batch, hs_estimate *est, char *err)
{
    int status = plat->in_engine ? HS_OK : plat_engine_load(plat, NULL, 0, err);
    if (status != HS_OK)
        return status;
    sim_child_in in = {.wl = wl, .kc = kc, .plat = plat, .st = st, .batch = batch};
    hs_child_spec spec = {.work = sim_child, .arg = &in, .answer_bytes = sizeof(sim_child_out),
                          .what = "a simulation"};
    sim_child_out out;
    hs_child_end end;
    status = hs_child_run(&spec, &out, &end, err);
    if (status != HS_OK)
        return status;
    if (end.exit_status != 0 || !end.answered)
        return hs_fail(err, HS_EINTERNAL, "the simulation of %s failed (child process)",
                       st_name(st));
    if (out.status != HS_OK)
        return hs_fail(err, out.status, "%s", out.err);
    *est = out.est;
    return HS_OK;
}

const cli_sim cli_sim_full = {.run = sim_run, .fabric = sim_fabric, .load = sim_load,
                              .simulate = sim_simulate};
