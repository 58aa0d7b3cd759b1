/* sweep_plan.c: the plan of `hybridsim sweep` (sweep_int.h): the lists the user gave, checked,
 * and the cross product of them, the configurations in the CSV's order.
 *
 * Everything that can be checked before running is checked here, so that a typo stops the sweep
 * at once with the file line or flag that has it, instead of becoming a failed row per run:
 * workloads are loaded, platforms' GPUs per node read from their XML (sweep_platform.c),
 * numbers and words parsed. What only a run can tell (a hybrid's shape
 * that does not fit the GPU count, a model that does not fit in memory) is left to the run. */
#define _GNU_SOURCE
#include "sweep_int.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hs_error.h"
#include "hs_out.h"
#include "hs_parse.h"
#include "placement.h"
#include "runtime.h"
#include "strategy.h"
#include "workload.h"

#define SW_MAX_CONFIGS 1000000 /* a sweep larger than this is surely a typo in a range */

/* The checked dimensions, in the order their values were given. */
typedef struct {
    const sw_item *workloads, *platforms, *strategies, *placements, *collectives, *allreduces;
    int n_workloads, n_platforms, n_strategies, n_placements, n_collectives, n_allreduces;
    int *gpus, n_gpus;           /* the GPU counts, ranges expanded */
    size_t cap_gpus;             /* room in gpus */
    sw_batch_rule *rules;        /* moved to the plan once enumerated */
    int n_rules;
    int *micro, n_micro;         /* micro-batches; one 0 (the default) when none given */
    int *gpus_per_node;          /* per platform */
    st_kind *kinds;              /* per strategy */
} sw_dims;

/* ------------------------------------------------------------------------------------------ */
/* Values. */

/* "4", or "4..64": 4, 8, 16, 32, 64 (a GPU count range doubles). */
static int parse_gpus(const sw_item *it, int **gpus, int *n, size_t *cap, char *err)
{
    int64_t lo, hi;
    int status;
    const char *dots = strstr(it->text, "..");
    if (dots) {
        char first[32];
        size_t len = (size_t)(dots - it->text);
        if (len >= sizeof first)
            return hs_fail(err, HS_EINPUT, "%s: '%s' is not a range A..B", it->where, it->text);
        memcpy(first, it->text, len);
        first[len] = '\0';
        if ((status = hs_parse_int64(it->where, first, 1, INT_MAX, &lo, err)) ||
            (status = hs_parse_int64(it->where, dots + 2, lo, INT_MAX, &hi, err)))
            return status;
    } else {
        if ((status = hs_parse_int64(it->where, it->text, 1, INT_MAX, &lo, err)))
            return status;
        hi = lo;
    }
    for (int64_t g = lo; g <= hi; g *= 2) {
        if (!hs_grow((void **)gpus, cap, (size_t)*n + 1, sizeof **gpus))
            return hs_fail(err, HS_EINTERNAL, "out of memory");
        (*gpus)[(*n)++] = (int)g;
    }
    return HS_OK;
}

/* "256", "64/gpu", "64/node", "64/group". */
static int parse_rule(const sw_item *it, sw_batch_rule *rule, sw_arena *a, char *err)
{
    static const struct {
        const char *suffix;
        sw_batch_kind kind;
    } kinds[] = {{"/gpu", SW_PER_GPU}, {"/node", SW_PER_NODE}, {"/group", SW_PER_GROUP}};
    const char *slash = strchr(it->text, '/');
    size_t len = slash ? (size_t)(slash - it->text) : strlen(it->text);
    rule->kind = SW_FIXED;
    if (slash) {
        size_t k = 0;
        while (k < 3 && strcmp(slash, kinds[k].suffix) != 0)
            k++;
        if (k == 3)
            return hs_fail(err, HS_EINPUT,
                           "%s: '%s': a batch rule is B, N/gpu, N/node or N/group", it->where,
                           it->text);
        rule->kind = kinds[k].kind;
    }
    char *number = sw_arena_strndup(a, it->text, len);
    if (!number)
        return hs_fail(err, HS_EINTERNAL, "out of memory");
    int status = hs_parse_int64(it->where, number, 1, INT64_MAX / 4 / INT_MAX, &rule->n, err);
    if (status != HS_OK)
        return status;
    rule->text = sw_arena_printf(a, "%lld%s", (long long)rule->n, slash ? slash : "");
    return rule->text ? HS_OK : hs_fail(err, HS_EINTERNAL, "out of memory");
}

