/* strategy.c: the "-s" vocabulary: parse a strategy name and group shape, and check it against
 * a workload and a batch (the limits on p of PARADL-MODEL.md).
 *
 * Both the analytic model and the simulator take an st_strategy, so every rule about what a
 * strategy means (which GPUs form a group, which layer dimension bounds p, what must divide
 * the batch) lives here once. Messages name the flag the user typed ("-s", "-g", "-b") and
 * the value, because that is what the user can fix. */
#include "strategy.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compute.h"
#include "hs_parse.h"

/* ------------------------------------------------------------------ names */

static const char *const kind_names[ST_KIND_COUNT] = {
    [ST_SERIAL] = "serial",
    [ST_DATA] = "data",
    [ST_SPATIAL] = "spatial",
    [ST_FILTER] = "filter",
    [ST_CHANNEL] = "channel",
    [ST_PIPELINE] = "pipeline",
    [ST_DATA_FILTER] = "data+filter",
    [ST_DATA_SPATIAL] = "data+spatial",
    [ST_LAYERWISE] = "layerwise",
};

const char *st_kind_name(st_kind kind)
{
    return (unsigned)kind < ST_KIND_COUNT ? kind_names[kind] : "?";
}

unsigned st_split_bit(st_kind kind)
{
    switch (kind) {
    case ST_FILTER:
    case ST_DATA_FILTER:
        return WL_SPLIT_FILTER;
    case ST_CHANNEL:
        return WL_SPLIT_CHANNEL;
    case ST_SPATIAL:
    case ST_DATA_SPATIAL:
        return WL_SPLIT_SPATIAL;
    default:
        return 0;
    }
}

static int is_hybrid(st_kind kind)
{
    return kind == ST_DATA_FILTER || kind == ST_DATA_SPATIAL;
}

bool st_is_pipelined(const st_strategy *st)
{
    return st->kind == ST_PIPELINE ||
           (st->kind == ST_LAYERWISE && st->plan && st->plan->micro_batches > 0);
}

const char *st_name(const st_strategy *st)
{
    return st->kind == ST_LAYERWISE && st->plan ? st->plan->name : st_kind_name(st->kind);
}

double st_gradient_bytes(const st_training *t, const struct kt_compute *kc)
{
    return t->gradient_bytes > 0 ? t->gradient_bytes : kt_gradient_bytes(kc);
}

int st_optimizer_states(const st_training *t, const wl_workload *wl)
{
    return t->optimizer_given ? t->optimizer_states : wl->optimizer_states;
}

double st_autocast_cast_s(const st_training *t, const struct kt_compute *kc,
                          const wl_workload *wl, int index, double parts)
{
    return t->autocast_casts && kc ? kt_compute_autocast_s(kc, wl, index, parts) : 0.0;
}

void st_from_plan(const st_plan *plan, st_strategy *st)
{
    memset(st, 0, sizeof *st);
    st->kind = ST_LAYERWISE;
    st->p = plan->gpus;
    st_plan_shape(plan, &st->p1, &st->p2);
    st->segments = plan->micro_batches > 0 ? plan->micro_batches : 1;
    st->plan = plan;
    st->filter_rs = !plan->filter_allreduce;
    st->halo_chain = !plan->halo_sendrecv;
    st->allreduce = plan->allreduce;
    st->train = plan->train;
}

int st_input_groups(const st_strategy *st)
{
    const st_plan *plan = st->kind == ST_LAYERWISE ? st->plan : NULL;
    if (plan && plan->micro_batches == 0 && plan->n_layers > 0 && plan->layers[0].batch > 0)
        return plan->layers[0].batch;
    return st->p1 > 0 ? st->p1 : 1;
}

/* The known names, comma separated, for "unknown strategy" messages (the built-in kinds: a
 * layer-wise strategy is given as a file). */
static const char *known_list(char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int k = 0; k < ST_LAYERWISE && used < len; k++)
        used += (size_t)snprintf(buf + used, len - used, "%s%s", k ? ", " : "", kind_names[k]);
    return buf;
}

/* ------------------------------------------------------------------ parsing */

/* Parse a positive int that fills [s, end) exactly; returns -1 if it is not one. */
static int parse_count(const char *s, const char *end)
{
    int64_t v = 0;
    if (s == end || *s < '0' || *s > '9' ||
        hs_parse_whole(s, (size_t)(end - s), 1, INT_MAX, &v) != HS_NUM_OK)
        return -1;
    return (int)v;
}

