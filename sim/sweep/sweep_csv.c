/* sweep_csv.c: the sweep's CSV (sweep_int.h): its columns, rows from runs, and reading it
 * back; sweep_table.c resumes from what was read and writes the file.
 *
 * The CSV is the sweep's memory. Rows are appended whole, one write() then fsync() each, as
 * runs finish, so an interruption (Ctrl-C, SIGKILL, a crash of the machine) loses at most the
 * runs in flight and can truncate only the last line. A restart reads the file, drops a
 * truncated last line, and skips every configuration whose key column is already there. When
 * every run is done, the file is rewritten in configuration order (temp file, fsync, rename),
 * so the same sweep gives the same file whatever order its runs finished in. One header, one
 * row per configuration, RFC 4180 quoting. */
#define _GNU_SOURCE
#include "sweep_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include "hs_error.h"
#include "hs_out.h"

enum {
    C_KEY, C_MODE, C_WORKLOAD, C_PLATFORM, C_STRATEGY, C_GPUS, C_BATCH_RULE, C_MICRO,
    C_PLACEMENT, C_COLLECTIVES, C_LAYERS, C_BATCH, C_P1, C_P2, C_ITERATIONS,
    C_AN, /* 8 columns: iteration compute, comm, exposed comm, total; epoch the same */
    C_SIM = C_AN + 8,
    C_MEMORY = C_SIM + 8, C_FITS, C_AGREEMENT,
    C_CONGESTION, C_TOP_KIND, C_TOP_UTIL, /* the simulation's links (--links-summary) */
    C_WALL, C_STATUS, C_MESSAGE, C_COUNT
};

static const char *const column_names[C_COUNT] = {
    "key", "mode", "workload", "platform", "strategy", "gpus", "batch_rule", "micro_batches",
    "placement", "collectives", "layers", "batch", "p1", "p2", "iterations_per_epoch",
    "an_iter_compute_s", "an_iter_comm_s", "an_iter_exposed_comm_s", "an_iter_total_s",
    "an_epoch_compute_s", "an_epoch_comm_s", "an_epoch_exposed_comm_s", "an_epoch_total_s",
    "sim_iter_compute_s", "sim_iter_comm_s", "sim_iter_exposed_comm_s", "sim_iter_total_s",
    "sim_epoch_compute_s", "sim_epoch_comm_s", "sim_epoch_exposed_comm_s", "sim_epoch_total_s",
    "memory_per_gpu_bytes", "fits_in_memory", "agreement", "sim_congestion_share",
    "sim_top_link_kind", "sim_top_link_mean_utilisation", "wall_s", "status", "message",
};

/* The simulation's link columns, as the run's JSON names them (absent: empty; the top link
 * is absent when no message crossed a link). */
static const struct {
    const char *path;
    int column;
} link_fields[] = {
    {"simulate.links.congestion_share", C_CONGESTION},
    {"simulate.links.top.0.kind", C_TOP_KIND},
    {"simulate.links.top.0.mean_utilisation", C_TOP_UTIL},
};

/* A side's eight time columns (C_AN.. or C_SIM..), as the JSON names them under the side. */
static const char *const time_fields[8] = {
    "iteration.compute_s", "iteration.comm_s", "iteration.exposed_comm_s", "iteration.total_s",
    "epoch.compute_s", "epoch.comm_s", NULL /* epoch exposed: computed */, "epoch.total_s",
};

/* What else a row takes from a side of the JSON (the first side, when there are two). */
static const struct {
    const char *name; /* under the side */
    int column;       /* C_*, or -1: required of the run but not shown (the key has the rule) */
} side_fields[] = {
    {"batch", -1}, {"p1", C_P1}, {"p2", C_P2}, {"iterations_per_epoch", C_ITERATIONS},
    {"memory_per_gpu_bytes", C_MEMORY}, {"fits_in_memory", C_FITS},
};
#define N_SIDE_FIELDS ((int)(sizeof side_fields / sizeof side_fields[0]))

/* ------------------------------------------------------------------------------------------ */
/* Rows from runs. */

static void csv_field(sw_buf *b, const char *s)
{
    if (!strpbrk(s, ",\"\r\n")) {
        sw_buf_puts(b, s);
        return;
    }
    sw_buf_puts(b, "\"");
    for (; *s; s++) {
        if (*s == '"')
            sw_buf_puts(b, "\""); /* a quote inside a quoted field is doubled */
        sw_buf_add(b, s, 1);
    }
    sw_buf_puts(b, "\"");
}

/* n fields (NULL: empty) as one record, newline included. */
static char *csv_record(const char *const *fields, int n, sw_arena *a)
{
    sw_buf b = {0};
    for (int i = 0; i < n; i++) {
        if (i)
            sw_buf_puts(&b, ",");
        csv_field(&b, fields[i] ? fields[i] : "");
    }
    sw_buf_puts(&b, "\n");
    return sw_buf_take(&b, a);
}

