/* fit.c: fits the kernel-time model's efficiencies (workloads/compute/compute.h) on Baidu
 * DeepBench's measured training kernels and reports how well the model predicts the kernels
 * it was not fitted on. Run by experiments/compute/fit.sh; `--check` also fails (status 1)
 * when the committed efficiencies (kernel_time.c) are not the ones this fit finds.
 *
 * The data: ../shared/reference/measured/deepbench-{V100,P100,T4}.tsv (its README; the V100
 * ran in a DGX-1, the P100 is a PCIe board, FP32 sheets and FP16 ones: tensor cores on the
 * V100 and T4; on the P100 FP32 arithmetic for the GEMMs (gemm_bench.cu, CUDA_R_32F) but
 * cuDNN 6's true half for the convolutions (conv_bench.cu of Nov 2017: a HALF compute type),
 * which the model still prices at the FP32 rate: modelled as true half at the datasheet's
 * FP16 rate it predicted worse, 17.5% held-out median against 15.3%). Every GEMM row is one kernel;
 * every convolution row is three (forward, input gradient, weight gradient; a first layer's
 * input gradient is not measured). Each kernel goes through the simulator's own path: a
 * convolution is a layer of an in-memory workload (lw_kernel_of), timed by kt_terms_of.
 * On the tensor cores DeepBench timed padded problems (code/nvidia/conv_bench.cu and
 * gemm_bench.cu, PAD_KERNELS: a convolution's input channels rounded up to a multiple of 8, a
 * GEMM's dimensions that cuBLAS's tensor-op restrictions name), so the FP16 sheets of the V100
 * and T4 are read at those shapes: every one is a tensor-core product. (The GEMM dimension the
 * restrictions leave free is rounded too, a change of the work under 0.1%, so that the model's
 * alignment test sees what cuBLAS ran.)
 *
 * The held-out part is fixed: every row whose spreadsheet row number is a multiple of 4 (all
 * the kernels of such a row), about a quarter. The fit minimises the sum of absolute log
 * errors of the other rows (a median fit: DeepBench holds a few pathological kernels, e.g.
 * FP16 convolutions of one input channel at a twentieth of the usual rate, which a squared
 * error would let pull every efficiency), by a deterministic pattern search in log space.
 * `--mechanisms LIST` fits the model with opt-in refinements instead, for comparison: the
 * kernel-time model's (compute.h KT_MECH_*, e.g. strided-dgrad) and one of the fit's own,
 * old-cudnn-call: the convolution call cost of the sheets run with cuDNN 5 or 6 (the P100's
 * 6.0.21, and the never-fitted GPUs', their sheets' "Specs") its own parameter, fitted on the
 * P100, where the default fits one call cost to every sheet (cuDNN 7.6.2 on the V100 and T4).
 * The committed values are the default model's and are not compared then; the never-fitted
 * GPUs take the fit's values then, not the committed ones.
 *
 * DeepBench's FP32 sheets of five older GPUs (1080 Ti, Titan X (Pascal), Titan Xp: GP102;
 * Titan X (Maxwell), M40: GM200) are never fitted on: every one of their kernels is predicted
 * with the committed parameters (kt_model_init, as the simulator predicts them) and reported
 * apart, per GPU and pass (the GPUs the fit never saw: workloads/compute/kernel_time.c says
 * which generation's values they take). AMD's two sheets (MIOpen) are not read
 * (experiments/README.md, "validation", says why).
 * Exit status: 0, 1 (--check: the committed values differ), 2 (bad data), 77 (no data: the
 * shared reference is absent, as ctest's skip code). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compute.h"

/* ---------------------------------------------------------------- parameters */

