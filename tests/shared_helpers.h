/* shared_helpers.h: the unit tests that read ../shared (the ParaDL oracle's models and logs)
 * are skipped, exit status 77 (tests/CMakeLists.txt's SKIP_RETURN_CODE), where it is absent.
 * Header-only. */
#ifndef SHARED_HELPERS_H
#define SHARED_HELPERS_H

#include <stdbool.h>
#include <stdio.h>
#include <unistd.h>

#define HS_SKIPPED 77

/* Whether ../shared's ParaDL files are there; if not, says so (the caller returns HS_SKIPPED). */
static inline bool hs_shared_present(void)
{
    const char *dir = HS_SHARED_DIR "/reference/paradl/model";
    if (access(dir, R_OK) == 0)
        return true;
    printf("SKIP: no %s (../shared beside the checkout)\n", dir);
    return false;
}

#endif
