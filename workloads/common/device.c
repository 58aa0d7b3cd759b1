/* device.c: the device table (device.h). platforms/README.md ("GPU devices") gives the source of
 * every number; the comments here name it in short. "derived" marks a number computed from
 * others (the arithmetic is in the README), never a guess. */
#define _POSIX_C_SOURCE 200809L /* strcasecmp */
#include "device.h"

#include <stdio.h>
#include <strings.h>

#define TF 1e12
#define GB 1e9
#define LAUNCH_S 5e-6 /* ~3 us null-kernel launch on current drivers plus the gap between
                       * dependent kernels (NVIDIA forum 233645, Nsight Systems blog) */

/* The fraction of the peak memory bandwidth a streaming kernel reaches: the V100's measured
 * 750 of 900 GB/s (Jia et al., "Dissecting the NVIDIA Volta GPU Architecture via
 * Microbenchmarking", arXiv:1804.06826). No microbenchmark is cited here for the others: they
 * are assumed alike (platforms/README.md, "GPU devices"). */
#define STREAM_FRAC 0.83

/* The fraction of the peak arithmetic rates a board sustains in training (device.h,
 * sustained_frac). PEAK: no source gives less, the board is taken at its peaks. The A100 PCIe
 * 40 GB (250 W against the SXM4's 400 W, the same peaks): NVIDIA's specification at the PCIe
 * launch, "Relative Performance (SXM Version) 90%" (AnandTech, "NVIDIA Announces PCIe A100
 * Accelerator: 250 Watt Ampere In A Standard Form Factor", 22 June 2020, its specification
 * table; hardwaretimes.com the same day: "As per NVIDIA's official documentation, the PCIe
 * 4.0 variant offers 90% performance of the SMX4 version"): a clock the power limit holds
 * below the boost clock of the peaks. */
#define PEAK 1.0
#define A100_PCIE_250W_FRAC 0.90

