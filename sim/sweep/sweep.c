/* sweep.c: `hybridsim sweep` (sweep.h): the cross product of lists, run one process per
 * configuration, gathered into one CSV.
 *
 * This file is the command's entry: it reads what the user asked for (sweep_config.c), plans
 * the configurations (sweep_plan.c) and takes one of three paths: the direct sweep below, which
 * resumes from the CSV (sweep_csv.c) and runs what is left (sweep_run.c); --emit, which writes
 * the runs as GNU parallel or Slurm jobs instead; and --merge, which gathers what those jobs
 * wrote (sweep_emit.c). sweep_int.h lists the files and what they share. */
#include "sweep.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "hs_out.h"
#include "sweep_int.h"

/* How a direct sweep's session ended, said on stderr (or in err); the finished CSV rewritten in
 * configuration order. */
static int finish(const sw_plan *plan, const sw_cmdline *cl, const sw_tally *t,
                  const char **line_of, const sw_table *old, const char *header, sw_arena *a,
                  char *err)
{
    int in_csv = t->skipped + t->done;
    char name[32];
    if (t->signal)
        return hs_fail(err, HS_SIGNALLED(t->signal),
                       "interrupted by %s: %d of %d configurations are in %s (whole rows); "
                       "run the same command again to finish",
                       hs_out_signal_name(t->signal, name, sizeof name), in_csv,
                       plan->n_configs, plan->output);
    if (in_csv < plan->n_configs) {
        if (!cl->quiet)
            fprintf(stderr, "sweep: stopped after %d runs (--stop-after); %d of %d "
                    "configurations are in %s\n", cl->stop_after, in_csv, plan->n_configs,
                    plan->output);
        return HS_OK;
    }
    int status = sw_csv_rewrite(plan, line_of, old, header, a, err);
    if (status == HS_OK && !cl->quiet)
        fprintf(stderr, "sweep: %d configurations in %s: %d run now (%d error, %d failed), "
                "%d from before\n", plan->n_configs, plan->output, t->done, t->errors,
                t->failed, t->skipped);
    return status;
}

/* The direct sweep: the rows already in the CSV kept, the other configurations run. */
static int run_direct(const sw_plan *plan, const sw_cmdline *cl, sw_arena *a, char *err)
{
    char exe[PATH_MAX];
    int status = sw_find_exe(cl->exe, exe, sizeof exe, err);
    if (status != HS_OK)
        return status;
    const char *header = sw_csv_header(a);
    sw_table old = {0};
    sw_tally tally = {0};
    const char **line_of = calloc((size_t)plan->n_configs + 1, sizeof *line_of);
    int *todo = calloc((size_t)plan->n_configs + 1, sizeof *todo);
    int n_todo = 0;
    sw_lock_file lock = {.fd = -1};
    if (!header || !line_of || !todo)
        status = hs_fail(err, HS_EINTERNAL, "out of memory");
    if (status == HS_OK && plan->log) /* checked before the CSV is touched: a refused run */
        status = hs_out_check("--log", plan->log, err); /* writes nothing */
    if (status == HS_OK)
        status = sw_lock(&lock, plan->output, err); /* before reading: another may be writing */
    if (status == HS_OK)
        status = sw_table_read(plan->output, header, &old, a, err);
    if (status == HS_OK)
        status = sw_resume(plan, &old, line_of, todo, &n_todo, err);
    /* Start from a clean file: a truncated last line would otherwise glue onto the next. */
    if (status == HS_OK)
        status = sw_csv_rewrite(plan, line_of, &old, header, a, err);
    if (status == HS_OK)
        status = sw_run(plan, cl, exe, line_of, todo, n_todo, &tally, a, err);
    if (status == HS_OK)
        status = finish(plan, cl, &tally, line_of, &old, header, a, err);
    sw_unlock(&lock);
    sw_table_free(&old);
    free(line_of);
    free(todo);
    return status;
}

/* The first flag typed that --merge does not take (it takes -o and --quiet), or NULL. */
static const char *merge_extra(const sw_spec *flags, const sw_cmdline *cl)
{
    for (int k = 0; k < SW_K_ALL; k++)
        if (k != SW_K_OUTPUT && flags->key[k].n)
            return flags->key[k].items[0].where;
    return cl->emit_kind ? "--emit" : cl->emit_dir ? "--emit-dir" : cl->exe ? "--exe"
           : cl->stop_after >= 0 ? "--stop-after" : NULL;
}