/* The job keys with a column of their own: every key a sweep can set that is not the job's own
 * (workload, strategy, gpus, ... have theirs above), so that rows of different settings are
 * told apart by a column, not only by their key; a key added to js_keys comes along. A switch
 * (overlap) has none: its value is in the row's key ("|overlap=on"), and the columns stay
 * those of the sweeps written before it was a key. */
static bool job_column(int k)
{
    return (js_keys[k].scope & JS_IN_SWEEP) && !js_keys[k].job_own &&
           js_keys[k].type != JS_SWITCH;
}

/* A row's fields are indexed by C_* and, for job key k, C_JOB + k; N_FIELDS in all. */
#define C_JOB C_COUNT
#define N_FIELDS (C_COUNT + JS_MAX_KEYS)

static const char *field_name(int f)
{
    return f < C_JOB ? column_names[f] : js_keys[f - C_JOB].name;
}

/* The fields in the file's order: the configuration's columns up to layers, the job keys' (in
 * the table's order), then the rest. Returns how many. */
static int field_order(int *order)
{
    int n = 0;
    for (int i = 0; i <= C_LAYERS; i++)
        order[n++] = i;
    for (int k = 0; k < js_n_keys; k++)
        if (job_column(k))
            order[n++] = C_JOB + k;
    for (int i = C_LAYERS + 1; i < C_COUNT; i++)
        order[n++] = i;
    return n;
}

/* A row's fields (N_FIELDS, NULL: empty) as a record in the file's order. */
static char *fields_record(const char *const *fields, sw_arena *a)
{
    int order[N_FIELDS], n = field_order(order);
    const char *in_order[N_FIELDS];
    for (int i = 0; i < n; i++)
        in_order[i] = fields[order[i]];
    return csv_record(in_order, n, a);
}

static int csv_split(char *line, char **fields, int max);

char *sw_csv_header(sw_arena *a)
{
    const char *names[N_FIELDS];
    for (int f = 0; f < N_FIELDS; f++)
        names[f] = f < C_JOB || f - C_JOB < js_n_keys ? field_name(f) : NULL;
    return fields_record(names, a);
}

/* Sweeps written before the link columns or the job keys' columns have headers without them;
 * their rows are read with the links empty and the job keys taken from the row's key ("...|
 * precision=mixed") and the strategy column (" --allreduce A"), so that such a sweep resumes
 * and is rewritten with the columns instead of being refused. */
static bool addable(int f)
{
    return f >= C_JOB || (f >= C_CONGESTION && f <= C_TOP_UTIL);
}

/* The header line (without its newline) -> map[i], the field of its column i; its number of
 * columns, or -1 when it is not a sweep CSV's header of this version or an earlier one. */
static int header_map(char *line, int *map)
{
    char *names[N_FIELDS + 1];
    int n = csv_split(line, names, N_FIELDS + 1), order[N_FIELDS], n_fields = field_order(order);
    bool have[N_FIELDS] = {false};
    if (n < 1 || n > n_fields)
        return -1;
    for (int i = 0, f = 0; i < n; i++) {
        while (f < n_fields && strcmp(field_name(order[f]), names[i]) != 0) {
            if (!addable(order[f]))
                return -1; /* a column missing that no earlier version lacked */
            f++;
        }
        if (f == n_fields)
            return -1; /* unknown, or out of order */
        map[i] = order[f];
        have[order[f++]] = true;
    }
    for (int f = 0; f < n_fields; f++)
        if (!have[order[f]] && !addable(order[f]))
            return -1;
    return n;
}

/* The job keys' columns of a row read from an earlier sweep, from its key and strategy. */
static void fields_from_key(const char **fields, sw_arena *a)
{
    const char *p = fields[C_KEY], *al;
    for (int bars = 0; *p && bars < 10; p++)
        bars += *p == '|'; /* the key's first ten parts are the columns above */
    while (*p) {
        size_t n = strcspn(p, "|"), eq = strcspn(p, "=");
        char *name = sw_arena_strndup(a, p, eq < n ? eq : n);
        int k = name ? js_find(name) : -1;
        if (k >= 0 && eq < n && job_column(k))
            fields[C_JOB + k] = sw_arena_strndup(a, p + eq + 1, n - eq - 1);
        p += n + (p[n] == '|');
    }
    int k = js_find("allreduce");
    if (k >= 0 && !fields[C_JOB + k] && fields[C_STRATEGY] &&
        (al = strstr(fields[C_STRATEGY], " --allreduce ")))
        fields[C_JOB + k] = al + strlen(" --allreduce ");
}

