/* fit.c: fits the kernel-time model's efficiencies (workloads/compute/compute.h) once, on the
 * per-sample times the shipped workloads measured on one V100, and prints the fit, each
 * workload's error, and the leave-one-out errors (each measured workload predicted by a fit
 * on the others). Run by experiments/compute/fit.sh; `--check` also fails (status 1) when the
 * committed parameters (kt_fitted) are not the ones this fit finds.
 *
 * The fit minimises the squared log errors of the measured workloads plus a weak pull of each
 * free parameter toward a physical prior (the pull of a factor 2 costs what a 2% error does):
 * with as many parameters as points, the prior only decides what the points leave undecided,
 * which is exactly the leave-one-out case. Only workloads whose time was measured
 * (method="measured") and whose profiling batch is known are fitted; derived ones are printed
 * beside the model for comparison. Every kernel's three terms are computed once with unit
 * efficiencies (kt_terms_of), so that a parameter set costs a few thousand max() operations;
 * the final numbers are recomputed through kt_sample_s, the API the simulator uses. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compute.h"

#define NPARAM 3
#define MAX_WL 8
#define PRIOR_WEIGHT 1e-3

static const char *const param_names[NPARAM] = {"eff_matmul", "eff_3d", "eff_bw"};
/* Physical priors: cuBLAS SGEMM on V100 reaches 76% of peak (Markidis et al. 2018); 3-D
 * convolutions as efficient as 2-D ones; STREAM-like kernels reach 83% of HBM2 (Jia et al.,
 * arXiv:1804.06826). */
static const double prior[NPARAM] = {0.76, 1.0, 0.83};
static const double lo[NPARAM] = {0.05, 0.05, 0.05};
static const double hi[NPARAM] = {1.0, 1.0, 1.0};

static const char *const shipped[] = {"resnet50", "vgg16", "alexnet", "cosmoflow-256",
                                      "cosmoflow-512", "resnet152"};
#define NSHIPPED (int)(sizeof shipped / sizeof shipped[0])

/* One kernel's terms at unit efficiencies, and which efficiencies divide its compute. */
typedef struct {
    double launch_s, compute_s, memory_s;
    int volumetric, matmul;
    wl_type type;
} term;

typedef struct {
    wl_workload wl;
    term *terms;
    int n_terms;
    int64_t batch;
    int fitted;      /* measured, batch known: a fit point */
} fit_wl;

static void set_params(kt_params *p, const double *x)
{
    p->eff_matmul = x[0];
    p->eff_3d = x[1];
    p->eff_bw = x[2];
}

/* Terms of every kernel of w at its batch, with unit efficiencies. */
static int collect_terms(fit_wl *w, const kt_model *unit, char *err)
{
    lw_split whole = lw_whole(w->batch);
    w->terms = calloc((size_t)w->wl.n_layers * LW_PASS_COUNT, sizeof *w->terms);
    if (!w->terms)
        return hs_fail(err, HS_EINTERNAL, "out of memory");
    for (int i = 0; i < w->wl.n_layers; i++)
        for (int p = 0; p < LW_PASS_COUNT; p++) {
            lw_kernel kn;
            int rc = lw_kernel_of(&w->wl, i, &whole, (lw_pass)p, 4.0, &kn, err);
            if (rc)
                return rc;
            if (kn.kind == LW_NONE)
                continue;
            kt_terms t = kt_terms_of(unit, &kn);
            w->terms[w->n_terms++] = (term){t.launch_s, t.compute_s, t.memory_s, kn.volumetric,
                                            kn.kind == LW_GEMM, w->wl.layers[i].type};
        }
    return HS_OK;
}

/* Seconds of kernel t with parameters x (the fast path of kt_kernel_s). */
static double term_s(const term *t, const double *x)
{
    double eff = t->matmul ? x[0] * (t->volumetric ? x[1] : 1) : 1;
    return t->launch_s + fmax(t->compute_s / eff, t->memory_s / x[2]);
}

/* Model seconds per sample of w with parameters x (the fast path of kt_sample_s). */
static double model_s(const fit_wl *w, const double *x)
{
    double total = 0;
    for (int i = 0; i < w->n_terms; i++)
        total += term_s(&w->terms[i], x);
    return total / (double)w->batch;
}

/* The objective: squared log errors of the fit points except `skip`, plus the prior pull. */
static double objective(const fit_wl *ws, int n, int skip, const double *x, const int *free_p)
{
    double f = 0;
    for (int i = 0; i < n; i++)
        if (ws[i].fitted && i != skip) {
            double e = log(model_s(&ws[i], x) / ws[i].wl.sample_time_s);
            f += e * e;
        }
    for (int j = 0; j < NPARAM; j++)
        if (free_p[j]) {
            double e = log(x[j] / prior[j]);
            f += PRIOR_WEIGHT * e * e;
        }
    return f;
}

