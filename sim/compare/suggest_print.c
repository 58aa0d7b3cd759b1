/* suggest_print.c: the oracle's answers as `suggest` and `strategy --search` print them
 * (suggest.h): the ranking as a table or JSON, a GPU budget's counts and answer, and the
 * search's answer with what the search did. Printing only: the answers are suggest.c's,
 * oracle.c's and budget.c's. */
#include "suggest.h"

#include <stdio.h>
#include <string.h>

#include "hs_json.h"

/* Where the kernel times came from, as a report's first line says it (", kernels from the
 * model on v100-sxm2-16gb"), and as JSON members ("compute", "device", "precision"). */
static void print_kernels(FILE *out, const wl_workload *wl, const kt_compute *kc)
{
    if (kc)
        fprintf(out, ", kernels from the %s on %s", kc->kernels_only ? "model alone" : "model",
                kc->device.device->name);
    else
        fprintf(out, ", kernels measured on %s", wl->device);
    if (kt_precision(kc) != PR_FP32)
        fprintf(out, ", in %s precision", pr_name(kt_precision(kc)));
}

static void json_kernels(hs_json *j, const wl_workload *wl, const kt_compute *kc)
{
    hs_json_kv_str(j, "compute", kc ? kt_compute_name(kc) : "measured");
    hs_json_kv_str(j, "device", kc ? kc->device.device->name : wl->device);
    if (kt_precision(kc) != PR_FP32)
        hs_json_kv_str(j, "precision", pr_name(kt_precision(kc)));
}

/* ", runtime R" when the question names one. */
static void print_runtime(FILE *out, const su_question *q)
{
    if (q->runtime_said)
        fprintf(out, ", runtime %s", q->runtime_said);
}

/* The question's members: the job and where its kernel times came from. */
static void json_question(hs_json *j, const su_question *q)
{
    hs_json_kv_str(j, "workload", q->wl->name);
    hs_json_kv_str(j, "platform", q->plat->name);
    hs_json_kv_int(j, "gpus", q->p);
    hs_json_kv_int(j, "batch", (long long)q->batch);
    if (q->runtime_said)
        hs_json_kv_str(j, "runtime", q->runtime_said);
    json_kernels(j, q->wl, q->kc);
}

/* The model's cheapest finalist when the simulation overruled it (su_model_choice), a line. */
static void print_model_choice(FILE *out, const su_list *l)
{
    int m = su_model_choice(l);
    if (m < 0)
        return;
    fprintf(out, "  the model's choice: %s %.6f s by the model, %.6f s simulated; the simulation "
            "preferred the answer\n", l->c[m].name, l->c[m].analytic.iteration.total_s,
            l->c[m].sim.iteration.total_s);
}

/* "model_choice": {"strategy", "analytic_s", "simulated_s"}, only when the simulation overruled
 * the model (su_model_choice). */
static void model_choice_json(hs_json *j, const su_list *l)
{
    int m = su_model_choice(l);
    if (m < 0)
        return;
    hs_json_break(j, "\n ");
    hs_json_key(j, "model_choice");
    hs_json_object(j);
    hs_json_kv_str(j, "strategy", l->c[m].name);
    hs_json_kv_number(j, "analytic_s", l->c[m].analytic.iteration.total_s);
    hs_json_kv_number(j, "simulated_s", l->c[m].sim.iteration.total_s);
    hs_json_end(j);
}

/* ---------------------------------------------------------------- suggest's ranking */

/* A candidate's simulated seconds in its column, or "-" when it was not simulated. */
static void print_simulated(FILE *out, const su_candidate *c)
{
    if (c->simulated)
        fprintf(out, "%10.6f", c->sim.iteration.total_s);
    else
        fprintf(out, "%10s", "-");
}

