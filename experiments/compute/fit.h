/* fit.h: what fit.c (the fit and its report) and fit_load.c (DeepBench's sheets read into
 * kernels) share: the GPUs the fit reads, each kernel with its measured time and its part
 * (fitted, held out, never fitted), and the data of one fit. Private to compute_fit. */
#ifndef FIT_H
#define FIT_H

#include "compute.h"

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

/* Every kernel of the eight GPUs' sheets deepbench-<GPU>.tsv in dir into d (d->k allocated,
 * the GPUs' models initialised): HS_OK, or HS_EINPUT / HS_EINTERNAL with err set. */
int fit_load_all(fit_data *d, const char *dir, char *err);

#endif