static const dv_device dv_table[] = {
    /* Pascal whitepaper WP-08019-001, Table 1 (SXM2, 1480 MHz boost). No tensor cores. */
    {"p100-sxm2", "P100-16GB", "NVIDIA Tesla P100 SXM2 16 GB", DV_PASCAL, 56, 10.6 * TF, 21.2 * TF,
     0, 0, 0, 16 * GB, 720 * GB, STREAM_FRAC, LAUNCH_S, PEAK},
    /* P100 datasheet, PCIe 16 GB column (1303 MHz boost): 9.3 TF FP32, 18.7 TF FP16, 732 GB/s.
     * DeepBench's P100 (a PCIe board: its workstation has only PCIe slots). */
    {"p100-pcie", "P100-PCIe-16GB", "NVIDIA Tesla P100 PCIe 16 GB", DV_PASCAL, 56, 9.3 * TF,
     18.7 * TF, 0, 0, 0, 16 * GB, 732 * GB, STREAM_FRAC, LAUNCH_S, PEAK},
    /* Volta whitepaper WP-08608-001 Table 1, V100 datasheet (1530 MHz). FP16 on CUDA cores is
     * derived: 2 x FP32. No TF32, no BF16. */
    {"v100-sxm2-16gb", "V100-16GB", "NVIDIA Tesla V100 SXM2 16 GB", DV_VOLTA, 80, 15.7 * TF,
     31.4 * TF, 0, 125 * TF, 0, 16 * GB, 900 * GB, STREAM_FRAC, LAUNCH_S, PEAK},
    {"v100-sxm2-32gb", "V100-32GB", "NVIDIA Tesla V100 SXM2 32 GB", DV_VOLTA, 80, 15.7 * TF,
     31.4 * TF, 0, 125 * TF, 0, 32 * GB, 900 * GB, STREAM_FRAC, LAUNCH_S, PEAK},
    /* DGX-2H datasheet: 16 V100 SXM3 32 GB (450 W) give 2.1 PFLOPS tensor, 131 TF a GPU: 1.05 x
     * the SXM2's clock; FP32 and FP16 derived at that clock (16.4, 32.9). */
    {"v100-sxm3-32gb", "V100-SXM3-32GB", "NVIDIA Tesla V100 SXM3 32 GB (DGX-2H, 450 W)", DV_VOLTA,
     80, 16.4 * TF, 32.9 * TF, 0, 131 * TF, 0, 32 * GB, 900 * GB, STREAM_FRAC, LAUNCH_S, PEAK},
    /* V100 datasheet, PCIe column (1380 MHz): 14 TF FP32, 112 TF tensor; FP16 derived 2 x FP32. */
    {"v100-pcie", "V100-PCIe-16GB", "NVIDIA Tesla V100 PCIe 16 GB", DV_VOLTA, 80, 14 * TF, 28 * TF,
     0, 112 * TF, 0, 16 * GB, 900 * GB, STREAM_FRAC, LAUNCH_S, PEAK},
    /* V100 datasheet, V100S PCIe column (250 W, 1601 MHz boost): 16.4 TF FP32, 130 TF tensor,
     * 32 GB HBM2 at 1134 GB/s; FP16 derived 2 x FP32. DellEMC's DSS8440 in MLPerf v0.7. */
    {"v100s-pcie-32gb", "V100S-PCIe-32GB", "NVIDIA Tesla V100S PCIe 32 GB", DV_VOLTA, 80,
     16.4 * TF, 32.8 * TF, 0, 130 * TF, 0, 32 * GB, 1134 * GB, STREAM_FRAC, LAUNCH_S, PEAK},
    /* T4 datasheet (Turing TU104, 70 W, 1590 MHz boost): 8.1 TF FP32, 65 TF FP16 tensor, 320
     * GB/s GDDR6; 40 SMs (Turing whitepaper: 2560 CUDA cores, 64 a SM); FP16 on CUDA cores
     * derived 2 x FP32. The DeepBench T4 sheets. */
    {"t4", "T4-16GB", "NVIDIA T4 16 GB", DV_TURING, 40, 8.1 * TF, 16.2 * TF, 0, 65 * TF, 0,
     16 * GB, 320 * GB, STREAM_FRAC, LAUNCH_S, PEAK},
    /* Ampere whitepaper Table 1, A100 datasheet (SXM4, 1410 MHz); tensor rates dense. */
    {"a100-40gb", "A100-40GB", "NVIDIA A100 SXM4 40 GB", DV_AMPERE, 108, 19.5 * TF, 78 * TF,
     156 * TF, 312 * TF, 312 * TF, 40 * GB, 1555 * GB, STREAM_FRAC, LAUNCH_S, PEAK},
    {"a100-80gb", "A100-80GB", "NVIDIA A100 SXM4 80 GB", DV_AMPERE, 108, 19.5 * TF, 78 * TF,
     156 * TF, 312 * TF, 312 * TF, 80 * GB, 2039 * GB, STREAM_FRAC, LAUNCH_S, PEAK},
    /* A100 datasheet, PCIe columns (250 W for 40 GB, 300 W for 80 GB): the SXM4's peak rates,
     * 1555 and 1935 GB/s. The 250 W board sustains 0.90 of them: NVIDIA's specification at its
     * launch, "Relative Performance (SXM Version) 90%" (AnandTech, 22 June 2020). None is
     * published for the 300 W board: 1. */
    {"a100-pcie-40gb", "A100-PCIe-40GB", "NVIDIA A100 PCIe 40 GB", DV_AMPERE, 108, 19.5 * TF,
     78 * TF, 156 * TF, 312 * TF, 312 * TF, 40 * GB, 1555 * GB, STREAM_FRAC, LAUNCH_S,
     A100_PCIE_250W_FRAC},
    {"a100-pcie-80gb", "A100-PCIe-80GB", "NVIDIA A100 PCIe 80 GB", DV_AMPERE, 108, 19.5 * TF,
     78 * TF, 156 * TF, 312 * TF, 312 * TF, 80 * GB, 1935 * GB, STREAM_FRAC, LAUNCH_S, PEAK},
    /* Hopper whitepaper WP-10792-001 Table 3, H100 datasheet (SXM5): dense tensor rates (the
     * datasheet's headline figures are with 2:4 sparsity, twice these). */
    {"h100-sxm5", "H100-80GB", "NVIDIA H100 SXM5 80 GB", DV_HOPPER, 132, 66.9 * TF, 133.8 * TF,
     494.7 * TF, 989.4 * TF, 989.4 * TF, 80 * GB, 3350 * GB, STREAM_FRAC, LAUNCH_S, PEAK},
    /* The older GPUs of DeepBench's FP32 sheets, never fitted on (experiments/compute/fit.c
     * predicts their kernels). GP102 (Pascal) and GM200 (Maxwell) have 128 FP32 CUDA cores a
     * SM (GeForce GTX 1080 whitepaper, GP104's SM, which GP102 repeats; GeForce GTX 980
     * whitepaper, Maxwell's SMM): SMs = cores / 128. FP32 = cores x 2 x the boost clock, the
     * clock the vendors' TFLOPS are quoted at (platforms/README.md, "GPU devices", says why
     * the boost and not what a GeForce board may reach above it). FP16 on CUDA cores (CUDA C
     * Programming Guide, "Arithmetic Instructions", results a clock a SM): compute capability
     * 6.1 2 against FP32's 128, a 64th; 5.2 none (FP16 a storage format only): 0. No tensor
     * cores. Bandwidth = bus bits / 8 x data rate, as the spec pages give it. */
    /* GeForce GTX 1080 Ti specification page (nvidia.com): 3584 cores, 1582 MHz boost, 11 GB
     * GDDR5X at 11 Gbps on 352 bits, 484 GB/s. 11.34 TF = 3584 x 2 x 1.582 GHz. */
    {"gtx1080ti", "GTX1080Ti-11GB", "NVIDIA GeForce GTX 1080 Ti 11 GB", DV_PASCAL, 28,
     11.34 * TF, 11.34 * TF / 64, 0, 0, 0, 11 * GB, 484 * GB, STREAM_FRAC, LAUNCH_S, PEAK},
    /* NVIDIA TITAN X (Pascal) specification page: 3584 cores, 1531 MHz boost ("11 TFLOPS"),
     * 12 GB GDDR5X at 10 Gbps on 384 bits, 480 GB/s. 10.97 TF = 3584 x 2 x 1.531 GHz. */
    {"titan-x-pascal", "TitanXPascal-12GB", "NVIDIA TITAN X (Pascal) 12 GB", DV_PASCAL, 28,
     10.97 * TF, 10.97 * TF / 64, 0, 0, 0, 12 * GB, 480 * GB, STREAM_FRAC, LAUNCH_S, PEAK},
    /* NVIDIA TITAN Xp specification page: 3840 cores (the whole GP102), 1582 MHz boost, 12 GB
     * GDDR5X at 11.4 Gbps on 384 bits, 547.7 GB/s. 12.15 TF = 3840 x 2 x 1.582 GHz. */
    {"titan-xp", "TitanXp-12GB", "NVIDIA TITAN Xp 12 GB", DV_PASCAL, 30, 12.15 * TF,
     12.15 * TF / 64, 0, 0, 0, 12 * GB, 547.7 * GB, STREAM_FRAC, LAUNCH_S, PEAK},
    /* GeForce GTX TITAN X specification page (Maxwell GM200): 3072 cores, 1000 MHz base,
     * 1075 MHz boost, 12 GB GDDR5 at 7 Gbps on 384 bits, 336.5 GB/s. 6.60 TF = 3072 x 2 x
     * 1.075 GHz. */
    {"titan-x-maxwell", "TitanXMaxwell-12GB", "NVIDIA GeForce GTX TITAN X (Maxwell) 12 GB",
     DV_MAXWELL, 24, 6.60 * TF, 0, 0, 0, 0, 12 * GB, 336.5 * GB, STREAM_FRAC, LAUNCH_S, PEAK},
    /* Tesla M40 datasheet (GM200): 3072 cores, "7 Teraflops" single precision with GPU Boost,
     * 12 GB GDDR5, 288 GB/s; its board specification: 948 MHz base, 1114 MHz boost. 6.84 TF
     * = 3072 x 2 x 1.114 GHz (the datasheet's 7 rounded). The 24 GB board of November 2015
     * has the same clocks and bandwidth; DeepBench's sheet names no memory size. */
    {"m40", "M40-12GB", "NVIDIA Tesla M40 12 GB", DV_MAXWELL, 24, 6.84 * TF, 0, 0, 0, 0,
     12 * GB, 288 * GB, STREAM_FRAC, LAUNCH_S, PEAK},
};

#define DV_COUNT ((int)(sizeof dv_table / sizeof dv_table[0]))

const dv_device *dv_find(const char *name)
{
    if (!name)
        return NULL;
    for (int i = 0; i < DV_COUNT; i++)
        if (strcasecmp(name, dv_table[i].name) == 0 || strcasecmp(name, dv_table[i].model) == 0)
            return &dv_table[i];
    return NULL;
}

int dv_count(void)
{
    return DV_COUNT;
}

const dv_device *dv_at(int index)
{
    return index >= 0 && index < DV_COUNT ? &dv_table[index] : NULL;
}

double dv_sustained_flops(const dv_device *d, double peak_flops)
{
    return peak_flops * d->sustained_frac;
}

const char *dv_arch_name(dv_arch arch)
{
    static const char *const names[DV_ARCH_COUNT] = {"pascal", "volta", "turing", "ampere",
                                                     "hopper", "maxwell"};
    return (unsigned)arch < DV_ARCH_COUNT ? names[arch] : "?";
}

void dv_names(char *buf, size_t len)
{
    size_t used = 0;
    if (len)
        buf[0] = '\0';
    for (int i = 0; i < DV_COUNT && used < len; i++)
        used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? ", " : "", dv_table[i].name);
}