/* The strategy's kind from "data+filter:8x4" (the shape is checked by each run); a strategy
 * file (-s FILE.xml) must be readable here, its meaning is checked by each run. */
static int strategy_kind(const sw_item *it, st_kind *kind, char *err)
{
    if (st_is_file(it->text)) {
        char why[HS_ERR_LEN]; /* a directory, a FIFO, empty: every run would say so */
        if (hs_in_check(it->text, "strategy file", why) != HS_OK)
            return hs_fail(err, HS_EINPUT, "%s: %s", it->where, why);
        FILE *f = fopen(it->text, "r");
        if (!f)
            return hs_fail(err, HS_EINPUT, "%s: cannot read the strategy file '%s'", it->where,
                           it->text);
        fclose(f);
        *kind = ST_LAYERWISE;
        return HS_OK;
    }
    size_t len = strcspn(it->text, ":");
    for (int k = 0; k < ST_KIND_COUNT; k++) {
        const char *name = st_kind_name((st_kind)k);
        if (strlen(name) == len && strncmp(name, it->text, len) == 0) {
            *kind = (st_kind)k;
            return HS_OK;
        }
    }
    return hs_fail(err, HS_EINPUT,
                   "%s: unknown strategy '%s' (known: serial, data, spatial, filter, channel, "
                   "pipeline, data+filter[:P1xP2], data+spatial[:P1xP2], or a strategy file "
                   "FILE.xml)",
                   it->where, it->text);
}

static int check_word(const sw_item *it, const char *const *known, int n_known, char *err)
{
    for (int i = 0; i < n_known; i++)
        if (strcmp(it->text, known[i]) == 0)
            return HS_OK;
    char list[128] = "";
    for (int i = 0; i < n_known; i++)
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "", known[i]);
    return hs_fail(err, HS_EINPUT, "%s: unknown value '%s' (known: %s)", it->where, it->text, list);
}

static int check_words(const sw_list *l, const char *const *known, int n_known, char *err)
{
    int status;
    for (int i = 0; i < l->n; i++)
        if ((status = check_word(&l->items[i], known, n_known, err)))
            return status;
    return HS_OK;
}

/* ------------------------------------------------------------------------------------------ */
/* Options: the keys with one value. */

static int check_timeout(const sw_item *it, double *timeout_s, char *err)
{
    char *end = NULL;
    errno = 0;
    *timeout_s = strtod(it->text, &end);
    if (errno || end == it->text || *end || !(*timeout_s >= 0))
        return hs_fail(err, HS_EINPUT, "%s: '%s' is not a number of seconds >= 0", it->where,
                       it->text);
    return HS_OK;
}

/* The runtime every run takes, loaded once: a runtime that does not load would make an error
 * row of every configuration. */
static int check_runtime(const sw_spec *s, char *err)
{
    int k = js_find("runtime");
    const sw_item *it = k >= 0 ? sw_single(&s->key[SW_K_JOB(k)]) : NULL;
    rt_runtime rt;
    char why[HS_ERR_LEN];
    if (!it || rt_load(it->text, &rt, why) == HS_OK)
        return HS_OK;
    const char *said = strncmp(why, "--runtime: ", 11) == 0 ? why + 11 : why; /* named below */
    return hs_fail(err, HS_EINPUT, "%s: %s", it->where, said);
}

/* --emit writes jobs, not the CSV nor a log, and runs none: an -o, --log or -j typed beside it
 * is refused rather than ignored (a sweep file's 'output =', 'log =' and 'jobs =' are for the
 * file's direct runs, and stand). */