void su_print_ranking(FILE *out, const su_question *q, const su_list *l)
{
    fprintf(out, "hybridsim suggest: %s on %s, %d GPUs, batch %lld: %d strategies priced, %d "
            "fit, %d simulated", q->wl->name, q->plat->name, q->p, (long long)q->batch, l->n,
            l->fitting, l->simulated);
    print_runtime(out, q);
    print_kernels(out, q->wl, q->kc);
    fputc('\n', out);
    int width = 26; /* the strategy column: its longest name */
    for (int i = 0; i < l->n; i++)
        if ((int)strlen(l->c[i].name) > width)
            width = (int)strlen(l->c[i].name);
    fprintf(out, "  %4s  %-*s %10s %10s %10s %10s %9s  %s\n", "rank", width, "strategy",
            "compute", "comm", "analytic", "simulated", "GB a GPU", "why not first");
    for (int i = 0; i < l->n; i++) {
        const su_candidate *c = &l->c[l->order[i]];
        fprintf(out, "  %4d  %-*s %10.6f %10.6f %10.6f ", i + 1, width, c->name,
                c->analytic.iteration.compute_s, c->analytic.iteration.comm_s,
                c->analytic.iteration.total_s);
        print_simulated(out, c);
        fprintf(out, " %9.3f  %s\n", c->analytic.memory_per_gpu_bytes / 1e9, c->why);
    }
    print_model_choice(out, l);
    fprintf(out, "  times are seconds per iteration; epoch = %lld iterations\n",
            (long long)l->c[l->order[0]].analytic.iterations_per_epoch);
}

void su_print_ranking_json(FILE *out, const su_question *q, const su_list *l)
{
    hs_json j;
    hs_json_init(&j, out);
    hs_json_object(&j);
    hs_json_kv_str(&j, "mode", "suggest");
    json_question(&j, q);
    hs_json_key(&j, "ranking");
    hs_json_array(&j);
    for (int i = 0; i < l->n; i++) {
        const su_candidate *c = &l->c[l->order[i]];
        hs_json_break(&j, "\n  ");
        hs_json_object(&j);
        hs_json_kv_int(&j, "rank", i + 1);
        hs_json_kv_str(&j, "strategy", c->name);
        hs_json_kv_number(&j, "analytic_s", c->analytic.iteration.total_s);
        hs_json_kv_number(&j, "compute_s", c->analytic.iteration.compute_s);
        hs_json_kv_number(&j, "comm_s", c->analytic.iteration.comm_s);
        hs_json_kv_number(&j, "memory_bytes", c->analytic.memory_per_gpu_bytes);
        hs_json_kv_bool(&j, "fits", c->analytic.fits_in_memory);
        if (c->simulated) {
            hs_json_kv_number(&j, "simulated_s", c->sim.iteration.total_s);
            hs_json_kv_number(&j, "simulated_comm_s", c->sim.iteration.comm_s);
        }
        hs_json_kv_str(&j, "why", c->why);
        hs_json_end(&j);
    }
    hs_json_end(&j);
    model_choice_json(&j, l);
    hs_json_end(&j);
    fputc('\n', out);
}

/* ---------------------------------------------------------------- a GPU budget */

void su_print_budget_head(FILE *out, const su_question *q, const su_budget *b)
{
    fprintf(out, "hybridsim suggest: %s on %s, %s", q->wl->name, q->plat->name,
            b->max_gpus ? "the fastest epoch within the GPU budget"
                        : "the fewest GPUs reaching the target epoch");
    print_kernels(out, q->wl, q->kc);
    fprintf(out, "\n  %6s  %-36s %14s %14s\n", "GPUs", "best strategy", "epoch, sim s",
            "epoch, model s");
}

void su_print_budget_count(FILE *out, const su_count *c)
{
    if (!c->runs)
        fprintf(out, "  %6d  %s\n", c->p, "(no strategy runs: the batch does not divide, ...)");
    else if (!c->simulated)
        fprintf(out, "  %6d  (nothing fits; the fastest by the model, %s, needs %.1f GB)\n",
                c->p, c->name, c->memory_bytes / 1e9);
    else
        fprintf(out, "  %6d  %-36s %14.3f %14.3f\n", c->p, c->name, c->sim_epoch_s,
                c->model_epoch_s);
}

