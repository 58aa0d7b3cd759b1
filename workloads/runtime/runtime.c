/* runtime.c: the runtime file parser (runtime.h): `key = value` lines, each under a `# source:`
 * comment, every key known, none twice, the required ones present. */
#include "runtime.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hs_names.h"
#include "hs_text.h"

#define RT_LINE_MAX 1024

/* The keys a runtime file takes; RT_K_REQUIRED_END and before: required in every file. */
typedef enum {
    RT_K_DESCRIPTION, RT_K_LIBRARY, RT_K_ALLREDUCE, RT_K_OVERLAP, RT_K_GRADIENT,
    RT_K_HALO, RT_K_FILTER_BACKWARD, RT_K_OPTIMIZER, RT_K_REQUIRED_END = RT_K_OPTIMIZER,
    RT_K_NCCL_VERSION, RT_K_BUCKET, RT_K_HOST_CALL, RT_K_ELEMENTWISE, RT_K_DEPTHWISE,
    RT_K_LIBRARY_EFF, RT_K_LOADER_WORKERS, RT_K_LOADER_RATE, RT_K_OPT_KERNELS, RT_K_CALIBRATION,
    RT_K_BN_FUSION, RT_K_COMPUTE, RT_K_DEPTHWISE_LIMIT, RT_K_NCHW, RT_K_OPT_SYNC, RT_K_ACT_MEMORY,
    RT_K_GRAD_COPY, RT_K_NORM_BUFFERS, RT_K_FIRST_BUCKET, RT_K_CYCLE, RT_K_PADS,
    RT_K_BROADCAST_BW, RT_K_NORM_BLOCKS, RT_K_GROUPED, RT_K_GRADIENTS_READY,
    RT_K_LOADER_HOST_THREADS, RT_K_AUTOCAST, RT_K_STEP_HOST, RT_K_COUNT
} rt_key;

static const char *const key_names[RT_K_COUNT] = {
    "description", "library", "allreduce", "overlap", "gradient_precision", "halo",
    "filter_backward", "optimizer", "nccl_version", "bucket_bytes", "host_call_s",
    "elementwise_efficiency", "depthwise_efficiency", "library_efficiency",
    "loader_workers_per_gpu", "loader_samples_per_s", "optimizer_kernels_per_tensor",
    "calibration", "bn_activation_fusion", "compute", "depthwise_limit", "nchw_precisions",
    "optimizer_sync_precisions", "activation_memory", "gradient_copy_kernels_per_tensor",
    "buffer_copy_kernels_per_norm", "first_bucket_bytes", "cycle_time_s",
    "pads_unaligned_channels", "broadcast_backward", "norm_blocks", "grouped_convolution",
    "gradients_ready", "loader_host_threads_per_gpu", "autocast_weight_casts", "step_host_s"};

/* What a file said, before the rules between keys. */
typedef struct {
    const char *path;
    int line[RT_K_COUNT];     /* the line each key was on (0: not given) */
    char allreduce[16];       /* "library" or an algorithm name */
    double opt_kernels;       /* optimizer_kernels_per_tensor */
} rt_read;

co_algo rt_library_choice(rt_library library, int nccl_version)
{
    if (library == RT_MPI)
        return CO_RING;
    return nccl_version < 20400 ? CO_RINGS : CO_AUTO;
}

const char *rt_default_dir(void)
{
    /* The workloads' folder decides where HYBRIDSIM_HOME points (wl_default_dir); the buffer
     * holds any of its paths (at most 1023 bytes) and "/runtime". */
    static _Thread_local char dir[1024 + sizeof "/runtime"];
    snprintf(dir, sizeof dir, "%s/runtime", wl_default_dir());
    return dir;
}