static int check_emit_flags(const sw_spec *s, char *err)
{
    const sw_item *it = sw_single(&s->key[SW_K_OUTPUT]);
    if (it && strcmp(it->where, "-o") == 0)
        return hs_fail(err, HS_EINPUT, "-o %s: --emit writes the jobs, not the CSV (their rows "
                       "go to the --emit-dir folder): give -o to the merge, hybridsim sweep "
                       "--merge DIR -o %s", it->text, it->text);
    it = sw_single(&s->key[SW_K_LOG]);
    if (it && strcmp(it->where, "--log") == 0)
        return hs_fail(err, HS_EINPUT, "--log %s: --emit writes the jobs, which run elsewhere "
                       "and log nothing: give --log to a sweep run here", it->text);
    it = sw_single(&s->key[SW_K_JOBS]);
    if (it && it->where[0] == '-')
        return hs_fail(err, HS_EINPUT, "%s %s: --emit writes the jobs for parallel or Slurm, "
                       "which decide how many run at a time", it->where, it->text);
    return HS_OK;
}

static int check_options(const sw_spec *s, bool need_output, sw_plan *plan, char *err)
{
    static const char *modes[] = {"compare", "analytic", "simulate"};
    const sw_item *it;
    int64_t jobs;
    int status;
    if ((status = sw_check_single_keys(s, err)))
        return status;
    plan->mode = "compare";
    if ((it = sw_single(&s->key[SW_K_MODE]))) {
        if ((status = check_word(it, modes, 3, err)))
            return status;
        plan->mode = it->text;
    }
    if ((it = sw_single(&s->key[SW_K_LAYERS]))) {
        struct stat st;
        if (access(it->text, R_OK) != 0)
            return hs_fail(err, HS_EINPUT, "%s: cannot read '%s': %s", it->where, it->text,
                           strerror(errno));
        if (stat(it->text, &st) == 0 && S_ISDIR(st.st_mode)) /* else an error row per run */
            return hs_fail(err, HS_EINPUT, "%s: '%s' is a directory, not a layer file",
                           it->where, it->text);
        plan->layers = it->text;
    }
    plan->jobs = sw_default_jobs();
    if ((it = sw_single(&s->key[SW_K_JOBS]))) {
        if ((status = hs_parse_int64(it->where, it->text, 1, 4096, &jobs, err)))
            return status;
        plan->jobs = (int)jobs;
    }
    if ((it = sw_single(&s->key[SW_K_TIMEOUT])) &&
        (status = check_timeout(it, &plan->timeout_s, err)))
        return status;
    for (int k = 0; k < js_n_keys; k++)
        if ((it = sw_single(&s->key[SW_K_JOB(k)]))) {
            if ((status = js_check(k, it->text, it->where, err)))
                return status;
            plan->job_key[k] = it->text;
        }
    if ((status = check_runtime(s, err)))
        return status;
    if (!need_output && (status = check_emit_flags(s, err)))
        return status;
    plan->output = (it = sw_single(&s->key[SW_K_OUTPUT])) ? it->text : NULL;
    plan->log = (it = sw_single(&s->key[SW_K_LOG])) ? it->text : NULL;
    if (need_output && !plan->output)
        return hs_fail(err, HS_EINPUT,
                       "-o OUT.csv is required (or 'output =' in the sweep file, or --emit)");
    if (need_output && hs_out_is_stdout(plan->output))
        return hs_fail(err, HS_EINPUT, "-o -: a sweep reads its CSV back to resume and adds "
                       "each row as its run ends: give a file (--merge DIR -o - writes the "
                       "merged rows to standard output)");
    return HS_OK;
}

/* ------------------------------------------------------------------------------------------ */
/* Dimensions: the keys with lists. */

static void dims_free(sw_dims *d)
{
    free(d->gpus);
    free(d->rules);
    free(d->micro);
    free(d->gpus_per_node);
    free(d->kinds);
}

static int require_list(const sw_list *l, const char *what, char *err)
{
    return l->n ? HS_OK
                : hs_fail(err, HS_EINPUT, "%s is required (a sweep-file key or a flag; see "
                                          "hybridsim sweep --help)", what);
}

static int require_lists(const sw_spec *s, char *err)
{
    int status;
    if ((status = require_list(&s->key[SW_K_WORKLOADS], "workloads (-w)", err)) ||
        (status = require_list(&s->key[SW_K_PLATFORMS], "platforms (-p)", err)) ||
        (status = require_list(&s->key[SW_K_STRATEGIES], "strategies (-s)", err)) ||
        (status = require_list(&s->key[SW_K_GPUS], "gpus (-g)", err)) ||
        (status = require_list(&s->key[SW_K_BATCH], "a batch rule (-b, --batch-per-gpu, ...)",
                               err)))
        return status;
    return HS_OK;
}

