/* sweep_run.c: the process pool of `hybridsim sweep` (sweep_int.h): one child per
 * configuration, --jobs at a time, each child's end turned into a CSV row, with timeouts,
 * interruption by signal; its progress on stderr is sweep_progress.c.
 *
 * Why a process per run: SimGrid has one engine per process and it cannot be reset, so the
 * driver runs the hybridsim executable itself (`compare --json`, or analytic or simulate per
 * --mode) as a child (hs_child.h), its stdout and stderr into files of a temp directory, and
 * reads them once the child has exited. The pool looks at its runs (hs_child_poll), which is
 * also when runs past --timeout are killed, and when none has finished sleeps until one ends
 * (hs_child_pause: on the runs' pidfds), a deadline, a signal or SW_PAUSE_S. SIGINT, SIGTERM and
 * SIGHUP only set a flag: the runs in flight are stopped and give no row, so they run again on
 * resume. */
#define _GNU_SOURCE
#include "sweep_int.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "strategy.h"

#include "hs_child.h"
#include "hs_error.h"
#include "hs_out.h"

#define SW_MESSAGE_LEN 400       /* an error message kept in the CSV */
#define SW_PAUSE_S 0.1 /* the longest pause between looks at the runs (the progress bar) */

/* The interrupting signal, 0 if none. The sweep's one global: a signal handler reaches
 * nothing else. */
static volatile sig_atomic_t sw_interrupt;

/* A run in flight. */
typedef struct {
    hs_child child; /* child.pid 0: the slot is free */
    int config;     /* the configuration it runs */
    double start_s; /* when it started (sw_now_s) */
} sw_slot;

/* The state of one sweep run. */
typedef struct {
    const sw_plan *plan;
    const char *exe;           /* the hybridsim executable */
    char tmpdir[PATH_MAX / 2]; /* children's stdout and stderr (short: file names follow) */
    int csv_fd;                /* the CSV, opened for appending */
    const char **line_of;      /* per configuration: its row (old or new), or NULL */
    hs_out log;                /* --log (log.f NULL: none) */
    sw_progress progress;
    sw_arena *arena;           /* where the rows kept live */
} sw_runner;

/* ------------------------------------------------------------------------------------------ */
/* Starting a run. */

/* The run command of a configuration: EXE MODE -w .. -p .. -s .. -g .. -b .. --json. argv has
 * room for SW_CHILD_ARGS entries; numbers go into nums, job keys' flags into flags. */
#define SW_CHILD_ARGS (24 + 2 * JS_MAX_KEYS)
static void child_argv(const sw_plan *plan, const sw_config *c, const char *exe, char **argv,
                       char nums[3][24], char flags[JS_MAX_KEYS][40])
{
    int n = 0;
    snprintf(nums[0], 24, "%d", c->gpus);
    snprintf(nums[1], 24, "%lld", (long long)c->batch);
    snprintf(nums[2], 24, "%d", c->micro_batches);
    argv[n++] = (char *)exe;
    argv[n++] = (char *)plan->mode;
    argv[n++] = "-w", argv[n++] = (char *)c->workload;
    argv[n++] = "-p", argv[n++] = (char *)c->platform;
    argv[n++] = "-s", argv[n++] = (char *)c->strategy;
    argv[n++] = "-g", argv[n++] = nums[0];
    argv[n++] = "-b", argv[n++] = nums[1];
    if (c->micro_batches)
        argv[n++] = "--micro-batches", argv[n++] = nums[2];
    if (plan->layers)
        argv[n++] = "--layers", argv[n++] = (char *)plan->layers;
    if (c->placement)
        argv[n++] = "--placement", argv[n++] = (char *)c->placement;
    if (c->collectives)
        argv[n++] = "--collectives", argv[n++] = (char *)c->collectives;
    if (c->allreduce)
        argv[n++] = "--allreduce", argv[n++] = (char *)c->allreduce;
    /* the job keys said for every run, where the run has them (a run without them refuses
     * them: --halo for the spatial runs and the files, js_applies) */
    for (int k = 0; k < js_n_keys; k++) {
        if (plan->job_key[k] && js_applies(k, c->strategy) &&
            js_keys[k].type == JS_SWITCH) { /* its value in the flag: --overlap=off */
            snprintf(flags[k], sizeof flags[k], "--%s=%s", js_keys[k].name, plan->job_key[k]);
            argv[n++] = flags[k];
        } else if (plan->job_key[k] && js_applies(k, c->strategy)) {
            snprintf(flags[k], sizeof flags[k], "--%s", js_keys[k].name);
            argv[n++] = flags[k], argv[n++] = (char *)plan->job_key[k];
        }
    }
    if (strcmp(plan->mode, "analytic") != 0) /* the link columns (compare records them anyway) */
        argv[n++] = "--links-summary";
    argv[n++] = "--json";
    argv[n] = NULL;
}

