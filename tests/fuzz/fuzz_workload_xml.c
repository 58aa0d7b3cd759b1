/* fuzz_workload_xml.c: the workload XML loader (wl_load: libxml2, the DTD, then hybridsim's own
 * checks of shapes, splits and times) on any bytes. */
#include "fuzz.h"
#include "workload.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[HS_ERR_LEN];
    const char *path = fuzz_file(0, data, size, ".xml");
    wl_workload wl;
    if (path && wl_load(path, &wl, err) == HS_OK)
        wl_free(&wl);
    return 0;
}
