/* kernel_time.c: the kernel-time model (compute.h): tiles, waves, split-K, the roofline. */
#include "compute.h"

#include <math.h>
#include <stdio.h>

/* cuBLAS's typical thread-block tiles (NVIDIA, "Matrix Multiplication Background User's
 * Guide", Sec. "Typical Tile Dimensions in cuBLAS and Performance"). */
static const int64_t kt_tiles[][2] = {{256, 128}, {128, 256}, {128, 128},
                                      {128, 64},  {64, 128},  {64, 64}};
#define KT_NTILES (sizeof kt_tiles / sizeof kt_tiles[0])
#define KT_SPLIT_K_MIN 256 /* the shortest K slice split-K hands one block */

kt_params kt_fitted(void)
{
    /* experiments/compute/fit.sh, see workloads/README.md for the fit and its errors. */
    kt_params p = {
        .eff_matmul = 0.86,
        .tensor_rel = 0.66 / 0.76,
        .eff_3d = 0.35,
        .eff_bw = 0.48,
    };
    return p;
}

int kt_model_init(kt_model *model, const char *device, pr_precision precision, char *err)
{
    char names[256];
    model->device = dv_find(device);
    if (!model->device) {
        dv_names(names, sizeof names);
        return hs_fail(err, HS_EINPUT, "--gpu: unknown device '%s' (known: %s)",
                       device ? device : "", names);
    }
    model->precision = precision;
    model->params = kt_fitted();
    return pr_check_device(model->device, precision, err);
}

static double ceil_div(double a, double b)
{
    return ceil(a / b);
}

/* Seconds at `rate_per_sm` FLOP/s per SM of the best tile for groups products m x n x k. */
static double gemm_waves_s(const lw_kernel *kn, int sms, double rate_per_sm)
{
    double best = INFINITY;
    for (size_t t = 0; t < KT_NTILES; t++) {
        double tm = (double)kt_tiles[t][0], tn = (double)kt_tiles[t][1];
        double tiles = ceil_div((double)kn->m, tm) * ceil_div((double)kn->n, tn) * kn->groups;
        double split = 1;
        if (tiles < sms) { /* split-K: more blocks, each a slice of K, to fill the SMs */
            split = floor(sms / tiles);
            double slices = floor((double)kn->k / KT_SPLIT_K_MIN);
            split = fmax(1, fmin(split, slices));
        }
        double waves = ceil_div(tiles * split, sms);
        double s = waves * 2.0 * tm * tn * ceil_div((double)kn->k, split) / rate_per_sm;
        best = fmin(best, s);
    }
    return best;
}

/* The efficiency of a matrix product: tensor cores run at their own efficiency, 3-D
 * convolutions at theirs. */
static double matmul_efficiency(const kt_model *m, const lw_kernel *kn)
{
    const kt_params *p = &m->params;
    double eff = p->eff_matmul;
    if (m->precision != PR_FP32 && m->device->fp16_tensor_flops > 0)
        eff *= p->tensor_rel;
    if (kn->volumetric)
        eff *= p->eff_3d;
    return eff;
}

kt_terms kt_terms_of(const kt_model *m, const lw_kernel *kn)
{
    kt_terms t = {0, 0, 0};
    const dv_device *d = m->device;
    if (kn->kind == LW_NONE)
        return t;
    t.launch_s = d->launch_s;
    t.memory_s = kn->bytes / (m->params.eff_bw * d->memory_bw_Bps);
    if (kn->kind == LW_STREAM) {
        t.compute_s = kn->flops / pr_vector_flops(d, m->precision);
        return t;
    }
    double rate = matmul_efficiency(m, kn) * pr_matmul_flops(d, m->precision) / d->sms;
    t.compute_s = gemm_waves_s(kn, d->sms, rate);
    return t;
}

double kt_kernel_s(const kt_model *m, const lw_kernel *kn)
{
    kt_terms t = kt_terms_of(m, kn);
    return t.launch_s + fmax(t.compute_s, t.memory_s);
}

int kt_pass_s(const kt_model *m, const wl_workload *wl, int index, const lw_split *split,
              lw_pass pass, double *seconds, char *err)
{
    lw_kernel kn;
    *seconds = 0;
    int rc = lw_kernel_of(wl, index, split, pass, pr_activation_bytes(m->precision), &kn, err);
    if (rc == HS_OK)
        *seconds = kt_kernel_s(m, &kn);
    return rc;
}

int kt_sample_s(const kt_model *m, const wl_workload *wl, int64_t batch, double *seconds,
                char *err)
{
    lw_split whole = lw_whole(batch);
    double total = 0, s;
    *seconds = 0;
    for (int i = 0; i < wl->n_layers; i++)
        for (int p = 0; p < LW_PASS_COUNT; p++) {
            int rc = kt_pass_s(m, wl, i, &whole, (lw_pass)p, &s, err);
            if (rc)
                return rc;
            total += s;
        }
    *seconds = total / (double)batch;
    return HS_OK;
}