/* "P1xP2" (the text after ':') into *p1, *p2. */
static int parse_shape(const char *text, const char *shape, int *p1, int *p2, char *err)
{
    const char *x = strchr(shape, 'x');
    if (!x)
        x = strchr(shape, 'X');
    if (x) {
        *p1 = parse_count(shape, x);
        *p2 = parse_count(x + 1, x + 1 + strlen(x + 1));
    }
    if (!x || *p1 < 0 || *p2 < 0)
        return hs_fail(err, HS_EINPUT,
                       "-s %s: the group shape after ':' must be P1xP2 with two positive "
                       "integers (data-parallel groups x GPUs per group), e.g. data+filter:8x4",
                       text);
    return HS_OK;
}

/* Fill p1/p2 of a hybrid: from the explicit shape, else one group per node. */
static int hybrid_shape(const char *text, const char *shape, int p, int gpus_per_node,
                        st_strategy *st, char *err)
{
    if (shape) {
        int status = parse_shape(text, shape, &st->p1, &st->p2, err);
        if (status != HS_OK)
            return status;
        if ((long long)st->p1 * st->p2 != p)
            return hs_fail(err, HS_EINPUT, "-s %s: %d x %d = %lld GPUs, but -g is %d", text,
                           st->p1, st->p2, (long long)st->p1 * st->p2, p);
        return HS_OK;
    }
    if (gpus_per_node < 1)
        return hs_fail(err, HS_EINPUT,
                       "-s %s: the platform gives no GPUs per node to size the group; give "
                       "the shape as %s:P1xP2",
                       text, text);
    if (p % gpus_per_node != 0)
        return hs_fail(err, HS_EINPUT,
                       "-g %d: %s puts the %d GPUs of a node in each model-parallel group by "
                       "default, and %d does not divide %d; give the shape as %s:P1xP2",
                       p, text, gpus_per_node, gpus_per_node, p, text);
    st->p2 = gpus_per_node;
    st->p1 = p / gpus_per_node;
    return HS_OK;
}

bool st_text_is(const char *text, const char *kind)
{
    size_t n = strcspn(text, ":");
    if (n > 5 && strncmp(text, "data+", 5) == 0)
        text += 5, n -= 5;
    return strlen(kind) == n && strncmp(text, kind, n) == 0;
}

/* The kind the name before ':' (or the whole text) names, into *kind. */
static int parse_kind(const char *text, size_t name_len, st_kind *kind, char *err)
{
    for (int k = 0; k < ST_LAYERWISE; k++)
        if (strlen(kind_names[k]) == name_len && strncmp(text, kind_names[k], name_len) == 0) {
            *kind = (st_kind)k;
            return HS_OK;
        }
    char known[256];
    return hs_fail(err, HS_EINPUT, "-s %s: unknown strategy (known: %s, or a strategy file "
                   "FILE.xml)", text, known_list(known, sizeof known));
}

/* The group shape p1 x p2 and the micro-batches of st's kind over p GPUs; `shape` is the text
 * after ':' (NULL: none), `segments` the --micro-batches given (0: none). */
static int kind_shape(const char *text, const char *shape, int p, int gpus_per_node,
                      int segments, st_strategy *st, char *err)
{
    switch (st->kind) {
    case ST_SERIAL:
        if (p != 1)
            return hs_fail(err, HS_EINPUT, "-g %d: serial runs on exactly one GPU", p);
        st->p1 = st->p2 = 1;
        return HS_OK;
    case ST_DATA:
        st->p1 = p;
        st->p2 = 1;
        return HS_OK;
    case ST_PIPELINE:
        /* GPipe's default keeps every stage busy in the steady state: one micro-batch per
         * stage. */
        st->segments = segments > 0 ? segments : p;
        st->p1 = 1;
        st->p2 = p;
        return HS_OK;
    case ST_SPATIAL:
    case ST_FILTER:
    case ST_CHANNEL:
        st->p1 = 1;
        st->p2 = p;
        return HS_OK;
    case ST_DATA_FILTER:
    case ST_DATA_SPATIAL:
        return hybrid_shape(text, shape, p, gpus_per_node, st, err);
    default:
        return hs_fail(err, HS_EINTERNAL, "-s %s: strategy kind %d not handled", text,
                       (int)st->kind);
    }
}

