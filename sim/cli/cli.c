/* cli.c: parses `hybridsim COMMAND [flags]`, loads the inputs, runs the analytic model and/or the
 * simulation, and prints the result (report.h).
 *
 * Inputs are loaded and checked in the order a user would fix them: flags, workload (and layer
 * file), platform, strategy against platform, strategy against workload and batch. The first
 * problem is reported on stderr with the flag or file it concerns, and the exit status is 2. */
#include "cli.h"

#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analytic.h"
#include "fabric.h"
#include "hs_parse.h"
#include "platgen.h"
#include "platform.h"
#include "report.h"
#include "simulate.h"
#include "sweep.h"
#include "strategy.h"
#include "workload.h"

#define HS_VERSION "0.1.0"

typedef enum { CMD_ANALYTIC, CMD_SIMULATE, CMD_COMPARE } cli_command;
typedef enum { OUT_TABLE, OUT_JSON, OUT_ROW } cli_output;

#define CLI_MAX_JOBS 64 /* --job and --background flags each */

/* Everything a run command's flags say. */
typedef struct {
    cli_command command;
    const char *workload;     /* -w: path or short name */
    const char *platform;     /* -p: path or short name */
    const char *strategy;     /* -s: e.g. "data+filter:8x4" */
    const char *layers;       /* --layers: ParaDL layer file, or NULL */
    int gpus;                 /* -g */
    int64_t batch;            /* -b: global mini-batch */
    int micro_batches;        /* --micro-batches: pipeline S, 0 = default */
    sm_options sim;           /* --collectives, --placement */
    cli_output output;        /* table (default), --json, --row */
    bool row_header;          /* --row-header: print the column names first */
    tr_gpu_set trace_gpus;    /* --trace-gpus (n = 0: not given) */
    int layers_top;           /* --layers-top N, --per-layer (-1): per-layer table rows */
    const char *links_path;   /* --links FILE.csv: link statistics, or NULL */
    bool links_all;           /* --links-all: every link in the CSV, not only those used */
    const char *jobs[CLI_MAX_JOBS];        /* --job SPEC, repeatable (fabric.h) */
    int n_jobs;
    const char *backgrounds[CLI_MAX_JOBS]; /* --background SPEC, repeatable */
    int n_backgrounds;
    bool baseline;            /* --baseline: each job also alone */
} cli_options;

static const char *command_names[] = {"analytic", "simulate", "compare"};

