/* cli_generate.c: `hybridsim strategy --generate SPEC -w W -g N -b B [-p P] -o FILE.xml`
 * (cli_int.h): a published scheme or a built-in strategy written as a per-layer strategy file.
 *
 * The generators are plain tables (workloads/strategy/generate.h); what needs the machine is
 * the platform's: a hybrid's default group (a node's GPUs), GHP's group size, which, when
 * not given, sim/compare chooses (suggest.h, su_choose_ghp), and a pipeline's stages, balanced
 * on the kernels as a run on that GPU times them (job_compute_for_pricing's default). The file is written as every
 * output is (hs_out.h): whole or not at all, a device or FIFO in place, anything else
 * refused. */
#include "cli_int.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "generate.h"
#include "hs_out.h"
#include "hs_parse.h"
#include "sim.h"
#include "suggest.h"

typedef struct {
    const char *spec;      /* --generate */
    const char *workload;  /* -w */
    const char *layers;    /* -l */
    const char *platform;  /* -p (default abci) */
    const char *out;       /* -o */
    int gpus;              /* -g */
    int64_t batch;         /* -b */
    int micro_batches;     /* -S */
} gen_options;

void cli_generate_usage(FILE *out)
{
    fprintf(out,
            "usage: hybridsim strategy --generate SPEC -w WORKLOAD -g GPUS -b BATCH\n"
            "                          [-p PLATFORM] [-l LAYERS] [-S MICRO] -o FILE.xml\n"
            "\n"
            "Writes a per-layer strategy file (workloads/README.md, \"Strategy files\") that\n"
            "analytic, simulate, compare and sweep take as -s FILE.xml. SPEC:\n"
            "  owt              convolutions data-parallel, fully connected layers split on\n"
            "                   output neurons over all GPUs (Krizhevsky 2014)\n"
            "  splitbrain[:G]   convolutions data-parallel, fully connected layers sharded in\n"
            "                   groups of G (default: a node's GPUs), groups data-parallel\n"
            "  ghp[:G]          groups of G split every conv/fc on filters, data-parallel across;\n"
            "                   without G, the divisor of GPUS whose plan simulates fastest\n"
            "                   among those that fit in memory on PLATFORM\n"
            "  serial, data, filter, channel, spatial, pipeline, data+filter[:P1xP2],\n"
            "  data+spatial[:P1xP2]   a built-in strategy, as a file giving the same numbers\n"
            "  -p PLATFORM      for a hybrid's default group, GHP's choice and the pipeline's\n"
            "                   stages, balanced on its GPU's kernels (default abci)\n");
}

static const struct option gen_longopts[] = {
    {"generate", required_argument, NULL, 'G'}, {"workload", required_argument, NULL, 'w'},
    {"gpus", required_argument, NULL, 'g'},     {"batch", required_argument, NULL, 'b'},
    {"platform", required_argument, NULL, 'p'}, {"layers", required_argument, NULL, 'l'},
    {"micro-batches", required_argument, NULL, 'S'}, {"output", required_argument, NULL, 'o'},
    {"help", no_argument, NULL, 'h'},           {NULL, 0, NULL, 0},
};

/* A whole-number flag (>= 1) into an int. */
static int int_flag(const char *flag, const char *text, int *out, char *err)
{
    int64_t v = 0;
    int status = hs_parse_int64(flag, text, 1, INT_MAX, &v, err);
    *out = (int)v;
    return status;
}

/* --generate's short flags, for getopt_long and for telling a flag from a value */
#define GEN_SHORTOPTS ":w:g:b:p:l:S:o:h"

static int parse_gen(int argc, char **argv, gen_options *o, char *err)
{
    unsigned char seen[256] = {0}; /* by getopt's code (every flag of --generate has one < 256) */
    int c, longindex = -1, status = HS_OK; /* getopt_long sets longindex for long flags only */
    opterr = 0;
    optind = 0; /* 0, not 1: GNU getopt then forgets a half-read option group of an earlier call */
    while (status == HS_OK && (c = getopt_long(argc, argv, GEN_SHORTOPTS, gen_longopts,
                                               &longindex)) != -1) {
        /* a unique prefix (--micro for --micro-batches) is refused, as everywhere */
        if (c != ':' && c != '?' &&
            (status = hs_parse_whole_flag(argv, optind, optarg, GEN_SHORTOPTS, gen_longopts,
                                          longindex, err)))
            break;
        longindex = -1;
        if (c > 0 && c < 256 && c != ':' && c != '?' && seen[c]++) /* -g 4 -g 8: refused */
            return c == 'G' ? hs_fail(err, HS_EINPUT, "--generate is given twice")
                            : hs_fail(err, HS_EINPUT, "-%c is given twice", c);
        switch (c) {
        case 'g': status = int_flag("-g", optarg, &o->gpus, err); break;
        case 'S': status = int_flag("--micro-batches", optarg, &o->micro_batches, err); break;
        case 'b': status = hs_parse_int64("-b", optarg, 1, INT64_MAX / 4, &o->batch, err); break;
        case 'G': o->spec = optarg; break;
        case 'w': o->workload = optarg; break;
        case 'p': o->platform = optarg; break;
        case 'l': o->layers = optarg; break;
        case 'o': o->out = optarg; break;
        case 'h': cli_generate_usage(stdout); return -1;
        case ':': return hs_fail(err, HS_EINPUT, "%s needs a value", argv[optind - 1]);
        default: return hs_fail(err, HS_EINPUT, "strategy: unknown flag '%s'", argv[optind - 1]);
        }
    }
    if (status != HS_OK)
        return status;
    if (optind < argc)
        return hs_fail(err, HS_EINPUT, "strategy: unexpected '%s'", argv[optind]);
    const struct { bool missing; const char *what; } need[] = {
        {!o->spec, "--generate SPEC is required (see hybridsim strategy --help)"},
        {!o->workload, "-w WORKLOAD is required"}, {!o->gpus, "-g GPUS is required"},
        {!o->batch, "-b BATCH is required"}, {!o->out, "-o FILE.xml is required"}};
    for (size_t i = 0; i < sizeof need / sizeof need[0]; i++)
        if (need[i].missing)
            return hs_fail(err, HS_EINPUT, "strategy: %s", need[i].what);
    return HS_OK;
}

