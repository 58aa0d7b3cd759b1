/* hs_grow.c: the growable array (hs_grow.h). */
#include "hs_grow.h"

#include <stdint.h>
#include <stdlib.h>

bool hs_grow(void **items, int *cap, int need, size_t size)
{
    if (need <= *cap)
        return true;
    int64_t n = *cap > 0 ? *cap : 16;
    while (n < need)
        n *= 2;
    if (n > INT32_MAX || (size_t)n > SIZE_MAX / size)
        return false;
    void *grown = realloc(*items, (size_t)n * size);
    if (!grown)
        return false;
    *items = grown;
    *cap = (int)n;
    return true;
}
