/* hs_grow.c: the growable array (hs_grow.h). */
#include "hs_grow.h"

#include <stdint.h>
#include <stdlib.h>

bool hs_grow(void **items, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap)
        return true;
    if (size == 0)
        return false;
    size_t n = *cap > 0 ? *cap : 16;
    while (n < need) {
        if (n > SIZE_MAX / 2)
            return false;
        n *= 2;
    }
    if (n > SIZE_MAX / size)
        return false;
    void *grown = realloc(*items, n * size);
    if (!grown)
        return false;
    *items = grown;
    *cap = n;
    return true;
}
