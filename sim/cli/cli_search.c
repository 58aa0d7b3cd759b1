/* cli_search.c: `hybridsim strategy --search` with hybridsim's own cost model (cli_int.h).
 *
 * The question is the oracle's (sim/compare/suggest.h, su_answer), the same `suggest` asks:
 * every built-in strategy with every gradient-allreduce algorithm, the published per-layer
 * schemes and the per-layer search's plan, priced by the analytic model, the fastest few
 * simulated. This file prints the answer with what the search did, and writes the answer as a
 * strategy file carrying its settings, whose description says what it is and how it was chosen. */
#include "cli_int.h"

#include <stdlib.h>
#include <string.h>

#include "hs_json.h"
#include "hs_out.h"
#include "suggest.h"

/* What the command found, for printing. */
typedef struct {
    const cli_search_options *o;
    const su_question *q;
    const su_list *l;
    const st_plan *plan;     /* the answer as written */
    const char *path;        /* the strategy file written */
    const hs_estimate *file; /* a built-in answer's file simulated (su_simulate_plan), or NULL */
    int answer, builtin, searched; /* indices into l->c (-1: none) */
} search_found;

/* The answer's configuration per layer. */
static void print_layers(const search_found *f)
{
    const wl_workload *wl = f->q->wl;
    printf("  %5s  %-24s %-8s %5s %5s %5s %5s %5s  replicas\n", "layer", "name", "type", "b",
           "f", "c", "h", "w");
    for (int i = 0; i < wl->n_layers; i++) {
        const st_layer_config *c = &f->plan->layers[i];
        printf("  %5d  %-24s %-8s %5d %5d %5d %5d %5d  %8d\n", i, wl->layers[i].name,
               wl_type_name(wl->layers[i].type), c->batch, c->filter, c->channel, c->height,
               c->width, c->replicas);
    }
}

static void print_row(const char *what, const su_candidate *c)
{
    const hs_times *an = &c->analytic.iteration;
    printf("  %-40s %10.6f %10.6f %10.6f", what, an->compute_s, an->comm_s, an->total_s);
    if (c->simulated)
        printf(" %10.6f", c->sim.iteration.total_s);
    else
        printf(" %10s", "-");
    printf(" %9.3f\n", c->analytic.memory_per_gpu_bytes / 1e9);
}

static void print_search(const su_search *s)
{
    if (!s->ran) {
        printf("  search: found no per-layer plan (%s)\n", s->why);
        return;
    }
    printf("  search: %d vertices, %d edges, largest table %lld entries, %.3f s; its sum %.6f s "
           "(gradients unfused, without latency)\n", s->vertices, s->edges,
           (long long)s->largest_table, s->seconds, s->total_s);
    if (s->polish.reference_kept)
        printf("  exact model: the search's plan %.6f s, polished %.6f s; the best whole-model "
               "strategy (%s) is cheaper and stands for it\n", s->polish.searched_s,
               s->polish.polished_s, s->reference);
    else if (s->reference[0])
        printf("  exact model: the search's plan %.6f s; %d layers given %s's configuration "
               "-> %.6f s\n", s->polish.searched_s, s->polish.layers_reverted, s->reference,
               s->polish.polished_s);
}

