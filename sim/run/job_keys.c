/* job_keys.c: the table of job keys and its readers (job_keys.h). */
#include "job_keys.h"

#include <limits.h>
#include <string.h>

#include "hs_error.h"
#include "hs_parse.h"
#include "collective.h"
#include "precision.h"
#include "strategy.h"

#define F(field) offsetof(js_settings, field)
#define EVERYWHERE (JS_IN_PRICING | JS_IN_FABRIC | JS_IN_SWEEP)

/* The keys, in the order --help lists them and a sweep's CSV key appends its options. */
const js_key js_keys[] = {
    {.name = "workload", .short_flag = 'w', .type = JS_TEXT, .offset = F(workload), .arg = "W",
     .job_own = true, .scope = EVERYWHERE,
     .help = "workload: a path (.xml, ParaDL .net/.net_sc) or a short name in workloads/ "
             "(resnet50, resnet152, vgg16, vgg16-cifar10, alexnet, cosmoflow-512, "
             "cosmoflow-256, pase-alexnet; as NVIDIA trained them, timed by the model: "
             "resnet50-v1.5, resnext101-32x4d, se-resnext101-32x4d, efficientnet-b0, "
             "efficientnet-b4, efficientnet-widese-b0, efficientnet-widese-b4; PaSE's "
             "sequence benchmarks: pase-rnnlm, pase-transformer)"},
    {.name = "strategy", .short_flag = 's', .type = JS_TEXT, .offset = F(strategy), .arg = "S",
     .job_own = true, .scope = JS_IN_FABRIC | JS_IN_SWEEP,
     .help = "serial, data, spatial, filter, channel, pipeline, data+filter[:P1xP2], "
             "data+spatial[:P1xP2], or a per-layer strategy file FILE.xml (hybrids: P1 "
             "data-parallel groups of P2 GPUs; default P2 = GPUs per node)"},
    {.name = "gpus", .short_flag = 'g', .type = JS_COUNT, .offset = F(gpus), .arg = "N",
     .job_own = true, .scope = EVERYWHERE, .help = "number of GPUs (ranks) p"},
    {.name = "batch", .short_flag = 'b', .type = JS_BATCH, .offset = F(batch), .arg = "B",
     .job_own = true, .scope = EVERYWHERE,
     .help = "global mini-batch (samples per iteration, all GPUs)"},
    {.name = "layers", .short_flag = 'l', .type = JS_TEXT, .offset = F(layers), .arg = "FILE",
     .job_own = true, .scope = JS_IN_FABRIC | JS_IN_SWEEP,
     .help = "ParaDL layer file (NAME|1): the layers model parallelism splits (default: the "
             "workload's own marks)"},
    {.name = "micro-batches", .short_flag = 'S', .type = JS_COUNT, .offset = F(micro_batches),
     .arg = "S", .job_own = true, .scope = JS_IN_FABRIC | JS_IN_SWEEP,
     .help = "pipeline: micro-batches per mini-batch (default: p)"},
    {.name = "overlap", .type = JS_SWITCH, .offset = F(overlap), .scope = EVERYWHERE,
     .help = "order tasks by data dependency: communication overlaps compute where the "
             "schedule allows, gradients reduced in 25 MiB buckets during the backward "
             "(default: blocking, each task after the previous one, as ParaDL's model); "
             "analytic: the same order on the closed forms, but for the pipeline; "
             "--overlap=off against a runtime's overlap, overlap=on|off in --job and a sweep"},
    {.name = "allreduce", .type = JS_CHOICE, .offset = F(allreduce),
     .values = "ring, hier, tree, rings, auto", .first = CO_RING, .noun = "algorithm",
     .arg = "A", .scope = JS_IN_FABRIC | JS_IN_SWEEP,
     .help = "the gradient allreduce: ring (default, ParaDL's), hier (rings inside nodes, "
             "then across), tree (NCCL's double binary tree), rings (NCCL's rings, one "
             "entering each node by another NIC) or auto (NCCL 2.4's choice of rings or tree "
             "by size and nodes); a strategy file's fused gradient allreduces too"},
    {.name = "compute", .type = JS_CHOICE, .offset = F(compute),
     .values = "measured, model, kernels", .first = JS_COMPUTE_MEASURED, .noun = "method",
     .arg = "M", .scope = EVERYWHERE,
     .help = "kernel times: kernels (every kernel at its real shape on the platform's GPU "
             "from the kernel model, a measurement ignored; the default where the device "
             "table knows the GPU and the strategy has no schedule), model (the same kernels "
             "anchored on the workload's measurement) or measured (the workload's per-sample "
             "times scaled linearly, ParaDL's)"},
    {.name = "precision", .type = JS_CHOICE, .offset = F(precision),
     .values = "fp32, mixed, bf16, tf32", .first = PR_FP32, .noun = "precision", .arg = "P",
     .scope = EVERYWHERE,
     .help = "fp32 (default), mixed (FP16 tensors and messages, FP32 master weights), bf16 "
             "or tf32 (FP32 tensors, products on TF32 tensor cores); needs the compute model"},
    {.name = "halo", .type = JS_CHOICE, .offset = F(halo_chain), .values = "chain, sendrecv",
     .first = JS_ON, .noun = "exchange", .arg = "H", .scope = EVERYWHERE,
     .only = "spatial", .files = true,
     .help = "spatial, data+spatial and strategy files: chain (default: a synchronous send, "
             "then the receive, as ChainerMN over MPI) or sendrecv (ParaDL's: each GPU sends "
             "and receives at once)"},
    {.name = "filter-backward", .type = JS_CHOICE, .offset = F(filter_rs),
     .values = "reduce-scatter, allreduce", .first = JS_ON, .noun = "collective", .arg = "C",
     .scope = EVERYWHERE, .only = "filter", .files = true,
     .help = "filter, data+filter and strategy files: the output gradients' collective at a "
             "gather of filter blocks, reduce-scatter (default: a GPU needs only its "
             "filters' slice; ChainerMN's, with its pack, stack and sum as kernels) or "
             "allreduce (ParaDL's)"},
    {.name = "runtime", .type = JS_TEXT, .offset = F(runtime), .arg = "R", .scope = EVERYWHERE,
     .help = "the training software as it ran: a name (hybridsim runtimes lists them: "
             "chainermn, pytorch-ddp, horovod-nccl, horovod-mxnet-mlperf, paradl) or a FILE.rt: "
             "its allreduce choice, overlap and bucket size, gradient precision, halos, filter "
             "backward, optimizer, kernel terms and input loader; the keys above, given, "
             "override it "
             "(default: none, the defaults above; workloads/runtime/README.md)"},
    {.name = "optimizer-every", .type = JS_COUNT, .offset = F(optimizer_every), .arg = "N",
     .job_own = true, .scope = EVERYWHERE,
     .help = "the optimizer steps once in N iterations, the gradients accumulated in between "
             "(a training loop's gradient accumulation): an iteration pays 1/N of the weight "
             "update and of its host time (default 1; needs the compute model)"},
    {.name = "loader-workers", .type = JS_COUNT, .offset = F(loader_workers), .arg = "N",
     .job_own = true, .scope = EVERYWHERE,
     .help = "the input loader's worker processes a GPU (a DataLoader's num_workers): an "
             "iteration lasts at least a GPU's batch over N times the runtime's "
             "loader_samples_per_s (default: the runtime's loader_workers_per_gpu; needs a "
             "runtime that sets a worker's rate, and the compute model)"},
};
const int js_n_keys = (int)(sizeof js_keys / sizeof js_keys[0]);
_Static_assert(sizeof js_keys / sizeof js_keys[0] <= JS_MAX_KEYS,
               "js_settings.given has a bit a key");

