/* cli_options.c: the flags of analytic, simulate and compare, parsed and checked (cli_int.h).
 *
 * Parsing sets fields one flag at a time (set_option); the checks then run in the order a user
 * reads the usage: a shared-fabric run (--job) first, whose per-job flags must come inside each
 * --job, else a single run, whose required flags come first and whose flags for another
 * command are refused with the command they belong to. */
#include "cli_int.h"

#include <getopt.h>
#include <limits.h>
#include <string.h>

#include "hs_json.h"
#include "hs_parse.h"
#include "placement.h"
#include "precision.h"

enum {
    OPT_ROW = 1000, OPT_ROW_HEADER, OPT_TRACE = 1100, OPT_TRACE_GPUS, OPT_LAYERS_TOP,
    OPT_PER_LAYER, OPT_LINKS = 1200, OPT_LINKS_ALL, OPT_LINKS_SUMMARY, OPT_JOB = 1300,
    OPT_BACKGROUND, OPT_BASELINE, OPT_OVERLAP = 1400, OPT_CFG = 1500,
    OPT_ALLREDUCE = 1600, OPT_COMPUTE, OPT_PRECISION, OPT_FILTER_BACKWARD, OPT_HALO
};

static const struct option longopts[] = {
    {"workload", required_argument, NULL, 'w'},
    {"platform", required_argument, NULL, 'p'},
    {"strategy", required_argument, NULL, 's'},
    {"gpus", required_argument, NULL, 'g'},
    {"batch", required_argument, NULL, 'b'},
    {"layers", required_argument, NULL, 'l'},
    {"micro-batches", required_argument, NULL, 'S'},
    {"collectives", required_argument, NULL, 'c'},
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
    {"overlap", no_argument, NULL, OPT_OVERLAP},
    {"allreduce", required_argument, NULL, OPT_ALLREDUCE},
    {"compute", required_argument, NULL, OPT_COMPUTE},
    {"precision", required_argument, NULL, OPT_PRECISION},
    {"filter-backward", required_argument, NULL, OPT_FILTER_BACKWARD},
    {"halo", required_argument, NULL, OPT_HALO},
    {"cfg", required_argument, NULL, OPT_CFG},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

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

/* --compute measured|model|kernels. */
static int parse_compute(const char *arg, job_compute *compute, char *err)
{
    if (strcmp(arg, "measured") == 0)
        *compute = JOB_COMPUTE_MEASURED;
    else if (strcmp(arg, "model") == 0)
        *compute = JOB_COMPUTE_MODEL;
    else if (strcmp(arg, "kernels") == 0)
        *compute = JOB_COMPUTE_KERNELS;
    else
        return hs_fail(err, HS_EINPUT, "--compute: unknown method '%s' (known: measured, model, "
                       "kernels)", arg);
    return HS_OK;
}

/* A flag choosing how the iteration is carried out (--compute, --precision, --halo,
 * --filter-backward, --allreduce) into the job. */
static int set_method(int c, const char *arg, job_spec *job, char *err)
{
    int status = HS_OK;
    switch (c) {
    case OPT_COMPUTE: return parse_compute(arg, &job->compute, err);
    case OPT_PRECISION: {
        pr_precision pr;
        status = pr_parse(arg, &pr, err);
        job->precision = (int)pr;
        return status;
    }
    case OPT_HALO:
        if (strcmp(arg, "sendrecv") != 0 && strcmp(arg, "chain") != 0)
            return hs_fail(err, HS_EINPUT, "--halo: unknown exchange '%s' (known: sendrecv, "
                           "chain)", arg);
        job->halo_chain = strcmp(arg, "chain") == 0 ? JOB_ON : JOB_OFF;
        break;
    case OPT_FILTER_BACKWARD:
        if (strcmp(arg, "allreduce") != 0 && strcmp(arg, "reduce-scatter") != 0)
            return hs_fail(err, HS_EINPUT, "--filter-backward: unknown collective '%s' (known: "
                           "allreduce, reduce-scatter)", arg);
        job->filter_rs = strcmp(arg, "reduce-scatter") == 0 ? JOB_ON : JOB_OFF;
        break;
    case OPT_ALLREDUCE:
        if (co_algo_parse(arg, &job->allreduce) != 0)
            return hs_fail(err, HS_EINPUT, "--allreduce: unknown algorithm '%s' (known: ring, "
                           "hier, tree, rings, auto)", arg);
        break;
    }
    return status;
}

/* One flag with its value (optarg). Returns HS_OK, HS_EINPUT, or -1 for --help. */
static int set_option(int c, const char *arg, cli_options *o, char *err)
{
    int64_t v = 0;
    int status = HS_OK;
    if (c >= OPT_ALLREDUCE && c < OPT_ALLREDUCE + 100)
        return set_method(c, arg, &o->job, err);
    switch (c) {
    case 'w': o->job.workload = arg; break;
    case 'p': o->platform = arg; break;
    case 's': o->job.strategy = arg; break;
    case 'l': o->job.layers = arg; break;
    case 'g': o->gpus_given = true; return set_int("-g", arg, 1, &o->job.gpus, err);
    case 'b':
        status = hs_parse_int64("-b", arg, 1, INT64_MAX / 4, &v, err);
        o->job.batch = v;
        o->batch_given = true;
        return status;
    case 'S': return set_int("--micro-batches", arg, 1, &o->job.micro_batches, err);
    case 'c': o->fidelity_given = true; return parse_fidelity(arg, &o->sim.fidelity, err);
    case 'P': o->placement_given = true; return pl_parse(arg, &o->sim.placement, err);
    case 'j': o->output = OUT_JSON; break;
    case OPT_ROW: o->output = OUT_ROW; break;
    case OPT_ROW_HEADER: o->output = OUT_ROW; o->row_header = true; break;
    case OPT_TRACE: o->sim.trace_path = arg; break;
    case OPT_TRACE_GPUS:
        tr_gpus_free(&o->trace_gpus);
        status = tr_parse_gpus(arg, &o->trace_gpus, err);
        o->sim.trace_gpus = status == HS_OK ? &o->trace_gpus : NULL;
        return status;
    case OPT_LAYERS_TOP:
        o->layers_given = true;
        return set_int("--layers-top", arg, 0, &o->layers_top, err);
    case OPT_PER_LAYER: o->layers_given = true; o->layers_top = -1; break;
    case OPT_LINKS: o->links_path = arg; break;
    case OPT_LINKS_ALL: o->links_all = true; break;
    case OPT_LINKS_SUMMARY: o->links_summary = true; break;
    case OPT_JOB: return append("--job", " jobs", o->jobs, &o->n_jobs, arg, err);
    case OPT_BACKGROUND:
        return append("--background", "", o->backgrounds, &o->n_backgrounds, arg, err);
    case OPT_BASELINE: o->baseline = true; break;
    case OPT_OVERLAP: o->sim.overlap = o->job.overlap = true; break;
    case OPT_CFG:
        if (o->n_cfg == CLI_MAX_CFG)
            return hs_fail(err, HS_EINPUT, "--cfg: at most %d settings", CLI_MAX_CFG);
        o->cfg[o->n_cfg++] = arg;
        break;
    case 'h': cli_print_usage(stdout); return -1;
    }
    return HS_OK;
}

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

/* The first flag given that belongs inside each --job, or NULL. */
static const char *per_job_flag(const cli_options *o)
{
    const struct { const char *flag; bool given; } flags[] = {
        {"-w", o->job.workload != NULL}, {"-s", o->job.strategy != NULL},
        {"-g", o->gpus_given}, {"-b", o->batch_given}, {"--layers", o->job.layers != NULL},
        {"--micro-batches", o->job.micro_batches != 0}, {"--placement", o->placement_given}};
    for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++)
        if (flags[i].given)
            return flags[i].flag;
    return NULL;
}

