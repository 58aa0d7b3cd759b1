/* compute.c: the kernels of one rank from the compute model (--compute model: kc,
 * workloads/compute/compute.h) instead of the measured per-sample times scaled linearly.
 *
 * Every layer at the shape one rank of a built-in layer-wise strategy computes, as
 * st_builtin_kernels_s cuts it (workloads/strategy/strategy.h), the function the simulator's
 * expansion calls too, so both derivations time the same kernels; a pipeline's stages as
 * st_pipeline_kernels_s times them, a whole layer on a micro-batch. */
#include "analytic_int.h"

#include "compute.h"

int an__layer_passes_s(const wl_workload *wl, const kt_compute *kc, const st_strategy *st, int l,
                       double batch, double *fw_s, double *dx_s, double *dw_s, char *err)
{
    *dx_s = *dw_s = 0;
    int rc = st_builtin_kernels_s(wl, kc, st->kind, st->p2, st->filter_rs, batch / st->p1, l, fw_s,
                                  dx_s, dw_s, err);
    /* autocast's casts of the GPU's share of the weights before the forward and of their
     * gradients after the weight gradient (expand.c alike) */
    bool share = st->p2 > 1 && (wl->layers[l].split_mask & st_split_bit(st->kind)) &&
                 st->kind != ST_SPATIAL && st->kind != ST_DATA_SPATIAL;
    double cast_s = rc == HS_OK ? st_autocast_cast_s(&st->train, kc, wl, l, share ? st->p2 : 1)
                                : 0.0;
    *fw_s += cast_s;
    *dw_s += cast_s;
    return rc;
}

int an__layer_kernels_s(const wl_workload *wl, const kt_compute *kc, const st_strategy *st, int l,
                        double batch, double *fw_s, double *bw_s, char *err)
{
    double dx_s, dw_s;
    int rc = an__layer_passes_s(wl, kc, st, l, batch, fw_s, &dx_s, &dw_s, err);
    *bw_s = dx_s + dw_s;
    return rc;
}

int an__model_compute_s(const wl_workload *wl, const kt_compute *kc, const st_strategy *st,
                        double batch, double *compute_s, char *err)
{
    double sum_s = 0;
    unsigned bit = st_split_bit(st->kind);
    for (int l = 0; l < wl->n_layers; l++) {
        double fw_s, bw_s;
        int rc = an__layer_kernels_s(wl, kc, st, l, batch, &fw_s, &bw_s, err);
        if (rc != HS_OK)
            return rc;
        /* filter and channel update their share of a split layer's weights, spatial all */
        bool share = st->p2 > 1 && (wl->layers[l].split_mask & bit) &&
                     st->kind != ST_SPATIAL && st->kind != ST_DATA_SPATIAL;
        sum_s += fw_s + bw_s + kt_compute_update_s(kc, wl, l, share ? st->p2 : 1);
        if (kc && st->p1 > 1) /* the reducer's copies of the gradients, the buffers' copies
                               * back from their broadcast (expand.c alike) */
            sum_s += kt_compute_grad_copy_s(kc, wl, l, share ? st->p2 : 1,
                                            st_gradient_bytes(&st->train, kc)) +
                     kt_compute_buffer_sync_s(kc, wl, l);
    }
    *compute_s = sum_s;
    return HS_OK;
}

/* Stage g's forward, backward and update seconds (pipeline_stages' units). */
static int stage_s(const wl_workload *wl, const kt_compute *kc, int lo, int hi, double micro,
                   double t[3], char *err)
{
    t[0] = t[1] = t[2] = 0;
    for (int i = lo; i < hi; i++) {
        const wl_layer *l = &wl->layers[i];
        double fw_s = l->fw_s, bx_s = l->bw_s, bw_s = 0;
        int rc = kc ? st_pipeline_kernels_s(wl, kc, micro, i, &fw_s, &bx_s, &bw_s, err) : HS_OK;
        if (rc != HS_OK)
            return rc;
        t[0] += fw_s;
        t[1] += kc ? bx_s + bw_s : bx_s;
        t[2] += kc ? kt_compute_update_s(kc, wl, i, 1) : l->wu_s;
    }
    return HS_OK;
}

/* The stages as the closed form charges them: the slowest stage's forward and backward, the
 * largest update. */
typedef struct {
    double fw_s, bw_s; /* the slowest stage's forward, backward; times per_samples */
    double wu_s;       /* the largest stage's weight updates, once an iteration */
    double per_samples; /* what fw_s and bw_s are multiplied by for a micro-batch: 1 under kc
                         * (a micro-batch's kernels, st_pipeline_kernels_s), the micro-batch's
                         * samples with measured times (seconds per sample, ParaDL's form) */
} stages;

static int pipeline_stages(const wl_workload *wl, const kt_compute *kc, const int *first, int n,
                           double micro, stages *m, char *err)
{
    *m = (stages){.per_samples = kc ? 1.0 : micro};
    for (int g = 0; g < n; g++) {
        double t[3];
        int rc = stage_s(wl, kc, first[g], first[g + 1], micro, t, err);
        if (rc != HS_OK)
            return rc;
        m->fw_s = t[0] > m->fw_s ? t[0] : m->fw_s;
        m->bw_s = t[1] > m->bw_s ? t[1] : m->bw_s;
        m->wu_s = t[2] > m->wu_s ? t[2] : m->wu_s;
    }
    return HS_OK;
}

int an__gpipe(const wl_workload *wl, const kt_compute *kc, const int *first, int n, int segs,
              double micro, const an_link *link, hs_times *it, an_terms *terms, char *err)
{
    stages m;
    int status = pipeline_stages(wl, kc, first, n, micro, &m, err);
    if (status != HS_OK)
        return status;
    double max_send = 0;
    for (int g = 0; g + 1 < n; g++) {
        double y = (double)wl->layers[first[g + 1] - 1].y_elems;
        double send = link[g].alpha_s + micro * y * kt_message_bytes(kc) * link[g].beta_s_per_byte;
        max_send = send > max_send ? send : max_send;
    }
    it->compute_s = m.per_samples * (n + segs - 1) * (m.fw_s + m.bw_s) + m.wu_s;
    /* n-1 of the n+S-1 steps are the fill and the drain: a stage's share of them is idle */
    terms->bubble_s = m.per_samples * (n - 1) * (m.fw_s + m.bw_s);
    terms->comm_s[HS_TERM_PIPELINE] = n > 1 ? 2.0 * (n + segs - 2) * max_send : 0.0;
    return HS_OK;
}
