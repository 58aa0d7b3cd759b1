/* generate.c: published schemes and the built-in strategies as per-layer plans (generate.h).
 *
 * Each generator fills one configuration per layer; the plan is then checked like a file, so a
 * generator cannot write what a file could not say. The built-in strategies follow the
 * configuration table of the layer-wise research notes (6.1): split layers on the strategy's
 * split, the others replicated in their group; what ParaDL's closed form charges beyond the
 * data layout (the unmarked layers of a spatial region computed whole, every replica's
 * gradient reduced in a spatial group) is said in the plan with charge="whole" and
 * replica_gradients="reduce", so that a file says everything it is priced by. */
#include "generate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compute.h"
#include "hs_parse.h"

/* ------------------------------------------------------------------ built-in strategies */

static bool marked(const wl_layer *l, unsigned bit) { return (l->split_mask & bit) != 0; }

/* Layers split on their filters or input channels (filter, channel, data+filter): p1 batch
 * blocks, the marked layers cut p2 ways, the others replicated in the group. */
static void plan_model(const wl_workload *wl, const st_strategy *st, st_plan *plan)
{
    unsigned bit = st_split_bit(st->kind);
    for (int i = 0; i < wl->n_layers; i++) {
        st_layer_config *c = &plan->layers[i];
        c->batch = st->p1;
        if (!marked(&wl->layers[i], bit) || st->p2 == 1)
            c->replicas = st->p2;
        else if (st->kind == ST_CHANNEL)
            c->channel = st->p2;
        else
            c->filter = st->p2;
    }
}

/* The last layer of a spatial region: the last marked layer before the first layer that
 * reshapes (whose cut plan.c refuses), then on through the weightless
 * layers that keep its output (ResNet's last batch norm, residual add and ReLU), so that the
 * slabs are gathered once, at the first layer that changes the tensor, sized like the split
 * point's output as ParaDL sizes it. */
static int region_end(const wl_workload *wl, unsigned bit)
{
    int end = -1;
    for (int i = 0; i < wl->n_layers && !wl_reshapes(wl->layers[i].type); i++)
        if (marked(&wl->layers[i], bit))
            end = i;
    while (end >= 0 && end + 1 < wl->n_layers) {
        const wl_layer *next = &wl->layers[end + 1], *sp = &wl->layers[end];
        bool same = next->y.channels == sp->y.channels && next->y_elems == sp->y_elems;
        if (next->w_elems > 0 || !same || st_has_filters(next) || wl_reshapes(next->type))
            break;
        end++;
    }
    return end;
}

/* Spatial and data+spatial: the region's layers cut by width p2 (the unmarked ones charged
 * whole, as ParaDL charges them), the rest replicated in the group; every weight gradient is
 * reduced in the group, then across the groups. */
static void plan_spatial(const wl_workload *wl, const st_strategy *st, st_plan *plan)
{
    int end = st->p2 > 1 ? region_end(wl, WL_SPLIT_SPATIAL) : -1;
    for (int i = 0; i < wl->n_layers; i++) {
        st_layer_config *c = &plan->layers[i];
        c->batch = st->p1;
        if (i <= end) {
            c->width = st->p2;
            c->whole = !marked(&wl->layers[i], WL_SPLIT_SPATIAL);
        } else {
            c->replicas = st->p2;
        }
    }
    plan->reduce_replicas = st->p2 > 1;
}

/* GPipe: stage s of st_pipeline_partition on rank s. */
static int plan_pipeline(const wl_workload *wl, const kt_compute *kc, const st_strategy *st,
                         int64_t batch, st_plan *plan, char *err)
{
    int *first = malloc((size_t)(st->p + 1) * sizeof *first);
    if (!first)
        return hs_fail(err, HS_EINTERNAL, "out of memory partitioning %d stages", st->p);
    int status = st_pipeline_partition(wl, kc, (double)batch / st->segments, st->p, first, err);
    for (int s = 0; status == HS_OK && s < st->p; s++)
        for (int i = first[s]; i < first[s + 1]; i++)
            plan->layers[i].base = s;
    plan->micro_batches = st->segments;
    free(first);
    return status;
}