enum {
    P_PASCAL, P_VOLTA, P_VOLTA_TC, P_TURING, P_TURING_TC, /* gemm_eff */
    P_CONV_FW, P_CONV_DX, P_CONV_DW,                      /* conv_rel, CUDA cores */
    P_CONV_FW_TC, P_CONV_DX_TC, P_CONV_DW_TC,             /* conv_rel, tensor cores */
    P_WINOGRAD, P_GEMM_CALL, P_CONV_CALL, P_CONV_CALL_TC,
    P_CONV_CALL_OLD,                                      /* old-cudnn-call only */
    NPARAM
};
static const char *const param_names[NPARAM] = {
    "gemm_eff pascal", "gemm_eff volta", "gemm_eff volta tensor", "gemm_eff turing",
    "gemm_eff turing tensor", "conv_rel forward", "conv_rel input-grad", "conv_rel weight-grad",
    "conv_rel forward tensor", "conv_rel input-grad tensor", "conv_rel weight-grad tensor",
    "winograd_rel", "gemm_call_s", "conv_call_s", "conv_call_s tensor", "conv_call_s cudnn 5-6"};
#define IS_SECONDS(j) ((j) >= P_GEMM_CALL)

/* ---------------------------------------------------------------- kernels */

#define MAX_KERNELS 8192
#define N_FITTED 3 /* gpus[0..2]: V100, P100, T4, the fit's; the others never fitted */
#define N_GPUS 8

typedef struct {
    const char *gpu;        /* DeepBench's name */
    const char *device;     /* the device table's */
    int old_cudnn;          /* 1: its sheet ran cuDNN 5 or 6 (its "Specs"), not 7.6.2 */
    kt_model model[2];      /* FP32 sheet, FP16 sheet (mixed) */
} fit_gpu;

/* Which part of the data a kernel is: fitted on, held out of the fit (a fitted GPU's row whose
 * number is a multiple of 4), or a kernel of a GPU never fitted. */
typedef enum { PART_FITTED = 0, PART_HELD_OUT, PART_UNSEEN } fit_part;
static const char *const part_names[] = {"fitted", "held-out", "unseen"};

typedef struct {
    lw_kernel kn;
    int gpu, fp16;          /* fit_gpu index; 1: the FP16 sheet */
    fit_part part;
    int sheet_row;          /* the spreadsheet row DeepBench's workbook has it on */
    const char *what;       /* gemm, forward, input-grad, weight-grad */
    double measured_s;
} fit_kernel;

typedef struct {
    fit_gpu gpus[N_GPUS];
    fit_kernel *k;
    int n;
    unsigned mechanisms;    /* the kernel-time model's opt-in mechanisms (KT_MECH_*) */
    int old_call;           /* 1: old-cudnn-call, the cuDNN 5-6 sheets' own call cost */
} fit_data;

/* Column index of `name` in a tab-separated header; -1 when absent. */
static int column(char *header, const char *name)
{
    int i = 0;
    for (char *save, *tok = strtok_r(header, "\t\n", &save); tok;
         tok = strtok_r(NULL, "\t\n", &save), i++)
        if (strcmp(tok, name) == 0)
            return i;
    return -1;
}

static const char *const columns[] = {
    "kernel", "precision", "gemm_M", "gemm_N", "gemm_K", "conv_W", "conv_H", "conv_C", "conv_N",
    "conv_K", "conv_S_filter_w", "conv_R_filter_h", "conv_pad_w", "conv_pad_h", "conv_stride_w",
    "time_us", "bwd_data_us", "bwd_filter_us", "sheet_row"};
enum { C_KERNEL, C_PREC, C_M, C_N, C_K, C_W, C_H, C_C, C_B, C_F, C_S, C_R, C_PW, C_PH, C_STRIDE,
       C_FW, C_DX, C_DW, C_ROW, NCOL };

/* The fields of one line, split at tabs (empty fields kept). */
static int split_fields(char *line, char **f, int max)
{
    int n = 0;
    f[n++] = line;
    for (char *p = line; *p && n < max; p++)
        if (*p == '\t' || *p == '\n') {
            *p = '\0';
            f[n++] = p + 1;
        }
    return n;
}

