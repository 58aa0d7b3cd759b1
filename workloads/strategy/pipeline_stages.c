/* pipeline_stages.c: a pipeline's stages (strategy.h, st_pipeline_partition): contiguous
 * groups of layers balanced on each layer's time at the micro-batch, from the kernel model
 * (plan_kernels.c, through st_pipeline_kernels_s) or the measured seconds per sample.
 *
 * Apart from strategy.c because it needs the kernel times, which need the strategy's
 * vocabulary: strategy.c (names, checks) <- plan_kernels.c (kernels) <- this file. */
#include "plan.h"
#include "strategy.h"

#include <stdlib.h>
#include <string.h>

#include "compute.h"

/* Pack layer times t[0..n) left to right into groups of at most cap_s seconds each; returns
 * how many groups that takes and, if first is not NULL, where each starts. */
static int pack_layers(const double *t, int n, double cap_s, int *first)
{
    int groups = 0;
    double sum_s = 0;
    for (int i = 0; i < n; i++) {
        if (groups == 0 || sum_s + t[i] > cap_s) {
            if (first)
                first[groups] = i;
            groups++;
            sum_s = 0;
        }
        sum_s += t[i];
    }
    return groups;
}

static double stage_time_s(const double *t, int from, int to)
{
    double sum_s = 0;
    for (int i = from; i < to; i++)
        sum_s += t[i];
    return sum_s;
}

/* Split stage s of `n` (it has at least two layers) where the larger half is smallest. */
static void split_stage(const double *t, int *first, int n, int s)
{
    int best = first[s] + 1;
    double best_s = -1;
    for (int cut = first[s] + 1; cut < first[s + 1]; cut++) {
        double left = stage_time_s(t, first[s], cut), right = stage_time_s(t, cut, first[s + 1]);
        double worst = left > right ? left : right;
        if (best_s < 0 || worst < best_s) {
            best_s = worst;
            best = cut;
        }
    }
    memmove(&first[s + 2], &first[s + 1], (size_t)(n - s) * sizeof *first);
    first[s + 1] = best;
}

/* What the partition balances, layer by layer: a micro-batch's forward and backward seconds
 * under kc at micro_samples (st_pipeline_kernels_s), or the measured seconds per sample. */
static int layer_times_s(const wl_workload *wl, const kt_compute *kc, double micro_samples,
                         double *t, char *err)
{
    for (int i = 0; i < wl->n_layers; i++) {
        double fw_s = 0, bx_s = 0, bw_s = 0;
        int rc = kc ? st_pipeline_kernels_s(wl, kc, micro_samples, i, &fw_s, &bx_s, &bw_s, err)
                    : HS_OK;
        if (rc != HS_OK)
            return rc;
        t[i] = kc ? fw_s + bx_s + bw_s : wl->layers[i].fw_s + wl->layers[i].bw_s;
    }
    return HS_OK;
}

/* The partition of layer times t into `stages` groups (st_pipeline_partition). */
static void partition_times(const double *t, int n_layers, int stages, int *first)
{
    /* Bisect the largest stage time: packing greedily under a cap needs more groups the
     * smaller the cap, so the smallest cap that packs into `stages` groups is the optimum. */
    double lo = 0, hi = 0;
    for (int i = 0; i < n_layers; i++) {
        hi += t[i];
        if (t[i] > lo)
            lo = t[i];
    }
    for (int iter = 0; iter < 200 && hi > lo; iter++) {
        double mid = lo + (hi - lo) / 2;
        if (mid <= lo || mid >= hi)
            break;
        if (pack_layers(t, n_layers, mid, NULL) <= stages)
            hi = mid;
        else
            lo = mid;
    }
    int n = pack_layers(t, n_layers, hi, first);
    first[n] = n_layers;
    /* Fewer groups than stages: split the slowest divisible group until there are enough;
     * halving a group never makes the largest stage larger. */
    while (n < stages) {
        int pick = -1;
        for (int s = 0; s < n; s++)
            if (first[s + 1] - first[s] > 1 &&
                (pick < 0 || stage_time_s(t, first[s], first[s + 1]) >
                                 stage_time_s(t, first[pick], first[pick + 1])))
                pick = s;
        split_stage(t, first, n, pick);
        n++;
    }
}

int st_pipeline_kernels_s(const wl_workload *wl, const kt_compute *kc, double micro_samples,
                          int l, double *fw_s, double *bx_s, double *bw_s, char *err)
{
    st_layer_config whole = st_layer_default();
    return st_layer_kernels_s(wl, kc, l, &whole, micro_samples, fw_s, bx_s, bw_s, err);
}

int st_pipeline_partition(const wl_workload *wl, const kt_compute *kc, double micro_samples,
                          int stages, int *first, char *err)
{
    if (stages < 1 || stages > wl->n_layers)
        return hs_fail(err, HS_EINPUT,
                       "-g %d: a pipeline needs one to %d stages (one layer at least per stage "
                       "of %s)",
                       stages, wl->n_layers, wl->name);
    double *t = malloc((size_t)wl->n_layers * sizeof *t);
    if (!t)
        return hs_fail(err, HS_EINTERNAL, "out of memory for the times of %d layers",
                       wl->n_layers);
    int rc = layer_times_s(wl, kc, micro_samples, t, err);
    if (rc == HS_OK)
        partition_times(t, wl->n_layers, stages, first);
    free(t);
    return rc;
}
