/* precision.c: bytes and FLOP rates per precision (precision.h says where they come from). */
#include "precision.h"

#include <string.h>

static const char *const pr_names[PR_COUNT] = {"fp32", "mixed", "bf16", "tf32"};

int pr_parse(const char *text, pr_precision *out, char *err)
{
    for (int p = 0; p < PR_COUNT; p++)
        if (text && strcmp(text, pr_names[p]) == 0) {
            *out = (pr_precision)p;
            return HS_OK;
        }
    return hs_fail(err, HS_EINPUT, "--precision: unknown precision '%s' (known: fp32, mixed, "
                   "bf16, tf32)", text ? text : "");
}

const char *pr_name(pr_precision precision)
{
    return (unsigned)precision < PR_COUNT ? pr_names[precision] : "?";
}

/* 4 bytes in FP32 and TF32 (an FP32 storage format), 2 in the 16-bit formats. */
static double storage_bytes(pr_precision precision)
{
    return precision == PR_FP32 || precision == PR_TF32 ? 4.0 : 2.0;
}

double pr_activation_bytes(pr_precision precision)
{
    return storage_bytes(precision);
}

double pr_message_bytes(pr_precision precision)
{
    return storage_bytes(precision);
}

double pr_gradient_message_bytes(pr_precision precision)
{
    return storage_bytes(precision);
}

double pr_weight_bytes(pr_precision precision)
{
    return storage_bytes(precision);
}

double pr_weight_gradient_bytes(pr_precision precision)
{
    return storage_bytes(precision);
}

double pr_master_bytes(pr_precision precision)
{
    /* FP32 (and TF32) weights are their own master copy */
    return storage_bytes(precision) == 4.0 ? 0.0 : 4.0;
}

double pr_state_bytes(pr_precision precision)
{
    (void)precision;
    return 4.0;
}

double pr_parameter_bytes(pr_precision precision, int optimizer_states)
{
    return pr_weight_bytes(precision) + pr_weight_gradient_bytes(precision) +
           pr_master_bytes(precision) + optimizer_states * pr_state_bytes(precision);
}

double pr_mask_bytes(void)
{
    return 1.0;
}

/* The datasheet's peak of the units that multiply in `precision`. */
static double matmul_peak(const dv_device *dev, pr_precision precision)
{
    switch (precision) {
    case PR_FP32:
        return dev->fp32_flops;
    case PR_MIXED:
        return dev->fp16_tensor_flops > 0 ? dev->fp16_tensor_flops : dev->fp32_flops;
    case PR_BF16:
        return dev->bf16_tensor_flops;
    case PR_TF32:
        return dev->tf32_tensor_flops;
    case PR_COUNT:
        break;
    }
    return 0;
}

double pr_matmul_flops(const dv_device *dev, pr_precision precision)
{
    return dv_sustained_flops(dev, matmul_peak(dev, precision));
}

double pr_vector_flops(const dv_device *dev, pr_precision precision)
{
    (void)precision;
    return dv_sustained_flops(dev, dev->fp32_flops);
}

int pr_tensor_cores(const dv_device *dev, pr_precision precision)
{
    switch (precision) {
    case PR_MIXED:
        return dev->fp16_tensor_flops > 0;
    case PR_BF16:
    case PR_TF32:
        return 1;
    default:
        return 0;
    }
}

int pr_tensor_multiple(pr_precision precision)
{
    return precision == PR_TF32 ? 4 : precision == PR_FP32 ? 1 : 8;
}

int pr_check_device(const dv_device *dev, pr_precision precision, char *err)
{
    if (pr_matmul_flops(dev, precision) > 0)
        return HS_OK;
    return hs_fail(err, HS_EINPUT, "--precision %s: the %s (%s) cannot compute in it (no %s "
                   "tensor cores)", pr_name(precision), dev->description, dev->name,
                   precision == PR_BF16 ? "BF16" : precision == PR_TF32 ? "TF32" : "suitable");
}
