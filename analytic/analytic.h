/* analytic.h: ParaDL's closed-form model of one training iteration and epoch (PARADL-MODEL.md).
 *
 * Compute comes from the workload's measured per-sample layer times, communication from the
 * ring/point-to-point alpha-beta costs with alpha and beta taken from the platform's routes
 * between the GPUs that talk, memory from the tensor sizes. No contention, no overlap: this is
 * the baseline the simulator is compared with. */
#ifndef ANALYTIC_H
#define ANALYTIC_H

#include <stdint.h>

#include "estimate.h"
#include "platform.h"
#include "strategy.h"
#include "workload.h"

/* Estimate one configuration. Checks the strategy (st_check) and that p fits the platform;
 * returns HS_EINPUT with a message otherwise. */
int an_estimate(const wl_workload *wl, const plat_platform *plat, const st_strategy *st,
                int64_t batch, hs_estimate *est, char *err);

#endif