/* Where a run's stdout ("out") or stderr ("err") goes. */
static void child_path(const sw_runner *r, int config, const char *ext, char path[PATH_MAX])
{
    snprintf(path, PATH_MAX, "%s/%d.%s", r->tmpdir, config, ext);
}

static void remove_outputs(const sw_runner *r, int config)
{
    char path[PATH_MAX];
    child_path(r, config, "out", path);
    unlink(path);
    child_path(r, config, "err", path);
    unlink(path);
}

/* --log: the run's command line, flushed at once (a log is read while the sweep runs). */
static int log_run(sw_runner *r, const sw_config *c, char **argv, char *err)
{
    if (!r->log.f)
        return HS_OK;
    sw_buf b = {0};
    sw_buf_puts(&b, c->key);
    sw_buf_puts(&b, "\t");
    for (int i = 0; argv[i]; i++) {
        if (i)
            sw_buf_puts(&b, " ");
        sw_shell_word(&b, argv[i]);
    }
    if (!b.oom)
        fprintf(r->log.f, "%s\n", b.data);
    free(b.data);
    if (fflush(r->log.f) != 0 || ferror(r->log.f))
        return hs_fail(err, HS_EINTERNAL, "--log %s: write error: %s", r->plan->log,
                       strerror(errno));
    return b.oom ? hs_fail(err, HS_EINTERNAL, "out of memory") : HS_OK;
}

/* A run's stdin (/dev/null), stdout and stderr (files of the temp directory), in fds[0..2]. */
static int open_child_files(const sw_runner *r, int config, int fds[3], char *err)
{
    char out_path[PATH_MAX], err_path[PATH_MAX];
    child_path(r, config, "out", out_path);
    child_path(r, config, "err", err_path);
    fds[0] = open("/dev/null", O_RDONLY | O_CLOEXEC);
    fds[1] = open(out_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    fds[2] = open(err_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fds[0] >= 0 && fds[1] >= 0 && fds[2] >= 0)
        return HS_OK;
    int saved = errno;
    for (int i = 0; i < 3; i++)
        if (fds[i] >= 0)
            close(fds[i]);
    return hs_fail(err, HS_EINTERNAL, "%s: %s", r->tmpdir, strerror(saved));
}

/* Start one run in a free slot. */
static int launch(sw_runner *r, int config, sw_slot *slot, char *err)
{
    const sw_config *c = &r->plan->configs[config];
    char *argv[SW_CHILD_ARGS], nums[3][24], flags[JS_MAX_KEYS][40];
    int fds[3];
    child_argv(r->plan, c, r->exe, argv, nums, flags);
    int status = open_child_files(r, config, fds, err);
    if (status != HS_OK)
        return status;
    /* a run outlives no killed sweep */
    hs_child_spec spec = {.exe = r->exe, .argv = argv, .std_fd = {fds[0], fds[1], fds[2]},
                          .timeout_s = r->plan->timeout_s, .die_with_parent = true,
                          .what = "a run"};
    status = hs_child_start(&slot->child, &spec, err);
    for (int i = 0; i < 3; i++)
        close(fds[i]);
    if (status != HS_OK)
        return status;
    slot->config = config;
    slot->start_s = sw_now_s();
    return log_run(r, c, argv, err);
}

/* ------------------------------------------------------------------------------------------ */
/* A run's end. */

/* The message of a failed run: its last "hybridsim: ..." line, else its last line. */
static char *run_message(char *text, sw_arena *a)
{
    char *best = NULL, *last = NULL, *save = NULL;
    for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        line = sw_trim(line);
        if (!*line)
            continue;
        last = line;
        if (strncmp(line, "hybridsim: ", 11) == 0)
            best = line + 11;
    }
    char *m = best ? best : last ? last : "";
    char *copy = sw_arena_strndup(a, m, strnlen(m, SW_MESSAGE_LEN));
    if (copy)
        for (char *p = copy; *p; p++)
            if ((unsigned char)*p < 0x20)
                *p = ' ';
    return copy ? copy : "";
}

