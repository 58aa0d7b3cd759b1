/* fit_load.c: reads Baidu DeepBench's measured kernels (deepbench-<GPU>.tsv, the columns the
 * shared reference's importer wrote) into compute_fit's kernels: a GEMM row is one kernel, a
 * convolution row three (forward, input gradient, weight gradient), each an in-memory layer
 * (lw_kernel) timed by the simulator's own path; on the tensor cores at the padded shapes
 * DeepBench ran (fit.c's top comment says why), and each kernel put in its part: fitted, held
 * out (a fitted GPU's sheet row a multiple of 4) or never fitted. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fit.h"

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

int fit_load_all(fit_data *d, const char *dir, char *err)
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