static int add_kernel(fit_data *d, const lw_kernel *kn, int gpu, int fp16, int sheet_row,
                      const char *what, const char *us)
{
    char *end;
    double t = strtod(us, &end);
    if (end == us || t <= 0) /* "NA(N/A*)": DeepBench does not time a first layer's dx */
        return HS_OK;
    if (d->n == MAX_KERNELS)
        return HS_EINPUT;
    fit_part part = gpu >= N_FITTED     ? PART_UNSEEN
                    : sheet_row % 4 == 0 ? PART_HELD_OUT
                                         : PART_FITTED;
    d->k[d->n++] = (fit_kernel){*kn, gpu, fp16, part, sheet_row, what, t * 1e-6};
    return HS_OK;
}

/* v rounded up to a multiple of 8 where `pad` (DeepBench's PAD_KERNELS on the tensor cores). */
static int64_t padded(int64_t v, int pad)
{
    return pad ? (v + 7) / 8 * 8 : v;
}

/* Whether the kernels of this sheet ran padded: FP16 on a GPU with tensor cores. */
static int tc_padded(const fit_data *d, int gpu, int fp16)
{
    return fp16 && kt_math_of(d->gpus[gpu].model[1].device, PR_MIXED) == KT_TENSOR_CORES;
}

/* A DeepBench convolution as layer 1 of a two-layer workload (a ReLU first, so that the input
 * gradient exists): the simulator's own lw_kernel_of maps it. */
static int conv_kernels(fit_data *d, char **f, int gpu, int fp16, int sheet_row, double e,
                        char *err)
{
    wl_layer layers[2];
    memset(layers, 0, sizeof layers);
    wl_layer *c = &layers[1];
    int64_t w = atoll(f[C_W]), h = atoll(f[C_H]), kw = atoll(f[C_S]), kh = atoll(f[C_R]);
    int64_t pw = atoll(f[C_PW]), ph = atoll(f[C_PH]), s = atoll(f[C_STRIDE]);
    c->type = WL_CONV;
    c->x = (wl_shape){padded(atoll(f[C_C]), tc_padded(d, gpu, fp16)), {w, h, 1}, 2};
    c->y = (wl_shape){atoll(f[C_F]), {(w + 2 * pw - kw) / s + 1, (h + 2 * ph - kh) / s + 1, 1}, 2};
    c->w_kernel[0] = kw;
    c->w_kernel[1] = kh;
    c->stride = (int)s;
    c->padding[0] = (int)pw;
    c->padding[1] = (int)ph;
    c->groups = 1;
    layers[0].type = WL_RELU;
    layers[0].x = layers[0].y = c->x;
    wl_workload wl = {.layers = layers, .n_layers = 2};
    lw_split split = lw_whole(atoll(f[C_B]));
    static const char *const what[LW_PASS_COUNT] = {"forward", "input-grad", "weight-grad"};
    for (int p = 0; p < LW_PASS_COUNT; p++) {
        lw_kernel kn;
        int rc = lw_kernel_of(&wl, 1, &split, (lw_pass)p, e, &kn, err);
        if (rc == HS_OK)
            rc = add_kernel(d, &kn, gpu, fp16, sheet_row, what[p], f[C_FW + p]);
        if (rc != HS_OK)
            return rc == HS_EINPUT ? hs_fail(err, HS_EINPUT, "too many kernels") : rc;
    }
    return HS_OK;
}

static int gemm_kernel(fit_data *d, char **f, int gpu, int fp16, int sheet_row, double e)
{
    int pad = tc_padded(d, gpu, fp16);
    int64_t m = padded(atoll(f[C_M]), pad), n = padded(atoll(f[C_N]), pad),
            k = padded(atoll(f[C_K]), pad);
    lw_kernel kn = {.kind = LW_GEMM, .flops = 2.0 * m * n * k,
                    .bytes = e * (double)(m * k + k * n + m * n), .m = m, .n = n, .k = k,
                    .groups = 1, .lib = LW_LIB_BLAS, .in_channels = k, .out_channels = n};
    return add_kernel(d, &kn, gpu, fp16, sheet_row, "gemm", f[C_FW]);
}