/* A run that exited 0: ok if its output is JSON with every field the row needs. */
static void read_output(sw_outcome *o, const char *out, const char *mode, sw_json *json,
                        sw_arena *a)
{
    if (!sw_json_parse(out, strcmp(mode, "compare") == 0 ? "" : mode, json)) {
        o->message = "the run printed no readable JSON";
        return;
    }
    const char *missing = sw_csv_missing(json, mode, a);
    if (missing) {
        o->message = sw_arena_printf(a, "the run's JSON has no %s", missing);
    } else {
        o->status = "ok";
        o->json = json;
    }
}

/* What a finished child's end and output say about its configuration. The outcome's strings
 * live in `a`, the run's own scratch arena. */
static sw_outcome judge(const sw_runner *r, const sw_slot *slot, const hs_child_end *end,
                        sw_json *json, sw_arena *a)
{
    sw_outcome o = {"failed", "", sw_now_s() - slot->start_s, NULL};
    char out_path[PATH_MAX], err_path[PATH_MAX];
    child_path(r, slot->config, "out", out_path);
    child_path(r, slot->config, "err", err_path);
    char *out = sw_slurp(out_path, a), *errtext = sw_slurp(err_path, a);
    remove_outputs(r, slot->config);
    char *message = end->exec_errno ? "sweep: cannot execute the hybridsim executable"
                                    : run_message(errtext, a);
    if (end->timed_out) {
        o.message = sw_arena_printf(a, "timed out after %g s (--timeout)", r->plan->timeout_s);
    } else if (end->signal) {
        o.message = sw_arena_printf(a, "killed by signal %d (%s)%s%s", end->signal,
                                    strsignal(end->signal), *message ? ": " : "", message);
    } else if (end->exit_status == HS_EINPUT) {
        o.status = "error";
        o.message = message;
    } else if (end->exit_status != 0) {
        o.message = sw_arena_printf(a, "exit status %d%s%s", end->exit_status,
                                    *message ? ": " : "", message);
    } else {
        read_output(&o, out, r->plan->mode, json, a);
    }
    if (!o.message)
        o.message = "out of memory";
    return o;
}

/* Record a configuration's row: append it to the CSV and remember it for the final rewrite.
 * The row is formatted in a scratch arena (a run's output can be large) and only the row kept. */
static int record(sw_runner *r, int config, const sw_outcome *o, char *err)
{
    sw_arena scratch = {0};
    char *formatted = sw_csv_row(r->plan, &r->plan->configs[config], o, &scratch);
    char *line = formatted ? sw_arena_strdup(r->arena, formatted) : NULL;
    sw_arena_free(&scratch);
    if (!line)
        return hs_fail(err, HS_EINTERNAL, "out of memory");
    int status = sw_append_row(r->csv_fd, r->plan->output, line, err);
    if (status != HS_OK)
        return status;
    r->line_of[config] = line;
    r->progress.done++;
    r->progress.errors += strcmp(o->status, "error") == 0;
    r->progress.failed += strcmp(o->status, "failed") == 0;
    sw_progress_draw(&r->progress, false);
    return HS_OK;
}

/* A run that exited: its row, unless the sweep is being interrupted (then it was killed with
 * the sweep, which is not the configuration's fault: no row, it runs again on resume). */