/* The sides a mode's JSON has. */
static int mode_sides(const char *mode, const char **sides)
{
    if (strcmp(mode, "compare") == 0) {
        sides[0] = "analytic";
        sides[1] = "simulate";
        return 2;
    }
    sides[0] = mode;
    return 1;
}

/* side.name in the JSON, NULL if absent. */
static const char *side_get(const sw_json *j, const char *side, const char *name, sw_arena *a)
{
    char *path = sw_arena_printf(a, "%s.%s", side, name);
    return path ? sw_json_get(j, path) : NULL;
}

/* NULL if the JSON has side.name, else the missing path (or "memory" when out of it). */
static const char *side_missing(const sw_json *j, const char *side, const char *name,
                                sw_arena *a)
{
    char *path = sw_arena_printf(a, "%s.%s", side, name);
    if (!path)
        return "memory";
    return sw_json_get(j, path) ? NULL : path;
}

const char *sw_csv_missing(const sw_json *j, const char *mode, sw_arena *a)
{
    const char *sides[2], *missing;
    int n = mode_sides(mode, sides);
    for (int s = 0; s < n; s++) {
        for (int i = 0; i < 8; i++)
            if (time_fields[i] && (missing = side_missing(j, sides[s], time_fields[i], a)))
                return missing;
        for (int i = 0; i < N_SIDE_FIELDS; i++)
            if ((missing = side_missing(j, sides[s], side_fields[i].name, a)))
                return missing;
    }
    if (n == 2 && !sw_json_get(j, "agreement"))
        return "agreement";
    return NULL;
}

/* One side's eight time columns. The epoch's exposed communication is not in the JSON; it
 * scales like communication, with the iterations (estimate.h's rule). */
static void side_columns(const sw_json *j, const char *side, const char **col, sw_arena *a)
{
    for (int i = 0; i < 8; i++)
        if (time_fields[i])
            col[i] = side_get(j, side, time_fields[i], a);
    const char *e = side_get(j, side, "iteration.exposed_comm_s", a);
    const char *it = side_get(j, side, "iterations_per_epoch", a);
    if (e && it)
        col[6] = sw_arena_printf(a, "%.17g", strtod(e, NULL) * strtod(it, NULL));
}

/* The columns that say what ran: the configuration's own fields. */
static void config_columns(const sw_plan *plan, const sw_config *c, const char **col,
                           sw_arena *a)
{
    col[C_KEY] = c->key;
    col[C_MODE] = plan->mode;
    col[C_WORKLOAD] = c->workload;
    col[C_PLATFORM] = c->platform;
    col[C_STRATEGY] = c->shown;
    col[C_GPUS] = sw_arena_printf(a, "%d", c->gpus);
    col[C_BATCH_RULE] = c->rule->text;
    if (c->micro_batches)
        col[C_MICRO] = sw_arena_printf(a, "%d", c->micro_batches);
    col[C_PLACEMENT] = c->placement ? c->placement : "";
    col[C_COLLECTIVES] = c->collectives ? c->collectives : "";
    col[C_LAYERS] = plan->layers ? plan->layers : "";
    if (c->batch)
        col[C_BATCH] = sw_arena_printf(a, "%lld", (long long)c->batch);
    for (int k = 0; k < js_n_keys; k++)
        if (job_column(k) && plan->job_key[k])
            col[C_JOB + k] = plan->job_key[k];
    int k = js_find("allreduce"); /* a dimension of the sweep, not one value for every run */
    if (k >= 0 && c->allreduce)
        col[C_JOB + k] = c->allreduce;
}

/* The columns a successful run's JSON fills. */
static void json_columns(const char *mode, const sw_json *j, const char **col, sw_arena *a)
{
    const char *sides[2];
    int n = mode_sides(mode, sides);
    for (int i = 0; i < N_SIDE_FIELDS; i++)
        if (side_fields[i].column >= 0)
            col[side_fields[i].column] = side_get(j, sides[0], side_fields[i].name, a);
    for (int s = 0; s < n; s++)
        side_columns(j, sides[s], col + (strcmp(sides[s], "analytic") == 0 ? C_AN : C_SIM), a);
    if (n == 2)
        col[C_AGREEMENT] = sw_json_get(j, "agreement");
    for (size_t i = 0; i < sizeof link_fields / sizeof link_fields[0]; i++)
        col[link_fields[i].column] = sw_json_get(j, link_fields[i].path);
}

char *sw_csv_row(const sw_plan *plan, const sw_config *c, const sw_outcome *o, sw_arena *a)
{
    const char *col[N_FIELDS];
    for (int i = 0; i < N_FIELDS; i++)
        col[i] = "";
    config_columns(plan, c, col, a);
    if (o->json)
        json_columns(plan->mode, o->json, col, a);
    col[C_WALL] = sw_arena_printf(a, "%.3f", o->wall_s);
    col[C_STATUS] = o->status;
    col[C_MESSAGE] = o->message;
    return fields_record(col, a);
}