int js_find(const char *name)
{
    for (int k = 0; k < js_n_keys; k++)
        if (strcmp(js_keys[k].name, name) == 0)
            return k;
    return -1;
}

bool js_given(const js_settings *s, const char *name)
{
    int k = js_find(name);
    return k >= 0 && (s->given & (1u << k));
}

int js_find_short(int c)
{
    for (int k = 0; k < js_n_keys; k++)
        if (c && js_keys[k].short_flag == c)
            return k;
    return -1;
}

int js_find_job_key(const char *name)
{
    for (int k = 0; k < js_n_keys; k++) {
        const js_key *key = &js_keys[k];
        if ((key->short_flag && name[0] == key->short_flag && !name[1]) ||
            strcmp(key->name, name) == 0)
            return k;
    }
    return -1;
}

const char *js_flag_name(int k, char *buf)
{
    /* --micro-batches in full, as its messages said before the table (-S 0: "--micro-batches: 0
     * is out of range"), which the byte-identical outputs (tests/identical) hold */
    if (js_keys[k].short_flag && strcmp(js_keys[k].name, "micro-batches") != 0)
        snprintf(buf, 40, "-%c", js_keys[k].short_flag);
    else
        snprintf(buf, 40, "--%s", js_keys[k].name);
    return buf;
}