static int finished(sw_runner *r, sw_slot *s, const hs_child_end *end, bool *any, char *err)
{
    r->progress.running--;
    if (sw_interrupt) {
        remove_outputs(r, s->config);
        return HS_OK;
    }
    sw_json json = {0};
    sw_arena scratch = {0};
    sw_outcome o = judge(r, s, end, &json, &scratch);
    *any = true;
    int status = record(r, s->config, &o, err);
    sw_json_free(&json);
    sw_arena_free(&scratch);
    return status;
}

/* Reap the runs that finished and kill those past --timeout. */
static int reap(sw_runner *r, sw_slot *slots, int n_slots, bool *any, char *err)
{
    for (int i = 0; i < n_slots; i++) {
        sw_slot *s = &slots[i];
        if (!s->child.pid)
            continue;
        bool over = false;
        hs_child_end end;
        int status = hs_child_poll(&s->child, &over, &end, err); /* kills it past --timeout */
        if (status == HS_OK && over)
            status = finished(r, s, &end, any, err);
        if (status != HS_OK)
            return status;
    }
    return HS_OK;
}

/* Stop every run in flight and wait for it (after a signal or an error). */
static void stop_all(sw_runner *r, sw_slot *slots, int n_slots)
{
    for (int i = 0; i < n_slots; i++)
        hs_child_kill(&slots[i].child, SIGTERM);
    for (int i = 0; i < n_slots; i++) {
        if (!slots[i].child.pid)
            continue;
        hs_child_abandon(&slots[i].child);
        remove_outputs(r, slots[i].config);
    }
}

/* ------------------------------------------------------------------------------------------ */
/* The pool. */

/* Start runs in the free slots from todo[*next] on; a configuration known to be in error gets
 * its row at once, without a process. *started counts the runs started (for --stop-after). */
static int fill_slots(sw_runner *r, sw_slot *slots, const int *todo, int n_todo, int *next,
                      int *started, int stop_after, char *err)
{
    int status = HS_OK;
    for (int i = 0; i < r->plan->jobs && *next < n_todo && status == HS_OK; i++) {
        if (slots[i].child.pid)
            continue;
        const sw_config *c = &r->plan->configs[todo[*next]];
        if (c->error) {
            sw_outcome o = {"error", c->error, 0.0, NULL};
            status = record(r, todo[(*next)++], &o, err);
            i--; /* the slot is still free */
            continue;
        }
        if (stop_after >= 0 && *started >= stop_after)
            break;
        status = launch(r, todo[(*next)++], &slots[i], err);
        (*started)++;
        r->progress.running++;
    }
    return status;
}

/* Run the configurations in todo[], --jobs at a time; stop_after < 0: no limit. */
static int run_all(sw_runner *r, const int *todo, int n_todo, int stop_after, char *err)
{
    int jobs = r->plan->jobs, next = 0, started = 0, status = HS_OK;
    sw_slot *slots = calloc((size_t)jobs, sizeof *slots);
    hs_child **kids = calloc((size_t)jobs, sizeof *kids); /* the slots' children, to pause on */
    if (!slots || !kids) {
        free(slots);
        free(kids);
        return hs_fail(err, HS_EINTERNAL, "out of memory");
    }
    for (int i = 0; i < jobs; i++)
        kids[i] = &slots[i].child;
    while (status == HS_OK && !sw_interrupt) {
        status = fill_slots(r, slots, todo, n_todo, &next, &started, stop_after, err);
        bool stopping = stop_after >= 0 && started >= stop_after;
        if (status != HS_OK || (r->progress.running == 0 && (next >= n_todo || stopping)))
            break;
        bool any = false;
        status = reap(r, slots, jobs, &any, err);
        sw_progress_draw(&r->progress, false);
        if (!any && status == HS_OK)
            hs_child_pause(kids, jobs, SW_PAUSE_S);
    }
    stop_all(r, slots, jobs);
    free(kids);
    free(slots);
    return status;
}

