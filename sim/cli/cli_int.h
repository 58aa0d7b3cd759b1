/* cli_int.h: what the command line's files share (cli.h is the folder's public face).
 *
 * The files are layers: a file calls only files of the layers below its own (the calls in
 * brackets), never one of its layer or above, so the folder has no circle. Bottom first:
 *   0  cli_child.c    hybridsim-sim run as a child, its standard error relayed
 *      cli_usage.c    `hybridsim --help`: the commands and the run commands' options
 *   1  cli_exec.c     a command handed to hybridsim-sim (the arguments kept), a platform
 *                     opened with its routes                                    (child)
 *      cli_options.c  the run commands' flags -> cli_options, checked; the getopt loop, the job
 *                     keys' flags and the pricing keys every command shares      (usage)
 *   2  cli_run.c      a run command: load the job, call the derivation(s), print
 *                                                                      (exec, options)
 *      cli_generate.c `strategy --generate`: a scheme written as a per-layer strategy file (GHP's
 *                     group size chosen by sim/compare, su_choose_ghp)           (exec)
 *      cli_search.c   `strategy --search` with hybridsim's cost model: the oracle asked, its
 *                     answer written as a strategy file and printed (sim/compare/suggest.h)
 *                                                                      (exec, options)
 *      cli_suggest.c  `suggest`: the oracle asked at -g GPUs or over a budget, its answer
 *                     printed (sim/compare/suggest.h)                  (exec, options)
 *   3  cli_strategy.c `strategy`: --search's flags, PaSE's cost model run and printed
 *                     (analytic/search), --generate's dispatch (generate, search, options)
 *      cli_sim.c      what needs SimGrid: simulate, compare, shared fabrics (only hybridsim-sim;
 *                     the commands reach it through struct cli_sim, not by name)   (run)
 *   4  cli.c          the commands: dispatch, --version, the exit status
 *                                       (run, strategy, suggest, options, exec, usage)
 *   5  main.c         hybridsim-sim: cli_main with cli_sim_full                    (cli)
 *      main_lean.c    hybridsim: cli_main without SimGrid                          (cli)
 * Nothing here is for use outside sim/cli. */
#ifndef CLI_INT_H
#define CLI_INT_H

#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "job.h"
#include "report.h"
#include "simulate.h"
#include "trace.h"

typedef struct cli_sim cli_sim;

#define HS_VERSION "0.1.0" /* --version, --help */

typedef enum { CMD_ANALYTIC, CMD_SIMULATE, CMD_COMPARE } cli_command;
typedef enum { OUT_TABLE, OUT_JSON, OUT_ROW } cli_output;

#define CLI_MAX_JOBS 64 /* --job and --background flags each */
#define CLI_MAX_CFG 32  /* --cfg flags */

/* Everything a run command's flags say. */
typedef struct {
    cli_command command;
    js_settings job;          /* the job keys (job_keys.h): -w -s -g -b ... */
    const char *platform;     /* -p: path or short name */
    bool placement_given;     /* --placement was given */
    bool fidelity_given;      /* --collectives was given */
    bool layers_given;        /* --layers-top or --per-layer was given */
    sm_options sim;           /* --collectives, --placement, --overlap, --trace */
    cli_output output;        /* table (default), --json, --row */
    bool row_header;          /* --row-header: print the column names first */
    bool json_and_row;        /* both --json and --row (or --row-header) given: refused */
    tr_gpu_set trace_gpus;    /* --trace-gpus (n = 0: not given) */
    int layers_top;           /* --layers-top N, --per-layer (-1): per-layer table rows */
    const char *links_path;   /* --links FILE.csv: link statistics, or NULL */
    bool links_all;           /* --links-all: every link in the CSV, not only those used */
    bool links_summary;       /* --links-summary: the link summary in the report, no CSV */
    const char *jobs[CLI_MAX_JOBS];        /* --job SPEC, repeatable (fabric.h) */
    int n_jobs;
    const char *backgrounds[CLI_MAX_JOBS]; /* --background SPEC, repeatable */
    int n_backgrounds;
    bool baseline;            /* --baseline: each job also alone */
    const char *cfg[CLI_MAX_CFG]; /* --cfg NAME:VALUE, SimGrid settings (plat_engine_settings) */
    int n_cfg;
} cli_options;

/* The inputs of a single run, loaded. */
typedef struct {
    job job;
    plat_platform plat;
    bool plat_loaded;
} cli_inputs;

/* The commands that need SimGrid, called once the flags are checked (cli.h). */
struct cli_sim {
    /* simulate or compare: load the platform into SimGrid, run, print */
    int (*run)(const cli_options *o, cli_inputs *in, rp_run *run, char *err);
    /* several jobs on one fabric (--job) */
    int (*fabric)(const cli_options *o, char *err);
    /* a hand-written platform into SimGrid, for its routes */
    int (*load)(plat_platform *plat, char *err);
    /* one strategy simulated on the whole machine (loaded here if it is not yet), packed, flow,
     * in a child process so that several can run from one process */
    int (*simulate)(const wl_workload *wl, const kt_compute *kc, plat_platform *plat,
                    const st_strategy *st, int64_t batch, hs_estimate *est, char *err);
};

/* The command's name as the reports print it ("analytic"), cli_options.c. */
const char *cli_command_name(cli_command command);

/* `hybridsim --help` (cli_usage.c). */
void cli_print_usage(FILE *out);

/* Parse and check the flags of analytic/simulate/compare (argv[0] is the command) into o,
 * which holds the defaults. Returns HS_OK, HS_EINPUT, or -1 after printing --help. */
int cli_parse_run_options(int argc, char **argv, cli_options *o, char *err);

