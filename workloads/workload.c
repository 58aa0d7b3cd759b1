/* workload.c: STUB until the workloads module lands (see workload.h). */
#include "workload.h"

#include <string.h>

int wl_load(const char *spec, wl_workload *wl, char *err)
{
    memset(wl, 0, sizeof *wl);
    return hs_fail(err, HS_EINTERNAL, "workload loading is not implemented yet (%s)", spec);
}
int wl_apply_layer_file(wl_workload *wl, const char *path, char *err)
{
    return hs_fail(err, HS_EINTERNAL, "layer files are not implemented yet (%s)", path);
}
void wl_free(wl_workload *wl) { (void)wl; }
const char *wl_type_name(wl_type type) { (void)type; return "?"; }
const char *wl_default_dir(void) { return HYBRIDSIM_SOURCE_DIR "/workloads"; }