/* The lists taken as they are, with the defaults for placement, collectives and allreduce. */
static void take_lists(const sw_spec *s, bool analytic, sw_dims *d)
{
    static const sw_item packed = {"packed", "default"}, flow = {"flow", "default"},
                         ring = {"ring", "default"};
    d->workloads = s->key[SW_K_WORKLOADS].items;
    d->n_workloads = s->key[SW_K_WORKLOADS].n;
    d->platforms = s->key[SW_K_PLATFORMS].items;
    d->n_platforms = s->key[SW_K_PLATFORMS].n;
    d->strategies = s->key[SW_K_STRATEGIES].items;
    d->n_strategies = s->key[SW_K_STRATEGIES].n;
    d->placements = s->key[SW_K_PLACEMENT].n ? s->key[SW_K_PLACEMENT].items : &packed;
    d->n_placements = s->key[SW_K_PLACEMENT].n ? s->key[SW_K_PLACEMENT].n : 1;
    d->collectives = s->key[SW_K_COLLECTIVES].n ? s->key[SW_K_COLLECTIVES].items : &flow;
    d->n_collectives = s->key[SW_K_COLLECTIVES].n ? s->key[SW_K_COLLECTIVES].n : 1;
    d->allreduces = s->key[SW_K_ALLREDUCE].n ? s->key[SW_K_ALLREDUCE].items : &ring;
    d->n_allreduces = s->key[SW_K_ALLREDUCE].n ? s->key[SW_K_ALLREDUCE].n : 1;
    if (analytic) /* the closed form uses neither: one configuration, not duplicates */
        d->n_placements = d->n_collectives = 1;
}

/* Workloads load, platforms have GPUs per node, strategies have a known kind. */
static int check_names(sw_dims *d, sw_arena *a, char *err)
{
    int status;
    for (int i = 0; i < d->n_workloads; i++)
        if ((status = sw_check_workload(&d->workloads[i], err)))
            return status;
    for (int i = 0; i < d->n_platforms; i++)
        if ((status = sw_platform_gpus_per_node(&d->platforms[i], &d->gpus_per_node[i], a, err)))
            return status;
    for (int i = 0; i < d->n_strategies; i++)
        if ((status = strategy_kind(&d->strategies[i], &d->kinds[i], err)))
            return status;
    return HS_OK;
}

/* GPU counts, batch rules and micro-batches. */
static int parse_numbers(const sw_spec *s, sw_dims *d, sw_arena *a, char *err)
{
    const sw_list *gpus = &s->key[SW_K_GPUS], *batch = &s->key[SW_K_BATCH];
    const sw_list *micro = &s->key[SW_K_MICRO];
    int status;
    for (int i = 0; i < gpus->n; i++)
        if ((status = parse_gpus(&gpus->items[i], &d->gpus, &d->n_gpus, &d->cap_gpus, err)))
            return status;
    for (int i = 0; i < batch->n; i++, d->n_rules++)
        if ((status = parse_rule(&batch->items[i], &d->rules[i], a, err)))
            return status;
    for (int i = 0; i < micro->n; i++, d->n_micro++) {
        const sw_item *it = &micro->items[i];
        int64_t v;
        if ((status = hs_parse_int64(it->where, it->text, 1, INT_MAX, &v, err)))
            return status;
        d->micro[i] = (int)v;
    }
    if (d->n_micro == 0)
        d->n_micro = 1; /* micro[0] = 0: the default */
    return HS_OK;
}