/* A shared fabric: each job names its own workload, strategy, GPUs and batch. */
static int check_fabric(const cli_options *o, char *err)
{
    if (!o->n_jobs)
        return hs_fail(err, HS_EINPUT, "%s needs at least one --job SPEC",
                       o->baseline ? "--baseline" : "--background");
    if (o->command != CMD_SIMULATE)
        return hs_fail(err, HS_EINPUT, "--job is for simulate");
    const char *per_job = per_job_flag(o);
    if (per_job)
        return hs_fail(err, HS_EINPUT, "%s cannot be combined with --job: give it inside each "
                       "--job (w=, s=, g=, b=, layers=, S=, placement=)", per_job);
    const cli_rule rules[] = {
        {o->sim.overlap, "--overlap is for single runs, not --job"},
        {o->job.allreduce != CO_RING, "--allreduce is for single runs, not --job"},
        {o->job.precision != 0, "--precision is for single runs, not --job"},
        {o->links_summary, "--links-summary is for single runs; --job runs have --links"},
        {o->output == OUT_ROW || o->sim.trace_path || o->layers_top != 10,
         "--job runs print tables or --json; --row, --trace and per-layer tables are for "
         "single runs"},
        {o->links_all && !o->links_path, "--links-all needs --links FILE.csv"},
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
        {!o->gpus_given, "-g GPUS is required (see hybridsim --help)"},
        {!o->batch_given, "-b BATCH is required (see hybridsim --help)"},
        {o->output == OUT_ROW && o->command == CMD_COMPARE,
         "--row is for analytic and simulate; compare has --json"},
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
        {o->layers_given && analytic,
         "--layers-top and --per-layer are for simulate and compare (the per-layer table is "
         "the simulation's)"},
        {o->links_path && !o->links_path[0], "--links needs a file name"},
        {o->links_all && !o->links_path, "--links-all needs --links FILE.csv"}};
    return first_broken(rules, sizeof rules / sizeof rules[0], err);
}