/* One of `n` words into *index; HS_EINPUT naming the key and the words otherwise. */
static int one_of(const rt_read *r, int line, const char *key, const char *value,
                  const char *const *words, int n, int *index, char *err)
{
    for (int i = 0; i < n; i++)
        if (strcmp(value, words[i]) == 0) {
            *index = i;
            return HS_OK;
        }
    char known[128] = "";
    for (int i = 0; i < n; i++)
        snprintf(known + strlen(known), sizeof known - strlen(known), "%s%s", i ? ", " : "",
                 words[i]);
    return hs_fail(err, HS_EINPUT, "%s:%d: %s: unknown value '%s' (known: %s)", r->path, line,
                   key, value, known);
}

/* A positive finite number, at most `max`, with an optional unit suffix (bytes: KiB, MiB). */
static int number(const rt_read *r, int line, const char *key, const char *value, double max,
                  bool bytes, double *out, char *err)
{
    char *end = NULL;
    errno = 0;
    double v = strtod(value, &end);
    double unit = 1;
    if (bytes && end && strcmp(end, " MiB") == 0)
        unit = 1024.0 * 1024.0;
    else if (bytes && end && strcmp(end, " KiB") == 0)
        unit = 1024.0;
    else if (!end || *end)
        unit = 0;
    if (end == value || unit == 0 || errno || !isfinite(v))
        return hs_fail(err, HS_EINPUT, "%s:%d: %s: '%s' is not a number%s", r->path, line, key,
                       value, bytes ? " (bytes, or N KiB, N MiB)" : "");
    if (!(v > 0) || v * unit > max)
        return hs_fail(err, HS_EINPUT, "%s:%d: %s: %s is out of range (0, %g]", r->path, line,
                       key, value, max);
    *out = v * unit;
    return HS_OK;
}

/* nccl_version X.Y or X.Y.Z into X*10000 + Y*100 + Z. */
static int version(const rt_read *r, int line, const char *value, int *out, char *err)
{
    int x = 0, y = 0, z = 0, used = 0;
    int n = sscanf(value, "%2d.%2d%n.%2d%n", &x, &y, &used, &z, &used);
    if (n < 2 || value[used] || x < 1 || y < 0 || z < 0)
        return hs_fail(err, HS_EINPUT, "%s:%d: nccl_version: '%s' is not a version X.Y or "
                       "X.Y.Z", r->path, line, value);
    *out = x * 10000 + y * 100 + z;
    return HS_OK;
}

/* The words a word key takes, in the order of its enum or flag (halo: chain second). */
typedef struct {
    const char *const *words; /* the words (NULL: not a word key) */
    int n;                    /* how many */
} rt_words;
#define RT_WORDS(a) {(a), (int)(sizeof(a) / sizeof((a)[0]))}

/* allreduce: the library's choice or an algorithm collective.h names, as --allreduce takes. */
static int allreduce_key(rt_read *r, int line, const char *v, char *err)
{
    const char *algos[1 + CO_ALGO_COUNT] = {"library"};
    int i = 0;
    for (int a = 0; a < CO_ALGO_COUNT; a++)
        algos[1 + a] = co_algo_name((co_algo)a);
    int rc = one_of(r, line, "allreduce", v, algos, 1 + CO_ALGO_COUNT, &i, err);
    snprintf(r->allreduce, sizeof r->allreduce, "%s", v);
    return rc;
}