static int check_dims(const sw_spec *s, bool analytic, sw_dims *d, sw_arena *a, char *err)
{
    const char *placements[PL_KIND_COUNT]; /* the run commands' -P words, scatter too */
    for (int k = 0; k < PL_KIND_COUNT; k++)
        placements[k] = pl_kind_name((pl_kind)k);
    static const char *fidelities[] = {"flow", "step"};
    int status;
    if ((status = require_lists(s, err)))
        return status;
    take_lists(s, analytic, d);
    d->rules = calloc((size_t)s->key[SW_K_BATCH].n, sizeof *d->rules);
    d->micro = calloc((size_t)s->key[SW_K_MICRO].n + 1, sizeof *d->micro);
    d->gpus_per_node = calloc((size_t)d->n_platforms, sizeof *d->gpus_per_node);
    d->kinds = calloc((size_t)d->n_strategies, sizeof *d->kinds);
    if (!d->rules || !d->micro || !d->gpus_per_node || !d->kinds)
        return hs_fail(err, HS_EINTERNAL, "out of memory");
    if ((status = check_names(d, a, err)) || (status = parse_numbers(s, d, a, err)) ||
        (status = check_words(&s->key[SW_K_PLACEMENT], placements, PL_KIND_COUNT, err)) ||
        (status = check_words(&s->key[SW_K_COLLECTIVES], fidelities, 2, err)))
        return status;
    const sw_list *allreduces = &s->key[SW_K_ALLREDUCE];
    for (int i = 0; i < allreduces->n && status == HS_OK; i++)
        status = js_check(js_find("allreduce"), allreduces->items[i].text,
                          allreduces->items[i].where, err);
    return status;
}

/* ------------------------------------------------------------------------------------------ */
/* The configurations. */

/* B for one configuration. A per-group rule needs the strategy's p1, so it parses the strategy;
 * if that fails the configuration is recorded with the parser's message. */
static void resolve_batch(sw_config *c, int gpus_per_node, sw_arena *a)
{
    int64_t units = 1;
    switch (c->rule->kind) {
    case SW_FIXED: units = 1; break;
    case SW_PER_GPU: units = c->gpus; break;
    case SW_PER_NODE: units = (c->gpus + gpus_per_node - 1) / gpus_per_node; break;
    case SW_PER_GROUP: {
        st_strategy st;
        char why[HS_ERR_LEN];
        if (st_is_file(c->strategy)) {
            c->error = sw_arena_strdup(a, "a per-group batch rule needs a built-in strategy's "
                                          "groups; give a strategy file a fixed or per-GPU batch");
            return;
        }
        if (st_parse(c->strategy, c->gpus, gpus_per_node, c->micro_batches, &st, why) != HS_OK) {
            c->error = sw_arena_strdup(a, why);
            return;
        }
        units = st.p1;
        break;
    }
    }
    c->batch = c->rule->n * units; /* n < 2^61 / 2^31 and units <= 2^31: no overflow */
}

static int add_config(sw_plan *plan, size_t *cap, const sw_config *c, sw_arena *a, char *err)
{
    if (plan->n_configs >= SW_MAX_CONFIGS)
        return hs_fail(err, HS_EINPUT, "the sweep has more than %d configurations",
                       SW_MAX_CONFIGS);
    if (!hs_grow((void **)&plan->configs, cap, (size_t)plan->n_configs + 1, sizeof *plan->configs))
        return hs_fail(err, HS_EINTERNAL, "out of memory");
    sw_config *k = &plan->configs[plan->n_configs++];
    *k = *c;
    char micro[16] = "";
    if (c->micro_batches)
        snprintf(micro, sizeof micro, "%d", c->micro_batches);
    /* the job keys said for every run (--compute, --precision, ...) end the key, in the
     * table's order: a CSV resumed with other ones does not take its rows for theirs (keys
     * without them stay as they were) */
    k->key = sw_arena_printf(a, "%s|%s|%s|%s|%d|%s|%s|%s|%s|%s", plan->mode, c->workload,
                             c->platform, c->shown, c->gpus, c->rule->text, micro,
                             c->placement ? c->placement : "",
                             c->collectives ? c->collectives : "",
                             plan->layers ? plan->layers : "");
    for (int j = 0; j < js_n_keys && k->key; j++)
        if (plan->job_key[j])
            k->key = sw_arena_printf(a, "%s|%s=%s", k->key, js_keys[j].name, plan->job_key[j]);
    return k->key ? HS_OK : hs_fail(err, HS_EINTERNAL, "out of memory");
}

static int by_key(const void *x, const void *y)
{
    return strcmp(*(const char *const *)x, *(const char *const *)y);
}