/* Every kernel of deepbench-<GPU>.tsv in dir. */
static int load_gpu(fit_data *d, const char *dir, int gpu, char *err)
{
    char path[1200], line[4096];
    snprintf(path, sizeof path, "%.1100s/deepbench-%s.tsv", dir, d->gpus[gpu].gpu);
    FILE *in = fopen(path, "r");
    if (!in)
        return hs_fail(err, HS_EINPUT, "%s: %s", path, strerror(errno));
    int col[NCOL], have_header = 0, rc = HS_OK;
    while (rc == HS_OK && fgets(line, sizeof line, in)) {
        if (line[0] == '#')
            continue;
        if (!have_header) {
            have_header = 1;
            for (int c = 0; c < NCOL && rc == HS_OK; c++) {
                char copy[4096];
                snprintf(copy, sizeof copy, "%s", line);
                if ((col[c] = column(copy, columns[c])) < 0)
                    rc = hs_fail(err, HS_EINPUT, "%s: no column %s", path, columns[c]);
            }
            continue;
        }
        char *raw[64], *f[NCOL];
        int n = split_fields(line, raw, 64);
        for (int c = 0; c < NCOL; c++)
            f[c] = col[c] < n ? raw[col[c]] : "";
        int fp16 = strcmp(f[C_PREC], "Float") != 0;
        int sheet_row = atoi(f[C_ROW]);
        double e = fp16 ? 2.0 : 4.0;
        if (strcmp(f[C_KERNEL], "gemm") == 0)
            rc = gemm_kernel(d, f, gpu, fp16, sheet_row, e) ? hs_fail(err, HS_EINPUT, "too many")
                                                              : HS_OK;
        else
            rc = conv_kernels(d, f, gpu, fp16, sheet_row, e, err);
    }
    fclose(in);
    return rc;
}

static int load_all(fit_data *d, const char *dir, char *err)
{
    /* DeepBench's names (its files') and the device table's; the first N_FITTED are fitted */
    static const char *const names[N_GPUS][2] = {
        {"V100", "v100-sxm2-16gb"}, {"P100", "p100-pcie"}, {"T4", "t4"},
        {"1080Ti", "gtx1080ti"}, {"TitanX_Pascal", "titan-x-pascal"}, {"TitanXp", "titan-xp"},
        {"TitanX", "titan-x-maxwell"}, {"M40", "m40"}};
    /* the sheets' "Specs": cuDNN 7.6.2.24 on the V100 and T4, 6.0.21 or 5 on the others */
    static const int old_cudnn[N_GPUS] = {0, 1, 0, 1, 1, 1, 1, 1};
    d->k = calloc(MAX_KERNELS, sizeof *d->k);
    if (!d->k)
        return hs_fail(err, HS_EINTERNAL, "out of memory");
    for (int g = 0; g < N_GPUS; g++) {
        d->gpus[g].gpu = names[g][0];
        d->gpus[g].device = names[g][1];
        d->gpus[g].old_cudnn = old_cudnn[g];
        int rc = kt_model_init(&d->gpus[g].model[0], names[g][1], PR_FP32, err);
        if (rc == HS_OK)
            rc = kt_model_init(&d->gpus[g].model[1], names[g][1], PR_MIXED, err);
        if (rc == HS_OK)
            rc = load_gpu(d, dir, g, err);
        if (rc != HS_OK)
            return rc;
    }
    return HS_OK;
}

/* ---------------------------------------------------------------- the model at x */

/* Parameters x into every fitted GPU's kt_params; with mechanisms every GPU's (the committed
 * values are the default model's). */
