/* expand.c: STUB until the strategy expansion lands (see expand.h). */
#include "expand.h"

int ex_expand(const wl_workload *wl, const st_strategy *st, int64_t batch, tg_graph *g, char *err)
{
    return hs_fail(err, HS_EINTERNAL, "strategy expansion is not implemented yet");
}