/* A value repeated in a list (or GPU ranges that overlap) would run one configuration twice and
 * give the CSV two rows with one key. */
static int check_unique(const sw_plan *plan, char *err)
{
    const char **keys = malloc(((size_t)plan->n_configs + 1) * sizeof *keys);
    if (!keys)
        return hs_fail(err, HS_EINTERNAL, "out of memory");
    for (int i = 0; i < plan->n_configs; i++)
        keys[i] = plan->configs[i].key;
    qsort(keys, (size_t)plan->n_configs, sizeof *keys, by_key);
    int status = HS_OK;
    for (int i = 1; i < plan->n_configs && status == HS_OK; i++)
        if (strcmp(keys[i - 1], keys[i]) == 0)
            status = hs_fail(err, HS_EINPUT,
                             "configuration %s comes twice: a value is repeated in a list",
                             keys[i]);
    free(keys);
    return status;
}

/* The configurations of one workload, platform p and strategy s (base), nested in the order GPU
 * counts, batch rules, micro-batches (pipeline only), placements, collectives. */
static int enumerate_runs(const sw_dims *d, const sw_config *base, int p, int s, sw_plan *plan,
                          size_t *cap, sw_arena *a, char *err)
{
    bool analytic = strcmp(plan->mode, "analytic") == 0;
    bool pipeline = d->kinds[s] == ST_PIPELINE;
    int status;
    for (int g = 0; g < d->n_gpus; g++)
        for (int b = 0; b < d->n_rules; b++)
            for (int m = 0; m < (pipeline ? d->n_micro : 1); m++)
                for (int pl = 0; pl < d->n_placements; pl++)
                    for (int co = 0; co < d->n_collectives; co++) {
                        sw_config c = *base;
                        c.gpus = d->gpus[g];
                        c.rule = &d->rules[b];
                        c.micro_batches = pipeline ? d->micro[m] : 0;
                        c.placement = analytic ? NULL : d->placements[pl].text;
                        c.collectives = analytic ? NULL : d->collectives[co].text;
                        resolve_batch(&c, d->gpus_per_node[p], a);
                        if ((status = add_config(plan, cap, &c, a, err)))
                            return status;
                    }
    return HS_OK;
}

/* The configurations in the CSV's order: workloads, platforms, strategies, gradient
 * allreduces outermost. */
static int enumerate(const sw_dims *d, sw_plan *plan, sw_arena *a, char *err)
{
    size_t cap = 0;
    int status;
    for (int w = 0; w < d->n_workloads; w++)
        for (int p = 0; p < d->n_platforms; p++)
            for (int s = 0; s < d->n_strategies; s++)
                for (int r = 0; r < d->n_allreduces; r++) {
                    const char *algo = d->allreduces[r].text;
                    sw_config base = {.workload = d->workloads[w].text,
                                      .platform = d->platforms[p].text,
                                      .strategy = d->strategies[s].text,
                                      .allreduce = strcmp(algo, "ring") ? algo : NULL};
                    base.shown = base.allreduce ? sw_arena_printf(a, "%s --allreduce %s",
                                                                  base.strategy, algo)
                                                : base.strategy;
                    if (!base.shown)
                        return hs_fail(err, HS_EINTERNAL, "out of memory");
                    if ((status = enumerate_runs(d, &base, p, s, plan, &cap, a, err)))
                        return status;
                }
    return check_unique(plan, err);
}

int sw_plan_make(const sw_spec *spec, bool need_output, sw_plan *plan, sw_arena *a, char *err)
{
    sw_dims d = {0};
    int status = check_options(spec, need_output, plan, err);
    if (status == HS_OK)
        status = check_dims(spec, strcmp(plan->mode, "analytic") == 0, &d, a, err);
    if (status == HS_OK)
        status = enumerate(&d, plan, a, err);
    plan->rules = d.rules; /* the configurations point into them */
    d.rules = NULL;
    dims_free(&d);
    return status;
}

void sw_plan_free(sw_plan *plan)
{
    free(plan->configs);
    free(plan->rules);
    plan->configs = NULL;
    plan->rules = NULL;
    plan->n_configs = 0;
}