int st_parse(const char *text, int p, int gpus_per_node, int segments, st_strategy *st,
             char *err)
{
    memset(st, 0, sizeof *st);
    if (!text || !*text)
        return hs_fail(err, HS_EINPUT, "-s: no strategy given");
    if (p < 1)
        return hs_fail(err, HS_EINPUT, "-g %d: the number of GPUs must be at least 1", p);
    if (segments < 0)
        return hs_fail(err, HS_EINPUT, "--micro-batches %d: must be at least 1", segments);

    const char *colon = strchr(text, ':');
    int status = parse_kind(text, colon ? (size_t)(colon - text) : strlen(text), &st->kind, err);
    if (status != HS_OK)
        return status;
    st->p = p;
    st->segments = 1;
    /* as the measured runtime does, where the strategy has them (strategy.h) */
    st->filter_rs = st_split_bit(st->kind) == WL_SPLIT_FILTER;
    st->halo_chain = st_split_bit(st->kind) == WL_SPLIT_SPATIAL;
    if (colon && !is_hybrid(st->kind))
        return hs_fail(err, HS_EINPUT,
                       "-s %s: only data+filter and data+spatial take a group shape ':P1xP2'",
                       text);
    if (segments > 0 && st->kind != ST_PIPELINE)
        return hs_fail(err, HS_EINPUT,
                       "--micro-batches %d: only the pipeline strategy splits a batch into "
                       "micro-batches, not %s",
                       segments, text);
    return kind_shape(text, colon ? colon + 1 : NULL, p, gpus_per_node, segments, st, err);
}

/* ------------------------------------------------------------------ limits on p */

/* What bounds the model-parallel part of a strategy: the smallest extent, over the layers it
 * splits, of the dimension it splits. */
typedef struct {
    int64_t extent;     /* min over split layers; 0 when no layer is split */
    const char *what;   /* "filters", "channels", "columns (W)"; singular for one */
    const char *symbol; /* "F", "C", "W" */
} split_bound;

static split_bound model_bound(st_kind kind, const wl_workload *wl)
{
    split_bound b = {0, "", ""};
    unsigned bit = st_split_bit(kind);
    int64_t first_layer_c = 0;
    for (int i = 0; i < wl->n_layers; i++) {
        const wl_layer *l = &wl->layers[i];
        if (!(l->split_mask & bit))
            continue;
        int64_t e;
        if (bit == WL_SPLIT_FILTER) {
            e = l->y.channels;
        } else if (bit == WL_SPLIT_CHANNEL) {
            /* The first layer reads the input sample (3 colour planes for an image): as in
             * the oracle, its channels do not bound p; its split just leaves GPUs idle. */
            if (i == 0) {
                first_layer_c = l->x.channels;
                continue;
            }
            e = l->x.channels;
        } else {
            /* Spatial parallelism cuts the width (the oracle's one split dimension), of the
             * input and of the output. */
            e = l->x.spatial[0] < l->y.spatial[0] ? l->x.spatial[0] : l->y.spatial[0];
        }
        if (b.extent == 0 || e < b.extent)
            b.extent = e;
    }
    if (b.extent == 0)
        b.extent = first_layer_c;
    bool one = b.extent == 1; /* "the 1 column", not "the 1 columns" */
    if (bit == WL_SPLIT_FILTER) {
        b.what = one ? "filter" : "filters";
        b.symbol = "F";
    } else if (bit == WL_SPLIT_CHANNEL) {
        b.what = one ? "channel" : "channels";
        b.symbol = "C";
    } else {
        b.what = one ? "column" : "columns";
        b.symbol = "W";
    }
    return b;
}

int64_t st_limit_p(const st_strategy *st, const wl_workload *wl, int64_t batch)
{
    split_bound b = model_bound(st->kind, wl);
    int64_t model = b.extent > 0 ? b.extent : 1;
    switch (st->kind) {
    case ST_SERIAL:
        return 1;
    case ST_DATA:
        return batch;
    case ST_SPATIAL:
    case ST_FILTER:
    case ST_CHANNEL:
        return model;
    case ST_PIPELINE:
        return wl->n_layers;
    case ST_DATA_FILTER:
    case ST_DATA_SPATIAL:
        /* p1 <= B data-parallel groups of p2 <= the model bound GPUs each. */
        return batch * model;
    case ST_LAYERWISE:
        return st->plan ? st->plan->gpus : 0;
    default:
        return 0;
    }
}

