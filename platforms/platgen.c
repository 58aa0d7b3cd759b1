/* platgen.c: STUB until the platform generator lands (see platgen.h). */
#include "platgen.h"

#include <string.h>

void pg_abci(pg_params *params) { memset(params, 0, sizeof *params); }
int pg_write(const pg_params *params, FILE *out, char *err)
{
    return hs_fail(err, HS_EINTERNAL, "the platform generator is not implemented yet");
}
int pg_main(int argc, char **argv, char *err)
{
    return hs_fail(err, HS_EINTERNAL, "the platform generator is not implemented yet");
}
