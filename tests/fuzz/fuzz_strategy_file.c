/* fuzz_strategy_file.c: a per-layer strategy file (`-s FILE.xml`: st_plan_load, libxml2, the
 * DTD, the checks against the workload) for AlexNet, then the plan's own check at its GPUs
 * (st_plan_check) when it loads. */
#include "fuzz.h"
#include "strategy.h"

static wl_workload alexnet;
static int loaded; /* 1: alexnet is there, -1: it could not be loaded */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[HS_ERR_LEN];
    if (!loaded)
        loaded = wl_load("alexnet", &alexnet, err) == HS_OK ? 1 : -1;
    if (loaded < 0) {
        fprintf(stderr, "fuzz_strategy_file: %s\n", err);
        abort();
    }
    const char *path = fuzz_file(0, data, size, ".xml");
    if (!path)
        return 0;
    st_plan plan;
    if (st_plan_load(path, &alexnet, &plan, err) != HS_OK)
        return 0;
    st_plan_check(&plan, &alexnet, plan.gpus, 256, err);
    st_plan_free(&plan);
    return 0;
}