/* Pattern search in log space from the prior: try each free parameter up and down by a
 * factor, keep improvements, shrink the factor when none helps. Deterministic. */
static void fit(const fit_wl *ws, int n, int skip, const int *free_p, double *x)
{
    memcpy(x, prior, sizeof prior);
    double best = objective(ws, n, skip, x, free_p);
    for (double step = 0.5; step > 1e-5;) {
        int improved = 0;
        for (int j = 0; j < NPARAM; j++)
            for (int dir = -1; free_p[j] && dir <= 1; dir += 2) {
                double keep = x[j];
                x[j] = fmin(hi[j], fmax(lo[j], keep * exp(dir * step)));
                double f = objective(ws, n, skip, x, free_p);
                if (f < best - 1e-15) {
                    best = f;
                    improved = 1;
                } else {
                    x[j] = keep;
                }
            }
        if (!improved)
            step /= 2;
    }
}

static int load_all(fit_wl *ws, const kt_model *unit, char *err)
{
    for (int i = 0; i < NSHIPPED; i++) {
        fit_wl *w = &ws[i];
        int rc = wl_load(shipped[i], &w->wl, err);
        if (rc)
            return rc;
        w->batch = w->wl.calibration_batch > 0 ? w->wl.calibration_batch : 1;
        w->fitted = w->wl.calibration == WL_CAL_MEASURED && w->wl.calibration_batch > 0;
        if ((rc = collect_terms(w, unit, err)))
            return rc;
    }
    return HS_OK;
}

static void print_params(const char *what, const double *x, const int *free_p)
{
    printf("%s:", what);
    for (int j = 0; j < NPARAM; j++)
        printf("  %s %.3f%s", param_names[j], x[j], free_p[j] ? "" : " (fixed)");
    printf("\n");
}

/* The fitted parameters through the simulator's own entry point (kt_sample_s). */
static int api_sample_s(const fit_wl *w, const double *x, double *seconds, char *err)
{
    kt_model m;
    int rc = kt_model_init(&m, "v100-sxm2-16gb", PR_FP32, err);
    set_params(&m.params, x);
    return rc ? rc : kt_sample_s(&m, &w->wl, w->batch, seconds, err);
}

static int print_table(const fit_wl *ws, const double *x, const int *free_p, char *err)
{
    double loo[NPARAM], sq = 0, sq_loo = 0, sq_loo_2d = 0;
    int n_fit = 0, n_2d = 0;
    printf("\n%-14s %6s %10s %12s %12s %8s %12s %8s\n", "workload", "batch", "method",
           "measured_s", "model_s", "error", "held_out_s", "error");
    for (int i = 0; i < NSHIPPED; i++) {
        const fit_wl *w = &ws[i];
        double s;
        int rc = api_sample_s(w, x, &s, err);
        if (rc)
            return rc;
        double e = s / w->wl.sample_time_s - 1;
        printf("%-14s %6lld %10s %12.6g %12.6g %+7.1f%%", w->wl.name, (long long)w->batch,
               w->wl.calibration == WL_CAL_MEASURED ? "measured" : "derived",
               w->wl.sample_time_s, s, 100 * e);
        if (!w->fitted) {
            printf(" %12s %8s  (not fitted)\n", "-", "-");
            continue;
        }
        fit(ws, NSHIPPED, i, free_p, loo);
        double h = model_s(w, loo) / w->wl.sample_time_s - 1;
        printf(" %12.6g %+7.1f%%\n", model_s(w, loo), 100 * h);
        sq += e * e;
        sq_loo += h * h;
        n_fit++;
        if (w->wl.sample.n_spatial == 2) {
            sq_loo_2d += h * h;
            n_2d++;
        }
    }
    printf("\nrms error: fit %.1f%%, leave-one-out %.1f%% (2-D networks %.1f%%); %d measured "
           "points, %d free parameters\n", 100 * sqrt(sq / n_fit), 100 * sqrt(sq_loo / n_fit),
           100 * sqrt(sq_loo_2d / (n_2d ? n_2d : 1)), n_fit, free_p[0] + free_p[1] + free_p[2]);
    return HS_OK;
}

/* Where each workload's modelled time goes: the share of each layer type, and of kernels
 * bound by memory rather than FLOPs. */