/* value's index in the ", "-separated words, or -1. */
static int word_index(const char *words, const char *value)
{
    size_t len = strlen(value);
    int i = 0;
    for (const char *w = words; *w; i++) {
        size_t n = strcspn(w, ",");
        if (n == len && len && strncmp(w, value, n) == 0)
            return i;
        w += n;
        w += strspn(w, ", ");
    }
    return -1;
}

bool js_applies(int k, const char *strategy)
{
    const js_key *key = &js_keys[k];
    return !key->only || (strategy && (st_text_is(strategy, key->only) ||
                                       (key->files && st_is_file(strategy))));
}

/* Whether text is digits only (after blanks and a '+'): a whole number, maybe too large. */
static bool all_digits(const char *text)
{
    text += strspn(text, " \t+");
    return *text && text[strspn(text, "0123456789")] == '\0';
}

/* A whole number in [1, max]: one too large is said to be, with the limit. */
static int parse_whole(const char *where, const char *value, int64_t max, int64_t *v,
                       char *err)
{
    hs_num_status status = hs_parse_whole(value, (size_t)-1, 1, max, v);
    if ((status == HS_NUM_RANGE && *v > max) || (status == HS_NUM_SYNTAX && all_digits(value)))
        return hs_fail(err, HS_EINPUT, "%s: %s is too large (at most %lld)", where, value,
                       (long long)max);
    if (status == HS_NUM_SYNTAX)
        return hs_fail(err, HS_EINPUT, "%s: '%s' is not a whole number", where, value);
    if (status == HS_NUM_RANGE)
        return hs_fail(err, HS_EINPUT, "%s: %lld is out of range [1, %lld]", where,
                       (long long)*v, (long long)max);
    return HS_OK;
}

/* Key k's value read into field (NULL: checked only). */
static int parse_value(int k, const char *value, void *field, const char *where, char *err)
{
    const js_key *key = &js_keys[k];
    int64_t v = 0;
    int status = HS_OK, i;
    switch (key->type) {
    case JS_TEXT:
        if (field)
            *(const char **)field = value;
        break;
    case JS_COUNT:
    case JS_BATCH:
        status = parse_whole(where, value, key->type == JS_COUNT ? INT_MAX : INT64_MAX / 4, &v,
                             err);
        if (status == HS_OK && field && key->type == JS_COUNT)
            *(int *)field = (int)v;
        else if (status == HS_OK && field)
            *(int64_t *)field = v;
        break;
    case JS_CHOICE:
        if ((i = word_index(key->values, value)) < 0)
            return hs_fail(err, HS_EINPUT, "%s: unknown %s '%s' (known: %s)", where, key->noun,
                           value, key->values);
        if (field)
            *(int *)field = key->first + i;
        break;
    case JS_SWITCH: /* the flag alone, or on/off (--overlap=off, --job overlap=on) */
        if (value && value[0] && strcmp(value, "on") != 0 && strcmp(value, "off") != 0)
            return hs_fail(err, HS_EINPUT, "%s: '%s' is not on or off", where, value);
        if (field)
            *(bool *)field = !value || strcmp(value, "off") != 0;
        break;
    }
    return status;
}