static void set_params(fit_data *d, const double *x)
{
    int gpus = d->mechanisms || d->old_call ? N_GPUS : N_FITTED;
    for (int g = 0; g < gpus; g++) /* the others keep the committed values */
        for (int h = 0; h < 2; h++) {
            kt_model *m = &d->gpus[g].model[h];
            kt_params *p = &m->params;
            int tc = kt_math_of(m->device, m->precision) == KT_TENSOR_CORES;
            dv_arch a = m->device->arch;
            /* Maxwell takes Pascal's, as kernel_time.c's table gives it */
            p->gemm_eff = a == DV_PASCAL || a == DV_MAXWELL ? x[P_PASCAL]
                          : a == DV_TURING ? x[tc ? P_TURING_TC : P_TURING]
                                           : x[tc ? P_VOLTA_TC : P_VOLTA];
            for (int i = 0; i < LW_PASS_COUNT; i++)
                p->conv_rel[i] = x[(tc ? P_CONV_FW_TC : P_CONV_FW) + i];
            p->winograd_rel = x[P_WINOGRAD];
            p->gemm_call_s = x[P_GEMM_CALL];
            p->conv_call_s = x[tc ? P_CONV_CALL_TC : P_CONV_CALL];
            if (d->old_call && d->gpus[g].old_cudnn)
                p->conv_call_s = x[P_CONV_CALL_OLD];
            p->mechanisms = d->mechanisms;
        }
}

/* The committed parameters, read back through kt_params_for. */
static void committed(double *x)
{
    kt_params p32 = kt_params_for(dv_find("v100-sxm2-16gb"), PR_FP32);
    kt_params tc = kt_params_for(dv_find("v100-sxm2-16gb"), PR_MIXED);
    x[P_PASCAL] = kt_params_for(dv_find("p100-pcie"), PR_FP32).gemm_eff;
    x[P_VOLTA] = p32.gemm_eff;
    x[P_VOLTA_TC] = tc.gemm_eff;
    x[P_TURING] = kt_params_for(dv_find("t4"), PR_FP32).gemm_eff;
    x[P_TURING_TC] = kt_params_for(dv_find("t4"), PR_MIXED).gemm_eff;
    for (int i = 0; i < LW_PASS_COUNT; i++) {
        x[P_CONV_FW + i] = p32.conv_rel[i];
        x[P_CONV_FW_TC + i] = tc.conv_rel[i];
    }
    x[P_WINOGRAD] = p32.winograd_rel;
    x[P_GEMM_CALL] = p32.gemm_call_s;
    x[P_CONV_CALL] = p32.conv_call_s;
    x[P_CONV_CALL_TC] = tc.conv_call_s;
    x[P_CONV_CALL_OLD] = p32.conv_call_s; /* not a parameter of the default fit */
}

static double kernel_s(const fit_data *d, const fit_kernel *k)
{
    return kt_kernel_s(&d->gpus[k->gpu].model[k->fp16], &k->kn);
}

static double objective(fit_data *d, const double *x)
{
    set_params(d, x);
    double f = 0;
    for (int i = 0; i < d->n; i++)
        if (d->k[i].part == PART_FITTED)
            f += fabs(log(kernel_s(d, &d->k[i]) / d->k[i].measured_s));
    return f;
}

/* Pattern search in log space: each parameter up and down by a factor, improvements kept,
 * the factor halved when none helps. Efficiencies stay in (0, 1]. Deterministic. */
static void fit(fit_data *d, double *x)
{
    for (int j = 0; j < NPARAM; j++)
        x[j] = IS_SECONDS(j) ? 5e-6 : 0.8;
    double best = objective(d, x);
    for (double step = 0.4; step > 0.002;) {
        int improved = 0;
        for (int j = 0; j < NPARAM; j++)
            for (int dir = -1; dir <= 1; dir += 2) {
                double keep = x[j];
                x[j] = keep * exp(dir * step);
                if (!IS_SECONDS(j) && x[j] > 1.0)
                    x[j] = 1.0;
                double f = objective(d, x);
                if (f < best - 1e-12) {
                    best = f;
                    improved = 1;
                } else {
                    x[j] = keep;
                }
            }
        if (!improved)
            step /= 2;
    }
    set_params(d, x);
}

