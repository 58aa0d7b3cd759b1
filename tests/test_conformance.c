/* test_conformance.c: the analytic model against the ParaDL oracle's own projection logs.
 *
 * Every SUMMARY row of every log in reference/paradl/log/ is read at test time: the block's
 * command line names the model file (-net) and the row gives the strategy, B and p. The model
 * is loaded from reference/paradl/model/ with the layer file the oracle's run scripts used
 * (reference/paradl/README.md), the platform is platforms/abci.xml, and an_estimate's epoch
 * compute, epoch communication and memory per GPU must each be within 1% of the row's Tcomp,
 * Tcomm and Mem. A row, or one quantity of it, is left out only if it is listed in
 * `exclusions` below with the reason; the test fails if a compared quantity is off by more
 * than 1%, and if fewer quantities than expected were compared (so that a parsing slip cannot
 * make it pass vacuously). analytic/README.md ("Conformance") repeats the list. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "shared_helpers.h"

#include "analytic.h"
#include "job.h"

#define LOG_DIR HS_SHARED_DIR "/reference/paradl/log/"
#define MODEL_DIR HS_SHARED_DIR "/reference/paradl/model/"
#define TOLERANCE 0.01

/* Quantities compared when every log is read (see test_oracle_logs). */
#define EXPECTED_MEM 167
#define EXPECTED_TCOMP 197
#define EXPECTED_TCOMM 165

/* Every log the reference holds: each row is compared or excluded below. */
static const char *const log_files[] = {
    "data_alexnet_scaling_proj.log",
    "data_resnet_scaling_proj.log",
    "data_vgg_scaling_proj.log",
    "filter_alexnet_scaling_proj.log",
    "filter_resnet_scaling_proj.log",
    "filter_vgg_scaling_proj.log",
    "channel_alexnet_scaling_proj.log",
    "channel_resnet_scaling_proj.log",
    "channel_vgg_scaling_proj.log",
    "resnet_ranking.log",
    "resnet_ranking_2.log",
    "ranking_log/resnet/4/data.log",
    "ranking_log/resnet/4/filter.log",
    "ranking_log/resnet/4/spatial.log",
    "ranking_log/resnet/16/data.log",
    "ranking_log/resnet/16/filter.log",
    "ranking_log/resnet/16/channel.log",
    "ranking_log/resnet/16/df.log",
    "ranking_log/resnet/16/data+spatial.log",
    "ranking_log/resnet/64/data.log",
    "ranking_log/resnet/64/filter.log2",
    "ranking_log/resnet/64/channel.log",
    "ranking_log/resnet/64/df.log",
    "ranking_log/resnet/64/data+spatial.log",
    "ranking_log/resnet/1024/df.log",
    "ranking_log/resnet/1024/cosmoflow.log_2",
    "ranking_log/vgg/filter.log",
    "ranking_log/vgg/df.log",
    "ranking_log/vgg/df.log2",
    "ranking_log/vgg/ds.log",
    "ranking_log/cosmoflow.log",
    "ranking_log/cosmoflow_256.log",
};

/* ------------------------------------------------------------------ exclusions */

enum { Q_MEM = 1, Q_TCOMP = 2, Q_TCOMM = 4, Q_ALL = 7 };

typedef struct {
    const char *file;   /* log file, as in log_files */
    int block;          /* 0-based block of the file, -1 for all */
    const char *row;    /* row name ("df", "filter3"), NULL for all */
    int p_min, p_max;   /* GPUs */
    unsigned skip;      /* Q_* quantities not compared */
    const char *reason;
} exclusion;

#define LATENCY_20US                                                                         \
    "run by an oracle version with a 20 us PLX cable latency (alpha 40.31 us instead of "      \
    "30.31 us between nodes); the platform follows the scaling logs' 15 us"
#define FILTER_MEMORY                                                                        \
    "the oracle divides the split layers' weights by p twice and the replicated layers' by p "  \
    "once; the model keeps |w|/p of split layers and all of replicated ones (as the oracle's "  \
    "own data+filter memory does)"
#define DF_FULL_WEIGHTS                                                                      \
    "oracle version whose inter-node allreduce carries all of W at bandwidth/(2 p2) (its "      \
    "ChainerMNx limitation); the model reduces each GPU's own weights at bandwidth/p2, as "     \
    "resnet_ranking.log and PARADL-MODEL.md's table do"
#define DF_LAST_BATCH                                                                        \
    "D/B is not whole: the oracle's data+filter charges the last, partial iteration a full "    \
    "batch of compute (ceil(D/B) B samples); the model charges the D samples (the epoch rule "  \
    "shared with the simulator, which the data rows confirm)"
