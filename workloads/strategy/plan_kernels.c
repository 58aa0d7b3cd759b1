/* plan_kernels.c: the kernels one rank runs for a layer under a per-layer configuration
 * (plan.h, st_layer_kernels_s): the measured per-sample times scaled linearly by the rank's
 * samples and cut, or, with --compute model (kc), each kernel at the rank's real
 * shape (workloads/compute/compute.h); and under a built-in strategy with --compute model
 * (strategy.h, st_builtin_kernels_s). The analytic model and the expansion both take their
 * kernel times from here, so compute is the same number on both sides. */
#include "plan.h"
#include "strategy.h"

#include <math.h>

#include "compute.h"

/* How one rank's part of layer ly is cut under c (work.h): its samples, its filters and input
 * channels (a layer without weights keeps its channels: a channel cut cuts them as its output),
 * and its spatial extents. A layer charged whole is cut too: its input is in slabs, and the
 * model times what the GPU computes (charge="whole" is ParaDL's accounting, for measured
 * times). */
static lw_split cut_of(const wl_layer *ly, const st_layer_config *c, double samples)
{
    lw_split cut = lw_whole((int64_t)llround(samples));
    bool weighted = ly->type == WL_CONV || ly->type == WL_FC || ly->type == WL_DECONV;
    cut.out_parts = c->filter * (weighted ? 1 : c->channel);
    cut.in_parts = weighted ? c->channel : 1;
    cut.spatial_parts[0] = c->width;
    cut.spatial_parts[1] = c->height;
    cut.spatial_parts[2] = c->depth;
    return cut;
}

/* The model's forward, input-gradient and weight-gradient kernels of layer l at `cut`. */
static int passes_s(const wl_workload *wl, const kt_compute *kc, int l, const lw_split *cut,
                    double *fw_s, double *dx_s, double *dw_s, char *err)
{
    *fw_s = *dx_s = *dw_s = 0;
    int rc = kt_compute_pass_s(kc, wl, l, cut, LW_FORWARD, fw_s, err);
    if (rc == HS_OK)
        rc = kt_compute_pass_s(kc, wl, l, cut, LW_INPUT_GRAD, dx_s, err);
    if (rc == HS_OK)
        rc = kt_compute_pass_s(kc, wl, l, cut, LW_WEIGHT_GRAD, dw_s, err);
    return rc;
}

int st_layer_kernels_s(const wl_workload *wl, const kt_compute *kc, int l, const st_layer_config *c,
                       double batch, double *fw_s, double *bx_s, double *bw_s, char *err)
{
    const wl_layer *ly = &wl->layers[l];
    double samples = batch / c->batch;
    bool weights = ly->w_elems > 0;
    if (!kc) {
        double ways = st_model_ways(c), b_s = ly->bw_s * samples / ways;
        *fw_s = ly->fw_s * samples / ways;
        *bx_s = weights ? b_s * 0.5 : b_s; /* half input gradient, half weight gradient */
        *bw_s = weights ? b_s * 0.5 : 0.0;
        return HS_OK;
    }
    lw_split cut = cut_of(ly, c, samples);
    double dw_s = 0;
    int rc = passes_s(wl, kc, l, &cut, fw_s, bx_s, &dw_s, err);
    *bw_s = weights ? dw_s : 0.0;
    *bx_s += weights ? 0.0 : dw_s;
    return rc;
}

/* The layers a built-in spatial strategy keeps in slabs: from its first split layer to its
 * last (the split point, where the slabs are gathered). */
static bool in_spatial_region(const wl_workload *wl, unsigned bit, int l)
{
    bool before = false, after = false;
    for (int i = 0; i <= l && !before; i++)
        before = (wl->layers[i].split_mask & bit) != 0;
    for (int i = l; i < wl->n_layers && !after; i++)
        after = (wl->layers[i].split_mask & bit) != 0;
    return before && after;
}

static lw_split builtin_cut(const wl_workload *wl, st_kind kind, int p2, double samples, int l)
{
    lw_split cut = lw_whole((int64_t)llround(samples));
    unsigned bit = st_split_bit(kind);
    bool spatial = kind == ST_SPATIAL || kind == ST_DATA_SPATIAL;
    if (p2 <= 1 || !bit)
        return cut;
    if (spatial && in_spatial_region(wl, bit, l))
        cut.spatial_parts[0] = p2;
    else if (!(wl->layers[l].split_mask & bit))
        return cut;
    else if (kind == ST_CHANNEL)
        cut.in_parts = p2;
    else if (!spatial)
        cut.out_parts = p2;
    return cut;
}

int st_layout_copy_s(const wl_workload *wl, const kt_compute *kc, double elems, double samples,
                     double *seconds, char *err)
{
    int64_t n = (int64_t)llround(samples);
    *seconds = 0;
    if (!kc || n <= 1) /* measured kernels; or one sample: its channels in one piece */
        return HS_OK;
    return kt_compute_copy_s(kc, wl, elems, n, seconds, err);
}

int st_scatter_copies_s(const wl_workload *wl, const kt_compute *kc, double elems, int p,
                        double samples, double *seconds, char *err)
{
    double pack_s = 0, stack_s = 0, sum_s = 0;
    int rc = st_layout_copy_s(wl, kc, elems, samples, &pack_s, err);
    if (rc == HS_OK)
        rc = st_layout_copy_s(wl, kc, elems, samples, &stack_s, err);
    if (rc == HS_OK) /* a copy streams 2 x elems; the sum elems + elems / p */
        rc = st_layout_copy_s(wl, kc, elems * (1.0 + 1.0 / p) / 2.0, samples, &sum_s, err);
    *seconds = pack_s + stack_s + sum_s;
    return rc;
}

/* The layout copies around layer l's activation collectives (strategy.h): after an allgather
 * of channel slices (filter forward, channel backward), one copy of the group's whole output;
 * around a reduce-scatter of them (filter backward with filter_rs), st_scatter_copies_s. */
static int layout_copies_s(const wl_workload *wl, const kt_compute *kc, st_kind kind, int p2,
                           bool filter_rs, double samples, int l, double *fw_s, double *dx_s,
                           char *err)
{
    const wl_layer *ly = &wl->layers[l];
    bool filter = st_split_bit(kind) == WL_SPLIT_FILTER;
    if (!(filter || kind == ST_CHANNEL) || p2 <= 1 || l == wl->n_layers - 1 ||
        !(ly->split_mask & st_split_bit(kind)))
        return HS_OK;
    double whole = llround(samples) * (double)ly->y_elems, copy_s = 0, scatter_s = 0;
    int rc = st_layout_copy_s(wl, kc, whole, samples, &copy_s, err);
    if (rc == HS_OK && filter && filter_rs)
        rc = st_scatter_copies_s(wl, kc, whole, p2, samples, &scatter_s, err);
    *fw_s += filter ? copy_s : 0.0;
    *dx_s += filter ? scatter_s : copy_s;
    return rc;
}

int st_builtin_kernels_s(const wl_workload *wl, const kt_compute *kc, st_kind kind, int p2,
                         bool filter_rs, double samples, int l, double *fw_s, double *dx_s,
                         double *dw_s, char *err)
{
    lw_split cut = builtin_cut(wl, kind, p2, samples, l);
    int rc = passes_s(wl, kc, l, &cut, fw_s, dx_s, dw_s, err);
    if (rc == HS_OK)
        rc = layout_copies_s(wl, kc, kind, p2, filter_rs, samples, l, fw_s, dx_s, err);
    return rc;
}
