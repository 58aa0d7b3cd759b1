/* plan.c: per-layer configurations: rank coordinates and the checks a plan must pass (plan.h).
 *
 * Every rule about what a configuration may say lives here once, because both derivations and
 * every way of making a plan (a file, a generator, a search) rely on it. Messages name the file
 * and line when the configuration came from a file, the layer always, and the flag (-g, -b)
 * when the conflict is with what the user typed. */
#include "plan.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

st_layer_config st_layer_default(void)
{
    return (st_layer_config){.batch = 1, .filter = 1, .channel = 1, .height = 1, .width = 1,
                             .depth = 1, .replicas = 1};
}

int st_group_size(const st_layer_config *c)
{
    return c->batch * c->replicas * c->channel * c->filter * c->depth * c->height * c->width;
}

int st_model_ways(const st_layer_config *c)
{
    return c->whole ? 1 : c->filter * c->channel * c->depth * c->height * c->width;
}

st_coords st_strides(const st_layer_config *c)
{
    st_coords s;
    s.w = 1;
    s.h = c->width;
    s.d = s.h * c->height;
    s.f = s.d * c->depth;
    s.c = s.f * c->filter;
    s.r = s.c * c->channel;
    s.b = s.r * c->replicas;
    return s;
}

st_coords st_coords_of(const st_layer_config *c, int rank_in_group)
{
    st_coords k;
    int r = rank_in_group;
    k.w = r % c->width, r /= c->width;
    k.h = r % c->height, r /= c->height;
    k.d = r % c->depth, r /= c->depth;
    k.f = r % c->filter, r /= c->filter;
    k.c = r % c->channel, r /= c->channel;
    k.r = r % c->replicas, r /= c->replicas;
    k.b = r;
    return k;
}

int st_rank_in_group(const st_layer_config *c, st_coords k)
{
    st_coords s = st_strides(c);
    return k.b * s.b + k.r * s.r + k.c * s.c + k.f * s.f + k.d * s.d + k.h * s.h + k.w * s.w;
}

bool st_has_filters(const wl_layer *l)
{
    return l->type == WL_CONV || l->type == WL_FC;
}

int st_plan_init(st_plan *plan, int n_layers, int gpus, char *err)
{
    memset(plan, 0, sizeof *plan);
    plan->layers = malloc((size_t)(n_layers > 0 ? n_layers : 1) * sizeof *plan->layers);
    if (!plan->layers)
        return hs_fail(err, HS_EINTERNAL, "out of memory for %d layer configurations", n_layers);
    plan->n_layers = n_layers;
    plan->gpus = gpus;
    for (int i = 0; i < n_layers; i++)
        plan->layers[i] = st_layer_default();
    return HS_OK;
}

int st_plan_copy(const st_plan *from, st_plan *to, char *err)
{
    *to = *from;
    to->layers = malloc((size_t)(from->n_layers > 0 ? from->n_layers : 1) * sizeof *to->layers);
    if (!to->layers)
        return hs_fail(err, HS_EINTERNAL, "out of memory for %d layer configurations",
                       from->n_layers);
    if (from->n_layers > 0)
        memcpy(to->layers, from->layers, (size_t)from->n_layers * sizeof *to->layers);
    return HS_OK;
}

bool st_plan_same(const st_plan *a, const st_plan *b)
{
    if (a->n_layers != b->n_layers || a->gpus != b->gpus ||
        a->micro_batches != b->micro_batches || a->reduce_replicas != b->reduce_replicas ||
        a->allreduce != b->allreduce || a->halo_sendrecv != b->halo_sendrecv ||
        a->filter_allreduce != b->filter_allreduce || a->cycle_time_s != b->cycle_time_s)
        return false;
    for (int i = 0; i < a->n_layers; i++) {
        const st_layer_config *x = &a->layers[i], *y = &b->layers[i];
        if (x->batch != y->batch || x->filter != y->filter || x->channel != y->channel ||
            x->height != y->height || x->width != y->width || x->depth != y->depth ||
            x->replicas != y->replicas || x->base != y->base || x->whole != y->whole)
            return false;
    }
    return true;
}

void st_plan_free(st_plan *plan)
{
    free(plan->layers);
    plan->layers = NULL;
    plan->n_layers = 0;
}

/* ------------------------------------------------------------------ checks */

/* "FILE:LINE: layer ID: " or "layer ID: " into prefix. */
static void where(const st_plan *plan, const wl_layer *l, const st_layer_config *c,
                  char *prefix, size_t len)
{
    if (c->line > 0 && plan->path[0])
        snprintf(prefix, len, "%s:%d: layer %s: ", plan->path, c->line, l->id);
    else
        snprintf(prefix, len, "layer %s: ", l->id);
}

