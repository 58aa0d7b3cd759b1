/* fuzz_strategy.c: the -s text (st_parse: kinds, hybrids' P1xP2) for a GPU count and GPUs per
 * node taken from the first two bytes, then checked against a small workload and batch
 * (st_check, st_limit_p). */
#include "fuzz.h"
#include "strategy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[HS_ERR_LEN], text[513];
    if (!fuzz_text(data, size, 2, text, sizeof text))
        return 0;
    int p = 1 + data[0], per_node = 1 + data[1] % 16;
    st_strategy st;
    if (st_parse(text, p, per_node, data[0] % 3, &st, err) != HS_OK)
        return 0;
    static wl_workload wl; /* loaded once: a real workload, so that limits mean something */
    static int loaded = -1;
    if (loaded < 0)
        loaded = wl_load("alexnet", &wl, err) == HS_OK;
    if (loaded) {
        st_check(&st, &wl, 64 + data[1], err);
        st_limit_p(&st, &wl, 64 + data[1]);
    }
    return 0;
}