/* A key that takes one of a few words: the word's index into rt. */
static int word_key(rt_read *r, rt_runtime *rt, rt_key k, int line, const char *v, char *err)
{
    static const char *const libs[] = {"mpi", "nccl"};
    static const char *const onoff[] = {"off", "on"};
    static const char *const grads[] = {"storage", "fp32", "fp16"};
    static const char *const halos[] = {"sendrecv", "chain"};
    static const char *const filters[] = {"allreduce", "reduce-scatter"};
    static const char *const opts[] = {"none", "sgd", "momentum", "adam"};
    static const char *const computes[] = {"measured", "model", "kernels"};
    static const char *const limits[] = {"arithmetic", "bytes"};
    static const char *const act_rules[] = {"paradl", "autograd"};
    static const char *const bcast_rules[] = {"one-kernel", "autograd"};
    static const char *const norm_blocks[] = {"any", "channel", "sample-channel"};
    static const char *const grouped[] = {"per-group", "packed"};
    static const char *const bn_fusions[] = {"off", "on", "xla"}; /* kt_bn_fusion's order */
    static const char *const readies[] = {"kernel", "backward"};
    static const rt_words choices[RT_K_COUNT] = {
        [RT_K_LIBRARY] = RT_WORDS(libs),          [RT_K_OVERLAP] = RT_WORDS(onoff),
        [RT_K_GRADIENT] = RT_WORDS(grads),        [RT_K_HALO] = RT_WORDS(halos),
        [RT_K_BN_FUSION] = RT_WORDS(bn_fusions),  [RT_K_PADS] = RT_WORDS(onoff),
        [RT_K_BROADCAST_BW] = RT_WORDS(bcast_rules), [RT_K_NORM_BLOCKS] = RT_WORDS(norm_blocks),
        [RT_K_DEPTHWISE_LIMIT] = RT_WORDS(limits), [RT_K_ACT_MEMORY] = RT_WORDS(act_rules),
        [RT_K_COMPUTE] = RT_WORDS(computes),      [RT_K_FILTER_BACKWARD] = RT_WORDS(filters),
        [RT_K_OPTIMIZER] = RT_WORDS(opts),        [RT_K_GROUPED] = RT_WORDS(grouped),
        [RT_K_GRADIENTS_READY] = RT_WORDS(readies), [RT_K_AUTOCAST] = RT_WORDS(onoff),
    };
    static const double grad_bytes[] = {0, 4, 2};
    if (k == RT_K_ALLREDUCE)
        return allreduce_key(r, line, v, err);
    if (!choices[k].words)
        return HS_OK;
    int i = 0;
    int rc = one_of(r, line, key_names[k], v, choices[k].words, choices[k].n, &i, err);
    if (rc != HS_OK)
        return rc;
    switch (k) {
    case RT_K_LIBRARY: rt->library = i; break;
    case RT_K_OVERLAP: rt->overlap = i; break;
    case RT_K_GRADIENT: rt->gradient_bytes = grad_bytes[i]; break;
    case RT_K_HALO: rt->halo_chain = i; break;
    case RT_K_BN_FUSION: rt->kernels.bn_act_fused = (kt_bn_fusion)i; break;
    case RT_K_PADS: rt->kernels.pads_channels = i; break;
    case RT_K_BROADCAST_BW: rt->kernels.autograd_broadcast = i; break;
    case RT_K_NORM_BLOCKS: rt->kernels.norm_blocks = (kt_norm_blocks)i; break;
    case RT_K_GROUPED: rt->kernels.packs_groups = i; break;
    case RT_K_DEPTHWISE_LIMIT: rt->kernels.depthwise_by_bytes = i; break;
    case RT_K_ACT_MEMORY: rt->autograd_memory = i; break;
    case RT_K_COMPUTE: rt->compute = (rt_compute)(RT_COMPUTE_MEASURED + i); break;
    case RT_K_FILTER_BACKWARD: rt->filter_rs = i; break;
    case RT_K_OPTIMIZER: rt->optimizer = (rt_optimizer)i; break;
    case RT_K_GRADIENTS_READY: rt->after_backward = i; break;
    case RT_K_AUTOCAST: rt->autocast_casts = i; break;
    default: break;
    }
    return HS_OK;
}

/* A list of precision names (precision.h) for `key`, blank- or comma-separated, into a mask of
 * 1u << pr_precision; HS_EINPUT naming the file, line and word otherwise. */
