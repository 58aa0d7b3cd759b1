/* sweep_emit.c: `hybridsim sweep --emit parallel|slurm` and `--merge` (sweep_int.h): a sweep's
 * runs handed to another scheduler, and their rows gathered back.
 *
 * Each job is a one-configuration sweep writing DIR/<index>.csv, so a job is as resumable and
 * as honest about failures as a direct sweep; the index is the configuration's place in the
 * direct sweep's order, so --merge, which gathers the files in index order, writes the same CSV
 * the direct sweep would. DIR/expected holds the number of jobs, so that --merge can name the
 * ones that have no row yet. */
#define _GNU_SOURCE
#include "sweep_int.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hs_error.h"
#include "hs_out.h"

/* ------------------------------------------------------------------------------------------ */
/* --emit. */

/* One job: cd to where the sweep was defined (relative paths keep their meaning), then a
 * one-configuration sweep writing DIR/<index>.csv. */
static char *job_command(const sw_plan *plan, const sw_config *c, int index, const char *cwd,
                         const char *exe, const char *dir, sw_arena *a)
{
    sw_buf b = {0};
    sw_buf_puts(&b, "cd ");
    sw_shell_word(&b, cwd);
    sw_buf_puts(&b, " && ");
    sw_shell_word(&b, exe);
    sw_buf_puts(&b, " sweep --quiet --jobs 1 --mode ");
    sw_buf_puts(&b, plan->mode);
    const char *pairs[][2] = {{" -w ", c->workload}, {" -p ", c->platform},
                              {" -s ", c->strategy}, {" -b ", c->rule->text},
                              {" -P ", c->placement}, {" -c ", c->collectives},
                              {" --allreduce ", c->allreduce},
                              {" --layers ", plan->layers}};
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
        if (!pairs[i][1])
            continue;
        sw_buf_puts(&b, pairs[i][0]);
        sw_shell_word(&b, pairs[i][1]);
    }
    for (int k = 0; k < js_n_keys; k++) /* the one-value job keys: --precision mixed, ... */
        if (plan->job_key[k]) {
            sw_buf_printf(&b, " --%s ", js_keys[k].name);
            sw_shell_word(&b, plan->job_key[k]);
        }
    sw_buf_printf(&b, " -g %d", c->gpus);
    if (c->micro_batches)
        sw_buf_printf(&b, " -S %d", c->micro_batches);
    if (plan->timeout_s > 0)
        sw_buf_printf(&b, " --timeout %g", plan->timeout_s);
    char *out = sw_arena_printf(a, "%s/%06d.csv", dir, index);
    sw_buf_puts(&b, " -o ");
    sw_shell_word(&b, out ? out : "");
    char *s = sw_buf_take(&b, a);
    return out ? s : NULL;
}

/* lines[i]: job i as a line of a GNU parallel job list, or a case of the Slurm script (which
 * then gets its closing lines in lines[n_configs]). */
static int job_lines(const sw_plan *plan, bool slurm, const char *cwd, const char *exe,
                     const char *dir, const char **lines, sw_arena *a, char *err)
{
    for (int i = 0; i < plan->n_configs; i++) {
        char *cmd = job_command(plan, &plan->configs[i], i, cwd, exe, dir, a);
        lines[i] = !cmd ? NULL
                   : slurm ? sw_arena_printf(a, "  %d) %s ;;\n", i, cmd)
                           : sw_arena_printf(a, "%s\n", cmd);
        if (!lines[i])
            return hs_fail(err, HS_EINTERNAL, "out of memory");
    }
    if (slurm)
        lines[plan->n_configs] = "  *) echo \"no configuration $SLURM_ARRAY_TASK_ID\" >&2; "
                                 "exit 2 ;;\nesac\n";
    return HS_OK;
}

/* The Slurm script's head: an array of one task per configuration, then `case` on its index.
 * The tasks start where the sweep was defined (--chdir), so that the relative --output
 * resolves there wherever sbatch is run from (a task whose output file cannot be opened fails
 * without a word); sbatch reads a double-quoted #SBATCH value whole. */
static char *slurm_head(const char *file, const char *dir, const char *cwd, int n_configs,
                        sw_arena *a)
{
    bool quote = strpbrk(cwd, " \t'") != NULL;
    return sw_arena_printf(a,
                           "#!/bin/bash\n"
                           "# hybridsim sweep as a Slurm job array: one configuration per task.\n"
                           "# Submit: sbatch %s   Gather: hybridsim sweep --merge %s -o OUT.csv\n"
                           "#SBATCH --job-name=hybridsim-sweep\n"
                           "#SBATCH --array=0-%d\n"
                           "#SBATCH --ntasks=1\n"
                           "#SBATCH --cpus-per-task=1\n"
                           "#SBATCH --chdir=%s%s%s\n"
                           "#SBATCH --output=%s/slurm-%%A_%%a.out\n"
                           "set -eu\n"
                           "case \"${SLURM_ARRAY_TASK_ID:?run me with sbatch}\" in\n",
                           file, dir, n_configs - 1, quote ? "\"" : "", cwd, quote ? "\"" : "",
                           dir);
}

