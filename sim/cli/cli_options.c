/* cli_options.c: the flags of analytic, simulate and compare, parsed and checked (cli_int.h).
 *
 * Parsing sets fields one flag at a time (set_option); the checks then run in the order a user
 * reads the usage: a shared-fabric run (--job) first, whose per-job flags must come inside each
 * --job, else a single run, whose required flags come first and whose flags for another
 * command are refused with the command they belong to. */
#include "cli_int.h"

#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "hs_out.h"
#include "hs_parse.h"
#include "placement.h"
#include "precision.h"

enum {
    OPT_ROW = 1000, OPT_ROW_HEADER, OPT_TRACE = 1100, OPT_TRACE_GPUS, OPT_LAYERS_TOP,
    OPT_PER_LAYER, OPT_LINKS = 1200, OPT_LINKS_ALL, OPT_LINKS_SUMMARY, OPT_JOB = 1300,
    OPT_BACKGROUND, OPT_BASELINE, OPT_CFG = 1500, OPT_STEP_BUDGET = 1600
};

/* The run commands' own flags; the job's come from the table of job keys (job_keys.h). */
static const struct option run_flags[] = {
    {"platform", required_argument, NULL, 'p'},
    {"collectives", required_argument, NULL, 'c'},
    {"step-budget", required_argument, NULL, OPT_STEP_BUDGET},
    {"placement", required_argument, NULL, 'P'},
    {"json", no_argument, NULL, 'j'},
    {"row", no_argument, NULL, OPT_ROW},
    {"row-header", no_argument, NULL, OPT_ROW_HEADER},
    {"trace", required_argument, NULL, OPT_TRACE},
    {"trace-gpus", required_argument, NULL, OPT_TRACE_GPUS},
    {"layers-top", required_argument, NULL, OPT_LAYERS_TOP},
    {"per-layer", no_argument, NULL, OPT_PER_LAYER},
    {"links", required_argument, NULL, OPT_LINKS},
    {"links-all", no_argument, NULL, OPT_LINKS_ALL},
    {"links-summary", no_argument, NULL, OPT_LINKS_SUMMARY},
    {"job", required_argument, NULL, OPT_JOB},
    {"background", required_argument, NULL, OPT_BACKGROUND},
    {"baseline", no_argument, NULL, OPT_BASELINE},
    {"cfg", required_argument, NULL, OPT_CFG},
    {"help", no_argument, NULL, 'h'},
};
#define N_RUN_FLAGS ((int)(sizeof run_flags / sizeof run_flags[0]))

static const char *command_names[] = {"analytic", "simulate", "compare"};

const char *cli_command_name(cli_command command)
{
    return command_names[command];
}

static int parse_fidelity(const char *text, eng_fidelity *fidelity, char *err)
{
    if (strcmp(text, "flow") == 0)
        *fidelity = ENG_FLOW;
    else if (strcmp(text, "step") == 0)
        *fidelity = ENG_STEP;
    else
        return hs_fail(err, HS_EINPUT, "--collectives: unknown fidelity '%s' (known: flow, step)",
                       text);
    return HS_OK;
}

/* A whole number flag into an int field. */
static int set_int(const char *flag, const char *text, int min, int *field, char *err)
{
    int64_t v = 0;
    int status = hs_parse_int64(flag, text, min, INT_MAX, &v, err);
    *field = (int)v;
    return status;
}

/* A repeatable flag's value appended to list (at most CLI_MAX_JOBS); `what` names the items
 * in the message ("--job: at most 64 jobs"). */
static int append(const char *flag, const char *what, const char **list, int *n,
                  const char *value, char *err)
{
    if (*n == CLI_MAX_JOBS)
        return hs_fail(err, HS_EINPUT, "%s: at most %d%s", flag, CLI_MAX_JOBS, what);
    list[(*n)++] = value;
    return HS_OK;
}

