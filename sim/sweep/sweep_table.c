/* sweep_table.c: a sweep CSV read back (sweep_csv.c), matched to the plan's configurations to
 * resume, and the file written so that no interruption leaves half of it (sweep_int.h).
 *
 * A resumed sweep keeps the rows whose key a configuration has and that ended ok or in error,
 * runs the others again, and in the end rewrites the file in configuration order (temp file,
 * fsync, rename) with the rows of other sweeps after. Rows are appended one write() and
 * fsync() each as runs finish. */
#include "sweep_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include "hs_error.h"
#include "hs_out.h"

/* ------------------------------------------------------------------------------------------ */
/* Resuming: the rows already there, by key. */

typedef struct {
    const char *key; /* a row's key */
    int row;         /* its index in the table */
} sw_keyref;

static int keyref_cmp(const void *x, const void *y)
{
    const sw_keyref *a = x, *b = y;
    int c = strcmp(a->key, b->key);
    return c ? c : (a->row > b->row) - (a->row < b->row);
}

static int keyref_find(const void *key, const void *ref)
{
    return strcmp((const char *)key, ((const sw_keyref *)ref)->key);
}

/* Index the rows by key; of rows sharing a key the last one counts (a run that failed, then ran
 * again on resume, appears twice until the file is rewritten), the others are superseded. */
static sw_keyref *table_index(sw_table *t, int *n_refs)
{
    sw_keyref *refs = malloc(((size_t)t->n + 1) * sizeof *refs);
    if (!refs)
        return NULL;
    for (int i = 0; i < t->n; i++)
        refs[i] = (sw_keyref){t->rows[i].key, i};
    qsort(refs, (size_t)t->n, sizeof *refs, keyref_cmp);
    int n = 0;
    for (int i = 0; i < t->n; i++) {
        if (i + 1 < t->n && strcmp(refs[i].key, refs[i + 1].key) == 0) {
            t->rows[refs[i].row].superseded = true;
            continue;
        }
        refs[n++] = refs[i];
    }
    *n_refs = n;
    return refs;
}

int sw_table_supersede(sw_table *t, char *err)
{
    int n_refs = 0;
    sw_keyref *refs = table_index(t, &n_refs);
    if (!refs)
        return hs_fail(err, HS_EINTERNAL, "out of memory");
    free(refs);
    return HS_OK;
}

int sw_resume(const sw_plan *plan, sw_table *old, const char **line_of, int *todo, int *n_todo,
              char *err)
{
    int n_refs = 0;
    sw_keyref *refs = table_index(old, &n_refs);
    if (!refs)
        return hs_fail(err, HS_EINTERNAL, "out of memory");
    *n_todo = 0;
    for (int i = 0; i < plan->n_configs; i++) {
        const sw_keyref *ref = bsearch(plan->configs[i].key, refs, (size_t)n_refs, sizeof *refs,
                                       keyref_find);
        if (ref) {
            sw_row *row = &old->rows[ref->row];
            row->matched = true;
            line_of[i] = row->line; /* kept even if failed: the rerun's row replaces it */
            /* Kept: a result (ok) or bad input (error). Run again: failed, and a status this
             * sweep never writes (a row edited by hand, or cut short). */
            if (!strcmp(row->status, "ok") || !strcmp(row->status, "error"))
                continue;
        }
        todo[(*n_todo)++] = i;
    }
    free(refs);
    return HS_OK;
}

/* ------------------------------------------------------------------------------------------ */
/* Writing. */

/* The CSV's lines in final order: the configurations' rows, then rows of other sweeps. */
static const char **final_lines(const sw_plan *plan, const char **line_of, const sw_table *old,
                                int *n)
{
    const char **lines = malloc(((size_t)plan->n_configs + (size_t)old->n + 1) * sizeof *lines);
    if (!lines)
        return NULL;
    *n = 0;
    for (int i = 0; i < plan->n_configs; i++)
        if (line_of[i])
            lines[(*n)++] = line_of[i];
    for (int i = 0; i < old->n; i++)
        if (!old->rows[i].matched && !old->rows[i].superseded)
            lines[(*n)++] = old->rows[i].line;
    return lines;
}

int sw_csv_rewrite(const sw_plan *plan, const char **line_of, const sw_table *old,
                   const char *header, sw_arena *a, char *err)
{
    int n = 0;
    const char **lines = final_lines(plan, line_of, old, &n);
    if (!lines)
        return hs_fail(err, HS_EINTERNAL, "out of memory");
    int status = sw_write_atomic("-o", plan->output, header, lines, n, err);
    free(lines);
    return status;
}

/* A reader (or an interruption) sees the old file or the new one, never half of one. */
int sw_write_atomic(const char *flag, const char *path, const char *header,
                    const char *const *lines, int n, char *err)
{
    hs_out out;
    int status = hs_out_open(&out, flag, path, err);
    if (status != HS_OK)
        return status;
    out.sync = true; /* hours of runs: on disk before the old file goes */
    if (header)
        fputs(header, out.f);
    for (int i = 0; i < n; i++)
        fputs(lines[i], out.f);
    return hs_out_commit(&out, err);
}

/* One write per row: an interruption leaves whole rows and at worst one truncated last line,
 * which the next reading drops. */
int sw_append_row(int fd, const char *path, const char *line, char *err)
{
    size_t len = strlen(line);
    while (len > 0) {
        ssize_t w = write(fd, line, len);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0)
            return hs_fail(err, HS_EINTERNAL, "%s: cannot append a row: %s", path,
                           strerror(errno));
        line += w;
        len -= (size_t)w;
    }
    if (fsync(fd) != 0)
        return hs_fail(err, HS_EINTERNAL, "%s: fsync: %s", path, strerror(errno));
    return HS_OK;
}
