/* cli_suggest.c: `hybridsim suggest`, ParaDL's oracle question answered and checked (cli_int.h).
 *
 *   hybridsim suggest -w W -p P -g N (-b B | --batch-per-gpu b) [--top K] [--json]
 *
 * Every strategy the tool knows for the job is priced by the analytic model: the whole-model
 * strategies at every hybrid shape, pipelines at several micro-batch counts, the published
 * per-layer schemes (OWT, SplitBrain and GHP at every group size) and the searched plan. They
 * are ranked by analytic time, the K fastest that fit are simulated, and the final ranking is by
 * simulated time, each entry saying why it lost its place to the one above it. */
#include "cli_int.h"

#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hs_parse.h"
#include "units.h"
#include "suggest.h"

typedef cli_suggest_options suggest_options;

static void suggest_usage(FILE *out)
{
    fprintf(out,
            "usage: hybridsim suggest -w WORKLOAD [-p PLATFORM] -g GPUS (-b BATCH |\n"
            "                         --batch-per-gpu B) [--top K] [--json]\n"
            "\n"
            "Ranks every strategy for the job by the analytic model (data, filter, channel,\n"
            "spatial, pipeline at S = p, 2p, 4p micro-batches, data+filter and data+spatial at\n"
            "every shape, OWT, SplitBrain and GHP at every group size, and the searched per-layer\n"
            "plan), simulates the K fastest that fit (default 5), and prints the final ranking\n"
            "by simulated time with compute, communication, memory and why each lost its place.\n"
            "  -p, --platform P     the machine (default abci)\n"
            "  --batch-per-gpu B    the global batch is B x GPUs\n"
            "  --top K              simulate the K best by the model (default 5)\n"
            "  --max-gpus N         instead of -g: the fastest epoch on 1, 2, 4, ... up to N\n"
            "                       GPUs (the best of each count simulated)\n"
            "  --target-epoch-s T   instead of -g: the fewest GPUs (1, 2, 4, ...) whose best\n"
            "                       simulated epoch takes at most T seconds\n"
            "  -j, --json           one JSON object instead of the table\n"
            "job keys (as in hybridsim --help; the others suggest chooses itself):\n");
    js_print_help(out, JS_IN_PRICING);
}

enum { OPT_PER_GPU = 2100, OPT_TOP, OPT_MAX_GPUS, OPT_TARGET };

/* suggest's own flags; the job keys it takes (JS_IN_PRICING) follow (cli_pricing_keys). */
static const struct option suggest_longopts[] = {
    {"platform", required_argument, NULL, 'p'},
    {"batch-per-gpu", required_argument, NULL, OPT_PER_GPU},
    {"top", required_argument, NULL, OPT_TOP},  {"json", no_argument, NULL, 'j'},
    {"max-gpus", required_argument, NULL, OPT_MAX_GPUS},
    {"target-epoch-s", required_argument, NULL, OPT_TARGET},
    {"help", no_argument, NULL, 'h'},
};
#define N_SUGGEST_FLAGS ((int)(sizeof suggest_longopts / sizeof suggest_longopts[0]))

static int suggest_option(int c, const char *arg, void *ctx, char *err)
{
    suggest_options *o = ctx;
    int64_t v = 0;
    int status = cli_key_flag(c, arg, &o->job, err);
    if (status != CLI_FLAG_OTHER)
        return status;
    status = HS_OK;
    switch (c) {
    case 'p':
        if (o->platform_given)
            return hs_fail(err, HS_EINPUT, "-p is given twice");
        o->platform = arg, o->platform_given = true;
        break;
    case OPT_PER_GPU:
        status = hs_parse_int64("--batch-per-gpu", arg, 1, INT_MAX, &o->batch_per_gpu, err);
        break;
    case OPT_TOP:
        status = hs_parse_int64("--top", arg, 0, SU_MAX, &v, err);
        o->top = (int)v;
        break;
    case 'j': o->json = true; break;
    case OPT_MAX_GPUS:
        status = hs_parse_int64("--max-gpus", arg, 1, INT_MAX, &v, err);
        o->max_gpus = (int)v;
        break;
    case OPT_TARGET:
        if (un_parse(arg, UN_TIME, &o->target_epoch_s) != 0 || !(o->target_epoch_s > 0))
            status = hs_fail(err, HS_EINPUT, "--target-epoch-s: '%s' is not a time > 0 (600, "
                             "10m, 1h)", arg);
        break;
    case 'h': suggest_usage(stdout); return -1;
    }
    return status;
}