#define DS_AFTER_SPLIT                                                                       \
    "the oracle's data+spatial leaves every layer after the split point out of compute and "   \
    "memory (its loop stops there); they run replicated in the model"

static const exclusion exclusions[] = {
    /* Filter and channel: memory. */
    {"filter_alexnet_scaling_proj.log", -1, NULL, 1, 4096, Q_MEM, FILTER_MEMORY},
    {"filter_vgg_scaling_proj.log", -1, NULL, 1, 4096, Q_MEM, FILTER_MEMORY},
    {"channel_alexnet_scaling_proj.log", -1, NULL, 1, 4096, Q_MEM, FILTER_MEMORY},
    {"channel_vgg_scaling_proj.log", -1, NULL, 1, 4096, Q_MEM, FILTER_MEMORY},
    {"ranking_log/vgg/filter.log", -1, NULL, 1, 4096, Q_MEM, FILTER_MEMORY},
    /* Later oracle runs with a 20 us PLX cable: every inter-node alpha differs. */
    {"ranking_log/resnet/16/data.log", -1, NULL, 8, 4096, Q_TCOMM, LATENCY_20US},
    {"ranking_log/resnet/16/filter.log", -1, NULL, 8, 4096, Q_TCOMM, LATENCY_20US},
    {"ranking_log/resnet/16/channel.log", -1, NULL, 8, 4096, Q_TCOMM, LATENCY_20US},
    {"ranking_log/resnet/64/data.log", -1, NULL, 8, 4096, Q_TCOMM, LATENCY_20US},
    {"ranking_log/resnet/64/filter.log2", 0, NULL, 8, 4096, Q_TCOMM, LATENCY_20US},
    {"ranking_log/resnet/64/channel.log", -1, NULL, 8, 4096, Q_TCOMM, LATENCY_20US},
    /* (VGG's p = 8 row comes within 0.7% all the same, so it is compared.) */
    {"ranking_log/vgg/filter.log", -1, NULL, 16, 4096, Q_TCOMM, LATENCY_20US},
    {"ranking_log/resnet/64/filter.log2", 1, NULL, 8, 4096, Q_TCOMM,
     "a variant of the oracle that costs each layer's allreduce with NCCL's tree below 4 MB "
     "or 8 GPUs (its allreduce_time), not the ring closed form"},
    /* Data+filter. */
    {"resnet_ranking.log", -1, "df", 1024, 4096, Q_TCOMP, DF_LAST_BATCH},
    {"resnet_ranking_2.log", -1, "df", 1, 4096, Q_ALL,
     "run with GPU_PER_NODE = 2 (groups of 2 GPUs on 2-GPU nodes), not ABCI's 4"},
    {"ranking_log/resnet/1024/df.log", -1, "df", 8, 4096, Q_TCOMM, DF_FULL_WEIGHTS},
    {"ranking_log/resnet/1024/df.log", -1, "df", 1024, 4096, Q_TCOMP, DF_LAST_BATCH},
    {"ranking_log/vgg/df.log", -1, "df", 8, 4096, Q_TCOMM, DF_FULL_WEIGHTS},
    {"ranking_log/vgg/df.log2", -1, "df", 8, 4096, Q_TCOMM,
     "oracle version whose inter-node allreduce carries all of W at the full link bandwidth"},
    /* Data+spatial: communication only, where the oracle's version is the published code. */
    {"ranking_log/vgg/ds.log", -1, "ds", 1, 4096, Q_MEM | Q_TCOMP, DS_AFTER_SPLIT},
    {"ranking_log/cosmoflow_256.log", -1, "ds", 1, 4096, Q_MEM | Q_TCOMP, DS_AFTER_SPLIT},
    {"resnet_ranking.log", -1, "ds", 1, 4096, Q_ALL,
     "older data+spatial: halo alpha without the 3 ms staging, and the layers after the split "
     "point left out"},
    {"resnet_ranking_2.log", -1, "ds", 1, 4096, Q_ALL, "run with GPU_PER_NODE = 2"},
    {"ranking_log/resnet/16/data+spatial.log", -1, "ds", 1, 4096, Q_ALL,
     "data+spatial version with GPUDirect halos (alpha 20.11 us, 1 GB/s) and the layers after "
     "the split point left out"},
    {"ranking_log/resnet/64/data+spatial.log", -1, "ds", 1, 4096, Q_ALL,
     "data+spatial version with the halo at bandwidth/p2 and a 2x faster inter-node allreduce, "
     "and the layers after the split point left out"},
    {"ranking_log/cosmoflow.log", -1, "ds", 1, 4096, Q_ALL,
     "data+spatial version whose allgather at the split point moves the whole output per step "
     "(not 1/p2 of it); layers after the split point left out"},
    {"ranking_log/resnet/1024/cosmoflow.log_2", -1, "ds", 1, 4096, Q_ALL,
     "as cosmoflow.log, with a 2x faster inter-node allreduce"},
    {"ranking_log/resnet/4/spatial.log", -1, "spatial", 1, 4096, Q_MEM | Q_TCOMM,
     "the oracle's spatial sizes halos by the memory-bound sample count (maxSamplePerNode) "
     "instead of the batch and by one row without channels, uses the non-GPUDirect network "
     "for every collective, and counts in-place layers' activations"},
};

