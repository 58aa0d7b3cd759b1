/* fabric_print.c: a shared-fabric run as tables or as a JSON array of job reports
 * (fabric_int.h); each job's own report is report.h's, so it reads like a single run's. */
#include "fabric_int.h"

#include <stdlib.h>
#include <string.h>

#include "precision.h"
#include "report.h"

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return x < y ? -1 : x > y;
}

/* A job's GPU set as sorted ranges, "0-63+136-199" ("..." at the end if len is too short);
 * the rank order follows from gpus= or the placement. */
static void format_gpus(const fb_job *j, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    int *g = malloc((size_t)j->spec.gpus * sizeof *g);
    if (!g) {
        snprintf(buf, len, "?");
        return;
    }
    memcpy(g, j->gpu_of_rank, (size_t)j->spec.gpus * sizeof *g);
    qsort(g, (size_t)j->spec.gpus, sizeof *g, cmp_int);
    for (int r = 0; r < j->spec.gpus; r++) {
        int s = r;
        while (r + 1 < j->spec.gpus && g[r + 1] == g[r] + 1)
            r++;
        char part[32];
        if (r == s)
            snprintf(part, sizeof part, "%s%d", s ? "+" : "", g[s]);
        else
            snprintf(part, sizeof part, "%s%d-%d", s ? "+" : "", g[s], g[r]);
        size_t n = strlen(part);
        if (used + n + 4 > len) {
            snprintf(buf + used, len - used, "...");
            break;
        }
        memcpy(buf + used, part, n + 1);
        used += n;
    }
    free(g);
}

static rp_run job_run(const plat_platform *plat, const fb_job *j, const lk_stats *links, int k)
{
    return (rp_run){.mode = "simulate", .workload = j->job.wl.name, .platform = plat->name,
                    .strategy = j->job.st, .batch = j->spec.batch,
                    .samples = j->job.wl.samples,
                    .gpu_memory_bytes = plat->gpu_memory_bytes, .links = links, .links_job = k,
                    .runtime = j->job.settings.runtime, /* a strategy file's too */
                    .compute = j->job.kc ? kt_compute_name(j->job.kc) : "measured",
                    .precision = kt_precision(j->job.kc) != PR_FP32
                                     ? pr_name(kt_precision(j->job.kc)) : NULL,
                    .device = j->job.kc ? j->job.compute.device.device->name
                                        : j->job.wl.device,
                    .rings_stepped = j->rings_stepped, .rings_over_budget = j->rings_over_budget};
}

void fb_print_tables(FILE *out, const fb_request *req, const plat_platform *plat,
                         const fb_job *jobs, int n_jobs, const fb_background *bgs, int n_bg,
                         const lk_stats *links)
{
    char gpus[512];
    fprintf(out, "hybridsim simulate: %d job%s sharing %s (%s collectives)\n", n_jobs,
            n_jobs == 1 ? "" : "s", plat->name, req->fidelity == ENG_STEP ? "step" : "flow");
    for (int k = 0; k < n_jobs; k++) {
        const fb_job *j = &jobs[k];
        format_gpus(j, gpus, sizeof gpus);
        fprintf(out, "\njob %s (--job %d), GPUs %s\n", j->name, j->index, gpus);
        rp_run run = job_run(plat, j, NULL, k);
        rp_print_table(out, &run, &j->shared);
        if (links)
            fprintf(out, "  congestion share: %.4f (%.6g s of %.6g s of its message time waiting "
                    "on shared links)\n", links->jobs[k].congestion_share,
                    links->jobs[k].waiting_s, links->jobs[k].actual_s);
        if (req->baseline)
            fprintf(out, "  alone: %.6g s per iteration; shared: %.6g s (x%.4f)\n",
                    j->alone.total_s, j->shared.iteration.total_s,
                    j->alone.total_s > 0 ? j->shared.iteration.total_s / j->alone.total_s : 0);
    }
    for (int b = 0; b < n_bg; b++) {
        int m = fb_flows_of(&bgs[b]);
        fprintf(out, "\nbackground (--background %d): %d flow(s) from GPU %d of each node, at most "
                "%.6g GB/s each\n", bgs[b].index, m, bgs[b].gpu, bgs[b].rate_Bps / 1e9);
    }
    if (links) {
        if (n_bg)
            fprintf(out, "  background carried %.6g bytes in %ld transfers\n",
                    links->background.bytes, links->background.messages);
        fprintf(out, "\nthe shared fabric, all jobs%s:\n", n_bg ? " and the background" : "");
        lk_print_summary_table(out, links, -1);
    }
}

void fb_print_json(FILE *out, const fb_request *req, const plat_platform *plat,
                       const fb_job *jobs, int n_jobs, const lk_stats *links)
{
    char gpus[4096];
    hs_json j;
    hs_json_init(&j, out);
    hs_json_array(&j);
    for (int k = 0; k < n_jobs; k++) {
        const fb_job *job = &jobs[k];
        format_gpus(job, gpus, sizeof gpus);
        hs_json_object(&j);
        hs_json_kv_str(&j, "job", job->name);
        hs_json_kv_str(&j, "gpu_set", gpus);
        hs_json_key(&j, "run");
        rp_run run = job_run(plat, job, links, k);
        rp_json_run(&j, &run, &job->shared);
        if (req->baseline) {
            hs_json_key(&j, "alone");
            rp_json_times(&j, &job->alone, true);
            hs_json_kv_number(&j, "slowdown", job->alone.total_s > 0
                                   ? job->shared.iteration.total_s / job->alone.total_s : 0);
        }
        hs_json_end(&j);
    }
    hs_json_end(&j);
    fputc('\n', out);
}

