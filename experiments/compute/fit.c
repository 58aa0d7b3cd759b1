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
 * input gradient is not measured; fit_load.c reads the sheets). Each kernel goes through the
 * simulator's own path: a convolution is a layer of an in-memory workload (lw_kernel_of), timed
 * by kt_terms_of.
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

#include "fit.h"

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

static const char *const part_names[] = {"fitted", "held-out", "unseen"};

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
    int rc = fit_load_all(&d, dir, err);
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