void su_print_budget_answer(FILE *out, const su_question *q, const su_budget *b,
                            const su_count *best)
{
    if (best->p)
        fprintf(out, "  answer: %s on %d GPUs, %.3f s an epoch (simulated)\n", best->name,
                best->p, best->sim_epoch_s);
    else
        fprintf(out, "  no GPU count up to %d reaches an epoch of %g s\n",
                su_budget_limit(b, q->plat), b->target_epoch_s);
}

/* ---------------------------------------------------------------- strategy --search */

/* The answer's configuration per layer. */
static void print_layers(FILE *out, const su_found *f)
{
    const wl_workload *wl = f->q->wl;
    fprintf(out, "  %5s  %-24s %-8s %5s %5s %5s %5s %5s  replicas\n", "layer", "name", "type",
            "b", "f", "c", "h", "w");
    for (int i = 0; i < wl->n_layers; i++) {
        const st_layer_config *c = &f->plan->layers[i];
        fprintf(out, "  %5d  %-24s %-8s %5d %5d %5d %5d %5d  %8d\n", i, wl->layers[i].name,
                wl_type_name(wl->layers[i].type), c->batch, c->filter, c->channel, c->height,
                c->width, c->replicas);
    }
}

static void print_row(FILE *out, const char *what, const su_candidate *c)
{
    const hs_times *an = &c->analytic.iteration;
    fprintf(out, "  %-40s %10.6f %10.6f %10.6f ", what, an->compute_s, an->comm_s, an->total_s);
    print_simulated(out, c);
    fprintf(out, " %9.3f\n", c->analytic.memory_per_gpu_bytes / 1e9);
}

static void print_search(FILE *out, const su_search *s)
{
    if (!s->ran) {
        fprintf(out, "  search: found no per-layer plan (%s)\n", s->why);
        return;
    }
    fprintf(out, "  search: %d vertices, %d edges, largest table %lld entries, %.3f s; its sum "
            "%.6f s (gradients unfused, without latency)\n", s->vertices, s->edges,
            (long long)s->largest_table, s->seconds, s->total_s);
    if (s->polish.reference_kept)
        fprintf(out, "  exact model: the search's plan %.6f s, polished %.6f s; the best "
                "whole-model strategy (%s) is cheaper and stands for it\n",
                s->polish.searched_s, s->polish.polished_s, s->reference);
    else if (s->reference[0] && s->polish.layers_reverted == 0)
        fprintf(out, "  exact model: the search's plan %.6f s; no layer of it is cheaper as %s "
                "(the best whole-model strategy) splits it\n", s->polish.searched_s,
                s->reference);
    else if (s->reference[0])
        fprintf(out, "  exact model: the search's plan %.6f s, %.6f s after %d layer%s switched "
                "to how %s (the best whole-model strategy) splits %s\n", s->polish.searched_s,
                s->polish.polished_s, s->polish.layers_reverted,
                s->polish.layers_reverted == 1 ? " was" : "s were", s->reference,
                s->polish.layers_reverted == 1 ? "it" : "them");
}

/* The answer against the search's plan and the best whole-model strategy. */
static void print_rows(FILE *out, const su_found *f)
{
    const su_list *l = f->l;
    const su_candidate *a = &l->c[f->answer];
    fprintf(out, "\n  %-40s %10s %10s %10s %10s %9s\n", "per iteration (s)", "compute", "comm",
            "analytic", "simulated", "GB a GPU");
    char name[SU_NAME_LEN + 24];
    snprintf(name, sizeof name, "answer: %s", a->name);
    print_row(out, name, a);
    if (f->searched >= 0 && f->searched != f->answer)
        print_row(out, "the search's plan: searched", &l->c[f->searched]);
    if (f->builtin >= 0 && f->builtin != f->answer) {
        snprintf(name, sizeof name, "best whole-model: %s", l->c[f->builtin].name);
        print_row(out, name, &l->c[f->builtin]);
    }
}