static void print_found(const search_found *f)
{
    const su_list *l = f->l;
    const su_candidate *a = &l->c[f->answer];
    printf("hybridsim strategy --search: %s on %s, %d GPUs, batch %lld, cost model hybridsim",
           f->q->wl->name, f->q->plat->name, f->q->p, (long long)f->q->batch);
    if (f->o->job.runtime)
        printf(", runtime %s", f->o->job.runtime);
    cli_print_kernels(stdout, f->q->wl, f->q->kc);
    putchar('\n');
    print_layers(f);
    print_search(&l->search);
    printf("\n  %-40s %10s %10s %10s %10s %9s\n", "per iteration (s)", "compute", "comm",
           "analytic", "simulated", "GB a GPU");
    char name[SU_NAME_LEN + 24];
    snprintf(name, sizeof name, "answer: %s", a->name);
    print_row(name, a);
    if (f->searched >= 0 && f->searched != f->answer)
        print_row("the search's plan: searched", &l->c[f->searched]);
    if (f->builtin >= 0 && f->builtin != f->answer) {
        snprintf(name, sizeof name, "best whole-model: %s", l->c[f->builtin].name);
        print_row(name, &l->c[f->builtin]);
    }
    if (f->file && f->file->iteration.total_s != a->sim.iteration.total_s)
        printf("  as the file written (the built-in as a per-layer plan): %.6f s simulated\n",
               f->file->iteration.total_s);
    printf("  the oracle's answer over %d candidates (%d fit, the %d fastest by the model "
           "simulated; as suggest ranks them); wrote %s\n", l->n, l->fitting, l->simulated,
           f->path);
    if (f->builtin >= 0 && a->simulated && l->c[f->builtin].simulated)
        printf("  answer / best whole-model (simulated): %.3f\n",
               a->sim.iteration.total_s / l->c[f->builtin].sim.iteration.total_s);
}

/* {"strategy": ..., "analytic_s": ..., "memory_bytes": ...[, "simulated_s": ...]} */
static void print_candidate_json(const su_candidate *c)
{
    printf("{\"strategy\": ");
    hs_json_string(stdout, c->name);
    printf(", \"analytic_s\": %.17g, \"memory_bytes\": %.17g", c->analytic.iteration.total_s,
           c->analytic.memory_per_gpu_bytes);
    if (c->simulated)
        printf(", \"simulated_s\": %.17g", c->sim.iteration.total_s);
    printf("}");
}

static void print_json(const search_found *f)
{
    const su_list *l = f->l;
    const su_search *s = &l->search;
    printf("{\"mode\": \"search\", \"cost_model\": \"hybridsim\", \"workload\": ");
    hs_json_string(stdout, f->q->wl->name);
    printf(", \"platform\": ");
    hs_json_string(stdout, f->q->plat->name);
    printf(", \"gpus\": %d, \"batch\": %lld", f->q->p, (long long)f->q->batch);
    if (f->o->job.runtime) {
        printf(", \"runtime\": ");
        hs_json_string(stdout, f->o->job.runtime);
    }
    cli_json_kernels(stdout, f->q->wl, f->q->kc);
    printf(", \"strategy_file\": ");
    hs_json_string(stdout, f->path);
    printf(", \"search_s\": %.6f, \"candidates\": %d, \"simulated\": %d,\n \"searched\": ",
           s->seconds, l->n, l->simulated);
    print_candidate_json(&l->c[f->answer]); /* the command's answer */
    if (f->file)
        printf(",\n \"file_simulated_s\": %.17g", f->file->iteration.total_s);
    printf(",\n \"search\": {\"found\": %s, \"vertices\": %d, \"edges\": %d, "
           "\"layers_reverted\": %d, \"uniform_kept_by_model\": %s", s->ran ? "true" : "false",
           s->vertices, s->edges, s->polish.layers_reverted,
           s->polish.reference_kept ? "true" : "false");
    if (f->searched >= 0) {
        printf(", \"plan\": ");
        print_candidate_json(&l->c[f->searched]);
    }
    printf("}");
    if (f->builtin >= 0) {
        printf(",\n \"best_uniform\": ");
        print_candidate_json(&l->c[f->builtin]);
    }
    printf("}\n");
}

/* The answer's strategy file, written whole or not at all. */
static int write_plan(const search_found *f, char *err)
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
    search_found f = {.o = o, .q = q, .l = l, .path = path, .answer = l->order[0],
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
    int status = su_answer_plan(l, f.answer, q->wl, &o->job, &plan, err);
    if (status != HS_OK)
        return status;
    f.plan = &plan;
    hs_estimate file;
    if (!a->plan && a->simulated) /* the file runs the built-in as a plan */
        status = su_simulate_plan(q, &plan, &file, err);
    f.file = !a->plan && a->simulated && status == HS_OK ? &file : NULL;
    if (status == HS_OK && (status = write_plan(&f, err)) == HS_OK)
        (o->json ? print_json : print_found)(&f);
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
                         .who = "strategy --search"};
        su_list l;
        if (o->job.runtime)
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