/* ------------------------------------------------------------------ writing */

static int write_plan(const char *path, const st_plan *plan, const wl_workload *wl,
                      const char *description, char *err)
{
    hs_out out;
    int status = hs_out_open(&out, "-o", path, err);
    if (status != HS_OK)
        return status;
    status = st_plan_write(out.f, plan, wl, description, err);
    if (status != HS_OK) {
        hs_out_abort(&out);
        return status;
    }
    return hs_out_commit(&out, err);
}

/* The platform, when the spec needs the machine: a hybrid without its shape, splitbrain or
 * ghp without G. */
static bool needs_platform(const char *spec)
{
    bool shaped = strchr(spec, ':') != NULL;
    return !strcmp(spec, "pipeline") ||
           (!shaped && (!strncmp(spec, "data+", 5) || !strcmp(spec, "splitbrain") ||
                        !strcmp(spec, "ghp")));
}

/* The platform a spec needs (-p, default abci) into plat; a -p the spec does not use is still
 * read, so that a wrong name or file is refused (exit 2) rather than ignored. The message
 * names -p when it was given. */
static int open_platform(const gen_options *o, bool needed, const cli_sim *sim,
                         plat_platform *plat, char *err)
{
    int status = HS_OK;
    if (needed)
        status = cli_open_routes(o->platform ? o->platform : "abci", sim, plat, err);
    else if (o->platform && (status = plat_open(o->platform, plat, err)) == HS_OK)
        plat_free(plat);
    if (status != HS_OK && o->platform) {
        char why[HS_ERR_LEN];
        snprintf(why, sizeof why, "%s", err);
        return hs_fail(err, status, "-p: %s", why);
    }
    return status;
}

static int generate(const gen_options *o, const wl_workload *wl, const cli_sim *sim,
                    st_plan *plan, char *err)
{
    char description[4096];
    snprintf(description, sizeof description, "%s", st_generate_description(o->spec));
    int status = hs_out_check("-o", o->out, err); /* before anything is printed */
    if (status != HS_OK)
        return status;
    plat_platform plat;
    bool with_plat = needs_platform(o->spec);
    status = open_platform(o, with_plat, sim, &plat, err);
    if (status != HS_OK)
        return status;
    if (!strcmp(o->spec, "ghp") && !sim) {
        status = cli_exec_full(err); /* the choice simulates: hybridsim-sim */
    } else if (!strcmp(o->spec, "ghp")) {
        char why[2048];
        status = su_choose_ghp(wl, &plat, o->gpus, o->batch, sim->simulate, plan, why,
                               sizeof why, err);
        size_t n = strlen(description);
        snprintf(description + n, sizeof description - n, " %s.", why);
        if (status == HS_OK) /* -o -: standard output is the file's */
            fprintf(hs_out_is_stdout(o->out) ? stderr : stdout, "%s\n", why);
    } else {
        kt_compute kc;
        const kt_compute *model = NULL;
        js_settings timing = {0}; /* the default kernels: what a run of the plan times */
        if (with_plat && !strcmp(o->spec, "pipeline"))
            status = job_compute_for_pricing(wl, &plat, &timing, &kc, &model, err);
        if (status == HS_OK)
            status = st_generate(o->spec, wl, model, o->gpus, o->batch,
                                 with_plat ? plat.gpus_per_node : 0, o->micro_batches, plan, err);
    }
    if (with_plat)
        plat_free(&plat);
    if (status == HS_OK)
        status = write_plan(o->out, plan, wl, description, err);
    if (status == HS_OK && hs_out_is_stdout(o->out))
        fprintf(stderr, "wrote standard output: %s for %s on %d GPUs (%d layers)\n",
                plan->name, wl->name, plan->gpus, plan->n_layers);
    else if (status == HS_OK)
        printf("wrote %s: %s for %s on %d GPUs (%d layers)\n", o->out, plan->name, wl->name,
               plan->gpus, plan->n_layers);
    return status;
}

int cli_generate_main(int argc, char **argv, const cli_sim *sim, char *err)
{
    gen_options o = {0};
    int status = parse_gen(argc, argv, &o, err);
    if (status != HS_OK)
        return status < 0 ? HS_OK : status;
    js_settings spec = {.workload = o.workload, .layers = o.layers};
    job j;
    status = job_load_workload(&spec, &j, err);
    st_plan plan = {0};
    if (status == HS_OK)
        status = generate(&o, &j.wl, sim, &plan, err);
    st_plan_free(&plan);
    job_free(&j);
    return status;
}