void su_print_found(FILE *out, const su_found *f)
{
    const su_list *l = f->l;
    const su_candidate *a = &l->c[f->answer];
    fprintf(out, "hybridsim strategy --search: %s on %s, %d GPUs, batch %lld, cost model "
            "hybridsim", f->q->wl->name, f->q->plat->name, f->q->p, (long long)f->q->batch);
    print_runtime(out, f->q);
    print_kernels(out, f->q->wl, f->q->kc);
    fputc('\n', out);
    print_layers(out, f);
    print_search(out, &l->search);
    print_rows(out, f);
    print_model_choice(out, l);
    if (f->file && f->file->iteration.total_s != a->sim.iteration.total_s)
        fprintf(out, "  as the file written (the built-in as a per-layer plan): %.6f s "
                "simulated\n", f->file->iteration.total_s);
    fprintf(out, "  the oracle's answer over %d candidates (%d fit, the %d fastest by the model "
            "simulated; as suggest ranks them); wrote %s\n", l->n, l->fitting, l->simulated,
            f->path);
    if (f->builtin >= 0 && a->simulated && l->c[f->builtin].simulated)
        fprintf(out, "  answer / best whole-model (simulated): %.3f\n",
                a->sim.iteration.total_s / l->c[f->builtin].sim.iteration.total_s);
}

/* {"strategy": ..., "analytic_s": ..., "memory_bytes": ...[, "simulated_s": ...]} */
static void candidate_json(hs_json *j, const su_candidate *c)
{
    hs_json_object(j);
    hs_json_kv_str(j, "strategy", c->name);
    hs_json_kv_number(j, "analytic_s", c->analytic.iteration.total_s);
    hs_json_kv_number(j, "memory_bytes", c->analytic.memory_per_gpu_bytes);
    if (c->simulated)
        hs_json_kv_number(j, "simulated_s", c->sim.iteration.total_s);
    hs_json_end(j);
}

/* "search": what the search did, and its plan. */
static void search_json(hs_json *j, const su_found *f)
{
    const su_search *s = &f->l->search;
    hs_json_key(j, "search");
    hs_json_object(j);
    hs_json_kv_bool(j, "found", s->ran);
    hs_json_kv_int(j, "vertices", s->vertices);
    hs_json_kv_int(j, "edges", s->edges);
    hs_json_kv_int(j, "layers_reverted", s->polish.layers_reverted);
    hs_json_kv_bool(j, "uniform_kept_by_model", s->polish.reference_kept);
    if (s->ran && s->reference[0]) { /* the exact model's prices, as the text's line */
        hs_json_kv_number(j, "exact_s", s->polish.searched_s);
        hs_json_kv_number(j, "polished_s", s->polish.polished_s);
    }
    if (f->searched >= 0) {
        hs_json_key(j, "plan");
        candidate_json(j, &f->l->c[f->searched]);
    }
    hs_json_end(j);
}

void su_print_found_json(FILE *out, const su_found *f)
{
    const su_list *l = f->l;
    hs_json j;
    hs_json_init(&j, out);
    hs_json_object(&j);
    hs_json_kv_str(&j, "mode", "search");
    hs_json_kv_str(&j, "cost_model", "hybridsim");
    json_question(&j, f->q);
    hs_json_kv_str(&j, "strategy_file", f->path);
    hs_json_key(&j, "search_s");
    hs_json_printf(&j, "%.6f", l->search.seconds);
    hs_json_kv_int(&j, "candidates", l->n);
    hs_json_kv_int(&j, "simulated", l->simulated);
    hs_json_break(&j, "\n ");
    hs_json_key(&j, "searched");
    candidate_json(&j, &l->c[f->answer]); /* the command's answer */
    if (f->file) {
        hs_json_break(&j, "\n ");
        hs_json_kv_number(&j, "file_simulated_s", f->file->iteration.total_s);
    }
    model_choice_json(&j, l);
    hs_json_break(&j, "\n ");
    search_json(&j, f);
    if (f->builtin >= 0) {
        hs_json_break(&j, "\n ");
        hs_json_key(&j, "best_uniform");
        candidate_json(&j, &l->c[f->builtin]);
    }
    hs_json_end(&j);
    fputc('\n', out);
}