/* --merge DIR -o OUT.csv: nothing else (a flag that would be ignored is refused). */
static int merge(const sw_spec *flags, const sw_cmdline *cl, sw_arena *a, char *err)
{
    const sw_list *output = &flags->key[SW_K_OUTPUT];
    const sw_item *out = sw_single(output);
    if (cl->file)
        return hs_fail(err, HS_EINPUT, "--merge takes a directory and -o, not a sweep file");
    const char *extra = merge_extra(flags, cl);
    if (extra)
        return hs_fail(err, HS_EINPUT, "%s: not taken with --merge, which takes a directory, "
                       "-o and --quiet (the rows are the jobs' as they ran)", extra);
    int status = sw_check_single(output, err);
    if (status != HS_OK)
        return status;
    return sw_merge(cl->merge_dir, out ? out->text : NULL, cl->quiet, a, err);
}

static int by_text(const void *x, const void *y)
{
    const sw_item *a = *(const sw_item *const *)x, *b = *(const sw_item *const *)y;
    return strcmp(a->text, b->text);
}

/* A value given twice in one list would make every configuration with it come twice: refused
 * here, sorted in n log n, before any value is checked (checking loads workloads and
 * platforms: 100,000 copies of one took minutes). */
static int check_repeats(const sw_spec *spec, char *err)
{
    for (int k = 0; k < SW_K_COUNT; k++) {
        const sw_list *l = &spec->key[k];
        if (l->n < 2)
            continue;
        const sw_item **sorted = malloc((size_t)l->n * sizeof *sorted);
        if (!sorted)
            return hs_fail(err, HS_EINTERNAL, "out of memory");
        for (int i = 0; i < l->n; i++)
            sorted[i] = &l->items[i];
        qsort(sorted, (size_t)l->n, sizeof *sorted, by_text);
        const sw_item *twice = NULL;
        for (int i = 1; i < l->n && !twice; i++)
            if (strcmp(sorted[i - 1]->text, sorted[i]->text) == 0)
                twice = sorted[i];
        free(sorted);
        if (twice)
            return hs_fail(err, HS_EINPUT, "%s: '%s' is given more than once", twice->where,
                           twice->text);
    }
    return HS_OK;
}

/* The sweep file's lists with the flags' over them, planned, then emitted or run. */
static int sweep(sw_spec *flags, const sw_cmdline *cl, sw_arena *a, char *err)
{
    sw_spec file = {0};
    sw_plan plan = {0};
    int status = cl->file ? sw_read_sweep_file(cl->file, &file, a, err) : HS_OK;
    if (status == HS_OK) {
        sw_overlay(&file, flags);
        status = check_repeats(&file, err);
    }
    if (status == HS_OK && cl->emit_dir && !cl->emit_kind)
        status = hs_fail(err, HS_EINPUT, "--emit-dir %s: for --emit parallel|slurm FILE (the "
                         "jobs' rows), not a sweep run here (its rows go to -o)", cl->emit_dir);
    if (status == HS_OK && cl->emit_kind && cl->stop_after >= 0)
        status = hs_fail(err, HS_EINPUT, "--stop-after: for a sweep run here, not --emit "
                         "(which starts no run)");
    if (status == HS_OK) {
        status = sw_plan_make(&file, !cl->emit_kind, &plan, a, err);
    }
    if (status == HS_OK)
        status = cl->emit_kind ? sw_emit(&plan, cl, a, err) : run_direct(&plan, cl, a, err);
    sw_plan_free(&plan);
    sw_spec_free(&file);
    return status;
}

int sw_main(int argc, char **argv, char *err)
{
    sw_arena arena = {0};
    sw_spec flags = {0};
    sw_cmdline cl = {.stop_after = -1};
    int status = sw_parse_flags(argc, argv, &flags, &cl, &arena, err);
    if (status == HS_OK && cl.help)
        sw_print_usage(stdout);
    else if (status == HS_OK && cl.merge_dir)
        status = merge(&flags, &cl, &arena, err);
    else if (status == HS_OK)
        status = sweep(&flags, &cl, &arena, err);
    sw_spec_free(&flags);
    sw_arena_free(&arena);
    return status;
}
