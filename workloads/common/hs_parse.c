/* hs_parse.c: whole numbers from user text, checked and range-limited (see hs_parse.h). */
#include "hs_parse.h"

#include <errno.h>
#include <stdlib.h>

#include "hs_error.h"

int hs_parse_int64(const char *where, const char *text, int64_t min, int64_t max, int64_t *value,
                   char *err)
{
    char *end = NULL;
    errno = 0;
    long long v = strtoll(text, &end, 10);
    if (errno || end == text || *end != '\0')
        return hs_fail(err, HS_EINPUT, "%s: '%s' is not a whole number", where, text);
    if (v < min || v > max)
        return hs_fail(err, HS_EINPUT, "%s: %lld is out of range [%lld, %lld]", where, v,
                       (long long)min, (long long)max);
    *value = v;
    return HS_OK;
}