static void print_breakdown(const fit_wl *ws, const double *x)
{
    printf("\nshare of the modelled time per layer type (memory-bound kernels' share last)\n");
    printf("%-14s", "workload");
    for (int t = 0; t < WL_TYPE_COUNT; t++)
        printf(" %7s", wl_type_name((wl_type)t));
    printf(" %7s\n", "membound");
    for (int i = 0; i < NSHIPPED; i++) {
        double by_type[WL_TYPE_COUNT] = {0}, total = 0, bound = 0;
        for (int k = 0; k < ws[i].n_terms; k++) {
            const term *t = &ws[i].terms[k];
            double s = term_s(t, x), eff = t->matmul ? x[0] * (t->volumetric ? x[1] : 1) : 1;
            by_type[t->type] += s;
            total += s;
            bound += t->memory_s / x[2] > t->compute_s / eff ? s : 0;
        }
        printf("%-14s", ws[i].wl.name);
        for (int t = 0; t < WL_TYPE_COUNT; t++)
            printf(" %6.1f%%", 100 * by_type[t] / total);
        printf(" %6.1f%%\n", 100 * bound / total);
    }
}

/* ResNet-50 at its profiling batch on every device and precision, with the fitted parameters:
 * what the model says another GPU or precision changes (no measurement checks these). */
static void print_devices(const fit_wl *resnet50, const double *x)
{
    char err[HS_ERR_LEN];
    printf("\n%s at batch %lld, fitted parameters, images/s (forward + backward):\n%-16s",
           resnet50->wl.name, (long long)resnet50->batch, "device");
    for (int p = 0; p < PR_COUNT; p++)
        printf(" %8s", pr_name((pr_precision)p));
    printf("\n");
    for (int i = 0; i < dv_count(); i++) {
        printf("%-16s", dv_at(i)->name);
        for (int p = 0; p < PR_COUNT; p++) {
            kt_model m;
            double s;
            if (kt_model_init(&m, dv_at(i)->name, (pr_precision)p, err) != HS_OK) {
                printf(" %8s", "-");
                continue;
            }
            set_params(&m.params, x);
            if (kt_sample_s(&m, &resnet50->wl, resnet50->batch, &s, err) != HS_OK)
                printf(" %8s", "error");
            else
                printf(" %8.0f", 1 / s);
        }
        printf("\n");
    }
}

/* The committed kt_fitted() against this fit, to 2 decimals (as committed). */
static int check_committed(const double *x, const int *free_p)
{
    kt_params c = kt_fitted();
    double committed[NPARAM] = {c.eff_matmul, c.eff_3d, c.eff_bw};
    int same = 1;
    for (int j = 0; j < NPARAM; j++)
        same &= fabs(committed[j] - x[j]) <= 0.005 + 1e-9 || !free_p[j];
    print_params("committed (kt_fitted)", committed, free_p);
    printf("committed parameters %s the fit\n", same ? "match" : "DO NOT MATCH");
    return same;
}

/* --free eff_matmul,eff_bw (default: all three) */
static int parse_free(const char *list, int *free_p, char *err)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", list);
    memset(free_p, 0, NPARAM * sizeof *free_p);
    for (char *save, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        int found = 0;
        for (int j = 0; j < NPARAM; j++)
            if (strcmp(tok, param_names[j]) == 0)
                free_p[j] = found = 1;
        if (!found)
            return hs_fail(err, HS_EINPUT, "--free: unknown parameter '%s'", tok);
    }
    return HS_OK;
}

int main(int argc, char **argv)
{
    char err[HS_ERR_LEN];
    int free_p[NPARAM] = {1, 1, 1}, check = 0, rc = HS_OK;
    for (int i = 1; i < argc && rc == HS_OK; i++) {
        if (strcmp(argv[i], "--check") == 0)
            check = 1;
        else if (strcmp(argv[i], "--free") == 0 && i + 1 < argc)
            rc = parse_free(argv[++i], free_p, err);
        else
            rc = hs_fail(err, HS_EINPUT, "usage: compute_fit [--free P1,P2..] [--check]");
    }
    static fit_wl ws[NSHIPPED];
    kt_model unit;
    if (rc == HS_OK && (rc = kt_model_init(&unit, "v100-sxm2-16gb", PR_FP32, err)) == HS_OK) {
        double ones[NPARAM] = {1, 1, 1};
        set_params(&unit.params, ones);
        rc = load_all(ws, &unit, err);
    }
    if (rc) {
        fprintf(stderr, "compute_fit: %s\n", err);
        return rc;
    }
    double x[NPARAM];
    fit(ws, NSHIPPED, -1, free_p, x);
    printf("kernel-time model fit on %s, fp32 (launch %.0f us, tensor_rel %.3f: not fitted)\n",
           unit.device->description, 1e6 * unit.device->launch_s, kt_fitted().tensor_rel);
    print_params("fitted", x, free_p);
    if ((rc = print_table(ws, x, free_p, err))) {
        fprintf(stderr, "compute_fit: %s\n", err);
        return rc;
    }
    print_breakdown(ws, x);
    print_devices(&ws[0], x);
    int same = check_committed(x, free_p);
    for (int i = 0; i < NSHIPPED; i++) {
        free(ws[i].terms);
        wl_free(&ws[i].wl);
    }
    return check && !same ? 1 : 0;
}