static int precisions(const rt_read *r, int line, const char *key, const char *value,
                      unsigned *mask, char *err)
{
    char words[RT_LINE_MAX], why[HS_ERR_LEN];
    snprintf(words, sizeof words, "%s", value);
    *mask = 0;
    for (char *save = NULL, *w = strtok_r(words, " ,\t", &save); w;
         w = strtok_r(NULL, " ,\t", &save)) {
        pr_precision p;
        if (pr_parse(w, &p, why) != HS_OK)
            return hs_fail(err, HS_EINPUT, "%s:%d: %s: unknown precision '%s' "
                           "(known: fp32, mixed, bf16, tf32)", r->path, line, key, w);
        *mask |= 1u << p;
    }
    if (!*mask)
        return hs_fail(err, HS_EINPUT, "%s:%d: %s: '%s' names no precision", r->path, line, key,
                       value);
    return HS_OK;
}

/* A text value into buf of `size` bytes; HS_EINPUT when it does not fit. */
static int copy_text(const rt_read *r, int line, const char *key, const char *value,
                     char *buf, size_t size, char *err)
{
    if ((size_t)snprintf(buf, size, "%s", value) >= size)
        return hs_fail(err, HS_EINPUT, "%s:%d: %s: longer than %zu characters", r->path, line,
                       key, size - 1);
    return HS_OK;
}

/* One `key = value` (the key known, not yet given) into rt. */
static int set_key(rt_read *r, rt_runtime *rt, rt_key k, int line, const char *v, char *err)
{
    kt_runtime *kr = &rt->kernels;
    switch (k) {
    case RT_K_DESCRIPTION:
        return copy_text(r, line, "description", v, rt->description, sizeof rt->description,
                         err);
    case RT_K_CALIBRATION:
        return copy_text(r, line, "calibration", v, rt->calibration, sizeof rt->calibration,
                         err);
    case RT_K_NCCL_VERSION: return version(r, line, v, &rt->nccl_version, err);
    case RT_K_BUCKET:
        return number(r, line, "bucket_bytes", v, 1e12, true, &rt->bucket_bytes, err);
    case RT_K_FIRST_BUCKET:
        return number(r, line, "first_bucket_bytes", v, 1e12, true, &rt->first_bucket_bytes, err);
    case RT_K_CYCLE: return number(r, line, "cycle_time_s", v, 1, false, &rt->cycle_time_s, err);
    case RT_K_HOST_CALL: return number(r, line, "host_call_s", v, 1, false, &kr->host_call_s, err);
    case RT_K_STEP_HOST: return number(r, line, "step_host_s", v, 1, false, &kr->step_host_s, err);
    case RT_K_ELEMENTWISE:
        return number(r, line, "elementwise_efficiency", v, 1, false, &kr->stream_rel, err);
    case RT_K_DEPTHWISE:
        return number(r, line, "depthwise_efficiency", v, 1, false, &kr->depthwise_rel, err);
    case RT_K_LIBRARY_EFF:
        return number(r, line, "library_efficiency", v, 2, false, &kr->library_rel, err);
    case RT_K_LOADER_WORKERS:
        return number(r, line, "loader_workers_per_gpu", v, 4096, false, &kr->loader_workers,
                      err);
    case RT_K_LOADER_RATE:
        return number(r, line, "loader_samples_per_s", v, 1e9, false, &kr->loader_samples_per_s,
                      err);
    case RT_K_LOADER_HOST_THREADS:
        return number(r, line, "loader_host_threads_per_gpu", v, 4096, false,
                      &rt->loader_host_threads, err);
    case RT_K_NCHW: return precisions(r, line, "nchw_precisions", v, &kr->nchw_precisions, err);
    case RT_K_OPT_SYNC:
        return precisions(r, line, "optimizer_sync_precisions", v, &kr->optimizer_sync_precisions,
                          err);
    case RT_K_NORM_BUFFERS:
        return number(r, line, "buffer_copy_kernels_per_norm", v, 100, false,
                      &kr->norm_buffer_kernels, err);
    case RT_K_GRAD_COPY:
        return number(r, line, "gradient_copy_kernels_per_tensor", v, 100, false,
                      &kr->grad_copy_kernels_per_tensor, err);
    case RT_K_OPT_KERNELS:
        return number(r, line, "optimizer_kernels_per_tensor", v, 100, false, &r->opt_kernels,
                      err);
    default: return word_key(r, rt, k, line, v, err);
    }
}

