/* sweep_int.h: what the files of `hybridsim sweep` share (sweep.h is the module's public face).
 *
 * The sweep is one module split by concern, in the order a sweep goes through them:
 *   sweep.c         sw_main: the command's three paths (run, --emit, --merge); the direct sweep
 *   sweep_config.c  the sweep file and the flags -> lists of values (sw_spec, sw_cmdline)
 *   sweep_plan.c    the lists checked -> the configurations in order (sw_plan)
 *   sweep_workload.c  the plan's check that a workload loads, remembered per file
 *   sweep_platform.c  the plan's GPUs per node of a platform, read from its XML head
 *   sweep_run.c     the process pool: one child per configuration, timeouts, signals
 *   sweep_progress.c  its progress on stderr
 *   sweep_json.c    a child's JSON output, read with json-c
 *   sweep_csv.c     the CSV: its columns, rows from runs, reading it back
 *   sweep_table.c   the CSV read back matched to the plan (resume); atomic writes, appends
 *   sweep_emit.c    --emit parallel|slurm and --merge
 *   sweep_lock.c    one sweep at a time on a CSV (a lock file beside it)
 *   sweep_mem.c     memory and text: the string arena, growing arrays, a text buffer
 * Nothing here is for use outside sim/sweep*.c. */
#ifndef SWEEP_INT_H
#define SWEEP_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "hs_grow.h"
#include "job_keys.h"

/* ------------------------------------------------------------------------------------------ */
/* Memory (sweep_mem.c): strings live in an arena freed once at the end; arrays grow with
 * hs_grow. */

typedef struct {
    struct sw_block *head; /* the newest block (sweep_mem.c) */
} sw_arena;

/* n bytes that live until sw_arena_free; NULL when out of memory (as for every sw_arena_*). */
void *sw_arena_alloc(sw_arena *a, size_t n);
void sw_arena_free(sw_arena *a);
char *sw_arena_strndup(sw_arena *a, const char *s, size_t n);
char *sw_arena_strdup(sw_arena *a, const char *s);
char *sw_arena_printf(sw_arena *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));


/* A growing text buffer whose first allocation failure sticks (checked once, at the end). */
typedef struct {
    char *data;      /* NUL-terminated */
    size_t len;      /* bytes used (without the NUL) */
    size_t cap;      /* bytes allocated (hs_grow) */
    bool oom;        /* an append failed */
} sw_buf;

