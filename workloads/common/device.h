/* device.h: the GPUs hybridsim knows, as their spec sheets describe them (dv_).
 *
 * One row per GPU model: streaming multiprocessors, peak FLOP rates per kind of arithmetic
 * (CUDA cores in FP32 and FP16, tensor cores in TF32, FP16 and BF16; 0 where the GPU has
 * none), memory size and bandwidth, the kernel launch overhead, and the fraction of the peak
 * rates a board of low power sustains. Every value comes from a vendor whitepaper, datasheet
 * or launch specification; platforms/README.md ("GPU devices") lists each with its source.
 * This is vocabulary, not a model: the kernel-time model (workloads/compute/) reads these
 * numbers, `hybridsim platform --gpu NAME` writes the name into a platform file, and the
 * platform check accepts only names found here.
 *
 * Units are SI: FLOP/s (a multiply-add counts 2), bytes (10^9 per GB, as the datasheets write
 * them), bytes per second, seconds. */
#ifndef DEVICE_H
#define DEVICE_H

#include <stddef.h>

/* GPU generations: the kernel-time model's efficiencies are fitted per generation on measured
 * kernels (workloads/compute/compute.h). Maxwell comes last so that the others keep their
 * values; it was never fitted and takes Pascal's (kernel_time.c says why). */
typedef enum {
    DV_PASCAL = 0,
    DV_VOLTA,
    DV_TURING,
    DV_AMPERE,
    DV_HOPPER,
    DV_MAXWELL,
    DV_ARCH_COUNT
} dv_arch;

typedef struct {
    const char *name;         /* what --gpu takes, e.g. "v100-sxm2-16gb" */
    const char *model;        /* the platforms' and workloads' short label, e.g. "V100-16GB" */
    const char *description;  /* e.g. "NVIDIA Tesla V100 SXM2 16 GB" */
    dv_arch arch;             /* its generation */
    int sms;                  /* streaming multiprocessors */
    double fp32_flops;        /* CUDA cores, FP32 */
    double fp16_flops;        /* CUDA cores, FP16 (non-tensor); 0: no FP16 arithmetic (Maxwell
                               * GM200), below FP32 where its FP16 units are few (GP102) */
    double tf32_tensor_flops; /* tensor cores, TF32 inputs, dense; 0: none */
    double fp16_tensor_flops; /* tensor cores, FP16 inputs, FP32 accumulate, dense; 0: none */
    double bf16_tensor_flops; /* tensor cores, BF16 inputs, dense; 0: none */
    double memory_bytes;      /* device memory */
    double memory_bw_Bps;     /* peak device memory bandwidth */
    double stream_bw_frac;    /* fraction of it a streaming kernel reaches (a microbenchmark's
                               * copy or triad over the peak) */
    double launch_s;          /* GPU-side cost of launching one kernel (set by the driver and
                               * the CPU, not the GPU generation: the same on every row) */
    double sustained_frac;    /* fraction of the peak arithmetic rates above the board sustains
                               * in training under its power limit (the peaks are at the boost
                               * clock, which a board of low power cannot hold): 1 unless a
                               * source gives less */
} dv_device;

/* The device called `name`: its name ("a100-40gb") or its model label ("A100-40GB"), in any
 * letter case. NULL when unknown. */
const dv_device *dv_find(const char *name);

/* The table, for listings: dv_count() rows, dv_at(0 .. dv_count()-1). */
int dv_count(void);
const dv_device *dv_at(int index);

/* A peak arithmetic rate of d (one of its *_flops) as the board sustains it in training:
 * peak_flops x d->sustained_frac. Every kernel time computes from these, never the peaks. */
double dv_sustained_flops(const dv_device *d, double peak_flops);

/* "volta" for DV_VOLTA, ... */
const char *dv_arch_name(dv_arch arch);

/* "p100-sxm2, v100-sxm2-16gb, ..." into buf (256 bytes hold them all), for messages naming the
 * known devices. */
void dv_names(char *buf, size_t len);

#endif