/* A single run: load, run the derivation(s) the command names, print to stdout. Without sim,
 * what needs SimGrid is handed to hybridsim-sim (cli_exec_full). */
int cli_run_single(const cli_options *o, const cli_sim *sim, char *err);

/* One estimate as a table, a row or JSON. */
void cli_print_one(const cli_options *o, const rp_run *run, const hs_estimate *est);

/* cli_exec.c: the process's arguments, kept by cli_main for cli_exec_full. */
void cli_exec_keep_argv(char **argv);

/* Run hybridsim-sim beside this executable with the same arguments (cli_main keeps them) and
 * end this process as it ended; returns only when it could not start or died without saying
 * why (SimGrid's abort, a crash), with a message (cli_child_run). */
int cli_exec_full(char *err);

/* cli_child.c: run `full` with argv as a child, its stdout straight through, its stderr
 * relayed but for what SimGrid prints when it dies; ends this process as the child ended, or
 * returns HS_EINTERNAL with a message when the child died without saying why. */
int cli_child_run(const char *full, char **argv, char *err);

/* Open the platform SPEC with routes the analytic model can read: a generated machine's are
 * known without SimGrid; a hand-written file is loaded into SimGrid (sim), or the command is
 * handed to hybridsim-sim (no sim). Free with plat_free when HS_OK. */
int cli_open_routes(const char *spec, const cli_sim *sim, plat_platform *plat, char *err);

/* One flag of a command: HS_OK, HS_EINPUT, or -1 after printing --help. */
typedef int (*cli_flag_fn)(int c, const char *arg, void *ctx, char *err);

/* getopt_long over argv (shortopts starting with ':'), each option to `one`; an option without
 * its value, an unknown one (naming `hybridsim COMMAND --help`) and a stray argument are
 * HS_EINPUT. Returns HS_OK, HS_EINPUT, or -1 after --help. */
int cli_getopt(int argc, char **argv, const char *shortopts, const struct option *longopts,
               const char *command, cli_flag_fn one, void *ctx, char *err);

/* getopt_long's code of job key k (js_keys[k]) in every command's table. */
#define CLI_OPT_KEY 3000

/* A job key's flag (c = CLI_OPT_KEY + k) into job: HS_OK or HS_EINPUT (a repeated or
 * malformed value); CLI_FLAG_OTHER when c is not a job key. */
#define CLI_FLAG_OTHER 100
int cli_key_flag(int c, const char *arg, js_settings *job, char *err);

/* The job keys that a command which chooses the others (suggest, strategy --search) takes
 * into its getopt table after `n` entries of its own (opts has room for JS_MAX_KEYS more and
 * the end), their short flags appended to shortopts. */
void cli_pricing_keys(struct option *opts, int n, char *shortopts, size_t size);

/* --overlap as a command that prices many strategies passes it on (su_question.overlap):
 * JS_ON, JS_OFF (--overlap=off), 0 when not said. */
int cli_overlap_said(const js_settings *job);

/* What `strategy --search`'s flags say. */
typedef struct {
    js_settings job;         /* -w, -g (devices p), -b, --compute, --precision (JS_IN_PRICING) */
    const char *platform;    /* -p (the pase model does not use it) */
    bool platform_given;     /* -p typed (refused with the pase model) */
    const char *cost_model;  /* --cost-model: hybridsim (default) or pase */
    bool json;               /* --json */
    int64_t max_table;       /* --max-table: entries of one table, at most */
    const char *out;         /* -o: the strategy file (hybridsim model) */
    bool analytic_only;      /* --analytic-only: no simulation */
    int top;                 /* --top K: the K fastest by the model simulated (hybridsim) */
    bool top_given;
} cli_search_options;

/* `strategy --search`'s flags into o (set cost_model and platform's defaults first), and
 * the rules between them, without running anything: HS_OK, HS_EINPUT, or -1 after --help
 * (cli_strategy.c; the fuzz harness search_flags calls it too). */
int cli_parse_search(int argc, char **argv, cli_search_options *o, char *err);

/* The search with hybridsim's cost model: print, write the file, compare (cli_search.c). */
int cli_search_hybridsim(const cli_search_options *o, const cli_sim *sim, char *err);

/* What suggest's flags say. */
typedef struct {
    js_settings job;          /* -w, -g, -b, --compute, --precision (JS_IN_PRICING); or */
    const char *platform;     /* -p (default abci) */
    bool platform_given;      /* -p typed (a second is refused) */
    int64_t batch_per_gpu;    /* --batch-per-gpu: B = b x N */
    int top;                  /* --top K: how many are simulated */
    bool json;
    int max_gpus;             /* --max-gpus N: the fastest within N GPUs (-g not given) */
    double target_epoch_s;    /* --target-epoch-s T: the fewest GPUs reaching T */
} cli_suggest_options;

/* suggest's flags into o (set platform and top's defaults first) and the rules between
 * them, without running anything: HS_OK, HS_EINPUT, or -1 after --help (cli_suggest.c; the
 * fuzz harness suggest_flags calls it too). */
int cli_parse_suggest(int argc, char **argv, cli_suggest_options *o, char *err);

/* `hybridsim suggest ...` (argv[0] is "suggest"), cli_suggest.c. */
int cli_suggest_main(int argc, char **argv, const cli_sim *sim, char *err);

/* `hybridsim strategy ...` (argv[0] is "strategy"): the exit status; message in err. */
int cli_strategy_main(int argc, char **argv, const cli_sim *sim, char *err);

/* `hybridsim strategy --generate ...` (argv[0] is "strategy"): HS_OK, HS_EINPUT or
 * HS_EINTERNAL; its usage. */
int cli_generate_main(int argc, char **argv, const cli_sim *sim, char *err);
void cli_generate_usage(FILE *out);

#endif