/* ---------------------------------------------------------------- report */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median, 90th percentile and worst absolute relative error of the kernels `pick` keeps. */
typedef struct {
    int n;
    double median, p90, worst;
} fit_errors;

static fit_errors errors_of(const fit_data *d, fit_part part, int gpu, int fp16,
                            const char *what)
{
    static double e[MAX_KERNELS];
    fit_errors r = {0, 0, 0, 0};
    for (int i = 0; i < d->n; i++) {
        const fit_kernel *k = &d->k[i];
        if (k->part != part || (gpu >= 0 && k->gpu != gpu) ||
            (fp16 >= 0 && k->fp16 != fp16) || (what && strcmp(k->what, what) != 0))
            continue;
        e[r.n++] = fabs(kernel_s(d, k) / k->measured_s - 1);
    }
    if (r.n == 0)
        return r;
    qsort(e, (size_t)r.n, sizeof e[0], cmp_double);
    r.median = r.n % 2 ? e[r.n / 2] : (e[r.n / 2 - 1] + e[r.n / 2]) / 2;
    r.p90 = e[(int)ceil(0.9 * r.n) - 1];
    r.worst = e[r.n - 1];
    return r;
}

static void print_errors(const char *label, fit_errors e)
{
    printf("%-34s %5d %7.1f%% %7.1f%% %8.1f%%\n", label, e.n, 100 * e.median, 100 * e.p90,
           100 * e.worst);
}

static void print_report(const fit_data *d, const double *x)
{
    printf("fitted:\n");
    for (int j = 0; j < NPARAM; j++)
        if (j != P_CONV_CALL_OLD || d->old_call)
            printf("  %-28s %.3g%s\n", param_names[j], IS_SECONDS(j) ? 1e6 * x[j] : x[j],
               IS_SECONDS(j) ? " us" : "");
    printf("\nheld-out kernels (sheet row a multiple of 4): |model / measured - 1|\n");
    printf("%-34s %5s %8s %8s %9s\n", "kernels", "n", "median", "p90", "worst");
    static const char *const what[] = {"gemm", "forward", "input-grad", "weight-grad"};
    for (int g = 0; g < N_FITTED; g++)
        for (int h = 0; h < 2; h++)
            for (int w = 0; w < 4; w++) {
                char label[96];
                snprintf(label, sizeof label, "%s %s %s", d->gpus[g].gpu, h ? "fp16" : "fp32",
                         what[w]);
                print_errors(label, errors_of(d, PART_HELD_OUT, g, h, what[w]));
            }
    print_errors("all held out", errors_of(d, PART_HELD_OUT, -1, -1, NULL));
    print_errors("all fitted (for comparison)", errors_of(d, PART_FITTED, -1, -1, NULL));
    printf("\nGPUs never fitted (FP32 sheets; every kernel predicted with %s parameters)\n",
           d->mechanisms || d->old_call ? "this fit's" : "the committed");
    printf("%-34s %5s %8s %8s %9s\n", "kernels", "n", "median", "p90", "worst");
    for (int g = N_FITTED; g < N_GPUS; g++) {
        for (int w = 0; w < 4; w++) {
            char label[96];
            snprintf(label, sizeof label, "%s fp32 %s", d->gpus[g].gpu, what[w]);
            print_errors(label, errors_of(d, PART_UNSEEN, g, 0, what[w]));
        }
        char label[96];
        snprintf(label, sizeof label, "%s fp32 all", d->gpus[g].gpu);
        print_errors(label, errors_of(d, PART_UNSEEN, g, 0, NULL));
    }
    print_errors("all never fitted", errors_of(d, PART_UNSEEN, -1, -1, NULL));
}