int cli_parse_suggest(int argc, char **argv, suggest_options *o, char *err)
{
    struct option longopts[N_SUGGEST_FLAGS + JS_MAX_KEYS + 1];
    char shortopts[64] = ":p:jh";
    memcpy(longopts, suggest_longopts, sizeof suggest_longopts);
    cli_pricing_keys(longopts, N_SUGGEST_FLAGS, shortopts, sizeof shortopts);
    int status = cli_getopt(argc, argv, shortopts, longopts, "suggest", suggest_option, o, err);
    if (status != HS_OK)
        return status;
    bool range = o->max_gpus || o->target_epoch_s > 0;
    if (!o->job.workload || !(o->job.gpus || range) || !(o->job.batch || o->batch_per_gpu))
        return hs_fail(err, HS_EINPUT, "suggest needs -w WORKLOAD, -g GPUS (or --max-gpus N or "
                       "--target-epoch-s T) and -b BATCH or --batch-per-gpu B");
    if (range && o->job.gpus)
        return hs_fail(err, HS_EINPUT, "-g and %s: give one (the budget chooses the GPUs)",
                       o->max_gpus ? "--max-gpus" : "--target-epoch-s");
    if (o->max_gpus && o->target_epoch_s > 0)
        return hs_fail(err, HS_EINPUT, "--max-gpus and --target-epoch-s: give one");
    if (range && o->json)
        return hs_fail(err, HS_EINPUT, "--json is for one GPU count (-g)");
    if (o->job.batch && o->batch_per_gpu)
        return hs_fail(err, HS_EINPUT, "-b and --batch-per-gpu say the same thing: give one");
    if (o->batch_per_gpu && o->job.gpus)
        o->job.batch = o->batch_per_gpu * o->job.gpus;
    return HS_OK;
}

/* ---------------------------------------------------------------- the command */

/* A budget's count, printed as it is answered. */
static void print_count(void *ctx, const su_count *c)
{
    (void)ctx;
    su_print_budget_count(stdout, c);
}

/* --max-gpus and --target-epoch-s: the best of each GPU count, one line each, then the
 * answer (sim/compare/budget.c chooses). */
static int suggest_budget(const suggest_options *o, const su_question *q, char *err)
{
    su_budget b = {.max_gpus = o->max_gpus, .target_epoch_s = o->target_epoch_s,
                   .batch = o->job.batch, .batch_per_gpu = o->batch_per_gpu,
                   .each = print_count};
    su_count best;
    su_print_budget_head(stdout, q, &b);
    int status = su_answer_budget(q, &b, &best, err);
    if (status == HS_OK)
        su_print_budget_answer(stdout, q, &b, &best);
    return status;
}

/* The oracle's answer at -g GPUs, or over the budget, under the runtime said (--runtime: its
 * allreduce, overlap, gradient bytes, optimizer, halos and filter backward on each candidate;
 * job_compute_for_pricing gave its kernels). */
static int ask(const suggest_options *o, const cli_sim *sim, const wl_workload *wl,
               const kt_compute *kc, plat_platform *plat, char *err)
{
    rt_runtime rt;
    int status = o->job.runtime ? rt_load(o->job.runtime, &rt, err) : HS_OK;
    if (status != HS_OK)
        return status;
    su_question q = {.wl = wl, .kc = kc, .plat = plat, .p = o->job.gpus, .batch = o->job.batch,
                     .top = o->job.gpus ? o->top : o->top ? o->top : 1,
                     .simulate = sim->simulate, .runtime = o->job.runtime ? &rt : NULL,
                     .runtime_said = o->job.runtime, .overlap = cli_overlap_said(&o->job),
                     .halo = o->job.halo_chain,
                     .filter_rs = o->job.filter_rs,
                     .who = "suggest"};
    if (!o->job.gpus)
        return suggest_budget(o, &q, err);
    su_list l;
    if ((status = su_answer(&q, &l, err)) != HS_OK)
        return status;
    (o->json ? su_print_ranking_json : su_print_ranking)(stdout, &q, &l);
    su_list_free(&l);
    return HS_OK;
}

static int suggest(const suggest_options *o, const cli_sim *sim, char *err)
{
    wl_workload wl;
    plat_platform plat;
    kt_compute kc;                  /* the compute model's state, when model points to it */
    const kt_compute *model = NULL; /* the kernel-time model (NULL: the measured times) */
    int status = wl_load(o->job.workload, &wl, err);
    if (status != HS_OK)
        return status;
    if ((status = cli_open_routes(o->platform, sim, &plat, err)) == HS_OK) {
        status = job_compute_for_pricing(&wl, &plat, &o->job, &kc, &model, err);
        if (status == HS_OK && (o->job.gpus > plat.n_gpus || o->max_gpus > plat.n_gpus))
            status = hs_fail(err, HS_EINPUT, "%s %d: the platform %s has %d GPUs",
                             o->max_gpus ? "--max-gpus" : "-g", o->max_gpus ? o->max_gpus
                             : o->job.gpus, plat.name, plat.n_gpus);
        if (status == HS_OK)
            status = ask(o, sim, &wl, model, &plat, err);
        plat_free(&plat);
    }
    wl_free(&wl);
    return status;
}

int cli_suggest_main(int argc, char **argv, const cli_sim *sim, char *err)
{
    suggest_options o = {.platform = "abci", .top = 5};
    int status = cli_parse_suggest(argc, argv, &o, err);
    if (status != HS_OK)
        return status < 0 ? HS_OK : status; /* < 0: --help */
    if (!sim)
        return cli_exec_full(err); /* the simulations need SimGrid: hybridsim-sim */
    return suggest(&o, sim, err);
}
