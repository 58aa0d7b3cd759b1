/* cli_strategy.c: `hybridsim strategy`: per-layer strategies (cli_int.h).
 *
 *   hybridsim strategy --search -w W [-p P] -g N -b B [--cost-model hybridsim|pase] [-o FILE.xml]
 *                     [--analytic-only] [--json] [--max-table N]
 *
 * --search runs PaSE's dynamic programme (analytic/search) and prints (its search_report.c)
 * each vertex's configuration, its cost, the redistribution into it, and the total. With PaSE's
 * own cost model that is all (here); with hybridsim's (the default) cli_search.c also writes the strategy file
 * and compares it with the best whole-model strategy, analytic and simulated. Each action has
 * its own flag parser: --generate's is cli_generate.c. */
#include "cli_int.h"

#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hs_out.h"
#include "hs_parse.h"
#include "pase_cost.h"
#include "search.h"
#include "workload.h"

typedef cli_search_options search_options;

static void search_usage(FILE *out)
{
    fprintf(out,
            "usage: hybridsim strategy --search -w WORKLOAD -g DEVICES -b BATCH [-p PLATFORM]\n"
            "                          [--cost-model hybridsim|pase] [-o FILE.xml] [--top K]\n"
            "                          [--analytic-only] [--json] [--max-table N]\n"
            "\n"
            "  --search           find the per-layer configuration (split of batch, output and\n"
            "                     input channels, height, width per layer) of least total cost\n"
            "                     by PaSE's dynamic programme\n"
            "  --cost-model M     hybridsim (default): seconds by hybridsim's analytic model on\n"
            "                     the platform's routes, within GPU memory; the searched plan is\n"
            "                     one candidate of the oracle `suggest` asks (every built-in with\n"
            "                     every gradient allreduce, OWT, SplitBrain, GHP), the K fastest\n"
            "                     by the model simulated; the answer is written as a strategy\n"
            "                     file with its settings. pase: PaSE's own model (FLOP-\n"
            "                     equivalents, r = 5000), the table only\n"
            "  -p, --platform P   the machine (default abci; hybridsim model only)\n"
            "  -o, --output FILE  the strategy file to write (default\n"
            "                     searched-WORKLOAD-gN-bB.xml)\n"
            "  --top K            simulate the K fastest by the model (default 5)\n"
            "  --analytic-only    no simulation (answers without loading SimGrid)\n"
            "  --max-table N      refuse a search whose tables exceed N entries (default %lld)\n"
            "  -j, --json         one JSON object instead of the table\n"
            "job keys (as in hybridsim --help; -g is the devices p, a layer uses at most p;\n"
            "the other keys the search chooses itself):\n",
            (long long)SR_MAX_TABLE_DEFAULT);
    js_print_help(out, JS_IN_PRICING);
}

enum { OPT_SEARCH = 2000, OPT_COST_MODEL, OPT_MAX_TABLE, OPT_ANALYTIC_ONLY, OPT_TOP };

static const struct option search_longopts[] = {
    {"search", no_argument, NULL, OPT_SEARCH},
    {"platform", required_argument, NULL, 'p'},
    {"cost-model", required_argument, NULL, OPT_COST_MODEL},
    {"max-table", required_argument, NULL, OPT_MAX_TABLE},
    {"output", required_argument, NULL, 'o'},
    {"analytic-only", no_argument, NULL, OPT_ANALYTIC_ONLY},
    {"top", required_argument, NULL, OPT_TOP},
    {"json", no_argument, NULL, 'j'},
    {"help", no_argument, NULL, 'h'},
};
#define N_SEARCH_FLAGS ((int)(sizeof search_longopts / sizeof search_longopts[0]))

/* One flag. Returns HS_OK, HS_EINPUT, or -1 after --help. */
static int search_option(int c, const char *arg, void *ctx, char *err)
{
    search_options *o = ctx;
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
    case OPT_COST_MODEL: o->cost_model = arg; break;
    case OPT_MAX_TABLE:
        status = hs_parse_int64("--max-table", arg, 1, INT64_MAX / 16, &o->max_table, err);
        break;
    case 'j': o->json = true; break;
    case 'o': o->out = arg; break;
    case OPT_ANALYTIC_ONLY: o->analytic_only = true; break;
    case OPT_TOP: {
        int64_t v = 0;
        status = hs_parse_int64("--top", arg, 1, 512, &v, err);
        o->top = (int)v, o->top_given = true;
        break;
    }
    case 'h': search_usage(stdout); return -1;
    }
    return status;
}

/* The first flag PaSE's model would leave unused (it prices -w, -g and -b in FLOP-equivalents:
 * no machine, no kernel times), as typed into buf, or NULL. */