/* Bytes one weight's update streams per step: the values read (weight, gradient, states) and
 * written (weight, states), FP32 each (torch/optim/sgd.py, chainer/optimizers/adam.py: the
 * update reads and writes these arrays once). */
static double optimizer_bytes(rt_optimizer o)
{
    static const double states[] = {0, 0, 1, 2};
    return o == RT_OPT_NONE ? 0 : 4.0 * (2 + states[o] + 1 + states[o]);
}

/* The rules between keys, once the file is read. */
static int finish(rt_read *r, rt_runtime *rt, char *err)
{
    for (int k = 0; k <= RT_K_REQUIRED_END; k++)
        if (!r->line[k])
            return hs_fail(err, HS_EINPUT, "%s: no %s (every runtime says it; "
                           "workloads/runtime/README.md)", r->path, key_names[k]);
    if (rt->library == RT_NCCL && !r->line[RT_K_NCCL_VERSION])
        return hs_fail(err, HS_EINPUT, "%s: library = nccl needs nccl_version (its allreduce "
                       "choice depends on it)", r->path);
    if (rt->library == RT_MPI && r->line[RT_K_NCCL_VERSION])
        return hs_fail(err, HS_EINPUT, "%s:%d: nccl_version: the library is mpi", r->path,
                       r->line[RT_K_NCCL_VERSION]);
    if (rt->overlap && !r->line[RT_K_BUCKET])
        return hs_fail(err, HS_EINPUT, "%s: overlap = on needs bucket_bytes", r->path);
    if (!rt->overlap && r->line[RT_K_BUCKET])
        return hs_fail(err, HS_EINPUT, "%s:%d: bucket_bytes: overlap is off (one allreduce "
                       "after the backward)", r->path, r->line[RT_K_BUCKET]);
    if (!rt->overlap && r->line[RT_K_FIRST_BUCKET])
        return hs_fail(err, HS_EINPUT, "%s:%d: first_bucket_bytes: overlap is off (one "
                       "allreduce after the backward)", r->path, r->line[RT_K_FIRST_BUCKET]);
    if (!rt->overlap && r->line[RT_K_CYCLE])
        return hs_fail(err, HS_EINPUT, "%s:%d: cycle_time_s: overlap is off (one allreduce "
                       "after the backward)", r->path, r->line[RT_K_CYCLE]);
    if (!rt->overlap && r->line[RT_K_GRADIENTS_READY])
        return hs_fail(err, HS_EINPUT, "%s:%d: gradients_ready: overlap is off (one allreduce "
                       "after the backward)", r->path, r->line[RT_K_GRADIENTS_READY]);
    if (r->line[RT_K_OPT_KERNELS] && rt->optimizer == RT_OPT_NONE)
        return hs_fail(err, HS_EINPUT, "%s:%d: optimizer_kernels_per_tensor: the optimizer is "
                       "none", r->path, r->line[RT_K_OPT_KERNELS]);
    if (r->line[RT_K_OPT_SYNC] && (!r->line[RT_K_OPT_KERNELS] || !r->line[RT_K_HOST_CALL]))
        return hs_fail(err, HS_EINPUT, "%s:%d: optimizer_sync_precisions needs "
                       "optimizer_kernels_per_tensor and host_call_s (the kernels whose host "
                       "launches it exposes, and what one costs)", r->path,
                       r->line[RT_K_OPT_SYNC]);
    if (!r->line[RT_K_LOADER_WORKERS] != !r->line[RT_K_LOADER_RATE])
        return hs_fail(err, HS_EINPUT, "%s:%d: %s needs %s (the input pipeline's rate is "
                       "the workers times a worker's rate)", r->path,
                       r->line[RT_K_LOADER_WORKERS] + r->line[RT_K_LOADER_RATE],
                       r->line[RT_K_LOADER_WORKERS] ? "loader_workers_per_gpu"
                                                    : "loader_samples_per_s",
                       r->line[RT_K_LOADER_WORKERS] ? "loader_samples_per_s"
                                                    : "loader_workers_per_gpu");
    if (r->line[RT_K_LOADER_HOST_THREADS] && !r->line[RT_K_LOADER_WORKERS])
        return hs_fail(err, HS_EINPUT, "%s:%d: loader_host_threads_per_gpu needs "
                       "loader_workers_per_gpu (the threads share the node's cores with the "
                       "loader's workers)", r->path, r->line[RT_K_LOADER_HOST_THREADS]);
    if (rt->kernels.norm_blocks != KT_NORM_ANY && !r->line[RT_K_NCHW])
        return hs_fail(err, HS_EINPUT, "%s:%d: norm_blocks: no nchw_precisions (it times the "
                       "normalisations on NCHW tensors, in those precisions)", r->path,
                       r->line[RT_K_NORM_BLOCKS]);
    if (strcmp(r->allreduce, "library") == 0)
        rt->allreduce = rt_library_choice(rt->library, rt->nccl_version);
    else
        co_algo_parse(r->allreduce, &rt->allreduce);
    rt->kernels.optimizer_kernels_per_tensor = r->opt_kernels;
    rt->kernels.optimizer_bytes_per_weight = r->opt_kernels > 0 ? optimizer_bytes(rt->optimizer)
                                                                : 0;
    return HS_OK;
}