int cli_key_flag(int c, const char *arg, js_settings *job, char *err)
{
    int k = c >= CLI_OPT_KEY ? c - CLI_OPT_KEY : js_find_short(c);
    if (k < 0 || k >= js_n_keys)
        return CLI_FLAG_OTHER;
    char flag[40];
    return js_set(job, k, arg, js_flag_name(k, flag), err);
}

/* A flag that says what the run writes (the report's form, the per-layer table, traces, link
 * files), kept apart from what is run; CLI_FLAG_OTHER when c is not one of them. */
static int output_option(int c, const char *arg, cli_options *o, char *err)
{
    int status;
    switch (c) {
    case 'j':
        o->json_and_row |= o->output == OUT_ROW;
        o->output = OUT_JSON;
        break;
    case OPT_ROW:
    case OPT_ROW_HEADER:
        o->json_and_row |= o->output == OUT_JSON;
        o->output = OUT_ROW;
        o->row_header |= c == OPT_ROW_HEADER;
        break;
    case OPT_TRACE: o->sim.trace_path = arg; break;
    case OPT_TRACE_GPUS:
        tr_gpus_free(&o->trace_gpus);
        status = tr_parse_gpus(arg, &o->trace_gpus, err);
        o->sim.trace_gpus = status == HS_OK ? &o->trace_gpus : NULL;
        return status;
    case OPT_LAYERS_TOP:
    case OPT_PER_LAYER:
        /* both set one count: the second would silently replace the first */
        if (o->layers_given)
            return hs_fail(err, HS_EINPUT, "--layers-top and --per-layer: give one (the "
                           "per-layer table's length), once");
        o->layers_given = true;
        if (c == OPT_PER_LAYER) {
            o->layers_top = -1;
            return HS_OK;
        }
        return set_int("--layers-top", arg, 0, &o->layers_top, err);
    case OPT_LINKS: o->links_path = arg; break;
    case OPT_LINKS_ALL: o->links_all = true; break;
    case OPT_LINKS_SUMMARY: o->links_summary = true; break;
    default: return CLI_FLAG_OTHER;
    }
    return HS_OK;
}

/* One flag with its value (optarg). Returns HS_OK, HS_EINPUT, or -1 for --help. */
static int cli_run_option(int c, const char *arg, void *ctx, char *err)
{
    cli_options *o = ctx;
    int status = cli_key_flag(c, arg, &o->job, err);
    if (status == CLI_FLAG_OTHER)
        status = output_option(c, arg, o, err);
    if (status != CLI_FLAG_OTHER)
        return status;
    switch (c) {
    case 'p':
        if (o->platform) /* as a job key given twice is */
            return hs_fail(err, HS_EINPUT, "-p is given twice");
        o->platform = arg;
        break;
    case 'c': o->fidelity_given = true; return parse_fidelity(arg, &o->sim.fidelity, err);
    case OPT_STEP_BUDGET: {
        int budget = 0;
        status = set_int("--step-budget", arg, 1, &budget, err);
        o->sim.step_budget_messages = budget;
        return status;
    }
    case 'P': o->placement_given = true; return pl_parse(arg, &o->sim.placement, err);
    case OPT_JOB: return append("--job", " jobs", o->jobs, &o->n_jobs, arg, err);
    case OPT_BACKGROUND:
        return append("--background", "", o->backgrounds, &o->n_backgrounds, arg, err);
    case OPT_BASELINE: o->baseline = true; break;
    case OPT_CFG:
        if (o->n_cfg == CLI_MAX_CFG)
            return hs_fail(err, HS_EINPUT, "--cfg: at most %d settings", CLI_MAX_CFG);
        o->cfg[o->n_cfg++] = arg;
        break;
    case 'h': cli_print_usage(stdout); return -1;
    }
    return HS_OK;
}

/* The runs print their report on standard output: an output file cannot go there too. */
#define LINKS_DASH                                                                             \
    "--links -: standard output carries the report; give a file name (./- for a file named "  \
    "'-')"

/* A check: when `bad`, the message. */
typedef struct {
    bool bad;
    const char *message;
} cli_rule;

