/* compute_helpers.h: what the kernel-time model's tests share (test_compute*.c): a model of a
 * device in a precision that fails the test when it cannot be built.
 * Header-only; include after <cmocka.h>. */
#ifndef COMPUTE_HELPERS_H
#define COMPUTE_HELPERS_H

#include "compute.h"

/* The model of `device` in `precision` with the fitted parameters and the neutral runtime
 * (kt_model_init); fails the test on an error. */
static inline kt_model model_ok(const char *device, pr_precision precision)
{
    char err[HS_ERR_LEN] = "";
    kt_model m;
    if (kt_model_init(&m, device, precision, err) != HS_OK)
        fail_msg("kt_model_init: %s", err);
    return m;
}

#endif
