/* fuzz_platform_xml.c: the platform checker (plat_check_file: libxml2, then the structure
 * hybridsim needs: hosts, properties, links, routes) on any bytes, without SimGrid. */
#include "fuzz.h"
#include "platcheck.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[HS_ERR_LEN];
    const char *path = fuzz_file(0, data, size, ".xml");
    plat_facts facts;
    if (path && plat_check_file(path, &facts, err) == HS_OK)
        plat_facts_free(&facts);
    return 0;
}
