/* compute.c: the kernels of one rank from the compute model (--compute model: wl->compute,
 * workloads/compute/compute.h) instead of the measured per-sample times scaled linearly.
 *
 * Every layer at the shape one rank of a built-in layer-wise strategy computes: its group's
 * B / p1 samples, and the strategy's dimension cut p2 ways where the strategy splits the layer
 * (filters: output channels; channel: input channels; spatial: the width), as the simulator's
 * expansion cuts it (sim/expand/expand.c), so both derivations time the same kernels. */
#include "links_int.h"

#include "compute.h"

/* How one rank's part of layer l is cut. */
static lw_split cut_of(const wl_workload *wl, const st_strategy *st, int l, double batch)
{
    lw_split cut = lw_whole((int64_t)(batch / st->p1));
    bool split = st->p2 > 1 && (wl->layers[l].split_mask & st_split_bit(st->kind)) != 0;
    if (!split)
        return cut;
    if (st->kind == ST_FILTER || st->kind == ST_DATA_FILTER)
        cut.out_parts = st->p2;
    else if (st->kind == ST_CHANNEL)
        cut.in_parts = st->p2;
    else
        cut.spatial_parts[0] = st->p2;
    return cut;
}

int an__layer_kernels_s(const wl_workload *wl, const st_strategy *st, int l, double batch,
                        double *fw_s, double *bw_s, char *err)
{
    lw_split cut = cut_of(wl, st, l, batch);
    double dx_s = 0, dw_s = 0;
    int rc = kt_compute_pass_s(wl->compute, wl, l, &cut, LW_FORWARD, fw_s, err);
    if (rc == HS_OK)
        rc = kt_compute_pass_s(wl->compute, wl, l, &cut, LW_INPUT_GRAD, &dx_s, err);
    if (rc == HS_OK)
        rc = kt_compute_pass_s(wl->compute, wl, l, &cut, LW_WEIGHT_GRAD, &dw_s, err);
    *bw_s = dx_s + dw_s;
    return rc;
}

int an__model_compute_s(const wl_workload *wl, const st_strategy *st, double batch,
                        double *compute_s, char *err)
{
    double sum_s = 0;
    unsigned bit = st_split_bit(st->kind);
    for (int l = 0; l < wl->n_layers; l++) {
        double fw_s, bw_s;
        int rc = an__layer_kernels_s(wl, st, l, batch, &fw_s, &bw_s, err);
        if (rc != HS_OK)
            return rc;
        /* filter and channel update their share of a split layer's weights, spatial all */
        bool share = st->p2 > 1 && (wl->layers[l].split_mask & bit) &&
                     st->kind != ST_SPATIAL && st->kind != ST_DATA_SPATIAL;
        sum_s += fw_s + bw_s + wl->layers[l].wu_s / (share ? st->p2 : 1) *
                                   wl->compute->update_scale;
    }
    *compute_s = sum_s;
    return HS_OK;
}
