/* engine.c: STUB until the SimGrid engine lands (see engine.h). */
#include "engine.h"

#include <string.h>

int eng_run(const tg_graph *g, const plat_platform *plat, const int *gpu_of_rank,
            const eng_options *opt, eng_result *res, char *err)
{
    memset(res, 0, sizeof *res);
    return hs_fail(err, HS_EINTERNAL, "the simulation engine is not implemented yet");
}
void eng_result_free(eng_result *res) { (void)res; }