int st_plan_of(const wl_workload *wl, const kt_compute *kc, const st_strategy *st, int64_t batch,
               st_plan *plan, char *err)
{
    if (st->kind == ST_LAYERWISE)
        return hs_fail(err, HS_EINTERNAL, "st_plan_of: already a plan");
    int status = st_plan_init(plan, wl->n_layers, st->p, err);
    if (status != HS_OK)
        return status;
    snprintf(plan->workload, sizeof plan->workload, "%s", wl->name);
    plan->train = st->train; /* it trains as the strategy did */
    switch (st->kind) {
    case ST_SERIAL:
    case ST_DATA:
        for (int i = 0; i < wl->n_layers; i++)
            plan->layers[i].batch = st->p;
        break;
    case ST_FILTER:
    case ST_CHANNEL:
    case ST_DATA_FILTER:
        plan_model(wl, st, plan);
        break;
    case ST_SPATIAL:
    case ST_DATA_SPATIAL:
        plan_spatial(wl, st, plan);
        break;
    case ST_PIPELINE:
        status = plan_pipeline(wl, kc, st, batch, plan, err);
        break;
    default:
        status = hs_fail(err, HS_EINTERNAL, "st_plan_of: kind %d", (int)st->kind);
    }
    if (status != HS_OK)
        st_plan_free(plan);
    return status;
}

/* ------------------------------------------------------------------ published schemes */

/* The first fully connected layer, -1 if none. */
static int first_fc(const wl_workload *wl)
{
    for (int i = 0; i < wl->n_layers; i++)
        if (wl->layers[i].type == WL_FC)
            return i;
    return -1;
}

/* SplitBrain:G (OWT is G = p): everything before the first fc data-parallel over p, from it on
 * groups of G: fc layers split on outputs where G divides them (else replicated), the layers
 * between and after replicated in the group. */
static int plan_splitbrain(const wl_workload *wl, int p, int g, st_plan *plan, char *err)
{
    int fc = first_fc(wl);
    if (fc < 0)
        return hs_fail(err, HS_EINPUT, "--generate: %s has no fully connected layer to shard",
                       wl->name);
    for (int i = 0; i < wl->n_layers; i++) {
        const wl_layer *l = &wl->layers[i];
        st_layer_config *c = &plan->layers[i];
        c->batch = i < fc ? p : p / g;
        if (i < fc || g == 1)
            continue;
        if (l->type == WL_FC && l->y.channels % g == 0)
            c->filter = g;
        else
            c->replicas = g;
    }
    return HS_OK;
}

/* GHP:G: groups of G that split every conv and fc whose filters G divides, replicate the
 * rest; data-parallel across the p/G groups. */
static void plan_ghp(const wl_workload *wl, int p, int g, st_plan *plan)
{
    for (int i = 0; i < wl->n_layers; i++) {
        const wl_layer *l = &wl->layers[i];
        st_layer_config *c = &plan->layers[i];
        c->batch = p / g;
        if (g == 1)
            continue;
        if (st_has_filters(l) && l->y.channels % g == 0)
            c->filter = g;
        else
            c->replicas = g;
    }
}

/* "splitbrain:4" -> 4; "owt" -> p; "ghp" without G is the caller's to resolve. */
static int group_of(const char *spec, const char *name, int p, int *g, char *err)
{
    const char *colon = strchr(spec, ':');
    if (!colon) {
        if (strcmp(name, "owt") == 0) {
            *g = p;
            return HS_OK;
        }
        if (strcmp(name, "splitbrain") == 0) { /* a group per node is the paper's setting */
            *g = 0;
            return HS_OK;
        }
        return hs_fail(err, HS_EINPUT, "--generate %s: give the group size as %s:G", spec, name);
    }
    int64_t v = 0;
    if (hs_parse_whole(colon + 1, strlen(colon + 1), 1, p, &v) != HS_NUM_OK)
        return hs_fail(err, HS_EINPUT, "--generate %s: the group size after ':' must be a "
                       "whole number from 1 to -g %d", spec, p);
    if (p % v != 0)
        return hs_fail(err, HS_EINPUT, "--generate %s: groups of %lld GPUs do not divide -g %d",
                       spec, (long long)v, p);
    *g = (int)v;
    return HS_OK;
}

