/* cli_int.h: what the command line's files share (cli.h is the folder's public face).
 *   cli.c          the commands: dispatch, --help, --version, the exit status
 *   cli_options.c  the run commands' flags -> cli_options, checked
 *   cli_run.c      a run command: load the job, call the derivation(s), print
 * Nothing here is for use outside sim/cli. */
#ifndef CLI_INT_H
#define CLI_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "job.h"
#include "simulate.h"
#include "trace.h"

typedef enum { CMD_ANALYTIC, CMD_SIMULATE, CMD_COMPARE } cli_command;
typedef enum { OUT_TABLE, OUT_JSON, OUT_ROW } cli_output;

#define CLI_MAX_JOBS 64 /* --job and --background flags each */

/* Everything a run command's flags say. */
typedef struct {
    cli_command command;
    job_spec job;             /* -w -l -s -g -b -S */
    const char *platform;     /* -p: path or short name */
    bool gpus_given;          /* -g was given */
    bool batch_given;         /* -b was given */
    bool placement_given;     /* --placement was given */
    bool fidelity_given;      /* --collectives was given */
    bool layers_given;        /* --layers-top or --per-layer was given */
    sm_options sim;           /* --collectives, --placement, --overlap, --trace */
    cli_output output;        /* table (default), --json, --row */
    bool row_header;          /* --row-header: print the column names first */
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
} cli_options;

/* The command's name as the reports print it ("analytic"). */
const char *cli_command_name(cli_command command);

void cli_print_usage(FILE *out);

/* Parse and check the flags of analytic/simulate/compare (argv[0] is the command) into o,
 * which holds the defaults. Returns HS_OK, HS_EINPUT, or -1 after printing --help. */
int cli_parse_run_options(int argc, char **argv, cli_options *o, char *err);

/* A single run: load, run the derivation(s) the command names, print to stdout. */
int cli_run_single(const cli_options *o, char *err);

#endif