/* The quantities the exclusions take out of this row (several entries may apply). */
static unsigned excluded_quantities(const char *file, int block, const char *row, int p)
{
    unsigned skip = 0;
    for (size_t i = 0; i < sizeof exclusions / sizeof *exclusions; i++) {
        const exclusion *x = &exclusions[i];
        if (strcmp(x->file, file) == 0 && (x->block < 0 || x->block == block) &&
            (!x->row || strcmp(x->row, row) == 0) && p >= x->p_min && p <= x->p_max)
            skip |= x->skip;
    }
    return skip;
}

/* ------------------------------------------------------------------ the oracle's logs */

typedef struct {
    char name[32];           /* "data", "filter3", "df", ... */
    double batch, p, mem_bytes, tcomp_s, tcomm_s;
} oracle_row;

typedef struct {
    char net[128];           /* model file named by -net, without "./" */
    oracle_row rows[64];
    int n_rows;
} oracle_block;

typedef struct {
    oracle_block blocks[4];
    int n_blocks;
} oracle_log;

/* Read the blocks of one log: "-net FILE ..." opens a block, "====SUMMARY====" its rows. */
static int read_log(const char *path, oracle_log *log)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    memset(log, 0, sizeof *log);
    char line[4096];
    oracle_block *b = NULL;
    int in_summary = 0;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "-net ", 5) == 0) {
            if (log->n_blocks == (int)(sizeof log->blocks / sizeof *log->blocks))
                break;
            b = &log->blocks[log->n_blocks++];
            const char *net = line + 5;
            if (strncmp(net, "./", 2) == 0)
                net += 2;
            sscanf(net, "%127s", b->net);
            in_summary = 0;
        } else if (strstr(line, "SUMMARY")) {
            in_summary = 1;
        } else if (in_summary && b && strncmp(line, "name", 4) != 0) {
            oracle_row r;
            if (sscanf(line, "%31s %lf %lf %lf %lf %lf", r.name, &r.batch, &r.p, &r.mem_bytes,
                       &r.tcomp_s, &r.tcomm_s) == 6 &&
                b->n_rows < (int)(sizeof b->rows / sizeof *b->rows))
                b->rows[b->n_rows++] = r;
            else
                in_summary = 0;
        }
    }
    fclose(f);
    return 0;
}

/* ------------------------------------------------------------------ the model's side */

/* The oracle's row names, as hybridsim strategies, and the layer file its scripts used. */
static int row_strategy(const oracle_row *r, char *text, size_t len, const char **lc_kind)
{
    int p = (int)r->p;
    *lc_kind = NULL;
    if (strcmp(r->name, "single") == 0)
        snprintf(text, len, "serial");
    else if (strcmp(r->name, "data") == 0)
        snprintf(text, len, "data");
    else if (strncmp(r->name, "filter", 6) == 0)
        snprintf(text, len, "filter"), *lc_kind = "filter";
    else if (strncmp(r->name, "chan", 4) == 0)
        snprintf(text, len, "channel"), *lc_kind = "filter"; /* channel reuses it */
    else if (strcmp(r->name, "df") == 0)
        snprintf(text, len, "data+filter:%dx%d", p / 4, 4), *lc_kind = "filter";
    else if (strcmp(r->name, "ds") == 0)
        snprintf(text, len, "data+spatial:%dx%d", p / 4, 4), *lc_kind = "spatial";
    else if (strcmp(r->name, "spatial") == 0)
        snprintf(text, len, "spatial"), *lc_kind = "spatial";
    else
        return -1;
    return 0;
}