/* The committed values against the fit: efficiencies to 2 decimals, call costs to 0.5 us. */
static int check_committed(const double *x)
{
    double c[NPARAM];
    committed(c);
    int same = 1;
    for (int j = 0; j < NPARAM; j++) {
        double tol = IS_SECONDS(j) ? 0.5e-6 : 0.005;
        if (j != P_CONV_CALL_OLD && fabs(c[j] - x[j]) > tol + 1e-12) {
            printf("committed %-28s %.4g, fit %.4g\n", param_names[j],
                   IS_SECONDS(j) ? 1e6 * c[j] : c[j], IS_SECONDS(j) ? 1e6 * x[j] : x[j]);
            same = 0;
        }
    }
    printf("committed parameters (workloads/compute/kernel_time.c) %s the fit\n",
           same ? "match" : "DO NOT MATCH");
    return same;
}

/* The --mechanisms list into d: the fit's own old-cudnn-call, the rest the kernel-time model's
 * (kt_mechanisms_parse); `none` alone or not at all (beside old-cudnn-call it would reach
 * kt_mechanisms_parse alone and pass). */
static int parse_mechanisms(const char *list, fit_data *d, char *err)
{
    char rest[512] = "";
    size_t used = 0;
    if (!*list)
        return hs_fail(err, HS_EINPUT, "--mechanisms: an empty list");
    for (const char *p = list; *p;) {
        size_t len = strcspn(p, ",");
        if (len == 0 || (p[len] == ',' && p[len + 1] == '\0'))
            return hs_fail(err, HS_EINPUT, "--mechanisms: an empty name in '%s'", list);
        if (len == 4 && strncmp(p, "none", len) == 0 && strcmp(list, "none") != 0)
            return hs_fail(err, HS_EINPUT, "--mechanisms: 'none' beside other names in '%s'",
                           list);
        if (len == 14 && strncmp(p, "old-cudnn-call", len) == 0)
            d->old_call = 1;
        else if (used + len + 2 < sizeof rest)
            used += (size_t)snprintf(rest + used, sizeof rest - used, "%s%.*s",
                                     used ? "," : "", (int)len, p);
        else
            return hs_fail(err, HS_EINPUT, "--mechanisms: list too long");
        p += len + (p[len] == ',');
    }
    return kt_mechanisms_parse(rest, "--mechanisms", &d->mechanisms, err);
}

/* --dump FILE: every kernel with the model's terms, for a closer look. */
static int dump_kernels(const fit_data *d, const char *path, char *err)
{
    FILE *out = fopen(path, "w");
    if (!out)
        return hs_fail(err, HS_EINPUT, "--dump %s: %s", path, strerror(errno));
    fprintf(out, "gpu\tprecision\tsheet_row\tkernel\tpart\tm\tn\tk\tgroups\tc\tf"
                 "\twindow\tstride\tsamples\tflops\tbytes\tmeasured_s\tmodel_s\tcompute_s"
                 "\tmemory_s\twinograd\n");
    for (int i = 0; i < d->n; i++) {
        const fit_kernel *k = &d->k[i];
        const lw_kernel *kn = &k->kn;
        kt_terms t = kt_terms_of(&d->gpus[k->gpu].model[k->fp16], kn);
        fprintf(out, "%s\t%s\t%d\t%s\t%s\t%lld\t%lld\t%lld\t%lld\t%lld\t%lld\t%lld\t%d\t%lld",
                d->gpus[k->gpu].gpu, k->fp16 ? "fp16" : "fp32", k->sheet_row, k->what,
                part_names[k->part], (long long)kn->m, (long long)kn->n, (long long)kn->k,
                (long long)kn->groups, (long long)kn->in_channels, (long long)kn->out_channels,
                (long long)kn->window, kn->stride, (long long)kn->samples);
        fprintf(out, "\t%g\t%g\t%g\t%g\t%g\t%g\t%d\n", kn->flops, kn->bytes, k->measured_s,
                kernel_s(d, k), t.compute_s, t.memory_s, t.winograd);
    }
    return fclose(out) == 0 ? HS_OK : hs_fail(err, HS_EINPUT, "--dump %s: write failed", path);
}