int cli_parse_run_options(int argc, char **argv, cli_options *o, char *err)
{
    optind = 0; /* 0, not 1: GNU getopt then forgets a half-read option group of an earlier call */
    opterr = 0;
    int c, longindex = -1, status = HS_OK; /* getopt_long sets longindex for long flags only */
    while (status == HS_OK &&
           (c = getopt_long(argc, argv, ":w:p:s:g:b:l:S:c:P:jh", longopts, &longindex)) != -1) {
        if (c == ':')
            return hs_fail(err, HS_EINPUT, "%s needs a value", argv[optind - 1]);
        if (c == '?')
            return hs_fail(err, HS_EINPUT, "unknown option '%s' (see hybridsim --help)",
                           argv[optind - 1]);
        status = hs_parse_whole_flag(argv, optind, optarg, longopts, longindex, err);
        if (status == HS_OK)
            status = set_option(c, optarg, o, err);
        longindex = -1;
    }
    if (status != HS_OK)
        return status;
    if (optind < argc)
        return hs_fail(err, HS_EINPUT, "unexpected argument '%s'", argv[optind]);
    if ((status = plat_engine_settings(o->cfg, o->n_cfg, err)) != HS_OK)
        return status;
    if (o->n_jobs || o->n_backgrounds || o->baseline)
        return check_fabric(o, err);
    return check_single(o, err);
}

int cli_getopt(int argc, char **argv, const char *shortopts, const struct option *longopts,
               const char *command, cli_flag_fn one, void *ctx, char *err)
{
    int c, longindex = -1, status = HS_OK; /* getopt_long sets longindex for long flags only */
    optind = 0; /* 0, not 1: GNU getopt then forgets a half-read option group of an earlier call */
    opterr = 0;
    while (status == HS_OK &&
           (c = getopt_long(argc, argv, shortopts, longopts, &longindex)) != -1) {
        if (c == ':')
            return hs_fail(err, HS_EINPUT, "%s needs a value", argv[optind - 1]);
        if (c == '?')
            return hs_fail(err, HS_EINPUT, "unknown option '%s' (see hybridsim %s --help)",
                           argv[optind - 1], command);
        /* getopt_long takes a unique prefix (--gpu for --gpus): refused, as everywhere */
        status = hs_parse_whole_flag(argv, optind, optarg, longopts, longindex, err);
        if (status == HS_OK)
            status = one(c, optarg, ctx, err);
        longindex = -1;
    }
    if (status == HS_OK && optind < argc)
        return hs_fail(err, HS_EINPUT, "unexpected argument '%s'", argv[optind]);
    return status;
}

int cli_job_flag(int c, const char *arg, cli_job_flags *j, char *err)
{
    int64_t v = 0;
    int status = HS_OK;
    switch (c) {
    case 'w': j->workload = arg; break;
    case 'p': j->platform = arg; break;
    case 'g':
        status = hs_parse_int64("-g", arg, 1, INT_MAX, &v, err);
        j->gpus = (int)v;
        break;
    case 'b': status = hs_parse_int64("-b", arg, 1, INT64_MAX / 4, &j->batch, err); break;
    case CLI_OPT_COMPUTE: status = parse_compute(arg, &j->compute, err); break;
    default: return CLI_FLAG_OTHER;
    }
    return status;
}

void cli_print_kernels(FILE *out, const wl_workload *wl)
{
    if (wl->compute)
        fprintf(out, ", kernels from the %s on %s",
                wl->compute->kernels_only ? "model alone" : "model",
                wl->compute->device.device->name);
    else
        fprintf(out, ", kernels measured on %s", wl->device);
}

void cli_json_kernels(FILE *out, const wl_workload *wl)
{
    fprintf(out, ", \"compute\": \"%s\", \"device\": ",
            wl->compute ? kt_compute_name(wl->compute) : "measured");
    hs_json_string(out, wl->compute ? wl->compute->device.device->name : wl->device);
}