/* Cut blanks from both ends of s in place; returns s past its leading blanks. */
static char *trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    size_t n = strlen(s);
    while (n > 0 && isspace((unsigned char)s[n - 1]))
        s[--n] = '\0';
    return s;
}

/* One line of the file: a comment (a source one arms the next value), blank, or a value. */
static int one_line(rt_read *r, rt_runtime *rt, char *text, int line, bool *sourced, char *err)
{
    char *s = trim(text);
    if (!*s)
        return HS_OK;
    if (*s == '#') {
        if (strncmp(trim(s + 1), "source:", 7) == 0)
            *sourced = true;
        return HS_OK;
    }
    char *eq = strchr(s, '=');
    if (!eq)
        return hs_fail(err, HS_EINPUT, "%s:%d: not 'key = value', a '#' comment or blank: '%s'",
                       r->path, line, s);
    *eq = '\0';
    char *key = trim(s), *value = trim(eq + 1);
    int k = 0;
    while (k < RT_K_COUNT && strcmp(key, key_names[k]) != 0)
        k++;
    if (k == RT_K_COUNT)
        return hs_fail(err, HS_EINPUT, "%s:%d: unknown key '%s' (workloads/runtime/README.md "
                       "lists them)", r->path, line, key);
    if (r->line[k])
        return hs_fail(err, HS_EINPUT, "%s:%d: %s given twice (first on line %d)", r->path,
                       line, key, r->line[k]);
    if (!*value)
        return hs_fail(err, HS_EINPUT, "%s:%d: %s has no value", r->path, line, key);
    if (!*sourced && k != RT_K_DESCRIPTION)
        return hs_fail(err, HS_EINPUT, "%s:%d: %s has no '# source:' comment above it (every "
                       "value says where it comes from)", r->path, line, key);
    *sourced = false;
    r->line[k] = line;
    return set_key(r, rt, (rt_key)k, line, value, err);
}

/* The file's name without its folder and .rt, as the runtime's name. */
static void name_of(const char *path, char *name, size_t len)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t n = strlen(base);
    if (n > 3 && strcmp(base + n - 3, ".rt") == 0)
        n -= 3;
    snprintf(name, len, "%.*s", (int)(n < len ? n : len - 1), base);
}

