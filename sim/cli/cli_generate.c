/* cli_generate.c: `hybridsim strategy --generate SPEC -w W -g N -b B [-p P] -o FILE.xml`
 * (cli_int.h): a published scheme or a built-in strategy written as a per-layer strategy file.
 *
 * The generators are plain tables (workloads/strategy/generate.h); what needs the machine is
 * here: a hybrid's default group (a node's GPUs) and GHP's group size, which, when not given,
 * is the divisor of p whose plan the analytic model prices fastest among those that fit in
 * memory (packed placement, the platform's real routes). The file is written to FILE.tmp and
 * renamed, so a failure never leaves half a file. */
#include "cli_int.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "generate.h"
#include "hs_parse.h"
#include "sim.h"

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
            "                   without G, the divisor of GPUS the analytic model prices fastest\n"
            "                   among those that fit in memory on PLATFORM\n"
            "  serial, data, filter, channel, spatial, pipeline, data+filter[:P1xP2],\n"
            "  data+spatial[:P1xP2]   a built-in strategy, as a file giving the same numbers\n"
            "  -p PLATFORM      for a hybrid's default group and GHP's choice (default abci)\n");
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

static int parse_gen(int argc, char **argv, gen_options *o, char *err)
{
    unsigned char seen[256] = {0}; /* by getopt's code (every flag of --generate has one < 256) */
    int c, longindex = -1, status = HS_OK; /* getopt_long sets longindex for long flags only */
    opterr = 0;
    optind = 0; /* 0, not 1: GNU getopt then forgets a half-read option group of an earlier call */
    while (status == HS_OK && (c = getopt_long(argc, argv, ":w:g:b:p:l:S:o:h", gen_longopts,
                                               &longindex)) != -1) {
        /* a unique prefix (--micro for --micro-batches) is refused, as everywhere */
        if (c != ':' && c != '?' &&
            (status = hs_parse_whole_flag(argv, optind, optarg, gen_longopts, longindex, err)))
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

/* ------------------------------------------------------------------ GHP's group size */

/* The analytic iteration of ghp:G, or HS_EINPUT when G cannot be used. */
static int price_ghp(const gen_options *o, const wl_workload *wl, const plat_platform *plat,
                     int g, st_plan *plan, hs_estimate *est, char *err)
{
    char spec[32];
    snprintf(spec, sizeof spec, "ghp:%d", g);
    int status = st_generate(spec, wl, o->gpus, o->batch, plat->gpus_per_node, 0, plan, err);
    if (status != HS_OK)
        return status;
    an_net *net = NULL;
    status = an_net_open(plat, o->gpus, NULL, &net, err);
    if (status == HS_OK)
        status = an_plan_model(wl, plan, o->batch, net, plat->gpu_memory_bytes, est, NULL, err);
    an_net_close(net);
    if (status != HS_OK)
        st_plan_free(plan);
    return status;
}

/* Every divisor of p, fastest that fits first, else fastest: the chosen plan into *best.
 * Priced with the kernels the runs default to (job_compute_for_pricing). */
static int choose_ghp(const gen_options *o, const wl_workload *measured,
                      const plat_platform *plat, st_plan *best, char *why, size_t why_len,
                      char *err)
{
    double best_s = 0;
    bool best_fits = false, found = false;
    wl_workload priced = *measured; /* the same layers, with its kernel times' source */
    const wl_workload *wl = &priced;
    kt_compute kc;
    js_settings defaults = {0};
    int status = job_compute_for_pricing(&priced, plat, &defaults, &kc, err);
    if (status != HS_OK)
        return status;
    size_t used = (size_t)snprintf(why, why_len, "G chosen by the analytic model on %s, %s "
                                   "(iteration seconds):", plat->name,
                                   priced.compute ? "kernels from the compute model"
                                                  : "measured kernels");
    for (int g = 1; g <= o->gpus; g++) {
        if (o->gpus % g)
            continue;
        st_plan plan;
        hs_estimate est;
        char skip[HS_ERR_LEN];
        if (price_ghp(o, wl, plat, g, &plan, &est, skip) != HS_OK)
            continue;
        double t = est.iteration.total_s;
        if (used < why_len)
            used += (size_t)snprintf(why + used, why_len - used, " G=%d %.6g%s", g, t,
                                     est.fits_in_memory ? "" : " (does not fit)");
        bool better = !found || (est.fits_in_memory && !best_fits) ||
                      (est.fits_in_memory == best_fits && t < best_s);
        if (better) {
            if (found)
                st_plan_free(best);
            *best = plan, best_s = t, best_fits = est.fits_in_memory, found = true;
        } else {
            st_plan_free(&plan);
        }
    }
    if (!found)
        return hs_fail(err, HS_EINPUT, "--generate ghp: no group size G dividing -g %d gives a "
                       "plan for %s at -b %lld", o->gpus, wl->name, (long long)o->batch);
    return HS_OK;
}

/* ------------------------------------------------------------------ writing */

static int write_plan(const char *path, const st_plan *plan, const wl_workload *wl,
                      const char *description, char *err)
{
    char tmp[4200];
    if (snprintf(tmp, sizeof tmp, "%s.tmp", path) >= (int)sizeof tmp)
        return hs_fail(err, HS_EINPUT, "-o: path too long");
    FILE *f = fopen(tmp, "w");
    if (!f)
        return hs_fail(err, HS_EINPUT, "-o: cannot create %s: %s", tmp, strerror(errno));
    int status = st_plan_write(f, plan, wl, description, err);
    if (fclose(f) != 0 && status == HS_OK)
        status = hs_fail(err, HS_EINPUT, "-o: cannot write %s: %s", tmp, strerror(errno));
    if (status == HS_OK && rename(tmp, path) != 0)
        status = hs_fail(err, HS_EINPUT, "-o: cannot rename %s to %s: %s", tmp, path,
                         strerror(errno));
    if (status != HS_OK)
        remove(tmp);
    return status;
}

/* The platform, when the spec needs the machine: a hybrid without its shape, splitbrain or
 * ghp without G. */
static bool needs_platform(const char *spec)
{
    bool shaped = strchr(spec, ':') != NULL;
    return !shaped && (!strncmp(spec, "data+", 5) || !strcmp(spec, "splitbrain") ||
                       !strcmp(spec, "ghp"));
}

static int generate(const gen_options *o, const wl_workload *wl, const cli_sim *sim,
                    st_plan *plan, char *err)
{
    char description[4096];
    snprintf(description, sizeof description, "%s", st_generate_description(o->spec));
    plat_platform plat;
    bool with_plat = needs_platform(o->spec);
    int status = with_plat ? cli_open_routes(o->platform ? o->platform : "abci", sim, &plat, err) : HS_OK;
    if (status != HS_OK)
        return status;
    if (!strcmp(o->spec, "ghp")) {
        char why[2048];
        status = choose_ghp(o, wl, &plat, plan, why, sizeof why, err);
        size_t n = strlen(description);
        snprintf(description + n, sizeof description - n, " %s.", why);
        if (status == HS_OK)
            printf("%s\n", why);
    } else {
        status = st_generate(o->spec, wl, o->gpus, o->batch, with_plat ? plat.gpus_per_node : 0,
                             o->micro_batches, plan, err);
    }
    if (with_plat)
        plat_free(&plat);
    if (status == HS_OK)
        status = write_plan(o->out, plan, wl, description, err);
    if (status == HS_OK)
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