static int first_broken(const cli_rule *rules, size_t n, char *err)
{
    for (size_t i = 0; i < n; i++)
        if (rules[i].bad)
            return hs_fail(err, HS_EINPUT, "%s", rules[i].message);
    return HS_OK;
}

/* The first flag given that belongs inside each --job (the job's own keys: what runs, where,
 * how much; and --placement), or NULL. */
static const char *per_job_flag(const cli_options *o, char *flag)
{
    for (int k = 0; k < js_n_keys; k++)
        if ((o->job.given & (1u << k)) && (js_keys[k].scope & JS_IN_FABRIC) &&
            js_keys[k].job_own)
            return js_flag_name(k, flag);
    return o->placement_given ? "--placement" : NULL;
}

/* The first job key given that a shared fabric does not take, or NULL: the methods it takes
 * (--compute, --precision, --allreduce, --overlap, --runtime, ...) hold for every --job they
 * apply to that does not say its own. */
static const char *single_run_flag(const cli_options *o, char *flag)
{
    for (int k = 0; k < js_n_keys; k++)
        if ((o->job.given & (1u << k)) && !(js_keys[k].scope & JS_IN_FABRIC))
            return js_flag_name(k, flag);
    return NULL;
}

/* A shared fabric: each job names its own workload, strategy, GPUs and batch. */
static int check_fabric(const cli_options *o, char *err)
{
    char flag[40];
    if (!o->n_jobs)
        return hs_fail(err, HS_EINPUT, "%s needs at least one --job SPEC",
                       o->baseline ? "--baseline" : "--background");
    if (o->command != CMD_SIMULATE)
        return hs_fail(err, HS_EINPUT, "--job is for simulate");
    const char *per_job = per_job_flag(o, flag);
    if (per_job)
        return hs_fail(err, HS_EINPUT, "%s cannot be combined with --job: give it inside each "
                       "--job as %s= (a job's own keys: w=, s=, g=, b=, layers=, S=, "
                       "optimizer-every=, loader-workers=, placement=)", per_job,
                       per_job + strspn(per_job, "-"));
    if (single_run_flag(o, flag))
        return hs_fail(err, HS_EINPUT, "%s is for single runs, not --job", flag);
    const cli_rule rules[] = {
        {o->links_summary, "--links-summary is for single runs; --job runs have --links"},
        {o->output == OUT_ROW || o->sim.trace_path || o->sim.trace_gpus || o->layers_top != 10,
         "--job runs print tables or --json; --row, --trace, --trace-gpus and per-layer tables "
         "are for single runs"},
        {o->links_all && !o->links_path, "--links-all needs --links FILE.csv"},
        {hs_out_is_stdout(o->links_path), LINKS_DASH},
        {o->sim.step_budget_messages > 0 && o->sim.fidelity == ENG_STEP,
         "--step-budget is for flow mode (step mode runs every step of every ring)"},
        {!o->platform, "-p PLATFORM is required (see hybridsim --help)"}};
    return first_broken(rules, sizeof rules / sizeof rules[0], err);
}