static void print_usage(FILE *out)
{
    fprintf(out,
            "hybridsim %s: how fast does a CNN train on a GPU cluster, and why.\n"
            "\n"
            "usage:\n"
            "  hybridsim analytic -w WORKLOAD -p PLATFORM -s STRATEGY -g GPUS -b BATCH [options]\n"
            "  hybridsim simulate -w ... -p ... -s ... -g ... -b ... [--collectives flow|step]\n"
            "                     [--placement packed|spread] [options]\n"
            "  hybridsim compare  -w ... -p ... -s ... -g ... -b ... [options]\n"
            "  hybridsim platform [--preset NAME] [flags] -o FILE.xml   (see hybridsim platform --help)\n"
            "  hybridsim sweep [FILE.sweep] [flags with lists] -o OUT.csv  (see hybridsim sweep --help)\n"
            "\n"
            "  analytic   ParaDL's closed-form model: instant, no contention\n"
            "  simulate   SimGrid simulation of every kernel and message, with link sharing\n"
            "  compare    both, side by side, with their agreement\n"
            "\n"
            "run options:\n"
            "  -w, --workload W        workload: a path (.xml, ParaDL .net/.net_sc) or a short name\n"
            "                          in workloads/ (resnet50, resnet152, vgg16, alexnet,\n"
            "                          cosmoflow-512, cosmoflow-256)\n"
            "  -p, --platform P        platform: a path or a short name in platforms/ (abci,\n"
            "                          dgx1, nvswitch-ndr)\n"
            "  -s, --strategy S        serial, data, spatial, filter, channel, pipeline,\n"
            "                          data+filter[:P1xP2], data+spatial[:P1xP2]\n"
            "                          (hybrids: P1 data-parallel groups of P2 GPUs; default P2 =\n"
            "                          GPUs per node)\n"
            "  -g, --gpus N            number of GPUs (ranks) p\n"
            "  -b, --batch B           global mini-batch (samples per iteration, all GPUs)\n"
            "  -l, --layers FILE       ParaDL layer file (NAME|1): the layers model parallelism\n"
            "                          splits (default: the workload's own marks)\n"
            "  -S, --micro-batches S   pipeline: micro-batches per mini-batch (default: p)\n"
            "  -c, --collectives F     simulation fidelity: flow (default; one flow per ring edge)\n"
            "                          or step (every step of every collective)\n"
            "  -P, --placement K       packed (default: rank r on GPU r), spread (nodes dealt\n"
            "                          round-robin over racks) or scatter (one rank per node)\n"
            "      --overlap           simulate, compare: order tasks by data dependency:\n"
            "                          communication overlaps compute where the schedule allows\n"
            "                          (default: blocking, each task after the previous one, as\n"
            "                          the analytic model assumes)\n"
            "  -j, --json              print one JSON object instead of the table\n"
            "      --row               print one line (for scripts); --row-header adds the header\n"
            "      --trace FILE.json   simulate, compare: write a Chrome trace (Perfetto,\n"
            "                          chrome://tracing) of every kernel and message\n"
            "      --trace-gpus LIST   keep only these GPUs in the trace, e.g. 0-7,64,128-131\n"
            "      --layers-top N      table: the N layers that cost most time (default 10, 0: no\n"
            "                          per-layer table); --per-layer: all layers\n"
            "      --links FILE.csv    simulate, compare: per link direction, bytes, busy time,\n"
            "                          mean and peak utilisation (CSV); the report adds a summary\n"
            "                          per link kind, the top links and the congestion share;\n"
            "                          --links-all lists unused links too\n"
            "      --job SPEC          simulate: one job of several sharing the platform, e.g.\n"
            "                          \"w=resnet50,s=data,g=128,b=4096,racks=0-1,placement=spread\"\n"
            "                          (keys w s g b, optional name layers S gpus racks placement;\n"
            "                          lists are ranges joined by '+': gpus=0-63+128-191);\n"
            "                          repeat for each job; -w -s -g -b go inside\n"
            "      --background SPEC   traffic for the whole run: \"from=NODES,to=NODES,rate=5GBps\"\n"
            "                          (optional gpu=G: the GPU host of each node it uses)\n"
            "      --baseline          with --job: also each job alone, to report its slowdown\n"
            "  -h, --help              this text;  --version  the version\n"
            "\n"
            "Times are seconds, memory bytes (GB = 1e9 bytes in tables). Exit status: 0 success,\n"
            "2 bad input (the message names the file, line or flag), 1 internal failure.\n",
            HS_VERSION);
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

static int require(const char *flag, const void *value, char *err)
{
    return value ? HS_OK : hs_fail(err, HS_EINPUT, "%s is required (see hybridsim --help)", flag);
}

/* Parse the flags of analytic/simulate/compare. Returns HS_OK, HS_EINPUT, or -1 after --help. */
static int parse_run_options(int argc, char **argv, cli_options *o, char *err)
{
    enum { OPT_ROW = 1000, OPT_ROW_HEADER, OPT_TRACE = 1100, OPT_TRACE_GPUS, OPT_LAYERS_TOP,
           OPT_PER_LAYER, OPT_LINKS = 1200, OPT_LINKS_ALL, OPT_JOB = 1300, OPT_BACKGROUND,
           OPT_BASELINE, OPT_OVERLAP = 1400 };
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
        {"job", required_argument, NULL, OPT_JOB},
        {"background", required_argument, NULL, OPT_BACKGROUND},
        {"baseline", no_argument, NULL, OPT_BASELINE},
        {"overlap", no_argument, NULL, OPT_OVERLAP},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    int64_t v = 0;
    int status = HS_OK;
    bool gpus_given = false, batch_given = false, placement_given = false;
    optind = 1;
    opterr = 0;
    int c;
    while (status == HS_OK &&
           (c = getopt_long(argc, argv, ":w:p:s:g:b:l:S:c:P:jh", longopts, NULL)) != -1) {
        switch (c) {
        case 'w': o->workload = optarg; break;
        case 'p': o->platform = optarg; break;
        case 's': o->strategy = optarg; break;
        case 'l': o->layers = optarg; break;
        case 'g':
            status = hs_parse_int64("-g", optarg, 1, INT_MAX, &v, err);
            o->gpus = (int)v;
            gpus_given = true;
            break;
        case 'b':
            status = hs_parse_int64("-b", optarg, 1, INT64_MAX / 4, &v, err);
            o->batch = v;
            batch_given = true;
            break;
        case 'S':
            status = hs_parse_int64("--micro-batches", optarg, 1, INT_MAX, &v, err);
            o->micro_batches = (int)v;
            break;
        case 'c': status = parse_fidelity(optarg, &o->sim.fidelity, err); break;
        case 'P':
            status = pl_parse(optarg, &o->sim.placement, err);
            placement_given = true;
            break;
        case 'j': o->output = OUT_JSON; break;
        case OPT_ROW: o->output = OUT_ROW; break;
        case OPT_ROW_HEADER: o->output = OUT_ROW; o->row_header = true; break;
        case OPT_TRACE: o->sim.trace_path = optarg; break;
        case OPT_TRACE_GPUS:
            tr_gpus_free(&o->trace_gpus);
            status = tr_parse_gpus(optarg, &o->trace_gpus, err);
            o->sim.trace_gpus = status == HS_OK ? &o->trace_gpus : NULL;
            break;
        case OPT_LAYERS_TOP:
            status = hs_parse_int64("--layers-top", optarg, 0, INT_MAX, &v, err);
            o->layers_top = (int)v;
            break;
        case OPT_PER_LAYER: o->layers_top = -1; break;
        case OPT_LINKS: o->links_path = optarg; break;
        case OPT_LINKS_ALL: o->links_all = true; break;
        case OPT_JOB:
            if (o->n_jobs == CLI_MAX_JOBS)
                return hs_fail(err, HS_EINPUT, "--job: at most %d jobs", CLI_MAX_JOBS);
            o->jobs[o->n_jobs++] = optarg;
            break;
        case OPT_BACKGROUND:
            if (o->n_backgrounds == CLI_MAX_JOBS)
                return hs_fail(err, HS_EINPUT, "--background: at most %d", CLI_MAX_JOBS);
            o->backgrounds[o->n_backgrounds++] = optarg;
            break;
        case OPT_BASELINE: o->baseline = true; break;
        case OPT_OVERLAP: o->sim.overlap = true; break;
        case 'h': print_usage(stdout); return -1;
        case ':':
            return hs_fail(err, HS_EINPUT, "%s needs a value", argv[optind - 1]);
        default:
            return hs_fail(err, HS_EINPUT, "unknown option '%s' (see hybridsim --help)",
                           argv[optind - 1]);
        }
    }
    if (status != HS_OK)
        return status;
    if (optind < argc)
        return hs_fail(err, HS_EINPUT, "unexpected argument '%s'", argv[optind]);
    if (o->n_jobs || o->n_backgrounds || o->baseline) {
        /* a shared fabric: each job names its own workload, strategy, GPUs and batch */
        const char *per_job = o->workload ? "-w" : o->strategy ? "-s" : gpus_given ? "-g"
                            : batch_given ? "-b" : o->layers ? "--layers"
                            : o->micro_batches ? "--micro-batches"
                            : placement_given ? "--placement" : NULL;
        if (!o->n_jobs)
            return hs_fail(err, HS_EINPUT, "%s needs at least one --job SPEC",
                           o->baseline ? "--baseline" : "--background");
        if (o->command != CMD_SIMULATE)
            return hs_fail(err, HS_EINPUT, "--job is for simulate");
        if (per_job)
            return hs_fail(err, HS_EINPUT, "%s cannot be combined with --job: give it inside each "
                           "--job (w=, s=, g=, b=, layers=, S=, placement=)", per_job);
        if (o->sim.overlap)
            return hs_fail(err, HS_EINPUT, "--overlap is for single runs, not --job");
        if (o->output == OUT_ROW || o->sim.trace_path || o->layers_top != 10)
            return hs_fail(err, HS_EINPUT, "--job runs print tables or --json; --row, --trace and "
                           "per-layer tables are for single runs");
        if (o->links_all && !o->links_path)
            return hs_fail(err, HS_EINPUT, "--links-all needs --links FILE.csv");
        return require("-p PLATFORM", o->platform, err);
    }
    if ((status = require("-w WORKLOAD", o->workload, err)) ||
        (status = require("-p PLATFORM", o->platform, err)) ||
        (status = require("-s STRATEGY", o->strategy, err)) ||
        (status = require("-g GPUS", gpus_given ? "" : NULL, err)) ||
        (status = require("-b BATCH", batch_given ? "" : NULL, err)))
        return status;
    if (o->output == OUT_ROW && o->command == CMD_COMPARE)
        return hs_fail(err, HS_EINPUT, "--row is for analytic and simulate; compare has --json");
    if (o->sim.trace_path && o->command == CMD_ANALYTIC)
        return hs_fail(err, HS_EINPUT, "--trace is for simulate and compare (analytic runs no "
                       "tasks)");
    if (o->sim.trace_gpus && !o->sim.trace_path)
        return hs_fail(err, HS_EINPUT, "--trace-gpus needs --trace FILE.json");
    if (o->links_path && o->command == CMD_ANALYTIC)
        return hs_fail(err, HS_EINPUT, "--links is for simulate and compare (the analytic model "
                       "sends no messages)");
    if (o->sim.overlap && o->command == CMD_ANALYTIC)
        return hs_fail(err, HS_EINPUT, "--overlap is for simulate and compare (the analytic "
                       "model has no overlap)");
    if (o->links_path && !o->links_path[0])
        return hs_fail(err, HS_EINPUT, "--links needs a file name");
    if (o->links_all && !o->links_path)
        return hs_fail(err, HS_EINPUT, "--links-all needs --links FILE.csv");
    return HS_OK;
}

/* The inputs of a run, loaded and checked. */
typedef struct {
    wl_workload wl;
    plat_platform plat;
    st_strategy st;
    bool wl_loaded, plat_loaded;
} cli_inputs;

static int load_inputs(const cli_options *o, cli_inputs *in, char *err)
{
    int status = wl_load(o->workload, &in->wl, err);
    if (status != HS_OK)
        return status;
    in->wl_loaded = true;
    if (o->layers && (status = wl_apply_layer_file(&in->wl, o->layers, err)) != HS_OK)
        return status;
    if ((status = plat_load(o->platform, &in->plat, err)) != HS_OK)
        return status;
    in->plat_loaded = true;
    if (o->gpus > in->plat.n_gpus)
        return hs_fail(err, HS_EINPUT, "-g %d: platform %s has only %d GPUs", o->gpus,
                       in->plat.name, in->plat.n_gpus);
    status = st_parse(o->strategy, o->gpus, in->plat.gpus_per_node, o->micro_batches, &in->st,
                      err);
    if (status != HS_OK)
        return status;
    return st_check(&in->st, &in->wl, o->batch, err);
}

static void free_inputs(cli_inputs *in)
{
    if (in->wl_loaded)
        wl_free(&in->wl);
    if (in->plat_loaded)
        plat_free(&in->plat);
}

/* ---- compare: what accounts for a difference ---------------------------------------------- */

#define CLI_TERMS (AN_COMM_COUNT + 2) /* compute, the communication terms, waiting */

/* Both iterations in the same parts, each side adding up to its total: compute (the model's
 * without its pipeline bubble), each communication term (simulated: the exposed part not
 * spent waiting for other ranks), and waiting (the model's bubble; the simulation's waiting
 * inside communication tasks plus idle time outside them). Returns how many parts. */
static int difference_terms(const hs_estimate *an, const an_terms *at, const hs_estimate *sim,
                            const sm_details *d, bool pipeline, rp_term *terms)
{
    int n = 0;
    terms[n++] = (rp_term){.key = "compute", .label = "compute",
                           .analytic_s = an->iteration.compute_s - at->bubble_s,
                           .simulated_s = sim->iteration.compute_s};
    double exposed_s = 0, waiting_s = 0;
    for (int k = 0; k < AN_COMM_COUNT; k++) {
        double w = d->term_waiting_s[k];
        terms[n++] = (rp_term){.key = an_comm_key((an_comm_kind)k),
                               .label = an_comm_label((an_comm_kind)k),
                               .analytic_s = at->comm_s[k],
                               .simulated_s = d->term_exposed_s[k] - w,
                               .is_comm = true,
                               .simulated_comm_s = d->term_comm_s[k],
                               .simulated_exposed_s = d->term_exposed_s[k],
                               .simulated_waiting_s = w};
        exposed_s += d->term_exposed_s[k];
        waiting_s += w;
    }
    double idle_s = sim->iteration.total_s - sim->iteration.compute_s - exposed_s;
    terms[n++] = (rp_term){.key = "waiting",
                           .label = pipeline ? "idle stages (pipeline bubbles)"
                                             : "waiting for other ranks",
                           .analytic_s = at->bubble_s, .simulated_s = waiting_s + idle_s};
    return n;
}

/* The link kind where messages waited most (ties: the first kind), -1 if none waited. */
static int top_waiting_kind(const lk_stats *links)
{
    int top = -1;
    for (int k = 0; k < LK_KIND_COUNT; k++)
        if (links->waiting_by_kind_s[k] > 0 &&
            (top < 0 || links->waiting_by_kind_s[k] > links->waiting_by_kind_s[top]))
            top = k;
    return top;
}

/* Name what accounts for a difference of more than 2% between the two totals: the part with
 * the largest simulated - analytic (ties: the first), and where messages waited on shared
 * links when that is more than 1% of their time. */
static void explain(const hs_estimate *an, const hs_estimate *sim, const rp_term *terms,
                    int n_terms, const lk_stats *links, char *text, size_t len)
{
    text[0] = '\0';
    if (rp_agreement(an, sim) >= 0.98 || n_terms < 1)
        return;
    double diff_s = sim->iteration.total_s - an->iteration.total_s;
    int top = 0;
    for (int i = 1; i < n_terms; i++)
        if (fabs(terms[i].simulated_s - terms[i].analytic_s) >
            fabs(terms[top].simulated_s - terms[top].analytic_s))
            top = i;
    const rp_term *t = &terms[top];
    double part_s = t->simulated_s - t->analytic_s;
    int used = snprintf(text, len, "the simulation is %.1f%% %s (%+.4g s per iteration); the "
                        "largest part is %s: simulated %.4g s, analytic %.4g s (%+.4g s, %.0f%% "
                        "of the difference)",
                        100 * fabs(diff_s) / an->iteration.total_s,
                        diff_s > 0 ? "slower" : "faster", diff_s, t->label, t->simulated_s,
                        t->analytic_s, part_s, diff_s != 0 ? 100 * part_s / diff_s : 0.0);
    int kind = links ? top_waiting_kind(links) : -1;
    if (kind >= 0 && links->all.congestion_share > 0.01 && used > 0 && (size_t)used < len)
        snprintf(text + used, len - (size_t)used, "; messages waited %.0f%% of their time on "
                 "shared links, %.0f%% of it on %s links", 100 * links->all.congestion_share,
                 100 * links->waiting_by_kind_s[kind] / links->all.waiting_s,
                 lk_kind_name((lk_kind)kind));
}

static int run_command(const cli_options *o, char *err)
{
    cli_inputs in;
    memset(&in, 0, sizeof in);
    lk_stats links; /* --links, and always for compare's explanation: filled by the simulation */
    memset(&links, 0, sizeof links);
    sm_options sim_opt = o->sim;
    if (o->links_path || o->command == CMD_COMPARE)
        sim_opt.links = &links;
    sim_opt.links_untraced = !o->links_path;
    int status = o->links_path ? lk_csv_check(o->links_path, err) : HS_OK;
    if (status == HS_OK)
        status = load_inputs(o, &in, err);
    if (status != HS_OK) {
        free_inputs(&in);
        return status;
    }
    rp_run run = {.mode = command_names[o->command],
                  .workload = in.wl.name,
                  .platform = in.plat.name,
                  .strategy = in.st,
                  .batch = o->batch,
                  .gpu_memory_bytes = in.plat.gpu_memory_bytes,
                  .layers_top = o->layers_top};

    hs_estimate an, sim;
    an_terms an_parts; /* compare: the model's iteration told apart */
    memset(&an, 0, sizeof an);
    memset(&sim, 0, sizeof sim);
    sm_details details;
    memset(&details, 0, sizeof details);
    /* The simulation reports memory with the same footprint model as the analytic one, so the
     * analytic estimate is computed for every command. */
    /* The analytic model sees the placement too: its alphas and betas come from the routes
     * between the GPUs the ranks actually run on. */
    int *gpu_of_rank = malloc((size_t)in.st.p * sizeof *gpu_of_rank);
    if (!gpu_of_rank)
        status = hs_fail(err, HS_EINTERNAL, "out of memory placing %d ranks", in.st.p);
    else
        status = pl_place(&in.plat, o->sim.placement, in.st.p, gpu_of_rank, err);
    if (status == HS_OK)
        status = an_estimate_terms(&in.wl, &in.plat, &in.st, o->batch, gpu_of_rank, &an,
                                   &an_parts, err);
    free(gpu_of_rank);
    if (status == HS_OK && o->command != CMD_ANALYTIC) {
        /* details carry the per-layer breakdown; one-line rows have no room for it */
        status = sm_run(&in.wl, &in.plat, &in.st, o->batch, &sim_opt, &sim,
                        o->command == CMD_COMPARE || o->output != OUT_ROW ? &details : NULL,
                        err);
        sim.memory_per_gpu_bytes = an.memory_per_gpu_bytes;
        sim.memory = an.memory;
        sim.fits_in_memory = an.fits_in_memory;
        if (details.layers.layers)
            run.layers = &details.layers;
        if (status == HS_OK && o->links_path) {
            run.links = &links;
            run.links_job = -1;
            status = lk_write_csv(&links, o->links_path, o->links_all, err);
        }
    }
    if (status == HS_OK) {
        const hs_estimate *est = o->command == CMD_ANALYTIC ? &an : &sim;
        if (o->command == CMD_COMPARE) {
            char why[1024];
            rp_term terms[CLI_TERMS];
            int n_terms = difference_terms(&an, &an_parts, &sim, &details,
                                           in.st.kind == ST_PIPELINE, terms);
            explain(&an, &sim, terms, n_terms, &links, why, sizeof why);
            rp_difference diff = {.text = why, .terms = terms, .n_terms = n_terms,
                                  .links = &links};
            if (o->output == OUT_JSON)
                rp_print_compare_json(stdout, &run, &an, &sim, &diff);
            else
                rp_print_compare_table(stdout, &run, &an, &sim, &diff);
        } else if (o->output == OUT_JSON) {
            rp_print_json(stdout, &run, est);
        } else if (o->output == OUT_ROW) {
            if (o->row_header)
                rp_print_row_header(stdout);
            rp_print_row(stdout, &run, est);
        } else {
            rp_print_table(stdout, &run, est);
        }
        if (o->output == OUT_JSON)
            fputc('\n', stdout);
    }
    sm_details_free(&details);
    lk_stats_free(&links);
    free_inputs(&in);
    return status;
}

static int run_main(cli_command command, int argc, char **argv, char *err)
{
    cli_options o;
    memset(&o, 0, sizeof o);
    o.command = command;
    o.sim.fidelity = ENG_FLOW;
    o.sim.placement = PL_PACKED;
    o.layers_top = 10;
    int status = parse_run_options(argc, argv, &o, err);
    if (status == HS_OK && o.n_jobs) {
        fb_request req = {.platform = o.platform, .fidelity = o.sim.fidelity, .jobs = o.jobs,
                          .n_jobs = o.n_jobs, .backgrounds = o.backgrounds,
                          .n_backgrounds = o.n_backgrounds, .baseline = o.baseline,
                          .json = o.output == OUT_JSON, .links_path = o.links_path,
                          .links_all = o.links_all};
        status = fb_run(&req, stdout, err);
    } else if (status == HS_OK) {
        status = run_command(&o, err);
    }
    tr_gpus_free(&o.trace_gpus);
    return status < 0 ? HS_OK : status; /* < 0: --help */
}

int cli_main(int argc, char **argv)
{
    char err[HS_ERR_LEN] = "";
    int status;
    if (argc < 2) {
        print_usage(stderr);
        return HS_EINPUT;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0 || strcmp(cmd, "help") == 0) {
        print_usage(stdout);
        return HS_OK;
    }
    if (strcmp(cmd, "--version") == 0) {
        printf("hybridsim %s\n", HS_VERSION);
        return HS_OK;
    }
    if (strcmp(cmd, "analytic") == 0)
        status = run_main(CMD_ANALYTIC, argc - 1, argv + 1, err);
    else if (strcmp(cmd, "simulate") == 0)
        status = run_main(CMD_SIMULATE, argc - 1, argv + 1, err);
    else if (strcmp(cmd, "compare") == 0)
        status = run_main(CMD_COMPARE, argc - 1, argv + 1, err);
    else if (strcmp(cmd, "platform") == 0)
        status = pg_main(argc - 1, argv + 1, err);
    else if (strcmp(cmd, "sweep") == 0)
        status = sw_main(argc - 1, argv + 1, err);
    else
        status = hs_fail(err, HS_EINPUT,
                         "unknown command '%s' (known: analytic, simulate, compare, platform, "
                         "sweep; see hybridsim --help)",
                         cmd);
    fflush(stdout);
    if (status != HS_OK)
        fprintf(stderr, "hybridsim: %s\n", err[0] ? err : "failed");
    return status;
}
