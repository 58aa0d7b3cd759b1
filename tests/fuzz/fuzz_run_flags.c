/* fuzz_run_flags.c: the flags of analytic, simulate and compare (cli_parse_run_options: every
 * flag's value, the rules between flags; one word per line), without loading or running
 * anything; then, the input freed, a fixed command line parsed again (getopt_long's state
 * between calls, as in fuzz_sweep_flags.c). --help is left out (it prints the usage). */
#include "cli_int.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[HS_ERR_LEN], *argv[FUZZ_MAX_ARGS], *text;
    int argc = fuzz_flag_argv(data, size, "simulate", argv, &text);
    cli_options o;
    memset(&o, 0, sizeof o);
    o.command = (cli_command)(size % 3);
    o.layers_top = 10;
    if (argc > 0)
        cli_parse_run_options(argc, argv, &o, err);
    tr_gpus_free(&o.trace_gpus);
    free(text);
    char *again[] = {"simulate", "-w", "resnet50", "-g", "4", NULL};
    memset(&o, 0, sizeof o);
    cli_parse_run_options(5, again, &o, err);
    return 0;
}
