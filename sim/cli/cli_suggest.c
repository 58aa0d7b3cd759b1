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

#include "an_search.h"
#include "generate.h"
#include "hs_json.h"
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
    case 'p': o->platform = arg; break;
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

/* ---------------------------------------------------------------- printing */

static void print_table(const suggest_options *o, const wl_workload *wl, const kt_compute *kc,
                        const plat_platform *plat, su_list *l)
{
    printf("hybridsim suggest: %s on %s, %d GPUs, batch %lld: %d strategies priced, %d fit, "
           "%d simulated", wl->name, plat->name, o->job.gpus, (long long)o->job.batch, l->n,
           l->fitting, l->simulated);
    if (o->job.runtime)
        printf(", runtime %s", o->job.runtime);
    cli_print_kernels(stdout, wl, kc);
    putchar('\n');
    int width = 26; /* the strategy column: its longest name */
    for (int i = 0; i < l->n; i++)
        if ((int)strlen(l->c[i].name) > width)
            width = (int)strlen(l->c[i].name);
    printf("  %4s  %-*s %10s %10s %10s %10s %9s  %s\n", "rank", width, "strategy", "compute",
           "comm", "analytic", "simulated", "GB a GPU", "why not first");
    for (int i = 0; i < l->n; i++) {
        const su_candidate *c = &l->c[l->order[i]];
        printf("  %4d  %-*s %10.6f %10.6f %10.6f ", i + 1, width, c->name,
               c->analytic.iteration.compute_s, c->analytic.iteration.comm_s,
               c->analytic.iteration.total_s);
        if (c->simulated)
            printf("%10.6f", c->sim.iteration.total_s);
        else
            printf("%10s", "-");
        printf(" %9.3f  %s\n", c->analytic.memory_per_gpu_bytes / 1e9, c->why);
    }
    printf("  times are seconds per iteration; epoch = %lld iterations\n",
           (long long)l->c[l->order[0]].analytic.iterations_per_epoch);
}

static void print_json(const suggest_options *o, const wl_workload *wl, const kt_compute *kc,
                       const plat_platform *plat, su_list *l)
{
    printf("{\"mode\": \"suggest\", \"workload\": ");
    hs_json_string(stdout, wl->name);
    printf(", \"platform\": ");
    hs_json_string(stdout, plat->name);
    printf(", \"gpus\": %d, \"batch\": %lld", o->job.gpus, (long long)o->job.batch);
    if (o->job.runtime) {
        printf(", \"runtime\": ");
        hs_json_string(stdout, o->job.runtime);
    }
    cli_json_kernels(stdout, wl, kc);
    printf(", \"ranking\": [");
    for (int i = 0; i < l->n; i++) {
        const su_candidate *c = &l->c[l->order[i]];
        printf("%s\n  {\"rank\": %d, \"strategy\": ", i ? "," : "", i + 1);
        hs_json_string(stdout, c->name);
        printf(", \"analytic_s\": %.17g, \"compute_s\": %.17g, \"comm_s\": %.17g, "
               "\"memory_bytes\": %.17g, \"fits\": %s", c->analytic.iteration.total_s,
               c->analytic.iteration.compute_s, c->analytic.iteration.comm_s,
               c->analytic.memory_per_gpu_bytes, c->analytic.fits_in_memory ? "true" : "false");
        if (c->simulated)
            printf(", \"simulated_s\": %.17g, \"simulated_comm_s\": %.17g",
                   c->sim.iteration.total_s, c->sim.iteration.comm_s);
        printf(", \"why\": ");
        hs_json_string(stdout, c->why);
        printf("}");
    }
    printf("]}\n");
}

/* ---------------------------------------------------------------- the command */

static int suggest_range(const suggest_options *o, const cli_sim *sim, const wl_workload *wl,
                         const kt_compute *kc, plat_platform *plat, char *err);

/* The oracle's answer at p GPUs, under the runtime said (--runtime: its allreduce, overlap,
 * halos and filter backward on each candidate; job_compute_for_pricing gave its kernels). */