static int generate_scheme(const char *spec, const char *name, const wl_workload *wl, int p,
                           int gpus_per_node, st_plan *plan, char *err)
{
    int g = 0;
    int status = group_of(spec, name, p, &g, err);
    if (status != HS_OK)
        return status;
    if (g == 0) /* splitbrain without G: a node's GPUs, when they divide p */
        g = gpus_per_node > 0 && p % gpus_per_node == 0 ? gpus_per_node : 1;
    status = st_plan_init(plan, wl->n_layers, p, err);
    if (status != HS_OK)
        return status;
    if (strcmp(name, "ghp") == 0)
        plan_ghp(wl, p, g, plan);
    else
        status = plan_splitbrain(wl, p, g, plan, err);
    if (status != HS_OK)
        st_plan_free(plan);
    else if (strchr(spec, ':') || strcmp(name, "owt") == 0)
        snprintf(plan->name, sizeof plan->name, "%s", spec);
    else
        snprintf(plan->name, sizeof plan->name, "%.20s:%d", name, g);
    return status;
}

static bool builtin_name(const char *name)
{
    for (int k = 0; k < ST_LAYERWISE; k++)
        if (!strcmp(name, st_kind_name((st_kind)k)))
            return true;
    return false;
}

int st_generate(const char *spec, const wl_workload *wl, const kt_compute *kc, int p,
                int64_t batch, int gpus_per_node, int micro_batches, st_plan *plan, char *err)
{
    memset(plan, 0, sizeof *plan);
    char name[ST_PLAN_NAME_LEN];
    snprintf(name, sizeof name, "%.*s", (int)strcspn(spec, ":"), spec);
    int status;
    if (!strcmp(name, "owt") || !strcmp(name, "splitbrain") || !strcmp(name, "ghp")) {
        status = generate_scheme(spec, name, wl, p, gpus_per_node, plan, err);
    } else if (!builtin_name(name)) {
        status = HS_EINPUT;
        hs_fail(err, HS_EINPUT, "--generate %s: unknown scheme (known: owt, splitbrain[:G], "
                "ghp[:G], serial, data, filter, channel, spatial, pipeline, "
                "data+filter[:P1xP2], data+spatial[:P1xP2])", spec);
    } else {
        st_strategy st;
        status = st_parse(spec, p, gpus_per_node, micro_batches, &st, err);
        if (status == HS_OK)
            status = st_check(&st, wl, batch, err);
        if (status == HS_OK)
            status = st_plan_of(wl, kc, &st, batch, plan, err);
        if (status == HS_OK)
            snprintf(plan->name, sizeof plan->name, "%s", spec);
    }
    if (status == HS_EINPUT && strncmp(err, "-s ", 3) == 0) { /* st_parse names -s */
        char said[HS_ERR_LEN];
        snprintf(said, sizeof said, "%s", err + 3);
        return hs_fail(err, HS_EINPUT, "--generate %s", said);
    }
    if (status != HS_OK)
        return status;
    snprintf(plan->workload, sizeof plan->workload, "%s", wl->name);
    status = st_plan_check(plan, wl, p, batch, err);
    if (status != HS_OK)
        st_plan_free(plan);
    return status;
}

const char *st_generate_description(const char *spec)
{
    if (!strncmp(spec, "owt", 3))
        return "OWT (Krizhevsky 2014, scheme (a)): the layers before the first fully connected "
               "one data-parallel over all GPUs, the fully connected part split on output "
               "neurons over all of them (generated by hybridsim strategy --generate).";
    if (!strncmp(spec, "splitbrain", 10))
        return "SplitBrain (Lai, Kadav, Kruus 2021) as hybridsim reads its abstract: "
               "convolutions data-parallel over all GPUs, fully connected layers sharded on "
               "output neurons inside groups of G consecutive GPUs, the groups data-parallel "
               "(generated by hybridsim strategy --generate).";
    if (!strncmp(spec, "ghp", 3))
        return "Group hybrid parallelism as hybridsim reads it: groups of G GPUs split every "
               "conv and fc layer whose filters G divides, the other layers replicated in the "
               "group, the groups data-parallel (generated by hybridsim strategy --generate).";
    return "A built-in strategy written as a per-layer plan: it gives the same numbers as -s "
           "with its name (generated by hybridsim strategy --generate).";
}
