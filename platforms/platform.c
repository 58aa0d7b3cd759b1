/* platform.c: STUB until the platforms module lands (see platform.h). */
#include "platform.h"

#include <string.h>

int plat_load(const char *spec, plat_platform *plat, char *err)
{
    memset(plat, 0, sizeof *plat);
    return hs_fail(err, HS_EINTERNAL, "platform loading is not implemented yet (%s)", spec);
}
void plat_free(plat_platform *plat) { (void)plat; }
void plat_route(const plat_platform *plat, int a, int b, double *latency_s, double *bandwidth_Bps)
{
    *latency_s = 0;
    *bandwidth_Bps = 0;
}
void plat_ring_cost(const plat_platform *plat, const int *gpu, int n, double *alpha_s,
                    double *beta_s_per_byte)
{
    *alpha_s = 0;
    *beta_s_per_byte = 0;
}
const char *plat_default_dir(void) { return HYBRIDSIM_SOURCE_DIR "/platforms"; }
