/* cli_search.c: `hybridsim strategy --search` with hybridsim's own cost model (cli_int.h).
 *
 * The question is the oracle's (sim/compare/suggest.h, su_answer), the same `suggest` asks:
 * every built-in strategy with every gradient-allreduce algorithm, the published per-layer
 * schemes and the per-layer search's plan, priced by the analytic model, the fastest few
 * simulated. This file asks it, writes the answer as a strategy file carrying its settings,
 * whose description says what it is and how it was chosen, and prints the answer with what the
 * search did (sim/compare/suggest_print.c). */
#include "cli_int.h"

#include <stdlib.h>
#include <string.h>

#include "hs_out.h"
#include "suggest.h"

/* The answer's strategy file, written whole or not at all. */
static int write_plan(const su_found *f, char *err)
{
    char description[2048];
    su_describe(f->q, f->l, f->answer, f->file, description, sizeof description);
    hs_out out;
    int status = hs_out_open(&out, "-o", f->path, err);
    if (status != HS_OK)
        return status;
    status = st_plan_write(out.f, f->plan, f->q->wl, description, err);
    if (status != HS_OK) {
        hs_out_abort(&out);
        return status;
    }
    return hs_out_commit(&out, err);
}

/* The answer: the first of the ranking, which must fit. */
static int answer(const cli_search_options *o, const su_question *q, const su_list *l,
                  const char *path, char *err)
{
    su_found f = {.q = q, .l = l, .path = path, .answer = l->order[0],
                  .builtin = su_best_builtin(l), .searched = -1};
    const su_candidate *a = &l->c[f.answer];
    if (!a->analytic.fits_in_memory)
        return hs_fail(err, HS_EINPUT, "%s on %d GPUs at batch %lld: no per-layer strategy fits "
                       "in %.1f GB a GPU (the fastest by the model, %s, needs %.1f GB)",
                       q->wl->name, q->p, (long long)q->batch, q->plat->gpu_memory_bytes / 1e9,
                       a->name, a->analytic.memory_per_gpu_bytes / 1e9);
    for (int i = 0; i < l->n; i++)
        if (strcmp(l->c[i].name, "searched") == 0)
            f.searched = i;
    st_plan plan;
    int status = su_answer_plan(l, f.answer, q, &o->job, &plan, err);
    if (status != HS_OK)
        return status;
    f.plan = &plan;
    hs_estimate file;
    if (!a->plan && a->simulated) /* the file runs the built-in as a plan */
        status = su_simulate_plan(q, &plan, &file, err);
    f.file = !a->plan && a->simulated && status == HS_OK ? &file : NULL;
    if (status == HS_OK && (status = write_plan(&f, err)) == HS_OK)
        (o->json ? su_print_found_json : su_print_found)(stdout, &f);
    st_plan_free(&plan);
    return status;
}

int cli_search_hybridsim(const cli_search_options *o, const cli_sim *sim, char *err)
{
    if (!o->analytic_only && !sim)
        return cli_exec_full(err); /* the simulations need SimGrid: hybridsim-sim */
    wl_workload wl;
    plat_platform plat;
    kt_compute kc;                  /* the compute model's state, when model points to it */
    const kt_compute *model = NULL; /* the kernel-time model (NULL: the measured times) */
    char path[1024];
    int status = wl_load(o->job.workload, &wl, err);
    if (status != HS_OK)
        return status;
    if ((status = cli_open_routes(o->platform, sim, &plat, err)) != HS_OK) {
        wl_free(&wl);
        return status;
    }
    if ((status = job_compute_for_pricing(&wl, &plat, &o->job, &kc, &model, err)) == HS_OK &&
        o->job.gpus > plat.n_gpus)
        status = hs_fail(err, HS_EINPUT, "-g %d: the platform %s has %d GPUs", o->job.gpus,
                         plat.name, plat.n_gpus);
    if (status == HS_OK) {
        if (o->out)
            snprintf(path, sizeof path, "%s", o->out);
        else
            snprintf(path, sizeof path, "searched-%s-g%d-b%lld.xml", wl.name, o->job.gpus,
                     (long long)o->job.batch);
        rt_runtime rt; /* --runtime: what every candidate runs under */
        su_question q = {.wl = &wl, .kc = model, .plat = &plat, .p = o->job.gpus,
                         .batch = o->job.batch, .top = o->top,
                         .simulate = o->analytic_only ? NULL : sim->simulate,
                         .max_table = o->max_table, .runtime = o->job.runtime ? &rt : NULL,
                         .runtime_said = o->job.runtime, .overlap = cli_overlap_said(&o->job),
                         .halo = o->job.halo_chain,
                         .filter_rs = o->job.filter_rs,
                         .who = "strategy --search"};
        su_list l;
        status = hs_out_check("-o", path, err); /* before the search, which may be long */
        if (status == HS_OK && o->job.runtime)
            status = rt_load(o->job.runtime, &rt, err);
        if (status == HS_OK && (status = su_answer(&q, &l, err)) == HS_OK) {
            status = answer(o, &q, &l, path, err);
            su_list_free(&l);
        }
    }
    plat_free(&plat);
    wl_free(&wl);
    return status;
}
