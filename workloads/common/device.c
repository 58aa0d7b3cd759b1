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

static const dv_device dv_table[] = {
    /* Pascal whitepaper WP-08019-001, Table 1 (SXM2, 1480 MHz boost). No tensor cores. */
    {"p100-sxm2", "P100-16GB", "NVIDIA Tesla P100 SXM2 16 GB", 56, 10.6 * TF, 21.2 * TF, 0, 0, 0,
     16 * GB, 720 * GB, LAUNCH_S},
    /* Volta whitepaper WP-08608-001 Table 1, V100 datasheet (1530 MHz). FP16 on CUDA cores is
     * derived: 2 x FP32. No TF32, no BF16. */
    {"v100-sxm2-16gb", "V100-16GB", "NVIDIA Tesla V100 SXM2 16 GB", 80, 15.7 * TF, 31.4 * TF, 0,
     125 * TF, 0, 16 * GB, 900 * GB, LAUNCH_S},
    {"v100-sxm2-32gb", "V100-32GB", "NVIDIA Tesla V100 SXM2 32 GB", 80, 15.7 * TF, 31.4 * TF, 0,
     125 * TF, 0, 32 * GB, 900 * GB, LAUNCH_S},
    /* V100 datasheet, PCIe column (1380 MHz): 14 TF FP32, 112 TF tensor; FP16 derived 2 x FP32. */
    {"v100-pcie", "V100-PCIe-16GB", "NVIDIA Tesla V100 PCIe 16 GB", 80, 14 * TF, 28 * TF, 0,
     112 * TF, 0, 16 * GB, 900 * GB, LAUNCH_S},
    /* Ampere whitepaper Table 1, A100 datasheet (SXM4, 1410 MHz); tensor rates dense. */
    {"a100-40gb", "A100-40GB", "NVIDIA A100 SXM4 40 GB", 108, 19.5 * TF, 78 * TF, 156 * TF,
     312 * TF, 312 * TF, 40 * GB, 1555 * GB, LAUNCH_S},
    {"a100-80gb", "A100-80GB", "NVIDIA A100 SXM4 80 GB", 108, 19.5 * TF, 78 * TF, 156 * TF,
     312 * TF, 312 * TF, 80 * GB, 2039 * GB, LAUNCH_S},
    /* Hopper whitepaper WP-10792-001 Table 3, H100 datasheet (SXM5): dense tensor rates (the
     * datasheet's headline figures are with 2:4 sparsity, twice these). */
    {"h100-sxm5", "H100-80GB", "NVIDIA H100 SXM5 80 GB", 132, 66.9 * TF, 133.8 * TF, 494.7 * TF,
     989.4 * TF, 989.4 * TF, 80 * GB, 3350 * GB, LAUNCH_S},
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

void dv_names(char *buf, size_t len)
{
    size_t used = 0;
    if (len)
        buf[0] = '\0';
    for (int i = 0; i < DV_COUNT && used < len; i++)
        used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? ", " : "", dv_table[i].name);
}