void sw_buf_add(sw_buf *b, const char *s, size_t n);
void sw_buf_puts(sw_buf *b, const char *s);
void sw_buf_printf(sw_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The text moved into the arena and the buffer freed; NULL if an append or the copy failed. */
char *sw_buf_take(sw_buf *b, sw_arena *a);

/* Text helpers more than one part needs. */
char *sw_trim(char *s);                        /* blanks (and line ends) off both sides, in place */
void sw_shell_word(sw_buf *b, const char *s);  /* s quoted for a POSIX shell when it needs it */
char *sw_slurp(const char *path, sw_arena *a); /* a small file's text; "" if unreadable */
double sw_now_s(void);                         /* a monotonic clock */

/* ------------------------------------------------------------------------------------------ */
/* What the user asked for (sweep_config.c): every key of a sweep file, and every list flag, is
 * a list of values. */

enum {
    SW_K_WORKLOADS, SW_K_PLATFORMS, SW_K_STRATEGIES, SW_K_GPUS, SW_K_BATCH, SW_K_MICRO,
    SW_K_PLACEMENT, SW_K_COLLECTIVES, SW_K_LAYERS, SW_K_MODE, SW_K_OUTPUT, SW_K_JOBS,
    SW_K_TIMEOUT, SW_K_LOG, SW_K_ALLREDUCE, SW_K_COUNT
};
/* A job key (js_keys[k]) that is no dimension of the sweep, one value for every run it
 * applies to (--compute, --precision, --halo, ...): its list. */
#define SW_K_JOB(k) (SW_K_COUNT + (k))
#define SW_K_ALL (SW_K_COUNT + JS_MAX_KEYS)

/* One value and where the user gave it, for messages. */
typedef struct {
    const char *text;  /* trimmed, with a batch-per-* suffix appended ("64/gpu") */
    const char *where; /* "FILE:LINE: KEY" or "-g" */
} sw_item;

typedef struct {
    sw_item *items; /* in the order given */
    int n;          /* items used */
    size_t cap;     /* items allocated */
} sw_list;

/* What the user asked for, before any checking: a list per key (SW_K_*). */
typedef struct {
    sw_list key[SW_K_ALL];
} sw_spec;

/* What the command line says beyond the lists. */
typedef struct {
    const char *file;      /* the sweep file, or NULL */
    const char *emit_kind; /* --emit parallel|slurm, or NULL */
    const char *emit_file; /* the job list or script */
    const char *emit_dir;  /* --emit-dir: where the jobs write their rows */
    const char *merge_dir; /* --merge DIR, or NULL */
    const char *exe;       /* --exe: the hybridsim to run, NULL: this one */
    int stop_after;        /* --stop-after N (testing), -1: no limit */
    bool quiet;            /* --quiet: no progress */
    bool help;             /* --help: print the usage, do nothing else */
} sw_cmdline;

void sw_print_usage(FILE *out);
/* argv[0] is "sweep"; flags fill `spec` (values stored in `a`) and `cl`. */
int sw_parse_flags(int argc, char **argv, sw_spec *spec, sw_cmdline *cl, sw_arena *a, char *err);
/* The sweep file: `key = value, value, ...` lines; see experiments/sweeps/example.sweep. */
int sw_read_sweep_file(const char *path, sw_spec *spec, sw_arena *a, char *err);
/* The file's lists, each replaced by the flags' list for the same key. */
void sw_overlay(sw_spec *file, const sw_spec *flags);
void sw_spec_free(sw_spec *spec);
/* A list's one value (NULL if empty); sw_check_single fails if it has more than one. */
const sw_item *sw_single(const sw_list *l);
int sw_check_single(const sw_list *l, char *err);
/* Every key that is an option (mode, output, jobs, ...) has at most one value. */
int sw_check_single_keys(const sw_spec *s, char *err);
/* --jobs by default: the cores online. */
int sw_default_jobs(void);

/* ------------------------------------------------------------------------------------------ */
/* The plan (sweep_plan.c): the lists checked, and the configurations in order. */

typedef enum { SW_FIXED, SW_PER_GPU, SW_PER_NODE, SW_PER_GROUP } sw_batch_kind;

/* How a configuration's global batch B follows from its GPU count. */
typedef struct {
    sw_batch_kind kind;
    int64_t n;        /* B itself (fixed) or samples per GPU / node / group */
    const char *text; /* its key form: "256", "64/gpu", "64/node", "64/group" */
} sw_batch_rule;

/* One run of the sweep. */
typedef struct {
    const char *workload, *platform, *strategy; /* as the user wrote them */
    int gpus;
    const sw_batch_rule *rule;
    int micro_batches;       /* pipeline's S; 0: hybridsim's default (S = p) */
    const char *placement;   /* NULL in analytic mode (it uses neither) */
    const char *collectives;
    const char *allreduce;   /* --allreduce, NULL for the ring (ParaDL's, the default) */
    const char *shown;       /* the strategy as the CSV shows it: with " --allreduce A" when
                              * allreduce is set ("data --allreduce hier", as suggest names it) */
    int64_t batch;           /* B from the rule; 0 when it has none (see error) */
    const char *error;       /* why this configuration cannot run, recorded without a run */
    const char *key;         /* the CSV key: every field above, '|'-separated */
} sw_config;

typedef struct {
    const char *mode;      /* compare, analytic, simulate */
    const char *layers;    /* --layers for every run, or NULL */
    const char *job_key[JS_MAX_KEYS]; /* the value of job key k (SW_K_JOB) for every run it
                                        * applies to (js_key.only), checked; NULL: not said */
    const char *output;    /* the CSV, or NULL */
    const char *log;       /* --log, or NULL */
    int jobs;              /* runs at a time */
    double timeout_s;      /* 0: none */
    sw_config *configs;    /* in configuration order */
    int n_configs;
    sw_batch_rule *rules;  /* the batch rules the configurations point to */
} sw_plan;

/* Check the spec and enumerate its configurations; need_output: -o is required. Strings live in
 * `a`; free the plan with sw_plan_free (also after a failure). */
int sw_plan_make(const sw_spec *spec, bool need_output, sw_plan *plan, sw_arena *a, char *err);
void sw_plan_free(sw_plan *plan);
/* The workload it names loads (HS_OK), else "WHERE: why" in err. A file that loaded is not
 * loaded again while unchanged (sweep_workload.c). */
int sw_check_workload(const sw_item *it, char *err);
/* The GPUs per node of the platform it names, read without SimGrid (sweep_platform.c); else
 * "WHERE: why" in err. */
int sw_platform_gpus_per_node(const sw_item *it, int *gpus_per_node, sw_arena *a, char *err);

/* ------------------------------------------------------------------------------------------ */
/* JSON (sweep_json.c): a run's own --json output, read with json-c, its members found by dotted
 * path ("analytic.iteration.total_s"; a number indexes a list: "simulate.links.top.0.kind"). Numbers come back as the text the child printed (%.17g),
 * so the CSV holds exactly what it computed. */

typedef struct {
    struct json_object *root; /* the parsed document (json-c) */
    const char *prefix;       /* "analytic" or "simulate" for a single estimate's output, so
                               * that every mode reads as compare's {"analytic": {...}, ...};
                               * "" for compare */
} sw_json;

/* Parse a run's output into j; false if it is not one JSON object. */
bool sw_json_parse(const char *text, const char *prefix, sw_json *j);
/* The scalar at the dotted path as printed, NULL if absent (valid until sw_json_free). */
const char *sw_json_get(const sw_json *j, const char *path);
void sw_json_free(sw_json *j);

/* ------------------------------------------------------------------------------------------ */
/* The CSV (sweep_csv.c, sweep_table.c): one header, one row per configuration, RFC 4180 quoting. */

/* How one configuration ended. */
typedef struct {
    const char *status;  /* ok, error, failed */
    const char *message; /* why not ok ("" when ok) */
    double wall_s;       /* the run's wall time (0 when nothing ran) */
    const sw_json *json; /* the run's output when ok */
} sw_outcome;

/* A row read back from a CSV. */
typedef struct {
    const char *key;    /* its key column */
    const char *status; /* ok, error, failed */
    const char *line;   /* the record as it was, newline included */
    bool superseded;    /* a later row has the same key */
    bool matched;       /* a configuration of this sweep has its key */
} sw_row;

typedef struct {
    sw_row *rows;  /* in file order */
    int n;         /* rows used */
    size_t cap;    /* rows allocated */
    int truncated; /* 1 if the last line had no newline (an interrupted write) and was dropped */
} sw_table;

char *sw_csv_header(sw_arena *a); /* the header line, newline included; NULL: out of memory */
/* A configuration's row, newline included; NULL: out of memory. */
char *sw_csv_row(const sw_plan *plan, const sw_config *c, const sw_outcome *o, sw_arena *a);
/* The first field a run's JSON lacks for its row, or NULL when it has them all. */
const char *sw_csv_missing(const sw_json *j, const char *mode, sw_arena *a);

/* Read a sweep CSV. A missing file is an empty table; a header other than `header` is an error
 * (the columns would not line up), and so is a path that is not a regular file (hs_in_open); a
 * read error is HS_EINTERNAL, not the end of the file. Free with sw_table_free. */
int sw_table_read(const char *path, const char *header, sw_table *t, sw_arena *a, char *err);
void sw_table_free(sw_table *t);

/* Resuming and writing (sweep_table.c). */

/* Mark the rows a later row of the same key supersedes. */
int sw_table_supersede(sw_table *t, char *err);

/* Match the old rows to configurations: line_of[i] gets configuration i's row, todo[] the
 * configurations without an ok or error row. */
int sw_resume(const sw_plan *plan, sw_table *old, const char **line_of, int *todo, int *n_todo,
              char *err);
/* Rewrite plan->output in final order: the configurations' rows, then rows of other sweeps. */
int sw_csv_rewrite(const sw_plan *plan, const char **line_of, const sw_table *old,
                   const char *header, sw_arena *a, char *err);
/* Write header + lines to path as hs_out.h says (a temp file, fsync, rename; a device in
 * place); `flag` names path in messages. */
int sw_write_atomic(const char *flag, const char *path, const char *header,
                    const char *const *lines, int n, char *err);
/* Append one whole row with a single write, then fsync. */
int sw_append_row(int fd, const char *path, const char *line, char *err);

/* ------------------------------------------------------------------------------------------ */
/* Running (sweep_run.c). */

/* What a session of runs did. */
typedef struct {
    int skipped;        /* configurations already in the CSV */
    int done;           /* rows written by this session */
    int errors, failed; /* of those, the rows with status error and failed */
    int signal;         /* the signal that interrupted the sweep, 0 if none */
} sw_tally;

/* The executable the runs exec: `given` (--exe), else the one running now. */
int sw_find_exe(const char *given, char *path, size_t len, char *err);
/* Run the configurations in todo[] with `exe`, plan->jobs at a time, appending their rows to
 * plan->output and to line_of[]; SIGINT, SIGTERM and SIGHUP stop it (tally->signal). */
int sw_run(const sw_plan *plan, const sw_cmdline *cl, const char *exe, const char **line_of,
           const int *todo, int n_todo, sw_tally *tally, sw_arena *a, char *err);

/* ------------------------------------------------------------------------------------------ */
/* Progress (sweep_progress.c). */

/* What the progress line shows. */
typedef struct {
    bool enabled, tty;      /* drawn at all; on a terminal (a bar) or not (plain lines) */
    int total;              /* configurations in the sweep */
    int skipped;            /* already in the CSV */
    int to_run;             /* configurations this session runs */
    int done, errors, failed, running; /* rows written (of them error, failed), runs in flight */
    int last_tenth;         /* plain lines: the tenth of the work the last line reported */
    double start_s, last_s; /* session start; the last time a line was drawn */
} sw_progress;

/* Start counting a session of n_todo runs of plan's configurations (quiet: draw nothing), and
 * say on stderr what it will do. */
void sw_progress_start(sw_progress *p, const sw_plan *plan, bool quiet, int n_todo);
/* Draw the progress unless it was drawn just now (force: draw anyway). */
void sw_progress_draw(sw_progress *p, bool force);

/* ------------------------------------------------------------------------------------------ */
/* --emit and --merge (sweep_emit.c). */

/* The plan's runs as a GNU parallel job list or a Slurm array script (cl->emit_kind). */
int sw_emit(const sw_plan *plan, const sw_cmdline *cl, sw_arena *a, char *err);
/* The rows the jobs wrote in dir, in configuration order, into output. */
int sw_merge(const char *dir, const char *output, bool quiet, sw_arena *a, char *err);

/* ------------------------------------------------------------------------------------------ */
/* One sweep at a time on a CSV (sweep_lock.c). */

/* A held lock on a CSV: its lock file, open and flock'ed. */
typedef struct {
    char *path; /* CSV.lock, beside the resolved CSV */
    int fd;     /* flock'ed; -1: not held */
} sw_lock_file;

/* Lock the CSV at path for this sweep; HS_EINPUT naming it when another sweep holds it. */
int sw_lock(sw_lock_file *l, const char *path, char *err);
/* Remove the lock file and release it (harmless when not held). */
void sw_unlock(sw_lock_file *l);

#endif
