/* fuzz_platform_spec.c: a generated machine's spec, "gen:PRESET:FLAG=VALUE,..." with the
 * platform generator's flags (pg_spec_parse, strict as -p takes it), then checked (pg_check);
 * and the writer's promise: a spec pg_spec_format writes reads back to the same parameters,
 * which format to the same text. */
#include "fuzz.h"
#include "platgen.h"

#define SPEC_LEN 2048

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char text[SPEC_LEN], store[SPEC_LEN], store2[SPEC_LEN], out[SPEC_LEN], out2[SPEC_LEN];
    char err[HS_ERR_LEN];
    if (!fuzz_text(data, size, 0, text, sizeof text))
        return 0;
    pg_params p, again;
    if (pg_spec_parse(text, &p, store, sizeof store, 1, err) != HS_OK ||
        pg_check(&p, err) != HS_OK || pg_spec_format(&p, out, sizeof out, err) != HS_OK)
        return 0;
    if (pg_spec_parse(out, &again, store2, sizeof store2, 0, err) != HS_OK ||
        pg_spec_format(&again, out2, sizeof out2, err) != HS_OK || strcmp(out, out2) != 0) {
        fprintf(stderr, "'%s' formats as '%s', which reads back as '%s' (%s)\n", text, out, out2,
                err);
        abort();
    }
    return 0;
}