static int check_single(const cli_options *o, char *err)
{
    bool analytic = o->command == CMD_ANALYTIC;
    const cli_rule rules[] = {
        {!o->job.workload, "-w WORKLOAD is required (see hybridsim --help)"},
        {!o->platform, "-p PLATFORM is required (see hybridsim --help)"},
        {!o->job.strategy, "-s STRATEGY is required (see hybridsim --help)"},
        {!js_given(&o->job, "gpus"), "-g GPUS is required (see hybridsim --help)"},
        {!js_given(&o->job, "batch"), "-b BATCH is required (see hybridsim --help)"},
        {o->output == OUT_ROW && o->command == CMD_COMPARE,
         "--row is for analytic and simulate; compare has --json"},
        {o->json_and_row, "--json and --row: give one output (a JSON object or one line)"},
        {o->sim.trace_path && analytic,
         "--trace is for simulate and compare (analytic runs no tasks)"},
        {o->sim.trace_gpus && !o->sim.trace_path, "--trace-gpus needs --trace FILE.json"},
        {o->links_summary && analytic,
         "--links-summary is for simulate and compare (the analytic model sends no "
         "messages)"},
        {o->links_path && analytic,
         "--links is for simulate and compare (the analytic model sends no messages)"},

        {o->fidelity_given && analytic,
         "--collectives is for simulate and compare (the analytic model runs no collectives)"},
        {o->sim.step_budget_messages > 0 && analytic,
         "--step-budget is for simulate and compare (the analytic model runs no collectives)"},
        {o->sim.step_budget_messages > 0 && o->sim.fidelity == ENG_STEP,
         "--step-budget is for flow mode (step mode runs every step of every ring)"},
        {o->layers_given && analytic,
         "--layers-top and --per-layer are for simulate and compare (the per-layer table is "
         "the simulation's)"},
        {o->links_path && !o->links_path[0], "--links needs a file name"},
        {o->links_all && !o->links_path, "--links-all needs --links FILE.csv"},
        {hs_out_is_stdout(o->sim.trace_path),
         "--trace -: standard output carries the report; give a file name (./- for a file "
         "named '-')"},
        {hs_out_is_stdout(o->links_path), LINKS_DASH}};
    return first_broken(rules, sizeof rules / sizeof rules[0], err);
}

/* getopt_long's table: the run commands' flags and the job keys; their short flags. */
static void run_getopt_table(struct option *opts, char *shortopts, size_t size)
{
    memcpy(opts, run_flags, sizeof run_flags);
    snprintf(shortopts, size, ":p:c:P:jh");
    int n = js_getopt_entries(opts + N_RUN_FLAGS, 0, CLI_OPT_KEY, shortopts, size);
    opts[N_RUN_FLAGS + n] = (struct option){NULL, 0, NULL, 0};
}

int cli_parse_run_options(int argc, char **argv, cli_options *o, char *err)
{
    struct option longopts[N_RUN_FLAGS + JS_MAX_KEYS + 1];
    char shortopts[64];
    run_getopt_table(longopts, shortopts, sizeof shortopts);
    int status = cli_getopt(argc, argv, shortopts, longopts, NULL, cli_run_option, o, err);
    if (status != HS_OK)
        return status;
    o->sim.overlap = o->job.overlap;
    if ((status = plat_engine_settings(o->cfg, o->n_cfg, err)) != HS_OK)
        return status;
    if (o->n_jobs || o->n_backgrounds || o->baseline)
        return check_fabric(o, err);
    return check_single(o, err);
}

/* The job key arg names ("--allreduce", "-s", "--halo=chain"), or -1: one a command that
 * prices many strategies (suggest, strategy --search) does not take. */
static int cli_job_key_named(const char *arg)
{
    char name[40];
    if (arg[0] == '-' && arg[1] && arg[1] != '-' && !arg[2])
        return js_find_short(arg[1]);
    if (strncmp(arg, "--", 2) != 0)
        return -1;
    snprintf(name, sizeof name, "%.*s", (int)strcspn(arg + 2, "="), arg + 2);
    return js_find(name);
}


/* Whether arg is one of sweep's and suggest's batch rules (--batch-per-gpu, -node, -group),
 * which a user of those may well give a command that takes -b alone. */
static bool batch_rule_flag(const char *arg)
{
    size_t n = strcspn(arg, "=");
    return (n == 17 && strncmp(arg, "--batch-per-group", n) == 0) ||
           (n == 16 && strncmp(arg, "--batch-per-node", n) == 0) ||
           (n == 15 && strncmp(arg, "--batch-per-gpu", n) == 0);
}