/* The command line (fit.sh's usage). */
typedef struct {
    const char *dir;        /* --data: DeepBench's sheets (NULL: ../shared beside the tree) */
    const char *dump;       /* --dump: every kernel's terms into this TSV (NULL: none) */
    const char *mechanisms; /* --mechanisms: the opt-in list as given (NULL: none) */
    int check;              /* --check: exit 1 when the fit leaves the committed values */
} fit_args;

/* argv into *a and its mechanisms into d; 0, or 2 with the reason on stderr. */
static int parse_args(int argc, char **argv, fit_args *a, fit_data *d)
{
    char err[HS_ERR_LEN];
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--check") == 0) {
            a->check = 1;
        } else if (strcmp(argv[i], "--mechanisms") == 0 && i + 1 < argc) {
            a->mechanisms = argv[++i];
        } else if (strcmp(argv[i], "--dump") == 0 && i + 1 < argc) {
            a->dump = argv[++i];
        } else if (strcmp(argv[i], "--data") == 0 && i + 1 < argc) {
            a->dir = argv[++i];
        } else {
            fprintf(stderr, "usage: compute_fit [--data DIR] [--dump FILE.tsv] [--check] "
                            "[--mechanisms LIST]\n");
            return 2;
        }
    }
    if (a->mechanisms && parse_mechanisms(a->mechanisms, d, err) != HS_OK) {
        fprintf(stderr, "compute_fit: %s (or the fit's own old-cudnn-call)\n", err);
        return 2;
    }
    if (a->check && (d->mechanisms || d->old_call)) {
        fprintf(stderr, "compute_fit: --check compares the default model's committed "
                        "parameters; it takes no --mechanisms\n");
        return 2;
    }
    return 0;
}

int main(int argc, char **argv)
{
    char err[HS_ERR_LEN];
    fit_args a = {0};
    fit_data d;
    memset(&d, 0, sizeof d);
    if (parse_args(argc, argv, &a, &d) != 0)
        return 2;
    int opted = d.mechanisms || d.old_call;
    char def[1024];
    const char *dir = a.dir;
    if (!dir) {
        const char *home = getenv("HYBRIDSIM_HOME");
        snprintf(def, sizeof def, "%s/../shared/reference/measured",
                 home ? home : HYBRIDSIM_SOURCE_DIR);
        dir = def;
    }
    char probe[1100];
    snprintf(probe, sizeof probe, "%s/deepbench-V100.tsv", dir);
    FILE *f = fopen(probe, "r");
    if (!f) {
        printf("compute_fit: no DeepBench data at %s (the shared reference): skipped\n", dir);
        return 77;
    }
    fclose(f);
    int rc = load_all(&d, dir, err);
    if (rc != HS_OK) {
        fprintf(stderr, "compute_fit: %s\n", err);
        free(d.k);
        return 2;
    }
    double x[NPARAM];
    fit(&d, x);
    int held = errors_of(&d, PART_HELD_OUT, -1, -1, NULL).n;
    printf("kernel-time model fit on DeepBench (%s): %d kernels, %d held out; %d kernels of "
           "%d GPUs never fitted\n", dir, errors_of(&d, PART_FITTED, -1, -1, NULL).n + held, held,
           errors_of(&d, PART_UNSEEN, -1, -1, NULL).n, N_GPUS - N_FITTED);
    if (opted)
        printf("with the opt-in mechanisms %s (the committed parameters are the default "
               "model's: not compared; the GPUs never fitted take this fit's)\n", a.mechanisms);
    print_report(&d, x);
    int same = opted ? 1 : check_committed(x);
    if (a.dump && (rc = dump_kernels(&d, a.dump, err)) != HS_OK)
        fprintf(stderr, "compute_fit: %s\n", err);
    free(d.k);
    if (rc != HS_OK)
        return 2; /* no dump: what run.sh reads next is missing */
    return a.check && !same ? 1 : 0;
}
