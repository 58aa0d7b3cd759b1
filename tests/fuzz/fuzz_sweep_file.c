/* fuzz_sweep_file.c: a sweep file (sw_read_sweep_file: keys, lists, ranges, continuation
 * lines) and its plan (sw_plan_make: the cross product, batch rules, each configuration's
 * checks), without running anything. */
#include "fuzz.h"
#include "hs_error.h"
#include "sweep_int.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[HS_ERR_LEN];
    const char *path = fuzz_file(0, data, size, ".sweep");
    sw_arena a = {0};
    sw_spec spec = {0};
    sw_plan plan = {0};
    if (path && sw_read_sweep_file(path, &spec, &a, err) == HS_OK)
        sw_plan_make(&spec, false, &plan, &a, err);
    sw_plan_free(&plan);
    sw_spec_free(&spec);
    sw_arena_free(&a);
    return 0;
}
