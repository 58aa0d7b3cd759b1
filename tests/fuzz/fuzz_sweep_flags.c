/* fuzz_sweep_flags.c: `hybridsim sweep`'s command line (sw_parse_flags, one word per line)
 * and the plan it makes (sw_plan_make), without running, emitting or merging anything; then,
 * the input freed, a fixed command line parsed again: getopt_long keeps state between calls
 * (a parse stopped inside "-ab" left it pointing into the freed words, found by this fuzzer). */
#include "fuzz.h"
#include "hs_error.h"
#include "sweep_int.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[HS_ERR_LEN], *argv[FUZZ_MAX_ARGS], *text;
    int argc = fuzz_argv(data, size, "sweep", argv, &text);
    sw_arena a = {0};
    sw_spec spec = {0};
    sw_plan plan = {0};
    sw_cmdline cl = {.stop_after = -1};
    if (argc > 0 && sw_parse_flags(argc, argv, &spec, &cl, &a, err) == HS_OK)
        sw_plan_make(&spec, false, &plan, &a, err);
    sw_plan_free(&plan);
    sw_spec_free(&spec);
    sw_arena_free(&a);
    free(text);
    char *again[] = {"sweep", "-m", "analytic", "-w", "resnet50", "-o", "x.csv", NULL};
    cl = (sw_cmdline){.stop_after = -1};
    spec = (sw_spec){0};
    a = (sw_arena){0};
    sw_parse_flags(7, again, &spec, &cl, &a, err);
    sw_spec_free(&spec);
    sw_arena_free(&a);
    return 0;
}