/* cli_getopt's flags, each given to `one`; the words that are no flag left from optind. */
static int cli_getopt_typed(int argc, char **argv, const char *shortopts,
                            const struct option *longopts, const char *command, cli_flag_fn one,
                            void *ctx, char *err)
{
    int c, longindex = -1, status = HS_OK; /* getopt_long sets longindex for long flags only */
    optind = 0; /* 0, not 1: GNU getopt then forgets a half-read option group of an earlier call */
    opterr = 0;
    while (status == HS_OK &&
           (c = getopt_long(argc, argv, shortopts, longopts, &longindex)) != -1) {
        if (c == ':')
            return hs_fail(err, HS_EINPUT, "%s needs a value", argv[optind - 1]);
        if (c == '?' && cli_job_key_named(argv[optind - 1]) >= 0) /* not a pricing key */
            return hs_fail(err, HS_EINPUT, "%s: %s chooses it itself (it ranks every choice)",
                           argv[optind - 1], command);
        if (c == '?' && batch_rule_flag(argv[optind - 1]))
            return hs_fail(err, HS_EINPUT, "unknown option '%s': the batch here is -b B, the "
                           "global mini-batch (the samples of all GPUs: -b 2048 for 256 a GPU on "
                           "8)%s; sweep takes --batch-per-gpu, -node and -group",
                           argv[optind - 1], command && strcmp(command, "suggest") == 0
                                                 ? ", or --batch-per-gpu b (B = b x GPUs)" : "");
        if (c == '?')
            return hs_fail(err, HS_EINPUT, "unknown option '%s' (see hybridsim%s%s --help)",
                           argv[optind - 1], command ? " " : "", command ? command : "");
        /* getopt_long takes a unique prefix (--gpu for --gpus): refused, as everywhere */
        status = hs_parse_whole_flag(argv, optind, optarg, shortopts, longopts, longindex, err);
        if (status == HS_OK)
            status = one(c, optarg, ctx, err);
        longindex = -1;
    }
    return status;
}

/* The long flag typed right before `word` (typed: argv as given, before getopt_long moved the
 * words that are no flag to its end) when it takes its value only after '=' (a switch:
 * --overlap, --overlap=off), or NULL. */
static const char *switch_before(char *const *typed, int argc, const char *word,
                                 const struct option *longopts)
{
    for (int i = 1; i < argc; i++) {
        if (typed[i] != word)
            continue;
        const char *prev = typed[i - 1];
        if (strncmp(prev, "--", 2) != 0 || strchr(prev, '='))
            return NULL;
        for (const struct option *o = longopts; o->name; o++)
            if (o->has_arg == optional_argument && strcmp(o->name, prev + 2) == 0)
                return prev;
        return NULL;
    }
    return NULL;
}

/* The end of the flags: a word left that is no flag. */
static int unexpected(char *const *typed, int argc, const char *word,
                      const struct option *longopts, char *err)
{
    const char *flag = switch_before(typed, argc, word, longopts);
    if (flag)
        return hs_fail(err, HS_EINPUT, "unexpected argument '%s': %s takes its value after "
                       "'=' (%s=%s)", word, flag, flag, word);
    return hs_fail(err, HS_EINPUT, "unexpected argument '%s'", word);
}

int cli_getopt(int argc, char **argv, const char *shortopts, const struct option *longopts,
               const char *command, cli_flag_fn one, void *ctx, char *err)
{
    char **typed = malloc((size_t)(argc > 0 ? argc : 1) * sizeof *typed);
    if (!typed)
        return hs_fail(err, HS_EINTERNAL, "out of memory");
    memcpy(typed, argv, (size_t)argc * sizeof *typed);
    int status = cli_getopt_typed(argc, argv, shortopts, longopts, command, one, ctx, err);
    if (status == HS_OK && optind < argc)
        status = unexpected(typed, argc, argv[optind], longopts, err);
    free(typed);
    return status;
}

int cli_overlap_said(const js_settings *job)
{
    return !js_given(job, "overlap") ? 0 : job->overlap ? JS_ON : JS_OFF;
}

void cli_pricing_keys(struct option *opts, int n, char *shortopts, size_t size)
{
    n += js_getopt_entries(opts + n, JS_IN_PRICING, CLI_OPT_KEY, shortopts, size);
    opts[n] = (struct option){NULL, 0, NULL, 0};
}