/* DIR/expected: the number of jobs, so that --merge can say which are missing. */
static int write_expected(const char *dir, int n_configs, sw_arena *a, char *err)
{
    char *path = sw_arena_printf(a, "%s/expected", dir);
    char *count = sw_arena_printf(a, "%d\n", n_configs);
    if (!path || !count)
        return hs_fail(err, HS_EINTERNAL, "out of memory");
    const char *count_line[1] = {count};
    return sw_write_atomic("--emit-dir", path, NULL, count_line, 1, err);
}

/* The job list or script, written whole (temp file and rename). */
static int write_jobs(const sw_plan *plan, const sw_cmdline *cl, const char *cwd,
                      const char *exe, const char *dir, sw_arena *a, char *err)
{
    bool slurm = strcmp(cl->emit_kind, "slurm") == 0;
    const char **lines = calloc((size_t)plan->n_configs + 1, sizeof *lines);
    if (!lines)
        return hs_fail(err, HS_EINTERNAL, "out of memory");
    int status = job_lines(plan, slurm, cwd, exe, dir, lines, a, err);
    const char *file = hs_out_is_stdout(cl->emit_file) ? "THIS_SCRIPT" : cl->emit_file;
    const char *head = slurm ? slurm_head(file, dir, cwd, plan->n_configs, a) : "";
    if (status == HS_OK && !head)
        status = hs_fail(err, HS_EINTERNAL, "out of memory");
    if (status == HS_OK)
        status = sw_write_atomic("--emit", cl->emit_file, head, lines,
                                 plan->n_configs + (slurm ? 1 : 0), err);
    free(lines);
    return status;
}

int sw_emit(const sw_plan *plan, const sw_cmdline *cl, sw_arena *a, char *err)
{
    char exe[PATH_MAX], cwd[PATH_MAX];
    int status = sw_find_exe(cl->exe, exe, sizeof exe, err);
    if (status != HS_OK)
        return status;
    if (!getcwd(cwd, sizeof cwd))
        return hs_fail(err, HS_EINTERNAL, "getcwd: %s", strerror(errno));
    if (!cl->emit_dir && hs_out_is_stdout(cl->emit_file))
        return hs_fail(err, HS_EINPUT, "--emit %s -: give --emit-dir DIR, where the jobs write "
                       "their rows (by default FILE.d, beside the job file)", cl->emit_kind);
    const char *dir = cl->emit_dir ? cl->emit_dir : sw_arena_printf(a, "%s.d", cl->emit_file);
    if (!dir)
        return hs_fail(err, HS_EINTERNAL, "out of memory");
    /* Both outputs checked before either is made: a refused run writes nothing. */
    struct stat st;
    if ((status = hs_out_check("--emit", cl->emit_file, err)))
        return status;
    bool made = false;
    if (stat(dir, &st) == 0 && !S_ISDIR(st.st_mode))
        return hs_fail(err, HS_EINPUT, "--emit-dir %s: is not a directory", dir);
    if (mkdir(dir, 0777) == 0)
        made = true;
    else if (errno != EEXIST)
        return hs_fail(err, HS_EINPUT, "--emit-dir %s: cannot create: %s", dir, strerror(errno));
    if ((status = write_jobs(plan, cl, cwd, exe, dir, a, err)) ||
        (status = write_expected(dir, plan->n_configs, a, err))) {
        if (made)
            rmdir(dir); /* only when still empty: a partial write_expected is a temp, gone */
        return status;
    }
    /* a script to run; never chmod a device it was written to */
    if (strcmp(cl->emit_kind, "slurm") == 0 && !hs_out_is_stdout(cl->emit_file) &&
        stat(cl->emit_file, &st) == 0 &&
        S_ISREG(st.st_mode))
        chmod(cl->emit_file, 0755);
    if (!cl->quiet)
        fprintf(stderr,
                "sweep: wrote %d jobs to %s; their rows go to %s/; then: hybridsim sweep "
                "--merge %s -o OUT.csv\n",
                plan->n_configs,
                hs_out_is_stdout(cl->emit_file) ? "standard output" : cl->emit_file, dir, dir);
    return HS_OK;
}

/* ------------------------------------------------------------------------------------------ */
/* --merge. */