static const char *pase_unused(const search_options *o, char *buf, size_t len)
{
    if (o->out || o->top_given || o->analytic_only || o->platform_given)
        return o->out ? "-o" : o->top_given ? "--top" : o->analytic_only ? "--analytic-only"
                                                                          : "-p";
    for (int k = 0; k < js_n_keys; k++) {
        const char *name = js_keys[k].name;
        if ((o->job.given & (1u << k)) && strcmp(name, "workload") != 0 &&
            strcmp(name, "gpus") != 0 && strcmp(name, "batch") != 0) {
            snprintf(buf, len, "--%s", name);
            return buf;
        }
    }
    return NULL;
}

int cli_parse_search(int argc, char **argv, search_options *o, char *err)
{
    struct option longopts[N_SEARCH_FLAGS + JS_MAX_KEYS + 1];
    char shortopts[64] = ":p:o:jh";
    memcpy(longopts, search_longopts, sizeof search_longopts);
    cli_pricing_keys(longopts, N_SEARCH_FLAGS, shortopts, sizeof shortopts);
    int status = cli_getopt(argc, argv, shortopts, longopts, "strategy", search_option, o, err);
    if (status != HS_OK)
        return status;
    if (!o->job.workload || !o->job.gpus || !o->job.batch)
        return hs_fail(err, HS_EINPUT, "--search needs -w WORKLOAD, -g DEVICES and -b BATCH");
    char flag[64];
    const char *unused = strcmp(o->cost_model, "pase") == 0 ? pase_unused(o, flag, sizeof flag)
                                                            : NULL;
    if (unused)
        return hs_fail(err, HS_EINPUT, "%s is for --cost-model hybridsim (PaSE's model prints "
                       "its table only, from -w, -g and -b)", unused);
    if (o->analytic_only && o->top_given)
        return hs_fail(err, HS_EINPUT, "--top %d: simulates the %d fastest by the model, and "
                       "--analytic-only simulates none: give one", o->top, o->top);
    if (strcmp(o->cost_model, "hybridsim") != 0 && strcmp(o->cost_model, "pase") != 0)
        return hs_fail(err, HS_EINPUT, "--cost-model: unknown model '%s' (known: hybridsim, "
                       "pase)", o->cost_model);
    if (hs_out_is_stdout(o->out))
        return hs_fail(err, HS_EINPUT, "-o -: strategy --search prints its answer on standard "
                       "output; give a file name (./- for a file named '-')");
    return HS_OK;
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Price the found strategy term by term and print it (analytic/search/search_report.c). */
static int report(sr_report *rp, const search_options *o, const sr_costs *costs, char *err)
{
    int status = sr_report_price(rp, costs, err);
    if (status == HS_OK)
        (o->json ? sr_print_json : sr_print_table)(stdout, rp);
    sr_report_free(rp);
    return status;
}

static int run_search(const search_options *o, char *err)
{
    wl_workload wl;
    int status = wl_load(o->job.workload, &wl, err);
    if (status != HS_OK)
        return status;
    sr_options opt = pase_options(&wl, o->job.gpus);
    pase_model model = {pase_ratio(PASE_TFLOPS, PASE_GBPS)};
    sr_costs costs = pase_costs(&model);
    sr_graph g;
    sr_result res;
    if ((status = sr_graph_build(&wl, o->job.batch, &opt, &g, err)) == HS_OK) {
        double start = now_s();
        if ((status = pase_check(&g, err)) == HS_OK &&
            (status = sr_solve(&g, &costs, o->max_table, &res, err)) == HS_OK) {
            sr_report rp = {.wl = &wl, .g = &g, .res = &res, .cost_model = o->cost_model,
                            .r = model.r, .seconds = now_s() - start};
            status = report(&rp, o, &costs, err);
            sr_result_free(&res);
        }
        sr_graph_free(&g);
    }
    wl_free(&wl);
    return status;
}

/* strategy --search */
static int strategy_search(int argc, char **argv, const cli_sim *sim, char *err)
{
    search_options o = {.cost_model = "hybridsim", .platform = "abci", .top = 5};
    int status = cli_parse_search(argc, argv, &o, err);
    if (status != HS_OK)
        return status < 0 ? HS_OK : status; /* < 0: --help */
    if (strcmp(o.cost_model, "hybridsim") == 0)
        return cli_search_hybridsim(&o, sim, err);
    return run_search(&o, err);
}

int cli_strategy_main(int argc, char **argv, const cli_sim *sim, char *err)
{
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--search") == 0)
            return strategy_search(argc, argv, sim, err);
        if (strcmp(argv[i], "--generate") == 0 || strncmp(argv[i], "--generate=", 11) == 0)
            return cli_generate_main(argc, argv, sim, err);
    }
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            cli_generate_usage(stdout);
            printf("\n");
            search_usage(stdout);
            return HS_OK;
        }
    return hs_fail(err, HS_EINPUT, "strategy: say what to do: --generate SPEC or --search (see "
                   "hybridsim strategy --help)");
}
