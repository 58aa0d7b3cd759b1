/* hs_error.c: formatting helper for the error convention in hs_error.h. */
#include "hs_error.h"

#include <stdio.h>

int hs_fail(char *err, int status, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, HS_ERR_LEN, fmt, ap);
        va_end(ap);
    }
    return status;
}
