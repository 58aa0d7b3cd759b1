/* work.c: FLOPs, bytes and matrix products of a layer's kernels at one GPU's shape (work.h).
 *
 * Two steps. lw_shape_of cuts the layer: samples, channels (whole groups for a grouped
 * convolution), spatial extents (the input a windowed layer needs for its output rows, halo
 * included). lw_kernel_of then counts one pass of that shape, per layer type, with the
 * formulas of workloads/README.md ("Layer work"). Counts are doubles: a 64-sample CosmoFlow
 * convolution holds more than 2^53 FLOPs only far beyond any GPU's memory, and the model that
 * reads them is a double anyway. */
#include "work.h"

#include <string.h>

static int64_t ceil_div(int64_t a, int64_t b)
{
    return (a + b - 1) / b;
}

static int64_t groups_of(const wl_layer *l)
{
    return l->type == WL_CONV && l->groups > 1 ? l->groups : 1;
}

lw_split lw_whole(int64_t samples)
{
    lw_split s = {.samples = samples, .out_parts = 1, .in_parts = 1};
    for (int i = 0; i < WL_MAX_SPATIAL; i++)
        s.spatial_parts[i] = 1;
    return s;
}

const char *lw_pass_name(lw_pass pass)
{
    static const char *const names[LW_PASS_COUNT] = {"forward", "input gradient",
                                                     "weight gradient"};
    return (unsigned)pass < LW_PASS_COUNT ? names[pass] : "?";
}

/* A cut of `parts` along a dimension of `extent`: 1 .. extent parts. */
static int check_parts(const wl_layer *l, const char *what, int64_t parts, int64_t extent,
                       char *err)
{
    if (parts < 1 || parts > extent)
        return hs_fail(err, HS_EINPUT, "layer %s: %lld parts of its %s (%lld): must be 1 to %lld",
                       l->name, (long long)parts, what, (long long)extent, (long long)extent);
    return HS_OK;
}

/* Channels of a layer cut out_parts ways (outputs) and in_parts ways (inputs). A grouped
 * convolution is cut along whole groups, so C' and F' keep their ratio; a dense layer's two
 * cuts are independent (channel parallelism computes partial sums of all outputs). */
static int cut_channels(const wl_layer *l, const lw_split *s, lw_shape *sh, char *err)
{
    int64_t c = l->type == WL_FC ? l->x_elems : l->x.channels, f = l->y.channels;
    int64_t g = groups_of(l);
    int keeps_channels = l->type != WL_CONV && l->type != WL_FC && l->type != WL_DECONV;
    int rc;
    if (keeps_channels && s->in_parts != 1)
        return hs_fail(err, HS_EINPUT, "layer %s: a %s layer keeps its channels: cut them with "
                       "out_parts, not in_parts", l->name, wl_type_name(l->type));
    if ((rc = check_parts(l, "output channels", s->out_parts, f, err)) ||
        (rc = check_parts(l, "input channels", s->in_parts, c, err)))
        return rc;
    if (g > 1) {
        int64_t cut = s->out_parts * s->in_parts;
        if (cut > g)
            return hs_fail(err, HS_EINPUT, "layer %s: %lld parts of its %lld groups: a cut "
                           "inside a group is not modelled", l->name, (long long)cut,
                           (long long)g);
        sh->groups = ceil_div(g, cut);
        sh->in_channels = sh->groups * (c / g);
        sh->out_channels = sh->groups * (f / g);
        return HS_OK;
    }
    sh->groups = 1;
    sh->out_channels = ceil_div(f, s->out_parts);
    sh->in_channels = keeps_channels ? sh->out_channels : ceil_div(c, s->in_parts);
    return HS_OK;
}

/* Spatial extents cut per output extent; a windowed layer (conv, pool) reads the input rows
 * its window covers for its output rows, (Y' - 1) stride + K, at most the whole input. */
static int cut_spatial(const wl_layer *l, const lw_split *s, lw_shape *sh, char *err)
{
    int windowed = l->type == WL_CONV || l->type == WL_POOL || l->type == WL_DECONV;
    sh->x_spatial = sh->y_spatial = sh->kernel = 1;
    for (int d = 0; d < WL_MAX_SPATIAL; d++)
        sh->y_extent[d] = 1;
    for (int d = 0; d < l->x.n_spatial; d++) {
        int64_t parts = s->spatial_parts[d], x = l->x.spatial[d], y = l->y.spatial[d];
        if (l->type == WL_FC && parts != 1)
            return hs_fail(err, HS_EINPUT, "layer %s: a fully connected layer has no spatial "
                           "extents to cut", l->name);
        int rc = check_parts(l, "spatial extent", parts, y, err);
        if (rc)
            return rc;
        int64_t y_part = ceil_div(y, parts), x_part = x;
        if (parts > 1) {
            int64_t need = windowed ? (y_part - 1) * l->stride + l->w_kernel[d] : y_part;
            x_part = need < x ? need : x;
        }
        sh->x_spatial *= x_part;
        sh->y_spatial *= y_part;
        sh->y_extent[d] = y_part;
        if (windowed)
            sh->kernel *= l->w_kernel[d];
    }
    if (l->type == WL_FC) /* a flattened input: its features are the channels */
        sh->x_spatial = sh->y_spatial = 1;
    return HS_OK;
}

int lw_shape_of(const wl_workload *wl, int index, const lw_split *split, lw_shape *shape,
                char *err)
{
    if (index < 0 || index >= wl->n_layers)
        return hs_fail(err, HS_EINTERNAL, "layer %d of %d", index, wl->n_layers);
    const wl_layer *l = &wl->layers[index];
    memset(shape, 0, sizeof *shape);
    if (split->samples < 1)
        return hs_fail(err, HS_EINPUT, "layer %s: %lld samples per GPU: must be at least 1",
                       l->name, (long long)split->samples);
    shape->samples = split->samples;
    if ((l->type == WL_EMBED || l->type == WL_LSTM) &&
        (split->out_parts != 1 || split->in_parts != 1 || split->spatial_parts[0] != 1 ||
         split->spatial_parts[1] != 1 || split->spatial_parts[2] != 1))
        return hs_fail(err, HS_EINPUT, "layer %s: an %s layer is not split over its channels "
                       "or positions (%s): split its batch only", l->name,
                       wl_type_name(l->type),
                       l->type == WL_EMBED ? "its table's rows are looked up whole"
                                           : "each step needs the last one's whole state");
    /* A transposed convolution's output rows need input rows (y' + K - 1) / stride, not a
     * convolution's halo, and its channel cuts are a plan's business nobody has written (an
     * upsample's rows y' / factor likewise): split by batch only, and say so rather than time
     * a cut nobody modelled. */
    if ((l->type == WL_DECONV || l->type == WL_UPSAMPLE) &&
        (split->out_parts != 1 || split->in_parts != 1 || split->spatial_parts[0] != 1 ||
         split->spatial_parts[1] != 1 || split->spatial_parts[2] != 1))
        return hs_fail(err, HS_EINPUT, "layer %s: %s layer is split by batch only (cuts "
                       "of its channels or extents are not modelled)", l->name,
                       l->type == WL_DECONV ? "a deconv" : "an upsample");
    int rc = cut_channels(l, split, shape, err);
    return rc ? rc : cut_spatial(l, split, shape, err);
}