int rt_parse_file(const char *path, rt_runtime *rt, char *err)
{
    memset(rt, 0, sizeof *rt);
    rt->kernels = kt_runtime_neutral();
    if ((size_t)snprintf(rt->path, sizeof rt->path, "%s", path) >= sizeof rt->path)
        return hs_fail(err, HS_EINPUT, "%s: runtime path too long", path);
    name_of(path, rt->name, sizeof rt->name);
    FILE *f = fopen(path, "r");
    if (!f)
        return hs_fail(err, HS_EINPUT, "%s: cannot read the runtime file: %s", path,
                       strerror(errno));
    rt_read r = {.path = rt->path};
    char text[RT_LINE_MAX];
    int line = 0, rc = HS_OK, got = 0;
    size_t total_bytes = 0;
    bool sourced = false;
    /* bounded as every text input (hs_text.h): a NUL, a read error, a file that never ends */
    while (rc == HS_OK &&
           (got = hs_text_line(f, path, &line, text, sizeof text, &total_bytes, err)) > 0)
        rc = one_line(&r, rt, text, line, &sourced, err);
    if (rc == HS_OK && got < 0)
        rc = HS_EINPUT;
    fclose(f);
    return rc == HS_OK ? finish(&r, rt, err) : rc;
}

int rt_optimizer_states(const rt_runtime *rt)
{
    static const int states[] = {-1, 0, 1, 2};
    return states[rt->optimizer];
}

st_training rt_training(const rt_runtime *rt)
{
    int states = rt_optimizer_states(rt); /* -1, none: the workload's own stands */
    return (st_training){.gradient_bytes = rt->gradient_bytes, .optimizer_given = states >= 0,
                         .optimizer_states = states >= 0 ? states : 0,
                         .autograd_memory = rt->autograd_memory,
                         .autocast_casts = rt->autocast_casts};
}

void rt_apply_strategy(const rt_runtime *rt, st_strategy *st)
{
    bool file = st->kind == ST_LAYERWISE; /* its halos and gathers as the runtime's */
    unsigned bit = st_split_bit(st->kind);
    st->allreduce = rt->allreduce; /* a file's fused gradient allreduces too */
    st->overlap = rt->overlap;
    st->bucket_bytes = rt->bucket_bytes;
    st->first_bucket_bytes = rt->first_bucket_bytes;
    st->cycle_time_s = rt->cycle_time_s;
    st->after_backward = rt->after_backward;
    st->train = rt_training(rt);
    if (file || bit == WL_SPLIT_SPATIAL) /* a file's plan reads it in job.c, su__add_plan */
        st->halo_chain = rt->halo_chain;
    if (file || bit == WL_SPLIT_FILTER)
        st->filter_rs = rt->filter_rs;
}

int rt_load(const char *spec, rt_runtime *rt, char *err)
{
    size_t n = spec ? strlen(spec) : 0;
    if (!n)
        return hs_fail(err, HS_EINPUT, "--runtime: empty name (hybridsim runtimes lists them)");
    if (strchr(spec, '/') || (n > 3 && strcmp(spec + n - 3, ".rt") == 0))
        return rt_parse_file(spec, rt, err);
    char path[1024];
    if ((size_t)snprintf(path, sizeof path, "%s/%s.rt", rt_default_dir(), spec) >= sizeof path)
        return hs_fail(err, HS_EINPUT, "--runtime: name too long");
    FILE *f = fopen(path, "r");
    if (!f) {
        char known[HS_ERR_LEN / 2];
        hs_known_names(rt_default_dir(), ".rt", known, sizeof known);
        return hs_fail(err, HS_EINPUT, "--runtime: unknown runtime '%s' (no %s; known: %s)",
                       spec, path, known);
    }
    fclose(f);
    return rt_parse_file(path, rt, err);
}

int rt_list(FILE *out, char *err)
{
    char names[2048];
    hs_known_names(rt_default_dir(), ".rt", names, sizeof names);
    for (char *save = NULL, *name = strtok_r(names, ", ", &save); name;
         name = strtok_r(NULL, ", ", &save)) {
        rt_runtime rt;
        int rc = rt_load(name, &rt, err);
        if (rc != HS_OK)
            return rc;
        fprintf(out, "  %-21s %s\n", rt.name, rt.description);
    }
    return HS_OK;
}