/* The short name the oracle's layer files use for a model file. */
static const char *model_short(const char *net)
{
    if (strncmp(net, "RESNET50", 8) == 0)
        return "resnet";
    if (strncmp(net, "VGG", 3) == 0)
        return "vgg";
    if (strncmp(net, "ALEXNET", 7) == 0)
        return "alexnet";
    if (strncmp(net, "COSMOFLOW", 9) == 0)
        return "cosmolow"; /* sic: spatial_cosmolow.lc */
    return NULL;
}

/* Loaded workloads, one per (model file, layer file). */
typedef struct {
    char net[128], lc[64];
    wl_workload wl;
} cached_workload;

static cached_workload cache[16];
static int n_cache;
static plat_platform abci;

static const wl_workload *workload_for(const char *net, const char *lc)
{
    for (int i = 0; i < n_cache; i++)
        if (strcmp(cache[i].net, net) == 0 && strcmp(cache[i].lc, lc) == 0)
            return &cache[i].wl;
    if (n_cache == (int)(sizeof cache / sizeof *cache))
        fail_msg("too many workloads");
    cached_workload *c = &cache[n_cache];
    char path[1024], err[HS_ERR_LEN];
    snprintf(path, sizeof path, "%s%s", MODEL_DIR, net);
    if (wl_load(path, &c->wl, err) != HS_OK)
        fail_msg("%s", err);
    if (*lc) {
        snprintf(path, sizeof path, "%s%s", MODEL_DIR, lc);
        if (wl_apply_layer_file(&c->wl, path, err) != HS_OK)
            fail_msg("%s", err);
    }
    snprintf(c->net, sizeof c->net, "%s", net);
    snprintf(c->lc, sizeof c->lc, "%s", lc);
    n_cache++;
    return &c->wl;
}

static int setup(void **state)
{
    (void)state;
    char err[HS_ERR_LEN];
    if (plat_load("abci", &abci, err) != HS_OK) {
        fprintf(stderr, "%s\n", err);
        return -1;
    }
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    for (int i = 0; i < n_cache; i++)
        wl_free(&cache[i].wl);
    plat_free(&abci);
    return 0;
}

/* ------------------------------------------------------------------ the comparison */

typedef struct {
    int compared[3]; /* quantities compared: memory, Tcomp, Tcomm */
    int excluded;    /* quantities left out */
    int failed;
} tally;

static double rel_error(double got, double want)
{
    return want != 0 ? fabs(got - want) / fabs(want) : fabs(got);
}

static void compare(const char *file, int block, const oracle_row *r, const hs_estimate *e,
                    unsigned skip, tally *t)
{
    static const char *const names[3] = {"Mem", "Tcomp", "Tcomm"};
    const double got[3] = {e->memory_per_gpu_bytes, e->epoch.compute_s, e->epoch.comm_s};
    const double want[3] = {r->mem_bytes, r->tcomp_s, r->tcomm_s};
    for (int q = 0; q < 3; q++) {
        if (skip & (1u << q)) {
            t->excluded++;
            continue;
        }
        t->compared[q]++;
        double e_rel = rel_error(got[q], want[q]);
        if (e_rel > TOLERANCE) {
            t->failed++;
            print_error("%s block %d: %s p=%g B=%g: %s %.6g, oracle %.6g (%.2f%% off)\n", file,
                        block, r->name, r->p, r->batch, names[q], got[q], want[q],
                        100 * e_rel);
        }
    }
}

/* 1: rows are estimated as `hybridsim analytic --runtime paradl` loads its job (job.h), with
 * no other setting; 0: the strategy set to ParaDL's collectives by hand. */
static bool via_runtime;

/* Row r as the command line runs it: -w NET [-l LC] -s TEXT -g P -b B --runtime paradl. */
static void estimate_via_runtime(const char *net, const char *lc, const char *text,
                                 const oracle_row *r, hs_estimate *e)
{
    char net_path[1024], lc_path[1024], err[HS_ERR_LEN];
    snprintf(net_path, sizeof net_path, "%s%s", MODEL_DIR, net);
    snprintf(lc_path, sizeof lc_path, "%s%s", MODEL_DIR, lc);
    js_settings spec = {.workload = net_path, .layers = *lc ? lc_path : NULL, .strategy = text,
                     .gpus = (int)r->p, .batch = (int64_t)r->batch, .runtime = "paradl"};
    job j;
    int rc = job_load_workload(&spec, &j, err);
    if (rc == HS_OK)
        rc = job_load_strategy(&spec, &abci, &j, err);
    if (rc == HS_OK)
        rc = an_estimate(&j.wl, j.kc, &abci, &j.st, j.batch, e, err);
    job_free(&j);
    if (rc != HS_OK)
        fail_msg("--runtime paradl: %s p=%g B=%g: %s", text, r->p, r->batch, err);
}