int js_set(js_settings *s, int k, const char *value, const char *where, char *err)
{
    if (s->given & (1u << k))
        return hs_fail(err, HS_EINPUT, "%s is given twice", where);
    s->given |= 1u << k;
    return parse_value(k, value, (char *)s + js_keys[k].offset, where, err);
}

void js_take(js_settings *to, const js_settings *from, int k)
{
    static const size_t size[] = {[JS_TEXT] = sizeof(const char *), [JS_COUNT] = sizeof(int),
                                  [JS_BATCH] = sizeof(int64_t), [JS_CHOICE] = sizeof(int),
                                  [JS_SWITCH] = sizeof(bool)};
    if (!(from->given & (1u << k)))
        return;
    size_t at = js_keys[k].offset;
    memcpy((char *)to + at, (const char *)from + at, size[js_keys[k].type]);
    to->given |= 1u << k;
}

int js_check(int k, const char *value, const char *where, char *err)
{
    return parse_value(k, value, NULL, where, err);
}

const char *js_value_text(const js_settings *s, int k, char *buf)
{
    const js_key *key = &js_keys[k];
    const char *field = (const char *)s + key->offset;
    if (!(s->given & (1u << k)))
        return NULL;
    switch (key->type) {
    case JS_TEXT: return *(const char *const *)field;
    case JS_COUNT: snprintf(buf, 24, "%d", *(const int *)field); return buf;
    case JS_BATCH: snprintf(buf, 24, "%lld", (long long)*(const int64_t *)field); return buf;
    case JS_SWITCH: return *(const bool *)field ? "" : "off";
    case JS_CHOICE: break;
    }
    const char *w = key->values;
    for (int i = *(const int *)field - key->first; i > 0 && *w; i--) {
        w += strcspn(w, ",");
        w += strspn(w, ", ");
    }
    size_t n = strcspn(w, ",");
    snprintf(buf, 24, "%.*s", (int)n, w);
    return buf;
}

int js_getopt_entries(struct option *opts, unsigned scope, int base, char *shortopts,
                      size_t shortopts_size)
{
    int n = 0;
    for (int k = 0; k < js_n_keys; k++) {
        const js_key *key = &js_keys[k];
        if (scope && !(key->scope & scope))
            continue;
        bool has_arg = key->type != JS_SWITCH;
        opts[n++] = (struct option){key->name, has_arg ? required_argument : optional_argument,
                                    NULL, base + k};
        size_t len = strlen(shortopts);
        if (key->short_flag && len + 3 < shortopts_size)
            snprintf(shortopts + len, shortopts_size - len, "%c%s", key->short_flag,
                     has_arg ? ":" : "");
    }
    return n;
}

/* text from column 26, wrapped at 88 columns. */
static void print_wrapped(FILE *out, const char *text)
{
    int col = 26;
    while (*text) {
        size_t n = strcspn(text, " ");
        if (col > 26 && col + 1 + (int)n > 88) {
            fprintf(out, "\n%26s", "");
            col = 26;
        } else if (col > 26) {
            fputc(' ', out);
            col++;
        }
        fprintf(out, "%.*s", (int)n, text);
        col += (int)n;
        text += n;
        text += strspn(text, " ");
    }
    fputc('\n', out);
}

void js_print_key_help(FILE *out, int k, const char *flag)
{
    int used = fprintf(out, "%s", flag);
    if (used > 25)
        fprintf(out, "\n%26s", "");
    else
        fprintf(out, "%*s", 26 - used, "");
    print_wrapped(out, js_keys[k].help);
}

void js_print_help(FILE *out, unsigned scope)
{
    for (int k = 0; k < js_n_keys; k++) {
        const js_key *key = &js_keys[k];
        if (scope && !(key->scope & scope))
            continue;
        char flag[64];
        if (key->short_flag)
            snprintf(flag, sizeof flag, "  -%c, --%s %s", key->short_flag, key->name,
                     key->arg ? key->arg : "");
        else
            snprintf(flag, sizeof flag, "      --%s %s", key->name, key->arg ? key->arg : "");
        js_print_key_help(out, k, flag);
    }
}
