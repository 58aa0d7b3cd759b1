/* fuzz_paradl.c: ParaDL's model (.net, .net_sc) and layer (.lc) files (workload_paradl.c): the
 * bytes up to the first NUL are the model, the rest the layer file applied to it. */
#include "fuzz.h"
#include "workload.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[HS_ERR_LEN];
    const uint8_t *nul = memchr(data, '\0', size);
    size_t model = nul ? (size_t)(nul - data) : size;
    const char *net = fuzz_file(0, data, model, ".net_sc");
    wl_workload wl;
    if (!net || wl_load(net, &wl, err) != HS_OK)
        return 0;
    if (nul) {
        const char *lc = fuzz_file(1, nul + 1, size - model - 1, ".lc");
        if (lc)
            wl_apply_layer_file(&wl, lc, err);
    }
    wl_free(&wl);
    return 0;
}