static int ask(const suggest_options *o, const cli_sim *sim, const wl_workload *wl,
               const kt_compute *kc, plat_platform *plat, int p, int64_t batch, int top, su_list *l,
               char *err)
{
    rt_runtime rt;
    int status = o->job.runtime ? rt_load(o->job.runtime, &rt, err) : HS_OK;
    if (status != HS_OK)
        return status;
    su_question q = {.wl = wl, .kc = kc, .plat = plat, .p = p, .batch = batch, .top = top,
                     .simulate = sim->simulate, .runtime = o->job.runtime ? &rt : NULL,
                     .who = "suggest"};
    status = su_answer(&q, l, err);
    if (status == HS_OK)
        l->runtime = NULL; /* rt ends here */
    return status;
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
        su_list l;
        status = job_compute_for_pricing(&wl, &plat, &o->job, &kc, &model, err);
        if (status != HS_OK)
            ;
        else if (!o->job.gpus)
            status = suggest_range(o, sim, &wl, model, &plat, err);
        else if (o->job.gpus > plat.n_gpus)
            status = hs_fail(err, HS_EINPUT, "-g %d: the platform %s has %d GPUs", o->job.gpus,
                             plat.name, plat.n_gpus);
        else if ((status = ask(o, sim, &wl, model, &plat, o->job.gpus, o->job.batch, o->top, &l,
                               err)) == HS_OK) {
            (o->json ? print_json : print_table)(o, &wl, model, &plat, &l);
            su_list_free(&l);
        }
        plat_free(&plat);
    }
    wl_free(&wl);
    return status;
}

/* One GPU count of a budget: its candidates ranked; *first (NULL if none fits) its winner. */
static int one_count(const suggest_options *o, const cli_sim *sim, const wl_workload *wl,
                     const kt_compute *kc, plat_platform *plat, int p, su_list *l, char *err)
{
    int64_t batch = o->batch_per_gpu ? o->batch_per_gpu * p : o->job.batch;
    return ask(o, sim, wl, kc, plat, p, batch, o->top ? o->top : 1, l, err);
}

/* --max-gpus and --target-epoch-s: the GPU counts 1, 2, 4, ... (and N), the best of each
 * simulated, one line each; the answer below. */
static int suggest_range(const suggest_options *o, const cli_sim *sim, const wl_workload *wl,
                         const kt_compute *kc, plat_platform *plat, char *err)
{
    int limit = o->max_gpus ? o->max_gpus : plat->n_gpus, best_p = 0;
    double best_s = INFINITY;
    char best_name[SU_NAME_LEN] = "", why[HS_ERR_LEN];
    printf("hybridsim suggest: %s on %s, %s", wl->name, plat->name,
           o->max_gpus ? "the fastest epoch within the GPU budget" : "the fewest GPUs reaching "
           "the target epoch");
    cli_print_kernels(stdout, wl, kc);
    printf("\n  %6s  %-36s %14s %14s\n", "GPUs", "best strategy", "epoch, sim s",
           "epoch, model s");
    for (int p = 1; p <= limit && p <= plat->n_gpus;
         p = p < limit && 2 * p > limit ? limit : 2 * p) {
        su_list l;
        if (one_count(o, sim, wl, kc, plat, p, &l, why) != HS_OK) {
            printf("  %6d  %s\n", p, "(no strategy runs: the batch does not divide, ...)");
            continue;
        }
        const su_candidate *c = &l.c[l.order[0]];
        if (!c->simulated)
            printf("  %6d  (nothing fits; the fastest by the model, %s, needs %.1f GB)\n", p,
                   c->name, c->analytic.memory_per_gpu_bytes / 1e9);
        else {
            printf("  %6d  %-36s %14.3f %14.3f\n", p, c->name, c->sim.epoch.total_s,
                   c->analytic.epoch.total_s);
            bool better = o->max_gpus ? c->sim.epoch.total_s < best_s
                                      : !best_p && c->sim.epoch.total_s <= o->target_epoch_s;
            if (better)
                best_p = p, best_s = c->sim.epoch.total_s,
                snprintf(best_name, sizeof best_name, "%s", c->name);
        }
        su_list_free(&l);
        if (o->target_epoch_s > 0 && best_p)
            break;
        if (p == limit)
            break;
    }
    if (!best_p && o->target_epoch_s > 0)
        printf("  no GPU count up to %d reaches an epoch of %g s\n", limit, o->target_epoch_s);
    else if (best_p)
        printf("  answer: %s on %d GPUs, %.3f s an epoch (simulated)\n", best_name, best_p,
               best_s);
    else
        return hs_fail(err, HS_EINPUT, "no strategy runs %s on up to %d GPUs", wl->name, limit);
    return HS_OK;
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
