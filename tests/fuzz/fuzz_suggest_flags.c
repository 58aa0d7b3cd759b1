/* fuzz_suggest_flags.c: `hybridsim suggest`'s flags (cli_parse_suggest: every flag's value,
 * the rules between flags; one word per line), without pricing or simulating; then, the input
 * freed, a fixed command line parsed again (getopt_long's state between calls, as in
 * fuzz_sweep_flags.c). --help is left out (it prints the usage). */
#include "cli_int.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[HS_ERR_LEN], *argv[FUZZ_MAX_ARGS], *text;
    int argc = fuzz_flag_argv(data, size, "suggest", argv, &text);
    cli_suggest_options o = {.platform = "abci", .top = 5};
    if (argc > 0)
        cli_parse_suggest(argc, argv, &o, err);
    free(text);
    char *again[] = {"suggest", "-w", "alexnet", "-g", "4", "-b", "64", NULL};
    o = (cli_suggest_options){.platform = "abci", .top = 5};
    if (cli_parse_suggest(7, again, &o, err) != HS_OK || o.job.gpus != 4 || o.job.batch != 64)
        abort(); /* an earlier input left getopt in a state that misreads a good line */
    return 0;
}
