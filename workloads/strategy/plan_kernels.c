/* plan_kernels.c: the kernels one rank runs for a layer under a per-layer configuration
 * (plan.h, st_layer_kernels_s): the measured per-sample times scaled linearly by the rank's
 * samples and cut, or, with --compute model (wl->compute), each kernel at the rank's real
 * shape (workloads/compute/compute.h). The analytic model and the expansion both take a plan's
 * kernel times from here, so a plan's compute is the same number on both sides. */
#include "plan.h"

#include <math.h>

#include "compute.h"

/* How one rank's part of layer ly is cut under c (work.h): its samples, its filters and input
 * channels (a layer without weights keeps its channels: a channel cut cuts them as its output),
 * and its spatial extents; a layer charged whole is not cut. */
static lw_split cut_of(const wl_layer *ly, const st_layer_config *c, double samples)
{
    lw_split cut = lw_whole((int64_t)llround(samples));
    if (c->whole)
        return cut;
    bool weighted = ly->type == WL_CONV || ly->type == WL_FC;
    cut.out_parts = c->filter * (weighted ? 1 : c->channel);
    cut.in_parts = weighted ? c->channel : 1;
    cut.spatial_parts[0] = c->width;
    cut.spatial_parts[1] = c->height;
    cut.spatial_parts[2] = c->depth;
    return cut;
}

int st_layer_kernels_s(const wl_workload *wl, int l, const st_layer_config *c, double batch,
                       double *fw_s, double *bx_s, double *bw_s, char *err)
{
    const wl_layer *ly = &wl->layers[l];
    double samples = batch / c->batch;
    bool weights = ly->w_elems > 0;
    if (!wl->compute) {
        double ways = st_model_ways(c), b_s = ly->bw_s * samples / ways;
        *fw_s = ly->fw_s * samples / ways;
        *bx_s = weights ? b_s * 0.5 : b_s; /* half input gradient, half weight gradient */
        *bw_s = weights ? b_s * 0.5 : 0.0;
        return HS_OK;
    }
    lw_split cut = cut_of(ly, c, samples);
    double dw_s = 0;
    int rc = kt_compute_pass_s(wl->compute, wl, l, &cut, LW_FORWARD, fw_s, err);
    if (rc == HS_OK)
        rc = kt_compute_pass_s(wl->compute, wl, l, &cut, LW_INPUT_GRAD, bx_s, err);
    if (rc == HS_OK)
        rc = kt_compute_pass_s(wl->compute, wl, l, &cut, LW_WEIGHT_GRAD, &dw_s, err);
    *bw_s = weights ? dw_s : 0.0;
    *bx_s += weights ? 0.0 : dw_s;
    return rc;
}