/* SIGINT, SIGTERM and SIGHUP interrupt a sweep (its rows so far are kept; rerun to finish). */
static void on_signal(int sig) { sw_interrupt = sig; }

/* ------------------------------------------------------------------------------------------ */
/* A session. */

int sw_find_exe(const char *given, char *path, size_t len, char *err)
{
    if (given) {
        if (access(given, X_OK) != 0)
            return hs_fail(err, HS_EINPUT, "--exe %s: not an executable: %s", given,
                           strerror(errno));
        if (!realpath(given, path))
            return hs_fail(err, HS_EINPUT, "--exe %s: %s", given, strerror(errno));
        return HS_OK;
    }
    ssize_t n = readlink("/proc/self/exe", path, len - 1);
    if (n <= 0)
        return hs_fail(err, HS_EINTERNAL, "cannot find this executable (/proc/self/exe): %s",
                       strerror(errno));
    path[n] = '\0';
    return HS_OK;
}

/* The CSV for appending, the log, and the temp directory for the children's output. */
static int runner_open(sw_runner *r, char *err)
{
    const sw_plan *plan = r->plan;
    r->csv_fd = open(plan->output, O_WRONLY | O_APPEND | O_CLOEXEC);
    if (r->csv_fd < 0)
        return hs_fail(err, HS_EINPUT, "%s: cannot append: %s", plan->output, strerror(errno));
    int status = plan->log ? hs_out_open_append(&r->log, "--log", plan->log, err) : HS_OK;
    if (status != HS_OK)
        return status;
    const char *tmp = getenv("TMPDIR");
    int len = snprintf(r->tmpdir, sizeof r->tmpdir, "%s/hybridsim-sweep-XXXXXX",
                       tmp && *tmp ? tmp : "/tmp");
    if (len < 0 || (size_t)len >= sizeof r->tmpdir)
        status = hs_fail(err, HS_EINPUT, "TMPDIR is too long a path");
    else if (!mkdtemp(r->tmpdir))
        status = hs_fail(err, HS_EINTERNAL, "mkdtemp %s: %s", r->tmpdir, strerror(errno));
    if (status != HS_OK)
        r->tmpdir[0] = '\0'; /* nothing to remove */
    return status;
}

/* Close the CSV and the log; a log that could not be written is an error (status: the
 * session's so far, which a first error keeps). */
static int runner_close(sw_runner *r, int status, char *err)
{
    if (r->csv_fd >= 0)
        close(r->csv_fd);
    if (!r->log.f)
        return status;
    if (status != HS_OK) {
        hs_out_abort(&r->log);
        return status;
    }
    return hs_out_commit(&r->log, err);
}

int sw_run(const sw_plan *plan, const sw_cmdline *cl, const char *exe, const char **line_of,
           const int *todo, int n_todo, sw_tally *tally, sw_arena *a, char *err)
{
    sw_runner r = {.plan = plan, .exe = exe, .csv_fd = -1, .line_of = line_of, .arena = a,
                   .log = {.slot = -1}};
    struct sigaction saved[3];
    sw_interrupt = 0;
    hs_out_catch(on_signal, saved); /* before the temp directory: a signal only stops the pool */
    int status = runner_open(&r, err);
    if (status != HS_OK && sw_interrupt)
        status = HS_OK; /* a signal cut an open short (a FIFO --log): said as the signal */
    else if (status == HS_OK) {
        sw_progress_start(&r.progress, plan, cl->quiet, n_todo);
        status = run_all(&r, todo, n_todo, cl->stop_after, err);
    }
    if (r.tmpdir[0])
        rmdir(r.tmpdir);
    hs_out_uncatch(saved);
    if (r.progress.enabled && r.progress.tty) {
        sw_progress_draw(&r.progress, true); /* the last state, which the rate limit may skip */
        fputc('\n', stderr);
    }
    status = runner_close(&r, status, err);
    *tally = (sw_tally){r.progress.skipped, r.progress.done, r.progress.errors,
                        r.progress.failed, (int)sw_interrupt};
    return status;
}