static void check_row(const char *file, int block, const char *net, const oracle_row *r,
                      tally *t)
{
    unsigned skip = excluded_quantities(file, block, r->name, (int)r->p);
    if (skip == Q_ALL) {
        t->excluded += 3;
        return;
    }
    char text[64], lc[64] = "";
    const char *lc_kind;
    if (row_strategy(r, text, sizeof text, &lc_kind) != 0)
        fail_msg("%s: row '%s' is no strategy the test knows", file, r->name);
    const char *m = model_short(net);
    if (!m)
        fail_msg("%s: unknown model file %s", file, net);
    if (lc_kind)
        snprintf(lc, sizeof lc, "%s_%s.lc", lc_kind, m);
    const wl_workload *wl = workload_for(net, lc);

    st_strategy st;
    hs_estimate e;
    char err[HS_ERR_LEN];
    if (via_runtime) {
        estimate_via_runtime(net, lc, text, r, &e);
        compare(file, block, r, &e, skip, t);
        return;
    }
    int rc = st_parse(text, (int)r->p, abci.gpus_per_node, 0, &st, err);
    st.filter_rs = st.halo_chain = false; /* ParaDL's collectives, as its logs */
    if (rc != HS_OK || an_estimate(wl, NULL, &abci, &st, (int64_t)r->batch, &e, err) != HS_OK)
        fail_msg("%s: %s p=%g B=%g: %s", file, text, r->p, r->batch, err);
    compare(file, block, r, &e, skip, t);
}

static void check_logs(void);

static void test_oracle_logs(void **state)
{
    (void)state;
    via_runtime = false;
    check_logs();
}

/* The same values through `--runtime paradl` alone: the runtime file holds the closed form's
 * assumptions (workloads/runtime/paradl.rt). */
static void test_oracle_logs_runtime_paradl(void **state)
{
    (void)state;
    via_runtime = true;
    check_logs();
    via_runtime = false;
}

static void check_logs(void)
{
    tally t = {{0, 0, 0}, 0, 0};
    static oracle_log log;
    for (size_t f = 0; f < sizeof log_files / sizeof *log_files; f++) {
        char path[1024];
        snprintf(path, sizeof path, "%s%s", LOG_DIR, log_files[f]);
        if (read_log(path, &log) != 0)
            fail_msg("cannot read %s", path);
        if (log.n_blocks == 0)
            fail_msg("%s: no '-net' block", path);
        for (int b = 0; b < log.n_blocks; b++)
            for (int i = 0; i < log.blocks[b].n_rows; i++)
                check_row(log_files[f], b, log.blocks[b].net, &log.blocks[b].rows[i], &t);
    }
    print_message("compared: %d memory, %d Tcomp, %d Tcomm values; %d excluded; %d off by "
                  "more than 1%%\n",
                  t.compared[0], t.compared[1], t.compared[2], t.excluded, t.failed);
    assert_int_equal(t.failed, 0);
    /* What the logs hold today; a parsing slip that drops rows shows up here. */
    assert_int_equal(t.compared[0], EXPECTED_MEM);
    assert_int_equal(t.compared[1], EXPECTED_TCOMP);
    assert_int_equal(t.compared[2], EXPECTED_TCOMM);
}

/* The headline figure: ResNet-50 on 1024 GPUs of ABCI, data parallelism, B = 65536. */
static void test_resnet50_data_1024(void **state)
{
    (void)state;
    wl_workload wl;
    st_strategy st;
    hs_estimate e;
    char err[HS_ERR_LEN];
    if (wl_load("resnet50", &wl, err) != HS_OK)
        fail_msg("%s", err);
    assert_int_equal(st_parse("data", 1024, abci.gpus_per_node, 0, &st, err), HS_OK);
    assert_int_equal(an_estimate(&wl, NULL, &abci, &st, 65536, &e, err), HS_OK);
    wl_free(&wl);
    assert_int_equal(e.iterations_per_epoch, 20);
    assert_true(fabs(e.epoch.compute_s - 3.90) < 0.005);
    assert_true(fabs(e.epoch.comm_s - 1.56) < 0.005);
}

int main(void)
{
    if (!hs_shared_present())
        return HS_SKIPPED;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_oracle_logs),
        cmocka_unit_test(test_oracle_logs_runtime_paradl),
        cmocka_unit_test(test_resnet50_data_1024),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
