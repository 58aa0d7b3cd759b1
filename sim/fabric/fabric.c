/* fabric.c: jobs sharing one platform (fabric.h): the steps of fb_run in order.
 *
 * Each step is finished for every job before the next starts, so that bad input anywhere is
 * reported before anything is simulated: open the platform; parse the --job and --background
 * texts; give each job its GPUs (explicit sets first, then free nodes in flag order); build the
 * racks they use into SimGrid (load_used_racks); load each job's workload; count the GPUs
 * running an input loader on each node (their loaders share its CPU cores); load, check and
 * expand each job; fork the --baseline children (each simulates one job's own graph alone);
 * run the merged graph once with the background flows; print. */
#include "fabric_int.h"

#include <stdlib.h>
#include <string.h>

static void free_jobs(fb_job *jobs, int n_jobs)
{
    for (int k = 0; jobs && k < n_jobs; k++) {
        fb_job *j = &jobs[k];
        hs_child_abandon(&j->child); /* an error before its result was read */
        if (j->graph_made)
            tg_free(&j->graph);
        job_free(&j->job);
        fb_list_free(&j->gpu_list);
        fb_list_free(&j->racks);
        free(j->gpu_of_rank);
        free(j->text);
    }
    free(jobs);
}

/* The job keys given outside --job, for every job they apply to (js_key.only) that does not
 * say its own. */
static void run_options(const fb_request *req, js_settings *spec)
{
    for (int k = 0; k < js_n_keys; k++)
        if (!(spec->given & (1u << k)) && js_applies(k, spec->strategy))
            js_take(spec, req->run_wide, k);
}

/* Two jobs of one name (name=, or a default jobN) would be told apart by nothing in the
 * report or its JSON. */
static int check_names(const fb_job *jobs, int n_jobs, char *err)
{
    for (int k = 1; k < n_jobs; k++)
        for (int i = 0; i < k; i++)
            if (strcmp(jobs[i].name, jobs[k].name) == 0)
                return hs_fail(err, HS_EINPUT, "--job %d: name '%s' is --job %d's too",
                               k + 1, jobs[k].name, i + 1);
    return HS_OK;
}

/* Put a generated machine into SimGrid once the jobs are placed: only the racks their GPUs
 * and the background flows' ends are on (all of them with --links-all), with the routes the
 * whole machine has, as a single run builds its job's racks (plat_engine_load). */
static int load_used_racks(const fb_request *req, plat_platform *plat, const fb_job *jobs,
                           const fb_background *bgs, char *err)
{
    if (req->links_all)
        return plat_engine_load(plat, NULL, 0, err);
    long n = 0;
    for (int k = 0; k < req->n_jobs; k++)
        n += jobs[k].spec.gpus;
    for (int b = 0; b < req->n_backgrounds; b++)
        n += 2L * fb_flows_of(&bgs[b]);
    int *gpus = malloc((size_t)(n ? n : 1) * sizeof *gpus), i = 0;
    if (!gpus)
        return hs_fail(err, HS_EINTERNAL, "out of memory for the jobs' %ld GPUs", n);
    for (int k = 0; k < req->n_jobs; k++)
        for (int r = 0; r < jobs[k].spec.gpus; r++)
            gpus[i++] = jobs[k].gpu_of_rank[r];
    int gpn = plat->gpus_per_node;
    for (int b = 0; b < req->n_backgrounds; b++)
        for (int f = 0; f < fb_flows_of(&bgs[b]); f++) { /* as start_background pairs them */
            gpus[i++] = bgs[b].from.v[f % bgs[b].from.n] * gpn + bgs[b].gpu;
            gpus[i++] = bgs[b].to.v[f % bgs[b].to.n] * gpn + bgs[b].gpu;
        }
    int status = plat_engine_load(plat, gpus, i, err);
    free(gpus);
    return status;
}

/* Open the platform, parse every --job and --background and give the jobs their GPUs; then
 * put into SimGrid what the platform file did not. *plat_loaded says whether plat needs
 * plat_free, whatever the status. */