static int fail_layer(const st_plan *plan, const wl_layer *l, const st_layer_config *c,
                      char *err, const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static int fail_layer(const st_plan *plan, const wl_layer *l, const st_layer_config *c,
                      char *err, const char *fmt, ...)
{
    char prefix[1200], what[HS_ERR_LEN];
    where(plan, l, c, prefix, sizeof prefix);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return hs_fail(err, HS_EINPUT, "%s%s", prefix, what);
}

/* The dimensions the layer's type has: filter for conv and fc, spatial extents for layers
 * with an image output, depth for volumes, channel splits of a concat's joined axis never, of
 * a layernorm's normalised axis never, and no cut but batch of a layer that reshapes. */
static int check_dims(const st_plan *plan, const wl_layer *l, const st_layer_config *c,
                      char *err)
{
    const int *f[] = {&c->batch, &c->filter, &c->channel, &c->height, &c->width, &c->depth,
                      &c->replicas};
    static const char *const names[] = {"batch", "filter", "channel", "height", "width",
                                        "depth", "replicas"};
    for (int i = 0; i < 7; i++)
        if (*f[i] < 1)
            return fail_layer(plan, l, c, err, "%s=%d: a factor is at least 1", names[i], *f[i]);
    if (c->base < 0)
        return fail_layer(plan, l, c, err, "base=%d: ranks start at 0", c->base);
    bool sequence = l->type == WL_EMBED || l->type == WL_LSTM;
    if (sequence && c->filter * c->channel * c->height * c->width * c->depth > 1)
        return fail_layer(plan, l, c, err, "an %s layer splits its batch only (%s)",
                          wl_type_name(l->type), l->type == WL_EMBED
                              ? "its table's rows are looked up whole"
                              : "each step needs the last one's whole state");
    if (l->type == WL_DECONV && c->filter * c->channel * c->height * c->width * c->depth > 1)
        return fail_layer(plan, l, c, err, "a deconv layer splits its batch only (cuts of its "
                          "channels or extents are not modelled; replicas= runs it whole)");
    if (c->filter > 1 && !st_has_filters(l))
        return fail_layer(plan, l, c, err, "filter=%d: only conv and fc layers have filters; a %s "
                          "layer splits its channels with channel=", c->filter,
                          wl_type_name(l->type));
    if (c->channel > 1 && l->type == WL_CONCAT)
        return fail_layer(plan, l, c, err, "channel=%d: a concat joins its inputs' channels and "
                          "cannot split them", c->channel);
    if (wl_reshapes(l->type) && c->channel * c->height * c->width * c->depth > 1)
        return fail_layer(plan, l, c, err, "%s %s layer gives its output another shape than its "
                          "input's, so a cut of its channels or extents is not modelled "
                          "(channel, height, width and depth must be 1; replicas= runs it "
                          "whole)", l->type == WL_UPSAMPLE ? "an" : "a",
                          wl_type_name(l->type));
    if (l->type == WL_LAYERNORM && c->channel > 1)
        return fail_layer(plan, l, c, err, "channel=%d: a layernorm's statistics span the "
                          "channels and are not split (its extents may be)", c->channel);
    bool flat = l->type == WL_FC || l->type == WL_SOFTMAX;
    if (flat && c->height * c->width * c->depth > 1)
        return fail_layer(plan, l, c, err, "a %s layer has no output extent to split (height, "
                          "width and depth must be 1)", wl_type_name(l->type));
    if (c->depth > 1 && l->y.n_spatial < 3)
        return fail_layer(plan, l, c, err, "depth=%d: only volumes (CxWxHxD) have a depth",
                          c->depth);
    return HS_OK;
}

/* A factor must divide its extent (batch, filters, channels) or not exceed it (spatial). */
static int check_extents(const st_plan *plan, const wl_workload *wl, int index,
                         const st_layer_config *c, int64_t batch, char *err)
{
    const wl_layer *l = &wl->layers[index];
    if (batch % c->batch != 0)
        return fail_layer(plan, l, c, err, "batch=%d does not divide the mini-batch of %lld "
                          "samples (-b %lld)", c->batch, (long long)batch, (long long)batch);
    if (c->filter > 1 && l->y.channels % c->filter != 0)
        return fail_layer(plan, l, c, err, "filter=%d does not divide its %lld filters",
                          c->filter, (long long)l->y.channels);
    bool reads_input = index == 0 && l->n_inputs == 0;
    if (c->channel > 1 && l->x.channels % c->channel != 0 && !reads_input)
        return fail_layer(plan, l, c, err, "channel=%d does not divide its %lld input channels",
                          c->channel, (long long)l->x.channels);
    const int split[3] = {c->width, c->height, c->depth};
    static const char *const names[3] = {"width", "height", "depth"};
    for (int d = 0; d < 3 && d < l->y.n_spatial; d++)
        if (split[d] > l->y.spatial[d])
            return fail_layer(plan, l, c, err, "%s=%d is more than its output's %lld %s%s",
                              names[d], split[d], (long long)l->y.spatial[d],
                              d == 0 ? "column" : d == 1 ? "row" : "plane",
                              l->y.spatial[d] == 1 ? "" : "s");
    return HS_OK;
}

/* With a schedule: every layer on one rank, each stage a run of consecutive layers. */
static int check_schedule(const st_plan *plan, const wl_workload *wl, int64_t batch, char *err)
{
    const char *path = plan->path[0] ? plan->path : "strategy";
    if (batch % plan->micro_batches != 0 || plan->micro_batches > batch)
        return hs_fail(err, HS_EINPUT, "%s:%d: -b %lld does not divide into the schedule's %d "
                       "micro-batches", path, plan->line, (long long)batch, plan->micro_batches);
    for (int i = 0; i < plan->n_layers; i++) {
        const st_layer_config *c = &plan->layers[i];
        if (st_group_size(c) != 1)
            return fail_layer(plan, &wl->layers[i], c, err, "with a schedule every layer runs on "
                              "one GPU (its stage), not a group of %d", st_group_size(c));
        if (i == 0 || c->base == plan->layers[i - 1].base)
            continue;
        for (int j = 0; j < i - 1; j++) /* a new stage: its rank must not have run one before */
            if (plan->layers[j].base == c->base)
                return fail_layer(plan, &wl->layers[i], c, err, "rank %d already ran the stage "
                                  "of layer %s: a stage is a run of consecutive layers", c->base,
                                  wl->layers[j].id);
    }
    return HS_OK;
}

int st_plan_check(const st_plan *plan, const wl_workload *wl, int gpus, int64_t batch,
                  char *err)
{
    const char *path = plan->path[0] ? plan->path : "strategy";
    if (plan->n_layers != wl->n_layers)
        return hs_fail(err, HS_EINTERNAL, "%s: %d configurations for the %d layers of %s", path,
                       plan->n_layers, wl->n_layers, wl->name);
    if (plan->gpus != gpus)
        return hs_fail(err, HS_EINPUT, "%s:%d: the strategy is for %d GPUs (gpus=\"%d\"), but -g "
                       "is %d", path, plan->line, plan->gpus, plan->gpus, gpus);
    int top = 0;
    for (int i = 0; i < plan->n_layers; i++) {
        const st_layer_config *c = &plan->layers[i];
        int status = check_dims(plan, &wl->layers[i], c, err);
        if (status == HS_OK)
            status = check_extents(plan, wl, i, c, batch, err);
        if (status != HS_OK)
            return status;
        int q = st_group_size(c);
        if ((int64_t)c->base + q > gpus)
            return fail_layer(plan, &wl->layers[i], c, err, "its group of %d GPUs from rank %d "
                              "goes past the %d GPUs of -g %d", q, c->base, gpus, gpus);
        if (c->base + q > top)
            top = c->base + q;
    }
    if (top < gpus) /* groups start anywhere, so the highest rank used tells idle GPUs */
        return hs_fail(err, HS_EINPUT, "%s:%d: the layers use ranks 0..%d of the %d GPUs of -g "
                       "%d: the others would sit idle (give gpus=\"%d\", or groups that use "
                       "them)", path, plan->line, top - 1, gpus, gpus, top);
    return plan->micro_batches > 0 ? check_schedule(plan, wl, batch, err) : HS_OK;
}

void st_plan_stages(const st_plan *plan, int *first, int *rank_of_stage, int *n_stages)
{
    int n = 0;
    for (int i = 0; i < plan->n_layers; i++) {
        if (i > 0 && plan->layers[i].base == plan->layers[i - 1].base)
            continue;
        if (rank_of_stage)
            rank_of_stage[n] = plan->layers[i].base;
        first[n++] = i;
    }
    first[n] = plan->n_layers;
    *n_stages = n;
}

void st_plan_shape(const st_plan *plan, int *p1, int *p2)
{
    if (plan->micro_batches > 0) {
        *p1 = 1;
        *p2 = plan->gpus;
        return;
    }
    int width = 1;
    for (int i = 0; i < plan->n_layers; i++) {
        const st_layer_config *c = &plan->layers[i];
        int w = c->replicas * c->filter * c->channel * c->height * c->width * c->depth;
        if (w > width)
            width = w;
    }
    *p2 = width;
    *p1 = plan->gpus % width == 0 ? plan->gpus / width : 1;
}
