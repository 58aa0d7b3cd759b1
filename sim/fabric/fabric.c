/* fabric.c: jobs sharing one platform (fabric.h): the steps of fb_run in order.
 *
 * Each step is finished for every job before the next starts, so that bad input anywhere is
 * reported before anything is simulated: parse the --job and --background texts; load the
 * platform; give each job its GPUs (explicit sets first, then free nodes in flag order); load,
 * check and expand each job; fork the --baseline children (each simulates one job's own graph
 * alone); run the merged graph once with the background flows; print. */
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

int fb_run(const fb_request *req, FILE *out, char *err)
{
    fb_job *jobs = calloc((size_t)req->n_jobs + 1, sizeof *jobs);
    fb_background *bgs = calloc((size_t)req->n_backgrounds + 1, sizeof *bgs);
    plat_platform plat;
    memset(&plat, 0, sizeof plat);
    bool plat_loaded = false;
    lk_stats links;
    memset(&links, 0, sizeof links);
    int status = jobs && bgs ? HS_OK : hs_fail(err, HS_EINTERNAL, "out of memory for the jobs");
    if (status == HS_OK && req->links_path)
        status = lk_csv_check(req->links_path, err);
    if (status == HS_OK) {
        status = plat_load(req->platform, &plat, err);
        plat_loaded = status == HS_OK;
    }
    for (int k = 0; k < req->n_jobs && status == HS_OK; k++)
        status = fb_parse_job(req->jobs[k], k + 1, &plat, &jobs[k], err);
    for (int b = 0; b < req->n_backgrounds && status == HS_OK; b++)
        status = fb_parse_background(req->backgrounds[b], b + 1, &plat, &bgs[b], err);
    if (status == HS_OK)
        status = fb_place_jobs(&plat, jobs, req->n_jobs, err);
    for (int k = 0; k < req->n_jobs && status == HS_OK; k++) {
        run_options(req, &jobs[k].spec);
        status = fb_load_job(&plat, &jobs[k], err);
    }
    for (int k = 0; k < req->n_jobs && status == HS_OK && req->baseline; k++)
        status = fb_start_baseline(req, &plat, &jobs[k], err);
    if (status == HS_OK)
        status = fb_run_shared(req, &plat, jobs, req->n_jobs, bgs, req->n_backgrounds,
                            req->links_path ? &links : NULL, err);
    for (int k = 0; k < req->n_jobs && req->baseline; k++)
        if (jobs[k].child.pid) {
            int st = fb_finish_baseline(&jobs[k], status == HS_OK ? err : NULL);
            if (status == HS_OK)
                status = st;
        }
    if (status == HS_OK && req->links_path)
        status = lk_write_csv(&links, req->links_path, req->links_all, err);
    if (status == HS_OK) {
        const lk_stats *l = req->links_path ? &links : NULL;
        if (req->json)
            fb_print_json(out, req, &plat, jobs, req->n_jobs, l);
        else
            fb_print_tables(out, req, &plat, jobs, req->n_jobs, bgs, req->n_backgrounds, l);
    }
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
