/* fuzz_hs_parse.c: the number and range parsers every flag goes through (hs_parse.h), and
 * --trace-gpus on top of them. The first byte chooses the parser and the bounds. */
#include "fuzz.h"
#include "hs_parse.h"
#include "trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[HS_ERR_LEN], text[4097];
    if (!fuzz_text(data, size, 1, text, sizeof text))
        return 0;
    int64_t v = 0;
    hs_ranges r = {0};
    tr_gpu_set gpus = {0};
    const char *bad;
    size_t bad_len;
    switch (data[0] % 5) {
    case 0: hs_parse_whole(text, size - 1, INT64_MIN, INT64_MAX, &v); break;
    case 1: hs_parse_int64("-x", text, 1, 1 << 20, &v, err); break;
    case 2: hs_parse_ranges(text, ',', &r, &bad, &bad_len); break;
    case 3: hs_parse_ranges(text, '+', &r, &bad, &bad_len); break;
    default: tr_parse_gpus(text, &gpus, err); break;
    }
    hs_ranges_free(&r);
    tr_gpus_free(&gpus);
    return 0;
}
