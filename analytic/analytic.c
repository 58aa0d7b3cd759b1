/* analytic.c: STUB until the analytic model lands (see analytic.h). */
#include "analytic.h"

int an_estimate(const wl_workload *wl, const plat_platform *plat, const st_strategy *st,
                int64_t batch, hs_estimate *est, char *err)
{
    return hs_fail(err, HS_EINTERNAL, "the analytic model is not implemented yet");
}
