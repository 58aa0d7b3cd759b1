/* strategy.c: STUB until the strategy parser lands (see strategy.h). */
#include "strategy.h"

int st_parse(const char *text, int p, int gpus_per_node, int segments, st_strategy *st, char *err)
{
    return hs_fail(err, HS_EINTERNAL, "strategies are not implemented yet");
}
int st_check(const st_strategy *st, const wl_workload *wl, int64_t batch, char *err)
{
    return hs_fail(err, HS_EINTERNAL, "strategies are not implemented yet");
}
int64_t st_limit_p(const st_strategy *st, const wl_workload *wl, int64_t batch) { return 0; }
unsigned st_split_bit(st_kind kind) { return 0; }
const char *st_kind_name(st_kind kind) { return "?"; }