static int open_and_place(const fb_request *req, plat_platform *plat, bool *plat_loaded,
                          fb_job *jobs, fb_background *bgs, char *err)
{
    int status = plat_open(req->platform, plat, err);
    *plat_loaded = status == HS_OK;
    /* a hand-written file's routes are SimGrid's, which the jobs' strategies may ask for */
    if (status == HS_OK && !plat_routes_known(plat))
        status = plat_engine_load(plat, NULL, 0, err);
    for (int k = 0; k < req->n_jobs && status == HS_OK; k++)
        status = fb_parse_job(req->jobs[k], k + 1, plat, &jobs[k], err);
    if (status == HS_OK)
        status = check_names(jobs, req->n_jobs, err);
    for (int b = 0; b < req->n_backgrounds && status == HS_OK; b++)
        status = fb_parse_background(req->backgrounds[b], b + 1, plat, &bgs[b], err);
    if (status == HS_OK)
        status = fb_place_jobs(plat, jobs, req->n_jobs, err);
    if (status == HS_OK && !plat->in_engine)
        status = load_used_racks(req, plat, jobs, bgs, err);
    return status;
}

/* Load every placed job: its workload, then (once every job's GPUs are known, as the loaders
 * of a node share its cores) its checked, expanded graph. */
static int load_jobs(const fb_request *req, plat_platform *plat, fb_job *jobs, char *err)
{
    int status = HS_OK;
    for (int k = 0; k < req->n_jobs && status == HS_OK; k++) {
        run_options(req, &jobs[k].spec);
        status = fb_load_workload(plat, &jobs[k], err);
    }
    if (status == HS_OK)
        status = fb_count_gpus_on_nodes(plat, jobs, req->n_jobs, err);
    for (int k = 0; k < req->n_jobs && status == HS_OK; k++)
        status = fb_load_job(plat, &jobs[k], err);
    return status;
}

/* Simulate: the --baseline children alongside the shared run, then collect the children,
 * each reporting its error only if nothing failed before. links is NULL without --links. */
static int simulate_jobs(const fb_request *req, plat_platform *plat, fb_job *jobs,
                         fb_background *bgs, lk_stats *links, char *err)
{
    int status = HS_OK;
    for (int k = 0; k < req->n_jobs && status == HS_OK && req->baseline; k++)
        status = fb_start_baseline(req, plat, &jobs[k], err);
    if (status == HS_OK)
        status = fb_run_shared(req, plat, jobs, req->n_jobs, bgs, req->n_backgrounds, links,
                               err);
    for (int k = 0; k < req->n_jobs && req->baseline; k++)
        if (jobs[k].child.pid) {
            int st = fb_finish_baseline(&jobs[k], status == HS_OK ? err : NULL);
            if (status == HS_OK)
                status = st;
        }
    return status;
}

/* Write the --links file, then the report on out (tables or JSON). */
static int write_outputs(const fb_request *req, FILE *out, const plat_platform *plat,
                         const fb_job *jobs, const fb_background *bgs, const lk_stats *links,
                         char *err)
{
    if (req->links_path) {
        int status = lk_write_csv(links, req->links_path, req->links_all, err);
        if (status != HS_OK)
            return status;
    }
    if (req->json)
        fb_print_json(out, req, plat, jobs, req->n_jobs, links);
    else
        fb_print_tables(out, req, plat, jobs, req->n_jobs, bgs, req->n_backgrounds, links);
    return HS_OK;
}

int fb_run(const fb_request *req, FILE *out, char *err)
{
    fb_job *jobs = calloc((size_t)req->n_jobs + 1, sizeof *jobs);
    fb_background *bgs = calloc((size_t)req->n_backgrounds + 1, sizeof *bgs);
    plat_platform plat;
    memset(&plat, 0, sizeof plat);
    bool plat_loaded = false;
    lk_stats links;
    memset(&links, 0, sizeof links);
    lk_stats *l = req->links_path ? &links : NULL;
    int status = jobs && bgs ? HS_OK : hs_fail(err, HS_EINTERNAL, "out of memory for the jobs");
    if (status == HS_OK && req->links_path)
        status = lk_csv_check(req->links_path, err);
    if (status == HS_OK)
        status = open_and_place(req, &plat, &plat_loaded, jobs, bgs, err);
    if (status == HS_OK)
        status = load_jobs(req, &plat, jobs, err);
    if (status == HS_OK)
        status = simulate_jobs(req, &plat, jobs, bgs, l, err);
    if (status == HS_OK)
        status = write_outputs(req, out, &plat, jobs, bgs, l, err);
    lk_stats_free(&links);
    for (int b = 0; bgs && b < req->n_backgrounds; b++) {
        fb_list_free(&bgs[b].from);
        fb_list_free(&bgs[b].to);
    }
    free(bgs);
    free_jobs(jobs, req->n_jobs);
    if (plat_loaded)
        plat_free(&plat);
    return status;
}