/* The model-parallel group of p2 GPUs must not exceed the split dimension. */
static int check_model_part(const st_strategy *st, const wl_workload *wl, int p2, char *err)
{
    split_bound b = model_bound(st->kind, wl);
    if (b.extent == 0)
        return hs_fail(err, HS_EINPUT,
                       "-s %s: no layer of %s is marked for %s parallelism (give a layer file "
                       "with --layers)",
                       st_kind_name(st->kind), wl->name, st_kind_name(st->kind));
    if (p2 > b.extent) {
        if (p2 == st->p)
            return hs_fail(err, HS_EINPUT,
                           "-g %d: %s parallelism splits at most %lld %s (min %s over split "
                           "layers of %s)",
                           st->p, st_kind_name(st->kind), (long long)b.extent, b.what,
                           b.symbol, wl->name);
        return hs_fail(err, HS_EINPUT,
                       "-s %s:%dx%d: a group of %d GPUs is more than the %lld %s %s can split "
                       "(min %s over split layers of %s)",
                       st_kind_name(st->kind), st->p1, st->p2, p2, (long long)b.extent, b.what,
                       st->kind == ST_DATA_FILTER ? "filter parallelism" : "spatial parallelism",
                       b.symbol, wl->name);
    }
    return HS_OK;
}

/* The batch must split evenly among the `groups` data-parallel groups. */
static int check_batch_split(const st_strategy *st, int64_t batch, int groups, char *err)
{
    if (groups > batch)
        return hs_fail(err, HS_EINPUT,
                       "-g %d: %s gives %d data-parallel groups a share of the batch, more "
                       "than the %lld samples of -b",
                       st->p, st_kind_name(st->kind), groups, (long long)batch);
    if (batch % groups != 0)
        return hs_fail(err, HS_EINPUT,
                       "-b %lld: the batch must divide evenly among the %d data-parallel "
                       "groups of %s",
                       (long long)batch, groups, st_kind_name(st->kind));
    return HS_OK;
}

int st_check(const st_strategy *st, const wl_workload *wl, int64_t batch, char *err)
{
    if (batch < 1)
        return hs_fail(err, HS_EINPUT, "-b %lld: the batch must be at least 1 sample",
                       (long long)batch);
    if (wl->n_layers < 1)
        return hs_fail(err, HS_EINPUT, "%s: the workload has no layers", wl->path);
    switch (st->kind) {
    case ST_SERIAL:
        return st->p == 1 ? HS_OK
                          : hs_fail(err, HS_EINPUT, "-g %d: serial runs on exactly one GPU",
                                    st->p);
    case ST_DATA:
        return check_batch_split(st, batch, st->p, err);
    case ST_SPATIAL:
    case ST_FILTER:
    case ST_CHANNEL:
        return check_model_part(st, wl, st->p, err);
    case ST_PIPELINE:
        if (st->p > wl->n_layers)
            return hs_fail(err, HS_EINPUT,
                           "-g %d: pipeline parallelism needs at least one layer per GPU, and "
                           "%s has %d layers",
                           st->p, wl->name, wl->n_layers);
        if (st->segments > batch || batch % st->segments != 0)
            return hs_fail(err, HS_EINPUT,
                           "-b %lld: the batch must divide evenly into the pipeline's %d "
                           "micro-batches",
                           (long long)batch, st->segments);
        return HS_OK;
    case ST_DATA_FILTER:
    case ST_DATA_SPATIAL: {
        int status = check_batch_split(st, batch, st->p1, err);
        return status != HS_OK ? status : check_model_part(st, wl, st->p2, err);
    }
    case ST_LAYERWISE:
        if (!st->plan)
            return hs_fail(err, HS_EINTERNAL, "a layer-wise strategy without its plan");
        return st_plan_check(st->plan, wl, st->p, batch, err);
    default:
        return hs_fail(err, HS_EINTERNAL, "strategy kind %d not handled", (int)st->kind);
    }
}
