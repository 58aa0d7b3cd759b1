/* fuzz_sweep_csv.c: a sweep's CSV read back to resume (sw_table_read: the header, RFC 4180
 * quoting, truncated last lines, rows of the version before the link columns) and the
 * superseding of repeated keys. */
#include "fuzz.h"
#include "hs_error.h"
#include "sweep_int.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[HS_ERR_LEN];
    const char *path = fuzz_file(0, data, size, ".csv");
    sw_arena a = {0};
    sw_table t = {0};
    const char *header = sw_csv_header(&a);
    if (path && header && sw_table_read(path, header, &t, &a, err) == HS_OK)
        sw_table_supersede(&t, err);
    sw_table_free(&t);
    sw_arena_free(&a);
    return 0;
}