/* ------------------------------------------------------------------------------------------ */
/* Reading a CSV back. */

/* Split one record in place (quotes removed); the number of fields, or -1 if a quote is open. */
static int csv_split(char *line, char **fields, int max)
{
    int n = 0;
    char *p = line;
    for (;;) {
        char *out = p, *start = p;
        if (*p == '"') {
            p++;
            for (;;) {
                if (*p == '\0')
                    return -1;
                if (*p == '"' && p[1] == '"') {
                    *out++ = '"';
                    p += 2;
                } else if (*p == '"') {
                    p++;
                    break;
                } else {
                    *out++ = *p++;
                }
            }
        } else {
            while (*p && *p != ',')
                *out++ = *p++;
        }
        if (*p != ',' && *p != '\0')
            return -1; /* text after a closing quote */
        char sep = *p;
        *out = '\0';
        if (n < max)
            fields[n] = start;
        n++;
        if (sep == '\0')
            return n;
        p++;
    }
}

/* One record into t; map: of a sweep written before some columns (map_n of them, map[i] the
 * field of column i; they are added, as header_map says), NULL: of this version. */
static int add_row(sw_table *t, const char *path, int line_no, const char *line, size_t len,
                   const int *map, int map_n, sw_arena *a, char *err)
{
    char *record = sw_arena_strndup(a, line, len);
    char *fields_text = sw_arena_strndup(a, line, len - 1); /* without the newline */
    if (!record || !fields_text)
        return hs_fail(err, HS_EINTERNAL, "out of memory");
    char *split[N_FIELDS];
    const char *fields[N_FIELDS] = {NULL};
    int order[N_FIELDS], expected = map ? map_n : field_order(order);
    int n = csv_split(fields_text, split, N_FIELDS);
    if (n != expected)
        return hs_fail(err, HS_EINPUT, "%s:%d: %s (expected %d fields); fix or remove the line",
                       path, line_no, n < 0 ? "an unclosed quote" : "wrong number of fields",
                       expected);
    for (int i = 0; i < n; i++)
        fields[map ? map[i] : order[i]] = split[i];
    if (map) {
        fields_from_key(fields, a);
        if (!(record = fields_record(fields, a)))
            return hs_fail(err, HS_EINTERNAL, "out of memory");
    }
    if (!hs_grow((void **)&t->rows, &t->cap, (size_t)t->n + 1, sizeof *t->rows))
        return hs_fail(err, HS_EINTERNAL, "out of memory");
    t->rows[t->n++] = (sw_row){fields[C_KEY], fields[C_STATUS], record, false, false};
    return HS_OK;
}

/* The CSV's records into t; a read error is an error, not the end of the file. */
static int read_records(FILE *f, const char *path, const char *header, sw_table *t,
                        sw_arena *a, char *err)
{
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    int line_no = 0, status = HS_OK, map[N_FIELDS], map_n = 0;
    bool previous = false;
    while (status == HS_OK && (len = getline(&line, &cap, f)) > 0) {
        line_no++;
        if (line[len - 1] != '\n') {
            t->truncated = 1; /* the last line of an interrupted write: that run runs again */
            break;
        }
        if (line_no == 1) {
            char *names = strcmp(line, header) != 0 ? sw_arena_strndup(a, line, (size_t)len - 1)
                                                    : NULL;
            previous = names && (map_n = header_map(names, map)) > 0;
            if (names && !previous)
                status = hs_fail(err, HS_EINPUT,
                                 "%s:1: not a hybridsim sweep CSV of this version (the header "
                                 "differs); write to another file",
                                 path);
            continue;
        }
        status = add_row(t, path, line_no, line, (size_t)len, previous ? map : NULL, map_n, a,
                         err);
    }
    if (status == HS_OK && ferror(f))
        status = hs_fail(err, HS_EINTERNAL, "%s: read error: %s", path, strerror(errno));
    free(line);
    return status;
}

int sw_table_read(const char *path, const char *header, sw_table *t, sw_arena *a, char *err)
{
    FILE *f = NULL;
    int status = hs_in_open(path, true, &f, err);
    if (status == HS_EINPUT) { /* a device would never end, and cannot be rewritten */
        char why[HS_ERR_LEN];
        snprintf(why, sizeof why, "%s", err);
        return hs_fail(err, status, "%s (a sweep reads its CSV back to resume: give a file)",
                       why);
    }
    if (status != HS_OK || !f)
        return status;
    status = read_records(f, path, header, t, a, err);
    fclose(f);
    return status;
}

void sw_table_free(sw_table *t)
{
    free(t->rows);
    *t = (sw_table){0};
}
