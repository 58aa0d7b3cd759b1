/* out_helpers.h: for tests of writers: the temp files hs_out leaves beside an output
 * (PATH.XXXXXX.tmp, hs_out.h), which must be none once the output is committed or aborted. */
#ifndef OUT_HELPERS_H
#define OUT_HELPERS_H

#include <glob.h>
#include <stdio.h>

static inline int temps_beside(const char *path)
{
    char pattern[1200];
    glob_t found;
    snprintf(pattern, sizeof pattern, "%s.*.tmp", path);
    if (glob(pattern, 0, NULL, &found) != 0)
        return 0;
    int n = (int)found.gl_pathc;
    globfree(&found);
    return n;
}

#endif
