/* fuzz_platform_flags.c: `hybridsim platform`'s generator flags (pg_parse_args, one word per
 * line) or, when the input starts with "gen:", a generated platform's spec as -p takes it
 * (pg_spec_parse, strict), then pg_check. A machine that parses and checks must keep
 * pg_spec_format's promise: its spec reads back (pg_spec_parse, not strict) to parameters
 * whose spec is the same text; a broken promise aborts. Nothing is written. */
#include "fuzz.h"
#include "hs_error.h"
#include "platgen.h"

/* The spec of p, read back and formatted again, must be the same text. */
static void round_trip(const pg_params *p)
{
    static char spec[8192], again[8192], store[8192];
    char err[HS_ERR_LEN];
    pg_params q;
    if (pg_spec_format(p, spec, sizeof spec, err) != HS_OK)
        return; /* too long for the buffer: refused with a message, not a broken promise */
    if (pg_spec_parse(spec, &q, store, sizeof store, 0, err) != HS_OK ||
        pg_spec_format(&q, again, sizeof again, err) != HS_OK || strcmp(spec, again) != 0)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[HS_ERR_LEN];
    pg_params p;
    if (size >= 4 && memcmp(data, PG_SPEC_PREFIX, 4) == 0) {
        static char text[4096], store[4096];
        if (!fuzz_text(data, size, 0, text, sizeof text))
            return 0;
        if (pg_spec_parse(text, &p, store, sizeof store, 1, err) == HS_OK &&
            pg_check(&p, err) == HS_OK)
            round_trip(&p);
        return 0;
    }
    char *argv[FUZZ_MAX_ARGS], *text;
    const char *out;
    int help, argc = fuzz_argv(data, size, "platform", argv, &text);
    if (argc > 0 && pg_parse_args(argc, argv, &p, &out, &help, err) == HS_OK && !help &&
        pg_check(&p, err) == HS_OK)
        round_trip(&p);
    free(text);
    return 0;
}