static int by_number(const void *x, const void *y)
{
    long a = *(const long *)x, b = *(const long *)y;
    return (a > b) - (a < b);
}

/* The job outputs of DIR (000012.csv, ...) in index order. */
static int list_job_files(const char *dir, long **indices, int *n, char *err)
{
    DIR *d = opendir(dir);
    if (!d)
        return hs_fail(err, HS_EINPUT, "--merge %s: %s", dir, strerror(errno));
    size_t cap = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t digits = strspn(e->d_name, "0123456789");
        if (digits == 0 || strcmp(e->d_name + digits, ".csv") != 0)
            continue;
        if (!hs_grow((void **)indices, &cap, (size_t)*n + 1, sizeof **indices)) {
            closedir(d);
            return hs_fail(err, HS_EINTERNAL, "out of memory");
        }
        (*indices)[(*n)++] = strtol(e->d_name, NULL, 10);
    }
    closedir(d);
    if (*n > 1) /* qsort must not be given NULL, even for no element */
        qsort(*indices, (size_t)*n, sizeof **indices, by_number);
    return HS_OK;
}

/* Name (up to ten of) the jobs of DIR/expected that have no row: indices[0..n) are those that
 * have one, in order. */
static void report_missing(const char *dir, const long *indices, int n, sw_arena *a)
{
    char *expected_path = sw_arena_printf(a, "%s/expected", dir);
    long expected = expected_path ? strtol(sw_slurp(expected_path, a), NULL, 10) : 0;
    if (expected <= n)
        return;
    char list[256] = "";
    int shown = 0, k = 0;
    for (long i = 0; i < expected && shown < 10; i++) {
        while (k < n && indices[k] < i)
            k++;
        if (k < n && indices[k] == i)
            continue;
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%06ld", shown ? ", " : "", i);
        shown++;
    }
    fprintf(stderr, "sweep: merge: %ld of %ld jobs have no row yet (%s%s); merged the rest\n",
            expected - n, expected, list, expected - n > shown ? ", ..." : "");
}

/* The current rows of one job's file appended to lines[]; *has_row: it has any (a job killed
 * early leaves only the header). */
static int merge_file(const char *path, const char *header, const char ***lines, int *n_lines,
                      size_t *cap, bool *has_row, sw_arena *a, char *err)
{
    sw_table t = {0};
    int status = sw_table_read(path, header, &t, a, err);
    if (status == HS_OK)
        status = sw_table_supersede(&t, err);
    for (int k = 0; status == HS_OK && k < t.n; k++) {
        if (t.rows[k].superseded)
            continue;
        if (!hs_grow((void **)lines, cap, (size_t)*n_lines + 1, sizeof **lines))
            status = hs_fail(err, HS_EINTERNAL, "out of memory");
        else
            (*lines)[(*n_lines)++] = t.rows[k].line;
    }
    *has_row = t.n > 0;
    sw_table_free(&t);
    return status;
}

int sw_merge(const char *dir, const char *output, bool quiet, sw_arena *a, char *err)
{
    if (!output)
        return hs_fail(err, HS_EINPUT, "--merge needs -o OUT.csv");
    const char *header = sw_csv_header(a);
    if (!header)
        return hs_fail(err, HS_EINTERNAL, "out of memory");
    long *indices = NULL;
    const char **lines = NULL;
    int n = 0, n_lines = 0, with_row = 0;
    size_t cap = 0;
    int status = list_job_files(dir, &indices, &n, err);
    char *expected = sw_arena_printf(a, "%s/expected", dir);
    if (status == HS_OK && n == 0 && expected && access(expected, F_OK) != 0)
        status = hs_fail(err, HS_EINPUT, "--merge %s: no job's rows (000000.csv, ...) and no "
                         "'expected' file: not a folder that --emit made (its --emit-dir)", dir);
    for (int i = 0; i < n && status == HS_OK; i++) {
        char *path = sw_arena_printf(a, "%s/%06ld.csv", dir, indices[i]);
        bool has_row = false;
        status = path ? merge_file(path, header, &lines, &n_lines, &cap, &has_row, a, err)
                      : hs_fail(err, HS_EINTERNAL, "out of memory");
        if (status == HS_OK && has_row)
            indices[with_row++] = indices[i]; /* indices[0..with_row): the jobs with a row */
    }
    if (status == HS_OK)
        status = sw_write_atomic("-o", output, header, lines, n_lines, err);
    if (status == HS_OK && !quiet) {
        report_missing(dir, indices, with_row, a);
        fprintf(stderr, "sweep: merged %d row%s from %s into %s\n", n_lines,
                n_lines == 1 ? "" : "s", dir,
                hs_out_is_stdout(output) ? "standard output" : output);
    }
    free(indices);
    free(lines);
    return status;
}
